package twin

import (
	"fmt"
	"sort"

	"rocelab/internal/metrics"
)

// Merge joins the observations of the parts of one partitioned run into
// the observation of the whole, exactly:
//
//   - Every part lists every port, NIC and receiver window, in the same
//     order, with the counts it owns (zeros elsewhere): counters add.
//   - Totals, basis counts and uplink loads add; latency histograms merge
//     bucket by bucket; the worst pause is the maximum.
//   - Flows, queues, queue-pair series and pause series are each reported
//     by the one part that owns them (the flow's requester, the queue's
//     switch, the QP's host, the port's node) and come out in canonical
//     order: flows by id, queues and pauses by port and priority, series
//     by host. Pause series are nil when the first part has none.
//   - The NCCL tables and the perftest output come from the one part that
//     has them; the configuration and the NCCL log, alike in every part,
//     from the first.
//   - The run ends at the parts' latest time, completes when every part
//     does, and its events add; health is graded again on the merged basis.
func Merge(parts []Observation) (Observation, error) {
	if len(parts) == 0 {
		return Observation{}, fmt.Errorf("no parts to merge")
	}
	first := &parts[0]
	out := Observation{Engine: first.Engine, Scenario: first.Scenario, Sim: Sim{Completed: true}, Config: first.Config, NCCLLog: first.NCCLLog}
	out.Config.DCQCN = append([]Param(nil), first.Config.DCQCN...)
	out.Ports = cloneCounters(first.Ports)
	out.NICs = append([]NIC(nil), first.NICs...)
	for i := range out.NICs {
		out.NICs[i].HW = append([]Counter(nil), first.NICs[i].HW...)
		out.NICs[i].IB = append([]Counter(nil), first.NICs[i].IB...)
	}
	out.Basis = first.Basis
	out.Basis.RoCELatency.Buckets = append([]metrics.Bucket(nil), first.Basis.RoCELatency.Buckets...)
	out.Basis.Receivers = append([]Window(nil), first.Basis.Receivers...)
	if first.Uplinks != nil {
		out.Uplinks = append([]Uplink{}, first.Uplinks...)
	}
	if first.Totals != nil {
		out.Totals = &Totals{}
	}
	if first.Latency != nil {
		out.Latency = []PrioLatency{}
	}
	// What the first part models stays modelled when no part has any.
	if first.Queues != nil {
		out.Queues = []Queue{}
	}
	if first.QPs != nil {
		out.QPs = []QPSeries{}
	}
	if first.Pauses != nil {
		out.Pauses = []PortPause{}
	}
	for k := range parts {
		p := &parts[k]
		if err := out.add(p, k > 0); err != nil {
			return Observation{}, fmt.Errorf("part %d: %w", k, err)
		}
	}
	if err := out.sortOwned(); err != nil {
		return Observation{}, err
	}
	out.Health = out.Basis.Grade(out.Sim.End)
	return out, nil
}

// add adds part p; rest says it is not the first part, whose per-element
// counts out already holds.
func (o *Observation) add(p *Observation, rest bool) error {
	if p.Engine.Name != o.Engine.Name || p.Scenario.Name != o.Scenario.Name || p.Scenario.Seed != o.Scenario.Seed {
		return fmt.Errorf("a part of another run (%s %s seed %d)", p.Engine.Name, p.Scenario.Name, p.Scenario.Seed)
	}
	if len(p.Ports) != len(o.Ports) || len(p.NICs) != len(o.NICs) || len(p.Basis.Receivers) != len(o.Basis.Receivers) || len(p.Uplinks) != len(o.Uplinks) {
		return fmt.Errorf("%d ports, %d NICs, %d receivers, %d uplinks: every part lists them all", len(p.Ports), len(p.NICs), len(p.Basis.Receivers), len(p.Uplinks))
	}
	o.Sim.End = max(o.Sim.End, p.Sim.End)
	o.Sim.Completed = o.Sim.Completed && p.Sim.Completed
	o.Sim.Events += p.Sim.Events
	if rest {
		for i := range p.Ports {
			if err := addCounters(o.Ports[i].Counters, p.Ports[i].Counters); err != nil {
				return fmt.Errorf("port %s: %w", p.Ports[i].Name, err)
			}
		}
		for i := range p.NICs {
			if err := addCounters(o.NICs[i].HW, p.NICs[i].HW); err != nil {
				return fmt.Errorf("NIC %s: %w", p.NICs[i].Name, err)
			}
			if err := addCounters(o.NICs[i].IB, p.NICs[i].IB); err != nil {
				return fmt.Errorf("NIC %s: %w", p.NICs[i].Name, err)
			}
			r, q := &o.NICs[i].Reorder, p.NICs[i].Reorder
			r.Packets += q.Packets
			r.PlacedOutOfOrder += q.PlacedOutOfOrder
			r.MaxPSNs = max(r.MaxPSNs, q.MaxPSNs)
		}
		for i, u := range p.Uplinks {
			o.Uplinks[i].Bytes += u.Bytes
		}
		b := &o.Basis
		if !b.RoCELatency.Merge(p.Basis.RoCELatency) {
			return fmt.Errorf("latency histograms of another geometry")
		}
		for i, w := range p.Basis.Receivers {
			if w.End > 0 {
				b.Receivers[i].Add(w.Start, w.End, w.Bytes)
			}
		}
		b.RoCESent += p.Basis.RoCESent
		b.RoCEStalled += p.Basis.RoCEStalled
		if !b.RoCEStalledAge.Merge(p.Basis.RoCEStalledAge) {
			return fmt.Errorf("stalled-age histograms of another geometry")
		}
		b.StallAfter = max(b.StallAfter, p.Basis.StallAfter)
		b.RoCEDropped += p.Basis.RoCEDropped
		b.WorstPause = max(b.WorstPause, p.Basis.WorstPause)
		b.RoCEPriorities |= p.Basis.RoCEPriorities
		b.RoCELossless = b.RoCELossless && p.Basis.RoCELossless
	}
	if p.Totals != nil {
		if o.Totals == nil {
			return fmt.Errorf("totals where the first part has none")
		}
		o.Totals.add(p.Totals)
	}
	for _, l := range p.Latency {
		if err := o.addLatency(l); err != nil {
			return err
		}
	}
	o.Flows = append(o.Flows, p.Flows...)
	o.Queues = append(o.Queues, p.Queues...)
	o.QPs = append(o.QPs, p.QPs...)
	if p.Pauses != nil && o.Pauses == nil {
		return fmt.Errorf("pause series where the first part has none")
	}
	o.Pauses = append(o.Pauses, p.Pauses...)
	if p.NCCL != nil {
		if o.NCCL != nil {
			return fmt.Errorf("NCCL tables in two parts")
		}
		o.NCCL = p.NCCL
		o.NCCLTestsJSON = p.NCCLTestsJSON
	}
	if len(p.Perftest) > 0 {
		if len(o.Perftest) > 0 {
			return fmt.Errorf("perftest output in two parts")
		}
		o.Perftest = p.Perftest
	}
	return nil
}

// addLatency merges one priority's histogram.
func (o *Observation) addLatency(l PrioLatency) error {
	for i := range o.Latency {
		if o.Latency[i].Priority == l.Priority {
			if !o.Latency[i].Hist.Merge(l.Hist) {
				return fmt.Errorf("priority %d: latency histograms of another geometry", l.Priority)
			}
			return nil
		}
	}
	l.Hist.Buckets = append([]metrics.Bucket(nil), l.Hist.Buckets...)
	o.Latency = append(o.Latency, l)
	return nil
}

// sortOwned puts what single parts reported in canonical order, and checks
// that each was reported once.
func (o *Observation) sortOwned() error {
	sort.SliceStable(o.Flows, func(i, j int) bool { return o.Flows[i].ID < o.Flows[j].ID })
	port := map[string]int{}
	for i, p := range o.Ports {
		port[p.Name] = i
	}
	sort.SliceStable(o.Queues, func(i, j int) bool {
		a, b := &o.Queues[i], &o.Queues[j]
		if port[a.Port] != port[b.Port] {
			return port[a.Port] < port[b.Port]
		}
		return a.Priority < b.Priority
	})
	sort.SliceStable(o.Pauses, func(i, j int) bool {
		a, b := &o.Pauses[i], &o.Pauses[j]
		if port[a.Port] != port[b.Port] {
			return port[a.Port] < port[b.Port]
		}
		return a.Priority < b.Priority
	})
	host := map[string]int{}
	for i, n := range o.NICs {
		host[n.Name] = i
	}
	sort.SliceStable(o.QPs, func(i, j int) bool { return host[o.QPs[i].Host] < host[o.QPs[j].Host] })
	sort.Slice(o.Latency, func(i, j int) bool { return o.Latency[i].Priority < o.Latency[j].Priority })
	for i := 1; i < len(o.Flows); i++ {
		if o.Flows[i].ID == o.Flows[i-1].ID {
			return fmt.Errorf("flow %d reported by two parts", o.Flows[i].ID)
		}
	}
	for i := 1; i < len(o.Queues); i++ {
		if a, b := &o.Queues[i], &o.Queues[i-1]; a.Port == b.Port && a.Priority == b.Priority {
			return fmt.Errorf("queue %s priority %d reported by two parts", a.Port, a.Priority)
		}
	}
	for i := 1; i < len(o.Pauses); i++ {
		if a, b := &o.Pauses[i], &o.Pauses[i-1]; a.Port == b.Port && a.Priority == b.Priority {
			return fmt.Errorf("pause series of %s priority %d reported by two parts", a.Port, a.Priority)
		}
	}
	return nil
}

// add adds o's counts.
func (t *Totals) add(o *Totals) {
	for _, d := range []struct{ to, from *Data }{
		{&t.Sent, &o.Sent}, {&t.Retransmitted, &o.Retransmitted}, {&t.Delivered, &o.Delivered},
		{&t.Dropped, &o.Dropped}, {&t.Discarded, &o.Discarded}, {&t.InFlight, &o.InFlight},
	} {
		d.to.Packets += d.from.Packets
		d.to.Bytes += d.from.Bytes
	}
	t.Frames = addMap(t.Frames, o.Frames)
	t.FramesDropped = addMap(t.FramesDropped, o.FramesDropped)
	t.DropsByReason = addMap(t.DropsByReason, o.DropsByReason)
	t.PauseFrames += o.PauseFrames
	t.ECNMarked += o.ECNMarked
}

func addMap(to, from map[string]int64) map[string]int64 {
	if from == nil {
		return to
	}
	if to == nil {
		to = map[string]int64{}
	}
	for k, v := range from {
		to[k] += v
	}
	return to
}

// addCounters adds from to to, name by name in the same order.
func addCounters(to, from []Counter) error {
	if len(to) != len(from) {
		return fmt.Errorf("%d counters, %d in the first part", len(from), len(to))
	}
	for i := range from {
		if from[i].Name != to[i].Name {
			return fmt.Errorf("counter %s where the first part has %s", from[i].Name, to[i].Name)
		}
		to[i].Value += from[i].Value
	}
	return nil
}

func cloneCounters(ps []Port) []Port {
	out := append([]Port(nil), ps...)
	for i := range out {
		out[i].Counters = append([]Counter(nil), ps[i].Counters...)
	}
	return out
}
