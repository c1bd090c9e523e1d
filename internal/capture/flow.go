package capture

import (
	"net/netip"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/wire"
)

// flow returns the flow of key k, creating it at packet p.
func (a *Analysis) flow(k FlowKey, p *Packet, t unit.Time, f *wire.Frame) *Flow {
	if c := a.cache; c != nil && c.Key == k {
		return c
	}
	fl, ok := a.flows[k]
	if !ok {
		pcp := -1
		if f.VLAN {
			pcp = int(f.PCP)
		}
		fl = &Flow{
			Key: k, SrcMAC: macString(f.SrcMAC), DstMAC: macString(f.DstMAC), UDPSrcPort: f.SrcPort,
			DSCP: f.DSCP(), PCP: pcp, FirstPacket: p.Num, First: t, NAKs: map[string]int64{},
		}
		a.flows[k] = fl
		pair := [2]netip.Addr{k.Src, k.Dst}
		a.byPair[pair] = append(a.byPair[pair], fl)
	}
	a.cache = fl
	return fl
}

// addRoCE accounts one RoCEv2 packet to its flow.
func (a *Analysis) addRoCE(p *Packet, t unit.Time, f *wire.Frame) {
	if f.Truncated {
		a.TruncatedPackets++
		if f.MirrorTruncated {
			a.mirrorCut++
		}
	}
	bth := &f.BTH
	fl := a.flow(FlowKey{Src: f.SrcIP, Dst: f.DstIP, QPN: bth.DestQP}, p, t, f)
	n := int64(f.WireLen())
	fl.Packets++
	fl.Bytes += n
	fl.PayloadBytes += int64(f.PayloadLen)
	fl.LastPacket, fl.Last = p.Num, t
	if f.Truncated {
		fl.Truncated++
	}
	switch f.ECN() {
	case wire.CE:
		fl.CE++
	case wire.ECT0, wire.ECT1:
		fl.ECT++
	}
	a.addTimeline(fl, t, n)
	op := bth.Opcode
	switch {
	case op == roce.OpCNP:
		fl.CNPs++
		countBin(&fl.TimelineCNPs, fl)
		a.pair(fl, bth.PSN, false)
	case op.IsRequest():
		fl.Requests++
		fl.Requester.track(fl, p, t, bth.PSN, n)
		fl.Requester.afterReadRequest = op == roce.OpReadRequest
		if fl.TimelinePSN == nil {
			fl.TimelinePSN = make([]int64, len(fl.Timeline))
		}
		fl.TimelinePSN[fl.cur] = fl.Requester.progress
	case op.IsResponse():
		fl.Responses++
		a.pair(fl, bth.PSN, true)
		if f.Decoded&roce.HasAETH != 0 {
			a.addAETH(fl, p, f.AETH.Syndrome, bth.PSN)
		}
		if op >= roce.OpReadResponseFirst && op <= roce.OpReadResponseOnly {
			fl.Responder.track(fl, p, t, bth.PSN, n)
		}
	case op.Transport() == roce.TransportRD:
		a.RDPackets++
	}
}

// addAETH counts an ACK (and the highest PSN acknowledged) or a NAK, and
// hands a NAK to the peer's next episode.
func (a *Analysis) addAETH(fl *Flow, p *Packet, syn uint8, psn uint32) {
	switch roce.SyndromeKind(syn) {
	case roce.KindACK:
		fl.ACKs++
		if !fl.acked || roce.PSNDiff(psn, fl.ackedPSN) > 0 {
			fl.ackedPSN, fl.acked = psn, true
		}
		return
	case roce.KindRNRNAK:
		fl.NAKs["RNR NAK"]++
	default:
		fl.NAKs[roce.SyndromeName(syn)]++
	}
	countBin(&fl.TimelineNAKs, fl)
	if pr := fl.peer; pr != nil && pr.pendingNAK == nil {
		pr.pendingNAK = &pendingNAK{packet: p.Num, syndrome: syn}
	}
}

// pair links a responding flow r (B to A) with a requesting flow from A to
// B, once (see the package doc).
func (a *Analysis) pair(r *Flow, psn uint32, byPSN bool) {
	if r.peer != nil {
		return
	}
	var best, latest *Flow
	for _, c := range a.byPair[[2]netip.Addr{r.Key.Dst, r.Key.Src}] {
		if latest == nil || c.LastPacket > latest.LastPacket {
			latest = c
		}
		s := &c.Requester
		if !byPSN || s.Tracked == 0 {
			continue
		}
		if roce.PSNDiff(psn, s.FirstPSN) >= 0 && roce.PSNDiff(psn, roce.PSNAdd(s.HighestPSN, 1)) <= 0 {
			if best == nil || c.LastPacket > best.LastPacket {
				best = c
			}
		}
	}
	if best == nil {
		best = latest
	}
	if best == nil {
		return
	}
	r.peer = best
	if best.peer == nil {
		best.peer = r
	}
}

// track applies the PSN rules of the package doc to one packet.
func (s *PSNStats) track(fl *Flow, p *Packet, t unit.Time, psn uint32, n int64) {
	s.Tracked++
	if s.Tracked == 1 {
		s.FirstPSN, s.HighestPSN, s.lastTime = psn, psn, t
		return
	}
	d := roce.PSNDiff(psn, s.HighestPSN)
	prev := s.lastTime
	s.lastTime = t
	if d > 0 {
		if s.open != nil {
			s.open.EndPacket, s.open.End = p.Num, t
			s.open = nil
		}
		if d > 1 && !s.afterReadRequest {
			s.Gaps++
			s.Missing += int64(d - 1)
			s.lastGapEnd = psn
		}
		s.HighestPSN = psn
		s.progress += int64(d)
		return
	}
	s.RetransPackets++
	s.RetransBytes += n
	if s == &fl.Requester {
		countBin(&fl.TimelineRetx, fl)
	}
	if s.open == nil {
		e := Episode{StartPacket: p.Num, Start: t, FirstPSN: psn, HighestPSN: s.HighestPSN, Trigger: "timeout", IdleGap: t - prev}
		if nak := fl.pendingNAK; nak != nil {
			e.Trigger, e.NAKPacket, e.NAKSyndrome, e.IdleGap = "nak", nak.packet, roce.SyndromeName(nak.syndrome), 0
			fl.pendingNAK = nil
			s.NAKEpisodes++
		} else {
			s.TimeoutEpisodes++
		}
		s.EpisodeCount++
		if len(s.Episodes) < MaxEpisodes {
			s.Episodes = append(s.Episodes, e)
			s.open = &s.Episodes[len(s.Episodes)-1]
		} else {
			s.EpisodesDropped++
			s.open = &Episode{}
		}
	}
	s.open.Packets++
	s.open.Bytes += n
}

// addTimeline adds n bytes at time t to the flow's bins and makes the
// bin of t the flow's current one.
func (a *Analysis) addTimeline(fl *Flow, t unit.Time, n int64) {
	i := a.slot(&fl.Timeline, &fl.TimelineStart, t)
	for i >= len(fl.Timeline) {
		fl.Timeline = append(fl.Timeline, 0)
		a.bins++
		// The PSN progress holds from bin to bin; counts start at 0.
		if k := len(fl.TimelinePSN); k > 0 {
			fl.TimelinePSN = append(fl.TimelinePSN, fl.TimelinePSN[k-1])
		}
		for _, c := range []*[]int64{&fl.TimelineRetx, &fl.TimelineNAKs, &fl.TimelineCNPs} {
			if *c != nil {
				*c = append(*c, 0)
			}
		}
	}
	fl.Timeline[i] += n
	fl.cur = i
}

// slot returns the index of time t's bin in a timeline (bins, from bin
// *start; an empty one starts at t's), first widening the bins while the
// new ones would not fit in MaxBins.
func (a *Analysis) slot(bins *[]int64, start *int, t unit.Time) int {
	for a.bins+binsNeeded(len(*bins), *start, int(t/a.Bin)) > MaxBins && a.Bin < unit.MaxTime/4 {
		a.coarsen()
	}
	idx := int(t / a.Bin)
	if len(*bins) == 0 {
		*start = idx
	}
	return max(idx-*start, 0)
}

// countBin counts one event in the flow's current bin of c, which starts
// (aligned with the timeline) at the flow's first such event.
func countBin(c *[]int64, fl *Flow) {
	if *c == nil {
		*c = make([]int64, len(fl.Timeline))
	}
	(*c)[fl.cur]++
}

// addPauseBin counts an XOFF frame at time t in its sender's bins.
func (a *Analysis) addPauseBin(ps *PauseStats, t unit.Time) {
	i := a.slot(&ps.TimelineXOFF, &ps.TimelineStart, t)
	for i >= len(ps.TimelineXOFF) {
		ps.TimelineXOFF = append(ps.TimelineXOFF, 0)
		a.bins++
	}
	ps.TimelineXOFF[i]++
}

// binsNeeded is how many bins a timeline of n bins from bin start must
// grow by to reach bin idx.
func binsNeeded(n, start, idx int) int {
	if n == 0 {
		return 1
	}
	return max(idx-start+1-n, 0)
}

// coarsen doubles the bin width, merging pairs of bins in every flow and
// pause sender: counts add, the PSN progress keeps the later bin's.
func (a *Analysis) coarsen() {
	a.Bin *= 2
	a.bins = 0
	for _, fl := range a.flows {
		if len(fl.Timeline) == 0 {
			continue
		}
		start := fl.TimelineStart
		fl.TimelineStart, fl.Timeline = halve(start, fl.Timeline, false)
		_, fl.TimelinePSN = halve(start, fl.TimelinePSN, true)
		_, fl.TimelineRetx = halve(start, fl.TimelineRetx, false)
		_, fl.TimelineNAKs = halve(start, fl.TimelineNAKs, false)
		_, fl.TimelineCNPs = halve(start, fl.TimelineCNPs, false)
		fl.cur = len(fl.Timeline) - 1
		a.bins += len(fl.Timeline)
	}
	for _, ps := range a.pauses {
		if len(ps.TimelineXOFF) > 0 {
			ps.TimelineStart, ps.TimelineXOFF = halve(ps.TimelineStart, ps.TimelineXOFF, false)
			a.bins += len(ps.TimelineXOFF)
		}
	}
}

// halve merges pairs of bins of a timeline from bin start: their sum, or
// with last the later one's value. A nil timeline stays nil.
func halve(start int, bins []int64, last bool) (int, []int64) {
	if bins == nil {
		return start / 2, nil
	}
	s := start / 2
	merged := make([]int64, (start+len(bins)-1)/2-s+1)
	for i, v := range bins {
		k := (start+i)/2 - s
		if last {
			merged[k] = v
		} else {
			merged[k] += v
		}
	}
	return s, merged
}

// unseenGaps marks the request gaps of fl that the capture lost: the
// peer's ACKs acknowledged the last missing PSN, the peer sent no NAK and
// no PSN came again. A receiver acknowledges only what it received in
// order, so it received the PSNs the capture lacks (tcpdump or ibdump
// dropped them, or the capture was sampled). Call it once peers are
// paired.
func (a *Analysis) unseenGaps(fl *Flow) {
	s, pr := &fl.Requester, fl.peer
	if s.Gaps == 0 || s.RetransPackets > 0 || pr == nil || !pr.acked || len(pr.NAKs) > 0 {
		return
	}
	if roce.PSNDiff(pr.ackedPSN, roce.PSNAdd(s.lastGapEnd, -1)) < 0 {
		return
	}
	s.Unseen = true
	a.UnseenFlows++
	a.UnseenGaps += s.Gaps
	a.UnseenPSNs += s.Missing
}
