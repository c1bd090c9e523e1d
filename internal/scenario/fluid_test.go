package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// defaultLimits are rocelab run's: --max-events' default and a memory cap
// the 2-core machine has.
var defaultLimits = twin.Limits{Events: 5_000_000_000, Memory: 8 * unit.GiB}

// The seed's 2048-GPU job is beyond packet mode's limits, so auto picks
// the fluid engine, and says why; with --engine packet it is refused.
func TestAutoPicksFluid(t *testing.T) {
	// Laying out 2048 GPUs' traffic for the estimates takes a second or
	// two: the job and one variant of the loss example (the others are
	// the same job).
	for _, f := range []string{"testdata/gpt3-2048gpu.yaml", "../../examples/scale/gpt3-2048gpu-loss.yaml"} {
		s, err := LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Variants) > 0 {
			s = s.Variants[len(s.Variants)-1]
		}
		for _, j := range s.Jobs() {
			ch, err := twin.Choose(&j, &twin.Config{Limits: defaultLimits})
			if err != nil {
				t.Fatalf("%s: %v", j.Label(), err)
			}
			if ch.Plan.Engine != twin.Fluid || !strings.Contains(ch.Reason, "not packet: scenario too large") {
				t.Errorf("%s: chose %s: %s", j.Label(), ch.Plan.Engine, ch.Reason)
			}
			if _, err := twin.Choose(&j, &twin.Config{Engine: twin.Packet, Limits: defaultLimits}); err == nil {
				t.Errorf("%s: --engine packet was not refused", j.Label())
			}
		}
	}
	// A small scenario stays on the packet engine.
	s := example(t, "single-flow")
	j := s.Job()
	if ch, err := twin.Choose(&j, &twin.Config{Limits: defaultLimits}); err != nil || ch.Plan.Engine != twin.Packet {
		t.Errorf("single-flow: %v %v", ch.Plan.Engine, err)
	}
}

// observeFluid runs a scenario file through the pipeline on the fluid
// engine and returns its observation as JSON.
func observeFluid(t *testing.T, file string) (twin.Observation, []byte) {
	t.Helper()
	s, err := LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	j := s.Job()
	o, err := twin.Run(&j, &twin.Config{Engine: twin.Fluid, Limits: defaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return o, b
}

// The same scenario and seed give a byte-identical observation on the
// fluid engine, loss draws included (issue 15, acceptance 6): NCCL with
// loss, incast, and a TP/PP/DP training iteration; the totals conserve
// packets and the report names the engine and what it leaves out.
func TestFluidDeterminism(t *testing.T) {
	for _, f := range []string{"testdata/agreement/loss-allreduce-2x8gpu.yaml", "testdata/agreement/incast-fattree-k8.yaml", "testdata/agreement/training-8x8gpu-tp8-pp4-dp2.yaml"} {
		o, a := observeFluid(t, f)
		_, b := observeFluid(t, f)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: two fluid runs differ", f)
		}
		if o.Engine.Name != twin.Fluid || len(o.Engine.NotModelled) == 0 || !strings.HasPrefix(o.Engine.Reason, "asked for by name") {
			t.Errorf("%s: engine %+v", f, o.Engine)
		}
		tt := o.Totals
		if tt.Sent.Packets+tt.Retransmitted.Packets != tt.Delivered.Packets+tt.Dropped.Packets+tt.Discarded.Packets+tt.InFlight.Packets {
			t.Errorf("%s: totals do not conserve packets: %+v", f, tt)
		}
		if !o.Sim.Completed || tt.InFlight.Packets != 0 {
			t.Errorf("%s: completed %v, %d packets in flight", f, o.Sim.Completed, tt.InFlight.Packets)
		}
	}
}

// Incast on the fluid engine shows what an engineer looks for: PFC pause
// at the senders (no congestion control), the standing queue at the
// receiver's port, no loss, and the congested port as the busiest link.
func TestFluidIncastCounters(t *testing.T) {
	s := example(t, "incast-pfc")
	tw, err := BuildFluid(s)
	if err != nil {
		t.Fatal(err)
	}
	tw.RunUntil(s.Duration)
	o := tw.Observe()
	h := o.Health
	if h.PFCPauseRatio.Value < 0.5 || h.LossRate.Value != 0 || h.P99LatencyUS.Value < 100 {
		t.Errorf("health %+v", h)
	}
	var deepest twin.Queue
	for _, q := range o.Queues {
		if q.MaxBytes > deepest.MaxBytes && strings.HasPrefix(q.Port, "right/") {
			deepest = q
		}
	}
	// The receiver's port holds what the trunk's priority group takes
	// before it pauses: about 16 MiB of the 32 MiB buffer (the packet
	// engine: 16744322 B).
	if deepest.Port != "right/p0" || deepest.MaxBytes < 15<<20 || deepest.MaxBytes > 18<<20 {
		t.Errorf("deepest queue at the receiver %+v", deepest)
	}
}

// The fluid engine puts every connection on the path the packet engine
// gives its packets (the same source ports, QP numbers, switch seeds and
// hash): over the 128-host permutation every uplink carries the same
// frames on both engines, data and ACKs, byte for byte; with rocelab's
// hash and with the HPCC ns-3 model's (switch.ecmp.model ns3).
func TestFluidSamePaths(t *testing.T) {
	for _, ns3 := range []bool{false, true} {
		s := example(t, "leafspine-permutation")
		s.Host.NIC.CC, s.Host.NIC.DCQCN.Config = "none", nil // no CNPs: their frames differ
		s.Switch.NS3 = ns3
		pk, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		pk.Run()
		fl, err := BuildFluid(s)
		if err != nil {
			t.Fatal(err)
		}
		fl.RunUntil(s.Duration)
		a, b := pk.Observe().Uplinks, fl.Observe().Uplinks
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("ns3 %v: %d uplinks against %d", ns3, len(a), len(b))
		}
		used := 0
		for i := range a {
			if a[i].Port != b[i].Port || a[i].Bytes != b[i].Bytes {
				t.Errorf("ns3 %v: uplink %s: packet engine %d B, fluid %s %d B", ns3, a[i].Port, a[i].Bytes, b[i].Port, b[i].Bytes)
			}
			if a[i].Bytes > 0 {
				used++
			}
		}
		t.Logf("ns3 %v: %d of %d uplinks carry traffic, the same bytes on both engines", ns3, used, len(a))
	}
}

// The fluid engine's check weighs events by what they cost at the job's
// size: the GPT-3 job at 2048 and 8192 GPUs fits the default limits (65 s
// and 22 min of CPU measured), at 16384 GPUs it is refused up front with
// its cost (it ran past 13 CPU-minutes without finishing); raising
// --max-events lets it run.
func TestFluidCheckWeighsEventCost(t *testing.T) {
	for _, c := range []struct {
		gpus int
		ok   bool
	}{{2048, true}, {8192, true}, {16384, false}} {
		s, err := Load(fmt.Sprintf("gpt3-%dgpu.yaml", c.gpus), []byte(growthJob(c.gpus)))
		if err != nil {
			t.Fatal(err)
		}
		e := s.FluidEstimate()
		err = e.Check(defaultLimits)
		if (err == nil) != c.ok {
			t.Errorf("%d GPUs (%d events, %d connections, %.0f s): check %v", c.gpus, e.Events, e.Connections, e.Seconds(), err)
		}
		t.Logf("%d GPUs: %d events, %d connections, %.0f s: %v", c.gpus, e.Events, e.Connections, e.Seconds(), err)
		if err != nil && !strings.Contains(err.Error(), "of wall time") {
			t.Errorf("%d GPUs: the refusal does not say what the run would cost: %v", c.gpus, err)
		}
		if err := e.Check(twin.Limits{Events: 100 * defaultLimits.Events, Memory: defaultLimits.Memory}); err != nil {
			t.Errorf("%d GPUs with the limit raised: %v", c.gpus, err)
		}
	}
}

// A run its duration cuts short shows on the fluid engine what crossed
// the fabric by then, as the packet engine does: a 1 GiB WRITE given 1 ms
// on 100G has sent and delivered about 12.25 MB (98 Gb/s of goodput, the
// packet engine's 12247040 B), where a message booked only when its last
// byte left showed nothing sent, no goodput and no port counters.
func TestFluidCutShortCountsTheMessageInProgress(t *testing.T) {
	s, err := Load("cut.yaml", []byte("duration: 1ms\ntopology: {kind: single-switch, hosts: 2}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1GiB}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(e string) twin.Observation {
		j := s.Job()
		o, err := twin.Run(&j, &twin.Config{Engine: e, Limits: defaultLimits})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	p, f := run(twin.Packet), run(twin.Fluid)
	near := func(what string, got, want float64) {
		if want == 0 || math.Abs(got/want-1) > 0.005 {
			t.Errorf("%s: fluid %v, packet %v", what, got, want)
		}
	}
	near("sent bytes", float64(f.Totals.Sent.Bytes), float64(p.Totals.Sent.Bytes))
	near("delivered bytes", float64(f.Totals.Delivered.Bytes), float64(p.Totals.Delivered.Bytes))
	near("utilization", f.Health.BandwidthUtilization.Value, p.Health.BandwidthUtilization.Value)
	near("goodput", f.Flows[0].GoodputGbps, p.Flows[0].GoodputGbps)
	var fb, pb float64
	for i, pt := range p.Ports {
		if pt.Name == "h0/p0" {
			pb, fb = counter(pt.Counters, "tx_bytes_phy"), counter(f.Ports[i].Counters, "tx_bytes_phy")
		}
	}
	near("h0 tx_bytes_phy", fb, pb)
	tt := f.Totals
	if tt.Sent.Packets+tt.Retransmitted.Packets != tt.Delivered.Packets+tt.Dropped.Packets+tt.Discarded.Packets+tt.InFlight.Packets {
		t.Errorf("totals do not conserve packets: %+v", tt)
	}
}

// counter returns the value of the counter named name, or 0.
func counter(cs []twin.Counter, name string) float64 {
	for _, c := range cs {
		if c.Name == name {
			return float64(c.Value)
		}
	}
	return 0
}
