package collective

import (
	"math"
	"testing"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
)

// TestLL128StreamsOffTheNetwork: an LL128 kernel reads a step received
// from the network line by line as the NIC lands it (prims_ll128.h polls
// each line's flag), so where the kernel is slower than the wire the
// receiving operation ends one kernel operation after the first lines
// land, whatever the port's rate. On two servers of one GPU (a Ring/LL128
// AllReduce of 128 KiB on one channel: two network hops of a 64 KiB step)
// a 400G and an 800G port give the same time; read only once the whole
// step has arrived, the 400G call would be longer by twice the
// difference of the two wire times (1.4 µs).
func TestLL128StreamsOffTheNetwork(t *testing.T) {
	env := map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL128", "NCCL_MAX_NCHANNELS": "1"}
	call := Call{Func: AllReduce, Bytes: 128 << 10}
	var times, wires []float64
	for _, rate := range []unit.BitRate{400 * unit.Gbps, 800 * unit.Gbps} {
		c := mustComm(t, server("H100", 1, 1, rate, 5), 2, 1, env)
		ch, err := c.Plan(call)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Algo != Ring || ch.Proto != LL128 || ch.Channels != 1 {
			t.Fatalf("%v: %s/%s/%d, want Ring/LL128/1", rate, ch.Algo, ch.Proto, ch.Channels)
		}
		step := float64(64<<10) * 128 / 120
		kernel := step / c.channelCap(AllReduce, Ring, LL128, 1) / 1e3 // µs at GB/s
		wire := rate.TxTime(unit.Bytes(step))
		if kernel <= wire.Micros() {
			t.Fatalf("%v: a kernel step of %.2f µs is not slower than the wire %v", rate, kernel, wire)
		}
		res, _ := runOn(t, c, 1, call)
		times = append(times, res[0].Time().Micros())
		wires = append(wires, wire.Micros())
	}
	saved := 2 * (wires[0] - wires[1])
	if d := times[0] - times[1]; math.Abs(d) > 0.2 || saved < 1 {
		t.Errorf("400G %.2f µs, 800G %.2f µs: differ by %.2f µs (store and forward: %.2f)", times[0], times[1], d, saved)
	}
}

// TestLL128RingHopLag: in NCCL's LL128 primitive each warp loads a whole
// 2 KiB slice, waiting for every thread's flag, before it stores the
// slice to the next GPU (prims_ll128.h GenericOp, recvReduceSendCopy), so
// a ring's hop forwards a step one round of the warps' slices after it
// started it, or once the whole step is done when the step is smaller
// than a round. On one server of 8 H100 (Ring/LL128 on one channel of 20
// warps, a round 40 KiB on the wire) an AllGather whose steps are under
// a round takes n steps of its chunk at the channel's rate, one per rank
// on the ring: growing a step by d costs 8·d/rate, where reading each
// hop's lines from the start of the step cost d/rate once. Steps over a
// round lag by the round.
func TestLL128RingHopLag(t *testing.T) {
	env := map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL128", "NCCL_MAX_NCHANNELS": "1"}
	c := mustComm(t, preset(t, "hgx-h100"), 1, 8, env)
	n := int64(c.NRanks)
	var times []float64
	for _, step := range []int64{4 << 10, 16 << 10} {
		call := Call{Func: AllGather, Bytes: n * step}
		ch, err := c.Plan(call)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Algo != Ring || ch.Proto != LL128 || ch.Channels != 1 || ch.Threads != 640 {
			t.Fatalf("%d B: %s/%s/%d with %d threads, want Ring/LL128/1 with 640", call.Bytes, ch.Algo, ch.Proto, ch.Channels, ch.Threads)
		}
		res, _ := runOn(t, c, 1, call)
		times = append(times, res[0].Time().Micros())
	}
	rate := c.channelCap(AllGather, Ring, LL128, 1) // GB/s
	d := float64(12<<10) * 128 / 120 / rate / 1e3   // µs
	if got, want := times[1]-times[0], float64(n)*d; math.Abs(got-want) > 0.1*want {
		t.Errorf("steps of 4 and 16 KiB: %.2f and %.2f µs, %.2f µs apart, want n × %.2f = %.2f", times[0], times[1], got, d, want)
	}
	call := Call{Func: AllGather, Bytes: n << 20}
	ch, err := c.Plan(call)
	if err != nil {
		t.Fatal(err)
	}
	e := builtEngine(c, call, ch)
	r := gpu.Rate(rate)
	if got, want := e.hopLag(1<<20, r), r.TxTime(20*2048); got != want {
		t.Errorf("a 1 MiB step lags %v, want one round of 20 warps' slices, %v", got, want)
	}
}

// TestLL128RingStepSync: a Ring/LL128 kernel's steps are serial on a
// channel: waitSend, a barrier of the channel's warps, the slices, a
// second barrier and the posts (prims_ll128.h GenericOp), so once a
// step's data outlasts the hop's latency the call grows as NCCL's model
// prices it, a latency plus bytes over bandwidth, not as the larger of a
// hop's latency and a step's data. On 2 × 8 H100 (the A3 Ultra and A4
// all_gather runs keep the model's slope from 8 to 16 MiB, docs/nccl.md)
// the twin's 16 MiB AllGather takes as much more than its 8 MiB one as
// NCCL's model says, within 25% (without StepSync it took 0.4 of it).
func TestLL128RingStepSync(t *testing.T) {
	env := map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL128"}
	c := mustComm(t, preset(t, "hgx-h100"), 2, 8, env)
	var twin, model []float64
	for _, size := range []int64{8 << 20, 16 << 20} {
		call := Call{Func: AllGather, Bytes: size}
		ch, err := c.Plan(call)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Algo != Ring || ch.Proto != LL128 {
			t.Fatalf("%d B: %s/%s, want Ring/LL128", size, ch.Algo, ch.Proto)
		}
		res, _ := runOn(t, c, 1, call)
		twin = append(twin, res[0].Time().Micros())
		model = append(model, float64(c.Tuning.Time(AllGather, Ring, LL128, size)))
	}
	got, want := twin[1]-twin[0], model[1]-model[0]
	t.Logf("twin %.1f and %.1f µs, NCCL's model %.1f and %.1f", twin[0], twin[1], model[0], model[1])
	if math.Abs(got/want-1) > 0.25 {
		t.Errorf("8 to 16 MiB: the twin grows by %.1f µs, NCCL's model by %.1f (×%.2f)", got, want, got/want)
	}
}

// TestRingLLProxyPace: on a ring across servers, the proxy of the GPU
// whose send crosses the network posts every step of a Ring/LL call in
// turn, each after a pass of its progress loop that finds the step's
// lines in (net.cc sendProxyProgress), so a small call grows with the
// ring's steps by that pass, not by an NVLink hop alone: NCCL's model
// charges each step of a ring across servers its network overhead
// (tuning.cc: "Inter-node rings still have to launch nsteps * net
// overhead"), 1 µs on an Intel host against NVLink's 0.6. From 2 × 4 to
// 2 × 8 H100 (7 to 15 steps) an 8 KiB AllGather grows per step by at
// least NCCL's figure (without RingLLPost it grew by the NVLink hop's
// 0.6 µs).
func TestRingLLProxyPace(t *testing.T) {
	env := map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"}
	var twin []float64
	for _, ppn := range []int{4, 8} {
		c := mustComm(t, preset(t, "hgx-h100"), 2, ppn, env)
		call := Call{Func: AllGather, Bytes: 8 << 10}
		res, _ := runOn(t, c, 4, call)
		twin = append(twin, res[0].Time().Micros())
	}
	perStep := (twin[1] - twin[0]) / 8
	t.Logf("2 × 4: %.1f µs, 2 × 8: %.1f µs, %.2f µs per step", twin[0], twin[1], perStep)
	if perStep < 1 {
		t.Errorf("a ring step costs %.2f µs, want at least NCCL's network overhead, 1 µs", perStep)
	}
}

// TestRingLLScanGrowth: the public Ring/LL all_gather runs on 2 × 8
// servers grow by 1.7-6.1 µs from 1 to 64 KiB (Vultr B200 5.4, GKE A3
// Ultra 6.1, GKE A4 1.7 and 5.0), where each network step's wire bytes
// grow from 128 B to 8 KiB: the proxy posts a step only after a pass has
// read the flags of all its lines (net.cc sendProxyProgress). The twin
// must grow within that range on the same shape (2 × 8 H100, 400G, one
// NIC a GPU); without the scan it grew by 0.3-0.6 µs.
func TestRingLLScanGrowth(t *testing.T) {
	c := mustComm(t, preset(t, "hgx-h100"), 2, 8, map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"})
	var twin []float64
	for _, b := range []int64{1 << 10, 64 << 10} {
		res, _ := runOn(t, c, 4, Call{Func: AllGather, Bytes: b})
		twin = append(twin, res[0].Time().Micros())
	}
	grow := twin[1] - twin[0]
	t.Logf("1 KiB %.1f µs, 64 KiB %.1f µs: +%.1f", twin[0], twin[1], grow)
	if grow < 1.7 || grow > 6.1 {
		t.Errorf("the twin grows by %.1f µs from 1 to 64 KiB, the public runs by 1.7-6.1", grow)
	}
}

// TestRingLLSharedProxy: with one NIC per server every channel's ring
// leaves the server from the same GPU, whose proxy serves all of the
// call's network sends. The passes of its loop a Ring/LL step waits for
// (RingLLPost) serve all of them at once (net.cc sendProxyProgress: one
// action per connection a pass), so the call is not slower by them once
// per channel: on 4 × 8 H100 with one 400G NIC at PHB (the gdr example:
// GPUDirect RDMA off, LL128 off, NCCL's model picks Ring/LL on 4
// channels at 2 MiB, 278 µs) the twin is within 25% of NCCL's model
// (246 µs with each step's flag scan, RingLLScan, as the connection's
// time; 219 without it). It fails if the passes are the thread's own
// time for each connection (586 µs, ×2.11), or if the scan is (694 µs at
// 18 GB/s).
func TestRingLLSharedProxy(t *testing.T) {
	srv := serverOf("H100", 1, 400*unit.Gbps, 5, gpu.PHB, gpu.Intel)
	c := mustComm(t, srv, 4, 8, nil)
	c.ThreadGPUs = 8 // nccl-tests -g 8, as the example runs it
	call := Call{Func: AllReduce, Bytes: 2 << 20}
	ch, err := c.Plan(call)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Algo != Ring || ch.Proto != LL || ch.Channels < 2 {
		t.Fatalf("NCCL's model picks %s/%s/%d, want Ring/LL on several channels", ch.Algo, ch.Proto, ch.Channels)
	}
	model := float64(c.Tuning.Time(AllReduce, Ring, LL, call.Bytes))
	res, _ := runOn(t, c, 4, call)
	twin := res[0].Time().Micros()
	t.Logf("Ring/LL/%d: twin %.1f µs, NCCL's model %.1f", ch.Channels, twin, model)
	if r := twin / model; r < 0.75 || r > 1.25 {
		t.Errorf("twin %.1f µs, NCCL's model %.1f: ×%.2f", twin, model, r)
	}
}
