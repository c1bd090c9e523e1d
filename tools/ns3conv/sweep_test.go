package main

import (
	"cmp"
	"fmt"
	"io"
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
	"rocelab/internal/unit"
	"rocelab/tools/internal/agree"
)

// sweepCase is one random workload for ns-3: a rocelab scenario that the
// converter maps to ns-3's input.
type sweepCase struct {
	name string
	yaml string
}

// newSweepCase draws case i of the ns-3 sweep: a fabric ns3conv writes
// (one switch of 8-16 hosts, a leaf-spine of 2-4 leaves of 4 or 8 hosts
// and 1-8 spines, one link from each leaf to each, or the 3-tier fat-tree
// of k = 4), one rate for every link (25, 50, 100, 200 or 400G, with the
// buffer, ECN thresholds and DCQCN and HPCC steps run.py scales with it),
// 1 or 4 KB packets, 100-400 m of cable, DCQCN (half of them with run.py's
// ACK_HIGH_PRIO 1), HPCC or PFC alone (from case 96 on TIMELY, DCTCP or
// HPCC-PINT too), and one of these workloads:
// incasts, a permutation of one size or mixed sizes, an all-to-all of a
// group, random pairs of mixed sizes with staggered starts, or an incast
// over a permutation. The bytes scale with the rate so that runs last
// about as long.
func newSweepCase(i int) sweepCase {
	rng := rand.New(rand.NewPCG(uint64(i), 0x25ee_d5e3))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	bw := []int{25, 50, 100, 100, 200, 400}[rng.IntN(6)] // Gb/s
	mtu := pick("1024", "4096", "4096")
	cable := []int{100, 200, 200, 400}[rng.IntN(4)] // m, 5 ns each
	var top, fabric string
	var hosts int
	switch rng.IntN(4) {
	case 0:
		hosts = 8 + 4*rng.IntN(3)
		fabric = "1sw"
		top = fmt.Sprintf("{kind: single-switch, hosts: %d, host_link: {rate: %dG, cable: %dm}}", hosts, bw, cable)
	case 1:
		hosts, fabric = 16, "ft4"
		top = fmt.Sprintf("{kind: fat-tree, k: 4, host_link: {rate: %dG, cable: %dm}}", bw, cable)
	default:
		leaves, per, spines := 2+rng.IntN(3), []int{4, 8}[rng.IntN(2)], []int{1, 2, 4, 8}[rng.IntN(4)]
		hosts, fabric = leaves*per, fmt.Sprintf("%dl%ds", leaves, spines)
		top = fmt.Sprintf("{kind: leaf-spine, leaves: %d, spines: %d, hosts_per_leaf: %d, uplinks_per_leaf: %d,\n  host_link: {rate: %dG, cable: %dm}, fabric_link: {rate: %dG, cable: %dm}}",
			leaves, spines, per, spines, bw, cable, bw, cable)
	}
	ccName := pick("dcqcn", "dcqcn", "hpcc", "none")
	var host string
	switch ccName {
	case "dcqcn":
		qp := "{ack_coalesce: 1, order: index, rate_change: next_packet}"
		if rng.IntN(2) == 0 {
			qp = "{ack_coalesce: 1, order: index, rate_change: next_packet, acks_first: true}"
			ccName = "dcqcn-ackhigh"
		}
		host = fmt.Sprintf("  cc: dcqcn\n  dcqcn: {preset: mlx5, dce_tcp_g: 1020, initial_alpha_value: 1024, rpg_min_rate: 1000, rpg_ai_rate: %d,\n    rpg_hai_rate: %d, min_time_between_cnps: 0, cnp_dscp: 26, cnp_802p_prio: 3}\n  qp: %s\n",
			5*bw/25, 50*bw/25, qp)
	case "hpcc":
		host = fmt.Sprintf("  ecn: false\n  cc: hpcc\n  hpcc: {preset: ns3, ai_rate: %d}\n  qp: {ack_coalesce: 1, order: index, rate_change: retime_all}\n", 10*bw/25)
	default:
		ccName = "pfc"
		host = "  ecn: false\n  cc: none\n  qp: {ack_coalesce: 1, order: index}\n"
	}
	// From case 96 on, half the cases take one of the other controls
	// ns3conv maps, with run.py's knobs for the rate, drawn apart so that
	// cases 0-95 draw as before.
	kmin, kmax, pmax := 4*bw, 16*bw, "0.2"
	if i >= 96 {
		x := rand.New(rand.NewPCG(uint64(i), 0x96cc))
		switch x.IntN(6) {
		case 0:
			ccName = "timely"
			host = fmt.Sprintf("  ecn: false\n  cc: timely\n  timely: {preset: ns3, ai_rate: %d, hai_rate: %d}\n  qp: {ack_coalesce: 1, order: index, rate_change: next_packet}\n", bw, 5*bw)
		case 1:
			ccName = "dctcp"
			host = "  cc: dctcp\n  dctcp: {preset: ns3}\n  qp: {ack_coalesce: 1, order: index, rate_change: next_packet}\n"
			kmin, kmax, pmax = 3*bw, 3*bw, "1.0"
		case 2:
			ccName = "pint"
			host = fmt.Sprintf("  ecn: false\n  cc: hpcc-pint\n  hpcc_pint: {preset: ns3, ai_rate: %d}\n  qp: {ack_coalesce: 1, order: index, rate_change: retime_all}\n", 10*bw/25)
		}
	}
	size := func(lo, hi float64) int64 { // log-uniform, in bytes at 100G
		return max(1, int64(math.Exp(math.Log(lo)+rng.Float64()*(math.Log(hi)-math.Log(lo)))*float64(bw)/100))
	}
	type flow struct{ src, dst, bytes, start int64 }
	var fl []flow
	add := func(src, dst int, bytes int64, startNS int64) {
		if src != dst {
			fl = append(fl, flow{int64(src), int64(dst), bytes, startNS})
		}
	}
	kind := pick("incast", "perm", "a2a", "mixed", "incast+perm")
	switch kind {
	case "incast":
		deg := min(hosts-1, []int{4, 7, 12, 15}[rng.IntN(4)])
		for range 1 + rng.IntN(2) {
			dst, sz := rng.IntN(hosts), size(1e5, 2e6)
			for _, s := range rng.Perm(hosts)[:deg+1] {
				add(s, dst, sz, 0)
			}
		}
	case "perm":
		sz, mixed := size(2e5, 4e6), rng.IntN(2) == 0
		for s, d := range rng.Perm(hosts) {
			if mixed {
				sz = size(1e4, 4e6)
			}
			add(s, d, sz, 0)
		}
	case "a2a":
		group := rng.Perm(hosts)[:min(hosts, 4+rng.IntN(9))]
		sz := size(8e3, 2.5e5)
		for _, s := range group {
			for _, d := range group {
				add(s, d, sz, 0)
			}
		}
	case "mixed":
		for range hosts * (1 + rng.IntN(3)) {
			add(rng.IntN(hosts), rng.IntN(hosts), size(4e3, 4e6), int64(rng.Float64()*100e3))
		}
	case "incast+perm":
		for s, d := range rng.Perm(hosts) {
			add(s, d, size(5e5, 2e6), 0)
		}
		dst := rng.IntN(hosts)
		for _, s := range rng.Perm(hosts)[:min(hosts-1, 8)+1] {
			add(s, dst, size(5e4, 5e5), int64(rng.Float64()*20e3))
		}
	}
	// The first flow starts at 0, as from-ns3 counts starts: the case
	// goes to ns-3's files and back alike.
	first := slices.MinFunc(fl, func(a, b flow) int { return cmp.Compare(a.start, b.start) }).start
	flows := make([]string, len(fl))
	for k, f := range fl {
		flows[k] = fmt.Sprintf("    - {src: h%d, dst: h%d, bytes: %d, start: %dns}", f.src, f.dst, f.bytes, f.start-first)
	}
	name := fmt.Sprintf("n%02d-%s-%s-%s-%dh-%dG-mtu%s", i, kind, ccName, fabric, hosts, bw, mtu)
	delayNS := int64(cable) * 5
	y := fmt.Sprintf(`# Drawn by newSweepCase(%d) (tools/ns3conv/sweep_test.go): synthetic,
# the HPCC ns-3 model's switch and NIC as run.py writes them for %dG.
name: %s
duration: 100ms
topology: %s
phy: {clock_ppm: 0, fec_jitter: 0ns}
switch:
  ecmp: {model: ns3}
  buffer: %dMiB
  alpha: 1/8
  reserve: 4KiB
  pfc: {xon_offset: 3KiB, headroom: %d, response_time: 1ps}
  ecn: {kmin: %dKB, kmax: %dKB, pmax: %s, at: dequeue}
host:
  mtu: %s
%s  rx: {pfc: false}
traffic:
  flows:
%s
`, i, bw, name, top, 16*bw/50, int64(bw)*delayNS/8*3, kmin, kmax, pmax, mtu, host, strings.Join(flows, "\n"))
	return sweepCase{name: name, yaml: y}
}

// The drawn cases stay inside what both simulators model: each loads and
// converts to ns-3's input, the first 40 draw every rate, congestion
// control, fabric and workload, and cases 96-135 TIMELY, DCTCP and
// HPCC-PINT as well.
func TestRandomNs3CasesConvert(t *testing.T) {
	seen, later := map[string]bool{}, map[string]bool{}
	for k := range 80 {
		i := k/2 + k%2*96 // cases 0-39 and 96-135
		c := newSweepCase(i)
		s, err := scenario.Load(c.name+".yaml", []byte(c.yaml))
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, c.yaml)
		}
		if _, err := convert(s, c.name); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
		if i < 96 {
			for _, part := range strings.Split(c.name, "-") {
				seen[part] = true
			}
		} else {
			later[s.Host.NIC.CC] = true
		}
		if d := newSweepCase(i); d != c {
			t.Fatalf("case %d drew differently twice", i)
		}
		rate := s.Topo.Links[0].Rate
		if got, want := s.Switch.PFC.Headroom, ns3Headroom(s.Topo.Links[0].LinkSpec); got != want {
			t.Errorf("case %d: headroom %d, ns-3's %d", i, got, want)
		}
		if got, want := s.Switch.Buffer, unit.Bytes(int64(rate/unit.Gbps)*16/50)*unit.MiB; got != want {
			t.Errorf("case %d: buffer %v, run.py's %v", i, got, want)
		}
	}
	for _, want := range []string{"incast", "perm", "a2a", "mixed", "perm", "dcqcn", "ackhigh", "hpcc", "pfc",
		"25G", "50G", "100G", "200G", "400G", "mtu1024", "mtu4096", "1sw", "ft4", "4l8s", "4l1s"} {
		if !seen[want] {
			t.Errorf("no case of the first 40 draws %s", want)
		}
	}
	for _, want := range []string{"dcqcn", "hpcc", "none", "timely", "dctcp", "hpcc-pint"} {
		if !later[want] {
			t.Errorf("no case of 96-135 draws cc %s", want)
		}
	}
}

// TestCompareRandomCasesWithNs3 runs random cases (newSweepCase) on the HPCC ns-3 model
// built in $NS3_DIR (its simulation/ folder, scratch/third built:
// docs/engine.md "Building it") and on rocelab, from the same scenario,
// and logs the flow completion times' mean, median and largest side by
// side, each averaged over SWEEP_SEEDS runs (default 2: ns-3's RngRun,
// which draws its ECN marks, and the scenario's seed, which the converter
// writes into the flows' destination port, so both take ns-3's ECMP
// paths of that seed), with the median of the per-flow ratios
// rocelab/ns-3 and the PFC pauses of each. Without $NS3_DIR it is skipped:
// it explores, the agreement tests hold recorded runs. SWEEP=FROM-TO picks
// the cases (default 0-15), SWEEP_SEED_FROM=N runs seeds N on (default
// 1), SWEEP_KEEP=DIR keeps each run's scenario, ns-3 input and output and
// a per-flow table (src dst sport bytes ns-3 rocelab ratio).
func TestCompareRandomCasesWithNs3(t *testing.T) {
	dir := os.Getenv("NS3_DIR")
	if dir == "" {
		t.Skip("NS3_DIR (the HPCC ns-3 model's simulation/ with scratch/third built) not set")
	}
	third := filepath.Join(dir, "build", "scratch", "third")
	if _, err := os.Stat(third); err != nil {
		t.Fatalf("no ns-3 scratch/third: %v", err)
	}
	sw := agree.SweepEnv(0, 15, 2)
	for i := sw.From; i <= sw.To; i++ {
		c := newSweepCase(i)
		var n, r agree.Seeds
		var ratio float64
		var np, rp pauses
		runs := 0
		for seed := sw.FirstSeed; seed < sw.FirstSeed+sw.Seeds; seed++ {
			out := sw.Keep
			if out == "" {
				out = t.TempDir()
			}
			out = filepath.Join(out, fmt.Sprintf("%s-seed%d", c.name, seed))
			got, err := sweepRun(c, dir, third, out, seed)
			if err != nil {
				t.Errorf("%s seed %d: %v", c.name, seed, err)
				continue
			}
			n.Add(got.ns3)
			r.Add(got.rocelab)
			ratio += agree.Summarise(got.ratio).P50
			if got.ns3Pauses != nil {
				np.n += got.ns3Pauses.n
			}
			rp.n += got.rocelabPauses.n
			runs++
		}
		if runs == 0 {
			continue
		}
		ns, rs := n.Mean(), r.Mean()
		t.Logf("SWEEP %-38s %4d | mean %8.1f %8.1f %+6.1f%% | p50 %8.1f %8.1f %+6.1f%% | max %8.1f %8.1f %+6.1f%% | ratio %.3f | pauses %d %d",
			c.name, runs, ns.Mean, rs.Mean, pct(rs.Mean, ns.Mean), ns.P50, rs.P50, pct(rs.P50, ns.P50),
			ns.Max, rs.Max, pct(rs.Max, ns.Max), ratio/float64(runs), np.n/runs, rp.n/runs)
	}
}

// sweepRun writes case c's scenario and ns-3 input into out, runs ns-3's
// third there with RngRun seed and compares its fct.txt with rocelab's
// run of the scenario at the same seed. A scenario the converter refuses
// is an error that carries its reasons.
func sweepRun(c sweepCase, dir, third, out string, seed int) (*comparison, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	file := filepath.Join(out, "scenario.yaml")
	if err := os.WriteFile(file, []byte(c.yaml), 0o644); err != nil {
		return nil, err
	}
	s, err := scenario.Load(file, []byte(c.yaml))
	if err != nil {
		return nil, err
	}
	s.Seed = uint64(seed)
	f, err := convert(s, file)
	if err != nil {
		return nil, fmt.Errorf("refused: %v", err)
	}
	if err := f.write(func(name string) (io.WriteCloser, error) { return os.Create(filepath.Join(out, name)) }); err != nil {
		return nil, err
	}
	cmd := exec.Command("nice", "-n", "10", third, "config.txt")
	cmd.Dir = out
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Join(dir, "build"), "NS_GLOBAL_VALUE=RngRun="+strconv.Itoa(seed))
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ns-3: %v\n%s", err, b)
	}
	got, err := whole(compare(file, uint64(seed), filepath.Join(out, "fct.txt"), filepath.Join(out, "pfc.txt"), nil))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for k, x := range got.flows {
		fl := f.flows[k]
		fmt.Fprintf(&b, "h%d h%d %d %d %.3f %.3f %.4f\n", fl.Src, fl.Dst, fl.sport, x.Size, x.Other, x.Rocelab, got.ratio[k])
	}
	return got, os.WriteFile(filepath.Join(out, "flows.txt"), []byte(b.String()), 0o644)
}

func pct(a, b float64) float64 { return 100 * (a/b - 1) }
