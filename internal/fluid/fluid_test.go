package fluid

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"rocelab/internal/ecmp"
	"rocelab/internal/packet"
	"rocelab/internal/qos"
	"rocelab/internal/sim"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// config returns a plain configuration over t: MTU 4096, everything on
// priority 3, PFC on it, no ECN, no PHY imperfection.
func config(t *topo.Topology) *Config {
	var dscp [64]uint8
	dscp[26] = 3
	w := [8]int{1, 1, 1, 1, 1, 1, 1, 1}
	return &Config{
		Seed: 1, Topo: t, Duration: unit.Second, MTU: 4096, TCPMSS: 4096, DSCP: 26,
		NIC: qos.Classifier{DSCPToPrio: dscp}, NICPriority: -1, NICWeights: w,
		Switch: qos.Classifier{DSCPToPrio: dscp}, SwitchWeights: w, SwitchStrict: 1<<6 | 1<<7, NICStrict: 1<<6 | 1<<7,
		Hash: ecmp.FiveTuple, PerSwitchSeed: true, Timeout: 14, RetryCnt: 7, AckCoalesce: 4,
		Lossless: 1 << 3, PFCQuanta: 0xffff, Buffer: 32 << 20, Alpha: 1, TCPRTO: 200 * unit.Millisecond,
	}
}

// singleSwitch returns an engine over n hosts on one switch at 100G over
// cable, its configuration changed by set (when not nil).
func singleSwitch(t *testing.T, n int, cable unit.Length, set func(*Config)) *Engine {
	t.Helper()
	tp, err := topo.SingleSwitch(n, topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: cable})
	if err != nil {
		t.Fatal(err)
	}
	c := config(tp)
	if set != nil {
		set(c)
	}
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// recorder is a workload owner that keeps every completion.
type recorder struct{ got []workload.Completion }

func (r *recorder) Completed(c workload.Completion) { r.got = append(r.got, c) }

// A single WRITE crosses a switch at line rate less the RoCEv2 headers:
// 64 MiB at 100G and MTU 4096 in 64 MiB·(4096+82)/4096 bits at 100 Gb/s,
// plus the latency of its last packet and its ACK.
func TestSingleFlowGoodput(t *testing.T) {
	e := singleSwitch(t, 2, 3*unit.Metre, nil)
	var r recorder
	qp := e.Connect(0, 1, workload.QPOptions{}, &r)
	const size = 64 << 20
	e.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: size, ID: 7})
	e.Sched().RunUntil(unit.Second)
	if len(r.got) != 2 {
		t.Fatalf("completions %+v", r.got)
	}
	resp, req := r.got[0], r.got[1]
	if resp.Side != workload.Responder || req.Side != workload.Requester || req.ID != 7 || req.Bytes != size {
		t.Fatalf("completions %+v", r.got)
	}
	pkts := int64(size / 4096)
	wire := pkts*(4096+int64(packet.Overhead(false))) + packet.RETH + packet.ImmDt
	send := (100 * unit.Gbps).TxTime(unit.Bytes(wire))
	last := (100 * unit.Gbps).TxTime(unit.Bytes(4096 + packet.Overhead(false) + packet.ImmDt))
	ack := (100 * unit.Gbps).TxTime(unit.Bytes(packet.DataFrame(0, packet.AETH, false) + packet.PreambleIFG))
	prop := (3 * unit.Metre).Delay()
	wantResp := send + last + 2*prop
	wantReq := wantResp + 2*(ack+prop)
	if d := resp.At - wantResp; d < -2 || d > 2 {
		t.Errorf("responder completion at %v, want %v", resp.At, wantResp)
	}
	if d := req.At - wantReq; d < -2 || d > 2 {
		t.Errorf("requester completion at %v, want %v", req.At, wantReq)
	}
	goodput := float64(size*8) / send.Seconds() / 1e9
	if want := 100 * 4096.0 / (4096 + 82); math.Abs(goodput-want) > 1e-3 {
		t.Errorf("goodput %.4f Gb/s, want %.4f", goodput, want)
	}
}

// naiveMaxMin is progressive filling written the slow, obvious way: raise
// every unfrozen flow together to the smallest level any link (its
// capacity left over the weights of the unfrozen flows crossing it) or
// cap allows, freeze the flows whose data crosses a link at that level,
// repeat. Flow f loads link paths[f][i] with weights[f][i] per unit of its
// rate; the legs of weight 1 are its data's, the others its ACKs', which
// take capacity but are not held by a full link.
func naiveMaxMin(paths [][]int32, weights [][]float64, caps []float64, capOf func(l int32) float64) []float64 {
	n := len(paths)
	rate := make([]float64, n)
	frozen := make([]bool, n)
	for left := n; left > 0; {
		rem := map[int32]float64{}
		wsum := map[int32]float64{}
		data := map[int32]bool{}
		for f, p := range paths {
			for i, l := range p {
				if _, ok := rem[l]; !ok {
					rem[l] = capOf(l)
				}
				if frozen[f] {
					rem[l] -= weights[f][i] * rate[f]
					continue
				}
				wsum[l] += weights[f][i]
				data[l] = data[l] || weights[f][i] == 1
			}
		}
		level := math.Inf(1)
		for l, w := range wsum {
			if data[l] {
				level = math.Min(level, rem[l]/w)
			}
		}
		for f := range paths {
			if !frozen[f] && caps[f] > 0 {
				level = math.Min(level, caps[f])
			}
		}
		for f, p := range paths {
			if frozen[f] {
				continue
			}
			hit := caps[f] > 0 && caps[f] <= level*(1+1e-12)
			for i, l := range p {
				if weights[f][i] == 1 && rem[l]/wsum[l] <= level*(1+1e-12) {
					hit = true
				}
			}
			if hit {
				rate[f], frozen[f] = level, true
				left--
			}
		}
	}
	return rate
}

// oversubscribed returns a maker of engines, one per seed, over a 2:1
// leaf-spine of 4 leaves of 8 hosts and 2 spines, every link 100G.
func oversubscribed(t *testing.T) func(seed uint64) *Engine {
	t.Helper()
	tp, err := topo.BuildLeafSpine(topo.LeafSpine{Leaves: 4, Spines: 2, HostsPerLeaf: 8, UplinksPerLeaf: 4,
		HostLink: topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: unit.Metre}, FabricLink: topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: unit.Metre}})
	if err != nil {
		t.Fatal(err)
	}
	return func(seed uint64) *Engine {
		c := config(tp)
		c.Seed = seed
		e, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
}

// The water-filling against the naive version, on random flow sets over
// a 2:1 leaf-spine with ECMP, some flows rate-capped, each flow's ACKs
// loading its way back.
func TestMaxMinAgainstNaive(t *testing.T) {
	newEngine := oversubscribed(t)
	rng := sim.NewStreams(42).Stream("test")
	for trial := 0; trial < 40; trial++ {
		e := newEngine(uint64(trial))
		var r recorder
		n := 1 + rng.IntN(60)
		var paths [][]int32
		var weights [][]float64
		var caps []float64
		for i := 0; i < n; i++ {
			src := rng.IntN(32)
			dst := (src + 1 + rng.IntN(31)) % 32
			o := workload.QPOptions{}
			if rng.IntN(4) == 0 {
				o.RateCap = unit.BitRate(1+rng.IntN(60)) * unit.Gbps
			}
			qp := e.Connect(src, dst, o, &r)
			e.Post(qp, workload.Message{Op: workload.Write, Bytes: 1 << 30})
			fl := &e.flows[qp]
			var w []float64
			for h := range fl.legs {
				w = append(w, fl.weight(h))
			}
			paths, weights = append(paths, fl.legs), append(weights, w)
			caps = append(caps, float64(o.RateCap))
		}
		e.Sched().RunUntil(unit.Nanosecond)
		want := naiveMaxMin(paths, weights, caps, func(l int32) float64 { return e.net.links[l].bps })
		for f := range paths {
			if got := e.flows[f].rate; math.Abs(got-want[f]) > 1e-6*want[f] {
				t.Fatalf("trial %d, flow %d of %d: %.6g bit/s, naive %.6g", trial, f, n, got, want[f])
			}
		}
	}
}

// Strict priority and DWRR between classes on one link: a strict class
// takes what it needs and two DWRR classes split the rest by weight.
func TestETSShares(t *testing.T) {
	tp, err := topo.Dumbbell(3, 3, 1, topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: unit.Metre}, topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: unit.Metre})
	if err != nil {
		t.Fatal(err)
	}
	c := config(tp)
	c.Switch.DSCPToPrio[8], c.Switch.DSCPToPrio[48] = 1, 6
	c.NIC = c.Switch
	c.SwitchWeights = [8]int{25, 75, 0, 0, 0, 0, 0, 0}
	c.NICWeights = c.SwitchWeights
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	big := workload.Message{Op: workload.Write, Bytes: 1 << 30}
	// h0 → h3 on priority 0, h1 → h4 on priority 1, h2 → h5 on strict 6
	// capped at 10G (by their DSCPs): they share the trunk.
	for i, o := range []workload.QPOptions{
		{SetTC: true, TC: 0},
		{SetTC: true, TC: 8 << 2},
		{SetTC: true, TC: 48 << 2, RateCap: 10 * unit.Gbps},
	} {
		e.Post(e.Connect(i, 3+i, o, &r), big)
	}
	e.Sched().RunUntil(unit.Nanosecond)
	trunk := e.net.links[e.flows[0].path[1]].bps
	want := []float64{(trunk - 10e9) * 0.25, (trunk - 10e9) * 0.75, 10e9}
	for f, w := range want {
		if got := e.flows[f].rate; math.Abs(got-w) > 1e-6*w {
			t.Errorf("flow %d: %.4g bit/s, want %.4g", f, got, w)
		}
	}
}

// Messages on one connection complete in order at both ends, one-packet
// messages included, and a connection's messages in a row keep its rate.
func TestCompletionOrder(t *testing.T) {
	e := singleSwitch(t, 3, unit.Metre, nil)
	var r recorder
	a := e.Connect(0, 2, workload.QPOptions{}, &r)
	b := e.Connect(1, 2, workload.QPOptions{}, &r)
	sizes := []int64{64, 1 << 20, 0, 4096, 3 << 20, 64, 64}
	for i, s := range sizes {
		e.Post(a, workload.Message{Op: workload.WriteImm, Bytes: s, ID: uint64(i)})
	}
	e.Post(b, workload.Message{Op: workload.WriteImm, Bytes: 8 << 20, ID: 100})
	e.Sched().RunUntil(unit.Second)
	var next [2]uint64
	var last [2]unit.Time
	for _, c := range r.got {
		if c.QP != a || c.Side != workload.Requester {
			continue
		}
		if c.ID != next[0] || c.At < last[0] {
			t.Fatalf("requester completion %+v out of order", c)
		}
		next[0]++
		last[0] = c.At
	}
	if next[0] != uint64(len(sizes)) || len(r.got) != 2*len(sizes)+2 {
		t.Fatalf("%d completions: %+v", len(r.got), r.got)
	}
}

// run builds an engine over a leaf-spine, runs random flows and returns a
// text record of everything it saw.
func run(t *testing.T, seed uint64) string {
	tp, err := topo.BuildLeafSpine(topo.LeafSpine{Leaves: 4, Spines: 2, HostsPerLeaf: 8, UplinksPerLeaf: 4,
		HostLink: topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: unit.Metre}, FabricLink: topo.LinkSpec{Rate: 100 * unit.Gbps, Cable: 10 * unit.Metre}})
	if err != nil {
		t.Fatal(err)
	}
	c := config(tp)
	c.Seed = seed
	c.ClockPPM = 100
	c.Losses = []Loss{{Link: 3, Rate: 0.01, Burst: 1}}
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	rng := sim.NewStreams(seed).Stream("test")
	for i := 0; i < 50; i++ {
		src := rng.IntN(32)
		qp := e.Connect(src, (src+1+rng.IntN(31))%32, workload.QPOptions{}, &r)
		for j := 0; j < 3; j++ {
			e.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: int64(rng.IntN(4 << 20)), ID: uint64(j)})
		}
	}
	e.Sched().RunUntil(unit.Second)
	var b strings.Builder
	for _, c := range r.got {
		fmt.Fprintf(&b, "%d %d %d %d\n", c.QP, c.Side, c.ID, c.At)
	}
	fmt.Fprintf(&b, "%+v\n%+v\n", e.NICs(), e.Links())
	return b.String()
}

// The same configuration and seed give the same run, byte for byte; a
// different seed a different one.
func TestDeterminism(t *testing.T) {
	a, b := run(t, 3), run(t, 3)
	if a != b {
		t.Fatal("two runs of one seed differ")
	}
	if a == run(t, 4) {
		t.Fatal("another seed gave the same run")
	}
}

// A lost last packet with nothing behind it waits for the local ACK timer
// (4.096 µs·2^14 here); one followed at once by another message is
// exposed by the next packet and costs no timer.
func TestLostTailWaitsForTimeout(t *testing.T) {
	lossy := func(rate float64) func(*Config) {
		return func(c *Config) { c.Losses = []Loss{{Link: 0, Rate: rate, Burst: 1}} } // h0's cable
	}
	e := singleSwitch(t, 2, unit.Metre, lossy(1))
	var r recorder
	a := e.Connect(0, 1, workload.QPOptions{}, &r)
	e.Post(a, workload.Message{Op: workload.WriteImm, Bytes: 1 << 20, ID: 1})
	e.Sched().RunUntil(unit.Second)
	timeout := 4096 * unit.Nanosecond << 14
	// Go-back-N at a loss rate of 1 stretches the sending to about 1 ms;
	// the tail then waits for the timer.
	if len(r.got) != 2 || r.got[0].At < timeout || r.got[0].At > timeout+unit.Millisecond {
		t.Fatalf("lone message: %+v, want its responder completion just after the %v timer", r.got, timeout)
	}
	if n := e.NICs()[0]; n.LocalAckTimeoutErr != 2 {
		t.Errorf("local_ack_timeout_err %d, want 2 (the lost tail and its lost ACK)", n.LocalAckTimeoutErr)
	}
	e = singleSwitch(t, 2, unit.Metre, lossy(0.5))
	r.got = nil
	b := e.Connect(0, 1, workload.QPOptions{}, &r)
	for i := 0; i < 2; i++ {
		e.Post(b, workload.Message{Op: workload.WriteImm, Bytes: 1 << 20, ID: uint64(i)})
	}
	e.Sched().RunUntil(unit.Second)
	if r.got[0].ID != 0 || r.got[0].At > timeout/2 {
		t.Errorf("followed message: first completion %+v; its tail should be exposed at once", r.got[0])
	}
}

// A READ is refused as the packet NIC refuses it, and what follows on the
// connection still completes in order.
func TestReadRefused(t *testing.T) {
	e := singleSwitch(t, 2, unit.Metre, nil)
	var r recorder
	qp := e.Connect(0, 1, workload.QPOptions{}, &r)
	e.Post(qp, workload.Message{Op: workload.Read, Bytes: 4096, ID: 1})
	e.Post(qp, workload.Message{Op: workload.Write, Bytes: 4096, ID: 2})
	e.Sched().RunUntil(unit.Second)
	if len(r.got) != 2 || r.got[0].ID != 1 || r.got[0].Status != workload.RemoteInvalidRequest || r.got[1].ID != 2 || r.got[1].Status != workload.Success {
		t.Fatalf("completions %+v", r.got)
	}
	if e.NICs()[0].ReqCQEError != 1 {
		t.Errorf("req_cqe_error %d", e.NICs()[0].ReqCQEError)
	}
}

// poster posts n one-packet WRITEs with immediate, one a microsecond, all
// unsignaled when unsig is set, and a last signaled one.
type poster struct {
	e     *Engine
	qp    workload.QP
	n     int
	unsig bool
}

func (p *poster) Handle(now unit.Time, tag uint64) {
	last := int(tag) == p.n
	p.e.Post(p.qp, workload.Message{Op: workload.WriteImm, Bytes: 8, ID: tag, Unsignaled: p.unsig && !last})
	if !last {
		p.e.Sched().At(now+unit.Microsecond, 0, p, tag+1)
	}
}

// Unsignaled requests (NCCL's clear-to-sends) reach the responder as any
// other, leave the requester without a completion or an event of their
// own, and do not pile up on the queue pair; the signaled request after
// them completes when it would have.
func TestUnsignaled(t *testing.T) {
	const n = 1000
	var got [2][]workload.Completion
	var events [2]uint64
	for k, unsig := range []bool{false, true} {
		e := singleSwitch(t, 2, unit.Metre, nil)
		var r recorder
		p := &poster{e: e, qp: e.Connect(0, 1, workload.QPOptions{}, &r), n: n, unsig: unsig}
		e.Sched().At(0, 0, p, 0)
		e.Sched().RunUntil(unit.Second)
		got[k], events[k] = r.got, e.Events()
		if q := e.flows[p.qp].msgs.len(); q > 2 {
			t.Errorf("unsignaled %v: %d messages left on the queue pair", unsig, q)
		}
	}
	var resp, req [2][]workload.Completion
	for k := range got {
		for _, c := range got[k] {
			if c.Side == workload.Responder {
				resp[k] = append(resp[k], c)
			} else {
				req[k] = append(req[k], c)
			}
		}
	}
	if len(resp[0]) != n+1 || fmt.Sprint(resp[0]) != fmt.Sprint(resp[1]) {
		t.Errorf("responder completions differ: %d signaled, %d unsignaled", len(resp[0]), len(resp[1]))
	}
	if len(req[0]) != n+1 || len(req[1]) != 1 || req[1][0] != req[0][n] {
		t.Errorf("requester completions: %d signaled, unsignaled %+v, want only %+v", len(req[0]), req[1], req[0][n])
	}
	if events[1] > events[0]-n {
		t.Errorf("events: %d signaled, %d unsignaled: want at least %d fewer", events[0], events[1], n)
	}
}

// Recomputing only the flows a change can move (near) keeps every active
// flow at its max-min fair rate as flows finish one by one: at random
// times the rates match the naive water-filling over the flows active
// then, on random pairs and on rings whose ACKs chain every flow to its
// neighbours.
func TestNearAgainstNaive(t *testing.T) {
	newEngine := oversubscribed(t)
	rng := sim.NewStreams(7).Stream("test")
	var solves, moved int64
	for trial := 0; trial < 30; trial++ {
		e := newEngine(uint64(trial))
		var r recorder
		ring := trial%2 == 1
		n := 32
		if !ring {
			n = 1 + rng.IntN(60)
		}
		for i := 0; i < n; i++ {
			src, dst := i, (i+1)%32
			if !ring {
				src = rng.IntN(32)
				dst = (src + 1 + rng.IntN(31)) % 32
			}
			o := workload.QPOptions{}
			if rng.IntN(5) == 0 {
				o.RateCap = unit.BitRate(1+rng.IntN(60)) * unit.Gbps
			}
			qp := e.Connect(src, dst, o, &r)
			e.Post(qp, workload.Message{Op: workload.Write, Bytes: int64(1+rng.IntN(64)) << 20})
		}
		for now := unit.Time(0); len(r.got) < 2*n && now < unit.Second; {
			now += unit.Time(1+rng.IntN(2000)) * unit.Microsecond / 10
			e.Sched().RunUntil(now)
			var paths [][]int32
			var weights [][]float64
			var caps []float64
			var ids []int
			for f := range e.flows {
				fl := &e.flows[f]
				if !fl.active {
					continue
				}
				var w []float64
				for h := range fl.legs {
					w = append(w, fl.weight(h))
				}
				paths, weights, caps, ids = append(paths, fl.legs), append(weights, w), append(caps, fl.capBps), append(ids, f)
			}
			want := naiveMaxMin(paths, weights, caps, func(l int32) float64 { return e.net.links[l].bps })
			for i, f := range ids {
				if got := e.flows[f].rate; math.Abs(got-want[i]) > 1e-8*want[i] {
					t.Fatalf("trial %d (ring %v) at %v, flow %d of %d active: %.9g bit/s, naive %.9g", trial, ring, now, f, len(ids), got, want[i])
				}
			}
		}
		solves, moved = solves+e.solves, moved+e.flowsIn
	}
	t.Logf("%d solves, %.1f flows each", solves, float64(moved)/float64(solves))
}
