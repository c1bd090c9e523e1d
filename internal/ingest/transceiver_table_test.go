package ingest

import (
	"math"
	"testing"
)

// nearDBm reports whether mw is dbm to the hundredth a table prints.
func nearDBm(mw, dbm float64) bool { return math.Abs(10*math.Log10(mw)-dbm) < 0.005 }

// EOS's summary: one row per lane, lanes of one module grouped under the
// port without the lane ("Et3/17"), N/A read as no reading, the Last
// Update column skipped.
func TestTransceiverEOSSummary(t *testing.T) {
	tr := corpusAs[*Transceiver](t, "switch/eos-show-interfaces-transceiver-et4-21-dark-30dbm-ntctemplates.txt", KindTransceiver)
	var ports []string
	for _, m := range tr.Modules {
		ports = append(ports, m.Port)
	}
	if len(tr.Modules) != 3 || ports[0] != "Et3/1" || ports[1] != "Et3/17" || ports[2] != "Et4/21" {
		t.Fatalf("modules %v", ports)
	}
	m := tr.Modules[1]
	if len(m.Lanes) != 3 || !near(m.TempC, 35.61) || m.TempEv.Line != 12 {
		t.Fatalf("Et3/17 %+v", m)
	}
	if ln := m.Lanes[1]; ln.Lane != 2 || !near(ln.BiasMA, 36.94) || !nearDBm(ln.TxMW, -0.20) || !nearDBm(ln.RxMW, -0.20) || ln.RxEv.Line != 13 {
		t.Errorf("lane 2 %+v", ln)
	}
	if ln := tr.Modules[0].Lanes[0]; ln.TxMW != -1 || !near(ln.BiasMA, 19.94) {
		t.Errorf("Et3/1/1's Tx N/A read as %+v", ln)
	}
	if ln := tr.Modules[2].Lanes[0]; ln.BiasMA != 0 || !nearDBm(ln.RxMW, -30) {
		t.Errorf("Et4/21/1 %+v", ln)
	}
	if len(tr.Garbled) != 0 || tr.Lines() != 8 {
		t.Errorf("%d garbled, %d lines", len(tr.Garbled), tr.Lines())
	}
}

// EOS's detail: the thresholds in its order (low alarm, then low
// warning) and IOS-XE's (low warning first) both land where they belong.
func TestTransceiverTableThresholdOrder(t *testing.T) {
	for _, c := range []struct {
		file, port         string
		lowAlarm, lowWarn  float64
		line, lanes, flags int
	}{
		{"switch/eos-show-interfaces-transceiver-detail-thresholds-healthy-ntctemplates.txt", "Et6", -11.50, -10.50, 47, 4, 0},
		{"switch/iosxe-show-interfaces-transceiver-detail-low-warn-before-low-alarm-routerlog.txt", "Gi0/0/0", -23.0, -19.0, 54, 1, 0},
	} {
		tr := corpusAs[*Transceiver](t, c.file, KindTransceiver)
		var m *Module
		for i := range tr.Modules {
			if tr.Modules[i].Port == c.port {
				m = &tr.Modules[i]
			}
		}
		if m == nil {
			t.Fatalf("%s: no module %s in %+v", c.file, c.port, tr.Modules)
		}
		lim := m.Limits
		if !nearDBm(lim.RxLowAlarm.V, c.lowAlarm) || !nearDBm(lim.RxLowWarn.V, c.lowWarn) || lim.RxLowWarn.Ev.Line != c.line {
			t.Errorf("%s: rx limits %+v", c.file, lim)
		}
		if len(m.Lanes) != c.lanes || len(m.On) != c.flags || len(tr.Garbled) != 0 {
			t.Errorf("%s: %d lanes, flags %v, garbled %v", c.file, len(m.Lanes), m.On, tr.Garbled)
		}
	}
}

// A value's mark is the module's flag on that lane, with or without a
// space before it; a row that does not go on as the header says is
// reported at the value that does not read. Synthetic rows in EOS's
// detail layout.
func TestTransceiverTableMarksAndGarble(t *testing.T) {
	const in = `                         High Alarm  High Warn   Low Alarm   Low Warn
           Rx Power      Threshold   Threshold   Threshold   Threshold
Port       (dBm)         (dBm)       (dBm)       (dBm)       (dBm)
-------    ------------  ----------  ----------  ----------  ----------
Et1/1      -12.31 --     4.40        3.40        -11.50      -10.50
Et1/2      -10.90-       4.40        3.40        -11.50      -10.50
Et1/3      -1.2x         4.40        3.40        -11.50      -10.50
`
	tr := feedTransceiver(in).(*Transceiver)
	if len(tr.Modules) != 1 || len(tr.Modules[0].On) != 2 {
		t.Fatalf("modules %+v", tr.Modules)
	}
	on := tr.Modules[0].On
	if on[0].Name != "laser rx power low alarm" || on[0].Lane != 1 || on[1].Name != "laser rx power low warning" || on[1].Lane != 2 {
		t.Errorf("flags %+v", on)
	}
	if len(tr.Garbled) != 1 || tr.Garbled[0].Line != 7 || tr.Garbled[0].Col != 12 {
		t.Errorf("garbled %+v", tr.Garbled)
	}
}

// NX-OS's details: a block per port, its words before a table per lane
// whose thresholds run high alarm, low alarm, high warning, low warning;
// marks after the unit are the module's flags.
func TestTransceiverNXOSDetails(t *testing.T) {
	tr := corpusAs[*Transceiver](t, "switch/nxos-show-interface-transceiver-details-sfp-shut-dark-cfp-lr4-lanes-ntctemplates.txt", KindTransceiver)
	if len(tr.Modules) != 4 || len(tr.Garbled) != 0 {
		t.Fatalf("%d modules, garbled %+v", len(tr.Modules), tr.Garbled)
	}
	sfp := tr.Modules[1]
	if sfp.Port != "Ethernet3/2" || sfp.Type != "10Gbase-SR" || sfp.PN != "FTLX8571D3BCL-C2" || len(sfp.Lanes) != 1 || len(sfp.On) != 3 {
		t.Fatalf("Ethernet3/2 %+v", sfp)
	}
	if ln := sfp.Lanes[0]; !near(ln.BiasMA, 0.43) || !nearDBm(ln.TxMW, -16.19) || !nearDBm(ln.RxMW, -33.97) || ln.RxEv.Line != 63 {
		t.Errorf("Ethernet3/2 lane %+v", ln)
	}
	if f := sfp.On[0]; f.Name != "laser bias current low alarm" || f.Lane != 1 {
		t.Errorf("flag %+v", f)
	}
	cfp := tr.Modules[3]
	if cfp.Port != "Ethernet4/1" || len(cfp.Lanes) != 2 || cfp.Lanes[0].Lane != 2 || !nearDBm(cfp.Lanes[1].RxMW, -1.57) || !near(cfp.TempC, 40.44) {
		t.Fatalf("Ethernet4/1 %+v", cfp)
	}
	lim := cfp.Limits
	if !nearDBm(lim.RxLowAlarm.V, -14.60) || !nearDBm(lim.RxLowWarn.V, -10.59) || !nearDBm(lim.RxHighWarn.V, 4.49) || !nearDBm(lim.TxLowAlarm.V, -8.30) || !near(lim.TempHighWarn.V, 70) {
		t.Errorf("Ethernet4/1 limits %+v", lim)
	}
}

// An NX-OS row that does not go on as NX-OS prints it is reported at its
// values (SYNTHETIC: a value cut short).
func TestTransceiverNXOSGarbled(t *testing.T) {
	const in = "Ethernet1/49\n    transceiver is present\n    type is QSFP-100G-SR4\n  Rx Power     -3.05 dBm       2.00 dBm  -13.90 dBm\n  Tx Power     -1.05 dBm       2.00 dBm  -11.30 dBm   -1.30 dBm     -7.30 dBm\n"
	tr := feedTransceiver(in).(*Transceiver)
	if len(tr.Garbled) != 1 || tr.Garbled[0].Line != 4 || tr.Garbled[0].Col != 16 {
		t.Errorf("garbled %+v", tr.Garbled)
	}
	if len(tr.Modules) != 1 || len(tr.Modules[0].Lanes) != 1 || !nearDBm(tr.Modules[0].Lanes[0].TxMW, -1.05) {
		t.Errorf("modules %+v", tr.Modules)
	}
}
