package collective

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"rocelab/internal/gpu"
)

var update = flag.Bool("update", false, "rewrite testdata/tuning_grid.txt and the generated tables of docs/nccl.md")

func mustComm(t testing.TB, srv gpu.Server, servers, ppn int, env map[string]string) *Comm {
	t.Helper()
	return mustCommOf(t, DefaultVersion, srv, servers, ppn, env)
}

// mustCommOf is mustComm on NCCL version v.
func mustCommOf(t testing.TB, v Version, srv gpu.Server, servers, ppn int, env map[string]string) *Comm {
	t.Helper()
	cfg, err := NewConfig(env, v)
	if err != nil {
		t.Fatal(err)
	}
	sv := make([]int, servers)
	for i := range sv {
		sv[i] = i
	}
	c, err := NewComm(cfg, System{Server: srv, Hosts: DenseHosts(servers, srv.NICs)}, sv, AllGPUs(ppn))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func preset(t testing.TB, name string) gpu.Server {
	t.Helper()
	s, err := gpu.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSearch checks the modelled topology search on systems whose NCCL
// graph is known: a DGX A100's eight 200G HDR NICs at Gen4 give 8
// channels at 24 GB/s ("Pattern 4, nChannels 8, bw 24/24, type NVL/PXB"
// in NCCL logs), one 100G NIC gives one channel at 12 GB/s, and every
// communicator then builds twice the graph's channels.
func TestSearch(t *testing.T) {
	cases := []struct {
		preset            string
		servers           int
		ringCh            int
		ringBW            float32
		treeIntra         float32
		collCh            int
		typeIntra, typeIn gpu.Path
	}{
		{"a100-1nic", 4, 1, 12, 24, 2, gpu.NVL, gpu.PXB},
		{"dgx-a100", 4, 8, 24, 30, 16, gpu.NVL, gpu.PXB},
		// H100: NVLink 18 × 20.6 = 370.8 GB/s per GPU (the "totalBw
		// 370.8" NCCL prints) allows 8 channels at 45 GB/s, not 8 at 48.
		{"hgx-h100", 4, 8, 45, 45, 16, gpu.NVL, gpu.PXB},
		// One server: NVLink only, 6 channels at 40 split to 12 at 20.
		{"dgx-a100", 1, 12, 20, 20, 24, gpu.NVL, gpu.PIX},
	}
	for _, c := range cases {
		cm := mustComm(t, preset(t, c.preset), c.servers, 8, nil)
		tu := cm.Tuning
		if tu.Ring.NChannels != c.ringCh || tu.Ring.BWInter != c.ringBW || tu.Tree.BWIntra != c.treeIntra || tu.NChannels != c.collCh ||
			tu.Ring.TypeIntra != c.typeIntra || tu.Ring.TypeInter != c.typeIn {
			t.Errorf("%s × %d: ring %d×%v/%v (%s/%s), tree intra %v, %d coll channels; want %d×%v, tree %v, %d",
				c.preset, c.servers, tu.Ring.NChannels, tu.Ring.BWIntra, tu.Ring.BWInter, tu.Ring.TypeIntra, tu.Ring.TypeInter,
				tu.Tree.BWIntra, tu.NChannels, c.ringCh, c.ringBW, c.treeIntra, c.collCh)
		}
	}
	cm := mustComm(t, preset(t, "dgx-a100"), 2, 8, map[string]string{"NCCL_MAX_NCHANNELS": "4", "NCCL_MIN_NCHANNELS": "2"})
	if cm.Tuning.NChannels != 4 {
		t.Errorf("NCCL_MAX_NCHANNELS=4: %d channels", cm.Tuning.NChannels)
	}
	cm = mustComm(t, preset(t, "a100-1nic"), 2, 8, map[string]string{"NCCL_MIN_NCHANNELS": "8"})
	if cm.Tuning.NChannels != 8 {
		t.Errorf("NCCL_MIN_NCHANNELS=8: %d channels", cm.Tuning.NChannels)
	}
	// NCCL_MIN_CTAS and NCCL_MAX_CTAS (the config's minCTAs and maxCTAs,
	// connect.cc): the larger minimum and the smaller maximum of the two
	// pairs win; a minimum above the maximum is lowered to it (init.cc).
	// 4 × HGX H100 has 16 channels (above).
	for _, c := range []struct {
		env  map[string]string
		want int
	}{
		{map[string]string{"NCCL_MIN_CTAS": "24"}, 24},
		{map[string]string{"NCCL_MIN_CTAS": "24", "NCCL_MIN_NCHANNELS": "28"}, 28},
		{map[string]string{"NCCL_MAX_CTAS": "4"}, 4},
		{map[string]string{"NCCL_MAX_CTAS": "8", "NCCL_MIN_CTAS": "24"}, 8},
		{map[string]string{"NCCL_MAX_CTAS": "8", "NCCL_MAX_NCHANNELS": "6"}, 6},
		{map[string]string{"NCCL_MIN_CTAS": "0"}, 16},
	} {
		if got := mustComm(t, preset(t, "hgx-h100"), 4, 8, c.env).Tuning.NChannels; got != c.want {
			t.Errorf("%v: %d channels, want %d", c.env, got, c.want)
		}
	}
	// NVLS's channels move with the CTA bounds only (nvls.cc
	// ncclNvlsInit: max(minCTAs, min(maxCTAs, NCCL_NVLS_NCHANNELS or 16))).
	for _, c := range []struct {
		env  map[string]string
		want int
	}{
		{map[string]string{}, 16},
		{map[string]string{"NCCL_MIN_CTAS": "24"}, 24},
		{map[string]string{"NCCL_MIN_NCHANNELS": "24"}, 16},
		{map[string]string{"NCCL_MAX_CTAS": "8"}, 8},
		{map[string]string{"NCCL_NVLS_NCHANNELS": "4", "NCCL_MIN_CTAS": "6"}, 6},
	} {
		if got := mustComm(t, preset(t, "hgx-h100"), 4, 8, c.env).Tuning.NVLSChannels(); got != c.want {
			t.Errorf("%v: %d NVLS channels, want %d", c.env, got, c.want)
		}
	}
	cfg, err := NewConfig(map[string]string{"NCCL_MIN_CTAS": "24"}, Version{2, 16, 5})
	if err != nil || cfg.MinCTAs != 0 || len(cfg.Notes) == 0 {
		t.Errorf("NCCL_MIN_CTAS before 2.17: %+v, %v (want ignored with a note)", cfg.MinCTAs, err)
	}
	if _, err := NewConfig(map[string]string{"NCCL_MAX_CTAS": "x"}, DefaultVersion); err == nil {
		t.Error("NCCL_MAX_CTAS=x: no error")
	}
}

// TestTuningByHand recomputes a few grid points from the tuning.cc
// formulas of src/graph/tuning.cc, independently of the code.
func TestTuningByHand(t *testing.T) {
	// 4 servers × 8 A100 (AMD hosts), one 100G NIC: graph 1 channel at 12
	// GB/s, 32 ranks, AllReduce nsteps 62, 6 network steps.
	cm := mustComm(t, preset(t, "a100-1nic"), 4, 8, nil)
	tu := cm.Tuning
	// Ring LL latency: base 6.6 + 56 intra steps × max(0.6 NVLink,
	// 2 µs AMD net overhead) + 6 × 2.7 = 134.8 µs.
	if got := tu.Lat[AllReduce][Ring][LL]; math.Abs(float64(got)-134.8) > 1e-3 {
		t.Errorf("ring LL latency %v, want 134.8", got)
	}
	// Ring Simple: 8.4 + 56 × max(3.4, 2×3) + 6 × 14 = 428.4; the ring
	// plateau factor 1.4 applies at 1 MiB.
	if got := tu.Lat[AllReduce][Ring][Simple]; math.Abs(float64(got)-428.4) > 1e-3 {
		t.Errorf("ring Simple latency %v, want 428.4", got)
	}
	// Tree Simple: 8.4 + 2 × (7 × 4.0 + log2(4)=2 × 14) = 120.4.
	if got := tu.Lat[AllReduce][Tree][Simple]; math.Abs(float64(got)-120.4) > 1e-3 {
		t.Errorf("tree Simple latency %v, want 120.4", got)
	}
	// Bandwidths: ring Simple 1 × 12 × 32/62; ring LL min(19, 12 × .5) ×
	// 32/62; tree Simple min(12 × .92, 17.8) × .5 (more than 2 nodes: bwInter).
	want := map[[2]int]float64{
		{int(Ring), int(Simple)}: 12 * 32.0 / 62,
		{int(Ring), int(LL)}:     6 * 32.0 / 62,
		{int(Ring), int(LL128)}:  12 * 0.92 * 32.0 / 62,
		{int(Tree), int(Simple)}: 12 * .92 * .5,
		{int(Tree), int(LL)}:     12 * .92 / 3.8 * .5,
	}
	for k, w := range want {
		if got := tu.BW[AllReduce][k[0]][k[1]]; math.Abs(float64(got)-w) > 1e-4 {
			t.Errorf("%s/%s bandwidth %v, want %v", Algo(k[0]), Proto(k[1]), got, w)
		}
	}
	// Predicted time of 1 MiB ring Simple: 428.4 × 1.4 + 1048576/(1000 × 6.194).
	got := tu.Time(AllReduce, Ring, Simple, 1<<20)
	if w := 428.4*1.4 + 1048576/(1000*12*32.0/62); math.Abs(float64(got)-w) > 0.01 {
		t.Errorf("ring Simple 1 MiB: %v µs, want %v", got, w)
	}
	// Two servers: trees use bwIntra 24: tree Simple algbw = min(24 × .92,
	// Ampere's N2 per-channel tree limit 23.6) × .5 = 11.04 > the ring's
	// 12 × 16/30 = 6.4, which is why Tree wins large sizes on 2 nodes.
	cm2 := mustComm(t, preset(t, "a100-1nic"), 2, 8, nil)
	if got := cm2.Tuning.BW[AllReduce][Tree][Simple]; math.Abs(float64(got)-11.04) > 1e-4 {
		t.Errorf("2-node tree Simple bandwidth %v, want 11.04", got)
	}
	if ch, _ := cm2.Tuning.Choose(AllReduce, 1<<30); ch.Algo != Tree {
		t.Errorf("2 nodes, 1 GiB: %v, want Tree", ch)
	}
	// NCCL_ALGO=ring leaves no tree.
	cmR := mustComm(t, preset(t, "a100-1nic"), 2, 8, map[string]string{"NCCL_ALGO": "ring"})
	if ch, _ := cmR.Tuning.Choose(AllReduce, 1<<30); ch.Algo != Ring {
		t.Errorf("NCCL_ALGO=ring: %v", ch)
	}
	// Only an algorithm the system cannot run (NVLS on A100, no NVSwitch
	// multicast): NCCL's "no algorithm" error.
	cmN := mustComm(t, preset(t, "a100-1nic"), 2, 8, map[string]string{"NCCL_ALGO": "nvls"})
	if _, err := cmN.Tuning.Choose(AllReduce, 1<<20); err == nil {
		t.Error("NCCL_ALGO=nvls: want no algorithm")
	}
}

// gridSizes are the sizes of the golden grid: 8 B to 8 GiB by 4.
func gridSizes() []int64 {
	var s []int64
	for b := int64(8); b <= 8<<30; b *= 4 {
		s = append(s, b)
	}
	return s
}

func sizeName(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%dG", b>>30)
	case b >= 1<<20:
		return fmt.Sprintf("%dM", b>>20)
	case b >= 1<<10:
		return fmt.Sprintf("%dK", b>>10)
	}
	return fmt.Sprintf("%d", b)
}

// TestTuningGrid writes NCCL's choice of algorithm, protocol and channels
// on a grid of systems, node counts and sizes, and compares it with
// testdata/tuning_grid.txt (go test -run TestTuningGrid -update rewrites
// it).
func TestTuningGrid(t *testing.T) {
	var b strings.Builder
	b.WriteString(`# NCCL 2.30.7 tuning model (src/graph/tuning.cc, enqueue.cc topoGetAlgoInfo) as
# rocelab models it: the algorithm/protocol NCCL picks and the channels it
# keeps after the thread-threshold reduction, for AllReduce and AllGather.
# Ring, Tree, and on NVSwitch H100 servers NVLS (one server) and NVLSTree
# (across servers); PAT for AllGather with one GPU per node; CollNet (no
# SHARP in the fabric) is disabled.
# Cell: algorithm/protocol/channels; e.g. Tree/LL128/2.
`)
	systems := []struct {
		name, preset string
		ppn          int
		nodes        []int
	}{
		{"8x A100, 1x 100G NIC, AMD", "a100-1nic", 8, []int{1, 2, 4, 8, 16, 32}},
		{"8x A100, 8x 200G NIC (DGX A100), AMD", "dgx-a100", 8, []int{1, 2, 4, 8, 16, 32}},
		{"8x H100, 8x 400G NIC Gen5 (HGX H100), Intel", "hgx-h100", 8, []int{1, 2, 4, 8, 16, 32}},
		{"1x A100 per node, 1x 100G NIC, AMD", "a100-1nic", 1, []int{2, 4, 8, 16, 32, 128}},
	}
	for _, sys := range systems {
		for _, f := range []Func{AllReduce, AllGather} {
			fmt.Fprintf(&b, "\n## %s: %s\n", sys.name, f)
			fmt.Fprintf(&b, "%8s", "size")
			for _, n := range sys.nodes {
				fmt.Fprintf(&b, "  %18s", fmt.Sprintf("%d node(s)", n))
			}
			b.WriteString("\n")
			for _, sz := range gridSizes() {
				fmt.Fprintf(&b, "%8s", sizeName(sz))
				for _, n := range sys.nodes {
					if n*sys.ppn < 2 {
						fmt.Fprintf(&b, "  %18s", "-")
						continue
					}
					cm := mustComm(t, preset(t, sys.preset), n, sys.ppn, nil)
					ch, err := cm.Tuning.Choose(f, sz)
					cell := fmt.Sprintf("%s/%s/%d", ch.Algo, ch.Proto, ch.Channels)
					if err != nil {
						cell = "error"
					}
					fmt.Fprintf(&b, "  %18s", cell)
				}
				b.WriteString("\n")
			}
		}
	}
	got := b.String()
	path := "testdata/tuning_grid.txt"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("tuning grid differs from %s (run with -update after checking):\n%s", path, got)
	}
}

// TestNVLSTuningByHand: NVLS and NVLSTree on HGX H100 from tuning.cc's
// formulas. The NVLS graph has 8 heads at bwIntra 40 (9 × 40 ≤ 370.8 GB/s
// of NVLink), bwInter raised to 60 on one server and to the 48 GB/s of
// the Gen5 NICs across servers. One server, NVLS: min(40 × .85 × 7/8 × 2,
// 60) × 8 × 8/14 = 272 GB/s at 25 µs. Two servers, NVLSTree: min(59.5,
// 2 × 48, 57.7) × 8 × 16/30 = 246.2 GB/s at 25 + 2 × 20.9 µs. With
// NCCL_NVLS_ENABLE=0 two servers switch from Tree/LL128 to Ring/LL128 at
// 32 MiB, the fall of busbw issue 18 saw there.
func TestNVLSTuningByHand(t *testing.T) {
	one := mustComm(t, preset(t, "hgx-h100"), 1, 8, nil)
	g := one.Tuning.NVLS
	if g.NChannels != 8 || g.BWIntra != 40 || g.BWInter != 60 || one.Tuning.NVLSChannels() != 16 {
		t.Errorf("one server: NVLS graph %+v, %d channels", g, one.Tuning.NVLSChannels())
	}
	if bw, lat := one.Tuning.BW[AllReduce][NVLS][Simple], one.Tuning.Lat[AllReduce][NVLS][Simple]; math.Abs(float64(bw)-59.5*8*8/14) > 1e-3 || lat != 25 {
		t.Errorf("NVLS: %v GB/s at %v µs", bw, lat)
	}
	two := mustComm(t, preset(t, "hgx-h100"), 2, 8, nil)
	if g := two.Tuning.NVLS; g.BWInter != 48 {
		t.Errorf("two servers: NVLS graph %+v", g)
	}
	if bw, lat := two.Tuning.BW[AllReduce][NVLSTree][Simple], two.Tuning.Lat[AllReduce][NVLSTree][Simple]; math.Abs(float64(bw)-57.7*8*16/30) > 1e-3 || math.Abs(float64(lat)-66.8) > 1e-3 {
		t.Errorf("NVLSTree: %v GB/s at %v µs", bw, lat)
	}
	if two.Tuning.BW[AllReduce][NVLS][Simple] != 0 || one.Tuning.BW[AllReduce][NVLSTree][Simple] != 0 {
		t.Error("NVLS across servers or NVLSTree on one server is enabled")
	}
	off := mustComm(t, preset(t, "hgx-h100"), 2, 8, map[string]string{"NCCL_NVLS_ENABLE": "0"})
	for _, c := range []struct {
		size int64
		algo Algo
		p    Proto
	}{{8 << 20, Tree, LL128}, {32 << 20, Ring, LL128}, {128 << 20, Ring, Simple}} {
		if ch, _ := off.Tuning.Choose(AllReduce, c.size); ch.Algo != c.algo || ch.Proto != c.p {
			t.Errorf("NVLS off, %s: %s/%s, want %s/%s", sizeName(c.size), ch.Algo, ch.Proto, c.algo, c.p)
		}
	}
	// A100 and mixed generations: no NVLS; LL128 off below Hopper.
	mixed := preset(t, "hgx-h100")
	a100, _ := gpu.LookupModel("A100")
	cfg, _ := NewConfig(nil, DefaultVersion)
	cm, err := NewComm(cfg, System{Server: mixed, Hosts: DenseHosts(2, 8), Models: []gpu.Model{mixed.GPU, a100}}, []int{0, 1}, AllGPUs(8))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Tuning.NVLS.NChannels != 0 || cm.Tuning.BW[AllReduce][Ring][LL128] != 0 {
		t.Errorf("H100 + A100: NVLS %d channels, ring LL128 %v GB/s", cm.Tuning.NVLS.NChannels, cm.Tuning.BW[AllReduce][Ring][LL128])
	}
}

// TestPerChannelLimitsPerCTA: NCCL's per-channel limits (tuning.cc
// perChMax*) hold for each CTA of a graph channel as connect.cc
// duplicates it, so a channel's kernel rate does not depend on
// NCCL_MIN_CTAS or NCCL_MAX_NCHANNELS: on 2 × HGX H100 (8 graph channels,
// 16 CTAs) Ring/LL128 runs each channel at 36.7/2 GB/s with 16, 24 or 4
// channels (nccl-tests#322: 32 channels on 8 graph channels carry 365-367
// GB/s, above 8 × 36.7).
func TestPerChannelLimitsPerCTA(t *testing.T) {
	want := float64(perChMaxRingLL128Bw[2][1]) / 2
	for _, env := range []map[string]string{nil, {"NCCL_MIN_CTAS": "24"}, {"NCCL_MAX_NCHANNELS": "4"}} {
		c := mustComm(t, preset(t, "hgx-h100"), 2, 8, env)
		if got := c.channelCap(AllReduce, Ring, LL128, c.Tuning.NChannels); math.Abs(got-want) > 1e-6 {
			t.Errorf("%v (%d channels): Ring/LL128 %.3f GB/s per channel, want %.3f", env, c.Tuning.NChannels, got, want)
		}
	}
}
