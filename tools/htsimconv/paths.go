package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The paths subcommand predicts the path htsim_roce -strat ecmp_host
// gives each connection of a run (csg-htsim 841d9e7, FatTreeSwitch::ECMP).
// A switch takes, among its next hops to a destination, the one at
// freeBSDHash(flow id, path id, its salt) modulo their number, and the
// order of those next hops is permuted by random() when the switch first
// routes a packet up to that destination (permute_paths): once per ToR,
// once per destination at an aggregation switch. htsim replaces random()
// by a std::mt19937 (sim/rng.cpp): srandom(-seed) before the topology
// draws the switches' salts, ToRs then aggregation then core switches in
// id order, but every RoceSrc seeds it again with srand(time(NULL)) and
// draws its path id, so all sources share one path id and the
// permutations that follow come from the wall clock of the run's start,
// which -clock gives (a run whose time() is pinned, e.g. by faketime).
// The permutations happen in the order the connections' first packets
// reach the switches, which the prediction emulates for connections that
// all start together: ToRs in id order, then aggregation switches by the
// packet's place in its ToR uplink's queue, the place of that queue's
// first packet under its ToR, and the ToR. ACKs (path id 0) meet
// permutations drawn after sources have drawn RTOs from the same
// generator, which the prediction does not follow.

// mt19937 is C++'s std::mt19937 (Matsumoto and Nishimura's MT19937).
type mt19937 struct {
	s [624]uint32
	i int
}

func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{i: 624}
	m.s[0] = seed
	for i := 1; i < 624; i++ {
		m.s[i] = 1812433253*(m.s[i-1]^m.s[i-1]>>30) + uint32(i)
	}
	return m
}

func (m *mt19937) next() uint32 {
	if m.i == 624 {
		for k := range 624 {
			y := m.s[k]&0x80000000 | m.s[(k+1)%624]&0x7fffffff
			m.s[k] = m.s[(k+397)%624] ^ y>>1
			if y&1 != 0 {
				m.s[k] ^= 0x9908b0df
			}
		}
		m.i = 0
	}
	y := m.s[m.i]
	m.i++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// random is htsim's random(): the engine's next value and INT_MAX.
func (m *mt19937) random() uint32 { return m.next() & 0x7fffffff }

// freeBSDHash is fat_tree_switch.h's hash (Jenkins' mix, as FreeBSD's
// if_bridge has it) of three words.
func freeBSDHash(t1, t2, t3 uint32) uint32 {
	a, b, c := 0x9e3779b9+t1, 0x9e3779b9+t3, t2
	for _, sh := range [3][3]uint32{{13, 8, 13}, {12, 16, 5}, {3, 10, 15}} {
		a -= b + c
		a ^= c >> sh[0]
		b -= c + a
		b ^= a << sh[1]
		c -= a + b
		c ^= b >> sh[2]
	}
	return c
}

// htsimPath is a connection's path up a fat-tree: the aggregation switch
// (with 2 tiers, the spine) its ToR sends it to and the core switch that
// one sends it to (-1 when the destination is under the same ToR or pod,
// and always with 2 tiers).
type htsimPath struct {
	id, src, dst int
	agg, core    int
}

// predictPaths gives the path of each of conns on the k-ary fat-tree of
// tiers tiers (2 or 3) of htsim_roce -seed seed started at wall clock
// clock. With 2 tiers htsim's k ToRs of k/2 hosts each reach all k/2
// spines (fat_tree_topology.cpp): one pod, whose ToRs choose as a 3-tier
// pod's do, among every spine, and no switch above chooses again.
func predictPaths(k, tiers int, conns []htsimConn, seed, clock uint32) ([]htsimPath, error) {
	hpt, tors, podTors := k/2, k*k/2, k/2 // hosts per ToR, ToRs (and aggregation switches), ToRs a pod
	if tiers == 2 {
		tors, podTors = k, k
	}
	rng := newMT19937(seed)
	salt := make([]uint32, 2*tors) // ToRs, then aggregation switches
	for i := range salt {
		salt[i] = rng.random()
	}
	rng = newMT19937(clock)
	pathID := rng.random() % 256
	permute := func(l []int) []int {
		for i := range l {
			ix := int(rng.random() % uint32(len(l)-i))
			l[ix], l[len(l)-1-i] = l[len(l)-1-i], l[ix]
		}
		return l
	}
	tor := func(h int) int { return h / hpt }
	pod := func(h int) int { return h / (hpt * podTors) }
	up := map[int][]int{}
	for _, c := range conns {
		if c.trigger != 0 { // htsim starts every other connection at 0, whatever its start
			return nil, fmt.Errorf("line %d: the permutations' order is emulated for connections that all start together, not for one a trigger starts", c.line)
		}
		if c.id == 0 {
			return nil, fmt.Errorf("line %d: a connection without an id hashes a flow id htsim hands out as it builds its objects, which paths does not emulate: give it id N", c.line)
		}
		if r := tor(c.src); r != tor(c.dst) && up[r] == nil {
			up[r] = make([]int, k/2)
		}
	}
	for r := range tors {
		if l := up[r]; l != nil {
			for a := range l {
				l[a] = r/podTors*(k/2) + a
			}
			permute(l)
		}
	}
	type arrival struct {
		place, head, tor int
		c                int // index in conns
	}
	var arr []arrival
	queued, head := map[[2]int]int{}, map[[2]int]int{}
	paths := make([]htsimPath, len(conns))
	order := make([]int, len(conns))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(conns[a].src, conns[b].src) })
	for _, i := range order {
		c := conns[i]
		paths[i] = htsimPath{id: c.id, src: c.src, dst: c.dst, agg: -1, core: -1}
		r := tor(c.src)
		if r == tor(c.dst) {
			continue
		}
		l := up[r]
		a := l[freeBSDHash(uint32(c.id), pathID, salt[r])%uint32(len(l))]
		paths[i].agg = a
		q := [2]int{r, a}
		if queued[q] == 0 {
			head[q] = c.src % hpt
		}
		arr = append(arr, arrival{queued[q], head[q], r, i})
		queued[q]++
	}
	slices.SortStableFunc(arr, func(x, y arrival) int {
		return cmp.Or(cmp.Compare(x.place, y.place), cmp.Compare(x.head, y.head), cmp.Compare(x.tor, y.tor))
	})
	aggUp := map[[2]int][]int{}
	for _, v := range arr {
		c := conns[v.c]
		if pod(c.src) == pod(c.dst) {
			continue
		}
		a := paths[v.c].agg
		key := [2]int{a, c.dst}
		l := aggUp[key]
		if l == nil {
			l = make([]int, k/2)
			for i := range l {
				l[i] = i*(k/2) + a%(k/2)
			}
			aggUp[key] = permute(l)
		}
		paths[v.c].core = l[freeBSDHash(uint32(c.id), pathID, salt[tors+a])%uint32(len(l))]
	}
	return paths, nil
}

// flowPrefix is how the program names its sources in its flow lines
// (main_roce.cpp and main_hpcc.cpp setName).
func (r *htsimRun) flowPrefix() string {
	if r.program == "htsim_hpcc" {
		return "HPCC"
	}
	return "Roce"
}

// clockFit says how well the paths predicted at clock explain a run's
// completion times (by flow name, prefix_SRC_DST: htsim_roce's Roce,
// htsim_hpcc's HPCC, whose sources draw the path id alike, hpcc.cpp:65-66): the rank correlation
// between each connection's most shared link, counting the connections
// whose data crosses it, and its completion time. Found again this way,
// the recorded runs' seconds are clear of every other (docs/engine.md).
func clockFit(k, tiers int, conns []htsimConn, seed, clock uint32, prefix string, us map[string]float64) (float64, error) {
	paths, err := predictPaths(k, tiers, conns, seed, clock)
	if err != nil {
		return 0, err
	}
	hpt, app := k/2, k/2
	links := func(p htsimPath) [][2]int {
		const agg, core = 1 << 20, 2 << 20
		st, dt := p.src/hpt, p.dst/hpt
		switch {
		case st == dt:
			return nil
		case p.core < 0:
			return [][2]int{{st, agg + p.agg}, {agg + p.agg, dt}}
		}
		down := p.dst/(hpt*k/2)*app + p.core%app
		return [][2]int{{st, agg + p.agg}, {agg + p.agg, core + p.core}, {core + p.core, agg + down}, {agg + down, dt}}
	}
	use := map[[2]int]int{}
	for _, p := range paths {
		for _, l := range links(p) {
			use[l]++
		}
	}
	var shared, fct []float64
	for _, p := range paths {
		t, ok := us[fmt.Sprintf("%s_%d_%d", prefix, p.src, p.dst)]
		if !ok {
			return 0, fmt.Errorf("connection %d (%d->%d) has no completion in the run", p.id, p.src, p.dst)
		}
		m := 1
		for _, l := range links(p) {
			m = max(m, use[l])
		}
		shared = append(shared, float64(m))
		fct = append(fct, t)
	}
	return pearson(ranks(shared), ranks(fct)), nil
}

// ranks gives each value its rank from 0, ties the mean of theirs.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		for _, x := range idx[i:j] {
			r[x] = float64(i+j-1) / 2
		}
		i = j
	}
	return r
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// pathsCmd prints predictPaths' paths for an htsim_roce command line
// with -clock SECONDS added anywhere, or, given -find FROM-TO and -record
// HTSIM_STDOUT instead, the seconds in FROM..TO whose paths fit that
// run's completion times best (clockFit), best first.
func pathsCmd(args []string, w io.Writer) error {
	own := map[string]string{"-clock": "", "-find": "", "-record": ""}
	var rest []string
	for i := 0; i < len(args); i++ {
		if _, ok := own[args[i]]; !ok {
			rest = append(rest, args[i])
			continue
		}
		if i+1 == len(args) {
			return fmt.Errorf("paths: %s: expected a value", args[i])
		}
		own[args[i]] = args[i+1]
		i++
	}
	second := func(v string) (uint32, error) {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n == 0 {
			return 0, fmt.Errorf("paths: %q: expected the run's time(NULL), seconds since 1970", v)
		}
		return uint32(n), nil
	}
	var from, to uint32
	var err error
	switch {
	case own["-clock"] != "" && own["-find"] == "" && own["-record"] == "":
		if from, err = second(own["-clock"]); err != nil {
			return err
		}
		to = from
	case own["-clock"] == "" && own["-find"] != "" && own["-record"] != "":
		a, b, _ := strings.Cut(own["-find"], "-")
		if from, err = second(a); err != nil {
			return err
		}
		if to, err = second(b); err != nil {
			return err
		}
		if to < from || to-from > 10_000_000 {
			return fmt.Errorf("paths: -find %s: expected FROM-TO, at most 10000000 seconds", own["-find"])
		}
	default:
		return errors.New("paths: expected -clock SECONDS (htsim seeds its path ids and permutations with the wall clock), or -find FROM-TO with -record HTSIM_STDOUT")
	}
	r, err := parseHtsimArgs(rest)
	if err != nil {
		return err
	}
	switch {
	case r.tiers != 2 && r.tiers != 3:
		return fmt.Errorf("paths: -tiers %d: predicted for 2 and 3 tiers only", r.tiers)
	case r.strategy != "ecmp_host":
		return fmt.Errorf("paths: -strat %s: predicted for ecmp_host only", r.strategy)
	case r.startDelta && r.program == "htsim_hpcc":
		return errors.New("paths: -start_delta: htsim_hpcc draws each delay (drand) from the generator its paths come from: not predicted")
	case r.tm == "":
		return errors.New("paths: expected -tm FILE")
	}
	k, err := r.fatTreeK()
	if err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	tm, err := os.Open(r.tm)
	if err != nil {
		return err
	}
	defer tm.Close()
	conns, _, _, err := readMatrix(r.tm, tm, r.nodes)
	if err != nil {
		return err
	}
	if own["-record"] == "" {
		paths, err := predictPaths(k, r.tiers, conns, uint32(r.seed), from)
		if err != nil {
			return fmt.Errorf("%s: %w", r.tm, err)
		}
		for _, p := range paths {
			fmt.Fprintf(w, "%d %d->%d agg %d core %d\n", p.id, p.src, p.dst, p.agg, p.core)
		}
		return nil
	}
	f, err := os.Open(own["-record"])
	if err != nil {
		return err
	}
	defer f.Close()
	done, err := readFlowLines(own["-record"], f)
	if err != nil {
		return err
	}
	us := map[string]float64{}
	for _, d := range done {
		us[d.name] = d.us
	}
	type fit struct {
		clock uint32
		rho   float64
	}
	var fits []fit
	for c := from; ; c++ {
		rho, err := clockFit(k, r.tiers, conns, uint32(r.seed), c, r.flowPrefix(), us)
		if err != nil {
			return fmt.Errorf("%s: %w", r.tm, err)
		}
		fits = append(fits, fit{c, rho})
		if c == to {
			break
		}
	}
	slices.SortStableFunc(fits, func(a, b fit) int { return cmp.Compare(b.rho, a.rho) })
	for _, f := range fits[:min(len(fits), 3)] {
		fmt.Fprintf(w, "clock %d rank correlation %.3f\n", f.clock, f.rho)
	}
	return nil
}
