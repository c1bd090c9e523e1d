package collective

import (
	"fmt"
	"strings"
	"testing"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
)

// onePerNode is an H100 server with one GPU and one 400G NIC, the layout
// PAT runs on (GH200 nodes, one-GPU cloud VMs).
var onePerNode = serverOf("H100", 1, 400*unit.Gbps, 5, gpu.PIX, gpu.Intel)

// handPAT is PAT's predicted time for f of nBytes on cm, µs, computed
// from tuning.cc (v2.28.3) apart from the twin's model: bandwidth 0.75 of
// the ring graph's channels × bandwidth (line 310; the graph's
// inter-node bandwidth from three nodes), kept as the algorithm's
// bandwidth for AllGather and ReduceScatter (line 346); latency the base
// 8 µs, log2(nodes) network latencies of Tree/Simple (14 µs, one GPU per
// node) over 3.5, and 2.8 µs a rank (lines 396-399). At 16 nodes:
// 8 + 4 × 4 + 44.8 = 68.8 µs.
func handPAT(cm *Comm, nBytes int64) float64 {
	g := cm.Tuning.Ring
	bw := float64(g.BWInter)
	if cm.NNodes() <= 2 {
		bw = float64(g.BWIntra)
	}
	bus := float64(g.NChannels) * bw * .75
	n := cm.NRanks
	lat := 8 + float64(log2i(int64(cm.NNodes())))*14/3.5 + float64(n)*2.8
	return lat + float64(nBytes)/(1000*bus)
}

// TestPATChoice: with one GPU per node NCCL from 2.23 picks PAT for
// AllGather and ReduceScatter wherever its time beats every other
// candidate's; on a grid of 2-64 nodes and 1 KiB-1 GiB the twin picks it
// exactly there. On two nodes never (Ring/LL: 6.6 + 5 µs against PAT's
// 8 + 4 + 5.6); on 16 at 1 KiB (68.8 µs against the ring's 15 network
// steps) but not at 1 GiB, where its 0.75 loses to the ring.
func TestPATChoice(t *testing.T) {
	v, _ := ParseVersion("2.28.9")
	for _, f := range []Func{AllGather, ReduceScatter} {
		for _, nodes := range []int{2, 4, 8, 16, 32, 64} {
			cm := mustCommOf(t, v, onePerNode, nodes, 1, nil)
			var pat []string
			for b := int64(1 << 10); b <= 1<<30; b *= 4 {
				ch, err := cm.Plan(Call{Func: f, Bytes: b})
				if err != nil {
					t.Fatal(err)
				}
				hand := handPAT(cm, b)
				best := -1.0
				for a := Tree; a < nAlgos; a++ {
					for p := LL; p < nProtos; p++ {
						if tm := cm.Tuning.Time(f, a, p, b); a != PAT && tm >= 0 && (best < 0 || float64(tm) < best) {
							best = float64(tm)
						}
					}
				}
				if got := float64(cm.Tuning.Time(f, PAT, Simple, b)); got < hand*0.999 || got > hand*1.001 {
					t.Errorf("%v %d nodes %s: PAT %.2f µs, tuning.cc gives %.2f", f, nodes, sizeName(b), got, hand)
				}
				if (ch.Algo == PAT) != (hand < best) {
					t.Errorf("%v %d nodes %s: picked %v/%v (PAT %.1f µs, best other %.1f)", f, nodes, sizeName(b), ch.Algo, ch.Proto, hand, best)
				}
				if ch.Algo == PAT {
					pat = append(pat, sizeName(b))
					if ch.Proto != Simple || ch.Threads != 640 {
						t.Errorf("%v %d nodes %s: PAT/%v with %d threads, want Simple and 640", f, nodes, sizeName(b), ch.Proto, ch.Threads)
					}
				}
			}
			t.Logf("%v on %d × 1 H100: PAT at %s", f, nodes, strings.Join(pat, " "))
			switch {
			case nodes == 2 && len(pat) > 0:
				t.Errorf("%v on 2 nodes: PAT at %v", f, pat)
			case nodes == 16 && (len(pat) == 0 || pat[0] != "1K" || pat[len(pat)-1] == "1G"):
				t.Errorf("%v on 16 nodes: PAT at %v, want from 1 KiB, not at 1 GiB", f, pat)
			}
		}
	}
	// AllReduce has no PAT; PAT needs 2.23, one GPU per node unless
	// NCCL_PAT_ENABLE=1, and yields to NCCL_ALGO and NCCL_PAT_ENABLE=0.
	gated := []struct {
		version string
		ppn     int
		f       Func
		env     map[string]string
		want    bool
	}{
		{"2.28.9", 1, AllGather, nil, true},
		{"2.23.4", 1, ReduceScatter, nil, true},
		{"2.28.9", 1, AllReduce, nil, false},
		{"2.22.3", 1, AllGather, nil, false},
		{"2.28.9", 1, AllGather, map[string]string{"NCCL_ALGO": "^PAT"}, false},
		{"2.28.9", 1, AllGather, map[string]string{"NCCL_PAT_ENABLE": "0"}, false},
		{"2.28.9", 2, AllGather, nil, false},
		{"2.28.9", 2, AllGather, map[string]string{"NCCL_PAT_ENABLE": "1"}, true},
	}
	srv2 := onePerNode
	srv2.GPUs, srv2.Intra = 2, gpu.PCIeOnly
	for _, g := range gated {
		v, _ := ParseVersion(g.version)
		srv := onePerNode
		if g.ppn == 2 {
			srv = srv2
		}
		cm := mustCommOf(t, v, srv, 16, g.ppn, g.env)
		on := cm.Tuning.BW[g.f][PAT][Simple] > 0
		if on != g.want {
			t.Errorf("%s, %d GPU(s) a node, %v, %v: PAT enabled %v, want %v", g.version, g.ppn, g.f, g.env, on, g.want)
		}
	}
}

// TestPATTraffic: a PAT call sends each rank's piece (bytes/n) to the
// ranks 2^d away, across dimension d as many pieces as there are offsets
// in 1..n-1 whose lowest set bit is d: on 16 nodes 8, 4, 2, 1 pieces to
// the ranks 1, 2, 4, 8 away (15 in all, as a ring); on 12 nodes 6, 3, 1
// and 1 (offsets 4 and 8; 12 is past the ranks). An AllGather sends to
// rank - 2^d, a ReduceScatter to rank + 2^d. At 1 KiB on 16 nodes the
// pieces (64 bytes) aggregate: each dimension's are one message. The
// run posts what the dry run counts.
func TestPATTraffic(t *testing.T) {
	v, _ := ParseVersion("2.28.9")
	cases := []struct {
		nodes int
		want  map[int]int64 // distance -> pieces
	}{
		{16, map[int]int64{1: 8, 2: 4, 4: 2, 8: 1}},
		{12, map[int]int64{1: 6, 2: 3, 4: 1, 8: 1}},
	}
	for _, tc := range cases {
		for _, f := range []Func{AllGather, ReduceScatter} {
			cm := mustCommOf(t, v, onePerNode, tc.nodes, 1, nil)
			n := int64(tc.nodes)
			for _, size := range []int64{n << 10, n << 20} {
				call := Call{Func: f, Bytes: size}
				if ch, _ := cm.Plan(call); ch.Algo != PAT {
					cm = mustCommOf(t, v, onePerNode, tc.nodes, 1, map[string]string{"NCCL_ALGO": "PAT"})
				}
				tr, err := cm.NetTraffic(call, 1, 4096)
				if err != nil {
					t.Fatal(err)
				}
				if len(tr) != tc.nodes*len(tc.want) {
					t.Fatalf("%v %d nodes %s: %d host pairs, want %d", f, tc.nodes, sizeName(size), len(tr), tc.nodes*len(tc.want))
				}
				for _, x := range tr {
					dist := int((int64(x.Src) - int64(x.Dst) + n) % n)
					if f == ReduceScatter {
						dist = int((int64(x.Dst) - int64(x.Src) + n) % n)
					}
					if want := tc.want[dist] * size / n; x.Bytes != want {
						t.Errorf("%v %d nodes %s: %d->%d (%d away) %d bytes, want %d", f, tc.nodes, sizeName(size), x.Src, x.Dst, dist, x.Bytes, want)
					}
					if size == 16<<10 && x.Messages != 1 {
						t.Errorf("%v 16 nodes 16K: %d->%d in %d messages, want 1 (aggregated)", f, x.Src, x.Dst, x.Messages)
					}
				}
				runOn(t, cm, 1, call)
				posted := map[[2]int]int64{}
				for _, cn := range cm.eng.conns {
					if cn.net {
						posted[[2]int{int(cn.hostSrc), int(cn.hostDst)}] += cn.bytes
					}
				}
				for _, x := range tr {
					if posted[[2]int{x.Src, x.Dst}] != x.Bytes {
						t.Errorf("%v %d nodes %s %d->%d: traffic %d bytes, run posted %d", f, tc.nodes, sizeName(size), x.Src, x.Dst, x.Bytes, posted[[2]int{x.Src, x.Dst}])
					}
				}
			}
		}
	}
}

// TestPATLogSteps: a small PAT AllGather takes one network step per
// dimension, each the ring's per-step cost (the proxies' and the
// fabric's, docs/nccl.md "The proxy's actions"), where a ring takes n-1.
// The ring's step s is its time from 8 to 16 nodes over the 8 steps it
// adds; PAT on 16 nodes should take its time on 2 (one step) plus 3·s,
// within 10 % (each dimension also adds two connections for the proxy to
// take up), at least three times faster than the ring, and within 25 %
// of NCCL's own prediction (68.8 µs, handPAT).
func TestPATLogSteps(t *testing.T) {
	v, _ := ParseVersion("2.28.9")
	run := func(nodes int, algo string) float64 {
		cm := mustCommOf(t, v, onePerNode, nodes, 1, map[string]string{"NCCL_ALGO": algo, "NCCL_PROTO": "Simple"})
		res, _ := runOn(t, cm, 2, Call{Func: AllGather, Bytes: int64(nodes) << 10})
		if res[0].Choice.Algo.String() != algo {
			t.Fatalf("%d nodes: ran %v, want %s", nodes, res[0].Choice.Algo, algo)
		}
		return res[0].Time().Seconds() * 1e6
	}
	pat2, pat16 := run(2, "PAT"), run(16, "PAT")
	ring8, ring16 := run(8, "Ring"), run(16, "Ring")
	s := (ring16 - ring8) / 8
	want := pat2 + 3*s
	t.Logf("PAT 2 nodes %.1f µs, 16 nodes %.1f; ring step %.1f µs; estimate %.1f; ring on 16 %.1f", pat2, pat16, s, want, ring16)
	if pat16 < want*0.9 || pat16 > want*1.1 {
		t.Errorf("PAT on 16 nodes %.1f µs, want %.1f ± 10 %% (2 nodes %.1f + 3 × %.1f)", pat16, want, pat2, s)
	}
	if pat16 > ring16/3 {
		t.Errorf("PAT on 16 nodes %.1f µs against the ring's %.1f: not log-step", pat16, ring16)
	}
	cm := mustCommOf(t, v, onePerNode, 16, 1, nil)
	if nccl := handPAT(cm, 16<<10); pat16 > nccl*1.25 || pat16 < nccl*0.75 {
		t.Errorf("PAT on 16 nodes %.1f µs, NCCL predicts %.1f", pat16, nccl)
	}
}

// TestPATExplain: the TUNING account lists PAT with its cost, as
// NCCL_DEBUG_SUBSYS=TUNING would: on 16 × 1 H100 an AllGather of 16 KiB
// (NCCL prints one rank's 1 KiB) runs PAT at 68.8 µs of latency
// (handPAT), ahead of the ring, and the init table has PAT's column
// (2.23 on: seven algorithms).
func TestPATExplain(t *testing.T) {
	v, _ := ParseVersion("2.28.9")
	cm := mustCommOf(t, v, onePerNode, 16, 1, nil)
	out := cm.Explain(AllGather, []int64{16 << 10})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "AllGather: 1024 Bytes -> Algo PAT proto Simple") ||
		!strings.HasPrefix(strings.TrimSpace(lines[1]), "PAT/Simple 68.8+") || !strings.Contains(lines[1], "< Ring/") {
		t.Errorf("%q", out)
	}
	table := strings.Join(cm.Tuning.TuningTable(), "\n")
	if !strings.Contains(table, "PAT") {
		t.Errorf("init table has no PAT column:\n%s", table)
	}
}

// TestPATStepOrder: an AllGather runs its dimensions from the farthest
// down (it forwards across 2^d what it received across a farther one), a
// ReduceScatter from the nearest up (it reduces what it received across a
// nearer one before it sends): on 8 nodes a rank's sends of a chunk go 4,
// 2 then 1 rank away for an AllGather, 1, 2 then 4 for a ReduceScatter.
func TestPATStepOrder(t *testing.T) {
	v, _ := ParseVersion("2.28.9")
	const n = 8
	cm := mustCommOf(t, v, onePerNode, n, 1, map[string]string{"NCCL_ALGO": "PAT"})
	for _, tc := range []struct {
		f    Func
		want string
	}{{AllGather, "[4 2 1]"}, {ReduceScatter, "[1 2 4]"}} {
		runOn(t, cm, 1, Call{Func: tc.f, Bytes: n << 20})
		k := &cm.eng.kernels[0]
		var dists []int
		var o op
		for i := range k.p.perLoop() {
			k.p.op(i, &o)
			if !o.send {
				continue
			}
			cn := &cm.eng.conns[k.p.sends(&o)[0]]
			d := int((cn.hostSrc - cn.hostDst + n) % n)
			if tc.f == ReduceScatter {
				d = int((cn.hostDst - cn.hostSrc + n) % n)
			}
			if len(dists) == 0 || dists[len(dists)-1] != d {
				dists = append(dists, d)
			}
		}
		if got := fmt.Sprint(dists); got != tc.want {
			t.Errorf("%v: rank %d sends a chunk %s ranks away in turn, want %s", tc.f, k.rank, got, tc.want)
		}
	}
}
