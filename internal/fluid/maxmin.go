package fluid

// Max-min fair rates by progressive filling (water-filling), over one
// connected component of links and the active flows that cross them.
//
// A flow crosses each link in one priority class; a (link, class) pair is
// a sub-link with a capacity share. Every unfrozen flow's rate rises at
// the same pace (the fill level); when a sub-link's capacity is used up,
// the flows crossing it freeze at the level reached, and when the level
// reaches a flow's own cap (a rate-limited QP, a TCP socket) it freezes
// there. A sub-link's level, what is left of its capacity over the
// unfrozen flows crossing it, only rises as flows freeze elsewhere, so a
// heap with stale entries skipped finds the next sub-link to fill in
// O(log n): the whole fill costs O(hops × log sub-links) per flow.
//
// Classes share a link as the ETS scheduler does: strict classes first,
// highest priority first, and the classes that remain by their DWRR
// weights, a class that cannot use its share (its flows are held
// elsewhere) leaving the rest to the others. With more than one class on
// a link the shares are found by a few rounds of filling (see setShares).

import (
	"math"
	"slices"
)

// subOf returns the sub-link of link l in class c.
func subOf(l int32, c uint8) int32 { return l*8 + int32(c) }

// hent is a heap entry: a sub-link's fill level when pushed, and its
// version then (an entry whose version is older is stale).
type hent struct {
	key float64
	sub int32
	ver uint32
}

// levelHeap is a binary min-heap of sub-link levels, ties broken by
// sub-link so the fill order is deterministic.
type levelHeap []hent

func (h levelHeap) less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key < h[j].key
	}
	return h[i].sub < h[j].sub
}

func (h *levelHeap) push(e hent) {
	*h = append(*h, e)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *levelHeap) pop() hent {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && a.less(r, l) {
			m = r
		}
		if !a.less(m, i) {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// solver holds the scratch state of one fill, reused from one to the
// next so that a recomputation does not allocate once warm.
type solver struct {
	// gen marks what one component's search saw, fgen what one fill froze.
	gen, fgen uint32
	// Per link: the generation that saw it (BFS), that seeded and that
	// searched it, and its level in the search (near); per sub-link the
	// generation that initialised it.
	linkSeen []uint32
	seed     []uint32
	searched []uint32
	lvl      []uint8
	// levels are the links to search, by level (near).
	levels [][]int32
	// local says the component is near's: flows outside it cross its
	// links, held at their rates.
	local    bool
	subSeen  []uint32
	flowSeen []uint32
	// Per sub-link: capacity share, what is left, unfrozen flows, version.
	share []float64
	rem   []float64
	wt    []float64
	// dwt counts the unfrozen flows whose data crosses each sub-link: only
	// those a full sub-link freezes (ACKs take their share of it, but a
	// link full of others' data does not hold a flow's ACKs back).
	dwt  []float64
	ver  []uint32
	used []float64

	links []int32 // the component's links
	flows []int32 // the component's flows
	subs  []int32 // the component's sub-links in use
	queue []int32
	heap  levelHeap
	capd  []capEnt // flows with a cap (held flows: their rate), by cap
	// held are the flows outside a near component that cross its links.
	held     []int32
	heldSeen []uint32
	rate     []float64
	froze    []uint32
	// bneck is the hop each flow froze at: its bottleneck (-1: its cap).
	bneck []int32
	// ingress is scratch for the congestion estimate.
	ingress []ingress
	multi   []int32 // links with more than one class in use
	remark  []int32 // links whose marking changed (congestion)
}

func (s *solver) init(nlinks, nflows int) {
	s.linkSeen = make([]uint32, nlinks)
	s.seed = make([]uint32, nlinks)
	s.searched = make([]uint32, nlinks)
	s.lvl = make([]uint8, nlinks)
	n := 8 * nlinks
	s.subSeen = make([]uint32, n)
	s.share = make([]float64, n)
	s.rem = make([]float64, n)
	s.wt = make([]float64, n)
	s.dwt = make([]float64, n)
	s.ver = make([]uint32, n)
	s.used = make([]float64, n)
	s.grow(nflows)
}

// grow makes room for flows up to n.
func (s *solver) grow(n int) {
	for len(s.flowSeen) < n {
		s.flowSeen = append(s.flowSeen, 0)
		s.rate = append(s.rate, 0)
		s.froze = append(s.froze, 0)
		s.heldSeen = append(s.heldSeen, 0)
		s.bneck = append(s.bneck, -1)
	}
}

// component collects the links and active flows reachable from the seed
// links through shared active flows, in a deterministic order.
func (e *Engine) component(seeds []int32) {
	s := &e.sol
	s.gen++
	g := s.gen
	s.local = false
	s.links, s.flows, s.queue = s.links[:0], s.flows[:0], s.queue[:0]
	for _, l := range seeds {
		if s.linkSeen[l] != g {
			s.linkSeen[l] = g
			s.queue = append(s.queue, l)
		}
	}
	for i := 0; i < len(s.queue); i++ {
		l := s.queue[i]
		s.links = append(s.links, l)
		for _, fh := range e.net.links[l].flows {
			if s.flowSeen[fh.flow] == g {
				continue
			}
			s.flowSeen[fh.flow] = g
			s.flows = append(s.flows, fh.flow)
			for _, l2 := range e.flows[fh.flow].legs {
				if s.linkSeen[l2] != g {
					s.linkSeen[l2] = g
					s.queue = append(s.queue, l2)
				}
			}
		}
	}
}

// solve computes the max-min fair rates of the component's flows into
// s.rate. It refuses (false) a component of near's where classes share a
// link: the ETS shares follow what every class uses there.
func (e *Engine) solve() bool {
	s := &e.sol
	g := s.gen
	s.subs = s.subs[:0]
	s.multi = s.multi[:0]
	for _, l := range s.links {
		lk := &e.net.links[l]
		var classes uint8
		for _, fh := range lk.flows {
			classes |= 1 << fh.cls
		}
		for c := uint8(0); c < 8; c++ {
			if classes&(1<<c) == 0 {
				continue
			}
			sub := subOf(l, c)
			s.subSeen[sub] = g
			s.share[sub] = lk.bps
			s.subs = append(s.subs, sub)
		}
		if classes&(classes-1) != 0 {
			s.multi = append(s.multi, l)
		}
	}
	if s.local && len(s.multi) > 0 {
		return false
	}
	if len(s.multi) == 0 {
		e.fill()
		return true
	}
	// Several classes share some links: start from the ETS shares, fill,
	// and give what a class leaves unused to the others, until the shares
	// settle.
	for _, l := range s.multi {
		e.etsShares(l, false)
	}
	for round := 0; round < 16; round++ {
		e.fill()
		changed := false
		for _, l := range s.multi {
			changed = e.etsShares(l, true) || changed
		}
		if !changed {
			return true
		}
	}
	return true
}

// etsShares sets the class shares of link l: strict classes (of the
// link's scheduler) may take what higher strict classes leave; the DWRR
// classes split the rest by weight, except that a class whose flows used
// less than its share (they are held elsewhere) keeps only what it used.
// With measured false it starts from the weights alone. It reports
// whether a share changed.
func (e *Engine) etsShares(l int32, measured bool) bool {
	s := &e.sol
	lk := &e.net.links[l]
	strict, weights := e.cfg.SwitchStrict, &e.cfg.SwitchWeights
	if lk.nicTx {
		strict, weights = e.cfg.NICStrict, &e.cfg.NICWeights
	}
	g := s.gen
	changed := false
	set := func(sub int32, v float64) {
		if math.Abs(s.share[sub]-v) > 1e-9*lk.bps {
			changed = true
		}
		s.share[sub] = v
	}
	left := lk.bps
	for c := 7; c >= 0; c-- {
		sub := subOf(l, uint8(c))
		if s.subSeen[sub] != g || strict&(1<<c) == 0 {
			continue
		}
		set(sub, left)
		if measured {
			left = math.Max(0, left-s.used[sub])
		}
	}
	// DWRR classes: water-fill left by weight over their demands (what
	// they used when they did not fill their share, else unbounded).
	type dc struct {
		sub    int32
		w, dem float64
	}
	var buf [8]dc
	ds := buf[:0]
	for c := 0; c < 8; c++ {
		sub := subOf(l, uint8(c))
		if s.subSeen[sub] != g || strict&(1<<c) != 0 {
			continue
		}
		w := float64(max(weights[c], 1))
		dem := math.Inf(1)
		if measured && s.used[sub] < s.share[sub]*(1-1e-9) {
			dem = s.used[sub]
		}
		ds = append(ds, dc{sub, w, dem})
	}
	for len(ds) > 0 {
		var wsum float64
		for _, d := range ds {
			wsum += d.w
		}
		// Classes whose demand is below their weighted share take their
		// demand; the others split what remains.
		satisfied := false
		for i := 0; i < len(ds); {
			if d := ds[i]; d.dem <= left*d.w/wsum {
				set(d.sub, d.dem)
				left -= d.dem
				ds = append(ds[:i], ds[i+1:]...)
				satisfied = true
				continue
			}
			i++
		}
		if !satisfied {
			for _, d := range ds {
				set(d.sub, left*d.w/wsum)
			}
			break
		}
	}
	return changed
}

// fill runs one progressive filling of the component with the current
// shares, leaving each flow's rate in s.rate and each sub-link's use in
// s.used. The flows held at their rates (near) rise with the level as
// they would in a fill of the whole component, up to their rate, and
// take their share of the component's links on the way; their own
// rates and bottlenecks are left as they are.
func (e *Engine) fill() {
	s := &e.sol
	g := s.gen
	s.fgen++
	fg := s.fgen
	for _, sub := range s.subs {
		s.rem[sub] = s.share[sub]
		s.wt[sub] = 0
		s.dwt[sub] = 0
		s.used[sub] = 0
		s.ver[sub]++
	}
	s.held = s.held[:0]
	if s.local {
		for _, l := range s.links {
			for _, fh := range e.net.links[l].flows {
				if s.flowSeen[fh.flow] != g && s.heldSeen[fh.flow] != g {
					s.heldSeen[fh.flow] = g
					s.held = append(s.held, fh.flow)
				}
			}
		}
	}
	s.capd = s.capd[:0]
	for _, f := range s.flows {
		e.enter(f, false)
		if c := e.flows[f].capBps; c > 0 {
			s.capd = append(s.capd, capEnt{at: c, flow: f})
		}
	}
	for _, f := range s.held {
		e.enter(f, true)
		s.capd = append(s.capd, capEnt{at: e.flows[f].rate, flow: f})
	}
	if len(s.capd) > 1 {
		slices.SortFunc(s.capd, func(a, b capEnt) int {
			switch {
			case a.at < b.at:
				return -1
			case a.at > b.at:
				return 1
			}
			return int(a.flow - b.flow)
		})
	}
	s.heap = s.heap[:0]
	for _, sub := range s.subs {
		if s.dwt[sub] > 0 {
			s.heap.push(hent{key: s.rem[sub] / s.wt[sub], sub: sub, ver: s.ver[sub]})
		}
	}
	ci := 0
	for {
		for len(s.heap) > 0 {
			top := s.heap[0]
			if top.ver == s.ver[top.sub] && s.dwt[top.sub] > 0 {
				break
			}
			s.heap.pop()
		}
		for ci < len(s.capd) && s.froze[s.capd[ci].flow] == fg {
			ci++
		}
		if ci < len(s.capd) && (len(s.heap) == 0 || s.capd[ci].at <= s.heap[0].key) {
			e.freeze(s.capd[ci].flow, s.capd[ci].at, fg, -1)
			ci++
			continue
		}
		if len(s.heap) == 0 {
			break
		}
		top := s.heap.pop()
		level := math.Max(0, top.key)
		l, c := top.sub/8, uint8(top.sub%8)
		for _, fh := range e.net.links[l].flows {
			if fh.data && fh.cls == c && s.froze[fh.flow] != fg {
				e.freeze(fh.flow, level, fg, int32(fh.hop))
			}
		}
	}
}

// capEnt is a flow that stops rising at a rate of its own: its cap, or
// for a held flow its current rate.
type capEnt struct {
	at   float64
	flow int32
}

// enter puts flow f's legs on the component's sub-links into the fill
// (a held flow crosses some links outside it).
func (e *Engine) enter(f int32, held bool) {
	s := &e.sol
	fl := &e.flows[f]
	for h, sub := range fl.subs {
		if held && s.subSeen[sub] != s.gen {
			continue
		}
		s.wt[sub] += fl.weight(h)
		if h < len(fl.path) {
			s.dwt[sub]++
		}
	}
}

// freeze fixes flow f at rate r, held at hop, and takes it out of its
// sub-links. A held flow (near) keeps its own rate and bottleneck.
func (e *Engine) freeze(f int32, r float64, fg uint32, hop int32) {
	s := &e.sol
	s.froze[f] = fg
	held := s.flowSeen[f] != s.gen
	if !held {
		s.rate[f] = r
		s.bneck[f] = hop
	}
	fl := &e.flows[f]
	for h, sub := range fl.subs {
		if held && s.subSeen[sub] != s.gen {
			continue
		}
		w := fl.weight(h)
		s.rem[sub] -= w * r
		s.used[sub] += w * r
		s.wt[sub] -= w
		s.ver[sub]++
		if h < len(fl.path) {
			s.dwt[sub]--
		}
		if s.dwt[sub] > 0 {
			s.heap.push(hent{key: s.rem[sub] / s.wt[sub], sub: sub, ver: s.ver[sub]})
		}
	}
}
