package doctor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rocelab/internal/ingest"
)

// irdma (E810 RoCE) and bnxt_re (Broadcom) name their hw_counters apart
// from mlx5 (names from linux 6.1's irdma/verbs.c and
// bnxt_re/hw_counters.c); their CNPs, ECN marks and retransmissions went
// unread. SYNTHETIC values in `rdma statistic show` form.
func TestIRDMAAndBNXTRECounters(t *testing.T) {
	fs := synthFindings(t, Options{}, "link irdma0/1 cnpHandled 5120 cnpIgnored 0 cnpSent 77 RxECNMrkd 9031 RxUDP 1200000 TxUDP 1100000")
	nicMustFind(t, fs, "counters.ecn.marking", Info, "0.753% of received RoCE packets", "RxECNMrkd 9031")
	fs = synthFindings(t, Options{}, "link bnxt_re0/1 to_retransmits 4410 seq_err_naks_rcvd 120 rnr_naks_rcvd 0 dup_req 7 oos_drop_count 311 max_retry_exceeded 2")
	nicMustFind(t, fs, "counters.retransmission", Warn, "to_retransmits 4410", "oos_drop_count 311")
	nicMustFind(t, fs, "counters.retry_exceeded", Warn, "max_retry_exceeded")
}

// irdma's GEN3 devices (Intel IPU E2000) name their RC loss recovery in
// words (linux-rdma Message-ID 20250827152545.2056-7-tatyana.e.nikolova@
// intel.com): the counters were read but drove no finding. SYNTHETIC
// values, in both forms a sysfs dump takes.
func TestIRDMAGen3Counters(t *testing.T) {
	const dir = "/sys/class/infiniband/irdma1/ports/1/hw_counters/"
	for _, lines := range [][]string{
		{"link irdma1/1 cnpHandled 0 RxUDP 91234567 Nak Sequence Error 4123 Nak Sequence Error Implied 311 RTO 2211 Rcvd Out of order packets 5123 RNR received 0 RNR sent 0"},
		{dir + "RxUDP:91234567", dir + "Nak Sequence Error:4123", dir + "Nak Sequence Error Implied:311", dir + "RTO:2211", dir + "Rcvd Out of order packets:5123", dir + "RNR received:0"},
	} {
		fs := synthFindings(t, Options{}, lines...)
		f := nicMustFind(t, fs, "counters.retransmission", Warn, "RTO 2211", "Rcvd Out of order packets 5123", "Nak Sequence Error 4123")
		if !strings.Contains(f.Fix, "irdma") {
			t.Errorf("fix %q", f.Fix)
		}
	}
	fs := synthFindings(t, Options{}, "link irdma1/1 RNR received 1543", "link irdma0/1 RNR sent 1543")
	f := nicMustFind(t, fs, "counters.rnr_nak", Info, "irdma1 port 1: 1543 RNR NAKs received (RNR received)")
	if !strings.Contains(f.Mechanism, "irdma0 port 1 RNR sent 1543") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

// Broadcom's out-of-tree bnxt_re (the driver AMD's Thor2 guides install;
// lykeioner/driver's copy of bnxt_re/hw_counters.c) prints mlx5's names:
// local_ack_timeout_err, packet_seq_err, out_of_sequence, np_cnp_sent.
// Its device's name (bnxt_re0) says the driver, and the fix was mlx5's
// mlnx_qos and rx_discards_phy. SYNTHETIC values.
func TestRDMADeviceNameSaysDriver(t *testing.T) {
	fs := synthFindings(t, Options{}, "link bnxt_re0/1 local_ack_timeout_err 2211 packet_seq_err 4123 out_of_sequence 5123 np_cnp_sent 0 rp_cnp_handled 0")
	f := nicMustFind(t, fs, "counters.retransmission", Warn, "bnxt_re0 port 1", "local_ack_timeout_err 2211")
	if strings.Contains(f.Fix, "mlnx_qos") || strings.Contains(f.Fix, "rx_discards_phy") || !strings.Contains(f.Fix, "bnxt_re") {
		t.Errorf("fix %q", f.Fix)
	}
	// The out-of-tree bnxt_re registers a bonded pair as bnxt_re_bond%d.
	fs = synthFindings(t, Options{}, "link bnxt_re_bond0/1 local_ack_timeout_err 2211 packet_seq_err 4123 out_of_sequence 5123")
	f = nicMustFind(t, fs, "counters.retransmission", Warn, "bnxt_re_bond0 port 1", "local_ack_timeout_err 2211")
	if strings.Contains(f.Fix, "mlnx_qos") || !strings.Contains(f.Fix, "bnxt_re") {
		t.Errorf("bond fix %q", f.Fix)
	}
	// A device udev named after its netdev says nothing: mlx5's names
	// read as mlx5's.
	fs = synthFindings(t, Options{}, "link rocep1s0f0/1 local_ack_timeout_err 2211 packet_seq_err 4123 out_of_sequence 5123")
	f = nicMustFind(t, fs, "counters.retransmission", Warn, "local_ack_timeout_err 2211")
	if !strings.Contains(f.Fix, "mlnx_qos") {
		t.Errorf("fix %q", f.Fix)
	}
}

// SYNTHETIC (no public dump with rx_prioN_marked moving was found): mlx5's
// per-host congestion marks, the NIC marking CE itself because its host
// drains the receive buffer too slowly (the kernel's mlx5 counters.rst:
// "ecn marked by device due to per host congestion"), were not read.
func TestHostECNMarking(t *testing.T) {
	dump := func(pkts, marked string) []string {
		return []string{
			"NIC statistics:",
			"     rx_prio3_packets: " + pkts,
			"     rx_prio3_buf_discard: 0",
			"     rx_prio3_cong_discard: 0",
			"     rx_prio3_marked: " + marked,
		}
	}
	f := nicMustFind(t, synthFindings(t, Options{}, dump("220500", "4410")...), "counters.ecn.host_marking", Info, "4410 on priority 3 (2.000% of its 220500 received packets)")
	if !strings.Contains(f.Fix, "PCIe") || !strings.Contains(f.Mechanism, "not for the fabric") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
	pair := append(dump("1000", "0"), dump("221500", "4410")...)
	nicMustFind(t, synthFindings(t, Options{}, pair...), "counters.ecn.host_marking", Warn, "4410 on priority 3")
	nicMustNot(t, synthFindings(t, Options{}, dump("220500", "0")...), "counters.ecn.host_marking")
}

// `rdma statistic` wraps a port's long line; the continuation lines
// (indented name/value pairs) were dropped, with them 19 QPs out of
// transport retries and 1543 RNR NAKs. RNR NAKs were counted as loss
// recovery, and the responder's out_of_buffer got a PFC fix.
func TestRDMAStatisticWrappedRNR(t *testing.T) {
	rel := "corpus/hwcounters/rdma-statistic-wrapped-rnr-retries-exceeded-slow-restart-sonic21891.txt"
	fs := diagnoseFiles(t, Options{}, rel)
	nicMustFind(t, fs, "counters.retry_exceeded", Warn, "mlx5_1 port 1: 19 queue pairs ran out of transport retries")
	f := nicMustFind(t, fs, "counters.rnr_nak", Info, "mlx5_1 port 1: 1543 RNR NAKs received (rnr_nak_retry_err)")
	if !strings.Contains(f.Mechanism, "mlx5_0 port 1 out_of_buffer 1543") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	f = nicMustFind(t, fs, "counters.retransmission", Warn, "local_ack_timeout_err 15, roce_adp_retrans 148")
	if strings.Contains(f.Title, "rnr_nak") {
		t.Errorf("RNR NAKs read as loss recovery: %s", f.Title)
	}
	f = nicMustFind(t, fs, "counters.discards", Info, "mlx5_0 port 1", "out_of_buffer 1543")
	if strings.Contains(f.Fix, "mlnx_qos") || !strings.HasPrefix(f.Fix, "Not the fabric") {
		t.Errorf("fix %s", f.Fix)
	}
}

// Two real dumps of no named host whose ports share a name are not one
// port read twice when the inputs list different ports: amd/node-scraper's
// all-zero fixture (eight ionic and four mlx5 ports) before the SONiC
// issue's two mlx5 ports made their mlx5_0 and mlx5_1 before/after pairs,
// timed by the files' modification times, so the SONiC host's cumulative
// counts were judged as moving during a few milliseconds (the retries
// exceeded an error, the RNR NAKs a warning at 2e5/s). Diagnosed together,
// the SONiC dump's findings are those it gives alone.
func TestCountersOfOtherInputsWithOtherPortsNotJoined(t *testing.T) {
	const ns = "corpus/hwcounters/rdma-statistic-json-reindented-ionic-pollara-mlx5-all-zero-nodescraper.txt"
	const sonic = "corpus/hwcounters/rdma-statistic-wrapped-rnr-retries-exceeded-slow-restart-sonic21891.txt"
	key := func(f Finding) string { return f.ID + " " + f.Severity.String() + " " + f.Title }
	both := map[string]bool{}
	for _, f := range diagnoseFiles(t, Options{}, ns, sonic) {
		both[key(f)] = true
		if strings.Contains(f.Mechanism, "modification times") {
			t.Errorf("%s joins the two inputs: %s", f.Title, f.Mechanism)
		}
	}
	for _, f := range diagnoseFiles(t, Options{}, sonic) {
		if !both[key(f)] {
			t.Errorf("alone %q; together it changed", key(f))
		}
	}
	// A second input that lists the same ports is still read as the
	// same host's later dump: the SONiC dump twice is a pair in which
	// nothing moved.
	text, err := os.ReadFile(nicTestdata(sonic))
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(t.TempDir(), "again.txt")
	if err := os.WriteFile(again, text, 0o644); err != nil {
		t.Fatal(err)
	}
	nicMustNot(t, diagnose(t, Options{Interval: 10 * time.Second}, nicTestdata(sonic), again).Findings, "counters.retry_exceeded")
}

// mana_ib counts RNR NAKs apart from the requester's retries exhausted:
// requester_rnr_nak (received) and responder_rnr_nak (sent, a receive WQE
// the responder lacked), names of linux's mana/counters.c the table did not
// have, so a port whose requesters met 1543 RNR NAKs gave no finding
// (and the discards' texts named mlx5's out_of_buffer and rnr_nak_retry_err).
// SYNTHETIC values in the `rdma statistic show -p` form of the real
// testdata/corpus/hwcounters/rdma-statistic-pretty-mana-ib-* dump.
func TestManaRNRNaks(t *testing.T) {
	fs := synthFindings(t, Options{}, "link mana_0/1", "    requester_timeout 0", "    requester_rnr_nak 1543", "    responder_rnr_nak 0", "    requester_rnr_nak_retries_exceeded 0")
	nicMustFind(t, fs, "counters.rnr_nak", Info, "mana_0 port 1: 1543 RNR NAKs received (requester_rnr_nak)")
	fs = synthFindings(t, Options{}, "link mana_0/1", "    requester_rnr_nak 0", "    responder_rnr_nak 1543")
	f := nicMustFind(t, fs, "counters.discards", Info, "mana_0 port 1", "responder_rnr_nak 1543")
	if strings.Contains(f.Fix, "mlnx_qos") || !strings.Contains(f.Fix, "RNR NAKs (requester_rnr_nak)") || !strings.Contains(f.Mechanism, "responder_rnr_nak counts") {
		t.Errorf("a mana port's text speaks mlx5's names: %s / %s", f.Mechanism, f.Fix)
	}
}

// Per-QP counters (`rdma statistic qp show`) are judged as the QP's own,
// named by its counter object, counted since the counter was bound
// (synthetic figures in iproute2's format).
func TestPerQPCountersNamed(t *testing.T) {
	const text = "link mlx5_2/1 cntn 4 qp-type RC pid 30489 comm ibv_rc_pingpong LQPN 178 out_of_sequence 120 packet_seq_err 5 local_ack_timeout_err 3\n"
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	f := nicMustFind(t, fs, "counters.retransmission", Warn, "mlx5_2 port 1 QP 178 of ibv_rc_pingpong, pid 30489: RC retransmissions: local_ack_timeout_err 3, out_of_sequence 120, packet_seq_err 5")
	if !strings.Contains(f.Mechanism, "since the counter was bound to the QP") {
		t.Errorf("window: %s", f.Mechanism)
	}
}

// One `rdma statistic | grep mlx5_2` line (oracle-japan/ocitutorials):
// 29 counters of mlx5_2 port 1, all error and congestion counters 0, so
// no finding.
func TestRdmaStatisticOneLineClean(t *testing.T) {
	rel := "corpus/hwcounters/rdma-statistic-grep-one-line-mlx5-all-zero-ocitutorials.txt"
	if fs := diagnoseFiles(t, Options{}, rel); len(fs) != 0 {
		t.Errorf("findings on a clean port:\n%s", nicTitles(fs))
	}
	data, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Read(rel, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var h *ingest.HWCounters
	for _, a := range res.Artifacts {
		if x, ok := a.(*ingest.HWCounters); ok {
			h = x
		}
	}
	if h == nil || len(h.Samples) != 1 {
		t.Fatalf("hw counters %+v", h)
	}
	s := h.Samples[0]
	c, ok := s.After.Get("rx_write_requests")
	if s.Device != "mlx5_2" || s.Port != 1 || len(s.After.Counters) != 29 || !ok || c.Value != 18747 {
		t.Errorf("%s/%d: %d counters, rx_write_requests %+v", s.Device, s.Port, len(s.After.Counters), c)
	}
}

// Azure MANA's port counters (rdma statistic show -p, from the mana_ib
// patch on linux-rdma) are read by concept: requester_retries_exceeded 5
// is queue pairs that ran out of retries and requester_timeout 45 ACK
// timeouts; before, the dump produced no finding.
func TestManaCounters(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/hwcounters/rdma-statistic-pretty-mana-ib-retries-exceeded-linuxrdma.txt")
	nicMustFind(t, fs, "counters.retry_exceeded", Warn, "mana_0 port 1: 5 queue pairs ran out of transport retries (requester_retries_exceeded)")
	r := nicMustFind(t, fs, "counters.retransmission", Warn, "requester_timeout 45")
	if strings.Contains(r.Fix, "mlnx_qos") || !strings.Contains(r.Fix, "platform's") {
		t.Errorf("an Azure VM's fix asks it to set the NIC's QoS: %s", r.Fix)
	}
}

// Marks and CNPs weighed against RoCE packets where a count
// exists, rx_write_requests as a lower bound, else "cannot judge"; never
// "light" without a ratio. Real text: NVIDIA/nccl#394 (11.3 M marks beside
// ACK timeouts, no packet count).
func TestECNMarkingDenominator(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/hwcounters-ecn-marks-beside-ack-timeouts-nccl394.txt")
	f := nicMustFind(t, fs, "counters.ecn.marking", Warn, "cannot be judged", "beside RC retransmissions")
	if strings.Contains(f.Title, "light") || !strings.Contains(f.Fix, "before/after pair") {
		t.Errorf("title %q fix %q", f.Title, f.Fix)
	}
	hw := func(lines ...string) []string {
		out := []string{"# synthetic: rocelab test, issue 9 class 10"}
		for _, l := range lines {
			out = append(out, "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"+l)
		}
		return out
	}
	// SYNTHETIC: write requests bound the share from above: 1000 of at
	// least 10,000,000 packets is at most 0.010%: light.
	fs = synthFindings(t, Options{}, hw("np_ecn_marked_roce_packets:1000", "np_cnp_sent:1000", "rx_write_requests:10000000")...)
	nicMustFind(t, fs, "counters.ecn.marking", Info, "light ECN marking: at most 0.010%")
	// 500,000 of at least 10,000,000 is at most 5%: cannot judge.
	fs = synthFindings(t, Options{}, hw("np_ecn_marked_roce_packets:500000", "rx_write_requests:10000000")...)
	nicMustFind(t, fs, "counters.ecn.marking", Info, "cannot be judged", "upper bound")
	nicMustNot(t, fs, "counters.ecn.heavy_marking")
	// RoCE packets counted by the port counters: a true ratio.
	fs = synthFindings(t, Options{}, append(hw("np_ecn_marked_roce_packets:500000"), "/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets:10000000")...)
	nicMustFind(t, fs, "counters.ecn.heavy_marking", Warn, "5.00% of received RoCE packets")
	for _, f := range fs {
		if strings.Contains(f.Title, "light") && !strings.Contains(f.Title, "%") {
			t.Errorf("light without a ratio: %s", f.Title)
		}
	}
}

// mlx5's optional hw_counters count the RoCE packets themselves
// (rdma_rx_packets, upstream counters.c's packets_op_cnts; `rdma statistic set link
// DEV/PORT optional-counters rdma_rx_packets`), so the marks are weighed
// from the hw_counters alone; before, an mlx5 dump with them was "cannot be
// judged". SYNTHETIC values in `rdma statistic show` form.
func TestECNMarkingMLX5OptionalPackets(t *testing.T) {
	const show = "link mlx5_0/1 out_of_sequence 0 packet_seq_err 0 local_ack_timeout_err 0 rp_cnp_ignored 0 rp_cnp_handled 0 np_ecn_marked_roce_packets %d np_cnp_sent %d cc_rx_ce_pkts %d rdma_rx_packets 50000000 rdma_tx_packets 48000000"
	fs := synthFindings(t, Options{}, fmt.Sprintf(show, 1000, 1000, 1000))
	f := nicMustFind(t, fs, "counters.ecn.marking", Info, "light ECN marking: 0.002% of received RoCE packets", "np_ecn_marked_roce_packets 1000")
	if !evidenceHas(f, "rdma_rx_packets 50000000") {
		t.Errorf("the packet count is not in the evidence: %+v", f.Evidence)
	}
	fs = synthFindings(t, Options{}, fmt.Sprintf(show, 1500000, 1500000, 1500000))
	nicMustFind(t, fs, "counters.ecn.heavy_marking", Warn, "3.00% of received RoCE packets")
}

// SYNTHETIC: an `rdma -j statistic` array with an element that is no
// object was dropped without a word; it is input.garbled at its '['.
func TestRdmaJSONNotObjectsGarbled(t *testing.T) {
	fs := synthFindings(t, Options{}, "$ rdma -j statistic show", `[{"ifname":"mlx5_0","port":1,"out_of_sequence":3},2]`)
	f := nicMustFind(t, fs, "input.garbled", Warn)
	if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[0].String(), ":2:") || !strings.Contains(f.Title+f.Mechanism, "cannot unmarshal number") {
		t.Errorf("finding %+v", f)
	}
}
