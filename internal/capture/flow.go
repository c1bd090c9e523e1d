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
		a.pair(fl, bth.PSN, false)
	case op.IsRequest():
		fl.Requests++
		fl.Requester.track(fl, p, t, bth.PSN, n)
		fl.Requester.afterReadRequest = op == roce.OpReadRequest
	case op.IsResponse():
		fl.Responses++
		a.pair(fl, bth.PSN, true)
		if f.Decoded&roce.HasAETH != 0 {
			a.addAETH(fl, p, f.AETH.Syndrome)
		}
		if op >= roce.OpReadResponseFirst && op <= roce.OpReadResponseOnly {
			fl.Responder.track(fl, p, t, bth.PSN, n)
		}
	}
}

// addAETH counts an ACK or NAK and hands a NAK to the peer's next episode.
func (a *Analysis) addAETH(fl *Flow, p *Packet, syn uint8) {
	switch roce.SyndromeKind(syn) {
	case roce.KindACK:
		fl.ACKs++
		return
	case roce.KindRNRNAK:
		fl.NAKs["RNR NAK"]++
	default:
		fl.NAKs[roce.SyndromeName(syn)]++
	}
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
		}
		s.HighestPSN = psn
		return
	}
	s.RetransPackets++
	s.RetransBytes += n
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

// addTimeline adds n bytes at time t to the flow's bins, first widening
// the bins while the new ones would not fit in MaxBins.
func (a *Analysis) addTimeline(fl *Flow, t unit.Time, n int64) {
	for a.bins+a.binsNeeded(fl, t) > MaxBins && a.Bin < unit.MaxTime/4 {
		a.coarsen()
	}
	idx := int(t / a.Bin)
	if len(fl.Timeline) == 0 {
		fl.TimelineStart = idx
	}
	i := max(idx-fl.TimelineStart, 0)
	for i >= len(fl.Timeline) {
		fl.Timeline = append(fl.Timeline, 0)
		a.bins++
	}
	fl.Timeline[i] += n
}

// binsNeeded is how many bins the flow must grow by to reach time t.
func (a *Analysis) binsNeeded(fl *Flow, t unit.Time) int {
	if len(fl.Timeline) == 0 {
		return 1
	}
	return max(int(t/a.Bin)-fl.TimelineStart+1-len(fl.Timeline), 0)
}

// coarsen doubles the bin width, merging pairs of bins in every flow.
func (a *Analysis) coarsen() {
	a.Bin *= 2
	a.bins = 0
	for _, fl := range a.flows {
		if len(fl.Timeline) == 0 {
			continue
		}
		start := fl.TimelineStart / 2
		end := (fl.TimelineStart + len(fl.Timeline) - 1) / 2
		merged := make([]int64, end-start+1)
		for i, v := range fl.Timeline {
			merged[(fl.TimelineStart+i)/2-start] += v
		}
		fl.TimelineStart, fl.Timeline = start, merged
		a.bins += len(merged)
	}
}
