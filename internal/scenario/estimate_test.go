package scenario

import (
	"strings"
	"testing"
	"unsafe"

	"rocelab/internal/packet"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// The estimate follows the traffic: a small flow under a huge duration is
// cheap, because a lossless run ends when its traffic completes.
func TestEstimateFollowsTraffic(t *testing.T) {
	s := mustLoad(t, "long.yaml", "duration: 1000h\ntopology: {kind: single-switch, hosts: 2}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}\n")
	e := s.Estimate()
	if e.Why != "" || e.Until > 2*unit.Millisecond {
		t.Errorf("until %s (%s), want the traffic's bound, about 1 ms", e.Until, e.Why)
	}
	// 1 MiB at MTU 4096 is 256 packets over 2 links.
	if e.Packets != 256 || e.PacketHops != 512 {
		t.Errorf("packets %d, packet-hops %d; want 256, 512", e.Packets, e.PacketHops)
	}
	if err := e.Check(twin.Limits{Memory: 64 * unit.MiB, Events: 1_000_000}); err != nil {
		t.Error(err)
	}

	// Lossy traffic may take an ACK timeout of seconds to complete: the run
	// may last the duration, and the estimate says so; the queue sampler
	// doubles its interval every 2048 samples, so even 1000 h of it is
	// 27 full rounds of samples and a partial one, and cheap.
	s = mustLoad(t, "lossy.yaml", "duration: 1000h\ntopology: {kind: single-switch, hosts: 2}\nswitch: {pfc: {enabled: false}}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}\n")
	e = s.Estimate()
	if e.Until != s.Duration || !strings.Contains(e.Why, "PFC is off: lost packets are resent") || e.Samples != 27*2048+635 {
		t.Errorf("lossy: until %s (%s), %d samples", e.Until, e.Why, e.Samples)
	}
	if err := e.Check(twin.Limits{Memory: 64 * unit.MiB, Events: 1_000_000}); err != nil {
		t.Error(err)
	}
}

// The samples the estimate counts are those the sampler takes: 2048 at the
// interval, then 2048 at each doubling.
func TestSamplesUntil(t *testing.T) {
	for _, c := range []struct {
		t, every unit.Time
		want     int64
	}{
		{0, 10 * unit.Microsecond, 1},
		{10 * unit.Millisecond, 10 * unit.Microsecond, 1001},
		{2048 * 10 * unit.Microsecond, 10 * unit.Microsecond, 2049},
		{3 * 2048 * 10 * unit.Microsecond, 10 * unit.Microsecond, 4097},
	} {
		if got := samplesUntil(c.t, c.every); got != c.want {
			t.Errorf("samplesUntil(%s, %s) = %d, want %d", c.t, c.every, got, c.want)
		}
	}
}

// The bound the estimate puts on a run holds: every example that the
// estimate expects to complete ends by Until (the others may run the whole
// duration); and the events estimated are within 0.7-1.5 of those
// executed on those runs, within a factor of about 3 on the lossy ones.
func TestEstimateBoundHolds(t *testing.T) {
	for _, c := range []struct {
		name      string
		completes bool
	}{{"single-flow", true}, {"incast-pfc", true}, {"leafspine-permutation", true}, {"incast-nopfc", false}, {"headroom-short", false}} {
		s := example(t, c.name)
		e := s.Estimate()
		if (e.Why == "") != c.completes {
			t.Errorf("%s: estimate says %q", c.name, e.Why)
			continue
		}
		tw, end := run(t, s)
		if c.completes && !tw.Done() || end > e.Until {
			t.Errorf("%s: ended at %s (all done %v), after the estimated bound %s", c.name, end, tw.Done(), e.Until)
		}
		if r := float64(tw.Executed()) / float64(e.Events); c.completes && (r < 0.7 || r > 1.5) || r < 0.3 || r > 2 {
			t.Errorf("%s: %d events executed, %d estimated", c.name, tw.Executed(), e.Events)
		}
	}
}

// Generators too large to expand are counted, not expanded: the estimate of
// an all-to-all over a k=32 fat-tree (8,192 hosts) is immediate and exact
// in flows.
func TestEstimateHugeGenerator(t *testing.T) {
	s := mustLoad(t, "a2a.yaml", "topology: {kind: fat-tree, k: 32}\ntraffic: {generators: [{kind: all-to-all, bytes: 4KiB}]}\n")
	e := s.Estimate()
	if e.Flows != 8192*8191 || e.Packets != 8192*8191 || e.PacketHops < 4*e.Packets || e.PacketHops > 6*e.Packets {
		t.Errorf("flows %d, packets %d, packet-hops %d", e.Flows, e.Packets, e.PacketHops)
	}
	if err := e.Check(twin.Limits{Memory: 4 * unit.GiB}); err == nil || !strings.Contains(err.Error(), "67100672 flows") {
		t.Errorf("check: %v", err)
	}
}

// Threads cost memory: each domain of a split run adds its histograms and
// buffers, which the check counts and says; what the run prints about the
// estimate does not change.
func TestEstimateCountsDomains(t *testing.T) {
	s := mustLoad(t, "ft.yaml", "topology: {kind: fat-tree, k: 8}\ntraffic: {generators: [{kind: permutation, bytes: 1MB}]}\n")
	one := s.Estimate()
	s.Run.Threads = 8
	eight := s.Estimate()
	if one.String() != eight.String() || eight.Domains != 8 {
		t.Fatalf("estimates %q and %q, %d domains", one, eight, eight.Domains)
	}
	limit := twin.Limits{Memory: one.Memory + bytesPerDomain}
	if err := one.Check(limit); err != nil {
		t.Errorf("one domain: %v", err)
	}
	if err := eight.Check(limit); err == nil || !strings.Contains(err.Error(), "split into 8 domains") {
		t.Errorf("eight domains: %v", err)
	}
}

// The packet pool takes its packets a chunk at a time: the refusal
// counts a run of one packet at a whole chunk of them at least, what
// prints of the estimate the packet alone.
func TestEstimateCountsPoolChunks(t *testing.T) {
	s := mustLoad(t, "one.yaml", "host: {mtu: 1024}\ntopology: {kind: single-switch, hosts: 2}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1024}]}\n")
	e := s.Estimate()
	if e.Packets != 1 || e.Domains != 1 {
		t.Fatalf("%d packets, %d domains estimated, want 1 and 1", e.Packets, e.Domains)
	}
	chunk := unit.Bytes(packet.PoolChunk * unsafe.Sizeof(packet.Packet{}))
	if err := e.Check(twin.Limits{Memory: e.Memory + chunk - 1}); err == nil {
		t.Errorf("a run of one packet fits %s, less than its estimate and a pool chunk of %s", human(e.Memory+chunk-1), human(chunk))
	}
	if err := e.Check(twin.Limits{Memory: e.Memory + poolChunkBytes}); err != nil {
		t.Error(err)
	}
}

// A refusal's wall time follows the fabric's size and the threads: the
// k=32 permutation of 2 MB per host ran 7.6 min of CPU on one thread
// (docs/engine.md), at 0.4 M events/s where k=8 runs 3 M.
func TestEstimateWallTime(t *testing.T) {
	s := mustLoad(t, "k32.yaml", "duration: 50ms\ntopology: {kind: fat-tree, k: 32}\nhost: {mtu: 1024, cc: dcqcn}\ntraffic: {generators: [{kind: permutation, bytes: 2MB}]}\n")
	s.Run.Threads = 1
	err := s.Estimate().Check(twin.Limits{Events: 1000})
	if err == nil || !strings.Contains(err.Error(), "about 8 min of wall time at 0.4 M events/s a thread") {
		t.Errorf("one thread: %v", err)
	}
	s.Run.Threads = 8
	err = s.Estimate().Check(twin.Limits{Events: 1000})
	if err == nil || !strings.Contains(err.Error(), "about 85 s of wall time on 8 threads at 0.4 M events/s a thread") {
		t.Errorf("eight threads: %v", err)
	}
	if r := eventRate(768); r != 3e6 {
		t.Errorf("k=8's 768 ports: %g events/s, want 3 M", r)
	}
	if r := eventRate(6144); r != 0.75e6 {
		t.Errorf("k=16's 6144 ports: %g events/s, want 0.75 M", r)
	}
}
