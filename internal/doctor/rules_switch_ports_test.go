package doctor

import (
	"strings"
	"testing"
)

// SONiC `show interfaces counters fec-stats` (sonic-utilities#2027): the
// port whose RS-FEC met uncorrectable codewords is a link dropping frames
// after PFC. Before, the file was "in no format rocelab recognises".
func TestSONiCFECStatsUncorrectable(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-fec-stats-uncorr-34-sonicutilities2027.txt")
	f := nicMustFind(t, fs, "switch.link.errors", Warn, "sonic Ethernet0: RS-FEC met 34 codewords it could not correct", "136403 corrected, 40 symbol errors")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 6 || !strings.Contains(f.Fix, "show interfaces transceiver eeprom --dom Ethernet0") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	if n := len(nicFind(fs, "switch.link.errors")); n != 1 {
		t.Errorf("%d link findings, want 1 (Ethernet8 counted nothing)", n)
	}
}

// A handful of uncorrectable codewords, as a link's bring-up leaves, is
// info like a handful of CRC errors (SYNTHETIC counts in the format of
// sonic-utilities#2027's example).
func TestSONiCFECStatsHandful(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"admin@leaf1:~$ show interfaces counters fec-stats",
		"      IFACE    STATE    FEC_CORR    FEC_UNCORR    FEC_SYMBOL_ERR",
		"-----------  -------  ----------  ------------  ----------------",
		"  Ethernet0        U     136,403             3                40",
		"  Ethernet8        U     136,403            10                40")
	f := nicMustFind(t, fs, "switch.link.errors", Info, "leaf1 Ethernet0: RS-FEC met 3 codewords it could not correct")
	if !strings.Contains(f.Mechanism, "A handful") {
		t.Errorf("mechanism says nothing of the handful: %s", f.Mechanism)
	}
	nicMustFind(t, fs, "switch.link.errors", Warn, "leaf1 Ethernet8: RS-FEC met 10 codewords it could not correct")
}

// `portstat -f` with the FLR columns (SONiC HLD "Port FEC FLR"), whose
// last column holds spaces ("2.68e-09 (R^2 = 0.79)"): corrected codewords
// alone are a healthy PAM4 link, so the file is read and raises nothing.
func TestSONiCFECStatsCorrectedOnly(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/switch/sonic-portstat-f-fec-flr-predicted-healthy-sonic-hld.txt")}, nil, Options{})
	if len(rep.Findings) != 0 {
		t.Errorf("findings on a healthy link:\n%s", nicTitles(rep.Findings))
	}
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "switch-counters" {
		t.Errorf("inputs %+v", rep.Inputs)
	}
}

// `show interfaces counters errors` prints no RX_OK: the drop finding
// named "RX_OK 0" before, a count the table never showed. Its 4 and 1
// RX_DRP are a handful: info, and the mechanism says so.
func TestSONiCCountersErrorsNoRxOK(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-int-counters-errors-rx-drp-no-rx-ok-command-reference.txt")
	f := nicMustFind(t, fs, "switch.queue.drops", Info, "str-s6000-acs-11 Ethernet0: 4 packets dropped at ingress (RX_DRP)")
	if strings.Contains(f.Title, "RX_OK") {
		t.Errorf("title names a column the table lacks: %s", f.Title)
	}
	if !strings.Contains(f.Mechanism, "A handful of drops") {
		t.Errorf("mechanism says nothing of the handful: %s", f.Mechanism)
	}
	nicMustFind(t, fs, "switch.queue.drops", Info, "Ethernet8: 1 packet dropped at ingress")
	nicMustNot(t, fs, "switch.link.errors")
}

// RX_ERR of `show interfaces counters` is judged (SYNTHETIC counts in the
// format of sonic-utilities' Command-Reference example).
func TestSONiCCountersRxErr(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"admin@leaf1:~$ show interfaces counters",
		"      IFACE    STATE        RX_OK       RX_BPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR        TX_OK       TX_BPS    TX_UTIL    TX_ERR    TX_DRP    TX_OVR",
		"-----------  -------  -----------  -----------  ---------  --------  --------  --------  -----------  -----------  ---------  --------  --------  --------",
		"  Ethernet0        U  458,052,204  636.84 MB/s     12.44%    45,805         0         0  388,341,776  527.37 MB/s     10.30%         0         0         0",
		"  Ethernet4        U   16,679,692   13.83 MB/s      0.27%         0         0         0   18,206,586   17.51 MB/s      0.34%         0         0         0")
	f := nicMustFind(t, fs, "switch.link.errors", Warn, "leaf1 Ethernet0: 45805 frames received with errors (RX_ERR), 0.01% of the 458098009 received")
	if !strings.Contains(f.Fix, "fec-stats") {
		t.Errorf("fix %s", f.Fix)
	}
	if n := len(nicFind(fs, "switch.link.errors")); n != 1 {
		t.Errorf("%d link findings, want 1", n)
	}
}

// Drops on ports that are disabled now (STATE X; sonic-mgmt#12184, a
// virtual switch): no traffic crosses them, so they are info, not a
// warning about the fabric. Before, each was a warn.
func TestSONiCDropsOnDisabledPorts(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-int-counters-rx-drp-on-disabled-ports-vs-sonicmgmt12184.txt")
	f := nicMustFind(t, fs, "switch.queue.drops", Info, "vlab-t2-01 Ethernet0: 8 packets dropped at ingress (RX_DRP; RX_OK 0)")
	if !strings.Contains(f.Mechanism, "disabled (admin down)") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	nicMustFind(t, fs, "switch.queue.drops", Info, "vlab-t2-01 Ethernet4: 5 packets")
}

// The per-port blocks of `show interfaces` on Cisco IOS, NX-OS and Arista
// EOS (ntc-templates' raw device outputs). Before, each file was "in no
// format rocelab recognises".
func TestShowInterfacesLinkErrors(t *testing.T) {
	// IOS: 14167 CRC of 39M frames (0.036%) is a bad link; one CRC on
	// the port beside it is a handful.
	fs := diagnoseFiles(t, Options{}, "corpus/switch/ios-show-interfaces-fa1-0-29-crc-14167-ntctemplates.txt")
	f := nicMustFind(t, fs, "switch.link.errors", Warn, "FastEthernet1/0/29: 14167 frames received with a bad CRC (of 28898 input errors), 0.0361% of the 39228948 received, counters never cleared")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 48 || !strings.Contains(f.Fix, "clear counters FastEthernet1/0/29") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	nicMustFind(t, fs, "switch.link.errors", Info, "FastEthernet1/0/28: 1 frame received with a bad CRC (of 2 input errors)")

	// NX-OS: 20 CRC/FCS of 700G frames over 63 weeks is too rare to slow
	// a job.
	fs = diagnoseFiles(t, Options{}, "corpus/switch/nxos-show-interface-crc-fcs-20-of-700g-cleared-63w-ntctemplates.txt")
	f = nicMustFind(t, fs, "switch.link.errors", Info, "Ethernet12/4: 20 frames received with a bad CRC (of 20 input errors), 2.9e-11 of the 700787642264 received, counters cleared 63w1d ago")
	if f.Evidence[0].Line != 145 || !strings.Contains(f.Mechanism, "too rare to slow a job") {
		t.Errorf("evidence %+v mechanism %s", f.Evidence, f.Mechanism)
	}
	if n := len(nicFind(fs, "switch.link.errors")) + len(nicFind(fs, "switch.queue.drops")); n != 1 {
		t.Errorf("%d port findings, want 1:\n%s", n, nicTitles(fs))
	}

	// EOS: input discards on the management port do not concern RoCE.
	fs = diagnoseFiles(t, Options{}, "corpus/switch/eos-show-interfaces-management-input-discards-ntctemplates.txt")
	f = nicMustFind(t, fs, "switch.queue.drops", Info, "Management0: 47 packets dropped at ingress (input discards; packets input 884), counters never cleared")
	if f.Evidence[0].Line != 113 || !strings.Contains(f.Mechanism, "management") || strings.Contains(f.Mechanism, "RX_DRP") {
		t.Errorf("evidence %+v mechanism %s", f.Evidence, f.Mechanism)
	}
	nicMustNot(t, fs, "switch.link.errors")
}

// A port channel's block repeats its members' counts as their sums: its
// findings are info and point at the members, whose own findings keep
// their severity (SYNTHETIC counts in the shape of ntc-templates' EOS
// show interfaces fixture).
func TestShowInterfacesPortChannelAside(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"sw1#show interfaces",
		"Ethernet1 is up, line protocol is up (connected)",
		"  Last clearing of \"show interface\" counters never",
		"     52800000 packets input, 3811900000 bytes",
		"     900 input errors, 900 CRC, 0 alignment, 0 symbol, 0 input discards",
		"     0 packets output, 0 bytes",
		"     0 late collision, 0 deferred, 0 output discards",
		"Port-Channel1 is up, line protocol is up (connected)",
		"  Last clearing of \"show interface\" counters never",
		"     52800000 packets input, 3811900000 bytes",
		"     900 input errors, 900 CRC, 0 alignment, 0 symbol, 0 input discards",
		"     0 packets output, 0 bytes",
		"     0 late collision, 0 deferred, 0 output discards")
	nicMustFind(t, fs, "switch.link.errors", Warn, "Ethernet1: 900 frames received with a bad CRC")
	f := nicMustFind(t, fs, "switch.link.errors", Info, "Port-Channel1: 900 frames received with a bad CRC")
	if !strings.Contains(f.Mechanism, "port channel") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

// Input errors beside a CRC count of 0 (IOS overruns here) are not bits
// changed on the wire, and the finding does not say they are (SYNTHETIC
// counts in the block of ntc-templates' IOS show interfaces fixture).
func TestShowInterfacesInputErrorsNoCRC(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"sw1#show interfaces",
		"FastEthernet1/0/30 is up, line protocol is up (connected)",
		"  Last clearing of \"show interface\" counters never",
		"     39228948 packets input, 3473619373 bytes, 0 no buffer",
		"     9000 input errors, 0 CRC, 0 frame, 9000 overrun, 0 ignored")
	f := nicMustFind(t, fs, "switch.link.errors", Warn, "FastEthernet1/0/30: 9000 frames received with input errors, none with a bad CRC")
	if strings.Contains(f.Mechanism, "Bits changed on the wire") || !strings.Contains(f.Mechanism, "overruns") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

// NX-OS `show interface counters errors` (genieparser's golden output):
// Eth1/1's 13450 Stomped-CRC frames were corrupted on another link and
// stomped by a cut-through switch upstream: the finding sends the
// engineer to the port upstream whose FCS-Err grows, not to this link's
// optic. Before, the file was in no format rocelab recognised.
func TestNXOSCountersErrorsStomped(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/nxos-show-interface-counters-errors-stomped-crc-13450-genieparser.txt")
	f := nicMustFind(t, fs, "switch.link.errors", Warn, "Eth1/1: 13450 frames arrived with a stomped CRC (Stomped-CRC): corrupted on a link upstream and forwarded cut-through")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 27 || !strings.Contains(f.Fix, "at the other end of Eth1/1") {
		t.Errorf("evidence %+v, fix %q", f.Evidence, f.Fix)
	}
	if len(fs) != 1 {
		t.Errorf("want the one finding:\n%s", nicTitles(fs))
	}
}
