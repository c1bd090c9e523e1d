package scenario

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"rocelab/examples"
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// mustLoad loads YAML text or fails the test.
func mustLoad(t testing.TB, name, text string) *Scenario {
	t.Helper()
	s, err := Load(name, []byte(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func example(t testing.TB, name string) *Scenario {
	t.Helper()
	data, err := examples.FS.ReadFile(name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return mustLoad(t, name, string(data))
}

// run builds and runs s to completion or its time limit.
func run(t testing.TB, s *Scenario) (*Twin, unit.Time) {
	t.Helper()
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return tw, tw.Run()
}

// goodput returns flow i's goodput in Gb/s (bytes over its completion
// time at the requester), NaN when it did not complete.
func goodput(tw *Twin, i int) float64 {
	fct, ok := tw.Traffic.State(i).FCT()
	if !ok {
		return math.NaN()
	}
	return float64(tw.Flows[i].Bytes) * 8 / fct.Seconds() / 1e9
}

// The analytic goodput of one flow is line rate × MTU / (MTU + 82): the
// per-packet overhead is preamble+IFG 20, Ethernet 14, IPv4 20, UDP 8,
// BTH 12, ICRC 4, FCS 4.
func TestSingleFlowLineRate(t *testing.T) {
	for _, mtu := range []int{4096, 1024} {
		s := example(t, "single-flow")
		s.Host.MTU = int32(mtu)
		tw, _ := run(t, s)
		got := goodput(tw, 0)
		want := 100 * float64(mtu) / float64(mtu+int(packet.Overhead(false)))
		if math.Abs(got-want)/want > 0.01 {
			t.Errorf("MTU %d: goodput %.3f Gb/s, analytic %.3f Gb/s", mtu, got, want)
		}
		t.Logf("MTU %d: goodput %.4f Gb/s, analytic %.4f Gb/s (%.3f%% off)", mtu, got, want, 100*(got-want)/want)
	}
}

// 16:1 incast with PFC: no drops, fair shares, pauses on the upstream ports,
// and a victim flow through the paused trunk slowed far below its path.
func TestIncastPFC(t *testing.T) {
	s := example(t, "incast-pfc")
	tw, _ := run(t, s)
	net := tw.Net
	if d := net.Totals().Dropped.Packets; d != 0 {
		t.Fatalf("PFC incast dropped %d packets", d)
	}
	victim := -1
	var incast []int
	for i := range tw.Flows {
		if tw.Flows[i].Name == "victim" {
			victim = i
		} else {
			incast = append(incast, i)
		}
	}
	// Fair share: the receiver's line-rate goodput split 16 ways, over the
	// time all 16 were active (they start together and end together).
	fair := 100 * 4096.0 / (4096 + 82) / 16
	for _, f := range incast {
		if g := goodput(tw, f); math.Abs(g-fair)/fair > 0.05 {
			t.Errorf("incast flow %d: %.3f Gb/s, fair share %.3f", f, g, fair)
		}
	}
	// Pause counters rise on the upstream ports: the right switch pauses
	// the trunk, the left switch pauses every sender.
	byName := map[string]*fabric.Port{}
	for _, pt := range net.Ports {
		byName[pt.Name()] = pt
	}
	trunk := byName["right/p2"]
	if trunk.Snapshot().TxPause[3] == 0 || trunk.Peer().Snapshot().RxPauseDuration[3] == 0 {
		t.Errorf("trunk: right sent %d pauses, left paused for %v", trunk.Snapshot().TxPause[3], trunk.Peer().Snapshot().RxPauseDuration[3])
	}
	for i := 0; i <= 16; i++ {
		h := byName["h"+itoa(i)+"/p0"]
		if h.Snapshot().RxPause[3] == 0 {
			t.Errorf("sender h%d received no pause", i)
		}
	}
	// The victim's path is idle 100G end to end, but it shares the paused
	// trunk queue: it must be slowed well below its line rate.
	vg := goodput(tw, victim)
	if vg > 25 {
		t.Errorf("victim goodput %.2f Gb/s: not slowed by the spreading pauses", vg)
	}
	// Control: the victim alone runs at line rate.
	alone := example(t, "incast-pfc")
	alone.Generators = nil // the victim is the only explicit flow
	tw2, _ := run(t, alone)
	ag := goodput(tw2, 0)
	if ag < 97 {
		t.Errorf("victim alone: %.2f Gb/s, want line rate", ag)
	}
	t.Logf("incast fair share %.3f Gb/s; victim %.2f Gb/s with the incast, %.2f Gb/s alone; trunk pauses %d, victim sender paused %v",
		fair, vg, ag, trunk.Snapshot().TxPause[3], byName["h16/p0"].Snapshot().RxPauseDuration[3])
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// Without PFC and with a small buffer the incast drops, the RC transport
// recovers by go-back-N, and every payload byte is accounted for: sent +
// retransmitted = delivered + dropped + discarded + in flight, checked
// mid-run (while packets are queued and on the wire) and at the end.
func TestConservationWithoutPFC(t *testing.T) {
	s := example(t, "incast-nopfc")
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	net := tw.Net
	check := func(when string) {
		in := net.InFlight()
		tot := net.Totals()
		if l, r := tot.Sent.Bytes+tot.Retransmitted.Bytes, tot.Delivered.Bytes+tot.Dropped.Bytes+tot.Discarded.Bytes+in.Bytes; l != r {
			t.Errorf("%s: sent %d + retx %d != delivered %d + dropped %d + discarded %d + in flight %d",
				when, tot.Sent.Bytes, tot.Retransmitted.Bytes, tot.Delivered.Bytes, tot.Dropped.Bytes, tot.Discarded.Bytes, in.Bytes)
		}
		if l, r := tot.Sent.Packets+tot.Retransmitted.Packets, tot.Delivered.Packets+tot.Dropped.Packets+tot.Discarded.Packets+in.Packets; l != r {
			t.Errorf("%s: packets %d != %d", when, l, r)
		}
		if live := net.PacketsLive(); int64(live) != in.Packets+int64(countControl(net)) {
			t.Errorf("%s: %d packets live in the pool, %d data + %d control in the network", when, live, in.Packets, countControl(net))
		}
		t.Logf("%s: sent %d + retx %d = delivered %d + dropped %d + discarded %d + in flight %d",
			when, tot.Sent.Bytes, tot.Retransmitted.Bytes, tot.Delivered.Bytes, tot.Dropped.Bytes, tot.Discarded.Bytes, in.Bytes)
	}
	for _, at := range []unit.Time{50 * unit.Microsecond, 333 * unit.Microsecond} {
		tw.RunUntil(at)
		if net.InFlight().Bytes == 0 {
			t.Fatalf("nothing in flight at %v: the mid-run check is vacuous", at)
		}
		check(at.String())
	}
	tw.Run()
	check("end")
	if net.Totals().DropsByReason[fabric.DropLossyOverflow] == 0 {
		t.Fatal("no lossy-overflow drops without PFC and a 2 MiB buffer")
	}
	if net.Totals().Retransmitted.Packets == 0 {
		t.Error("drops but no retransmissions")
	}
	if net.Totals().RoCEDropped != net.Totals().Dropped {
		t.Errorf("RoCE drops %v, all data drops %v", net.Totals().RoCEDropped, net.Totals().Dropped)
	}
}

// countControl counts control frames (PFC, ACK, CNP) queued or on the
// wire, at NICs and switches.
func countControl(net *fabric.Network) int {
	n := 0
	f := func(p *packet.Packet) {
		if p.Kind != packet.Data {
			n++
		}
	}
	for _, pt := range net.Ports {
		pt.InFlight(f)
	}
	for _, sw := range net.Switches {
		sw.EachQueued(f)
	}
	for _, h := range net.Hosts {
		if c, ok := h.(interface{ EachControl(func(*packet.Packet)) }); ok {
			c.EachControl(f)
		}
	}
	return n
}

// Headroom sized for 3 m on 300 m cables overflows on the lossless class;
// the computed headroom does not.
func TestHeadroom(t *testing.T) {
	short := example(t, "headroom-short")
	tw, _ := run(t, short)
	hdrm := tw.Net.Totals().DropsByReason[fabric.DropHeadroomOverflow]
	if hdrm == 0 {
		t.Fatal("headroom sized for 3 m gave no headroom overflow on 300 m cables")
	}
	if tw.Net.Totals().DropsByReason[fabric.DropLossyOverflow] != 0 {
		t.Error("lossy drops in a lossless scenario")
	}
	auto := example(t, "headroom-short")
	auto.Switch.PFC.Headroom = 0
	tw2, _ := run(t, auto)
	if d := tw2.Net.Totals().Dropped.Packets; d != 0 {
		t.Errorf("computed headroom %d B: %d drops", ComputeHeadroom(100*unit.Gbps, 300*unit.Metre, auto.Switch.PFC), d)
	}
	if !tw2.Done() {
		t.Error("flows did not complete with the computed headroom")
	}
	t.Logf("300 m: headroom 45056 B gave %d headroom-overflow drops; computed %d B gave 0", hdrm, ComputeHeadroom(100*unit.Gbps, 300*unit.Metre, auto.Switch.PFC))
}

// The SONiC formula by hand at 100G, MTU 9100, mac_phy_delay 1 KiB, peer
// response 394 quanta (25216 B): cable bytes 2·L·1e11/1.98e8/8.
func TestComputeHeadroom(t *testing.T) {
	p := PFCSpec{MTU: 9100, MACPHYDelay: 1024, CellOccupancy: 1}
	for _, c := range []struct {
		cable unit.Length
		want  unit.Bytes
	}{
		// 9100 + (9100 + 378.8 + 1024 + 25216) = 44818.8 → 44 KiB
		{3 * unit.Metre, 45056},
		// 9100 + (9100 + 37878.8 + 1024 + 25216) = 82318.8 → 81 KiB
		{300 * unit.Metre, 82944},
	} {
		if got := ComputeHeadroom(100*unit.Gbps, c.cable, p); got != c.want {
			t.Errorf("%v: headroom %d, want %d", c.cable, got, c.want)
		}
	}
}

// The data path allocates nothing per packet once warm: over a whole
// incast run, with PFC only and with DCQCN (CNPs, rate timers, the pacing
// calendar), heap allocations stay a small fraction of packet-hops (the
// remainder is sample-series and pool growth, amortized).
func TestNoPerPacketAllocation(t *testing.T) {
	for _, ex := range []string{"incast-pfc", "incast-dcqcn"} {
		s := example(t, ex)
		tw, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		hops := func() (n int64) {
			for _, pt := range tw.Net.Ports {
				n += pt.Snapshot().TxPhyPackets
			}
			return n
		}
		// Warm up: the buffers fill and the packet pool grows to its peak.
		tw.RunUntil(3 * unit.Millisecond)
		var before, after runtime.MemStats
		h0, pool0 := hops(), tw.Net.PacketsAllocated()
		runtime.ReadMemStats(&before)
		tw.Run()
		runtime.ReadMemStats(&after)
		allocs := after.Mallocs - before.Mallocs
		n := hops() - h0
		if per := float64(allocs) / float64(n); per > 0.01 {
			t.Errorf("%s: %d allocations over %d packet-hops after warm-up: %.4f per hop", ex, allocs, n, per)
		}
		t.Logf("%s after warm-up: %d allocations over %d packet-hops (pool grew by %d packets)", ex, allocs, n, tw.Net.PacketsAllocated()-pool0)
	}
}

// An ASIC named in the description: the twin's headroom: auto is the lua's
// for Spectrum-2 (cell 144 B, mac_phy_delay 0.8 KiB) with 50 % small
// packets of 1024 B and no shared headroom pool: 51200 B, plus the lua's
// 2 KiB small-packet compensation (`rocelab calc headroom --asic
// MELLANOX-SPECTRUM-2 --cable 40m --lossless-mtu 1024` prints the terms).
// A cell size alone derives the occupancy; a named ASIC that does not
// exist is an error with its line.
func TestHeadroomFromASIC(t *testing.T) {
	s := mustLoad(t, "asic.yaml", "topology: {kind: single-switch, hosts: 2}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}\nswitch:\n  pfc: {asic: MELLANOX-SPECTRUM-2, small_packet_percentage: 50, lossless_mtu: 1024}\n")
	if got := ComputeHeadroom(100*unit.Gbps, 40*unit.Metre, s.Switch.PFC); got != 53248 {
		t.Errorf("Spectrum-2 100G 40 m: %d, want 53248", got)
	}
	if s.Switch.PFC.CellOccupancy != 0 || s.Switch.PFC.MACPHYDelay != 0 {
		t.Errorf("the ASIC's terms are not used: %+v", s.Switch.PFC)
	}
	_, err := Load("bad.yaml", []byte("topology: {kind: single-switch, hosts: 2}\nswitch:\n  pfc: {asic: TOMAHAWK-9}\n"))
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:3") || !strings.Contains(err.Error(), "MELLANOX-SPECTRUM-2") {
		t.Errorf("unknown ASIC: %v", err)
	}
}
