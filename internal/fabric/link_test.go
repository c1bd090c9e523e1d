package fabric_test

import (
	"math/rand/v2"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// arrivals records when each frame a port receives arrives.
type arrivals struct{ at []unit.Time }

func (a *arrivals) Frame(now unit.Time, _ *fabric.Port, dir fabric.Direction, _ *packet.Packet) {
	if dir == fabric.Rx {
		a.at = append(a.at, now)
	}
}

// arrive sends n frames back to back from h0 to the switch, with the
// given FEC jitter drawn from src on h0's port, and returns when each
// arrived.
func arrive(t *testing.T, n int, jitter unit.Time, src rand.PCG) []unit.Time {
	t.Helper()
	net, sw, hs := star(t, 2, 100*unit.Gbps, 3*unit.Metre, defaultSwitch())
	hs[0].port.SetPHY(0, jitter, src)
	tap := &arrivals{}
	sw.Ports()[0].SetTap(tap)
	hs[0].dst, hs[0].payload, hs[0].left = 1, 1024, n
	hs[0].port.Kick()
	net.Domains[0].Sched.Run()
	if len(tap.at) != n || hs[1].got != int64(n)*1024 || hs[1].reordered != 0 {
		t.Fatalf("%d frames arrived, %d B delivered, %d reordered; want %d, %d, 0", len(tap.at), hs[1].got, hs[1].reordered, n, n*1024)
	}
	return tap.at
}

// FEC jitter delays each frame's arrival by a uniform draw from [0,
// jitter) of the sender's source, and keeps arrivals in order: a frame
// drawn earlier than the one before it arrives with it. With a jitter
// of five frame times, most frames are held back by an earlier one.
func TestJitterKeepsOrder(t *testing.T) {
	const n, jitter = 200, 450 * unit.Nanosecond
	base := arrive(t, n, 0, *rand.NewPCG(0, 0))
	got := arrive(t, n, jitter, *rand.NewPCG(7, 8))
	src := rand.NewPCG(7, 8)
	last, held := unit.Time(0), 0
	for i, b := range base {
		want := b + unit.Time(src.Uint64()%uint64(jitter))
		if want < last {
			want, held = last, held+1
		}
		last = want
		if got[i] != want {
			t.Fatalf("frame %d arrived at %v, want %v (%v without jitter)", i, got[i], want, b)
		}
	}
	if held < n/4 {
		t.Errorf("only %d of %d frames held back by an earlier one", held, n)
	}
}
