package ingest

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// SONiC prints a module's diagnostics under its own labels: `show
// interfaces transceiver eeprom --dom` and `sfputil show eeprom --dom`
// (sonic-utilities' convert_dom_to_output_string), and the KLISH `show
// interface transceiver dom` of the Transceiver DOM HLD:
//
//	Ethernet0: SFP EEPROM detected
//	        Identifier: QSFP56-DD
//	        ChannelMonitorValues:
//	                RX3Power: -40.0000dBm
//	                TX3Bias: 47.4440mA
//	                TX3Power: 2.8959dBm
//	        ChannelThresholdValues:
//	                RxPowerLowAlarm   : -10.4001dBm
//	        ModuleMonitorValues:
//	                Temperature: 27.8203C
//	        ModuleThresholdValues:
//	                TempHighWarning: 70.0000C
//
// KLISH names the port on a line of its own between rules of dashes and
// puts a space before each unit ("-33.9794 dBm").

// sonicLane matches a lane monitor's label, lower case: "rx3power",
// "tx1bias".
var sonicLane = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(rx|tx)([1-9][0-9]?)(power|bias)$`) })

// sonicPortName matches a SONiC port name.
var sonicPortName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Ethernet[0-9]{1,4}$`) })

// sonicPort reads the line that names the next module's port: "Ethernet0:
// SFP EEPROM detected", or KLISH's bare "Ethernet80" after a rule.
func sonicPort(t string, afterRule bool) (string, bool) {
	if name, ok := strings.CutSuffix(t, ": SFP EEPROM detected"); ok && sonicPortName().MatchString(name) {
		return strings.Clone(name), true
	}
	if afterRule && sonicPortName().MatchString(t) {
		return strings.Clone(t), true
	}
	return "", false
}

// sonicLimits are the thresholds the judge uses, by SONiC's label.
var sonicLimits = map[string]func(*OpticLimits) *Limit{
	"rxpowerlowalarm":    func(l *OpticLimits) *Limit { return &l.RxLowAlarm },
	"rxpowerlowwarning":  func(l *OpticLimits) *Limit { return &l.RxLowWarn },
	"rxpowerhighalarm":   func(l *OpticLimits) *Limit { return &l.RxHighAlarm },
	"rxpowerhighwarning": func(l *OpticLimits) *Limit { return &l.RxHighWarn },
	"txpowerlowalarm":    func(l *OpticLimits) *Limit { return &l.TxLowAlarm },
	"txpowerlowwarning":  func(l *OpticLimits) *Limit { return &l.TxLowWarn },
	"temphighalarm":      func(l *OpticLimits) *Limit { return &l.TempHighAlarm },
	"temphighwarning":    func(l *OpticLimits) *Limit { return &l.TempHighWarn },
}

// sonicOther are SONiC's thresholds that are read as lines only.
var sonicOther = map[string]string{
	"txpowerhighalarm": "dBm", "txpowerhighwarning": "dBm",
	"txbiashighalarm": "mA", "txbiashighwarning": "mA", "txbiaslowalarm": "mA", "txbiaslowwarning": "mA",
	"templowalarm": "C", "templowwarning": "C",
	"vcchighalarm": "Volts", "vcchighwarning": "Volts", "vcclowalarm": "Volts", "vcclowwarning": "Volts", "vcc": "Volts",
}

// sonic reads one of SONiC's labels: handled is set when key is one, ok
// when its value reads as SONiC prints it.
func (p *transceiverParser) sonic(ev Evidence, key, val string) (handled, ok bool) {
	if sm := sonicLane().FindStringSubmatch(key); sm != nil {
		lane, _ := strconv.Atoi(sm[2])
		if lane > maxModuleLanes {
			return true, false
		}
		q := quantityRx
		switch {
		case sm[1] == "tx" && sm[3] == "bias":
			q = quantityBias
		case sm[1] == "tx":
			q = quantityTx
		case sm[3] == "bias":
			return true, false
		}
		var v float64
		if q == quantityBias {
			v, ok = sonicValue(val, "mA")
		} else {
			v, ok = sonicPower(val)
		}
		return true, ok && p.monitor(ev, q, lane, v)
	}
	if key == "temperature" {
		v, ok := sonicValue(val, "C")
		if !ok {
			return true, false
		}
		m := p.module(ev)
		if m == nil {
			return true, false
		}
		m.TempC, m.TempEv = v, ev
		return true, true
	}
	if dst, isLimit := sonicLimits[key]; isLimit {
		if p.cur == nil {
			return true, false
		}
		var v float64
		if strings.HasPrefix(key, "temp") {
			v, ok = sonicValue(val, "C")
		} else {
			v, ok = sonicPower(val)
		}
		if ok {
			*dst(&p.cur.Limits) = Limit{V: v, Ev: ev}
		}
		return true, ok
	}
	if unit, other := sonicOther[key]; other {
		_, ok := sonicValue(val, unit)
		return true, ok && p.cur != nil
	}
	if key == "vendor part" {
		if p.cur == nil {
			return true, false
		}
		p.cur.PN = strings.Clone(val)
		return true, true
	}
	return false, false
}

// sonicValue reads "44.9420mA", "34.9920 mA", "27.8203C": a number and
// the unit named, with or without a space between.
func sonicValue(s, unit string) (float64, bool) {
	n, ok := strings.CutSuffix(s, unit)
	if !ok {
		return 0, false
	}
	return finiteFloat(strings.TrimSpace(n))
}

// sonicPower reads a power in dBm ("3.2611dBm", "-infdBm", "-33.9794
// dBm") into milliwatts.
func sonicPower(s string) (float64, bool) {
	n, ok := strings.CutSuffix(s, "dBm")
	if !ok {
		return 0, false
	}
	n = strings.TrimSpace(n)
	if n == "-inf" {
		return 0, true
	}
	v, err := strconv.ParseFloat(n, 64)
	if err != nil || math.IsNaN(v) || v < -100 || v > 60 {
		return 0, false
	}
	return milliwatts(v), true
}
