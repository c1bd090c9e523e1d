package doctor

import (
	"strings"
	"testing"
)

// sonic-buildimage#21891: a port sent 922 GB through lossy UC1 and nothing
// through SONiC's lossless UC3/UC4. Alone it is info (TCP may be all it
// carries); beside an input that shows RoCE in use (a RoCE ib_write_bw,
// perftest#234) it is a warning.
func TestQueueShareLossyTraffic(t *testing.T) {
	const q = "corpus/switch/sonic-queue-counters-uc1-922gb-lossless-idle-s5248f-buildimage21891.txt"
	fs := diagnoseFiles(t, Options{}, q)
	f := nicMustFind(t, fs, "switch.queue.lossy_traffic", Info, "Ethernet17: 95.6% of unicast bytes leave by lossy queue 1 (859GiB), 0.0% on lossless queues 3,4")
	if f.Evidence[0].Line != 6 || !strings.Contains(f.Mechanism, "846070688 unicast packets") {
		t.Errorf("evidence %+v, mechanism %s", f.Evidence, f.Mechanism)
	}
	fs = diagnoseFiles(t, Options{}, q, "corpus/perftest/ib-write-bw-roce-gid3-duration-no-peak-perftest234.txt")
	nicMustFind(t, fs, "switch.queue.lossy_traffic", Warn, "Ethernet17: RoCE is in use, and 95.6% of this port's unicast bytes leave by lossy queue 1")
}

// SYNTHETIC, in `show queue counters`' format: a port whose lossless queue
// carries 1% or more of its bytes, and a quiet port (control traffic
// only), are no finding.
func TestQueueShareQuiet(t *testing.T) {
	text := strings.Join([]string{
		"     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes",
		"---------  -----  --------------  ---------------  -----------  ------------",
		"Ethernet0    UC0         9000000       9000000000            0             0",
		"Ethernet0    UC3          100000        100000000            0             0",
		"Ethernet4    UC7          999999        100000000            0             0",
	}, "\n") + "\n"
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	if got := nicFind(fs, "switch.queue.lossy_traffic"); len(got) != 0 {
		t.Errorf("want none:\n%s", nicTitles(fs))
	}
}

// SYNTHETIC, in `show queue counters --voq`'s format (SONiC's aggregate
// VOQ counters HLD): drops on a lossless VOQ are lossless drops, said as
// a chassis' ingress queue toward the system port; a VOQ table is no
// egress share.
func TestVOQLosslessDrops(t *testing.T) {
	text := strings.Join([]string{
		"                    Port    Voq    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes",
		"------------------------  -----  --------------  ---------------  -----------  ------------",
		"nfc404-3|Asic0|Ethernet4   VOQ0        90000000      90000000000            0             0",
		"nfc404-3|Asic0|Ethernet4   VOQ3          204000         10200000          512         26000",
	}, "\n") + "\n"
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	f := nicMustFind(t, fs, "switch.queue.drops", Error, "nfc404-3|Asic0|Ethernet4 VOQ3: 512 packets dropped on lossless queue 3")
	if !strings.Contains(f.Mechanism, "virtual output queue toward that system port") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	if got := nicFind(fs, "switch.queue.lossy_traffic"); len(got) != 0 {
		t.Errorf("VOQs judged as egress shares:\n%s", nicTitles(fs))
	}
}

// SYNTHETIC, in the multi-ASIC form of `show queue counters --voq` (a
// linecard's "For namespace asicN:" blocks, as SONiC's aggregate VOQ
// counters HLD prints them): asic0's drops toward a system port are not
// hidden by asic1's clean queue toward the same port, and are named by
// their ASIC.
func TestVOQDropsPerNamespace(t *testing.T) {
	text := strings.Join([]string{
		"For namespace asic0:",
		"                    Port    Voq    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes",
		"------------------------  -----  --------------  ---------------  -----------  ------------",
		"nfc404-3|asic0|Ethernet4   VOQ3          204000         10200000          512         26000",
		"For namespace asic1:",
		"                    Port    Voq    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes",
		"------------------------  -----  --------------  ---------------  -----------  ------------",
		"nfc404-3|asic0|Ethernet4   VOQ3          100000          5000000            0             0",
	}, "\n") + "\n"
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	nicMustFind(t, fs, "switch.queue.drops", Error, "asic0 nfc404-3|asic0|Ethernet4 VOQ3: 512 packets dropped on lossless queue 3")
}

// eosQueueLines are an EOS switch's PFC table and queue counters
// (synthetic, in the shape of EOS's `show priority-flow-control` and `show
// interfaces counters queue`), the counters under prompt.
func eosQueueLines(prompt string) []string {
	return []string{"# synthetic",
		"leaf1#show priority-flow-control",
		"E: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog Enabled",
		"Port       Status  Priorities  Action      Timeout  Recovery        Polling         Note",
		"                                                    Interval/Mode   Config/Oper",
		"---------------------------------------------------------------------------------------",
		"Et1        E A W   3           drop        0.2      0.2 / Auto      Auto / Auto",
		"Et2        E A W   3           drop        0.2      0.2 / Auto      Auto / Auto",
		"",
		prompt + "show interfaces counters queue",
		"Egress Queue Counters",
		"Port                 Traffic DropPrec   DestType          OutEnqPkts      OutEnqOctets       OutDropPkts     OutDropOctets",
		"                     Class",
		"Et1                  TC1     DP0-3      UC                 400916761       38488009056                 0                 0",
		"Et1                  TC3     DP0-3      UC                      1497            208895                 5               500",
		"Et2                  TC1     DP0-3      UC                 400916761       38488009056               100             10000"}
}

// An Arista EOS switch's queues are told in EOS's words, not SONiC's
// (synthetic counts in the shape of EOS's `show interfaces counters queue`
// and `show priority-flow-control`).
func TestQueueFindingsEOSWords(t *testing.T) {
	fs := synthFindings(t, Options{}, eosQueueLines("leaf1#")...)
	for _, f := range fs {
		if f.ID != "switch.queue.lossy_traffic" && f.ID != "switch.queue.drops" {
			continue
		}
		for _, sonic := range []string{"DSCP_TO_TC_MAP", "config_db", "show queue counters", "mmuconfig", "pfcwd"} {
			if strings.Contains(f.Mechanism+f.Fix, sonic) {
				t.Errorf("%s: SONiC's %q on an EOS queue: %s %s", f.Title, sonic, f.Mechanism, f.Fix)
			}
		}
	}
	f := nicMustFind(t, fs, "switch.queue.lossy_traffic", Info, "leaf1 Et1")
	if !strings.Contains(f.Fix, "`show interfaces Et1 counters queue` grows on TC3") || !strings.Contains(f.Fix, "to traffic-class 3") {
		t.Errorf("fix %s", f.Fix)
	}
	f = nicMustFind(t, fs, "switch.queue.drops", Error, "leaf1 Et1")
	if !strings.Contains(f.Fix, "show priority-flow-control counters") {
		t.Errorf("fix %s", f.Fix)
	}
}

// EOS's prompt may be the full hostname in one paste and the short one in
// another: "leaf1.dc1#" and "leaf1#" are one switch, so its PFC table says
// which of its queues are lossless (synthetic, the EOS lines above).
func TestQueueEOSPromptFQDN(t *testing.T) {
	fs := synthFindings(t, Options{}, eosQueueLines("leaf1.dc1#")...)
	nicMustFind(t, fs, "switch.queue.drops", Error, "5 packets dropped on lossless queue 3")
	nicMustFind(t, fs, "switch.queue.lossy_traffic", Info, "on lossless queues 3")
}
