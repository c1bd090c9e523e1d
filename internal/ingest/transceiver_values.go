package ingest

import (
	"math"
	"strconv"
	"strings"
)

// The values of a module's diagnostics as its tools print them, and the
// labels whose values the judge reads.

// domLabel reports whether key is a label whose value the judge reads: a
// lane monitor, a threshold, a flag, a lane status or a temperature, in
// ethtool's, SONiC's or mlxlink's words.
func domLabel(key string, lane int) bool {
	if _, ok := laneQuantity(key, lane); ok {
		return true
	}
	if _, ok := sonicLimits[key]; ok || sonicLane().MatchString(key) || laneSignals[key] {
		return true
	}
	switch key {
	case "module temperature", "temperature", "temperature [c]", "bias current [ma]", "rx power current [dbm]", "tx power current [dbm]":
		return true
	}
	return (strings.HasPrefix(key, "laser ") || strings.HasPrefix(key, "module temperature ")) &&
		(strings.HasSuffix(key, " alarm") || strings.HasSuffix(key, " warning") || strings.HasSuffix(key, " threshold"))
}

// domExpected says what a DOM label's value should have been.
func domExpected(key string) string {
	switch {
	case laneSignals[key]:
		return "None, Yes, No or a list such as [ Yes, No, No, No ]"
	case strings.HasSuffix(key, " alarm") || strings.HasSuffix(key, " warning"):
		return "On or Off"
	case strings.HasSuffix(key, "]"):
		return "values with their range, as mlxlink prints them (1.886,1.989 [-10.41..6])"
	}
	return "a number and its unit as printed (0.7682 mW / -1.15 dBm, 3.2611dBm, 6.750 mA, 42.17 degrees C, 27.8203C)"
}

// parenthesised returns what the parentheses of "0x11 (QSFP28)" hold,
// else s. A value the mail wrapped ("0x18 (QSFP-DD Double Density") keeps
// what follows the parenthesis.
func parenthesised(s string) string {
	i := strings.IndexByte(s, '(')
	if i < 0 {
		return s
	}
	in := s[i+1:]
	if j := strings.LastIndexByte(in, ')'); j >= 0 {
		in = in[:j]
	}
	return strings.TrimSpace(in)
}

// leadingFloat reads the number that begins s ("42.17 degrees C").
func leadingFloat(s string) (float64, bool) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, false
	}
	return finiteFloat(f[0])
}

// finiteFloat reads a number as a module prints it: finite, under a
// million in size.
func finiteFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
		return 0, false
	}
	return v, true
}

// withUnit reads "6.750 mA", "3.2917 V": a number and the unit named.
func withUnit(s, unit string) (float64, bool) {
	f := strings.Fields(s)
	if len(f) < 2 || f[1] != unit {
		return 0, false
	}
	v, ok := leadingFloat(f[0])
	return v, ok && v >= 0
}

// opticalPower reads "0.7682 mW / -1.15 dBm" (the mW is kept) or a value
// in dBm alone ("-40.00 dBm"), in milliwatts.
func opticalPower(s string) (float64, bool) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return 0, false
	}
	switch f[1] {
	case "mW":
		v, ok := leadingFloat(f[0])
		return v, ok && v >= 0
	case "dBm":
		if f[0] == "-inf" {
			return 0, true
		}
		v, ok := leadingFloat(f[0])
		if !ok || v > 60 {
			return 0, false
		}
		return milliwatts(v), true
	}
	return 0, false
}

// milliwatts converts a power in dBm to milliwatts.
func milliwatts(dbm float64) float64 { return math.Pow(10, dbm/10) }

// signalLanes reads a lane status value: "None", "Yes", "No", or
// "[ Yes, No, No, No ]", into the lanes that say Yes.
func signalLanes(s string) ([]int, bool) {
	switch s {
	case "None", "No":
		return nil, true
	case "Yes":
		return []int{1}, true
	}
	in, ok := strings.CutPrefix(s, "[")
	if !ok {
		return nil, false
	}
	in = strings.TrimSuffix(strings.TrimSpace(in), "]")
	var lanes []int
	for i, v := range strings.Split(in, ",") {
		switch strings.TrimSpace(v) {
		case "Yes":
			if i < maxModuleLanes {
				lanes = append(lanes, i+1)
			}
		case "No":
		default:
			return nil, false
		}
	}
	return lanes, true
}
