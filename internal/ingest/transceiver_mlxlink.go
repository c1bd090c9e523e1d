package ingest

import (
	"strings"
)

// mlxlink's Module Info (`mlxlink -d DEV -m`, MFT and mstflint's
// mlxlink_commander.cpp) prints the module's monitors with the range the
// firmware holds for them, its alarm thresholds:
//
//	Module Info
//	-----------
//	Temperature [C]                    : 54 [-5..75]
//	Bias Current [mA]                  : 8.380,8.380,8.380,8.380 [2..15]
//	Rx Power Current [dBm]             : 1.886,1.989,2.281,1.976 [-10.41..6]
//	Tx Power Current [dBm]             : 1.562,1.427,1.559,1.761 [-8.508..5]
//	Identifier                         : OSFP
//	Vendor Part Number                 : T-F4GS-BV0
//
// A module without diagnostics (a passive copper cable) prints "N/A", or
// zeros with the range [0..0]: neither is read.

// mlxlinkModule reads one of Module Info's labels: handled is set when key
// is one, ok when its value reads as mlxlink prints it.
func (p *transceiverParser) mlxlinkModule(ev Evidence, key, val string) (handled, ok bool) {
	var q int
	switch key {
	case "temperature [c]":
		vs, lo, hi, ok := mlxlinkRange(val)
		if !ok || len(vs) != 1 {
			return true, false
		}
		if lo == 0 && hi == 0 {
			return true, true
		}
		m := p.module(ev)
		if m == nil {
			return true, false
		}
		m.TempC, m.TempEv = vs[0], ev
		m.Limits.TempHighAlarm = Limit{V: hi, Ev: ev}
		return true, true
	case "bias current [ma]":
		q = quantityBias
	case "rx power current [dbm]":
		q = quantityRx
	case "tx power current [dbm]":
		q = quantityTx
	case "vendor part number":
		if p.cur == nil {
			return true, false
		}
		p.cur.PN = strings.Clone(val)
		return true, true
	default:
		return false, false
	}
	vs, lo, hi, ok := mlxlinkRange(val)
	if !ok || len(vs) > maxModuleLanes {
		return true, false
	}
	if lo == 0 && hi == 0 {
		// No diagnostics: the zeros are no readings.
		return true, true
	}
	conv := func(v float64) float64 { return v }
	if q != quantityBias {
		conv = milliwatts
	}
	for i, v := range vs {
		if !p.monitor(ev, q, i+1, conv(v)) {
			return true, false
		}
	}
	lim := &p.cur.Limits
	switch q {
	case quantityRx:
		lim.RxLowAlarm, lim.RxHighAlarm = Limit{V: conv(lo), Ev: ev}, Limit{V: conv(hi), Ev: ev}
	case quantityTx:
		lim.TxLowAlarm = Limit{V: conv(lo), Ev: ev}
	}
	return true, true
}

// mlxlinkRange reads "1.886,1.989,2.281,1.976 [-10.41..6]": the lanes'
// values and the range after them. "N/A" reads as no values.
func mlxlinkRange(s string) (vals []float64, lo, hi float64, ok bool) {
	if s == "N/A" {
		return nil, 0, 0, true
	}
	list, rng, found := strings.Cut(s, " [")
	if !found || !strings.HasSuffix(rng, "]") {
		return nil, 0, 0, false
	}
	a, b, found := strings.Cut(strings.TrimSuffix(rng, "]"), "..")
	if !found {
		return nil, 0, 0, false
	}
	num := func(t string) (float64, bool) { return finiteFloat(strings.TrimSpace(t)) }
	if lo, ok = num(a); !ok {
		return nil, 0, 0, false
	}
	if hi, ok = num(b); !ok {
		return nil, 0, 0, false
	}
	for _, f := range strings.Split(list, ",") {
		v, ok := num(f)
		if !ok {
			return nil, 0, 0, false
		}
		vals = append(vals, v)
	}
	return vals, lo, hi, true
}
