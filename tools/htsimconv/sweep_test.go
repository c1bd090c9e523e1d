package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/tools/internal/agree"
)

// sweepCase is one random htsim run: its command line (without -tm) and
// its connection matrix.
type sweepCase struct {
	name   string
	args   []string
	matrix string
	hpcc   bool   // htsim_hpcc can run it too (3 tiers)
	topo   string // htsim's fat-tree file (-topo), when not -tiers'
	// flows repeat a source and destination (chains): compare the sorted
	// finish times, as htsim's flow lines name no connection
	finishes bool
}

// newSweepCase draws case i of a sweep: a fat-tree of 2 or 3 tiers (16 to
// 128 hosts; cases 40-47, 250 to 512), link speed, packet size, hop
// and switch latency, PFC thresholds and one of five workloads (permutation, incasts, mixed sizes with staggered
// starts, incast over a permutation, all-to-all of short flows), each
// source-destination pair used once so that flows match by name.
func newSweepCase(i int) sweepCase {
	rng := rand.New(rand.NewPCG(uint64(i), 0x5eed))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	tiers, nodes := 3, 0
	switch {
	case i >= 40 && i < 48: // larger fabrics; the cases before and after stay as drawn
		tiers, nodes = []int{2, 3, 3}[i%3], []int{512, 250, 432}[i%3] // K = 32, k = 10, 12
	case rng.IntN(3) == 0:
		tiers = 2
		nodes = []int{32, 72, 128}[rng.IntN(3)] // K = 8, 12, 16
	default:
		nodes = []int{16, 54, 128}[rng.IntN(3)] // k = 4, 6, 8
	}
	speed := pick("25000", "100000", "100000", "400000")
	mtu := pick("1024", "2048", "4096", "4096", "9000")
	pfc := [][2]string{{"12", "15"}, {"12", "15"}, {"5", "8"}, {"20", "30"}, {"40", "50"}}[rng.IntN(5)]
	args := []string{"-nodes", strconv.Itoa(nodes), "-tiers", strconv.Itoa(tiers), "-strat", "ecmp_host", "-paths", "1",
		"-linkspeed", speed, "-mtu", mtu, "-hop_latency", pick("0.5", "1", "1", "2"), "-switch_latency", pick("0", "0", "0.5"),
		"-pfc_thresholds", pfc[0], pfc[1], "-q", "1000", "-end", "1000000", "-seed", strconv.Itoa(1 + rng.IntN(6))}
	// Bytes scale with the link so that runs last about as long.
	scale, _ := strconv.Atoi(speed)
	size := func(lo, hi float64) int64 { // log-uniform, in bytes at 100G
		return int64(math.Exp(lo+rng.Float64()*(hi-lo)) * float64(scale) / 100000)
	}
	used := map[[2]int]bool{}
	var conns []string
	add := func(src, dst int, bytes int64, startUS float64) {
		if src == dst || used[[2]int{src, dst}] {
			return
		}
		used[[2]int{src, dst}] = true
		conns = append(conns, fmt.Sprintf("%d->%d id %d start %d size %d", src, dst, len(conns)+1, int64(startUS*1e6), max(bytes, 1)))
	}
	kind := pick("perm", "incast", "mixed", "incast+perm", "a2a")
	switch kind {
	case "perm":
		sz := size(math.Log(2e5), math.Log(4e6))
		mixed := rng.IntN(2) == 0
		for s, d := range rng.Perm(nodes) {
			if mixed {
				sz = size(math.Log(1e4), math.Log(4e6))
			}
			add(s, d, sz, 0)
		}
	case "incast":
		n := 1 + rng.IntN(3)
		deg := min(nodes-1, []int{4, 8, 16, 31, 63}[rng.IntN(5)])
		for range n {
			dst := rng.IntN(nodes)
			sz := size(math.Log(1e5), math.Log(2e6))
			for _, s := range rng.Perm(nodes)[:deg+1] {
				add(s, dst, sz, 0)
			}
		}
	case "mixed":
		for range nodes * (1 + rng.IntN(2)) {
			add(rng.IntN(nodes), rng.IntN(nodes), size(math.Log(4e3), math.Log(4e6)), rng.Float64()*100)
		}
	case "incast+perm":
		for s, d := range rng.Perm(nodes) {
			add(s, d, size(math.Log(5e5), math.Log(2e6)), 0)
		}
		dst := rng.IntN(nodes)
		for _, s := range rng.Perm(nodes)[:min(nodes-1, 16)+1] {
			add(s, dst, size(math.Log(5e4), math.Log(5e5)), 20*rng.Float64())
		}
	case "a2a":
		g := min(nodes, 8+rng.IntN(9))
		hosts := rng.Perm(nodes)[:g]
		sz := size(math.Log(8e3), math.Log(2.5e5))
		for _, s := range hosts {
			for _, d := range hosts {
				add(s, d, sz, 0)
			}
		}
	}
	return sweepCase{
		name:   fmt.Sprintf("s%02d-%s-%dt%d-%sM-mtu%s", i, kind, tiers, nodes, speed[:len(speed)-3], mtu),
		args:   args,
		matrix: fmt.Sprintf("Nodes %d\nConnections %d\n%s\n", nodes, len(conns), strings.Join(conns, "\n")),
		hpcc:   tiers == 3,
	}
}

// TestCompareRandomCasesWithHtsim runs random cases (newSweepCase) on the htsim_roce (and,
// for 3 tiers, htsim_hpcc) built in $HTSIM_DIR and on rocelab, imported
// from the same command line by from-htsim, and logs the flow completion
// times' statistics side by side, each averaged over SWEEP_SEEDS runs
// (default 3: htsim's -seed and clock, rocelab's seed; the two hash ECMP
// differently, so one run's collisions are noise). Without $HTSIM_DIR it
// is skipped: it explores, the agreement tests hold recorded runs.
// SWEEP=FROM-TO picks the cases (default 0-29; SWEEP_SHAPES=1 runs
// shapeCases instead), SWEEP_SEED_FROM=N runs
// seeds N on (default 1: htsim's -seed alone draws its switches' ECMP
// salts, so every case at seed 1 shares them), SWEEP_HPCC=1 adds
// htsim_hpcc, SWEEP_KEEP=DIR keeps each run's matrix, htsim output and
// scenario. htsim's time(NULL) is pinned with $HTSIM_PRELOAD (a shared
// object whose time() returns $PIN_CLOCK: testdata/pinclock.c) when
// given, so that a run repeats.
func TestCompareRandomCasesWithHtsim(t *testing.T) {
	dir := os.Getenv("HTSIM_DIR")
	if dir == "" {
		t.Skip("HTSIM_DIR (csg-htsim's sim/datacenter with htsim_roce built) not set")
	}
	sw := agree.SweepEnv(0, 29, 3)
	seeds, first, keep := sw.Seeds, sw.FirstSeed, sw.Keep
	programs := []string{"htsim_roce"}
	if os.Getenv("SWEEP_HPCC") == "1" {
		programs = append(programs, "htsim_hpcc")
	}
	cases := []sweepCase{}
	if os.Getenv("SWEEP_SHAPES") == "1" {
		cases = shapeCases()
	} else {
		for i := sw.From; i <= sw.To; i++ {
			cases = append(cases, newSweepCase(i))
		}
	}
	for _, c := range cases {
		for _, prog := range programs {
			if prog == "htsim_hpcc" && !c.hpcc {
				continue
			}
			out := keep
			if out == "" {
				out = t.TempDir()
			}
			var h, r agree.Seeds
			n := 0
			for seed := first; seed < first+seeds; seed++ {
				base := filepath.Join(out, fmt.Sprintf("%s-%s-seed%d", c.name, strings.TrimPrefix(prog, "htsim_"), seed))
				hf, o, err := sweepRun(c, prog, dir, base, seed)
				if err == nil {
					var hx, rx []float64
					if hx, rx, err = sweepFCTs(hf, o, c.finishes); err == nil {
						var b strings.Builder
						for k, f := range hf {
							fmt.Fprintf(&b, "%s %.3f %.3f\n", f.name, hx[k], rx[k])
						}
						err = os.WriteFile(base+".fct", []byte(b.String()), 0o644)
						h.Add(hx)
						r.Add(rx)
						n = len(hx)
					}
				}
				if err != nil {
					t.Errorf("%s %s seed %d: %v", prog, c.name, seed, err)
				}
			}
			if n == 0 {
				continue
			}
			hs, rs := h.Mean(), r.Mean()
			t.Logf("SWEEP %-34s %-4s %4d | mean %8.1f %8.1f %+6.1f%% | p50 %8.1f %8.1f %+6.1f%% | p99 %8.1f %8.1f %+6.1f%% | max %8.1f %8.1f %+6.1f%%",
				c.name, strings.TrimPrefix(prog, "htsim_"), n, hs.Mean, rs.Mean, pct(rs.Mean, hs.Mean), hs.P50, rs.P50, pct(rs.P50, hs.P50),
				hs.P99, rs.P99, pct(rs.P99, hs.P99), hs.Max, rs.Max, pct(rs.Max, hs.Max))
		}
	}
}

// sweepRun runs case c with the seed on htsim's prog (its clock pinned to
// a second of the case and seed) and on rocelab as from-htsim imports the
// same command line; base names the files it writes.
func sweepRun(c sweepCase, prog, dir, base string, seed int) ([]htsimFinish, twin.Observation, error) {
	cm := base + ".cm"
	if err := os.WriteFile(cm, []byte(c.matrix), 0o644); err != nil {
		return nil, twin.Observation{}, err
	}
	args := append([]string{"-tm", cm}, c.args...)
	if c.topo != "" {
		if err := os.WriteFile(base+".topo", []byte(c.topo), 0o644); err != nil {
			return nil, twin.Observation{}, err
		}
		args = append(args, "-topo", base+".topo")
	}
	args = append(dropFlag(args, "-seed", 1), "-seed", strconv.Itoa(seed))
	if prog == "htsim_hpcc" {
		args = dropFlag(args, "-tiers", 1)
	}
	cmd := exec.Command("nice", append([]string{"-n", "10", filepath.Join(dir, prog), "-o", base + ".log"}, args...)...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PIN_CLOCK=%d", 1796000000+100*seed+len(c.name)))
	if p := os.Getenv("HTSIM_PRELOAD"); p != "" {
		cmd.Env = append(cmd.Env, "LD_PRELOAD="+p)
	}
	hout, err := cmd.Output()
	if err != nil {
		return nil, twin.Observation{}, fmt.Errorf("%s: %v", prog, err)
	}
	if err := os.WriteFile(base+".out", hout, 0o644); err != nil {
		return nil, twin.Observation{}, err
	}
	hf, err := readFlowLines(base+".out", bytes.NewReader(hout))
	if err != nil {
		return nil, twin.Observation{}, err
	}
	var y bytes.Buffer
	if err := fromHtsim(append([]string{prog}, args...), nil, &y); err != nil {
		return nil, twin.Observation{}, fmt.Errorf("from-htsim: %v", err)
	}
	if err := os.WriteFile(base+".yaml", y.Bytes(), 0o644); err != nil {
		return nil, twin.Observation{}, err
	}
	s, err := scenario.Load(base+".yaml", y.Bytes())
	if err != nil {
		return nil, twin.Observation{}, err
	}
	o, err := agree.RunScenario(s)
	return hf, o, err
}

func pct(a, b float64) float64 { return 100 * (a/b - 1) }

// dropFlag removes flag and its n values from args.
func dropFlag(args []string, flag string, n int) []string {
	for i, a := range args {
		if a == flag {
			return append(append([]string(nil), args[:i]...), args[i+1+n:]...)
		}
	}
	return args
}

// sweepFCTs pairs htsim's flows (NAME_SRC_DST) with rocelab's by source
// and destination and returns each side's flow completion times (finish
// less start), in microseconds, in htsim's order; with finishes, each
// side's finish times, sorted, as flows that share a source and
// destination cannot be paired.
func sweepFCTs(hf []htsimFinish, o twin.Observation, finishes bool) ([]float64, []float64, error) {
	if finishes {
		if len(hf) != len(o.Flows) {
			return nil, nil, fmt.Errorf("htsim completed %d flows, rocelab ran %d", len(hf), len(o.Flows))
		}
		h := make([]float64, len(hf))
		for i, f := range hf {
			h[i] = f.us
		}
		r := agree.Finishes(o)
		slices.Sort(h)
		slices.Sort(r)
		return h, r, nil
	}
	type run struct{ start, fct float64 }
	byPair := map[string]run{}
	for _, f := range o.Flows {
		byPair[flowPair(f)] = run{f.StartUS, *f.FCTUS}
	}
	if len(hf) != len(o.Flows) {
		return nil, nil, fmt.Errorf("htsim completed %d flows, rocelab ran %d", len(hf), len(o.Flows))
	}
	h, r := make([]float64, len(hf)), make([]float64, len(hf))
	for i, f := range hf {
		v, ok := byPair[htsimPair(f.name)]
		if !ok {
			return nil, nil, fmt.Errorf("htsim's flow %s is not rocelab's", f.name)
		}
		h[i], r[i] = f.us-v.start, v.fct
	}
	return h, r, nil
}
