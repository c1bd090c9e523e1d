package scenario

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/fault"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// delivered returns each flow's bytes delivered so far.
func delivered(tw *Twin) []float64 {
	out := make([]float64, len(tw.Flows))
	for i := range tw.Flows {
		if st := tw.Traffic.State(i); st.Started {
			d, _ := tw.Transport.Progress(st.QP)
			out[i] = float64(d)
		}
	}
	return out
}

// percentile returns the p-th percentile (0..100) of xs.
func percentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(math.Min(float64(len(s)-1), p/100*float64(len(s))))]
}

// Two DCQCN flows (mlx5 preset) on one 100G bottleneck: once the second
// joins, their shares converge to fair within a few milliseconds and stay
// there, and the bottleneck queue sits between Kmin and Kmax, held by ECN
// and CNPs, not by PFC.
func TestDCQCNFairness(t *testing.T) {
	s := example(t, "dcqcn-fairness")
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	const window = 500 * unit.Microsecond
	join := 2 * unit.Millisecond
	tw.RunUntil(join)
	prev := delivered(tw)
	var jains []float64
	converged := unit.Time(-1)
	for at := join + window; at <= 26*unit.Millisecond; at += window {
		tw.RunUntil(at)
		now := delivered(tw)
		rates := []float64{now[0] - prev[0], now[1] - prev[1]}
		prev = now
		j := jain(rates)
		jains = append(jains, j)
		if j >= 0.95 && converged < 0 {
			converged = at - join
		}
	}
	if converged < 0 || converged > 5*unit.Millisecond {
		t.Fatalf("Jain's index never reached 0.95 within 5 ms of the second flow joining: %.3f", jains)
	}
	settled := jains[int(converged/window)+1:]
	if w := percentile(settled, 0); w < 0.9 {
		t.Errorf("after converging, a 500 us window fell to Jain %.3f", w)
	}
	// The bottleneck queue after convergence.
	var q []float64
	for _, ser := range tw.Net.QueueSeries() {
		if ser.Switch.Ports()[ser.Port].Name() == "sw0/p2" && ser.Prio == 3 {
			for i, v := range ser.Bytes.Values {
				if at := ser.Bytes.First + unit.Time(i)*ser.Bytes.Every; at > join+converged && at < 26*unit.Millisecond {
					q = append(q, v)
				}
			}
		}
	}
	// DCQCN holds the queue around Kmin, where marking starts: it cuts when
	// the queue climbs past Kmin and the queue drains below it after a cut.
	// It must never need Kmax, and must not let the queue sit empty.
	kmin, kmax := float64(s.Switch.ECN.Kmin), float64(s.Switch.ECN.Kmax)
	p10, p50, p90, p99 := percentile(q, 10), percentile(q, 50), percentile(q, 90), percentile(q, 99)
	if p50 < kmin/2 || p99 > kmax {
		t.Errorf("bottleneck queue p10/p50/p90/p99 %.0f/%.0f/%.0f/%.0f B: want it around Kmin %.0f and below Kmax %.0f", p10, p50, p90, p99, kmin, kmax)
	}
	if tw.Net.Totals().PauseFrames != 0 {
		t.Errorf("%d pause frames: DCQCN should hold two flows without PFC", tw.Net.Totals().PauseFrames)
	}
	t.Logf("Jain >= 0.95 %v after the second flow joined; settled windows Jain min %.3f median %.3f; queue p10/p50/p90/p99 %.0f/%.0f/%.0f/%.0f B (Kmin %.0f, Kmax %.0f); %d samples",
		converged, percentile(settled, 0), percentile(settled, 50), p10, p50, p90, p99, kmin, kmax, len(q))
}

// incastResult is what TestIncastThreeWays compares.
type incastResult struct {
	name                 string
	pause, p99           float64
	goodput, victim      float64
	cnps, marks, handled int64
}

func runIncast(t *testing.T, name string, edit func(*Scenario)) incastResult {
	s := example(t, "incast-dcqcn")
	edit(s)
	tw, end := run(t, s)
	r := incastResult{name: name}
	var worst unit.Time
	for _, pt := range tw.Net.Ports {
		snap := pt.Snapshot()
		worst = max(worst, snap.RxPauseDuration[3])
	}
	r.pause = float64(worst) / float64(end)
	r.p99 = float64(func() unit.Time { h := tw.Net.Latency().ClassHistogram(packet.ClassRoCE); return h.Quantile(99) }()) / float64(unit.Microsecond)
	var sum float64
	n := 0
	for i, f := range tw.Flows {
		g := goodput(tw, i)
		if f.Name == "victim" {
			r.victim = g
			continue
		}
		sum += g
		n++
	}
	r.goodput = sum / float64(n)
	for _, h := range tw.NICs {
		r.cnps += h.HW.NPCNPSent
		r.marks += h.HW.NPECNMarkedRoCEPackets
		r.handled += h.HW.RPCNPHandled
	}
	return r
}

// A 16:1 incast three ways: PFC only; DCQCN + PFC; DCQCN with ECN
// thresholds far too small (the seed's as-found case: every packet
// marked). DCQCN removes most of the pausing that PFC alone needs and
// frees the victim that shares the trunk. With thresholds far too small
// the first packets queued are marked, every sender is cut before any
// real queue forms and again on every CNP, and the incast runs far below
// the bottleneck's rate: over-marking costs throughput, as in the seed.
func TestIncastThreeWays(t *testing.T) {
	pfc := runIncast(t, "PFC only", func(s *Scenario) { s.Host.NIC.CC = "none"; s.Host.NIC.DCQCN.Config = nil })
	dcqcn := runIncast(t, "DCQCN + PFC", func(*Scenario) {})
	tiny := runIncast(t, "DCQCN, ECN 1KB/2KB", func(s *Scenario) {
		s.Switch.ECN.Kmin, s.Switch.ECN.Kmax, s.Switch.ECN.Pmax = unit.KB, 2*unit.KB, 1
	})
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-20s %9s %9s %10s %9s %9s %9s %9s\n", "", "pause %", "P99 us", "incast Gb/s", "victim", "CE marks", "CNPs", "handled")
	for _, r := range []incastResult{pfc, dcqcn, tiny} {
		fmt.Fprintf(&b, "%-20s %9.3f %9.1f %10.3f %9.2f %9d %9d %9d\n", r.name, 100*r.pause, r.p99, r.goodput, r.victim, r.marks, r.cnps, r.handled)
	}
	t.Log(b.String())
	if pfc.cnps != 0 || pfc.pause < 0.3 {
		t.Errorf("PFC only: %d CNPs, pause %.3f", pfc.cnps, pfc.pause)
	}
	if dcqcn.pause > pfc.pause/4 || dcqcn.victim < 2*pfc.victim || dcqcn.cnps == 0 || dcqcn.handled != dcqcn.cnps {
		t.Errorf("DCQCN did not do its job: pause %.3f vs %.3f, victim %.2f vs %.2f Gb/s, %d CNPs, %d handled", dcqcn.pause, pfc.pause, dcqcn.victim, pfc.victim, dcqcn.cnps, dcqcn.handled)
	}
	if tiny.goodput > 0.75*dcqcn.goodput || tiny.cnps == 0 {
		t.Errorf("thresholds far too small: incast %.3f Gb/s per flow against %.3f with sane ones (%d CNPs): over-marking should cost throughput", tiny.goodput, dcqcn.goodput, tiny.cnps)
	}
}

// lossRun runs a single flow through a link that loses data packets only,
// at rate p, and returns the twin.
func lossRun(t *testing.T, p float64) *Twin {
	s := example(t, "lossy-link")
	s.Faults = nil
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l := fault.Bernoulli(p)
	l.Kinds = 1 << packet.Data
	tw.NICs[0].Port().Peer().SetLoss(fault.NewLoss(l, tw.Net.Streams.Stream("test/loss")))
	tw.Run()
	return tw
}

// Go-back-N under random loss, against the analytic estimate. A lost
// packet is noticed when the next one reaches the responder, which NAKs;
// by the time the NAK is back the requester has sent k more packets, and it
// resends the lost one and those k. With loss rate p every packet costs
// 1 + p(1+k) transmissions, so goodput is G/(1+p(1+k)), G the line-rate
// goodput. k follows from the path: the lost packet's and the next one's
// serialization and store-and-forward, propagation both ways, and the
// NAK's own serialization; the FEC jitter adds half a codeword per hop on
// average.
func TestGoBackNAnalytic(t *testing.T) {
	const rate = 100e9
	mtu := 4096.0
	wire := mtu + float64(packet.Overhead(false)) // 4178 B per packet on the wire
	tPkt := wire * 8 / rate
	prop := 15e-9 // 3 m at 5 ns/m
	codeword := 5280 / rate
	nakWire := float64(packet.DataFrame(0, packet.AETH, false)+packet.PreambleIFG) * 8 / rate
	// From the lost packet's start: the next packet's start (tPkt), its two
	// serializations and propagations to the responder, then the NAK's two
	// serializations and propagations back; four hops of FEC jitter.
	rtt := tPkt + 2*(tPkt+prop) + 2*(nakWire+prop) + 4*codeword/2
	k := math.Floor(rtt / tPkt)
	G := 100 * mtu / wire
	const p = 0.001
	tw := lossRun(t, p)
	fct, ok := tw.Traffic.State(0).FCT()
	if !ok {
		t.Fatal("the flow did not complete")
	}
	got := float64(tw.Flows[0].Bytes) * 8 / fct.Seconds() / 1e9
	drops := float64(tw.Net.Totals().Dropped.Packets)
	tx := float64(tw.Net.Totals().Sent.Packets + tw.Net.Totals().Retransmitted.Packets)
	// The estimate with the losses this run drew (the count itself is
	// binomial: check it is within 4σ of p).
	if sd := math.Sqrt(tx * p * (1 - p)); math.Abs(drops-tx*p) > 4*sd {
		t.Errorf("%.0f drops in %.0f transmissions: not a %v loss rate (σ %.1f)", drops, tx, p, sd)
	}
	pr := drops / tx
	want := G / (1 + pr*(1+k))
	retx := float64(tw.Net.Totals().Retransmitted.Packets)
	h0, h1 := tw.NICs[0].HW, tw.NICs[1].HW
	if math.Abs((G-got)-(G-want)) > 0.1*(G-want) {
		t.Errorf("goodput %.3f Gb/s, go-back-N estimate %.3f (line %.3f, k=%.0f): the loss of goodput is more than 10%% off", got, want, G, k)
	}
	// Every data loss is one gap, one NAK, one go-back-N episode of k+1
	// packets; the responder discards the k that followed the gap.
	if h0.PacketSeqErr != int64(drops) || h0.LocalAckTimeoutErr != 0 {
		t.Errorf("%.0f drops but packet_seq_err %d, local_ack_timeout_err %d", drops, h0.PacketSeqErr, h0.LocalAckTimeoutErr)
	}
	if per := retx / drops; math.Abs(per-(1+k)) > 0.1*(1+k) {
		t.Errorf("%.2f packets resent per loss, go-back-N estimate %.0f", per, 1+k)
	}
	if h1.OutOfSequence != tw.Net.Totals().Discarded.Packets-h1.DuplicateRequest {
		t.Errorf("out_of_sequence %d, discarded %d, duplicates %d", h1.OutOfSequence, tw.Net.Totals().Discarded.Packets, h1.DuplicateRequest)
	}
	t.Logf("p=%v: goodput %.3f Gb/s, estimate %.3f (line %.3f, k=%.0f); %.0f drops in %.0f transmissions, %.0f resent (%.2f per loss), packet_seq_err %d, out_of_sequence %d",
		p, got, want, G, k, drops, tx, retx, retx/drops, h0.PacketSeqErr, h1.OutOfSequence)
}

// A dead path: the QP fails after retry_cnt timeouts, each 4.096 us ×
// 2^20 at the default, at (retry_cnt+1)·T after its timer was last set,
// with status 12; the request behind it is flushed and the flow after it
// cancelled. The link failure the fabric can route around costs the other
// flow nothing but a few retransmissions.
func TestRetryExceededTiming(t *testing.T) {
	s := example(t, "retry-exceeded")
	tw, _ := run(t, s)
	T := 4096 * unit.Nanosecond << 20
	doomed := tw.Traffic.State(1)
	if doomed.Status != workload.RetryExceeded {
		t.Fatalf("doomed flow status %v", doomed.Status)
	}
	// The timer was last set at the last ACK before the link failed at
	// 100 us, so the failure lands within 100 us after 8·T.
	want := unit.Time(s.Host.NIC.RetryCnt+1) * T
	if d := doomed.FinishedAt - want; d < 0 || d > 100*unit.Microsecond {
		t.Errorf("failed at %v, want 8·T = %v plus under 100 us", doomed.FinishedAt, want)
	}
	h1 := tw.NICs[1].HW
	if h1.LocalAckTimeoutErr != 8 || h1.ReqCQEError != 1 {
		t.Errorf("h1: local_ack_timeout_err %d, req_cqe_error %d; want 8, 1", h1.LocalAckTimeoutErr, h1.ReqCQEError)
	}
	if !tw.Traffic.State(2).Cancelled {
		t.Error("the flow after the failed one was not cancelled")
	}
	if st := tw.Traffic.State(0); st.Status != workload.Success || !st.Done {
		t.Errorf("the rerouted flow did not complete: %+v", st)
	}
	t.Logf("QP failed at %v (8·T = %v); rerouted flow FCT %v", doomed.FinishedAt, want, tw.Traffic.State(0).FinishedAt)
}

// A priority mismatch: RoCE on priority 0 while PFC protects 3 drops,
// the responder counts out_of_sequence and the requesters packet_seq_err;
// the matched configuration has none of it and no drop.
func TestPrioMismatch(t *testing.T) {
	bad, _ := run(t, example(t, "prio-mismatch"))
	good := example(t, "prio-mismatch")
	good.Host.DSCP = 26
	for i := range good.Generators {
		good.Generators[i].DSCP = 26
		good.Generators[i].Priority = 3
	}
	ok, _ := run(t, good)
	count := func(tw *Twin) (oos, seq int64) {
		for _, h := range tw.NICs {
			oos += h.HW.OutOfSequence
			seq += h.HW.PacketSeqErr
		}
		return
	}
	boos, bseq := count(bad)
	goos, gseq := count(ok)
	if bad.Net.Totals().Dropped.Packets == 0 || boos == 0 || bseq == 0 {
		t.Errorf("mismatch: %d drops, out_of_sequence %d, packet_seq_err %d; want all > 0", bad.Net.Totals().Dropped.Packets, boos, bseq)
	}
	if ok.Net.Totals().Dropped.Packets != 0 || goos != 0 || gseq != 0 {
		t.Errorf("matched: %d drops, out_of_sequence %d, packet_seq_err %d; want none", ok.Net.Totals().Dropped.Packets, goos, gseq)
	}
	if p, l := bad.RoCEPriorities(); p != 1 || l {
		t.Errorf("mismatch: RoCE on priorities %08b, lossless %v", p, l)
	}
	t.Logf("mismatch: %d drops, out_of_sequence %d, packet_seq_err %d; matched: none, all flows done %v", bad.Net.Totals().Dropped.Packets, boos, bseq, ok.Done())
}

// ROCE_CC_PRIO_MASK covering more than the RoCE class: storage RDMA on
// priority 1 shares a congested port with the RoCE class on 3, and the
// switch marks ECN on both queues (as when queue 1 carries DCTCP-style
// marking). With the mask 0xFF the storage QPs run DCQCN too and are cut
// by the marks on their queue; with 0x08 their CNPs are ignored
// (rp_cnp_ignored) — no, better: the receiver does not even send them —
// and they keep their share.
func TestCCPrioMaskSlowsOtherClasses(t *testing.T) {
	yaml := func(mask string) string {
		return `
name: prio-mask
duration: 20ms
topology: {kind: single-switch, hosts: 5}
switch:
  ecn: {priorities: [1, 3], kmin: 150KB, kmax: 1500KB, pmax: 0.2}
  pfc: {priorities: [1, 3]}
host:
  firmware: {ROCE_CC_PRIO_MASK: ` + mask + `}
traffic:
  flows:
    - {name: roce-a, src: h0, dst: h4, bytes: 64MiB, dscp: 26}
    - {name: roce-b, src: h1, dst: h4, bytes: 64MiB, dscp: 26}
    - {name: storage-a, src: h2, dst: h4, bytes: 64MiB, dscp: 10}
    - {name: storage-b, src: h3, dst: h4, bytes: 64MiB, dscp: 10}
`
	}
	classes := func(mask string) (roce, storage float64, ignored, handled int64) {
		tw, err := Build(mustLoad(t, "mask-"+mask, yaml(mask)))
		if err != nil {
			t.Fatal(err)
		}
		tw.RunUntil(10 * unit.Millisecond)
		d := delivered(tw)
		for _, h := range tw.NICs {
			ignored += h.HW.RPCNPIgnored
			handled += h.HW.RPCNPHandled
		}
		return (d[0] + d[1]) * 8 / 0.01 / 1e9, (d[2] + d[3]) * 8 / 0.01 / 1e9, ignored, handled
	}
	rAll, sAll, _, hAll := classes("0xFF")
	rOne, sOne, _, hOne := classes("0x08")
	if sAll >= sOne || hAll <= hOne {
		t.Errorf("mask 0xFF: storage %.2f Gb/s, 0x08: %.2f Gb/s (CNPs handled %d vs %d): the wider mask should slow storage", sAll, sOne, hAll, hOne)
	}
	t.Logf("storage (priority 1): %.2f Gb/s with ROCE_CC_PRIO_MASK 0xFF, %.2f with 0x08 (%.0f%% slower); RoCE (priority 3): %.2f vs %.2f Gb/s; CNPs handled %d vs %d",
		sAll, sOne, 100*(1-sAll/sOne), rAll, rOne, hAll, hOne)
}

// A slow receiver: a host that drains at 50G behind a 100G link buffers,
// pauses its switch port (tx_prio3_pause at the host), and loses nothing.
func TestHostPFCSlowReceiver(t *testing.T) {
	s := mustLoad(t, "slow.yaml", `
name: slow-receiver
duration: 20ms
topology: {kind: single-switch, hosts: 2}
host: {cc: none, rx: {drain_rate: 50G}}
traffic: {flows: [{src: h0, dst: h1, bytes: 32MiB}]}
`)
	tw, _ := run(t, s)
	h1 := tw.NICs[1].Port().Snapshot()
	if h1.TxPause[3] == 0 || tw.Net.Totals().Dropped.Packets != 0 || !tw.Done() {
		t.Errorf("slow receiver: tx_prio3_pause %d, drops %d, done %v", h1.TxPause[3], tw.Net.Totals().Dropped.Packets, tw.Done())
	}
	g := goodput(tw, 0)
	if want := 50 * 4096.0 / 4178; g > want*1.01 || g < want*0.95 {
		t.Errorf("goodput %.2f Gb/s, the drain rate allows %.2f", g, want)
	}
	t.Logf("slow receiver at 50G: goodput %.2f Gb/s, host sent %d pause frames, paused its switch port %v", g, h1.TxPause[3], h1.TxPauseDuration[3])
}

// Adaptive retransmission recovers a tail loss after a few microseconds
// instead of the full QP timeout.
func TestAdaptiveRetransmission(t *testing.T) {
	tail := func(adaptive bool) unit.Time {
		s := mustLoad(t, "tail.yaml", `
name: tail
duration: 10s
topology: {kind: single-switch, hosts: 2}
traffic: {flows: [{src: h0, dst: h1, bytes: 40KiB}]}
`)
		s.Host.NIC.Adaptive = adaptive
		tw, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		tw.NICs[1].Port().SetLoss(&lastOf{n: 10})
		tw.Run()
		st := tw.Traffic.State(0)
		if !st.Done || st.Status != workload.Success {
			t.Fatalf("adaptive %v: %+v", adaptive, st)
		}
		return st.FinishedAt
	}
	plain, fast := tail(false), tail(true)
	if plain < 4*unit.Second || fast > 20*unit.Microsecond {
		t.Errorf("tail loss recovered at %v without, %v with adaptive retransmission", plain, fast)
	}
	t.Logf("tail loss: recovered at %v with the 4.29 s timeout, %v with adaptive retransmission", plain, fast)
}

// lastOf loses the n-th data frame arriving at a port.
type lastOf struct{ n, seen int }

func (l *lastOf) Lose(_ unit.Time, p *packet.Packet) bool {
	if p.Kind != packet.Data {
		return false
	}
	l.seen++
	return l.seen == l.n
}

// The PFC deadlock of examples/pfc-deadlock.yaml: while the valley route
// lasts, the two loop ports pause each other and nothing is delivered for
// longer than the watchdog's detection time; the watchdog declares storms
// on them, drops what is frozen, and every flow completes.
func TestPFCDeadlockAndWatchdog(t *testing.T) {
	s := example(t, "pfc-deadlock")
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	tw.RunUntil(3 * unit.Millisecond)
	before := tw.Net.Totals().Delivered.Packets
	frozen := 0
	for _, pt := range tw.Net.Ports {
		if pt.XOFF(3) && pt.Paused(3) {
			frozen++
		}
	}
	tw.RunUntil(15 * unit.Millisecond) // the routes are repaired at 5 ms
	if d := tw.Net.Totals().Delivered.Packets - before; d != 0 || frozen < 2 {
		t.Fatalf("3..15 ms: %d packets delivered, %d ports both pausing and paused: no deadlock", d, frozen)
	}
	tw.Run()
	var storms int64
	for _, pt := range tw.Net.Ports {
		storms += pt.Snapshot().WatchdogStorms[3]
	}
	if !tw.Done() || storms < 1 || tw.Net.Totals().DropsByReason[fabric.DropWatchdog] == 0 {
		t.Errorf("after the watchdog: done %v, %d storms, %d watchdog drops", tw.Done(), storms, tw.Net.Totals().DropsByReason[fabric.DropWatchdog])
	}
	t.Logf("deadlock from before 3 ms to the watchdog at %v of detection; %d storms, %d dropped; all flows done at %v",
		s.Switch.Watchdog.Detect, storms, tw.Net.Totals().DropsByReason[fabric.DropWatchdog], tw.Net.Now())
}

// TestSamplerRejoin: h1 has no queue pair until its flow starts at 2 ms,
// so its NIC leaves the domain's samplers at the first sample and must
// come back when its queue pair with DCQCN joins: from then on its rate
// is sampled at every interval, as h0's is.
func TestSamplerRejoin(t *testing.T) {
	tw, err := Build(example(t, "dcqcn-fairness"))
	if err != nil {
		t.Fatal(err)
	}
	tw.RunUntil(6 * unit.Millisecond)
	for _, n := range tw.NICs {
		if n.Name() != "h1" {
			continue
		}
		s := n.Series()
		if len(s) != 1 {
			t.Fatalf("h1 has %d sampled queue pairs, want 1", len(s))
		}
		p := s[0].Rate.Points()
		if p.First < 2*unit.Millisecond || p.Every <= 0 || len(p.Values) < int((6*unit.Millisecond-p.First)/p.Every) {
			t.Fatalf("h1's rate: %d samples from %v every %v", len(p.Values), p.First, p.Every)
		}
		return
	}
	t.Fatal("no NIC h1")
}
