package scenario

import (
	"fmt"
	"testing"

	"rocelab/internal/packet"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// latencyCase is one 4 KB flow across leaf, spine and leaf: three
// switches between the hosts.
const latencyCase = `name: latency
duration: 1ms
topology: {kind: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 1, uplinks_per_leaf: 1}
switch: {latency: %s}
host: {cc: hpcc}
traffic:
  flows:
    - {src: h0, dst: h1, bytes: 4KB}
`

// A switch's forwarding latency adds itself once per switch to a packet's
// one-way latency, in both engines, and twice per switch to the base RTT
// HPCC normalises by.
func TestSwitchLatency(t *testing.T) {
	const l = 600 * unit.Nanosecond
	load := func(lat string) *Scenario {
		return mustLoad(t, "latency.yaml", fmt.Sprintf(latencyCase, lat))
	}
	s0, s1 := load("0ns"), load("600ns")
	if d := s1.BaseRTT() - s0.BaseRTT(); d != 6*l {
		t.Errorf("base RTT grew by %v with %v a switch, want 6 × that (%v)", d, l, 6*l)
	}
	for _, engine := range []string{twin.Packet, twin.Fluid} {
		var p99 [2]float64
		for i, s := range []*Scenario{s0, s1} {
			j := s.Job()
			o, err := twin.Run(&j, &twin.Config{Engine: engine, Limits: defaultLimits})
			if err != nil {
				t.Fatal(err)
			}
			p99[i] = o.Health.P99LatencyUS.Value
		}
		if d := p99[1] - p99[0]; d < 1.79 || d > 1.81 { // the histogram keeps 3 digits
			t.Errorf("%s engine: one-way latency %.3f µs without switch latency, %.3f µs with %v a switch: +%.3f µs, want 3 × %v",
				engine, p99[0], p99[1], l, d, l)
		}
	}
}

// The latency lies between admission and the egress queue: PFC still sees
// every frame on arrival, so a 16:1 incast stays lossless with headroom
// sized for the cables alone, and every byte is accounted for mid-run
// while frames sit in the pipelines.
func TestSwitchLatencyLossless(t *testing.T) {
	s := example(t, "incast-pfc")
	s.Switch.Latency = 2 * unit.Microsecond
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	net := tw.Net
	tw.RunUntil(50 * unit.Microsecond)
	piped := 0
	for _, sw := range net.Switches {
		sw.EachQueued(func(*packet.Packet) { piped++ })
	}
	if piped == 0 {
		t.Fatal("nothing queued or in a pipeline at 50 µs")
	}
	in, tot := net.InFlight(), net.Totals()
	if l, r := tot.Sent.Bytes+tot.Retransmitted.Bytes, tot.Delivered.Bytes+tot.Dropped.Bytes+tot.Discarded.Bytes+in.Bytes; l != r {
		t.Errorf("50 µs: sent+retx %d != delivered+dropped+discarded+in flight %d", l, r)
	}
	tw.Run()
	if d := net.Totals().Dropped.Packets; d != 0 {
		t.Errorf("%d packets dropped on the lossless class with 2 µs switch latency", d)
	}
	if net.Totals().PauseFrames == 0 {
		t.Error("no PFC pauses in a 16:1 incast: the check above is vacuous")
	}
}

// A frame still in a switch's pipeline when the PFC watchdog declares a
// storm on its egress is dropped, as the queue was and as frames that
// arrive after are: from the storm's detection on, the stormed port sends
// the stormed host nothing more on its priority (the frame on the wire
// then aside), and every byte is accounted for.
func TestSwitchLatencyWatchdog(t *testing.T) {
	s := example(t, "pause-storm")
	s.Switch.Latency = 20 * unit.Microsecond // some 25 KB of the 10G flow in the pipeline
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	net := tw.Net
	toH1 := net.Switches[0].Port(1)
	if toH1.Peer().Name() != "h1/p0" {
		t.Fatalf("port 1 faces %s", toH1.Peer().Name())
	}
	at := unit.Time(0)
	for at = 1000 * unit.Microsecond; toH1.Snapshot().WatchdogStorms[3] == 0; at += unit.Microsecond {
		if at > 3*unit.Millisecond {
			t.Fatal("the watchdog found no storm")
		}
		tw.RunUntil(at)
	}
	sent := toH1.Snapshot().TxPrioPackets[3]
	tw.RunUntil(2 * unit.Millisecond)
	if n := toH1.Snapshot().TxPrioPackets[3] - sent; n > 1 {
		t.Errorf("%d frames sent toward the stormed h1 after the storm was found at %v", n, at)
	}
	in, tot := net.InFlight(), net.Totals()
	if l, r := tot.Sent.Bytes+tot.Retransmitted.Bytes, tot.Delivered.Bytes+tot.Dropped.Bytes+tot.Discarded.Bytes+in.Bytes; l != r {
		t.Errorf("2 ms: sent+retx %d != delivered+dropped+discarded+in flight %d", l, r)
	}
}
