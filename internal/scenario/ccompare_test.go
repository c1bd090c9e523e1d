package scenario

import (
	"fmt"
	"strings"
	"testing"

	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// ccResult is one row of the congestion-control comparison.
type ccResult struct {
	name             string
	q50, q99, qmax   float64 // bottleneck queue, KB
	pause            float64 // worst port's pause ratio
	pauseFrames      int64
	incast, victim   float64 // Gb/s: the incast's aggregate (all its bytes over first start to last completion), the victim's
	slowest, fastest float64 // the incast flows' completion times, ms
	p99us            float64
	cnps             int64
	done             unit.Time
}

// runCC runs a variant of cc-compare.yaml and reads the bottleneck queue
// (the receiver switch's port toward h17, priority 3) from its samples.
func runCC(t *testing.T, v *Scenario) ccResult {
	tw, end := run(t, v)
	r := ccResult{name: v.Variant, done: end}
	var worst unit.Time
	for _, pt := range tw.Net.Ports {
		worst = max(worst, pt.Snapshot().RxPauseDuration[3])
	}
	r.pause = float64(worst) / float64(end)
	r.pauseFrames = tw.Net.Totals().PauseFrames
	lat := tw.Net.Latency().ClassHistogram(packet.ClassRoCE)
	r.p99us = float64(lat.Quantile(99)) / float64(unit.Microsecond)
	var q []float64
	for _, ser := range tw.Net.QueueSeries() {
		if ser.Switch.Ports()[ser.Port].Peer().Node().Name() == "h17" && ser.Prio == 3 {
			q = append(q, ser.Bytes.Values...)
		}
	}
	// The queue while the incast runs: samples up to the last incast
	// flow's completion.
	var last unit.Time
	first := unit.MaxTime
	var bytes float64
	for i, f := range tw.Flows {
		if f.Name == "victim" {
			r.victim = goodput(tw, i)
			continue
		}
		st := tw.Traffic.State(i)
		if !st.Done {
			t.Errorf("%s: incast flow %s did not complete", v.Variant, f.Name)
		}
		bytes += float64(f.Bytes)
		first = min(first, f.Start)
		last = max(last, st.FinishedAt)
		ms := float64(st.FinishedAt) / float64(unit.Millisecond)
		if r.fastest == 0 || ms < r.fastest {
			r.fastest = ms
		}
		r.slowest = max(r.slowest, ms)
	}
	r.incast = bytes * 8 / (last - first).Seconds() / 1e9
	every := tw.Scenario.SampleInterval
	if k := int(last / every); k > 0 && k < len(q) {
		q = q[:k]
	}
	if len(q) > 0 {
		r.q50, r.q99, r.qmax = percentile(q, 50)/1e3, percentile(q, 99)/1e3, percentile(q, 100)/1e3
	}
	for _, h := range tw.NICs {
		r.cnps += h.HW.NPCNPSent
	}
	checkConservation(t, tw)
	return r
}

// TestCCCompareIncast runs the 16:1 incast of TestIncastThreeWays under
// DCQCN, TIMELY and HPCC (examples/cc-compare.yaml) and prints the
// bottleneck queue, PFC pause time, and the incast's and victim's
// goodput.
//
// HPCC's paper (and its ns-3 model) shows HPCC keeping the bottleneck
// queue near zero and avoiding PFC: INT gives every sender the exact
// queue and link load at each hop one RTT after they change, and the
// first update cuts the incast to η of the link. The twin reproduces both:
// no pause frame, a queue p99 a small fraction of DCQCN's (which needs the
// queue past Kmin, 150 KB, to mark at all). TIMELY needs the RTT past
// t_low (50 us: 625 KB queued at 100G) before it reacts with its full
// step, so the queue runs into PFC. HPCC's multiplicative update keeps the
// senders' rate ratios, so its flows finish far apart: fairness comes only
// from W_AI, slowly, as the paper says.
func TestCCCompareIncast(t *testing.T) {
	s := example(t, "cc-compare")
	rows := map[string]ccResult{}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-7s %8s %8s %8s %8s %7s %11s %13s %10s %9s %6s\n", "CC", "q p50 KB", "q p99 KB", "q max KB", "pause %", "PFC fr", "incast Gb/s", "FCT ms", "victim", "P99 us", "CNPs")
	for _, v := range s.Variants {
		r := runCC(t, v)
		rows[r.name] = r
		fmt.Fprintf(&b, "%-7s %8.1f %8.1f %8.1f %8.3f %7d %11.2f %6.2f-%6.2f %10.2f %9.1f %6d\n", r.name, r.q50, r.q99, r.qmax, 100*r.pause, r.pauseFrames, r.incast, r.fastest, r.slowest, r.victim, r.p99us, r.cnps)
	}
	t.Log(b.String())
	d, ti, h := rows["dcqcn"], rows["timely"], rows["hpcc"]
	if h.pauseFrames != 0 || h.q99 > d.q99/4 {
		t.Errorf("HPCC: %d pause frames, queue p99 %.1f KB against DCQCN's %.1f: not the near-zero queue without PFC of the paper", h.pauseFrames, h.q99, d.q99)
	}
	if h.incast < d.incast {
		t.Errorf("HPCC: incast goodput %.2f Gb/s, below DCQCN's %.2f", h.incast, d.incast)
	}
	// The victim shares only the 400G trunk: HPCC leaves it near η of its
	// own 100G link, DCQCN and TIMELY let the incast's queue slow it.
	if h.victim < 0.9*95 || h.victim < d.victim {
		t.Errorf("HPCC victim %.2f Gb/s (DCQCN %.2f): want near η·100G", h.victim, d.victim)
	}
	if d.cnps == 0 || ti.cnps != 0 || h.cnps != 0 {
		t.Errorf("CNPs: DCQCN %d, TIMELY %d, HPCC %d; only DCQCN sends them", d.cnps, ti.cnps, h.cnps)
	}
}
