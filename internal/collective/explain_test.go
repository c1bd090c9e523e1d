package collective

import (
	"strings"
	"testing"
)

// TestTuningTableFormat: the init table has NCCL's layout (tuning.cc):
// three algorithms a block, "lat/bw" cells of %8.1f/%6.1f, and the
// values of the model.
func TestTuningTableFormat(t *testing.T) {
	cm := mustComm(t, preset(t, "hgx-h100"), 2, 8, nil)
	lines := cm.Tuning.TuningTable()
	if len(lines) != 3*(3+5) {
		t.Fatalf("%d lines, want 24", len(lines))
	}
	want := []string{
		"  Algorithm   |                            Tree                  |                            Ring                  |                   CollNetDirect                  |",
		"  Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d:\n got %q\nwant %q", i, lines[i], w)
		}
	}
	// AllReduce row of the second block: NVLSTree Simple is 25 + 2 × 20.9
	// µs at 8 × 57.7 × 16/30 GB/s.
	row := lines[8+7]
	if !strings.HasPrefix(row, "    AllReduce |") || !strings.Contains(row, "    66.8/ 246.2 |") {
		t.Errorf("AllReduce row: %q", row)
	}
}

// TestExplain: each size gets NCCL's TUNING line and the candidates in
// order of predicted time, the chosen first.
func TestExplain(t *testing.T) {
	cm := mustComm(t, preset(t, "hgx-h100"), 2, 8, nil)
	out := cm.Explain(AllReduce, []int64{8, 1 << 30})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("%q", out)
	}
	if lines[0] != "AllReduce: 8 Bytes -> Algo Tree proto LL channel{Lo..Hi}={0..0}" {
		t.Errorf("%q", lines[0])
	}
	if !strings.HasPrefix(lines[2], "AllReduce: 1073741824 Bytes -> Algo NVLSTree proto Simple channel{Lo..Hi}={0..15}") ||
		!strings.HasPrefix(strings.TrimSpace(lines[3]), "NVLSTree/Simple 66.8+") {
		t.Errorf("%q", out)
	}
}
