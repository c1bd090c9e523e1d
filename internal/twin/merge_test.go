package twin_test

import (
	"bytes"
	"strings"
	"testing"

	"rocelab/internal/metrics"
	"rocelab/internal/twin"
)

// split deals an observation into n parts the way a partitioned engine
// would report it: every port, NIC and receiver in every part with the
// counts of the part that owns it (element i to part i mod n) and zeros
// elsewhere; totals and counts divided; flows, queues, QP series and
// histogram buckets dealt out; the NCCL tables in part 0.
func split(o twin.Observation, n int) []twin.Observation {
	parts := make([]twin.Observation, n)
	share := func(v int64, k int) int64 { // v divided into n shares
		if k == 0 {
			return v - int64(n-1)*(v/int64(n))
		}
		return v / int64(n)
	}
	for k := range parts {
		p := twin.Observation{Engine: o.Engine, Scenario: o.Scenario, Latency: []twin.PrioLatency{}, Config: o.Config, NCCLLog: o.NCCLLog,
			Sim: twin.Sim{End: o.Sim.End, Completed: o.Sim.Completed, Events: uint64(share(int64(o.Sim.Events), k))}}
		zero := func(cs []twin.Counter, own bool) []twin.Counter {
			out := make([]twin.Counter, len(cs))
			for i, c := range cs {
				out[i].Name = c.Name
				if own {
					out[i].Value = c.Value
				}
			}
			return out
		}
		for i, pt := range o.Ports {
			pt.Counters = zero(pt.Counters, i%n == k)
			p.Ports = append(p.Ports, pt)
		}
		for i, nc := range o.NICs {
			nc.HW, nc.IB = zero(nc.HW, i%n == k), zero(nc.IB, i%n == k)
			if i%n != k {
				nc.Reorder = twin.Reorder{}
			}
			p.NICs = append(p.NICs, nc)
		}
		t := *o.Totals
		for _, d := range []*twin.Data{&t.Sent, &t.Retransmitted, &t.Delivered, &t.Dropped, &t.Discarded, &t.InFlight} {
			d.Packets, d.Bytes = share(d.Packets, k), share(d.Bytes, k)
		}
		t.Frames, t.FramesDropped, t.DropsByReason = map[string]int64{}, map[string]int64{}, map[string]int64{}
		for name, m := range map[string]map[string]int64{"f": o.Totals.Frames, "fd": o.Totals.FramesDropped, "r": o.Totals.DropsByReason} {
			to := map[string]map[string]int64{"f": t.Frames, "fd": t.FramesDropped, "r": t.DropsByReason}[name]
			for key, v := range m {
				to[key] = share(v, k)
			}
		}
		t.PauseFrames, t.ECNMarked = share(t.PauseFrames, k), share(t.ECNMarked, k)
		p.Totals = &t
		deal := func(h metrics.Histogram) metrics.Histogram {
			out := metrics.Histogram{Lowest: h.Lowest, Highest: h.Highest, Digits: h.Digits}
			for i, b := range h.Buckets {
				if i%n == k {
					out.Buckets = append(out.Buckets, b)
				}
			}
			return out
		}
		for _, l := range o.Latency {
			p.Latency = append(p.Latency, twin.PrioLatency{Priority: l.Priority, Hist: deal(l.Hist)})
		}
		for i, f := range o.Flows {
			if i%n == k {
				p.Flows = append(p.Flows, f)
			}
		}
		// Each part models what the whole does, even where it owns none.
		if o.Queues != nil {
			p.Queues, p.QPs, p.Uplinks = []twin.Queue{}, []twin.QPSeries{}, []twin.Uplink{}
		}
		if o.Pauses != nil {
			p.Pauses = []twin.PortPause{}
		}
		for i, q := range o.Queues {
			if i%n == k {
				p.Queues = append(p.Queues, q)
			}
		}
		for i, pp := range o.Pauses {
			if i%n == k {
				p.Pauses = append(p.Pauses, pp)
			}
		}
		for i, nc := range o.NICs {
			if i%n == k {
				for _, q := range o.QPs {
					if q.Host == nc.Name {
						p.QPs = append(p.QPs, q)
					}
				}
			}
		}
		for _, u := range o.Uplinks {
			u.Bytes = share(u.Bytes, k)
			p.Uplinks = append(p.Uplinks, u)
		}
		b := o.Basis
		b.RoCELatency = deal(b.RoCELatency)
		b.Receivers = make([]twin.Window, len(o.Basis.Receivers))
		for i, w := range o.Basis.Receivers {
			b.Receivers[i].Rate = w.Rate
			if i%n == k {
				b.Receivers[i] = w
			}
		}
		b.RoCESent, b.RoCEDropped, b.RoCEStalled = share(b.RoCESent, k), share(b.RoCEDropped, k), share(b.RoCEStalled, k)
		if k != 0 {
			b.WorstPause /= 2
		}
		p.Basis = b
		if k == 0 {
			p.NCCL = o.NCCL
		}
		parts[k] = p
	}
	return parts
}

// An observation dealt into the parts a partitioned engine would report
// merges back into exactly the observation of the whole: the JSON is the
// same byte for byte, health included. Parts of another run, a flow
// reported twice, and ports missing from a part are refused.
func TestMergeParts(t *testing.T) {
	var qps, queues, uplinks, pauses int
	for _, name := range []string{"incast-pfc", "dcqcn-fairness"} {
		j := load(t, name).Job()
		o, err := twin.Run(&j, &twin.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Flows) < 2 || len(o.Latency) == 0 || o.Totals.Delivered.Packets == 0 {
			t.Fatalf("%s: too little to split", name)
		}
		qps, queues, uplinks, pauses = qps+len(o.QPs), queues+len(o.Queues), uplinks+len(o.Uplinks), pauses+len(o.Pauses)
		for _, n := range []int{1, 2, 3} {
			m, err := twin.Merge(split(o, n))
			if err != nil {
				t.Fatalf("%s in %d parts: %v", name, n, err)
			}
			if !bytes.Equal(jsonOf(t, m), jsonOf(t, o)) {
				t.Errorf("%s in %d parts: the merge differs from the whole", name, n)
			}
		}
	}
	if qps == 0 || queues < 2 || uplinks == 0 || pauses < 2 {
		t.Errorf("the cases hold %d QP series, %d queues, %d uplinks, %d pause series: each must be exercised", qps, queues, uplinks, pauses)
	}
	j := load(t, "incast-pfc").Job()
	o, _ := twin.Run(&j, &twin.Config{})
	parts := split(o, 2)
	parts[1].Scenario.Seed++
	bad := split(o, 2)
	bad[1].Flows = append(bad[1].Flows, o.Flows[0])
	short := split(o, 2)
	short[1].Ports = short[1].Ports[1:]
	for what, ps := range map[string][]twin.Observation{"another run": parts, "reported by two parts": bad, "every part lists them all": short} {
		if _, err := twin.Merge(ps); err == nil || !strings.Contains(err.Error(), what) {
			t.Errorf("want %q, got %v", what, err)
		}
	}
}
