package ingest

import (
	"math"
	"path/filepath"
	"testing"
)

// corpusDir holds real artifacts copied from /work/shared/corpus with their
// "# source:" and "# what:" headers.
const corpusDir = "../../testdata/corpus"

// readCorpus parses one corpus file and returns its artifacts by kind.
func readCorpus(t testing.TB, rel string) map[Kind]Artifact {
	t.Helper()
	res := readFile(t, filepath.Join(corpusDir, rel), rel)
	out := map[Kind]Artifact{}
	for _, a := range res.Artifacts {
		out[a.Kind()] = a
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// corpusAs reads a corpus file and returns its artifact of kind k, or
// fails the test.
func corpusAs[T Artifact](t testing.TB, rel string, k Kind) T {
	t.Helper()
	a, ok := readCorpus(t, rel)[k].(T)
	if !ok {
		t.Fatalf("%s: not read as %v", rel, k)
	}
	return a
}

func ncclLog(t *testing.T, rel string) *NCCLLog {
	t.Helper()
	return corpusAs[*NCCLLog](t, rel, KindNCCLLog)
}

func ncclTests(t *testing.T, rel string) *NCCLTests {
	t.Helper()
	return corpusAs[*NCCLTests](t, rel, KindNCCLTests)
}

func TestCorpusGDRNoModule(t *testing.T) {
	l := ncclLog(t, "nccl-log/gdr-disabled-no-module-netib-channels-issue899.txt")
	if got := len(l.GDR); got != 3 {
		t.Fatalf("GDR decisions = %d, want 3", got)
	}
	for i, d := range l.GDR {
		want := []string{"mlx5_1", "mlx5_2", "mlx5_3"}[i]
		if d.Enabled || d.Reason != GDRNoModule || d.HCADev != want || d.Net != "IB" || d.Host != "21346d5cefce" {
			t.Errorf("GDR[%d] = %+v, want disabled (no module) for %s on 21346d5cefce", i, d, want)
		}
	}
	g := l.GDRReport()
	if !g.Off() || g.On() || len(g.ChannelsOff) != 2 {
		t.Errorf("GDRReport off=%v on=%v channelsOff=%d, want off on both hosts' NET channels", g.Off(), g.On(), len(g.ChannelsOff))
	}
	var recv, send, gdr int
	for _, c := range l.Channels {
		if c.Kind != "NET" || c.Net != "IB" {
			t.Errorf("channel %+v, want NET/IB", c)
		}
		recv, send, gdr = recv+c.Recv, send+c.Send, gdr+c.GDR
	}
	if recv != 8 || send != 3 || gdr != 0 {
		t.Errorf("NET/IB channels recv=%d send=%d gdr=%d, want 8, 3, 0", recv, send, gdr)
	}
	if h := l.Hosts(); len(h) != 2 || h[0] != "21346d5cefce" || h[1] != "6a5a91752e39" {
		t.Errorf("hosts = %v", h)
	}
}

func TestCorpusGDRDistance(t *testing.T) {
	l := ncclLog(t, "nccl-log/gdr-enabled-disabled-by-distance-dle383.txt")
	g := l.GDRReport()
	if len(g.Enabled) != 2 || len(g.Disabled) != 2 {
		t.Fatalf("enabled %d disabled %d, want 2 and 2 (distinct per host/GPU)", len(g.Enabled), len(g.Disabled))
	}
	for _, d := range g.Enabled {
		if d.Distance != 4 || d.Limit != 4 || d.HCA != "0" || (d.GPU != "86000" && d.GPU != "af000") {
			t.Errorf("enabled %+v, want GPU 86000/af000 at distance 4 <= 4", d)
		}
	}
	for _, d := range g.Disabled {
		if d.Reason != GDRDistance || d.Distance != 5 || d.Limit != 4 || (d.GPU != "18000" && d.GPU != "3b000") {
			t.Errorf("disabled %+v, want GPU 18000/3b000 by distance 5 > 4", d)
		}
	}
	if e := l.EnvValues("NCCL_NET_GDR_LEVEL"); len(e) != 1 || e[0].Value != "PHB" || e[0].Host != "node-1" {
		t.Errorf("NCCL_NET_GDR_LEVEL = %+v, want PHB on node-1", e)
	}
}

func TestCorpusRetryExceeded(t *testing.T) {
	l := ncclLog(t, "nccl-log/roce-err12-vendor129-recv-gid-issue1405.txt")
	if l.CompletionCount != 3 || len(l.Completions) != 3 {
		t.Fatalf("completions = %d/%d, want 3", len(l.Completions), l.CompletionCount)
	}
	want := []struct {
		line           int
		port, lgid, rg string
		opcode         int
	}{
		{4, "54862", "fd00:1148:9000:5000:4:200:3:ff22", "fd00:1148:9000:5000:4:200:3:ff1f", 0},
		{9, "54862", "fd00:1148:9000:5000:4:200:3:ff21", "fd00:1148:9000:5000:4:200:3:ff20", 32616},
		{14, "49892", "fd00:1148:9000:5000:4:200:3:ff22", "fd00:1148:9000:5000:4:200:3:ff1f", 32616},
	}
	conns := map[string]bool{}
	for i, c := range l.Completions {
		w := want[i]
		if c.Status != 12 || c.VendorErr != 129 || c.Direction != "Recv" || c.Len != 0 || c.Opcode != w.opcode ||
			c.PeerIP != "10.216.210.236" || c.Peer != "10.216.210.236<"+w.port+">" ||
			c.LocalGID != w.lgid || c.RemoteGID != w.rg || c.Host != "kp-ddp-worker-0" || c.PID != 3468 ||
			c.Where != "ib_plugin.c:1615" || c.Result != 6 || c.Evidence.Line != w.line {
			t.Errorf("completion %d = %+v, want %+v", i, c, w)
		}
		conns[c.Conn()] = true
	}
	if len(conns) != 3 {
		t.Errorf("distinct connections = %d, want 3", len(conns))
	}
	if l.WarningCount != 0 {
		t.Errorf("other warnings = %d (%+v), want 0: the header quotes NCCL WARN but is not a log line", l.WarningCount, l.Warnings)
	}
}

func TestCorpusIBext(t *testing.T) {
	l := ncclLog(t, "nccl-log/roce-ibext-nccl2.10.3-init-llama162.txt")
	const host = "0b786920-f03b-48c3-9a25-3168b9d47ac9"
	if len(l.Networks) != 1 || l.Networks[0].Name != "IBext" || l.Networks[0].Host != host {
		t.Errorf("networks = %+v, want IBext", l.Networks)
	}
	if len(l.IBDevices) != 1 || l.IBDevices[0] != (NetDevice{Host: host, Name: "mlx5_3", Port: 1, LinkLayer: "RoCE", Evidence: l.IBDevices[0].Evidence}) {
		t.Errorf("IB devices = %+v, want mlx5_3:1/RoCE", l.IBDevices)
	}
	if len(l.Versions) != 1 || l.Versions[0].Version != "2.10.3+cuda11.3" {
		t.Errorf("versions = %+v", l.Versions)
	}
	if a, known := l.VersionAtLeast(2, 21); a || !known {
		t.Errorf("VersionAtLeast(2,21) = %v, %v; want false, true", a, known)
	}
	if l.Plugins.Count != 5 || !l.RoCE() {
		t.Errorf("plugin lines = %d, RoCE = %v; want 5, true", l.Plugins.Count, l.RoCE())
	}
}

func TestCorpusRings257(t *testing.T) {
	l := ncclLog(t, "nccl-log/roce-nccl2.5.7-rings-trees-gdr-partial-issue392.txt")
	if len(l.Versions) != 1 || l.Versions[0].Version != "2.5.7+cuda10.0" {
		t.Errorf("versions = %+v", l.Versions)
	}
	if len(l.IBDevices) != 1 || l.IBDevices[0].Name != "mlx5_0" || l.IBDevices[0].LinkLayer != "RoCE" || l.IBDevices[0].Host != "10.137.141.16" {
		t.Errorf("IB devices = %+v, want mlx5_0 RoCE on the host known by its bootstrap address (the prefix is stripped)", l.IBDevices)
	}
	uses := l.GIDUses()
	if len(uses) != 1 || uses[0].Index != 3 || uses[0].Device != "mlx5_0" {
		t.Errorf("GID uses = %+v, want index 3 on mlx5_0", uses)
	}
	if l.NChannels != 2 || l.Comm.Ranks != 16 {
		t.Errorf("channels %d ranks %d, want 2 and 16", l.NChannels, l.Comm.Ranks)
	}
	kinds := map[string]ChannelStat{}
	for _, c := range l.Channels {
		kinds[c.Kind+"/"+c.Net] = c
	}
	if c := kinds["NET/IB"]; c.Count != 2 || c.Recv != 2 || c.GDR != 0 {
		t.Errorf("NET/IB = %+v, want 2 receive lines without GDRDMA", c)
	}
	if kinds["P2P/IPC"].Count != 2 || kinds["SHM/"].Count != 1 {
		t.Errorf("intra-node channels = %+v", kinds)
	}
	if !l.GDRReport().Off() {
		t.Error("GDR should read as off: the inter-node receive has no /GDRDMA")
	}
}

func TestCorpusSocketAWS(t *testing.T) {
	l := ncclLog(t, "nccl-log/socket-aws-ens3-no-ib-issue226.txt")
	if l.NoIBDevice.Count != 8 || len(l.NoIBDevice.Hosts) != 8 {
		t.Errorf("no-device lines = %d on %d hosts, want 8 on 8", l.NoIBDevice.Count, len(l.NoIBDevice.Hosts))
	}
	if len(l.SocketDevices) != 7 {
		t.Fatalf("socket devices = %d, want 7", len(l.SocketDevices))
	}
	for _, d := range l.SocketDevices {
		if d.Name != "ens3" || d.Addr == "" || d.LinkLayer != "" {
			t.Errorf("socket device %+v, want ens3 with an address", d)
		}
	}
	if len(l.IBDevices) != 0 || len(l.Hosts()) != 20 {
		t.Errorf("IB devices %d, hosts %d; want 0 and 20", len(l.IBDevices), len(l.Hosts()))
	}
	if len(l.SocketEvidence(10)) != 7 {
		t.Errorf("socket evidence = %d lines, want 7", len(l.SocketEvidence(10)))
	}
}

func TestCorpusCCIMOCAllReduce(t *testing.T) {
	arts := readCorpus(t, "nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt")
	l := arts[KindNCCLLog].(*NCCLLog)
	if len(l.Rings) != 1 || l.Rings[0].GDR != 0 || l.Rings[0].PXN != 0 {
		t.Errorf("ring summaries = %+v, want PXN 0 GDR 0", l.Rings)
	}
	if len(l.Networks) != 1 || l.Networks[0].Name != "IB" || len(l.IBDevices) != 1 || l.IBDevices[0].Name != "mlx5_5" {
		t.Errorf("network %+v devices %+v", l.Networks, l.IBDevices)
	}
	for name, want := range map[string]string{"NCCL_IB_HCA": "mlx5_5", "NCCL_IB_GID_INDEX": "3", "NCCL_ALGO": "RING", "NCCL_IB_DISABLE": "0", "NCCL_SOCKET_IFNAME": "eno7np0"} {
		if e := l.EnvValues(name); len(e) != 1 || e[0].Value != want || !e[0].Echoed() {
			t.Errorf("%s = %+v, want %q echoed", name, e, want)
		}
	}
	if l.Comm.Nodes != 2 || l.Comm.Ranks != 2 || l.Comm.LocalRanks != 1 {
		t.Errorf("comm = %+v, want 2 ranks on 2 nodes", l.Comm)
	}
	if g := l.GDRReport(); !g.Off() || g.On() {
		t.Error("GDR should be off (GDR 0, no /GDRDMA)")
	}
	if b := l.Bottlenecks(); len(b) != 1 || b[0].What != "GPUDirect RDMA off (GDR 0)" {
		t.Errorf("bottlenecks = %+v", b)
	}
	r := arts[KindNCCLTests].(*NCCLTests).Runs
	if len(r) != 1 {
		t.Fatalf("runs = %d", len(r))
	}
	run := r[0]
	if run.Collective != "all_reduce" || run.CollectiveFrom != FromColumns || run.NRanks() != 2 || len(run.Rows) != 13 {
		t.Errorf("run: coll %q from %q ranks %d rows %d; want all_reduce from columns, 2 ranks, 13 rows", run.Collective, run.CollectiveFrom, run.NRanks(), len(run.Rows))
	}
	first := run.Rows[0]
	if first.Size != 1073741824 || first.Count != 268435456 || first.Type != "float" || first.Redop != "sum" || first.Root != -1 ||
		first.Out != (TestHalf{Time: 71024, AlgBW: 15.12, BusBW: 15.12, Wrong: 0}) || first.In != (TestHalf{Time: 70967, AlgBW: 15.13, BusBW: 15.13, Wrong: 0}) {
		t.Errorf("first row = %+v", first)
	}
	p, ok := run.Plateau()
	if !ok || !near(p.BusBW, 15.025) || p.Max != 15.08 || p.Min != 14.99 || p.MinSize != 7516192768 || p.MaxSize != 26843545600 || len(p.Rows) != 10 {
		t.Errorf("plateau = %v, max %v, min %v, %d rows %d-%d (ok %v); want median 15.025, max 15.08, min 14.99 over 10 rows 7-25 GiB",
			p.BusBW, p.Max, p.Min, len(p.Rows), p.MinSize, p.MaxSize, ok)
	}
	if run.AvgBusBW != 15.0418 || run.OutOfBounds != 0 {
		t.Errorf("avg %v oob %v", run.AvgBusBW, run.OutOfBounds)
	}
	hosts, counts := run.RanksPerHost()
	if len(hosts) != 2 || counts[0] != 1 || run.Ranks[0].GPU != "NVIDIA H100 80GB HBM3" || run.Ranks[0].BusID != "0000:06:00" {
		t.Errorf("ranks per host %v %v, rank 0 %+v", hosts, counts, run.Ranks[0])
	}
}

func TestCorpusCCIMOCSendRecv(t *testing.T) {
	arts := readCorpus(t, "nccl-tests/sendrecv-h100-1gpu-roce400g-14GBps-ccimoc.txt")
	run := arts[KindNCCLTests].(*NCCLTests).Runs[0]
	if run.Collective != "sendrecv" || len(run.Rows) != 13 {
		t.Errorf("coll %q rows %d, want sendrecv from the N/A in-place #wrong", run.Collective, len(run.Rows))
	}
	for _, row := range run.Rows {
		if row.Out.Wrong != 0 || row.In.Wrong != -1 {
			t.Errorf("row %d #wrong out %d in %d, want 0 and N/A", row.Size, row.Out.Wrong, row.In.Wrong)
		}
	}
	if p, _ := run.Plateau(); !near(p.BusBW, 13.97) || p.Max != 13.98 {
		t.Errorf("plateau = %v max %v, want 13.97 and 13.98", p.BusBW, p.Max)
	}
	l := arts[KindNCCLLog].(*NCCLLog)
	if g := l.GDRReport(); !g.Off() || len(g.ChannelsOff) != 1 || len(g.RingsOff) != 0 {
		t.Errorf("GDR = %+v, want off from NET/IB/1/Shared receives", g)
	}
}

func TestCorpusCCIMOC4GPU(t *testing.T) {
	arts := readCorpus(t, "nccl-tests/sendrecv-h100-4gpu-shared-1nic-5.8GBps-ccimoc.txt")
	l := arts[KindNCCLLog].(*NCCLLog)
	if len(l.Networks) != 1 || len(l.IBDevices) != 1 || l.IBDevices[0].Name != "mlx5_5" {
		t.Errorf("networks %+v devices %+v, want one host using mlx5_5", l.Networks, l.IBDevices)
	}
	g := l.GDRReport()
	if g.Off() || !g.On() {
		t.Errorf("GDR = %+v, want on (NET/IB/1(2)/GDRDMA/Shared)", g)
	}
	if l.Comm.LocalRanks != 4 || l.Comm.Nodes != 2 || l.Comm.Ranks != 8 {
		t.Errorf("comm = %+v", l.Comm)
	}
	run := arts[KindNCCLTests].(*NCCLTests).Runs[0]
	hosts, counts := run.RanksPerHost()
	if run.Collective != "sendrecv" || run.NGpus != 4 || len(hosts) != 2 || counts[0] != 4 || counts[1] != 4 {
		t.Errorf("coll %q nGpus %d hosts %v %v", run.Collective, run.NGpus, hosts, counts)
	}
	if p, _ := run.Plateau(); p.Max != 5.86 {
		t.Errorf("plateau max = %v, want 5.86", p.Max)
	}
}

func TestCorpusA3Mega(t *testing.T) {
	arts := readCorpus(t, "nccl-tests/allreduce-a3mega-16xh100-tcpxo-338GBps-good.txt")
	if _, ok := arts[KindNCCLLog]; ok {
		t.Error("no NCCL log lines in this file")
	}
	run := arts[KindNCCLTests].(*NCCLTests).Runs[0]
	if run.Collective != "all_reduce" || run.CollectiveFrom != FromBinary || run.NRanks() != 16 || len(run.Rows) != 31 {
		t.Errorf("coll %q from %q ranks %d rows %d", run.Collective, run.CollectiveFrom, run.NRanks(), len(run.Rows))
	}
	if run.NThread != 1 || run.NGpus != 1 || run.AvgBusBW != 70.742 {
		t.Errorf("nThread %d nGpus %d avg %v", run.NThread, run.NGpus, run.AvgBusBW)
	}
	last := run.Rows[len(run.Rows)-1]
	if last.Size != 8589934592 || last.Out.BusBW != 338.82 || last.Out.AlgBW != 180.71 || last.Out.Time != 47535 || last.In.BusBW != 337.35 {
		t.Errorf("last row = %+v", last)
	}
	hosts, counts := run.RanksPerHost()
	if len(hosts) != 2 || counts[0] != 8 || counts[1] != 8 {
		t.Errorf("hosts %v %v, want 8 ranks on each of 2", hosts, counts)
	}
	// busbw/algbw is 2(n-1)/n = 1.875 for 16 ranks: all_reduce's factor.
	if got := busFactor("all_reduce", 16); got != 1.875 || last.Out.BusBW/last.Out.AlgBW < 1.87 || last.Out.BusBW/last.Out.AlgBW > 1.88 {
		t.Errorf("all_reduce factor %v, table ratio %v", got, last.Out.BusBW/last.Out.AlgBW)
	}
	for _, row := range run.Rows {
		if row.Out.Wrong != 0 || row.In.Wrong != 0 {
			t.Errorf("row %d has wrong elements", row.Size)
		}
	}
}

func TestCorpusGB10Format220(t *testing.T) {
	run := ncclTests(t, "nccl-tests/allreduce-gb10-2node-nccltests2.20-format-dgxspark103.txt").Runs[0]
	if run.Version != "2.20.0 (b4d5bee) nccl-headers=23102 nccl-library=23102" || run.Collective != "all_reduce" || run.CollectiveFrom != FromBanner {
		t.Errorf("version %q coll %q from %q", run.Version, run.Collective, run.CollectiveFrom)
	}
	if len(run.Rows) != 4 || run.LargestSize() != 65536 || run.Rows[3].In.BusBW != 1.01 {
		t.Errorf("rows = %d, largest %d", len(run.Rows), run.LargestSize())
	}
	if _, ok := run.Plateau(); ok {
		t.Error("a table that stops at 64 KiB has no bandwidth plateau")
	}
	if run.Ranks[1].Host != "spark-dbf4" || run.Ranks[1].GPU != "NVIDIA GB10" || run.Ranks[1].BusID != "000f:01:00" {
		t.Errorf("rank 1 = %+v", run.Ranks[1])
	}
}

func TestCorpusH20ErrorColumn(t *testing.T) {
	run := ncclTests(t, "nccl-tests/allreduce-h20-ib-error-column-format-issue1244.txt").Runs[0]
	if run.HasRoot || !run.HasRedop || run.WrongColumn != "error" || len(run.Rows) != 8 {
		t.Fatalf("root %v redop %v wrong %q rows %d", run.HasRoot, run.HasRedop, run.WrongColumn, len(run.Rows))
	}
	r := run.Rows[0]
	if r.Size != 4 || r.Redop != "sum" || r.Out.ErrorText != "0e+00" || r.In.ErrorText != "4e-07" || r.Out.Time != 47.54 {
		t.Errorf("first row = %+v", r)
	}
	if run.Collective != "" || len(run.Candidates) == 0 || run.Candidates[0] != "all_reduce" {
		t.Errorf("collective %q candidates %v: the columns cannot single out all_reduce", run.Collective, run.Candidates)
	}
}

func TestCorpusBroadcastOldSocket(t *testing.T) {
	arts := readCorpus(t, "nccl-tests/broadcast-v100-socket-old-format-nccltests82.txt")
	run := arts[KindNCCLTests].(*NCCLTests).Runs[0]
	if run.Collective != "broadcast" || run.HasRedop || !run.HasRoot || run.WrongColumn != "error" || run.NRanks() != 2 {
		t.Errorf("coll %q redop %v root %v wrong %q ranks %d", run.Collective, run.HasRedop, run.HasRoot, run.WrongColumn, run.NRanks())
	}
	if len(run.Rows) != 1 || run.Rows[0].Root != 0 || run.Rows[0].Out.Wrong != -1 || run.Rows[0].In.Time != 38.17 {
		t.Errorf("rows = %+v", run.Rows)
	}
	if run.Ranks[1].Host != "v100-gpu-5" || run.Ranks[1].Group != -1 || run.Ranks[1].GPU != "Tesla V100-PCIE-16GB" {
		t.Errorf("rank 1 = %+v (old format has no Group)", run.Ranks[1])
	}
	l := arts[KindNCCLLog].(*NCCLLog)
	if l.VerbsMissing.Count != 2 || len(l.Versions) != 1 || l.Versions[0].Version != "2.9.6+cuda11.2" {
		t.Errorf("verbs missing %d versions %+v", l.VerbsMissing.Count, l.Versions)
	}
	set := arts[KindNCCLSettings].(*NCCLSettings)
	if e := set.Values("NCCL_IB_DISABLE"); len(e) != 1 || e[0].Value != "1" || e[0].How != SetByMPI || e[0].Evidence.Line != 4 || e[0].Host != "v100-gpu-1" {
		t.Errorf("NCCL_IB_DISABLE = %+v, want 1 from the mpirun line on v100-gpu-1", e)
	}
	if n := len(set.Settings); n != 9 {
		t.Errorf("%d settings on the mpirun line, want 9: %+v", n, set.Settings)
	}
}
