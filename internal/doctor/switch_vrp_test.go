package doctor

import (
	"strings"
	"testing"
)

// Huawei VRP `display interface` in its four layouts (three real, from
// ntc-templates; CloudEngine V300's from Huawei's command reference), with
// nothing wrong in them (no discards, errors, CRC or pause): read as
// switch counters, nothing to report.
func TestHuaweiVRPDisplayInterfaceHealthy(t *testing.T) {
	for _, file := range []string{
		"corpus/switch/huawei-vrp-display-interface-trunk-meth-xge-721-packets-no-errors-ntctemplates.txt",
		"corpus/switch/huawei-vrp-display-interface-ge-12345678-packets-no-errors-ntctemplates.txt",
		"corpus/switch/huawei-vrp-display-interface-ar-ge-discard-total-error-one-line-no-errors-ntctemplates.txt",
		"corpus/switch/huawei-vrp-ce-v300-display-interface-10ge-616-packets-no-errors-command-reference-doc.txt",
	} {
		if fs := diagnoseFiles(t, Options{}, file); len(fs) != 0 {
			t.Errorf("%s: findings %+v", file, fs)
		}
	}
}

// vrpFaulty is a SYNTHETIC CloudEngine block in the layout of the real
// ones above: CRC errors on the link, discards both ways, pause sent.
var vrpFaulty = []string{
	"100GE1/0/1 current state : UP (ifindex: 13)",
	"Line protocol current state : UP",
	"Input:  100000000 packets, 90000000000 bytes",
	"  Unicast:                   99000000,  Multicast:                           0",
	"  Broadcast:                        0,  Jumbo:                        1000000",
	"  Discard:                      40000,  Pause:                               0",
	"  Frames:                           0",
	"",
	"  Total Error:                   1200",
	"  CRC:                           1200,  Giants:                              0",
	"  Jabbers:                          0,  Fragments:                           0",
	"",
	"Output:  200000000 packets, 180000000000 bytes",
	"  Unicast:                  200000000,  Multicast:                           0",
	"  Broadcast:                        0,  Jumbo:                               0",
	"  Discard:                      30000,  Pause:                           90000",
	"",
	"  Total Error:                      0",
	"    Input bandwidth utilization  :   12%",
}

// SYNTHETIC Huawei VRP block: CRC errors are the link's, Input and
// Output Discard the port's drops, Pause sent one count of PFC and
// 802.3x pause; each fix names Huawei's commands (reset counters
// interface, display ...), none of SONiC's, EOS's or NX-OS's.
func TestHuaweiVRPDisplayInterfaceErrors(t *testing.T) {
	rep := diagnoseText(t, strings.Join(vrpFaulty, "\n")+"\n")
	f := nicMustFind(t, rep.Findings, "switch.link.errors", Warn, "100GE1/0/1: 1200 frames received with a bad CRC (of 1200 input errors)")
	if len(f.Evidence) == 0 || f.Evidence[0].Line != 10 {
		t.Errorf("errors evidence %+v, want the CRC line, 10", f.Evidence)
	}
	nicMustFind(t, rep.Findings, "switch.queue.drops", Warn, "100GE1/0/1: 40000 packets dropped at ingress (Input Discard; Input packets 100000000)")
	nicMustFind(t, rep.Findings, "switch.queue.drops", Warn, "100GE1/0/1: 30000 packets dropped at egress (Output Discard; Output packets 200000000)")
	p := nicMustFind(t, rep.Findings, "switch.pfc.tx_pause", Warn, "100GE1/0/1: sent 90000 pause frames")
	if !strings.Contains(p.Mechanism, "display dcb pfc interface 100GE1/0/1") {
		t.Errorf("pause mechanism %q names no command that splits the pause by priority", p.Mechanism)
	}
	mustNameOnly(t, rep.Findings, "reset counters interface", "display ")
}

// SYNTHETIC Huawei VRP block: Total Error beside a CRC of 0 are no bit
// errors; its Giants say which (an MTU mismatch).
func TestHuaweiVRPTotalErrorNoCRC(t *testing.T) {
	rep := diagnoseText(t, strings.Join([]string{
		"100GE1/0/2 current state : UP (ifindex: 14)",
		"Input:  100000000 packets, 90000000000 bytes",
		"  Discard:                          0,  Pause:                               0",
		"  Total Error:                    500",
		"  CRC:                              0,  Giants:                            500",
	}, "\n")+"\n")
	f := nicMustFind(t, rep.Findings, "switch.link.errors", Warn, "100GE1/0/2: 500 frames received with input errors, none with a bad CRC")
	if !strings.Contains(f.Mechanism, "500 frames were longer than the port's MTU (Giants)") {
		t.Errorf("mechanism %q does not name the giants", f.Mechanism)
	}
}

// SYNTHETIC Huawei VRP Eth-Trunk block (the logical interface's "N
// errors,N drops" lines): its drops are its members' sum, info, with the
// command that names the members.
func TestHuaweiVRPEthTrunkAside(t *testing.T) {
	rep := diagnoseText(t, strings.Join([]string{
		"Eth-Trunk1 current state : UP (ifindex: 66)",
		"Line protocol current state : UP",
		"Physical is ETH_TRUNK",
		"    Input: 1533377 packets,1277257203 bytes",
		"           1486922 unicast,4279 broadcast,3710 multicast",
		"           0 errors,5000 drops",
		"    Output:167 packets,29264 bytes",
		"           0 unicast,0 broadcast,167 multicast",
		"           0 errors,0 drops",
	}, "\n")+"\n")
	f := nicMustFind(t, rep.Findings, "switch.queue.drops", Info, "Eth-Trunk1: 5000 packets dropped at ingress (Input Discard; Input packets 1533377)")
	if !strings.Contains(f.Mechanism, "`display eth-trunk 1`") {
		t.Errorf("mechanism %q does not send to the trunk's members", f.Mechanism)
	}
}

// SYNTHETIC block in VRP8's layout ("CRC: N packets" under "Input:"
// alone): its CRC is the link's errors, its TxPause the pause it sent,
// each fix naming Huawei's commands.
func TestHuaweiVRP8CRCAndPause(t *testing.T) {
	rep := diagnoseText(t, strings.Join([]string{
		"GigabitEthernet0/2/5 current state : UP (ifindex: 10)",
		"    Input: 34936765982979 bytes, 130496944382 packets",
		"    Output: 671608254191369 bytes, 942009683952 packets",
		"    Input:",
		"      CRC: 3000 packets, Symbol: 0 packets",
		"      RxPause: 0 packets",
		"    Output:",
		"      TxPause: 70000 packets",
	}, "\n")+"\n")
	nicMustFind(t, rep.Findings, "switch.link.errors", Warn, "GigabitEthernet0/2/5: 3000 frames received with a bad CRC")
	nicMustFind(t, rep.Findings, "switch.pfc.tx_pause", Warn, "GigabitEthernet0/2/5: sent 70000 pause frames")
	mustNameOnly(t, rep.Findings, "reset counters interface", "display ")
}

// SYNTHETIC management port block (MEth, FCS for CRC): its errors are
// the switch's own interface's, which RoCE does not cross: info.
func TestHuaweiVRPManagementPortAside(t *testing.T) {
	rep := diagnoseText(t, strings.Join([]string{
		"MEth0/0/1 current state : UP",
		"Input:  100000 Packets, 9000000 Bytes",
		"  Oversize:                         0,  Undersize:                        0",
		"  FCS:                            300,  Pause:                            0",
	}, "\n")+"\n")
	f := nicMustFind(t, rep.Findings, "switch.link.errors", Info, "MEth0/0/1: 300 frames received with a bad CRC")
	if !strings.Contains(f.Mechanism, "management, loopback or VLAN interface") {
		t.Errorf("mechanism %q does not set the management port aside", f.Mechanism)
	}
}
