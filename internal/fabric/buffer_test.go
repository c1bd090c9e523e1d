package fabric

import "testing"

// TestXONWhenDrainedUnderAFullPool: the dynamic threshold follows the
// pool's free space, which other PGs take. A held-off PG that drains
// while the threshold is under the XON offset must still release its
// upstream (the ASIC's XON threshold is the XOFF one less the offset, at
// least zero), and a PG within its reserved minimum never asks for XOFF:
// either way its last departure would otherwise leave the upstream paused
// for good.
func TestXONWhenDrainedUnderAFullPool(t *testing.T) {
	b := buffer{sharedSize: 1 << 20, reserve: 2048, alpha: 1.0 / 128, xonOffset: 12 << 10, pg: make([]pgState, 16)}
	for i := range b.pg {
		b.pg[i].headroomCap = 64 << 10
	}
	const pg = 3
	// Other PGs fill the pool: the threshold is 0. A frame within the
	// reserve takes nothing of it and must not hold the upstream off.
	b.sharedUsed = b.sharedSize
	if !b.admitLossless(pg, 1500) {
		t.Fatal("a frame within the reserve was refused")
	}
	if b.wantXOFF(pg) {
		t.Error("a PG within its reserve asks for XOFF under a full pool")
	}
	b.release(pg, 1500, true)
	// The others free the pool until the threshold, 1/128 of the free
	// space, is 2 KiB: under the 12 KiB offset.
	b.sharedUsed = 1<<20 - 256<<10
	for b.admitLossless(pg, 1500) && !b.wantXOFF(pg) {
	}
	if !b.wantXOFF(pg) {
		t.Fatal("the PG never asked for XOFF")
	}
	if b.wantXON(pg) {
		t.Error("XON while the PG still holds shared buffer over the threshold")
	}
	g := &b.pg[pg]
	b.release(pg, g.min+g.shared+g.headroom, true)
	if !b.wantXON(pg) {
		t.Errorf("a drained PG (threshold %d B, offset %d B) does not release its upstream", b.threshold(b.alpha), b.xonOffset)
	}
}
