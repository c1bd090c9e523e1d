package doctor

import (
	"fmt"
	"strings"
	"testing"
)

// A healthy QSFP28 SR4 (Cumulus, noc tests): read, and said to be healthy
// with the margin of its weakest lane, -0.12 dBm against a -10.30 dBm
// low-warning threshold.
func TestEthtoolModuleHealthy(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/ethtool/ethtool-m-qsfp28-100g-sr4-healthy-mellanox-cumulus-swp14-noctests.txt")}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "transceiver" {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("want one finding:\n%s", nicTitles(rep.Findings))
	}
	f := nicMustFind(t, rep.Findings, "optics.ok", Info, "QSFP28 MMA1B00-C100D (100G Base-SR4 or 25GBase-SR) healthy on lanes 1-4",
		"weakest receive -0.12 dBm (10.2 dB over the low-warning threshold), 30.56 C")
	if len(f.Evidence) != 3 || f.Evidence[1].Line != 40 || f.Evidence[2].Line != 119 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// An SFP+ 10G-SR receiving -13.57 dBm, 0.43 dB over its -14.00 dBm
// low-warning threshold: no flag is up yet, but the receiver is marginal.
func TestEthtoolModuleSFPMarginal(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-m-sfp-10g-sr-rx-13.57dbm-near-low-warning-supingisme.txt")
	f := nicMustFind(t, fs, "optics.rx.power", Warn, "enp134s0f0: SFP SFP-10G-SR (10G Base-SR), received power: lane 1 at -13.57 dBm (0.44 dB over), less than 1 dB over its low-warning threshold -14.00 dBm")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 38 || f.Evidence[1].Line != 81 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, fs, "optics.ok")
}

// A 40G SR4 on an mlx4 port lit on lane 1 alone (netdev): its type names
// four lanes, so the port runs on a quarter of them. Lane 1 itself is
// healthy and the dark lanes are not called fiber faults (their lasers
// are off too).
func TestEthtoolModuleSR4OneLaneLit(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-m-qsfp-40g-sr4-mlx4-lanes-2-4-dark-netdev.txt")
	f := nicMustFind(t, fs, "optics.lanes", Warn, "eth2: lanes 2-4 on QSFP+ <REDACTED> (40G Base-SR4) carry no light either way", "its type names 4 lanes, so the port runs on 1 of them")
	if len(f.Evidence) != 6 || f.Evidence[0].Line != 37 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	for _, id := range []string{"optics.rx.dark", "optics.rx.power", "optics.dark", "optics.temperature"} {
		nicMustNot(t, fs, id)
	}
}

// A 40G SR4 whose four lasers are off and whose receivers see nothing
// (Cumulus swp13): the port is down or disabled. Its zeroed rx
// thresholds are no thresholds.
func TestEthtoolModuleAllDark(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-m-qsfp-40g-sr4-no-light-either-way-cumulus-swp13-noctests.txt")
	nicMustFind(t, fs, "optics.dark", Warn, "swp13: QSFP+ FTL410QE2C (40G Base-SR4) sends and receives no light on any of its 4 lanes")
	if len(fs) != 1 {
		t.Errorf("want the one finding:\n%s", nicTitles(fs))
	}
}

// A CMIS QSFP-DD 400G-XDR4 (netdev) at 70.49 C with its temperature
// warning On, four of its eight lanes lit: hot, and lanes 5-8 unused as
// an XDR4 leaves them. The mail's wrapped lines ("degrees F") are
// skipped.
func TestEthtoolModuleCMISHot(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-m-cmis-qsfpdd-400g-xdr4-temp-high-warning-on-lanes-5-8-unused-netdev.txt")
	f := nicMustFind(t, fs, "optics.temperature", Warn, "QDD-400G-XDR4 runs hot, at 70.49 C, over its 70.00 C high-warning threshold (alarm 75.00 C)")
	var lines []int
	for _, e := range f.Evidence {
		lines = append(lines, e.Line)
	}
	if len(lines) != 4 || lines[0] != 37 || lines[1] != 66 {
		t.Errorf("evidence lines %v", lines)
	}
	nicMustFind(t, fs, "optics.lanes", Info, "lanes 5-8 on QSFP-DD Double Density QDD-400G-XDR4 carry no light either way; the port uses 4 of the module's 8 lanes")
	for _, id := range []string{"optics.rx.dark", "optics.rx.power", "optics.fault", "optics.ok"} {
		nicMustNot(t, fs, id)
	}
}

// The faults a module reports, SYNTHETIC in ethtool's own labels
// (qsfp.c, cmis.c): a lane receiving no light while it transmits, a lane
// under its low-alarm threshold with its alarm On, a Tx fault, and loss
// of lock, on a paste of two ports.
func TestEthtoolModuleFaultsSynthetic(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"root@gpu01:~# ethtool -m eth0",
		"	Identifier                                : 0x11 (QSFP28)",
		"	Transceiver type                          : 100G Ethernet: 100G Base-SR4 or 25GBase-SR",
		"	Vendor PN                                 : MMA1B00-C100D",
		"	Module temperature                        : 40.00 degrees C / 104.00 degrees F",
		"	Laser tx bias current (Channel 1)         : 6.750 mA",
		"	Laser tx bias current (Channel 2)         : 6.750 mA",
		"	Transmit avg optical power (Channel 1)    : 1.3924 mW / 1.44 dBm",
		"	Transmit avg optical power (Channel 2)    : 1.3181 mW / 1.20 dBm",
		"	Rcvr signal avg optical power(Channel 1)  : 0.0000 mW / -inf dBm",
		"	Rcvr signal avg optical power(Channel 2)  : 0.0300 mW / -15.23 dBm",
		"	Laser rx power low alarm    (Channel 2)   : On",
		"	Laser rx power low alarm threshold        : 0.0467 mW / -13.31 dBm",
		"	Laser rx power low warning threshold      : 0.0933 mW / -10.30 dBm",
		"root@gpu01:~# ethtool -m eth1",
		"	Identifier                                : 0x18 (QSFP-DD Double Density 8X Pluggable Transceiver (INF-8628))",
		"	Rx loss of lock                           : [ Yes, No, No, No, No, No, No, No ]",
		"	Tx fault                                  : [ No, No, Yes, No, No, No, No, No ]",
		"	Module State                              : 0x03 (ModuleReady)",
		"	Module temperature                        : 45.00 degrees C / 113.00 degrees F",
	)
	nicMustFind(t, fs, "optics.rx.dark", Error, "gpu01 eth0: lane 1 of QSFP28 MMA1B00-C100D (100G Base-SR4 or 25GBase-SR) receives no light while the module transmits")
	f := nicMustFind(t, fs, "optics.rx.power", Error, "gpu01 eth0:", "lane 2 at -15.23 dBm, under its low-alarm threshold -13.31 dBm", `"laser rx power low alarm" On for lane 2`)
	if len(f.Evidence) != 3 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	f = nicMustFind(t, fs, "optics.fault", Error, "gpu01 eth1: QSFP-DD Double Density 8X Pluggable Transceiver (INF-8628) reports rx loss of lock on lane 1, tx fault on lane 3")
	if !strings.Contains(f.Fix, "Reseat") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustNot(t, fs, "optics.ok")
}

// A grep of some labels over several ports prints no Identifier: a lane
// seen again starts the next module (SYNTHETIC, ethtool's labels).
func TestEthtoolModuleGrepSynthetic(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"$ for i in eth0 eth1; do ethtool -m $i | grep -i 'rcvr signal'; done",
		"	Rcvr signal avg optical power(Channel 1)  : 0.9720 mW / -0.12 dBm",
		"	Rcvr signal avg optical power(Channel 2)  : 0.9798 mW / -0.09 dBm",
		"	Rcvr signal avg optical power(Channel 1)  : 0.0000 mW / -inf dBm",
		"	Rcvr signal avg optical power(Channel 2)  : 0.9798 mW / -0.09 dBm",
	)
	nicMustFind(t, fs, "optics.ok", Info, "module 1 of <stdin>: the module healthy on lanes 1-2")
	nicMustFind(t, fs, "optics.rx.dark", Error, "module 2 of <stdin>: lane 1 of the module receives no light")
}

// `ethtool -m swp1 | grep dBm` (wobcom/transceiver-exporter#1): an SFP's
// powers and thresholds without its Identifier are a module too.
func TestEthtoolModuleGrepDBm(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-m-grep-dbm-sfp-swp1-healthy-transceiver-exporter1.txt")
	f := nicMustFind(t, fs, "optics.ok", Info, "swp1: the module healthy on lane 1, weakest receive -2.36 dBm (12.0 dB over the low-warning threshold)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 6 || f.Evidence[1].Line != 14 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// mlxlink's Module Info (a collector's fixture of `mlxlink -d <dev> -m`):
// the lanes' values and the range after them, read as the module's alarm
// thresholds; the Identifier printed after the monitors names the module.
func TestMlxlinkModuleInfoHealthy(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/mlxlink-m-module-info-osfp-4-lanes-rx-1.9-2.3dbm-collector-fixture.txt")
	if len(fs) != 1 {
		t.Fatalf("want one finding:\n%s", nicTitles(fs))
	}
	nicMustFind(t, fs, "optics.ok", Info, "OSFP T-F4GS-BV0 healthy on lanes 1-4, weakest receive 1.89 dBm (12.3 dB over the low-alarm threshold), 54.00 C")
}

// mlxlink -m on a port whose lane 2 receives nothing and lane 3 little
// (SYNTHETIC values in mlxlink's format): the device is -d's.
func TestMlxlinkModuleInfoSynthetic(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"[root@gpu7 ~]# mlxlink -d mlx5_3 -m",
		"Module Info",
		"-----------",
		"Temperature [C]                    : 71 [-5..75]",
		"Bias Current [mA]                  : 8.380,8.380,8.380,8.380 [2..15]",
		"Rx Power Current [dBm]             : 1.886,-40,-8.2,1.976 [-10.41..6]",
		"Tx Power Current [dBm]             : 1.562,1.427,1.559,1.761 [-8.508..5]",
		"Identifier                         : OSFP",
		"Vendor Part Number                 : MMS4X00-NM",
	)
	nicMustFind(t, fs, "optics.rx.dark", Error, "gpu7 mlx5_3: lane 2 of OSFP MMS4X00-NM receives no light while the module transmits")
	nicMustFind(t, fs, "optics.rx.power", Warn, "lane 3 at -8.20 dBm (2.21 dB over), less than 3 dB over its low-alarm threshold, the only one printed -10.41 dBm")
	nicMustNot(t, fs, "optics.temperature")
}

// A diagnostics line whose label the judge reads and whose value is not
// as printed is reported with file:line:col and what was expected; the
// rest of the module is read (SYNTHETIC, ethtool's labels; KLISH's
// "N/A dBm" is a monitor the module lacks, not a garble).
func TestEthtoolModuleGarbled(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"ethtool -m eth0",
		"	Identifier                                : 0x11 (QSFP28)",
		"	Laser tx bias current (Channel 1)         : 6.750 mA",
		"	Rcvr signal avg optical power(Channel 1)  : 0.97x mW / -0.12 dBm",
		"	Laser rx power low alarm    (Channel 1)   : maybe",
		"	Tx1Power: N/A dBm",
	)
	f := nicMustFind(t, fs, "input.garbled", Warn, "2 lines of a module's diagnostics could not be read",
		`<stdin>:5:46: expected a number and its unit as printed`, `got "0.97x mW / -0.12 dBm"`, `<stdin>:6:46: expected On or Off, got "maybe"`)
	if len(f.Evidence) != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "optics.ok", Info, "eth0: QSFP28 healthy on lane 1")
}

// A passive copper QSFP+ (Edgecore 40G Base-CR4 DAC, Cumulus swp49)
// whose EEPROM prints 23-33 mA of bias and 2.2-3.1 dBm received on four
// lanes: a copper cable has neither laser nor receiver, so it is called
// a copper cable, not a healthy optic.
func TestEthtoolModuleCopperDAC(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-m-qsfp-40g-cr4-dac-edgecore-garbage-monitors-cumulus-swp49-sffnotes.txt")
	if len(fs) != 1 {
		t.Fatalf("want one finding:\n%s", nicTitles(fs))
	}
	f := nicMustFind(t, fs, "optics.copper", Info, "cumulus swp49: QSFP+ ET6402-40GDAC-3M (40G Base-CR4) is a copper cable")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 9 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// A copper QSFP28 that reads its temperature prints each lane's bias and
// powers as zeros (qsfp.c prints the lanes once the temperature is not
// 0): it is not a module dark on every lane (SYNTHETIC, ethtool's labels
// and SFF-8636's copper transmitter technology).
func TestEthtoolModuleCopperZerosSynthetic(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"root@gpu01:~# ethtool -m eth0",
		"	Identifier                                : 0x11 (QSFP28)",
		"	Transceiver type                          : 100G Ethernet: 100G Base-CR4 or 25G Base-CR CA-L",
		"	Transmitter technology                    : 0xa0 (Copper cable unequalized)",
		"	Module temperature                        : 29.05 degrees C / 84.30 degrees F",
		"	Laser tx bias current (Channel 1)         : 0.000 mA",
		"	Laser tx bias current (Channel 2)         : 0.000 mA",
		"	Transmit avg optical power (Channel 1)    : 0.0000 mW / -inf dBm",
		"	Transmit avg optical power (Channel 2)    : 0.0000 mW / -inf dBm",
		"	Rcvr signal avg optical power(Channel 1)  : 0.0000 mW / -inf dBm",
		"	Rcvr signal avg optical power(Channel 2)  : 0.0000 mW / -inf dBm",
	)
	nicMustFind(t, fs, "optics.copper", Info, "gpu01 eth0: QSFP28 (100G Base-CR4 or 25G Base-CR CA-L) is a copper cable")
	for _, id := range []string{"optics.dark", "optics.lanes", "optics.rx.dark", "optics.rx.power", "optics.ok"} {
		nicMustNot(t, fs, id)
	}
}

// A QSFP28 SR4 on a port that drives lane 1 alone (a 25G breakout with
// the other members down): ethtool 6.4+ prints the unused lanes' loss of
// signal and the module flags their received power low. Those lanes are
// optics.lanes, not a fiber that lost its light (SYNTHETIC, ethtool's
// labels; sff_show_lane_status's "[ No, Yes, Yes, Yes ]").
func TestEthtoolModuleUnusedLanesFlagsSynthetic(t *testing.T) {
	lines := []string{
		"# synthetic",
		"root@gpu01:~# ethtool -m eth0",
		"	Identifier                                : 0x11 (QSFP28)",
		"	Transceiver type                          : 100G Ethernet: 100G Base-SR4 or 25GBase-SR",
		"	Module temperature                        : 40.00 degrees C / 104.00 degrees F",
	}
	for ch := 1; ch <= 4; ch++ {
		bias, tx, rx := "0.000 mA", "0.0000 mW / -inf dBm", "0.0000 mW / -inf dBm"
		if ch == 1 {
			bias, tx, rx = "6.750 mA", "1.3924 mW / 1.44 dBm", "0.9720 mW / -0.12 dBm"
		}
		lines = append(lines,
			fmt.Sprintf("	Laser tx bias current (Channel %d)         : %s", ch, bias),
			fmt.Sprintf("	Transmit avg optical power (Channel %d)    : %s", ch, tx),
			fmt.Sprintf("	Rcvr signal avg optical power(Channel %d)  : %s", ch, rx))
	}
	lines = append(lines,
		"	Laser rx power low alarm    (Channel 2)   : On",
		"	Laser tx power low alarm    (Channel 3)   : On",
		"	Laser rx power low alarm threshold        : 0.0467 mW / -13.31 dBm",
		"	Rx loss of signal                         : [ No, Yes, Yes, Yes ]",
		"	Tx loss of signal                         : [ No, Yes, Yes, Yes ]",
	)
	fs := synthFindings(t, Options{}, lines...)
	nicMustFind(t, fs, "optics.lanes", Warn, "gpu01 eth0: lanes 2-4 on QSFP28", "so the port runs on 1 of them")
	for _, id := range []string{"optics.rx.dark", "optics.rx.power", "optics.tx.power", "optics.fault"} {
		nicMustNot(t, fs, id)
	}
	// A laser the module calls failed is dark because it failed.
	fs = synthFindings(t, Options{}, append(lines, "	Tx fault                                  : [ No, No, No, Yes ]")...)
	nicMustFind(t, fs, "optics.fault", Error, "gpu01 eth0: QSFP28 (100G Base-SR4 or 25GBase-SR) reports tx fault on lane 4")
}

// The bounds no real dump here crosses (SYNTHETIC, ethtool's CMIS
// labels): a receiver over its high-warning threshold, a biased laser
// under the low-alarm and one under the low-warning threshold, a laser
// with no bias whose zero power is not called weak, a temperature over
// its alarm threshold with no flag raised, and a module in ModuleFault.
func TestEthtoolModuleBoundsSynthetic(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"root@gpu01:~# ethtool -m eth3",
		"	Identifier                                : 0x18 (QSFP-DD Double Density 8X Pluggable Transceiver (INF-8628))",
		"	Module State                              : 0x05 (ModuleFault)",
		"	Module temperature                        : 80.00 degrees C / 176.00 degrees F",
		"	Laser tx bias current (Channel 1)         : 7.000 mA",
		"	Laser tx bias current (Channel 2)         : 7.000 mA",
		"	Laser tx bias current (Channel 3)         : 7.000 mA",
		"	Laser tx bias current (Channel 4)         : 0.000 mA",
		"	Transmit avg optical power (Channel 1)    : 1.0000 mW / 0.00 dBm",
		"	Transmit avg optical power (Channel 2)    : 0.1000 mW / -10.00 dBm",
		"	Transmit avg optical power (Channel 3)    : 0.2500 mW / -6.02 dBm",
		"	Transmit avg optical power (Channel 4)    : 0.0000 mW / -inf dBm",
		"	Rcvr signal avg optical power(Channel 1)  : 3.0000 mW / 4.77 dBm",
		"	Rcvr signal avg optical power(Channel 2)  : 1.0000 mW / 0.00 dBm",
		"	Rcvr signal avg optical power(Channel 3)  : 1.0000 mW / 0.00 dBm",
		"	Rcvr signal avg optical power(Channel 4)  : 1.0000 mW / 0.00 dBm",
		"	Module temperature high alarm threshold   : 75.00 degrees C / 167.00 degrees F",
		"	Module temperature high warning threshold : 70.00 degrees C / 158.00 degrees F",
		"	Laser output power low alarm threshold    : 0.1500 mW / -8.24 dBm",
		"	Laser output power low warning threshold  : 0.3000 mW / -5.23 dBm",
		"	Laser rx power high warning threshold     : 2.0000 mW / 3.01 dBm",
		"	Laser rx power low warning threshold      : 0.1000 mW / -10.00 dBm",
	)
	nicMustFind(t, fs, "optics.rx.power", Warn, "gpu01 eth3:", "lane 1 at 4.77 dBm, over its high-warning threshold (an overloaded receiver) 3.01 dBm")
	f := nicMustFind(t, fs, "optics.tx.power", Error, "transmits lane 2 -10.00 dBm, lane 3 -6.02 dBm with its laser biased, under the module's low threshold")
	if strings.Contains(f.Title, "lane 4") {
		t.Errorf("lane 4, whose laser has no bias, is called weak: %s", f.Title)
	}
	nicMustFind(t, fs, "optics.temperature", Error, "runs hot, at 80.00 C, over its 70.00 C high-warning threshold (alarm 75.00 C)")
	nicMustFind(t, fs, "optics.fault", Error, "reports module state ModuleFault")
}

// TestEthtoolModuleTxFlagSynthetic holds the transmit side's flags: a lane
// whose bias current high alarm is On is an optics.tx.power error even with
// every lane's power within its thresholds, and a warning flag alone a
// warning (SYNTHETIC, SFF-8636 labels as ethtool prints them).
func TestEthtoolModuleTxFlagSynthetic(t *testing.T) {
	module := func(flag string) []string {
		return []string{
			"# synthetic",
			"root@gpu01:~# ethtool -m eth5",
			"	Identifier                                : 0x11 (QSFP28)",
			"	Laser tx bias current (Channel 1)         : 7.000 mA",
			"	Laser tx bias current (Channel 2)         : 7.000 mA",
			"	Transmit avg optical power (Channel 1)    : 1.0000 mW / 0.00 dBm",
			"	Transmit avg optical power (Channel 2)    : 1.0000 mW / 0.00 dBm",
			"	Rcvr signal avg optical power(Channel 1)  : 1.0000 mW / 0.00 dBm",
			"	Rcvr signal avg optical power(Channel 2)  : 1.0000 mW / 0.00 dBm",
			"	Laser output power low alarm threshold    : 0.1500 mW / -8.24 dBm",
			flag,
		}
	}
	fs := synthFindings(t, Options{}, module("	Laser bias current high alarm   (Chan 2)  : On")...)
	nicMustFind(t, fs, "optics.tx.power", Error, `"laser bias current high alarm" On for lane 2`)
	fs = synthFindings(t, Options{}, module("	Laser bias current high warning (Chan 1)  : On")...)
	nicMustFind(t, fs, "optics.tx.power", Warn, `"laser bias current high warning" On for lane 1`)
}
