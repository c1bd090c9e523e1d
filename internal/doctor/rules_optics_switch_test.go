package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// SONiC's `show interfaces transceiver eeprom --dom` (the Transceiver DOM
// HLD's example): a 400G DR4 whose lanes 3-4 receive -40 dBm while their
// lasers transmit is a fiber or far-end fault on those lanes; lanes 5-8
// are the ones a DR4 leaves unused.
func TestSONiCTransceiverDOMLanesDark(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-show-int-transceiver-eeprom-dom-qsfp56dd-400g-dr4-rx3-4-minus-40dbm-hld.txt")
	f := nicMustFind(t, fs, "optics.rx.dark", Error, "sonic Ethernet0: lanes 3-4 of QSFP56-DD AFCT-93DRPHZ-AZ2 receive no light while the module transmits")
	if len(f.Evidence) != 4 || f.Evidence[0].Line != 27 || f.Evidence[3].Line != 40 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "optics.lanes", Info, "lanes 5-8", "the port uses 4 of the module's 8 lanes")
	nicMustNot(t, fs, "optics.rx.power")
}

// KLISH's `show interface transceiver dom Ethernet 80` (the same HLD):
// the port named between rules, units after a space. Lanes 1 and 3 at
// -33.98 and -32.22 dBm are under the -30 dBm no receiver decodes: they
// receive nothing; lanes 2 and 4 receive 12 dB under the module's low
// alarm.
func TestSONiCTransceiverDOMKlishUnderAlarm(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-klish-show-int-transceiver-dom-ethernet80-rx-under-alarm-hld.txt")
	f := nicMustFind(t, fs, "optics.rx.power", Error, "Ethernet80: QSFP-DD AFCT-93DRPHZ-AZ2, received power: lanes 2, 4 at -23.28 dBm, -22.84 dBm, under its low-alarm threshold -10.40 dBm")
	if len(f.Evidence) != 3 || f.Evidence[2].Line != 40 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "optics.rx.dark", Error, "Ethernet80: lanes 1, 3 of QSFP-DD AFCT-93DRPHZ-AZ2 receive no light while the module transmits")
}

// sonic-utilities' expected `show interfaces transceiver eeprom -d` of
// two healthy AOCs and an empty cage: two modules, each healthy.
func TestSONiCTransceiverDOMHealthy(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-show-int-transceiver-eeprom-dom-all-qsfp28-aoc-healthy-sonicutilities-sfptest.txt")
	if len(fs) != 2 {
		t.Fatalf("want two findings:\n%s", nicTitles(fs))
	}
	nicMustFind(t, fs, "optics.ok", Info, "Ethernet0: QSFP28 or later MFA1A00-C003 healthy on lanes 1-4, weakest receive -0.49 dBm (9.0 dB over the low-warning threshold), 30.93 C")
	nicMustFind(t, fs, "optics.ok", Info, "Ethernet64: ")
}

// SONiC names a copper cable in its compliance lines: a DAC whose DOM
// reads no bias and -inf on every lane is a copper cable, not a dark
// module (SYNTHETIC, the labels of sonic-utilities' eeprom --dom output).
func TestSONiCModuleCopperSynthetic(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"Ethernet8: SFP EEPROM detected",
		"        Identifier: QSFP28 or later",
		"        Specification compliance:",
		"                Extended Specification Compliance: 100GBASE-CR4, 25GBASE-CR CA-L",
		"        Vendor PN: MCP1600-C003",
		"        ChannelMonitorValues:",
		"                RX1Power: -infdBm",
		"                RX2Power: -infdBm",
		"                TX1Bias: 0.0000mA",
		"                TX2Bias: 0.0000mA",
		"        ModuleMonitorValues:",
		"                Temperature: 31.0000C",
	)
	nicMustFind(t, fs, "optics.copper", Info, "Ethernet8: QSFP28 or later MCP1600-C003 is a copper cable")
	nicMustNot(t, fs, "optics.dark")
}

// EOS's summary (ntc-templates): Et4/21/1 biased 0.00 mA receives -30.00
// dBm, the floor EOS prints for no light: the port is dark, not a
// healthy module. The lit modules print no threshold, and their verdict
// says so rather than claiming the module's own.
func TestEOSTransceiverSummaryDark(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/switch/eos-show-interfaces-transceiver-et4-21-dark-30dbm-ntctemplates.txt")}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "transceiver" {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	fs := rep.Findings
	f := nicMustFind(t, fs, "optics.dark", Warn, "Et4/21: the module sends and receives no light on its one lane")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 16 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "optics.ok", Info, "Et3/17: the module healthy on lanes 1-3, weakest receive -0.72 dBm (over -10 dBm; the module's thresholds are not in the paste), 35.61 C")
	if len(fs) != 3 {
		t.Errorf("want three findings:\n%s", nicTitles(fs))
	}
}

// The detail tables with the module's thresholds: EOS's (ntc-templates),
// Et6's four lanes 9.5 dB over the -10.50 dBm low warning; IOS-XE's,
// which print Low Warn before Low Alarm: Gi0/0/0's -7.9 dBm is 11.1 dB
// over its -19.0 dBm low warning (read in EOS's order it would be 15.1
// dB over a -23.0 "warning"). IOS-XE's admin-down ports read nothing.
func TestTransceiverDetailTables(t *testing.T) {
	for _, c := range []struct {
		file  string
		n     int
		wants []string
	}{
		{"corpus/switch/eos-show-interfaces-transceiver-detail-thresholds-healthy-ntctemplates.txt", 3, []string{
			"Et6: the module healthy on lanes 1-4, weakest receive -1.00 dBm (9.5 dB over the low-warning threshold), 27.48 C",
			"Et7: the module healthy on lane 1, weakest receive -1.15 dBm (9.3 dB over the low-warning threshold)"}},
		{"corpus/switch/iosxe-show-interfaces-transceiver-detail-low-warn-before-low-alarm-routerlog.txt", 2, []string{
			"Gi0/0/0: the module healthy on lane 1, weakest receive -7.90 dBm (11.1 dB over the low-warning threshold), 43.80 C",
			"Gi0/1/0: the module healthy on lane 1, weakest receive -9.30 dBm (9.7 dB over the low-warning threshold)"}},
	} {
		fs := diagnoseFiles(t, Options{}, c.file)
		for _, w := range c.wants {
			nicMustFind(t, fs, "optics.ok", Info, w)
		}
		if len(fs) != c.n {
			t.Errorf("%s: want %d findings:\n%s", c.file, c.n, nicTitles(fs))
		}
	}
}

// A summary without thresholds: a lane under -10 dBm is weak, not
// healthy (SYNTHETIC row in EOS's summary layout).
func TestTransceiverNoThresholdsWeak(t *testing.T) {
	const in = `                               Bias      Optical   Optical
          Temp       Voltage   Current   Tx Power  Rx Power
Port      (Celsius)  (Volts)   (mA)      (dBm)     (dBm)     Last Update
-----     ---------  --------  --------  --------  --------  -------------------
Et1/1      35.61      3.21      36.64    1.51      -12.10    0:00:03 ago
`
	rep := Diagnose([]string{"-"}, strings.NewReader(in), Options{})
	f := nicMustFind(t, rep.Findings, "optics.rx.power", Warn, "Et1: the module, received power: lane 1 at -12.10 dBm, under -10 dBm")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 5 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, rep.Findings, "optics.ok")
}

// NX-OS's details (ntc-templates): three SFP-10G-SR ports whose lasers
// are off (a fraction of a milliampere, -14 to -16 dBm, flagged low
// alarms) and which receive nothing are dark both ways, one finding each,
// not a receiver fault "while the module transmits" beside a failing
// laser; the CFP LR4's two network lanes are healthy.
func TestNXOSTransceiverDetails(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/nxos-show-interface-transceiver-details-sfp-shut-dark-cfp-lr4-lanes-ntctemplates.txt")
	for _, port := range []string{"Ethernet3/1", "Ethernet3/2", "Ethernet3/3"} {
		nicMustFind(t, fs, "optics.dark", Warn, port+": FTLX8571D3BCL-C2 (10Gbase-SR) sends and receives no light on its one lane")
	}
	nicMustFind(t, fs, "optics.ok", Info, "Ethernet4/1: SCF1001L4CNC101 (CFP-100G-LR4) healthy on lanes 2-3, weakest receive -1.77 dBm (8.8 dB over the low-warning threshold), 40.44 C")
	if len(fs) != 4 {
		t.Errorf("want four findings:\n%s", nicTitles(fs))
	}
}

// A shut port's laser keeps a fraction of a milliampere and sends under
// the module's low-alarm threshold; with its receiver dark it is dark
// both ways even where the module prints thresholds but raises no flag
// (SYNTHETIC module, the values of NX-OS's shut SFP-10G-SR ports).
func TestLaserUnderLowAlarmDark(t *testing.T) {
	m := ingest.Module{Port: "Ethernet3/1", Lanes: []ingest.OpticLane{{Lane: 1, BiasMA: 0.5, TxMW: 0.03, RxMW: 0.0001,
		BiasEv: Evidence{File: "x", Line: 2, Text: "Current 0.50 mA"}, RxEv: Evidence{File: "x", Line: 4, Text: "Rx Power -40.00 dBm"}}}}
	m.Limits.TxLowAlarm.V = 0.1
	fs := judgeModule("Ethernet3/1", m)
	nicMustFind(t, fs, "optics.dark", Warn, "Ethernet3/1: the module sends and receives no light on its one lane")
	nicMustNot(t, fs, "optics.rx.dark")
}
