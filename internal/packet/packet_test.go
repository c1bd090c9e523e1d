package packet

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"rocelab/internal/linetest"
)

func TestOverhead(t *testing.T) {
	// facts: preamble+IFG 20, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4.
	if got := Overhead(false); got != 82 {
		t.Errorf("overhead %d, want 82", got)
	}
	if got := Overhead(true); got != 86 {
		t.Errorf("overhead with VLAN %d, want 86", got)
	}
	if got := DataFrame(4096, RETH, false); got != 4096+62+16 {
		t.Errorf("WRITE FIRST frame %d", got)
	}
	if got := DataFrame(1001, 0, false); got != 1001+3+62 {
		t.Errorf("odd payload frame %d: the pad to 4 bytes is missing", got)
	}
	if got := DataFrame(0, 0, false); got != MinFrame {
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
		left := 9 - i // packets i+1 to 9 of 100+k bytes
		if p.PSN != uint32(i) || q.Len() != left || q.Bytes() != int64(left*100+(i+10)*left/2) {
			t.Fatalf("FIFO order or counts broken: got %d want %d, len %d bytes %d", p.PSN, i, q.Len(), q.Bytes())
		}
		pl.Put(p)
	}
	if q.Pop() != nil || q.Bytes() != 0 || pl.Live() != 0 {
		t.Fatal("queue or pool not empty")
	}
	p := pl.Get()
	if p.PSN != 0 || p.Frame != 0 || pl.Allocated() != PoolChunk {
		t.Fatalf("recycled packet not zeroed or pool grew: %+v alloc=%d", p, pl.Allocated())
	}
}

// An ACK is Ethernet+IPv4+UDP+BTH+AETH+ICRC+FCS = 66 bytes; a CNP carries
// 16 reserved bytes after its BTH (78); a TCP segment's headers are 70.
func TestControlFrames(t *testing.T) {
	if got := DataFrame(0, AETH, false); got != 66 {
		t.Errorf("ACK frame %d, want 66", got)
	}
	if got := DataFrame(0, CNPPayload, false); got != 78 {
		t.Errorf("CNP frame %d, want 78", got)
	}
	if got := TCPFrame(1448, false); got != 1448+70 {
		t.Errorf("TCP frame %d, want 1518", got)
	}
}

// A packet is two cache lines, and what a switch reads lies in the
// first: the pool hands packets out of arrays, so that holds in memory.
func TestPacketLayout(t *testing.T) {
	linetest.Only64(t)
	var p Packet
	if s := unsafe.Sizeof(p); s != 128 {
		t.Errorf("a Packet is %d bytes, want 128", s)
	}
	if o := unsafe.Offsetof(p.ClassVector); o >= 64 {
		t.Errorf("the switch's fields end at byte %d, past the first cache line", o)
	}
}

// TestPoolLines checks that every packet a pool hands out starts on a
// cache line, so that its first line holds the fields a switch reads.
func TestPoolLines(t *testing.T) {
	linetest.Only64(t)
	var pl Pool
	for i := 0; i < 3*PoolChunk; i++ {
		if a := uintptr(unsafe.Pointer(pl.Get())); a%64 != 0 {
			t.Fatalf("packet %d at byte %d of a line", i, a%64)
		}
	}
}

// Lists whose packets move between them, emptied and filled again, with
// Pop leaving tails and popped packets' links stale, keep each list's
// order and contents as a plain slice does, and Each sees just them.
func TestListStaleLinks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var pool Pool
	lists := make([]List, 4)
	want := make([][]*Packet, len(lists))
	for step := range 20000 {
		i := r.IntN(len(lists))
		switch {
		case r.IntN(3) > 0 || len(want[i]) == 0:
			p := pool.Get()
			if len(want[i]) > 0 && r.IntN(2) == 0 {
				// A packet popped from another list, its link left stale.
				j := (i + 1) % len(lists)
				if p2 := lists[j].Pop(); p2 != nil {
					want[j] = want[j][1:]
					pool.Put(p)
					p = p2
				}
			}
			lists[i].Push(p)
			want[i] = append(want[i], p)
		default:
			p := lists[i].Pop()
			if p != want[i][0] {
				t.Fatalf("step %d list %d: popped %p, want %p", step, i, p, want[i][0])
			}
			want[i] = want[i][1:]
			if r.IntN(2) == 0 {
				pool.Put(p)
			}
		}
		for k := range lists {
			var got []*Packet
			lists[k].Each(func(p *Packet) { got = append(got, p) })
			if !slices.Equal(got, want[k]) || (lists[k].Head() == nil) != (len(want[k]) == 0) {
				t.Fatalf("step %d list %d: holds %d packets, want %d", step, k, len(got), len(want[k]))
			}
		}
	}
}
