package collective

import (
	"math"
	"testing"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
)

// TestBtreeIllustration checks ncclGetBtree against the 14-rank picture in
// src/graph/trees.cc: 0 -> 8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10, 13; ...
func TestBtreeIllustration(t *testing.T) {
	parent := map[int]int{0: -1, 8: 0, 4: 8, 12: 8, 2: 4, 6: 4, 10: 12, 13: 12, 1: 2, 3: 2, 5: 6, 7: 6, 9: 10, 11: 10}
	for r := 0; r < 14; r++ {
		up, d0, d1 := btree(14, r)
		if up != parent[r] {
			t.Errorf("rank %d: parent %d, want %d", r, up, parent[r])
		}
		for _, d := range []int{d0, d1} {
			if d >= 0 && parent[d] != r {
				t.Errorf("rank %d lists child %d whose parent is %d", r, d, parent[d])
			}
		}
	}
}

// TestDoubleTree checks the double binary tree's promise for every size
// up to 64: both trees span all ranks with consistent parent/child links,
// and with an even count every rank that is interior in one tree is a
// leaf in the other.
func TestDoubleTree(t *testing.T) {
	for n := 1; n <= 64; n++ {
		for tree, f := range []func(int, int) (int, int, int){btree, dtree} {
			roots := 0
			for r := 0; r < n; r++ {
				up, d0, d1 := f(n, r)
				if up == -1 {
					roots++
				} else if u0, u1 := children(f, n, up); u0 != r && u1 != r {
					t.Fatalf("n=%d tree %d: %d's parent %d does not list it", n, tree, r, up)
				}
				for _, d := range []int{d0, d1} {
					if d >= n || (d >= 0 && func() bool { u, _, _ := f(n, d); return u != r }()) {
						t.Fatalf("n=%d tree %d: child %d of %d", n, tree, d, r)
					}
				}
			}
			if roots != 1 {
				t.Fatalf("n=%d tree %d: %d roots", n, tree, roots)
			}
		}
		if n%2 == 1 || n < 4 {
			continue
		}
		for r := 0; r < n; r++ {
			_, a0, a1 := btree(n, r)
			_, b0, b1 := dtree(n, r)
			if a0+a1 > -2 && b0+b1 > -2 {
				t.Errorf("n=%d: rank %d has children in both trees", n, r)
			}
		}
	}
}

func children(f func(int, int) (int, int, int), n, r int) (int, int) {
	_, d0, d1 := f(n, r)
	return d0, d1
}

// TestTreeSimpleFill: NCCL's per-channel Tree limit (tuning.cc
// perChMaxTreeBws, by node count) is what a Tree/Simple channel carries
// end to end, the twin's rate for the kernel operations that feed or
// drain a network connection; a step that stays on its server runs at the
// GPU's channel rate. So on nccl-tests#380's system (2 × 8 H200, a 400G
// NDR NIC per two GPUs, NCCL 2.30.4) a call's time grows at the limit,
// 8 graph channels × 41.4 / 2 = 165.6 GB/s of data, and its fixed part,
// the pipeline's fill, is the run's: its 1, 3 and 9 GiB rows fit
// 0.37 ms + S / 172 GB/s. Charging the limit to each of the tree's 16 hops
// (7 up the chain of each server, one across, and back) made it 0.98 ms.
func TestTreeSimpleFill(t *testing.T) {
	srv := serverOf("H100", 4, 400*unit.Gbps, 5, gpu.PXB, gpu.Intel)
	v, err := ParseVersion("2.30.4")
	if err != nil {
		t.Fatal(err)
	}
	cm := mustCommOf(t, v, srv, 2, 8, map[string]string{"NCCL_ALGO": "Tree", "NCCL_PROTO": "Simple"})
	var tm [2]float64
	sizes := [2]int64{512 << 20, 1 << 30}
	for i, s := range sizes {
		rs, _ := runOn(t, cm, 1, Call{Func: AllReduce, Bytes: s})
		tm[i] = rs[0].Time().Micros()
	}
	rate := float64(sizes[1]-sizes[0]) / (tm[1] - tm[0]) / 1e3 // GB/s
	fill := tm[0] - float64(sizes[0])/rate/1e3                 // µs
	t.Logf("%.1f GB/s of data, fill %.0f µs", rate, fill)
	if math.Abs(rate/165.6-1) > 0.005 {
		t.Errorf("a Tree/Simple call grows at %.1f GB/s, NCCL's limit gives 165.6", rate)
	}
	if fill < 250 || fill > 500 {
		t.Errorf("fixed part %.0f µs, the run's 370 (0.25-0.5 ms)", fill)
	}
}

// TestTreeSimpleFillScope: the GPU's channel speed on a step that stays
// on its server is for Tree/Simple across servers only. Everywhere else
// every kernel operation keeps its protocol's rate under NCCL's limits:
// a single-server tree (its limit is the one-node column, tuning.cc
// perChMaxTreeBws), Tree/LL and Tree/LL128 (their own rates, whose lines
// stream through a hop), NVLSTree (its own limit) and the ring.
func TestTreeSimpleFillScope(t *testing.T) {
	v, err := ParseVersion("2.29.7")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		servers     int
		algo, proto string
		want        Choice
		intra       float64 // GB/s; 0: none
	}{
		{"Tree/Simple, 2 servers", 2, "Tree", "Simple", Choice{Algo: Tree, Proto: Simple}, 60},
		{"Tree/Simple, 4 servers", 4, "Tree", "Simple", Choice{Algo: Tree, Proto: Simple}, 60},
		{"Tree/Simple, 1 server", 1, "Tree", "Simple", Choice{Algo: Tree, Proto: Simple}, 0},
		{"Tree/LL128, 2 servers", 2, "Tree", "LL128", Choice{Algo: Tree, Proto: LL128}, 0},
		{"Tree/LL, 2 servers", 2, "Tree", "LL", Choice{Algo: Tree, Proto: LL}, 0},
		{"NVLSTree/Simple, 2 servers", 2, "NVLSTree", "Simple", Choice{Algo: NVLSTree, Proto: Simple}, 0},
		{"Ring/Simple, 2 servers", 2, "Ring", "Simple", Choice{Algo: Ring, Proto: Simple}, 0},
	} {
		cm := mustCommOf(t, v, h100x8, c.servers, 8, map[string]string{"NCCL_ALGO": c.algo, "NCCL_PROTO": c.proto})
		call := Call{Func: AllReduce, Bytes: 1 << 30}
		ch, err := cm.Plan(call)
		if err != nil || ch.Algo != c.want.Algo || ch.Proto != c.want.Proto {
			t.Fatalf("%s: NCCL's choice %v/%v (%v)", c.name, ch.Algo, ch.Proto, err)
		}
		e := builtEngine(cm, call, ch)
		if got, want := e.tm.intraRate, gpu.Rate(c.intra); got != want {
			t.Errorf("%s: a step on its server at %.1f GB/s, want %.1f", c.name, gpu.GBps(got), c.intra)
		}
		if c.intra > 0 && e.tm.chanRate >= e.tm.intraRate {
			t.Errorf("%s: NCCL's tree limit %.1f GB/s a channel is not under the GPU's %.1f", c.name, gpu.GBps(e.tm.chanRate), c.intra)
		}
	}
}
