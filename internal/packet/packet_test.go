package packet

import "testing"

func TestOverhead(t *testing.T) {
	// facts: preamble+IFG 20, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4.
	if got := Overhead(false); got != 82 {
		t.Errorf("overhead %d, want 82", got)
	}
	if got := Overhead(true); got != 86 {
		t.Errorf("overhead with VLAN %d, want 86", got)
	}
	if got := DataFrame(4096, false, true); got != 4096+62+16 {
		t.Errorf("WRITE FIRST frame %d", got)
	}
	if got := DataFrame(1001, false, false); got != 1001+3+62 {
		t.Errorf("odd payload frame %d: the pad to 4 bytes is missing", got)
	}
	if got := DataFrame(0, false, false); got != MinFrame {
		t.Errorf("empty frame padded to %d, want 64", got)
	}
}

func TestQueueAndPool(t *testing.T) {
	var pl Pool
	var q Queue
	for i := 0; i < 10; i++ {
		p := pl.Get()
		p.Frame = int32(100 + i)
		p.PSN = uint32(i)
		q.Push(p)
	}
	if q.Len() != 10 || q.Bytes() != 1045 {
		t.Fatalf("len %d bytes %d", q.Len(), q.Bytes())
	}
	for i := 0; i < 10; i++ {
		p := q.Pop()
		if p.PSN != uint32(i) {
			t.Fatalf("FIFO order broken: got %d want %d", p.PSN, i)
		}
		pl.Put(p)
	}
	if q.Pop() != nil || q.Bytes() != 0 || pl.Live() != 0 {
		t.Fatal("queue or pool not empty")
	}
	p := pl.Get()
	if p.PSN != 0 || p.Frame != 0 || pl.Allocated() != 10 {
		t.Fatalf("recycled packet not zeroed or pool grew: %+v alloc=%d", p, pl.Allocated())
	}
}
