package agree

import (
	"math"
	"slices"
	"testing"
)

// Slowdowns are bucketed by size rank and read as fct_analysis.py reads
// them: each percentile is a[int(len·p)], a slowdown under 1 counts as 1.
func TestSlowdowns(t *testing.T) {
	var flows []FlowResult
	for i := range 200 {
		// sizes 1..200; ns-3 takes 2x standalone, rocelab 3x, the
		// largest flow of each bucket 10x in rocelab; flow 0 beats its
		// standalone time
		f := FlowResult{Size: int64(i + 1), Base: 10, Other: 20, Rocelab: 30}
		switch i {
		case 0:
			f.Other = 5
		case 99, 159, 189, 199:
			f.Rocelab = 100
		}
		flows = append(flows, f)
	}
	slices.Reverse(flows)
	bs := Slowdowns(flows)
	if len(bs) != 4 {
		t.Fatalf("%d buckets, want 4", len(bs))
	}
	for i, want := range []struct {
		upTo int64
		n    int
	}{{100, 100}, {160, 60}, {190, 30}, {200, 10}} {
		b := bs[i]
		if b.UpTo != want.upTo || b.N != want.n {
			t.Errorf("bucket %d: up to %d, %d flows; want %d, %d", i, b.UpTo, b.N, want.upTo, want.n)
		}
		if b.Other[0] != 2 || b.Rocelab[0] != 3 || b.Rocelab[2] != 10 {
			t.Errorf("bucket %d: p50 %g/%g, rocelab p99 %g; want 2/3, 10", i, b.Other[0], b.Rocelab[0], b.Rocelab[2])
		}
	}
	if got := bs[0].Other[0]; got != 2 { // flow 0's 0.5 counts as 1, below the median
		t.Errorf("first bucket's ns-3 median %g", got)
	}
	if r := bs[3].FCTRatio; math.Abs(r-(9*30+100)/(10*20.0)) > 1e-12 {
		t.Errorf("largest bucket's FCT ratio %g", r)
	}
}
