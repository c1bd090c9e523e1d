package ingest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

func parseLog(t testing.TB, text string) *NCCLLog {
	t.Helper()
	res, err := Read("synthetic.log", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if l, ok := a.(*NCCLLog); ok {
			return l
		}
	}
	return NewNCCLLogParser("empty").(*NCCLLog)
}

// Synthetic single lines, one per era and form listed in
// /work/shared/reference/formats.md §1 (and NCCL's source for 2.29).
func TestNCCLLineForms(t *testing.T) {
	const p = "h1:11:12 [0] NCCL INFO "
	const w = "h1:11:12 [0] transport/net_ib.cc:2244 NCCL WARN "
	t.Run("gdr", func(t *testing.T) {
		cases := []struct {
			line     string
			gpu, hca string
			dev      string
			enabled  bool
			reason   string
			dist     int
		}{
			{p + "NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)", "2[2]", "0", "", false, GDRDistance, 3},
			{p + "NET/IB : GPU Direct RDMA Enabled for GPU 86000 / HCA 0 (distance 4 <= 4), read 0", "86000", "0", "", true, "", 4},
			{p + "GPU Direct RDMA Disabled for GPU 18000 / HCA 1b000 (distance 7 > 6)", "18000", "1b000", "", false, GDRDistance, 7},
			{p + "NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)", "", "1", "mlx5_1", false, GDRNoModule, -1},
			{p + "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'", "", "0", "mlx5_0", false, "", -1},
			{p + "NET/IB : GPU Direct RDMA Enabled for HCA 3 'mlx5_3'", "", "3", "mlx5_3", true, "", -1},
			{p + "NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'", "", "0", "mlx5_0", true, "", -1},
			// NCCL 2.3 names the HCA by its device (net_ib.cu).
			{p + "NET/IB : GPU Direct RDMA Disabled for GPU 0 / HCA mlx4_0 (no module or not supported by GPU)", "0", "mlx4_0", "mlx4_0", false, "", -1},
		}
		for _, c := range cases {
			l := parseLog(t, c.line)
			if len(l.GDR) != 1 {
				t.Errorf("%s: %d decisions", c.line, len(l.GDR))
				continue
			}
			d := l.GDR[0]
			if d.GPU != c.gpu || d.HCA != c.hca || d.HCADev != c.dev || d.Enabled != c.enabled || d.Reason != c.reason || d.Distance != c.dist {
				t.Errorf("%s:\n got %+v", c.line, d)
			}
		}
	})
	t.Run("completion", func(t *testing.T) {
		cases := []struct {
			line                 string
			status, opcode, vend int
			length               int64
			dir, peer, lgid, rg  string
			hca                  string
		}{
			{w + "NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129", 12, 1, 129, 0, "", "", "", "", ""},
			{w + "NET/IB : Got completion from peer fe80::ba59:9f03:1:2%ib0<33397> with error 4, opcode 32611, len 32611, vendor err 81 (Send)", 4, 32611, 81, 32611, "Send", "fe80::ba59:9f03:1:2%ib0", "", "", ""},
			{w + "NET/IB : Got completion from peer 10.1.32.3<42519> with error 5, opcode 0, len 0, vendor err 249", 5, 0, 249, 0, "", "10.1.32.3", "", "", ""},
			{w + "NET/IB: Got completion from peer 192.168.3.5<53908> with status=12 opcode=129 len=1048576 vendor err 129 (Recv) localGid ::ffff:192.168.6.3 remoteGids::ffff:192.168.6.5 hca mlx5_10", 12, 129, 129, 1048576, "Recv", "192.168.3.5", "::ffff:192.168.6.3", "::ffff:192.168.6.5", "mlx5_10"},
			{w + "NET/IB: Got completion from peer 10.0.0.2<1234> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV_RDMA_WITH_IMM(129) vendor_err=129  localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0", 12, 129, 129, -1, "", "10.0.0.2", "::ffff:10.0.0.1", "::ffff:10.0.0.2", "mlx5_0"},
		}
		for _, c := range cases {
			l := parseLog(t, c.line)
			if len(l.Completions) != 1 {
				t.Errorf("%s: %d completions", c.line, len(l.Completions))
				continue
			}
			x := l.Completions[0]
			if x.Status != c.status || x.Opcode != c.opcode || x.VendorErr != c.vend || x.Len != c.length || x.Direction != c.dir ||
				x.PeerIP != c.peer || x.LocalGID != c.lgid || x.RemoteGID != c.rg || x.HCA != c.hca || x.Where != "transport/net_ib.cc:2244" {
				t.Errorf("%s:\n got %+v", c.line, x)
			}
		}
	})
	t.Run("setup", func(t *testing.T) {
		cases := []struct {
			line          string
			call, msg     string
			errno, gidIdx int
			dev, lgid, rg string
		}{
			{"h:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error Connection timed out", "ibv_modify_qp", "Connection timed out", -1, -1, "", "", ""},
			{"h:1:2 [0] misc/ibvwrap.cc:309 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 1, local GID fe80::1, remote GID fe80::2", "ibv_modify_qp", "Connection timed out", 110, 1, "mlx5_0:1", "fe80::1", "fe80::2"},
			{"h:1:2 [0] misc/ibvwrap.cc:309 NCCL WARN Call to ibv_modify_qp failed with 61 No data available, on dev rocep1s0f0:1, curr state INIT, next state RTR, local GID index 3, local GID ::, remote GID ::ffff:10.0.0.2", "ibv_modify_qp", "No data available", 61, 3, "rocep1s0f0:1", "::", "::ffff:10.0.0.2"},
			{"h:1:2 [0] transport/net_ib.cc:100 NCCL WARN NET/IB: read failed in ncclIbRoceGetVersionNum: Invalid argument", "ncclIbRoceGetVersionNum", "read failed: Invalid argument", -1, -1, "", "", ""},
		}
		for _, c := range cases {
			l := parseLog(t, c.line)
			if len(l.Setup) != 1 {
				t.Errorf("%s: %d setup errors", c.line, len(l.Setup))
				continue
			}
			s := l.Setup[0]
			if s.Call != c.call || s.Message != c.msg || s.Errno != c.errno || s.GIDIndex != c.gidIdx || s.Dev != c.dev || s.LocalGID != c.lgid || s.RemoteGID != c.rg {
				t.Errorf("%s:\n got %+v", c.line, s)
			}
		}
		if u := parseLog(t, cases[1].line).GIDUses(); len(u) != 1 || u[0].Index != 1 || u[0].Device != "mlx5_0" || u[0].Host != "h" {
			t.Errorf("GID use from a failed modify_qp = %+v", u)
		}
	})
	t.Run("channels", func(t *testing.T) {
		cases := []struct {
			line, kind, net string
			recv, gdr       bool
		}{
			{p + "Ring 00 : 6 -> 2 [send] via NET/IB/0", "NET", "IB", false, false},
			{p + "Ring 00 : 15[41000] -> 0[1b000] [receive] via NET/IB/0", "NET", "IB", true, false},
			{p + "Channel 00 : 0[1a000] -> 1[1a000] [receive] via NET/IB/0/GDRDMA", "NET", "IB", true, true},
			{p + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0", "NET", "IB", false, false},
			{p + "Channel 01/1 : 3[3] -> 4[0] [send] via NET/IB/1(2)/GDRDMA/Shared", "NET", "IB", false, true},
			{p + "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA(PCI)/Shared", "NET", "IB", true, true},
			{p + "Channel 02/0 : 8[0] -> 0[0] [receive] via NET/IBext_v8/2/GDRDMA", "NET", "IBext_v8", true, true},
			{p + "Channel 03/0 : 2[0] -> 3[0] [send] via NET/Socket/3", "NET", "Socket", false, false},
			{p + "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read", "P2P", "IPC", false, false},
			{p + "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", "P2P", "CUMEM", false, false},
			{p + "Ring 00 : 0[1b000] -> 7[41000] via direct shared memory", "SHM", "", false, false},
			{p + "Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct", "SHM", "", false, false},
			{p + "CollNet 00/0 : 0 [receive] via COLLNET/IBext/0/GDRDMA", "COLLNET", "IBext", true, true},
		}
		for _, c := range cases {
			l := parseLog(t, c.line)
			if len(l.Channels) != 1 {
				t.Errorf("%s: %d channel stats", c.line, len(l.Channels))
				continue
			}
			s := l.Channels[0]
			if s.Kind != c.kind || s.Net != c.net || (s.Recv == 1) != c.recv || (s.GDR == 1) != c.gdr {
				t.Errorf("%s:\n got %+v", c.line, s)
			}
		}
	})
	t.Run("misc", func(t *testing.T) {
		l := parseLog(t, strings.Join([]string{
			p + "NCCL version 2.26.2+cuda12.4",
			p + "NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.",
			p + "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file",
			p + "NET/Plugin : Plugin load returned 11 : failed to initialize net plugin",
			p + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0>",
			p + "NET/IB : Made virtual device [0] name=mlx5_0+mlx5_1 speed=800000 ndevs=2 rail=0 plane=0",
			p + "Using network IBext_v8",
			p + "Using non-device net plugin version 0",
			p + "NCCL_IB_TC set by environment to 106.",
			p + "NCCL_IB_HCA set to =mlx5_0,mlx5_1",
			p + "comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
			p + "Connected all rings, use ring PXN 1 GDR 1",
			"h1:11:13 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
			"h1:11:13 [0] init.cc:100 NCCL WARN Cuda failure 'out of memory'",
			"h1:11:13 [0] NCCL INFO init.cc:101 -> 1",
		}, "\n"))
		if len(l.Versions) != 1 || l.Versions[0].Version != "2.26.2+cuda12.4" {
			t.Errorf("versions %+v", l.Versions)
		}
		if l.Plugins.Count != 1 || l.PluginFailures.Count != 1 {
			t.Errorf("plugin lines %d failures %d, want 1 and 1 (a missing libnccl-net.so is normal and, like the non-device line, names no plugin)", l.Plugins.Count, l.PluginFailures.Count)
		}
		if len(l.IBDevices) != 2 || l.IBDevices[1].Name != "mlx5_1" || l.IBDevices[1].LinkLayer != "IB" || l.IBDevices[1].Index != 1 || l.RoCE() {
			t.Errorf("IB devices %+v", l.IBDevices)
		}
		// The merged device's 800 Gb/s is the sum of its two ports.
		if s := l.LinkSpeeds(); len(s) != 2 || s[0].Rate != 400*unit.Gbps || s[0].Device != "mlx5_0" || s[1].Device != "mlx5_1" || s[1].Evidence.Line != 6 {
			t.Errorf("speeds %+v", s)
		}
		if len(l.Networks) != 1 || l.Networks[0].Name != "IBext_v8" {
			t.Errorf("networks %+v", l.Networks)
		}
		if e := l.EnvValues("NCCL_IB_TC"); len(e) != 1 || e[0].Value != "106" {
			t.Errorf("NCCL_IB_TC %+v", e)
		}
		if e := l.EnvValues("NCCL_IB_HCA"); len(e) != 1 || e[0].Value != "=mlx5_0,mlx5_1" {
			t.Errorf("NCCL_IB_HCA %+v", e)
		}
		if l.Comm != (CommInfo{Ranks: 16, Nodes: 2, LocalRanks: 8, Evidence: l.Comm.Evidence}) {
			t.Errorf("comm %+v", l.Comm)
		}
		if len(l.Rings) != 1 || l.Rings[0].GDR != 1 || l.Rings[0].PXN != 1 || !l.GDRReport().On() || l.GDRReport().Off() {
			t.Errorf("rings %+v", l.Rings)
		}
		if l.VerbsMissing.Count != 1 || l.WarningCount != 1 || l.Warnings[0].Where != "init.cc:100" || l.Warnings[0].Result != 1 {
			t.Errorf("verbs %d warnings %+v", l.VerbsMissing.Count, l.Warnings)
		}
	})
}

// A synthetic two-host failure: the WARN's return-code lines must attach to
// the WARN of their own thread even when another host's lines interleave.
func TestNCCLPropagationGroups(t *testing.T) {
	l := parseLog(t, strings.Join([]string{
		"a:1:2 [0] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<1> with status=12 opcode=0 len=0 vendor err 129 (Recv)",
		"b:3:4 [1] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer 10.0.0.1<2> with status=5 opcode=0 len=0 vendor err 249 (Send)",
		"b:3:4 [1] NCCL INFO transport/net.cc:1302 -> 3",
		"a:1:2 [0] NCCL INFO transport/net.cc:1302 -> 6",
		"a:1:2 [0] NCCL INFO proxy.cc:698 -> 2",
		"a:1:9 [0] NCCL INFO proxy.cc:698 -> 7 [Progress Thread]",
	}, "\n"))
	if len(l.Completions) != 2 {
		t.Fatalf("completions %d", len(l.Completions))
	}
	if l.Completions[0].Result != 6 || l.Completions[1].Result != 3 {
		t.Errorf("results %d, %d; want 6 (host a) and 3 (host b)", l.Completions[0].Result, l.Completions[1].Result)
	}
	if l.Lines() != 6 {
		t.Errorf("lines = %d, want 6", l.Lines())
	}
}

// Synthetic: the prefix forms of formats.md §1 and what launchers add.
func TestNCCLOrigins(t *testing.T) {
	cases := []struct {
		pre      string
		host     string
		pid, tid int
		dev      int
		loc      string
	}{
		{"node-1:32729:33061 [3] ", "node-1", 32729, 33061, 3, ""},
		{":22901:22901 [0] ", "", 22901, 22901, 0, ""},
		{"<cluster_name>:924:924 [5] ", "<cluster_name>", 924, 924, 5, ""},
		{" [0] ", "", -1, -1, 0, ""},
		{"", "", -1, -1, -1, ""},
		{"kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 ", "kp-ddp-worker-0", 3468, 3905, 4, "ib_plugin.c:1615"},
		{"2024-05-01 12:00:00,123 gpu7.example.com:1:2 [7] ", "gpu7.example.com", 1, 2, 7, ""},
		{"0: gpu7:1:2 [7] ", "gpu7", 1, 2, 7, ""},
		{"[default0]:gpu7:1:2 [7] ", "gpu7", 1, 2, 7, ""},
		{"v100-gpu-1:14926:14926 [0] misc/ibvwrap.cc:63 ", "v100-gpu-1", 14926, 14926, 0, "misc/ibvwrap.cc:63"},
	}
	for _, c := range cases {
		o := parseOrigin(c.pre)
		if o.host != c.host || o.pid != c.pid || o.tid != c.tid || o.dev != c.dev || o.loc != c.loc {
			t.Errorf("parseOrigin(%q) = %+v", c.pre, o)
		}
	}
}

// baseLog is a synthetic multi-host NCCL 2.2x log used to check that the
// ways logs get mangled on their way to a bug report change nothing that is
// extracted.
var baseLog = []string{
	"hostA:100:100 [0] NCCL INFO NCCL version 2.23.4+cuda12.6",
	"hostA:100:110 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
	"hostB:200:210 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.2<0>",
	"hostA:100:110 [0] NCCL INFO Using network IB",
	"hostB:200:210 [1] NCCL INFO Using network IB",
	"hostA:100:110 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.",
	"hostB:200:210 [1] NCCL INFO NCCL_IB_GID_INDEX set by environment to 1.",
	"hostA:100:110 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0",
	"hostA:100:111 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/IB/0/GDRDMA",
	"hostB:200:211 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [receive] via NET/IB/0",
	"hostA:100:111 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
	"hostB:200:211 [1] NCCL INFO Connected all rings, use ring PXN 0 GDR 0",
	"hostB:200:212 [1] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer 10.0.0.1<555> with status=12 opcode=129 len=1048576 vendor err 129 (Recv) localGid fe80::2 remoteGids::ffff:10.0.0.1 hca mlx5_0",
	"hostB:200:212 [1] NCCL INFO transport/net.cc:1302 -> 6",
	"hostB:200:212 [1] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer 10.0.0.1<555> with status=5 opcode=0 len=0 vendor err 249 (Send) localGid fe80::2 remoteGids::ffff:10.0.0.1 hca mlx5_0",
}

// summary prints what the parser extracted, without line numbers or text.
func summary(l *NCCLLog) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lines=%d hosts=%v\n", l.Lines(), l.Hosts())
	for _, v := range l.Versions {
		fmt.Fprintf(&b, "version %s %s\n", v.Host, v.Version)
	}
	for _, d := range l.IBDevices {
		fmt.Fprintf(&b, "ibdev %s %d %s:%d/%s\n", d.Host, d.Index, d.Name, d.Port, d.LinkLayer)
	}
	for _, n := range l.Networks {
		fmt.Fprintf(&b, "net %s %s\n", n.Host, n.Name)
	}
	for _, e := range l.Env {
		fmt.Fprintf(&b, "env %s %s=%s %v\n", e.Host, e.Name, e.Value, !e.Echoed())
	}
	for _, c := range l.Channels {
		fmt.Fprintf(&b, "chan %s %s/%s n=%d recv=%d gdr=%d\n", c.Host, c.Kind, c.Net, c.Count, c.Recv, c.GDR)
	}
	for _, r := range l.Rings {
		fmt.Fprintf(&b, "ring %s gdr=%d\n", r.Host, r.GDR)
	}
	for _, c := range l.Completions {
		fmt.Fprintf(&b, "comp %s %d st=%d v=%d %s %s %s->%s %s res=%d\n", c.Host, c.PID, c.Status, c.VendorErr, c.Direction, c.Peer, c.LocalGID, c.RemoteGID, c.HCA, c.Result)
	}
	fmt.Fprintf(&b, "comm %d/%d/%d warn=%d\n", l.Comm.Ranks, l.Comm.Nodes, l.Comm.LocalRanks, l.WarningCount)
	return b.String()
}

// TestNCCLLogMangled checks robustness on synthetic variants of baseLog:
// CRLF, ANSI colours, Markdown quoting and fences, Open MPI tags, reordered
// (interleaved) lines, and a truncated last line.
func TestNCCLLogMangled(t *testing.T) {
	want := summary(parseLog(t, strings.Join(baseLog, "\n")))
	if !strings.Contains(want, "comp hostB 200 st=12 v=129 Recv 10.0.0.1<555> fe80::2->::ffff:10.0.0.1 mlx5_0 res=6") ||
		!strings.Contains(want, "env hostB NCCL_IB_GID_INDEX=1") || !strings.Contains(want, "chan hostB NET/IB n=1 recv=1 gdr=0") {
		t.Fatalf("base summary wrong:\n%s", want)
	}
	mangle := map[string]func([]string) string{
		"crlf": func(ls []string) string { return strings.Join(ls, "\r\n") + "\r\n" },
		"ansi": func(ls []string) string {
			out := make([]string, len(ls))
			for i, l := range ls {
				out[i] = strings.Replace(strings.Replace(l, "NCCL INFO", "\x1b[32mNCCL INFO\x1b[0m", 1), "NCCL WARN", "\x1b[1;31mNCCL WARN\x1b[0m", 1)
			}
			return strings.Join(out, "\n")
		},
		"markdown": func(ls []string) string {
			return "Here is my log:\n\n```\n" + strings.Join(ls, "\n") + "\n```\n"
		},
		"quoted": func(ls []string) string { return "> " + strings.Join(ls, "\n> ") },
		"mpi-tags": func(ls []string) string {
			out := make([]string, len(ls))
			for i, l := range ls {
				out[i] = fmt.Sprintf("[1,%d]<stdout>:%s", i%2, l)
			}
			return strings.Join(out, "\n")
		},
		"srun-labels": func(ls []string) string {
			out := make([]string, len(ls))
			for i, l := range ls {
				out[i] = fmt.Sprintf("%d: %s", i%2, l)
			}
			return strings.Join(out, "\n")
		},
	}
	for name, f := range mangle {
		if got := summary(parseLog(t, f(baseLog))); got != want {
			t.Errorf("%s: extracted\n%s\nwant\n%s", name, got, want)
		}
	}
	// Interleaving: hostB's lines first, then hostA's; the per-host facts
	// are the same, only the first-seen order of hosts changes.
	var a, b []string
	for _, l := range baseLog {
		if strings.HasPrefix(l, "hostA") {
			a = append(a, l)
		} else {
			b = append(b, l)
		}
	}
	il := parseLog(t, strings.Join(append(b, a...), "\n"))
	if h := il.Hosts(); len(h) != 2 || h[0] != "hostB" || len(il.Completions) != 2 || il.Completions[0].Result != 6 || len(il.Env) != 2 {
		t.Errorf("interleaved: %s", summary(il))
	}
	// Two processes' writes run together on one line: the first message is
	// kept as far as it parses, and the merged text is not read as a ring.
	merged := parseLog(t, "hostA:100:111 [0] NCCL INFO Channel 00/02 : hostB:200:211 [1] NCCL INFO Using network IB")
	if merged.Comm.Ranks != 0 || merged.NChannels != 0 || merged.Lines() != 1 {
		t.Errorf("merged line: ranks %d channels %d lines %d", merged.Comm.Ranks, merged.NChannels, merged.Lines())
	}
	// Blank and stripped host prefixes.
	blank := strings.Join([]string{
		":22901:22901 [0] NCCL INFO NET/IB : Using [0]mlx5_2:1/RoCE ; OOB br0:10.1.1.1<0>",
		" [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.",
		"NCCL INFO Using network IB",
	}, "\n")
	bl := parseLog(t, blank)
	// The unnamed host is known by the address it bootstraps on.
	if len(bl.IBDevices) != 1 || bl.IBDevices[0].Host != "10.1.1.1" || len(bl.Hosts()) != 1 || len(bl.Networks) != 1 || bl.Lines() != 3 {
		t.Errorf("blank hosts: %s", summary(bl))
	}
	// A truncated last line keeps what it has and never panics.
	last := baseLog[len(baseLog)-1]
	for cut := 1; cut < len(last); cut += 7 {
		lines := append(append([]string(nil), baseLog[:len(baseLog)-1]...), last[:cut])
		parseLog(t, strings.Join(lines, "\n"))
	}
}

// TestNCCLLogBounded feeds many distinct lines and checks that what is kept
// stays capped while the counts cover everything.
func TestNCCLLogBounded(t *testing.T) {
	p := NewNCCLLogParser("synthetic-bounded").(*NCCLLog)
	const n = 3 * maxDistinct
	for i := range n {
		p.Feed(Line{Num: i + 1, Text: fmt.Sprintf("host%d:%d:%d [0] transport/net_ib.cc:1 NCCL WARN NET/IB: Got completion from peer 10.0.%d.%d<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)", i, i, i, i/256%256, i%256, i)})
		p.Feed(Line{Num: i + 1, Text: fmt.Sprintf("host%d:%d:%d [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to %d.", i, i, i, i)})
		p.Feed(Line{Num: i + 1, Text: fmt.Sprintf("host%d:%d:%d [0] some.cc:1 NCCL WARN unexpected %d", i, i, i, i)})
	}
	if p.CompletionCount != n || len(p.Completions) > maxDistinct || p.WarningCount != n || len(p.Warnings) > maxKept {
		t.Errorf("completions %d/%d warnings %d/%d", len(p.Completions), p.CompletionCount, len(p.Warnings), p.WarningCount)
	}
	if len(p.Env) > maxDistinct || len(p.hostList) > maxDistinct || len(p.seen) > 4*maxDistinct || len(p.lastWarn) > maxDistinct {
		t.Errorf("env %d hosts %d seen %d lastWarn %d exceed their caps", len(p.Env), len(p.hostList), len(p.seen), len(p.lastWarn))
	}
}

// NCCL_IB_GID_INDEX applies to every device NCCL uses on the host: a node
// with two NICs has two GID users, each checked against its own GID table
// (it was one user with no device, "device not named"). SYNTHETIC lines in
// NCCL 2.2x's format.
func TestGIDIndexPerDevice(t *testing.T) {
	l := parseLog(t, `node0:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.
node0:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>
node1:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.
`)
	var got []string
	for _, u := range l.GIDUses() {
		got = append(got, fmt.Sprintf("%s %s %d", u.Host, u.Device, u.Index))
	}
	if want := []string{"node0 mlx5_0 3", "node0 mlx5_1 3", "node1  3"}; !slices.Equal(got, want) {
		t.Errorf("GID uses %q, want %q", got, want)
	}
}

// The communicator's init lines name each rank's GPU by busId, which
// lspci's address matches (NVIDIA/nccl#1453, rank-tagged lines).
func TestNCCLRankGPUs(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-rank-tag-tuning-algo-proto-init-timings-nccl1453.txt")
	if len(l.RankGPUs) == 0 {
		t.Fatal("no rank GPUs")
	}
	g := l.RankGPUs[0]
	if g.Host != "h100clust-worker-1" || g.Rank != 0 || g.CudaDev != 0 || g.BusID != "a4000" || g.Evidence.Line != 7 {
		t.Fatalf("%+v", g)
	}
}

// Both hosts of nccl-tests#321 use Tencent Cloud's IBext build, whose
// network is "NCCL RDMA Plugin v6": RDMA, with no foreign plugin.
func TestTransportsRenamedIBext(t *testing.T) {
	l := ncclLog(t, "nccl-tests/alltoall-2.26.5-h20-2vm-tencent-ibext-plugin-renamed-network-nccltests321.txt")
	ts := l.Transports()
	if len(ts) != 2 {
		t.Fatalf("transports %+v", ts)
	}
	for _, h := range ts {
		if !h.RDMA || h.Socket || h.Plugin != "" {
			t.Errorf("%s: %+v, want RDMA only", h.Host, h)
		}
	}
	if !l.IBNet("NCCL RDMA Plugin v6") || l.IBNet("Socket") || l.IBNet("AWS Libfabric") {
		t.Error("IBNet")
	}
}

// The heartbeat monitor's line names the rank and how long the watchdog
// made no progress.
func TestParseWatchdogStuck(t *testing.T) {
	for _, c := range []struct {
		in         string
		rank, secs int
		ok         bool
	}{
		{"[rank7]:[E626 05:14:36.393067540 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 7] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress", 7, 480, true},
		{"ProcessGroupNCCL's watchdog got stuck for 600 seconds without making progress", -1, 600, true},
		{"ProcessGroupNCCL's watchdog got stuck for many seconds", -1, -1, false},
	} {
		st, ok := parseWatchdogStuck(c.in)
		if ok != c.ok || ok && (st.Rank != c.rank || st.Seconds != c.secs) {
			t.Errorf("%q: %+v %v", c.in, st, ok)
		}
	}
}

// A WARN's return codes reach it past the allocator's free line, and
// without pid:tid the device keeps ranks' chains apart (SYNTHETIC lines in
// RCCL's format, as ROCm/rccl#2188 printed them).
func TestWarnChainPastFreeWithoutPID(t *testing.T) {
	res := nicReadText(t, "x", "node [1] transport/p2p.cc:256 NCCL WARN hipIpcGetMemHandle failed : invalid argument\n"+
		"node [1] NCCL INFO ncclCudaFree: Memory used = 34342400 on device = 1\n"+
		"node [0] NCCL INFO transport.cc:47 -> 3\n"+
		"node [1] NCCL INFO transport/p2p.cc:709 -> 1\n")
	l := res.Artifacts[0].(*NCCLLog)
	if len(l.Warnings) != 1 || l.Warnings[0].Result != 1 || len(l.Warnings[0].Chain) != 1 {
		t.Fatalf("warnings %+v; want result 1 through p2p.cc:709 only", l.Warnings)
	}
}

// A wrapped watchdog line keeps its WorkNCCL fields; how long it ran is
// on the next line, unread.
func TestParseWatchdogTimeoutWrapped(t *testing.T) {
	tm, ok := parseWatchdogTimeout("ed with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=112,")
	if !ok || tm.Rank != 2 || tm.SeqNum != 4 || tm.OpType != "BROADCAST" || tm.NumelIn != 112 || tm.RanMS != -1 || tm.TimeoutMS != -1 {
		t.Errorf("%+v %v", tm, ok)
	}
	if _, ok := parseWatchdogTimeout("Watchdog caught collective operation timeout: WorkNCCL("); ok {
		t.Error("a line with no field read as a timeout")
	}
}

// PyTorch's own "[rank13]:" tag names the job-wide rank; old PyTorch's
// watchdog line starts "[Rank 5] Watchdog ...", with the rank within the
// process group, which is no job-wide rank. The prefix's process group is
// read too. Synthetic lines in PyTorch's forms.
func TestWatchdogTimeoutRanksAndGroup(t *testing.T) {
	l := parseLog(t, "[Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800100 milliseconds before timing out.\n"+
		"[rank13]:[E218 04:54:22.864467604 ProcessGroupNCCL.cpp:616] [PG ID 11 PG GUID 119 Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=216, OpType=ALLTOALL_BASE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600045 milliseconds before timing out.\n")
	if len(l.Timeouts) != 2 {
		t.Fatalf("timeouts %+v", l.Timeouts)
	}
	if a := l.Timeouts[0]; a.Rank != 5 || a.Global != -1 || a.PG != "" || a.GUID != "" {
		t.Errorf("old form: %+v", a)
	}
	if b := l.Timeouts[1]; b.Rank != 1 || b.Global != 13 || b.PG != "11" || b.GUID != "119" {
		t.Errorf("2.4 form: %+v", b)
	}
}

// NCCL 2.30.7 prints the function after every source location: the WARN's
// ("allocator.cc:229 (ncclSpaceAlloc) NCCL WARN") and the return codes'
// ("dev_runtime.cc:602 (symMemoryObtain) -> 3"), NVIDIA/nccl#2331. The
// location and the chain read as older releases print them.
func TestNCCLFunctionAfterLocation(t *testing.T) {
	for _, pre := range []string{"h1:11:12 [0] ", "[0] "} {
		l := parseLog(t, pre+"nccl/src/allocator.cc:229 (ncclSpaceAlloc) NCCL WARN Allocation failed. No suitable space found to accommodate size=0x2171600000 within limit=0x2d00000000\n"+
			pre+"NCCL INFO nccl/src/dev_runtime.cc:602 (symMemoryObtain) -> 3\n"+
			pre+"NCCL INFO nccl/src/group.cc:79 (ncclAsyncJobMain) -> 3 [Async thread]\n")
		if len(l.Warnings) != 1 {
			t.Fatalf("%q: warnings %+v", pre, l.Warnings)
		}
		w := l.Warnings[0]
		if w.Where != "nccl/src/allocator.cc:229" || w.Result != 3 || !slices.Equal(w.Chain, []string{"nccl/src/dev_runtime.cc:602", "nccl/src/group.cc:79"}) {
			t.Errorf("%q: where %q result %d chain %q", pre, w.Where, w.Result, w.Chain)
		}
	}
	if got := cutFuncName("h:1:2 [0] (ncclSpaceAlloc) "); got != "h:1:2 [0] (ncclSpaceAlloc) " {
		t.Errorf("a function without a location was cut: %q", got)
	}
	// A return code with no WARN before it reads as the older release's
	// line, message and all.
	old := parseLog(t, "h1:11:12 [0] NCCL INFO misc/socket.cc:505 -> 2 (Operation now in progress)\n")
	cur := parseLog(t, "h1:11:12 [0] NCCL INFO misc/socket.cc:505 (ncclSocketConnectCheck) -> 2 (Operation now in progress)\n")
	if len(old.Warnings) != 1 || len(cur.Warnings) != 1 || cur.Warnings[0].Message != old.Warnings[0].Message || cur.Warnings[0].Where != old.Warnings[0].Where {
		t.Errorf("2.30.7's return code %+v, older %+v", cur.Warnings, old.Warnings)
	}
	// Another program's "file:line (func)" before NCCL's marker is no
	// NCCL location: the function is not cut off it.
	for _, w := range parseLog(t, "Traceback: foo.py:12 (main) NCCL WARN x\n").Warnings {
		if w.Where == "foo.py:12" {
			t.Errorf("a user line's location read as NCCL's: %+v", w)
		}
	}
}
