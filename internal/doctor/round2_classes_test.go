package doctor

import (
	"math"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// More tests of issue 9's classes. Real text sits under
// testdata/corpus/threads with its source URL; synthetic text is written
// here and says so.

// Class 3, real text: NCCL 2.4.7 (Mellanox/nv_peer_memory#56) and a
// 2.4-era NCCL (NVIDIA/nccl-tests#29) print "NET/Socket : Using" on every
// rank beside NET/IB: not a socket fallback.
func TestClass3OldNCCLSocketBootstrap(t *testing.T) {
	for _, rel := range []string{
		"corpus/threads/nccl2.4.7-socket-bootstrap-beside-netib-nvpeermem56.txt",
		"corpus/threads/nccl-socket-lines-beside-netib-nccltests29.txt",
	} {
		fs := diagnoseFiles(t, Options{}, rel)
		nicMustNot(t, fs, "nccl.transport.socket_fallback")
		nicMustNot(t, fs, "nccl.transport.mismatch")
		nicMustFind(t, fs, "nccl.transport.ib", Info, "InfiniBand")
	}
	// SYNTHETIC: a 2.18 log whose host shows only the socket transport is
	// still a fallback.
	fs := synthFindings(t, Options{},
		"h1:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2",
		"h1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
		"h2:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Error, "2 hosts")
}

// Class 2: one host on IB and another on sockets is a mismatch, and its
// cause is why IB did not start on the socket host. SYNTHETIC lines in
// NCCL 2.2x format.
func TestClass2TransportMismatch(t *testing.T) {
	fs := synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"gpu1:10:10 [0] NCCL INFO Using network IB",
		"gpu2:20:20 [0] NCCL INFO NET/IB : No device found.",
		"gpu2:20:20 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>",
		"gpu2:20:20 [0] NCCL INFO Using network Socket")
	f := nicMustFind(t, fs, "nccl.transport.mismatch", Error, "gpu1 on RDMA", "gpu2 on TCP sockets")
	if !strings.Contains(f.Mechanism, "NET/IB found no RDMA device on 1 host") || !strings.Contains(f.Fix, "/dev/infiniband") {
		t.Errorf("mismatch does not give the socket host's cause: %s / %s", f.Mechanism, f.Fix)
	}
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}

// Class 2: hosts on different NCCL versions; one host printing two
// versions (two runs pasted) is not a mismatch. SYNTHETIC.
func TestClass2VersionMismatch(t *testing.T) {
	fs := synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NCCL version 2.18.3+cuda12.2",
		"gpu2:20:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
		"gpu3:30:30 [0] NCCL INFO NCCL version 2.21.5+cuda12.2")
	nicMustFind(t, fs, "nccl.version.mismatch", Warn, "2.18.3 on gpu1", "2.21.5 on gpu2")
	fs = synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NCCL version 2.18.3+cuda12.2",
		"gpu1:11:11 [0] NCCL INFO NCCL version 2.21.5+cuda12.4")
	nicMustNot(t, fs, "nccl.version.mismatch")
}

// Class 2: hosts whose RoCE ports run at different MTUs, from ibv_devinfo
// after two prompts and from NCCL 2.2x's per-QP lines. SYNTHETIC.
func TestClass2MTUMismatch(t *testing.T) {
	port := func(mtu, enum string) []string {
		return []string{
			"hca_id:\tmlx5_0",
			"\ttransport:\t\t\tInfiniBand (0)",
			"\tphys_port_cnt:\t\t\t1",
			"\t\tport:\t1",
			"\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
			"\t\t\tmax_mtu:\t\t4096 (5)",
			"\t\t\tactive_mtu:\t\t" + mtu + " (" + enum + ")",
			"\t\t\tlink_layer:\t\tEthernet",
		}
	}
	lines := append([]string{"[root@gpu1 ~]# ibv_devinfo"}, port("4096", "5")...)
	lines = append(lines, "[root@gpu2 ~]# ibv_devinfo")
	lines = append(lines, port("1024", "3")...)
	fs := synthFindings(t, Options{}, lines...)
	f := nicMustFind(t, fs, "host.mtu.mismatch", Warn, "1024 on gpu2", "4096 on gpu1")
	if !strings.Contains(f.Mechanism, "every connection to gpu2 runs at 1024") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"gpu1:10:12 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5 query_ece={supported=1, vendor_id=0x15b3, options=0x0, comp_mask=0x0} GID 3 (0/1000A8C0FFFF0000) fifoRkey=0x15e6c5 fifoLkey=0x15e6c5",
		"gpu2:20:22 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 2047 mtu 3 query_ece={supported=1, vendor_id=0x15b3, options=0x0, comp_mask=0x0} GID 3 (0/2000A8C0FFFF0000) fifoRkey=0x15e6c5 fifoLkey=0x15e6c5")
	nicMustFind(t, fs, "host.mtu.mismatch", Warn, "1024 on gpu2", "4096 on gpu1")
}

// Class 4, real text: completion errors quoted inline without NCCL's
// prefix (NVIDIA/nccl#1664 under NET/IBP, horovod#147 with "WARN" but no
// "NCCL") are read by their own text.
func TestClass4CompletionFragments(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/completion-error-inline-netibp-nccl1664.txt")
	f := nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "status 12", "vendor err 0x81", "peer 7.6.13.83")
	if !strings.Contains(f.Mechanism, "NET/IBP") {
		t.Errorf("plugin transport not named: %s", f.Mechanism)
	}
	// Status 12 is the requester's retries running out, not the
	// responder refusing (statuses 9-11).
	if strings.Contains(f.Mechanism, "responder refusing") {
		t.Errorf("status 12 read as the responder's refusal: %s", f.Mechanism)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/threads/completion-error-quoted-warn-horovod147.txt")
	nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "status 12", "vendor err 0x81")
	// SYNTHETIC: the plugin names NCCL's HPC-X plugin uses, with the
	// prefix a logger may put before NCCL's.
	fs = synthFindings(t, Options{},
		"2024-05-01 12:00:00,123 worker-3 h1:5:7 [0] transport/net_ib.cc:1 NCCL WARN NET/IBext_v8 : Got completion from peer 10.0.0.2<5> with status=4 opcode=0 len=0 vendor err 81 (Send)")
	nicMustFind(t, fs, "nccl.ib.local_protection", Error, "from h1")
}

// Class 6, SYNTHETIC: perftest's remote end exchanged the all-zero GID;
// gid.index.zero names it as the cause of "Failed to modify QP to RTR".
func TestClass6PerftestZeroGID(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/perftest-remote-gid-zero-synthetic.txt")
	f := nicMustFind(t, fs, "gid.index.zero", Error, "remote end's GID is all zeros", "why the QP could not be moved to RTR")
	if len(f.Evidence) < 4 || !strings.Contains(f.Evidence[len(f.Evidence)-1].Text, "Unable to Connect") {
		t.Errorf("evidence lacks the failure: %v", f.Evidence)
	}
	nicMustFind(t, fs, "perftest.connect.failed", Error, "the remote end's GID is all zeros")
	nicMustNot(t, fs, "gid.index.default_zero")
}

// Class 12, real text (NVIDIA/nccl#1814): a log pasted inside a Markdown
// code span; the backtick is not part of the host name.
func TestClass12BacktickHost(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/completion-error-backtick-host-nccl1814.txt")
	f := nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "from hostname-test to peer 172.36.143.59")
	if strings.Contains(f.Title, "`") {
		t.Errorf("backtick in title: %s", f.Title)
	}
}

// Class 9, real text (NVIDIA/nccl#2013): ibv_modify_qp timed out with GID
// index 3 and IPv4-mapped GIDs at both ends. Not a GID problem: the
// finding offers route, rail-only fabric with NCCL_CROSS_NIC, firewall and
// MTU, and no GID rule blames the index.
func TestClass9RoutableTimeout(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/qp-rtr-timeout-gid3-ipv4-rail-nccl2013.txt")
	f := nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "routable RoCE GIDs", "not a GID problem")
	for _, want := range []string{"no route between the two NICs' subnets", "NCCL_CROSS_NIC", "firewall", "MTU", "v1 row"} {
		if !strings.Contains(f.Mechanism, want) {
			t.Errorf("mechanism lacks %q: %s", want, f.Mechanism)
		}
	}
	if !strings.HasPrefix(f.Fix, "Keep the GID index") || strings.Contains(f.Fix, "set NCCL_IB_GID_INDEX") {
		t.Errorf("fix blames the GID index: %s", f.Fix)
	}
	for _, id := range []string{"gid.index.link_local", "gid.index.zero", "gid.index.empty", "gid.index.default_zero"} {
		nicMustNot(t, fs, id)
	}
	nicMustFind(t, fs, "gid.index.ipv4", Info, "host-01.example.com", "GID index 3")
	// SYNTHETIC: an older NCCL prints no GIDs in the line; show_gids says
	// index 3 is the RoCE v2 IPv4 row, and the two ends' subnets differ.
	fs = synthFindings(t, Options{},
		"[root@gpu1 ~]# show_gids",
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"---     ----    -----   ---                                     ------------    ---     ---",
		"mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a00:0105 10.0.1.5        v2      ens1np0",
		"gpu1:10:12 [0] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.1.5, remote GID ::ffff:10.0.2.7")
	f = nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "not a GID problem")
	if !strings.Contains(f.Mechanism, "different subnets (10.0.1.5, 10.0.2.7)") {
		t.Errorf("subnets not named: %s", f.Mechanism)
	}
	// A link-local GID in the same line is still the GID's fault.
	fs = synthFindings(t, Options{},
		"gpu1:10:12 [0] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 1, local GID fe80::1, remote GID fe80::2")
	nicMustFind(t, fs, "gid.index.link_local", Error)
	nicMustNot(t, fs, "nccl.ib.qp_setup_failed")
}

// Class 12, real text (NVIDIA/nccl#1573): a pod's GID tables whose
// link-local rows are 4 and 5. The text names those rows, never "0/1".
func TestClass12LinkLocalRowsFromTable(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/show-gids-pod-linklocal-4-5-nccl1573.txt")
	f := nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 7", "NCCL_IB_GID_INDEX=7")
	if !strings.Contains(f.Mechanism, "index 4 (v1), 5 (v2)") || strings.Contains(f.Mechanism, "0/1") || strings.Contains(f.Mechanism, "0 and 1") {
		t.Errorf("link-local rows: %s", f.Mechanism)
	}
}

// Class 5 at the doctor, real text (NVIDIA/nccl#1453): the rows whose
// rank tag recurs mid-row are read and judged.
func TestClass5TaggedRowsJudged(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 400e9}, "corpus/threads/allreduce-rank-tag-repeated-midline-nccl1453.txt")
	nicMustFind(t, fs, "nccltests.busbw.low", Error, "5.30 GB/s")
}

// Class 10: marks and CNPs weighed against RoCE packets where a count
// exists, rx_write_requests as a lower bound, else "cannot judge"; never
// "light" without a ratio. Real text: NVIDIA/nccl#394 (11.3 M marks beside
// ACK timeouts, no packet count).
func TestClass10MarkingDenominator(t *testing.T) {
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

// Class 11: busbw judged against the limit of its collective and topology,
// stated in the finding. SYNTHETIC table (4 hosts x 8 GPUs, busbw 6 GB/s)
// beside the real NCCL lines of nccl-tests#29 (one IB NIC per host): ring
// AllReduce is capped by the host's NIC (12.5 GB/s at 100G), not by an
// eighth of it, so 6 GB/s is low, not "above the limit".
func TestClass11BusBWLimit(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 100e9},
		"synthetic/allreduce-4x8-one-nic-per-host-6GBps-synthetic.txt",
		"corpus/threads/nccl-socket-lines-beside-netib-nccltests29.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.low", Error, "48%", "12.50 GB/s")
	if !strings.Contains(f.Mechanism, "Limit used: all_reduce") || !strings.Contains(f.Mechanism, "1 NIC per node") {
		t.Errorf("limit not stated: %s", f.Mechanism)
	}
	nicMustNot(t, fs, "nccltests.busbw.ok")
	// The model's numbers per collective.
	two := func(coll string, ranks, nics, nodes int) busbwLimit {
		r := &ingest.TestRun{Collective: coll, RankCount: ranks * nodes}
		return limitFor(r, nodes, share{ranks: ranks, nics: nics})
	}
	for _, c := range []struct {
		coll               string
		ranks, nics, nodes int
		m                  float64
		lower, off         bool
	}{
		{"all_reduce", 8, 8, 4, 8, false, false},      // eight NICs per node: 8 x L
		{"all_reduce", 8, 1, 4, 1, false, false},      // one NIC behind eight GPUs: L
		{"all_reduce", 1, 4, 2, 1, false, false},      // one GPU drives one NIC's worth (nccl-tests#232)
		{"all_gather", 8, 0, 2, 1, true, false},       // NICs unknown: one assumed, a lower bound
		{"alltoall", 8, 8, 2, 15.0 / 8, false, false}, // (k/G)(n-1)/(n-G) = 1 x 15/8
		{"alltoall", 8, 1, 4, 31.0 / 8 / 24, false, false},
		{"scatter", 8, 8, 2, 15.0 / 8, false, false},
		{"sendrecv", 4, 1, 2, 1, false, false},
		{"all_reduce", 8, 8, 1, 0, false, true}, // one node: no NIC on the path
	} {
		l := two(c.coll, c.ranks, c.nics, c.nodes)
		if l.offNode != c.off || !c.off && (math.Abs(l.m-c.m) > 1e-9 || l.lowerBound != c.lower || l.model == "") {
			t.Errorf("%s %dx%d NICs %d: m %.4f lower %v off %v (%s), want %.4f %v %v", c.coll, c.nodes, c.ranks, c.nics, l.m, l.lowerBound, l.offNode, l.model, c.m, c.lower, c.off)
		}
	}
}
