package doctor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tests of issue 9's classes of what fell short ("second round"). Each
// names its class; real text sits under testdata/corpus with its source,
// synthetic text is written here and says so.

// Class 1 and 2, real text (multus-cni#1100): GID indices set with export
// lines, two pods' show_gids tables of the same device in one paste. The
// tables are kept apart, so the RoCEv2 row at index 5 in one and 7 in the
// other is a mismatch with the value for each, and each exported value is
// joined with a table.
func TestClass1And2TwoPodsExport(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/threads/show-gids-two-pods-export-gid5-7-multus1100.txt")
	m := nicMustFind(t, fs, "gid.index.mismatch", Warn, "5 on mlx5_4 (table 1", "7 on mlx5_4 (table 2")
	if !strings.Contains(m.Fix, "NCCL_IB_GID_INDEX=5 on mlx5_4 (table 1") || !strings.Contains(m.Fix, "NCCL_IB_GID_INDEX=7 on mlx5_4 (table 2") {
		t.Errorf("fix does not give each pod its value: %s", m.Fix)
	}
	if !strings.Contains(m.Mechanism, "5 (") || !strings.Contains(m.Mechanism, "7 (") {
		t.Errorf("mechanism does not cite the exported values: %s", m.Mechanism)
	}
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "GID index 5", "set by export")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "GID index 7", "set by export")
}

// synthTestsRuns writes a SYNTHETIC nccl-tests output of n all_reduce runs
// on two hosts with one rank each, every run at 10 GB/s busbw, after one
// NCCL line that names the RoCE NIC each host uses.
func synthTestsRuns(n int) string {
	var b strings.Builder
	b.WriteString("# synthetic: written by round2_test.go\n")
	b.WriteString("hostA:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n")
	b.WriteString("hostB:2:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.2<0>\n")
	for i := 0; i < n; i++ {
		b.WriteString("# Collective test starting: all_reduce_perf\n")
		b.WriteString("# nThread 1 nGpus 1 minBytes 67108864 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n")
		b.WriteString("#  Rank  0 Group  0 Pid   1001 on      hostA device  0 [0x1b] NVIDIA H100 80GB HBM3\n")
		b.WriteString("#  Rank  1 Group  0 Pid   2002 on      hostB device  0 [0x1b] NVIDIA H100 80GB HBM3\n")
		b.WriteString("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n")
		for _, sz := range []int{67108864, 134217728, 268435456} {
			us := float64(sz) / 10e3
			b.WriteString(strings.Join([]string{"", itoa(sz), itoa(sz / 4), "float", "sum", "-1", ftoa(us), "10.00", "10.00", "0", ftoa(us), "10.00", "10.00", "0"}, "  ") + "\n")
		}
		b.WriteString("# Avg bus bandwidth    : 10.00\n")
	}
	return b.String()
}

// Issue 10 item 3: an nccl-tests output with more than 64 runs. The runs
// beyond the 64th used to be merged into the 64th, whose rank lines then
// made seven ranks per host share one NIC and turned a low busbw into a
// false nccltests.busbw.ok. Every run is judged on its own now.
func TestNCCLTestsManyRuns(t *testing.T) {
	rep := Diagnose([]string{"-"}, strings.NewReader(synthTestsRuns(70)), Options{NICSpeed: 400e9})
	low, ok := 0, 0
	for _, f := range rep.Findings {
		switch f.ID {
		case "nccltests.busbw.low":
			low++
		case "nccltests.busbw.ok":
			ok++
			t.Errorf("false ok: %s", f.Title)
		}
	}
	if low != 70 || ok != 0 {
		t.Errorf("%d runs judged low, %d ok; want 70 low", low, ok)
	}
}

// Class 8, real text: nccl-tests#254 (every process prints itself as
// Rank 0) and nccl-tests#213 (two banners back to back).
func TestClass8RanksSplit(t *testing.T) {
	for _, rel := range []string{"corpus/threads/allreduce-every-rank-0-no-mpi-nccltests254.txt", "corpus/threads/allreduce-two-banners-separate-nodes-nccltests213.txt"} {
		rep := Diagnose([]string{nicTestdata(rel)}, nil, Options{})
		f := nicMustFind(t, rep.Findings, "nccltests.ranks.split", Error)
		if !strings.Contains(f.Fix, "MPI=1") || !strings.Contains(f.Fix, "mpirun -np") {
			t.Errorf("%s: fix %s", rel, f.Fix)
		}
	}
	// A healthy multi-rank preamble is not split.
	rep := Diagnose([]string{"-"}, strings.NewReader(synthTestsRuns(2)), Options{})
	nicMustNot(t, rep.Findings, "nccltests.ranks.split")
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// Switch side, on the real-format SONiC outputs of testdata/corpus/switch:
// the watchdog's storms, lossless drops as errors, headroom exhausted where
// the same port dropped, ECN thresholds against the BDP.
func TestSwitchRules(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/switch")}, nil, Options{})
	fs := rep.Findings
	nicMustFind(t, fs, "switch.pfcwd.storm", Error, "Ethernet0 queue 3", "in a storm now")
	nicMustFind(t, fs, "switch.pfcwd.storm", Warn, "Ethernet4 queue 3", "2 storms detected, 2 restored")
	nicMustFind(t, fs, "switch.queue.drops", Error, "UC3", "lossless queue 3")
	nicMustFind(t, fs, "switch.queue.drops", Warn, "UC0", "lossy queue 0")
	nicMustFind(t, fs, "switch.headroom.exhausted", Error, "Ethernet0 PG3", "exhausted")
	nicMustFind(t, fs, "switch.pfc.tx_pause", Warn, "Ethernet0", "1210 PFC pause frames on priority 0")
	// No line rate is stated: at an assumed 100G SONiC's default Kmin is
	// 4.2 BDPs, said as info (lint leaves it out; see JudgeECN).
	e := nicMustFind(t, fs, "switch.ecn.thresholds", Info, "AZURE_LOSSLESS", "Kmin 1MiB is 4.2 BDPs", "assumed 100Gbps")
	if !strings.Contains(e.Mechanism, "100 Gb/s assumed") {
		t.Errorf("ECN mechanism: %s", e.Mechanism)
	}
}

// Switch side, second part, on real outputs: the pool watermark joined
// with the pool sizes of another file, the headroom pool in use, Onyx ECN
// thresholds in KB, EOS egress queue drops, an LLDP neighbour that is a
// host NIC named in the switch findings. SYNTHETIC lines for the watermark
// near the pool's size and for the PFC mismatch with a host.
func TestSwitchRulesMore(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-buffer-pool-watermark-sonic-utilities.txt", "corpus/switch/sonic-buffer-information-sonic-utilities.txt")
	nicMustFind(t, fs, "switch.buffer.pool", Info, "ingress_lossless_pool", "shared headroom pool held up to")
	nicMustNot(t, fs, "switch.ecn.thresholds") // buffer profiles are not ECN profiles
	fs = synthFindings(t, Options{},
		"admin@sonic:~$ show buffer_pool watermark",
		"Shared pool maximum occupancy:",
		"                 Pool    Bytes",
		"---------------------  -------",
		"ingress_lossless_pool  4400000",
		"admin@sonic:~$ show buffer information",
		"Pool: ingress_lossless_pool",
		"----  -------",
		"mode  dynamic",
		"size  4580864",
		"type  ingress",
		"----  -------")
	nicMustFind(t, fs, "switch.buffer.pool", Warn, "peaked at", "(96%)")
	fs = diagnoseFiles(t, Options{}, "corpus/switch/onyx-show-roce-nvidia-manual.txt")
	nicMustFind(t, fs, "switch.ecn.thresholds", Info, "150KiB to 1500KiB")
	fs = diagnoseFiles(t, Options{}, "corpus/switch/eos-egress-queue-counters-ntc-templates.txt")
	nicMustFind(t, fs, "switch.queue.drops", Warn, "Et4/2/1", "lossy queue 7")
	fs = diagnoseFiles(t, Options{}, "corpus/switch/onyx-show-roce-nvidia-manual.txt", "synthetic/mlnx-qos-pcp-pfc-off-synthetic.txt")
	nicMustFind(t, fs, "switch.pfc.mismatch", Error, "priority 3 on the switch but none on")
	fs = diagnoseFiles(t, Options{}, "corpus/switch/onyx-show-roce-nvidia-manual.txt", "corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	nicMustNot(t, fs, "switch.pfc.mismatch")
	// LLDP: the neighbour is a host NIC; SYNTHETIC pfc counters of the
	// same switch port then name that NIC.
	lldp := nicTestdata("corpus/switch/sonic-lldp-table-host-nic-sonic-mgmt.txt")
	text, err := os.ReadFile(lldp)
	if err != nil {
		t.Fatal(err)
	}
	lines := append(strings.Split(strings.TrimSpace(string(text)), "\n"),
		"  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7",
		"---------  ------  ------  ------  ------  ------  ------  ------  ------",
		"Ethernet0        0       0       0   5,000       0       0       0       0")
	fs = synthFindings(t, Options{}, lines...)
	nicMustFind(t, fs, "switch.lldp.host", Info, "Ethernet0 leads to r-sonic-10-006 enp5s0f0")
	nicMustFind(t, fs, "switch.pfc.tx_pause", Warn, "Ethernet0 (to r-sonic-10-006 enp5s0f0)")
}

// Item 5 of the second round: two dumps of one port in two files without
// date lines are timed by the files' modification times when --interval is
// not given, and the finding says so; --interval takes precedence.
// SYNTHETIC ethtool dumps of 10 s at 5% pause (500 ms of 10 s).
func TestWindowFromMTimes(t *testing.T) {
	dir := t.TempDir()
	dump := func(name string, pause uint64, at time.Time) string {
		p := filepath.Join(dir, name)
		text := "# synthetic: rocelab test, one ethtool dump\n[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n" +
			"     rx_prio3_pause: " + strconv.FormatUint(pause/100, 10) + "\n" +
			"     rx_prio3_pause_duration: " + strconv.FormatUint(pause, 10) + "\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t0 := time.Date(2026, 11, 30, 22, 15, 16, 0, time.UTC)
	a := dump("before.txt", 1000000, t0)
	b := dump("after.txt", 1500000, t0.Add(10*time.Second))
	f := nicMustFind(t, Diagnose([]string{a, b}, nil, Options{}).Findings, "counters.pause.ratio", Warn, "5.000% of the 10 s window")
	if !strings.Contains(f.Mechanism, "modification times") || !strings.Contains(f.Mechanism, "22:15:16.000") {
		t.Errorf("mechanism does not say how the window is timed: %s", f.Mechanism)
	}
	f = nicMustFind(t, Diagnose([]string{a, b}, nil, Options{Interval: 20 * time.Second}).Findings, "counters.pause.ratio", Warn, "2.500% of the 20 s window")
	if !strings.Contains(f.Mechanism, "--interval") {
		t.Errorf("--interval not named: %s", f.Mechanism)
	}
}
