package fabric

import (
	"testing"

	"rocelab/internal/unit"
)

// TestXONWhenDrainedUnderAFullPool: the dynamic threshold follows the
// pool's free space, which other PGs take. A held-off PG that drains
// while the threshold is under the XON offset must still release its
// upstream (the ASIC's XON threshold is the XOFF one less the offset, at
// least zero), and a PG within its reserved minimum never asks for XOFF:
// either way its last departure would otherwise leave the upstream paused
// for good.
func TestXONWhenDrainedUnderAFullPool(t *testing.T) {
	b := buffer{sharedSize: 1 << 20, reserve: 2048, alpha: 1.0 / 128, xonOffset: 12 << 10}
	g := &pgState{headroomCap: 64 << 10}
	const port = 0
	// Other PGs fill the pool: the threshold is 0. A frame within the
	// reserve takes nothing of it and must not hold the upstream off.
	b.sharedUsed = b.sharedSize
	if !b.admitLossless(g, port, 1500) {
		t.Fatal("a frame within the reserve was refused")
	}
	if b.wantXOFF(g, port) {
		t.Error("a PG within its reserve asks for XOFF under a full pool")
	}
	b.release(g, 1500, true)
	// The others free the pool until the threshold, 1/128 of the free
	// space, is 2 KiB: under the 12 KiB offset.
	b.sharedUsed = 1<<20 - 256<<10
	for b.admitLossless(g, port, 1500) && !b.wantXOFF(g, port) {
	}
	if !b.wantXOFF(g, port) {
		t.Fatal("the PG never asked for XOFF")
	}
	if b.wantXON(g, port) {
		t.Error("XON while the PG still holds shared buffer over the threshold")
	}
	b.release(g, g.min+g.shared+g.headroom, true)
	if !b.wantXON(g, port) {
		t.Errorf("a drained PG (threshold %d B, offset %d B) does not release its upstream", b.threshold(b.alpha), b.xonOffset)
	}
}

// TestStaticThreshold: with a static threshold a lossless PG asks for
// XOFF when its shared use reaches the threshold, however much of the
// pool other PGs hold (a dynamic threshold would have shrunk), spills
// into headroom past it, and releases its upstream an offset below it.
func TestStaticThreshold(t *testing.T) {
	const limit, offset, frame = 15 * 4096, 3 * 4096, 4096
	b := buffer{sharedSize: 8 << 20, static: limit, alpha: 1.0 / 128, xonOffset: offset}
	g := &pgState{headroomCap: 64 << 10}
	const port = 0
	b.sharedUsed = 6 << 20 // others' use: alpha's threshold would be 16 KiB
	n := 0
	for !b.wantXOFF(g, port) {
		if !b.admitLossless(g, port, frame) {
			t.Fatalf("frame %d refused before XOFF", n+1)
		}
		n++
	}
	if n != limit/frame {
		t.Errorf("XOFF after %d frames, expected %d (the static threshold)", n, limit/frame)
	}
	if !b.admitLossless(g, port, frame) || g.headroom != frame {
		t.Errorf("the frame past the threshold went to shared %d / headroom %d, expected headroom", g.shared, g.headroom)
	}
	b.release(g, frame, true) // the headroom drains first
	for i := 0; i < 2; i++ {
		b.release(g, frame, true)
		if b.wantXON(g, port) {
			t.Fatalf("XON %d frames below the threshold, expected %d", i+1, offset/frame)
		}
	}
	b.release(g, frame, true)
	if !b.wantXON(g, port) {
		t.Errorf("no XON %d B below the static threshold", offset)
	}
}

// TestHeadroomLimit: a priority group keeps its headroom in 32 bits, so
// a switch takes headroom up to MaxHeadroom exactly, as given, and refuses
// one byte more instead of wrapping it.
func TestHeadroomLimit(t *testing.T) {
	for _, hr := range []int64{MaxHeadroom, MaxHeadroom + 1} {
		net := NewNetwork(1, 1)
		dom := net.Domains[0]
		cfg := SwitchConfig{Buffer: 64 * unit.GiB, Lossless: 1 << 3, Alpha: 1, AlphaLossy: 1,
			Headroom: func(*Port) unit.Bytes { return unit.Bytes(hr) }}
		a := net.NewSwitch(dom, "a", 1, cfg)
		b := net.NewSwitch(dom, "b", 1, cfg)
		net.Link(a.Port(0), b.Port(0), 100*unit.Gbps, unit.Metre)
		err := a.Start()
		switch {
		case hr <= MaxHeadroom && err != nil:
			t.Errorf("headroom %d: %v", hr, err)
		case hr <= MaxHeadroom && a.Headroom(0) != hr:
			t.Errorf("headroom %d taken as %d", hr, a.Headroom(0))
		case hr > MaxHeadroom && err == nil:
			t.Errorf("headroom %d taken (as %d), want an error", hr, a.Headroom(0))
		}
	}
}
