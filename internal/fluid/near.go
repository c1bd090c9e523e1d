package fluid

import "math"

// Which flows a change can move. A flow that starts or stops changes the
// fair shares of the links it crosses, and through the flows held there
// the shares of their other links, and so on. Recomputing the whole
// connected component at every change is what made large jobs slow: the
// ACKs of a ring's flows load the links of their neighbours' data, so a
// DP ring of 128 servers is one component, and every ring step moved
// every flow of it by a few parts in a million.
//
// Two facts bound the search, so that only the flows a change can move
// by a meaningful amount are recomputed, with every other flow held at
// its rate:
//
//   - A link can never be full when the flows crossing it could not fill
//     it even at their fastest (each at most its cap and its slowest data
//     link): it holds nobody back and couples nobody (slack).
//   - A flow's ACKs are a fraction ackW (1-2 %) of its data's bytes, and
//     ACK legs never hold a flow back, so a change that reaches a link
//     only through ACK legs is scaled by ackW per such hop. After depth
//     hops it is below nearTol of the link, and the search stops there.
//
// Data legs carry a change at full strength, so flows that contend for
// the same bottleneck are always recomputed together. The links the
// recomputed flows cross enter the fill, and so do the other flows that
// cross them, held at their rates (fill).

// nearTol is the largest change of a link's fair share, relative to its
// capacity, that a recomputation leaves to the next one that reaches it.
const nearTol = 1e-9

// maxDepth bounds the search when ACKs are a large share of the data.
const maxDepth = 32

// ackDepth returns how many ACK hops a change is followed before it is
// under nearTol, when each hop scales it by at most w.
func ackDepth(w float64) int {
	if w <= 0 {
		return 0
	}
	if w >= 0.5 {
		return maxDepth
	}
	return min(maxDepth, int(math.Ceil(math.Log(nearTol)/math.Log(w))))
}

// slack reports whether link l can never be full: what its flows could
// bring at their fastest stays under its capacity.
func (e *Engine) slack(l int32) bool {
	lk := &e.net.links[l]
	var sum float64
	for _, fh := range lk.flows {
		fl := &e.flows[fh.flow]
		sum += fl.weight(int(fh.hop)) * fl.ub
	}
	return sum < lk.bps*(1-1e-9)
}

// near collects the flows the changes on the seed links can move (the
// flows with data on a seed link, and what reaches them through the
// links of the search) and every link those flows cross. Seed links are
// searched even when slack now: a flow that left may have filled them.
func (e *Engine) near(seeds []int32) {
	s := &e.sol
	s.gen++
	g := s.gen
	s.local = true
	s.links, s.flows = s.links[:0], s.flows[:0]
	depth := e.depth
	for len(s.levels) <= depth {
		s.levels = append(s.levels, nil)
	}
	for k := range s.levels {
		s.levels[k] = s.levels[k][:0]
	}
	for _, l := range seeds {
		s.seed[l] = g
		s.reach(l, 0, depth)
	}
	for k := 0; k <= depth; k++ {
		for i := 0; i < len(s.levels[k]); i++ {
			l := s.levels[k][i]
			if s.searched[l] == g {
				continue
			}
			s.searched[l] = g
			if s.seed[l] != g && e.slack(l) {
				continue
			}
			for _, fh := range e.net.links[l].flows {
				if !fh.data || s.flowSeen[fh.flow] == g {
					continue
				}
				s.flowSeen[fh.flow] = g
				s.flows = append(s.flows, fh.flow)
				fl := &e.flows[fh.flow]
				for h, l2 := range fl.legs {
					s.reach(l2, k+b2i(h >= len(fl.path)), depth)
				}
			}
		}
	}
}

// reach notes that the search reaches link l at level k (the ACK hops on
// the way), and queues it for searching when k is within depth and less
// than it was reached at before.
func (s *solver) reach(l int32, k, depth int) {
	if s.linkSeen[l] != s.gen {
		s.linkSeen[l] = s.gen
		s.links = append(s.links, l)
	} else if int(s.lvl[l]) <= k {
		return
	}
	s.lvl[l] = uint8(k)
	if k <= depth {
		s.levels[k] = append(s.levels[k], l)
	}
}
