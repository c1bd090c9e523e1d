package fabric_test

import (
	"math"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// fakeHost is a test endpoint: it sends count data packets of payload
// bytes to dst back to back (obeying PFC) and books what it receives.
type fakeHost struct {
	dom     *fabric.Domain
	id      int32
	port    *fabric.Port
	dst     int32
	payload int32
	left    int
	prio    uint8
	pint    uint8        // PINT bytes each data packet carries
	class   packet.Class // the transport its data packets belong to
	// got and last count delivered payload bytes and the time of the last.
	got  int64
	last unit.Time
	// sent numbers the data packets it sends (as their PSN); next is the
	// PSN it expects from each source, reordered counts arrivals that
	// were not it, and lastFrom is each source's last arrival.
	sent      uint32
	next      map[int32]uint32
	reordered int
	lastFrom  map[int32]unit.Time
}

func (h *fakeHost) Name() string       { return "h" + itoa(int(h.id)) }
func (h *fakeHost) HostID() int32      { return h.id }
func (h *fakeHost) Port() *fabric.Port { return h.port }
func (h *fakeHost) Receive(p *packet.Packet, in *fabric.Port) {
	in.CountRx(p)
	h.dom.Delivered(p)
	h.got += int64(p.Payload)
	h.last = h.dom.Sched.Now()
	if h.next == nil {
		h.next, h.lastFrom = map[int32]uint32{}, map[int32]unit.Time{}
	}
	if p.PSN != h.next[p.Src] {
		h.reordered++
	}
	h.next[p.Src], h.lastFrom[p.Src] = p.PSN+1, h.last
	h.dom.Pool.Put(p)
}

func (h *fakeHost) Dequeue(pt *fabric.Port, paused uint8) (*packet.Packet, bool) {
	if h.left == 0 || paused&(1<<h.prio) != 0 {
		return nil, false
	}
	h.left--
	p := h.dom.Pool.Get()
	p.Kind, p.Src, p.Dst, p.Payload = packet.Data, h.id, h.dst, h.payload
	p.Frame = packet.DataFrame(h.payload, 0, false)
	p.DSCP, p.Prio, p.TTL, p.SentAt = 26, h.prio, 64, h.dom.Sched.Now()
	p.PINTBytes, p.PSN, p.Class = h.pint, h.sent, h.class
	h.sent++
	h.dom.SentData(p, false)
	return p, h.left > 0
}

// star builds n fake hosts on one switch at rate over cables of length
// cable.
func star(t testing.TB, n int, rate unit.BitRate, cable unit.Length, cfg fabric.SwitchConfig) (*fabric.Network, *fabric.Switch, []*fakeHost) {
	net := fabric.NewNetwork(1, 1)
	dom := net.Domains[0]
	sw := net.NewSwitch(dom, "sw0", n, cfg)
	routes := make([][]int16, n)
	var hosts []*fakeHost
	for i := 0; i < n; i++ {
		h := &fakeHost{dom: dom, id: int32(i), prio: 3}
		h.port = net.NewPort(dom, h, net.NewNodeID(), 0)
		h.port.SetEgress(h)
		if err := net.AddHost(h); err != nil {
			t.Fatal(err)
		}
		net.Link(h.Port(), sw.Ports()[i], rate, cable)
		routes[i] = []int16{int16(i)}
		hosts = append(hosts, h)
	}
	sw.SetRoutes(routes)
	if err := sw.Start(); err != nil {
		t.Fatal(err)
	}
	return net, sw, hosts
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func defaultSwitch() fabric.SwitchConfig {
	c := fabric.SwitchConfig{
		Buffer: 32 * unit.MiB, Alpha: 1.0 / 8, AlphaLossy: 1.0 / 8,
		Lossless: 1 << 3, PFC: fabric.PFCConfig{Quanta: 0xffff, XON: true},
		Strict: 1<<6 | 1<<7, HashFields: fabric.FiveTuple,
		Headroom: func(*fabric.Port) unit.Bytes { return 200 * unit.KiB },
	}
	for d := range c.DSCPToPrio {
		c.DSCPToPrio[d] = uint8(d >> 3)
	}
	for p := range c.Weights {
		c.Weights[p] = 1
	}
	return c
}

func TestSingleFlowGoodput(t *testing.T) {
	for _, mtu := range []int32{4096, 1024} {
		net, sw, hs := star(t, 2, 100*unit.Gbps, 3*unit.Metre, defaultSwitch())
		const size = 64 << 20
		hs[0].dst, hs[0].payload, hs[0].left = 1, mtu, size/int(mtu)
		hs[0].port.Kick()
		net.Domains[0].Sched.Run()
		if hs[1].got != size {
			t.Fatalf("mtu %d: delivered %d of %d", mtu, hs[1].got, size)
		}
		good := float64(size*8) / hs[1].last.Seconds() / 1e9
		// Analytic: rate*MTU/(MTU+82), less the first packet's latency.
		want := 100 * float64(mtu) / float64(mtu+packet.Overhead(false))
		if math.Abs(good-want)/want > 0.001 {
			t.Errorf("mtu %d: goodput %.3f Gbps, analytic %.3f", mtu, good, want)
		}
		t.Logf("mtu %d: goodput %.4f Gbps (analytic %.4f)", mtu, good, want)
		// At equal rates each frame finds the egress empty and its line
		// free, and passes straight through: the queue's largest depth is
		// the one frame it held for that instant, and nothing stays.
		if frame := int64(packet.DataFrame(mtu, 0, false)); sw.QueueMax(1, 3) != frame || sw.QueueBytes(1, 3) != 0 {
			t.Errorf("mtu %d: egress queue max %d bytes, left %d; want one frame, %d, and none", mtu, sw.QueueMax(1, 3), sw.QueueBytes(1, 3), frame)
		}
	}
}

// TestPausedEgressHoldsFrame: a frame that finds its egress empty and the
// line free still waits while the peer's pause on its priority is in
// effect, and goes when the XON arrives; the straight-through path must
// not skip the pause.
func TestPausedEgressHoldsFrame(t *testing.T) {
	net, _, hs := star(t, 2, 100*unit.Gbps, 2*unit.Metre, defaultSwitch())
	sched := net.Domains[0].Sched
	hs[1].port.SetPFC(fabric.PFCConfig{Quanta: 0xFFFF, XON: true})
	hs[1].port.SendXOFF(3)
	sched.RunUntil(2 * unit.Microsecond)
	hs[0].dst, hs[0].payload, hs[0].left = 1, 1000, 1
	hs[0].port.Kick()
	sched.RunUntil(20 * unit.Microsecond)
	if hs[1].got != 0 {
		t.Fatalf("h1 received %d bytes while it paused priority 3", hs[1].got)
	}
	hs[1].port.SendXON(3)
	sched.RunUntil(40 * unit.Microsecond)
	if hs[1].got != 1000 {
		t.Fatalf("h1 received %d bytes after its XON, want 1000", hs[1].got)
	}
}

// Two senders at line rate into one: the egress to h2 stays busy, and
// frames arrive at the very times its line frees. Whatever runs first at
// such a tie, the frames already queued go before the arrival: each flow
// keeps its order and the two share the line, ending within two frames
// of each other (an arrival sent straight to the free line would give
// one sender the whole line).
func TestEgressSharedAtLineFreeTies(t *testing.T) {
	net, _, hs := star(t, 3, 100*unit.Gbps, 2*unit.Metre, defaultSwitch())
	for _, h := range hs[:2] {
		h.dst, h.payload, h.left = 2, 1024, 200
		h.port.Kick()
	}
	net.Domains[0].Sched.Run()
	h := hs[2]
	if h.got != 2*200*1024 || h.reordered != 0 {
		t.Fatalf("h2 received %d bytes, %d out of order; want %d and 0", h.got, h.reordered, 2*200*1024)
	}
	frame := hs[0].port.Rate().TxTime(unit.Bytes(packet.DataFrame(1024, 0, false) + packet.PreambleIFG))
	if d := h.lastFrom[0] - h.lastFrom[1]; d > 2*frame || d < -2*frame {
		t.Errorf("h0's flow ended at %v and h1's at %v: they did not share the line", h.lastFrom[0], h.lastFrom[1])
	}
}

// A switch without a route to the destination drops with a reason; it
// does not panic.
func TestNoRouteDrops(t *testing.T) {
	net, sw, hs := star(t, 2, 100*unit.Gbps, 3*unit.Metre, defaultSwitch())
	sw.SetRoute(1, nil)
	hs[0].dst, hs[0].payload, hs[0].left = 1, 1024, 10
	hs[0].port.Kick()
	net.Domains[0].Sched.Run()
	if got := net.Totals().DropsByReason[fabric.DropNoRoute]; got != 10 || hs[1].got != 0 {
		t.Errorf("no_route drops %d, delivered %d; want 10 and 0", got, hs[1].got)
	}
}

// A loss hook on arrival drops exactly the frames it chooses, counted by
// reason at the receiving port.
func TestLinkLossHook(t *testing.T) {
	net, sw, hs := star(t, 2, 100*unit.Gbps, 3*unit.Metre, defaultSwitch())
	sw.Ports()[0].SetLoss(&everyOther{})
	hs[0].dst, hs[0].payload, hs[0].left = 1, 1024, 100
	hs[0].port.Kick()
	net.Domains[0].Sched.Run()
	if d := net.Totals().DropsByReason[fabric.DropLinkLoss]; d != 50 || hs[1].got != 50*1024 {
		t.Errorf("link_loss drops %d, delivered %d B; want 50 and 51200", d, hs[1].got)
	}
	if sw.Ports()[0].Snapshot().Drops[fabric.DropLinkLoss] != 50 {
		t.Error("the drops are not booked at the receiving port")
	}
}

// everyOther loses every second frame.
type everyOther struct{ n int }

func (e *everyOther) Lose(unit.Time, *packet.Packet) bool { e.n++; return e.n%2 == 0 }

// A pause quantum is 512 bit times: 5.12 ns at 100G, 1.28 ns at 400G; the
// largest pause, 0xFFFF quanta, is 335.5392 us at 100G (IEEE 802.1Qbb: a
// pause quantum is 512 bit times).
func TestQuantaTime(t *testing.T) {
	net, _, _ := star(t, 2, 100*unit.Gbps, 3*unit.Metre, defaultSwitch())
	pt := net.Ports[0]
	if got := pt.QuantaTime(1); got != 5120*unit.Picosecond {
		t.Errorf("one quantum at 100G = %v", got)
	}
	if got := pt.QuantaTime(0xFFFF); got != 335539200*unit.Picosecond {
		t.Errorf("0xFFFF quanta at 100G = %v, want 335.5392us", got)
	}
	net2, _, _ := star(t, 2, 400*unit.Gbps, 3*unit.Metre, defaultSwitch())
	if got := net2.Ports[0].QuantaTime(0xFFFF); got != 83884800*unit.Picosecond {
		t.Errorf("0xFFFF quanta at 400G = %v, want 83.8848us", got)
	}
}

// TestDataAfterControlFrame: a port whose data waits behind a PFC frame
// sends the data once the frame has left. A 100G sender fills a switch's
// 10G port with 50 frames and stops; the port then sends an XOFF and an
// XON while the queue drains. Before the fix the port went idle after each
// control frame, with nothing left to wake it: the frames stayed queued
// for good, and a fabric with small PFC thresholds stalled.
func TestDataAfterControlFrame(t *testing.T) {
	net := fabric.NewNetwork(1, 1)
	dom := net.Domains[0]
	sw := net.NewSwitch(dom, "sw0", 2, defaultSwitch())
	var hosts [2]*fakeHost
	for i, rate := range []unit.BitRate{100 * unit.Gbps, 10 * unit.Gbps} {
		h := &fakeHost{dom: dom, id: int32(i), prio: 3, dst: 1, payload: 1000}
		h.port = net.NewPort(dom, h, net.NewNodeID(), 0)
		h.port.SetEgress(h)
		if err := net.AddHost(h); err != nil {
			t.Fatal(err)
		}
		net.Link(h.Port(), sw.Ports()[i], rate, 2*unit.Metre)
		hosts[i] = h
	}
	sw.SetRoutes([][]int16{{0}, {1}})
	if err := sw.Start(); err != nil {
		t.Fatal(err)
	}
	hosts[0].left = 50
	hosts[0].port.Kick()
	out := sw.Ports()[1]
	dom.Sched.RunUntil(5 * unit.Microsecond)
	out.SendXOFF(3)
	dom.Sched.RunUntil(10 * unit.Microsecond)
	out.SendXON(3)
	dom.Sched.RunUntil(unit.Millisecond)
	frame := unit.Bytes(packet.DataFrame(1000, 0, false) + packet.PreambleIFG)
	// 50 frames back to back at 10G, two pause frames among them.
	want := (10 * unit.Gbps).TxTime(50*frame+2*(packet.MinFrame+packet.PreambleIFG)) + 2*out.Delay()
	if got := hosts[1].got; got != 50*1000 {
		t.Fatalf("h1 received %d payload bytes, want %d: the port stopped after a control frame", got, 50*1000)
	}
	if hosts[1].last > want+unit.Microsecond {
		t.Errorf("the last frame arrived at %v, want about %v: the data waited behind the control frames", hosts[1].last, want)
	}
}

// A switch port books the frames it sends by priority and transport, a
// RoCE frame in its egress class's line and a TCP one in the port's own
// counts, whether the frame waited in the queue or passed straight
// through: two hosts send to a third, one RoCE and one TCP, at once, so
// that some frames queue, and the port toward the third counts each
// host's frames and bytes under its transport.
func TestSwitchPortTxCounts(t *testing.T) {
	net, sw, hs := star(t, 3, 100*unit.Gbps, 3*unit.Metre, defaultSwitch())
	hs[1].class = packet.ClassTCP
	for i, n := range []int{40, 25} {
		hs[i].dst, hs[i].payload, hs[i].left = 2, 1000, n
		hs[i].port.Kick()
	}
	net.Domains[0].Sched.Run()
	c := sw.Ports()[2].Snapshot()
	frame := int64(packet.DataFrame(1000, 0, false))
	roce, tcp := c.Vport[packet.ClassRoCE], c.Vport[packet.ClassTCP]
	if roce.TxPackets != 40 || roce.TxBytes != 40*frame || tcp.TxPackets != 25 || tcp.TxBytes != 25*frame {
		t.Errorf("RoCE %d frames %d B, TCP %d frames %d B; want 40, %d, 25, %d", roce.TxPackets, roce.TxBytes, tcp.TxPackets, tcp.TxBytes, 40*frame, 25*frame)
	}
	if c.TxPrioPackets[3] != 65 || c.TxPhyBytes != 65*frame || sw.Ports()[2].TxBytes() != 65*frame {
		t.Errorf("priority 3 sent %d frames, %d B on the wire (TxBytes %d); want 65, %d", c.TxPrioPackets[3], c.TxPhyBytes, sw.Ports()[2].TxBytes(), 65*frame)
	}
}

// A frame the PFC watchdog flushes from a stormed queue is dropped, not
// sent (switchEgress.Flush): the receiver holds priority 3 off, the
// switch port toward it declares a storm at the first pause refresh past
// Detect and flushes what queued, and the port's sent RoCE frames are
// the ones the receiver got, the rest the watchdog's drops.
func TestWatchdogFlushNotCountedSent(t *testing.T) {
	cfg := defaultSwitch()
	cfg.Watchdog = fabric.WatchdogConfig{Detect: 20 * unit.Microsecond, Restore: unit.Second}
	net, sw, hs := star(t, 2, 100*unit.Gbps, 3*unit.Metre, cfg)
	const n = 100
	hs[0].dst, hs[0].payload, hs[0].left = 1, 1000, n
	hs[1].port.SetPFC(fabric.PFCConfig{Quanta: 0xffff})
	hs[1].port.SendXOFF(3)
	hs[0].port.Kick()
	net.Domains[0].Sched.RunUntil(200 * unit.Microsecond)
	out := sw.Ports()[1]
	c := out.Snapshot()
	got := hs[1].got / 1000
	sent, dropped := c.Vport[packet.ClassRoCE].TxPackets, c.Drops[fabric.DropWatchdog]
	if c.WatchdogStorms[3] != 1 || dropped == 0 {
		t.Fatalf("%d storms, %d frames dropped by the watchdog; want a storm that flushed frames", c.WatchdogStorms[3], dropped)
	}
	if sent != got || sent+dropped != n {
		t.Errorf("the port sent %d RoCE frames, dropped %d; the receiver got %d of %d", sent, dropped, got, n)
	}
}
