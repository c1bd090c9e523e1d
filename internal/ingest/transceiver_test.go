package ingest

import (
	"math"
	"strings"
	"testing"
)

// The SFF-8636 dump of a QSFP28 (Cumulus swp14): four lanes with their
// bias, powers and evidence, the thresholds the judge uses, no flag On.
func TestTransceiverQSFP28(t *testing.T) {
	tr := corpusAs[*Transceiver](t, "ethtool/ethtool-m-qsfp28-100g-sr4-healthy-mellanox-cumulus-swp14-noctests.txt", KindTransceiver)
	if len(tr.Modules) != 1 {
		t.Fatalf("%d modules", len(tr.Modules))
	}
	m := tr.Modules[0]
	if m.Identifier != "QSFP28" || m.PN != "MMA1B00-C100D" || m.Vendor != "Mellanox" || !strings.HasPrefix(m.Type, "100G Ethernet: 100G Base-SR4") {
		t.Errorf("module %q %q %q %q", m.Identifier, m.PN, m.Vendor, m.Type)
	}
	if !near(m.TempC, 30.56) || m.TempEv.Line != 29 || len(m.On) != 0 || len(m.Signals) != 0 {
		t.Errorf("temp %v line %d, flags %v, signals %v", m.TempC, m.TempEv.Line, m.On, m.Signals)
	}
	if len(m.Lanes) != 4 {
		t.Fatalf("%d lanes", len(m.Lanes))
	}
	ln := m.Lanes[2]
	if ln.Lane != 3 || !near(ln.BiasMA, 6.75) || !near(ln.TxMW, 1.3378) || !near(ln.RxMW, 1.1340) || ln.RxEv.Line != 42 || ln.TxEv.Line != 38 || ln.BiasEv.Line != 34 {
		t.Errorf("lane 3 %+v", ln)
	}
	lim := m.Limits
	if !near(lim.RxLowAlarm.V, 0.0467) || !near(lim.RxLowWarn.V, 0.0933) || !near(lim.RxHighWarn.V, 1.7378) || !near(lim.TxLowAlarm.V, 0.0724) || !near(lim.TempHighWarn.V, 70) || lim.RxLowWarn.Ev.Line != 119 {
		t.Errorf("limits %+v", lim)
	}
	if tr.Lines() != 116 {
		t.Errorf("%d lines recognised, want the 116 of the output", tr.Lines())
	}
}

// The SFF-8472 dump of an SFP: one lane without a channel; the command
// line names the port. The "# what:" header's `ethtool -m` with a
// placeholder names none.
func TestTransceiverSFP(t *testing.T) {
	tr := corpusAs[*Transceiver](t, "ethtool/ethtool-m-sfp-10g-sr-rx-13.57dbm-near-low-warning-supingisme.txt", KindTransceiver)
	if len(tr.Modules) != 1 || tr.Modules[0].Port != "enp134s0f0" || len(tr.Modules[0].Lanes) != 1 {
		t.Fatalf("modules %+v", tr.Modules)
	}
	ln := tr.Modules[0].Lanes[0]
	if ln.Lane != 1 || !near(ln.RxMW, 0.044) || !near(ln.TxMW, 0.4678) || !near(ln.BiasMA, 6.986) {
		t.Errorf("lane %+v", ln)
	}
	cm := corpusAs[*Transceiver](t, "ethtool/ethtool-m-cmis-qsfpdd-400g-xdr4-temp-high-warning-on-lanes-5-8-unused-netdev.txt", KindTransceiver)
	m := cm.Modules[0]
	if m.Port != "" || m.State != "ModuleReady" || m.Identifier != "QSFP-DD Double Density" || len(m.Lanes) != 8 || len(m.On) != 1 || m.On[0].Name != "module temperature high warning" || m.On[0].Alarm() {
		t.Errorf("CMIS module %q %q %q, %d lanes, flags %+v", m.Port, m.State, m.Identifier, len(m.Lanes), m.On)
	}
}

// Values that do not read as ethtool prints them are not the format's:
// a temperature without its unit, a power without mW or dBm, a flag
// neither On nor Off, a lane number past 32.
func TestTransceiverRejects(t *testing.T) {
	for _, in := range []string{
		"Module temperature : hot\n",
		"Rcvr signal avg optical power(Channel 1) : 0.97\n",
		"Laser rx power low alarm (Channel 1) : maybe\n",
		"Rcvr signal avg optical power(Channel 33) : 0.97 mW / -0.12 dBm\n",
		"Rx loss of signal : [ Yes, Perhaps ]\n",
		"Identifier : 0x11 (QSFP28)\n",
		"Module Info\nRx Power Current [dBm] : 1.8,x [-10..6]\n",
		"Module Info\nRx Power Current [dBm] : 1.8,1.9 [-10;6]\n",
		"Module Info\nRx Power Current [dBm] : 0,0,0,0 [0..0]\nTemperature [C] : 0 [0..0]\n",
		"RX1Power: 3.26 dB\n",
	} {
		if a := feedTransceiver(in); a != nil {
			t.Errorf("%q read as %+v", in, a.(*Transceiver).Modules)
		}
	}
}

// SONiC's labels: lanes from RXnPower/TXnBias/TXnPower in dBm and mA
// (with or without a space before the unit), thresholds and temperature
// from its Values blocks, the port from "EthernetN: SFP EEPROM detected"
// or KLISH's line between rules.
func TestTransceiverSONiC(t *testing.T) {
	tr := corpusAs[*Transceiver](t, "switch/sonic-show-int-transceiver-eeprom-dom-qsfp56dd-400g-dr4-rx3-4-minus-40dbm-hld.txt", KindTransceiver)
	if len(tr.Modules) != 1 {
		t.Fatalf("%d modules", len(tr.Modules))
	}
	m := tr.Modules[0]
	if m.Port != "Ethernet0" || m.Host != "sonic" || m.Identifier != "QSFP56-DD" || m.PN != "AFCT-93DRPHZ-AZ2" || len(m.Lanes) != 8 || !near(m.TempC, 27.8203) {
		t.Fatalf("module %q %q %q %q, %d lanes, %v C", m.Port, m.Host, m.Identifier, m.PN, len(m.Lanes), m.TempC)
	}
	ln := m.Lanes[2]
	if !near(ln.BiasMA, 47.444) || math.Abs(ln.RxMW-0.0001) > 1e-9 || math.Abs(dbmOf(ln.TxMW)-2.8959) > 1e-9 || ln.RxEv.Line != 27 {
		t.Errorf("lane 3 %+v", ln)
	}
	if math.Abs(dbmOf(m.Limits.RxLowAlarm.V)+10.4001) > 1e-9 || math.Abs(dbmOf(m.Limits.TxLowWarn.V)+2.4003) > 1e-9 || !near(m.Limits.TempHighWarn.V, 70) {
		t.Errorf("limits %+v", m.Limits)
	}
	k := corpusAs[*Transceiver](t, "switch/sonic-klish-show-int-transceiver-dom-ethernet80-rx-under-alarm-hld.txt", KindTransceiver)
	if len(k.Modules) != 1 || k.Modules[0].Port != "Ethernet80" || k.Modules[0].PN != "AFCT-93DRPHZ-AZ2" || len(k.Modules[0].Lanes) != 8 || k.Modules[0].Evidence.Line != 7 {
		t.Errorf("KLISH modules %+v", k.Modules)
	}
}

func dbmOf(mw float64) float64 { return 10 * math.Log10(mw) }

// mlxlink's Module Info: lanes in dBm with the alarm range after them;
// the port is -d's.
func TestTransceiverMlxlink(t *testing.T) {
	tr := corpusAs[*Transceiver](t, "ethtool/mlxlink-m-module-info-osfp-4-lanes-rx-1.9-2.3dbm-collector-fixture.txt", KindTransceiver)
	if len(tr.Modules) != 1 {
		t.Fatalf("%d modules", len(tr.Modules))
	}
	m := tr.Modules[0]
	if m.Identifier != "OSFP" || m.PN != "T-F4GS-BV0" || len(m.Lanes) != 4 || !near(m.TempC, 54) || !near(m.Limits.TempHighAlarm.V, 75) {
		t.Fatalf("module %q %q, %d lanes, %v C", m.Identifier, m.PN, len(m.Lanes), m.TempC)
	}
	if math.Abs(dbmOf(m.Lanes[2].RxMW)-2.281) > 1e-9 || math.Abs(dbmOf(m.Limits.RxLowAlarm.V)+10.41) > 1e-9 || !near(m.Lanes[3].BiasMA, 8.38) || m.Lanes[0].RxEv.Line != 9 {
		t.Errorf("lanes %+v limits %+v", m.Lanes, m.Limits)
	}
}

// A value that does not read under a label the judge reads, once a
// module has begun, is a garble at the value's column; "N/A" is none.
func TestTransceiverGarbled(t *testing.T) {
	in := "\tIdentifier : 0x11 (QSFP28)\n\tModule temperature : hot\n\tTx1Power: N/A dBm\n\tRX1Power: 1.2 dB\n"
	a, ok := feedTransceiver(in).(*Transceiver)
	if !ok || len(a.Garbled) != 2 || len(a.Modules) != 0 {
		t.Fatalf("result %+v", a)
	}
	if g := a.Garbled[0]; g.Line != 2 || g.Col != 23 || !strings.HasPrefix(g.Error("t"), "t:2:23: expected a number and its unit") {
		t.Errorf("garble %+v: %s", g, g.Error("t"))
	}
	if g := a.Garbled[1]; g.Line != 4 || g.Col != 12 {
		t.Errorf("garble %+v", g)
	}
}

// feedTransceiver parses in, named "t", and returns the artifact.
func feedTransceiver(in string) Artifact {
	p := NewTransceiverParser("t")
	lr := NewLineReader(strings.NewReader(in))
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		p.Feed(l)
	}
	return p.Result()
}

// "-inf" is how ethtool and SONiC print a power of 0 mW: none, not a
// garble (SYNTHETIC, the labels and units as each prints them).
func TestTransceiverMinusInf(t *testing.T) {
	for _, in := range []string{
		"Ethernet0: SFP EEPROM detected\n        ChannelMonitorValues:\n                RX1Power: -infdBm\n                TX1Bias: 0.0000mA\n",
		"Identifier : 0x11 (QSFP28)\nRcvr signal avg optical power(Channel 1) : -inf dBm\n",
	} {
		a := feedTransceiver(in)
		if a == nil {
			t.Errorf("%q not read", in)
			continue
		}
		tr := a.(*Transceiver)
		if len(tr.Garbled) != 0 || len(tr.Modules) != 1 || len(tr.Modules[0].Lanes) != 1 || tr.Modules[0].Lanes[0].RxMW != 0 || tr.Modules[0].Lanes[0].RxEv.Line == 0 {
			t.Errorf("%q: modules %+v, garbled %+v", in, tr.Modules, tr.Garbled)
		}
	}
}
