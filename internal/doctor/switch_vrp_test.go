package doctor

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Huawei VRP `display interface` in its layouts (three real, from
// ntc-templates; CloudEngine V300's and VRP8's from Huawei's command
// references), with nothing wrong in them (no discards, errors, CRC or pause): read as
// switch counters, nothing to report.
func TestHuaweiVRPDisplayInterfaceHealthy(t *testing.T) {
	for _, file := range []string{
		"corpus/switch/huawei-vrp-display-interface-trunk-meth-xge-721-packets-no-errors-ntctemplates.txt",
		"corpus/switch/huawei-vrp-display-interface-ge-12345678-packets-no-errors-ntctemplates.txt",
		"corpus/switch/huawei-vrp-display-interface-ar-ge-discard-total-error-one-line-no-errors-ntctemplates.txt",
		"corpus/switch/huawei-vrp-ce-v300-display-interface-10ge-616-packets-no-errors-command-reference-doc.txt",
		"corpus/switch/huawei-vrp8-ne40e-display-interface-main-ge-182525-packets-no-errors-command-reference-doc.txt",
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

// vrpVerified are the Huawei commands a fix may print, each as the
// Format of Huawei's CloudEngine 6800 V300R023C00 command reference gives
// it (copied in WheaterW/INTA-project, nassim-main/corpus/hw/
// hw_CE6800_V300R023C00/cmd_corpus/References/Command_Reference, commit
// 9308062d7ec56ac434ae2df6f1c140d8d4440f17), PORT a port, N a queue, T a
// time, VALUE a size.
var vrpVerified = []*regexp.Regexp{
	regexp.MustCompile(`^reset interface counters \S+$`),                        // reset_interface_counters.md
	regexp.MustCompile(`^reset counters interface \S+$`),                        // display_interface_brief.md names it for inErrors
	regexp.MustCompile(`^display interface( \S+( transceiver verbose)?)?$`),     // display_interface.md, display_interface_transceiver.md
	regexp.MustCompile(`^display dcb pfc (buffer )?interface \S+$`),             // display_dcb_pfc.md, display_dcb_pfc_buffer.md
	regexp.MustCompile(`^display qos queue statistics interface \S+$`),          // display_qos_queue_statistics.md
	regexp.MustCompile(`^display qos buffer ingress-statistics interface \S+$`), // display_qos_buffer_ingress-statistics.md
	regexp.MustCompile(`^dcb pfc buffer N hdrm VALUE kbytes$`),                  // dcb_pfc_buffer.md
	regexp.MustCompile(`^dcb pfc PROFILE$`),                                     // dcb_pfc.md
	regexp.MustCompile(`^priority N deadlock-(detect|recovery) time T$`),        // priority_deadlock-detect_time.md, priority_deadlock-recovery_time.md
	regexp.MustCompile(`^dcb pfc deadlock-detect interval$`),                    // dcb_pfc_deadlock-detect_interval.md
	regexp.MustCompile(`^dcb pfc deadlock-(detect|recovery) timer T$`),          // dcb_pfc_deadlock-detect_timer.md, dcb_pfc_deadlock-recovery_timer.md
	regexp.MustCompile(`^display lldp neighbor brief$`),                         // display_lldp_neighbor_brief.md
	regexp.MustCompile(`^display eth-trunk \d+$`),                               // display_eth-trunk.md
	regexp.MustCompile(`^flow-control$`),                                        // flow-control(interface_view).md
	regexp.MustCompile(`^dcb pfc enable$`),                                      // dcb_pfc_enable.md
	regexp.MustCompile(`^display dcb pfc-profile$`),                             // display_dcb_pfc-profile.md
	regexp.MustCompile(`^display qos ecn statistics interface \S+$`),            // display_qos_ecn_statistics.md
	regexp.MustCompile(`^dcb pfc deadlock recovery-behavior$`),                  // dcb_pfc_deadlock_recovery-behavior.md
}

// Every Huawei command the findings on Huawei VRP records print (SYNTHETIC
// vrpFaulty, an Eth-Trunk, a watchdog storm remarked Huawei VRP, the
// pause, deadlocks and queue drops of display dcb pfc and display qos
// queue statistics) is one
// the command reference gives: none written from memory.
func TestHuaweiVRPCommandsAreInTheReference(t *testing.T) {
	var fs []Finding
	fs = append(fs, diagnoseText(t, strings.Join(vrpFaulty, "\n")+"\n").Findings...)
	fs = append(fs, diagnoseText(t, "Eth-Trunk1 current state : UP (ifindex: 66)\n    Input: 1533377 packets,1277257203 bytes\n           0 errors,5000 drops\n").Findings...)
	fs = append(fs, synthFindings(t, Options{}, vrpPFCPaste("120", "2", "4500", "1")...)...)
	fs = append(fs, synthFindings(t, Options{}, vrpQueueDropsPaste...)...)
	res, err := ingest.Read("synthetic-xr-storm", strings.NewReader(strings.Join(xrStorm, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	inc := &Incident{Artifacts: res.Artifacts}
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for i := range s.WD {
			s.WD[i].Platform = ingest.HuaweiVRP
		}
	}
	fs = append(fs, checkWatchdog(inc)...)
	checked := 0
	for _, f := range fs {
		spans := strings.Split(f.Mechanism+" "+f.Fix, "`")
		for i := 1; i < len(spans); i += 2 {
			cmd := spans[i]
			if !strings.HasPrefix(cmd, "display ") && !strings.HasPrefix(cmd, "reset ") && !strings.HasPrefix(cmd, "dcb ") && !strings.HasPrefix(cmd, "priority ") && cmd != "flow-control" {
				continue // a host's command (ethtool), not the switch's
			}
			checked++
			if !slices.ContainsFunc(vrpVerified, func(re *regexp.Regexp) bool { return re.MatchString(cmd) }) {
				t.Errorf("%s %q prints `%s`, which Huawei's command reference does not give", f.ID, f.Title, cmd)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d Huawei commands printed", checked)
	}
}
