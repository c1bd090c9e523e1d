package doctor

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

const corpus = "../../testdata/corpus"

// want is a finding a corpus file must produce: its id, severity and words
// its title must contain.
type want struct {
	id    string
	sev   Severity
	title []string
}

// TestCorpusDiagnoses checks, for every NCCL corpus file, the findings its
// INDEX.md row calls for, and that no error-level finding contradicts it.
func TestCorpusDiagnoses(t *testing.T) {
	cases := []struct {
		file string
		opts Options
		want []want
		// errors lists the only ids allowed at error level.
		errors []string
		exit   int
	}{
		{"nccl-log/gdr-disabled-no-module-netib-channels-issue899.txt", Options{},
			[]want{{"nccl.gdr.disabled", Warn, []string{"peer-memory module not loaded", "mlx5_1", "mlx5_3"}}, {"nccl.transport.ib", Info, []string{"NET/IB"}}}, nil, 0},
		{"nccl-log/gdr-enabled-disabled-by-distance-dle383.txt", Options{},
			[]want{{"nccl.gdr.disabled", Warn, []string{"partly", "18000", "3b000", "distance 5 (SYS) > NCCL_NET_GDR_LEVEL 4 (PHB)", "86000", "af000"}}}, nil, 0},
		{"nccl-log/roce-err12-vendor129-recv-gid-issue1405.txt", Options{},
			[]want{{"nccl.ib.retry_exceeded", Error, []string{"status 12", "0x81", "3 connections", "kp-ddp-worker-0", "10.216.210.236"}}},
			[]string{"nccl.ib.retry_exceeded"}, 1},
		{"nccl-log/roce-ibext-nccl2.10.3-init-llama162.txt", Options{},
			[]want{{"nccl.transport.ib", Info, []string{"NET/IBext", "RoCE", "mlx5_3:1"}}}, nil, 0},
		{"nccl-log/roce-nccl2.5.7-rings-trees-gdr-partial-issue392.txt", Options{},
			[]want{{"nccl.transport.ib", Info, []string{"RoCE", "mlx5_0:1", "GID index 3"}}, {"nccl.gdr.disabled", Warn, []string{"without /GDRDMA"}}}, nil, 0},
		{"nccl-log/socket-aws-ens3-no-ib-issue226.txt", Options{},
			[]want{{"nccl.transport.socket_fallback", Error, []string{"Multi-node", "TCP sockets", "15 hosts"}}},
			[]string{"nccl.transport.socket_fallback"}, 1},
		{"nccl-tests/allreduce-a3mega-16xh100-tcpxo-338GBps-good.txt", Options{},
			[]want{{"nccltests.busbw.unjudged", Info, []string{"all_reduce", "330.58", "338.82", "no NIC speed"}}}, nil, 0},
		{"nccl-tests/allreduce-gb10-2node-nccltests2.20-format-dgxspark103.txt", Options{},
			[]want{{"nccltests.sizes.small", Info, []string{"all_reduce", "64KiB"}}}, nil, 0},
		{"nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt", Options{},
			[]want{{"nccl.transport.ib", Info, []string{"RoCE", "mlx5_5:1", "GID index 3"}}, {"nccl.gdr.disabled", Warn, []string{"GDR 0"}},
				{"nccltests.busbw.unjudged", Info, []string{"15.02", "no NIC speed"}}}, nil, 0},
		{"nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt", Options{NICSpeed: 400 * unit.Gbps},
			[]want{{"nccltests.busbw.low", Error, []string{"all_reduce", "31%", "400Gbps", "48.00 GB/s"}}, {"nccl.gdr.disabled", Warn, nil}},
			[]string{"nccltests.busbw.low"}, 1},
		{"nccl-tests/allreduce-h20-ib-error-column-format-issue1244.txt", Options{},
			[]want{{"nccltests.sizes.small", Info, []string{"512B"}}}, nil, 0},
		{"nccl-tests/broadcast-v100-socket-old-format-nccltests82.txt", Options{},
			[]want{{"nccl.transport.socket_fallback", Error, []string{"Multi-node"}}, {"nccltests.sizes.small", Info, []string{"broadcast"}}},
			[]string{"nccl.transport.socket_fallback"}, 1},
		{"nccl-tests/sendrecv-h100-1gpu-roce400g-14GBps-ccimoc.txt", Options{},
			[]want{{"nccltests.busbw.unjudged", Info, []string{"sendrecv", "13.97"}}, {"nccl.gdr.disabled", Warn, []string{"without /GDRDMA"}}, {"nccl.transport.ib", Info, nil}}, nil, 0},
		{"nccl-tests/sendrecv-h100-4gpu-shared-1nic-5.8GBps-ccimoc.txt", Options{},
			[]want{{"nccltests.busbw.unjudged", Info, []string{"sendrecv", "5.85"}}, {"nccl.transport.ib", Info, []string{"mlx5_5:1"}}}, nil, 0},
		{"nccl-tests/sendrecv-h100-4gpu-shared-1nic-5.8GBps-ccimoc.txt", Options{NICSpeed: 400 * unit.Gbps},
			[]want{{"nccltests.busbw.low", Error, []string{"12%", "50.00 GB/s", "one NIC"}}}, []string{"nccltests.busbw.low"}, 1},
	}
	for _, c := range cases {
		name := filepath.Base(c.file)
		if c.opts.NICSpeed > 0 {
			name += "@" + c.opts.NICSpeed.String()
		}
		t.Run(name, func(t *testing.T) {
			rep := diagnose(t, c.opts, filepath.Join(corpus, c.file))
			checkWants(t, rep.Findings, c.want)
			allowed := map[string]bool{}
			for _, id := range c.errors {
				allowed[id] = true
			}
			for _, f := range rep.Findings {
				if f.Severity == Error && !allowed[f.ID] {
					t.Errorf("unexpected error-level finding %s: %s", f.ID, f.Title)
				}
			}
			if got := rep.ExitCode(); got != c.exit {
				t.Errorf("exit code %d, want %d", got, c.exit)
			}
		})
	}
}

// checkWants checks that fs holds each wanted finding, at its severity,
// with the words its title needs, and with evidence, mechanism and fix.
func checkWants(t *testing.T, fs []Finding, wants []want) {
	t.Helper()
	for _, w := range wants {
		f := find(fs, w.id)
		if f == nil {
			t.Errorf("missing %s; got %v", w.id, ids(fs))
			continue
		}
		if f.Severity != w.sev {
			t.Errorf("%s severity %s, want %s", w.id, f.Severity, w.sev)
		}
		for _, s := range w.title {
			if !strings.Contains(f.Title, s) {
				t.Errorf("%s title %q lacks %q", w.id, f.Title, s)
			}
		}
		if len(f.Evidence) == 0 || f.Mechanism == "" || (f.Severity > Info && f.Fix == "") {
			t.Errorf("%s lacks evidence, mechanism or fix: %+v", w.id, f)
		}
	}
}

// TestCorpusRetryRootCause checks that each connection's first error is
// the evidence and that the GIDs and plugin are named.
func TestCorpusRetryRootCause(t *testing.T) {
	rep := diagnose(t, Options{}, filepath.Join(corpus, "nccl-log/roce-err12-vendor129-recv-gid-issue1405.txt"))
	f := find(rep.Findings, "nccl.ib.retry_exceeded")
	if f == nil {
		t.Fatal("no retry finding")
	}
	var lines []int
	for _, e := range f.Evidence {
		lines = append(lines, e.Line)
	}
	if len(lines) != 3 || lines[0] != 4 || lines[1] != 9 || lines[2] != 14 {
		t.Errorf("evidence lines %v, want 4, 9, 14", lines)
	}
	for _, s := range []string{"4.3 s per attempt", "NCCL_IB_RETRY_CNT=7", "go", "fd00:1148:9000:5000:4:200:3:ff22", "ib_plugin.c:1615"} {
		if !strings.Contains(f.Mechanism, s) {
			t.Errorf("mechanism lacks %q: %s", s, f.Mechanism)
		}
	}
	if !strings.Contains(f.Fix, "show_gids") || !strings.Contains(f.Fix, "PFC") {
		t.Errorf("fix lacks GID and PFC checks: %s", f.Fix)
	}
}

// TestSplitIncident joins two files cut from one real artifact: the NCCL
// lines in one, the nccl-tests table in the other. The busbw finding must
// name GDR 0 from the other file as a likely cause.
func TestSplitIncident(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(corpus, "nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var logPart, tablePart []string
	for _, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, " NCCL INFO ") {
			logPart = append(logPart, l)
		} else {
			tablePart = append(tablePart, l)
		}
	}
	dir := t.TempDir()
	write := func(name string, lines []string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a-nccl.log", logPart)
	write("b-allreduce.txt", tablePart)
	rep := diagnose(t, Options{NICSpeed: 400 * unit.Gbps}, dir)
	f := find(rep.Findings, "nccltests.busbw.low")
	if f == nil || f.Severity != Error {
		t.Fatalf("busbw finding = %+v", f)
	}
	if !strings.Contains(f.Fix, "GPUDirect RDMA off (GDR 0)") {
		t.Errorf("fix does not name GDR 0: %s", f.Fix)
	}
	cited := false
	for _, e := range f.Evidence {
		cited = cited || (strings.HasSuffix(e.File, "a-nccl.log") && strings.Contains(e.Text, "GDR 0"))
	}
	if !cited {
		t.Errorf("evidence does not cite the GDR 0 line of the other file: %v", f.Evidence)
	}
}

// Synthetic logs for the rules the corpus does not exercise.
func TestSyntheticRules(t *testing.T) {
	cases := []struct {
		name string
		log  []string
		want []want
		not  []string
	}{
		{"nccl-tests header, no size", []string{
			"#  Rank  0 Group  0 Pid   1234 on     node-1 device  0 [0x18] NVIDIA H100 80GB HBM3",
			"#",
			"#                                                              out-of-place                       in-place          ",
			"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
			"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
		}, []want{{"nccltests.rows.none", Warn, []string{"no size", "never finished"}}}, nil},
		{"socket single node", []string{
			"h:1:1 [0] NCCL INFO NET/IB : No device found.",
			"h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
			"h:1:1 [0] NCCL INFO Using network Socket",
			"h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0",
		}, []want{{"nccl.transport.socket_fallback", Info, []string{"single-node"}}}, nil},
		{"socket span unknown", []string{
			"h:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.",
			"h:1:1 [0] NCCL INFO Using network Socket",
		}, []want{{"nccl.transport.socket_fallback", Warn, []string{"if the job spans nodes"}}}, nil},
		{"one host without an RDMA device", []string{
			"a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"a:1:1 [0] NCCL INFO Using network IB",
			"b:1:1 [0] NCCL INFO NET/IB : No device found.",
		}, []want{{"nccl.transport.mismatch", Error, []string{"a on RDMA", "b on TCP sockets"}}}, []string{"nccl.transport.socket_fallback"}},
		{"no IB device under a net plugin is normal", []string{
			"a:1:1 [0] NCCL INFO NET/IB : No device found.",
			"a:1:1 [0] NCCL INFO Using network AWS Libfabric",
			"b:1:1 [0] NCCL INFO Using network AWS Libfabric",
		}, []want{{"nccl.transport.plugin", Info, []string{"AWS Libfabric"}}}, []string{"nccl.transport.socket_fallback"}},
		{"plugin transport is not a socket fallback", []string{
			"a:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin FasTrak (v8)",
			"a:1:1 [0] NCCL INFO Using network FasTrak",
			"b:1:1 [0] NCCL INFO Using network FasTrak",
		}, []want{{"nccl.transport.plugin", Info, []string{"FasTrak"}}}, []string{"nccl.transport.socket_fallback"}},
		{"local protection with fallout", []string{
			"a:1:2 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5> with error 4, opcode 0, len 0, vendor err 81 (Send)",
			"a:1:2 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5> with error 5, opcode 0, len 0, vendor err 249 (Send)",
			"a:1:3 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.3<6> with error 5, opcode 0, len 0, vendor err 249 (Send)",
		}, []want{{"nccl.ib.local_protection", Error, []string{"status 4", "0x51", "1 connection"}}},
			[]string{"nccl.ib.completion_flushed", "nccl.ib.retry_exceeded"}},
		{"flushed only", []string{
			"a:1:2 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.1.32.3<42519> with error 5, opcode 0, len 0, vendor err 249",
		}, []want{{"nccl.ib.completion_flushed", Error, []string{"no root-cause error"}}}, nil},
		{"flushed after a queue-pair fatal event", []string{
			"a:1:2 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation work queue error",
			"a:1:3 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5> with status=5 opcode=1 len=0 vendor err 249 (Recv) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2",
		}, []want{{"nccl.ib.completion_flushed", Error, []string{"after a queue-pair fatal event"}},
			{"nccl.ib.async_event", Error, nil}}, nil},
		{"proxy service WARNs at abort are no cause", []string{
			"a:1:2 [0] proxy.cc:1458 NCCL WARN [Service thread] Accept failed Resource temporarily unavailable",
			"a:1:2 [0] NCCL INFO misc/socket.cc:826 -> 3",
			"a:1:2 [0] proxy.cc:1497 NCCL WARN [Service thread] Could not receive type from localRank 0, res=3, closed=0",
			"a:1:2 [0] proxy.cc:1521 NCCL WARN [Proxy Service 0] Failed to execute operation Close from rank 0, retcode 3",
		}, nil, []string{"nccl.warn.error"}},
		{"proxy service Connect failure is one", []string{
			"a:1:2 [0] proxy.cc:1519 NCCL WARN [Proxy Service 0] Failed to execute operation Connect from rank 0, retcode 2",
		}, []want{{"nccl.warn.error", Error, []string{"could not connect a network channel"}}}, nil},
		{"flushed on another host than the queue-pair event", []string{
			"a:1:2 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation work queue error",
			"b:1:3 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.1<5> with status=5 opcode=1 len=0 vendor err 249 (Recv) localGid ::ffff:10.0.0.2 remoteGids::ffff:10.0.0.1",
		}, []want{{"nccl.ib.completion_flushed", Error, []string{"no root-cause error"}}}, nil},
		{"link-local GID in a flushed completion only", []string{
			"a:1:3 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5> with status=5 opcode=1 len=0 vendor err 249 (Recv) localGid fe80::1 remoteGidsfe80::2",
		}, []want{{"gid.index.link_local", Warn, []string{"fe80::1"}}, {"nccl.ib.completion_flushed", Error, nil}}, nil},
		{"link-local GID in completion", []string{
			"a:1:2 [0] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<5> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fe80::1 remoteGidsfe80::2 hca mlx5_0",
		}, []want{{"gid.index.link_local", Error, []string{"fe80::1"}}, {"nccl.ib.retry_exceeded", Error, nil}}, nil},
		{"modify_qp timeout after index 1", []string{
			"a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"a:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 1.",
			"a:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error Connection timed out",
		}, []want{{"gid.index.link_local", Error, []string{"timed out"}}}, []string{"nccl.ib.qp_setup_failed", "gid.index.default_zero"}},
		{"modify_qp timeout after index 0: link-local, not also index zero", []string{
			"a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"a:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 0.",
			"a:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error Connection timed out",
		}, []want{{"gid.index.link_local", Error, []string{"GID index 0", "timed out"}}}, []string{"nccl.ib.qp_setup_failed", "gid.index.default_zero"}},
		{"no such device", []string{
			"a:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error No such device",
		}, []want{{"nccl.ib.qp_setup_failed", Error, []string{"ibv_modify_qp: No such device"}}}, []string{"gid.index.link_local"}},
		{"gid mismatch and zero", []string{
			"a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"a:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 0.",
			"b:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.",
		}, []want{{"gid.index.mismatch", Warn, []string{"0 on a", "3 on b"}}, {"gid.index.default_zero", Warn, nil}}, nil},
		{"gid zero on InfiniBand is fine", []string{
			"a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>",
			"a:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 0.",
		}, nil, []string{"gid.index.default_zero"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := diagnoseText(t, "# synthetic\n"+strings.Join(c.log, "\n")+"\n")
			checkWants(t, rep.Findings, c.want)
			for _, id := range c.not {
				if f := find(rep.Findings, id); f != nil {
					t.Errorf("unexpected %s: %s", id, f.Title)
				}
			}
		})
	}
}

// TestLinkLocalOneFinding gives the link-local GID twice over: the index in
// use points at the fe80:: row of show_gids, and NCCL prints fe80:: GIDs in
// its completion error. One fact, one finding, citing both; the QP failure
// itself is a finding of its own.
func TestLinkLocalOneFinding(t *testing.T) {
	rep := diagnoseText(t, "# synthetic\n"+strings.Join([]string{
		"a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"a:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 1.",
		"a:1:2 [0] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<5> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fe80::1 remoteGidsfe80::2 hca mlx5_0",
		"DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV",
		"---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---",
		"mlx5_0\t1\t1\tfe80:0000:0000:0000:0000:0000:0000:0001\t\t\tv2\tens3np0",
		"n_gids_found=1",
	}, "\n")+"\n")
	var ll []Finding
	for _, f := range rep.Findings {
		if f.ID == "gid.index.link_local" {
			ll = append(ll, f)
		}
	}
	if len(ll) != 1 {
		t.Fatalf("%d link-local findings, want 1: %v", len(ll), ids(rep.Findings))
	}
	lines := map[int]bool{}
	for _, e := range ll[0].Evidence {
		lines[e.Line] = true
	}
	if !lines[3] || !lines[4] || !lines[7] {
		t.Errorf("evidence %v, want the index (3), the completion (4) and the table row (7)", ll[0].Evidence)
	}
	if find(rep.Findings, "nccl.ib.retry_exceeded") == nil {
		t.Errorf("the QP failure is a fact of its own: %v", ids(rep.Findings))
	}
}

// FuzzDiagnoseNCCL runs every rule over whatever the parsers make of
// arbitrary input, seeded with the NCCL corpus and, so that NIC-side
// bottlenecks meet nccl-tests tables, the other text corpus files and the
// synthetic fixtures: no rule may panic or emit a finding without an id,
// title or evidence.
func FuzzDiagnoseNCCL(f *testing.F) {
	for _, dir := range []string{"nccl-log", "nccl-tests", "ethtool", "perftest", "../synthetic"} {
		paths, _ := filepath.Glob(filepath.Join(corpus, dir, "*.txt"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, int64(0))
			f.Add(b, int64(400*unit.Gbps))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, speed int64) {
		rep := Diagnose([]string{"-"}, bytes.NewReader(data), Options{NICSpeed: unit.BitRate(max(speed, 0))})
		for _, fd := range rep.Findings {
			if fd.ID == "" || fd.Title == "" || len(fd.Evidence) == 0 {
				t.Fatalf("incomplete finding %+v", fd)
			}
		}
		if err := rep.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

// vLLM on Ray with NCCL_IB_HCA=rxe0 (NVIDIA/nccl#1297, NCCL 2.20.5): NCCL's
// IB transport runs on Soft-RoCE, the CPU's RoCE without GPUDirect RDMA,
// which the doctor named only as "RDMA devices found: NET/IB over RoCE".
func TestSoftRoCEInUse(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.20.5-vllm-ray-ib-hca-rxe0-softroce-nccl1297.txt")
	f := nicMustFind(t, fs, "nccl.transport.softroce", Warn, "NCCL's IB transport runs on Soft-RoCE (master rxe0:1)")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 16 {
		t.Errorf("evidence %v", f.Evidence)
	}
	// A hardware RoCE device is not Soft-RoCE.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>")
	nicMustNot(t, fs, "nccl.transport.softroce")
}

// The HPC-X SHARP plugin lists its devices as "[0]mlx5_1:1/IB/SHARP"
// (NVIDIA/nccl-tests#294): the link layer read as "IB/SHARP", a third
// kind beside IB and RoCE.
func TestSHARPDeviceLinkLayer(t *testing.T) {
	l := nicReadArtifacts(t, "corpus/nccl-log/nccltests-ibext-v6-sharp-bootstrap-family-33621-nccltests294.txt")[0].(*ingest.NCCLLog)
	if len(l.IBDevices) == 0 {
		t.Fatal("no IB devices")
	}
	for _, d := range l.IBDevices {
		if d.LinkLayer != "IB" || d.Port != 1 || !strings.HasPrefix(d.Name, "mlx5_") {
			t.Errorf("device %+v, want mlx5_N port 1 link layer IB", d)
		}
	}
}

// NCCL 2.0-2.2 logs (no "NCCL" before the level) were no input; now their
// transport is judged: sockets with libibverbs missing (horovod/horovod#98)
// and over a sideband interface (#666), IB over a ConnectX-3 (#489).
func TestLegacyPrefixLogsJudged(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.0-2.2-no-nccl-marker-warn-libibverbs-bold-horovod98.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "on 1 host")
	if f.Evidence[0].Line != 2 || !strings.Contains(f.Mechanism, "libibverbs") {
		t.Errorf("evidence %+v, mechanism %s", f.Evidence, f.Mechanism)
	}
	nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.0-2.2-no-nccl-marker-socket-sideband-horovod666.txt"), "nccl.transport.socket_fallback", Warn)
	nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.0-2.2-no-nccl-marker-ib-mlx4-horovod489.txt"), "nccl.transport.ib", Info, "mlx4_0:1")
}
