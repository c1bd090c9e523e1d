package pcie

import (
	"math"
	"testing"
)

// The table against the figures PCI-SIG and the kernel publish: a Gen3
// x16 link's 126.016 Gb/s and a Gen4 x16's 252.048 Gb/s as mlx5 prints
// them in dmesg ("252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe
// x16 link)": the kernel truncates a lane to whole Mb/s), Gen1's 2 Gb/s a lane after 8b/10b, and Gen6's 64 Gb/s as
// the kernel counts FLIT mode.
func TestTable(t *testing.T) {
	for _, c := range []struct {
		gen   int
		gts   float64
		x16   float64 // Gb/s
		speed string
	}{
		{1, 2.5, 32, "2.5GT/s"},
		{2, 5, 64, "5GT/s"},
		{3, 8, 126.015, "8GT/s"},
		{4, 16, 252.062, "16GT/s"},
		{5, 32, 504.123, "32GT/s"},
		{6, 64, 1024, "64GT/s"},
	} {
		g, ok := Generation(c.gen)
		if !ok || g.GTs != c.gts || g.Speed() != c.speed {
			t.Errorf("Gen%d: %+v %v %s", c.gen, g, ok, g.Speed())
		}
		if x16 := 16 * g.LaneGbps(); math.Abs(x16-c.x16) > 0.02 {
			t.Errorf("Gen%d x16: %.3f Gb/s, want %.3f", c.gen, x16, c.x16)
		}
		if r, ok := OfRate(c.gts); !ok || r.N != c.gen {
			t.Errorf("%v GT/s: Gen%d %v", c.gts, r.N, ok)
		}
		if LaneGbpsAt(c.gts) != g.LaneGbps() {
			t.Errorf("%v GT/s: LaneGbpsAt %v, LaneGbps %v", c.gts, LaneGbpsAt(c.gts), g.LaneGbps())
		}
	}
	if _, ok := Generation(7); ok {
		t.Error("Gen7 is not in the table")
	}
	if _, ok := OfRate(10); ok {
		t.Error("10 GT/s is no generation's rate")
	}
	if got := LaneGbpsAt(128); got != 128 {
		t.Errorf("128 GT/s: %v Gb/s, want 128 (coded as Gen6)", got)
	}
}
