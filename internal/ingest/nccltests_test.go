package ingest

import (
	"strings"
	"testing"
)

func parseTests(t testing.TB, text string) *NCCLTests {
	t.Helper()
	res, err := Read("synthetic.txt", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if x, ok := a.(*NCCLTests); ok {
			return x
		}
	}
	return nil
}

// synthTable is a synthetic all_gather table in the current nccl-tests
// format (4 ranks, busbw = algbw x 3/4), used for robustness variants.
var synthTable = []string{
	"# nThread 1 nGpus 1 minBytes 67108864 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
	"#",
	"# Using devices",
	"#  Rank  0 Group  0 Pid   1001 on nodeA device  0 [0x1b] NVIDIA A100-SXM4-80GB",
	"#  Rank  1 Group  0 Pid   1002 on nodeA device  1 [0x1c] NVIDIA A100-SXM4-80GB",
	"#  Rank  2 Group  0 Pid   2001 on nodeB device  0 [0x1b] NVIDIA A100-SXM4-80GB",
	"#  Rank  3 Group  0 Pid   2002 on nodeB device  1 [0x1c] NVIDIA A100-SXM4-80GB",
	"#",
	"#                                                              out-of-place                       in-place          ",
	"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
	"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
	"nodeA:1001:1010 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/0/GDRDMA",
	"    67108864       4194304     float    none      -1   2796.2   24.00   18.00      0   2790.0   24.05   18.04      0",
	"   134217728       8388608     float    none      -1   5592.4   24.00   18.00      0   5580.0   24.05   18.04      0",
	"   268435456      16777216     float    none      -1    11185   24.00   18.00      0    11160   24.05   18.04      0",
	"# Out of bounds values : 0 OK",
	"# Avg bus bandwidth    : 18.02 ",
	"#",
}

func TestNCCLTestsSynthetic(t *testing.T) {
	x := parseTests(t, strings.Join(synthTable, "\n"))
	if x == nil || len(x.Runs) != 1 {
		t.Fatal("one run expected")
	}
	r := x.Runs[0]
	// 4 ranks, redop none, root -1, busbw/algbw = 0.75 = (n-1)/n and a
	// numeric in-place #wrong: all_gather (alltoall prints N/A in place).
	if r.Collective != "all_gather" || r.CollectiveFrom != FromColumns {
		t.Errorf("collective %q from %q candidates %v, want all_gather from columns", r.Collective, r.CollectiveFrom, r.Candidates)
	}
	if len(r.Rows) != 3 || r.Rows[2].Out.Time != 11185 || r.Rows[0].Redop != "none" || r.NRanks() != 4 || r.AvgBusBW != 18.02 {
		t.Errorf("rows %d ranks %d avg %v", len(r.Rows), r.NRanks(), r.AvgBusBW)
	}
	if p, ok := r.Plateau(); !ok || p.Max != 18.04 || len(p.Rows) != 3 {
		t.Errorf("plateau %+v", p)
	}
	if l := x.Lines(); l != 17 {
		t.Errorf("lines = %d, want 17 (all but the NCCL line)", l)
	}
}

func TestNCCLTestsMangled(t *testing.T) {
	want := parseTests(t, strings.Join(synthTable, "\n")).Runs[0]
	variants := map[string]string{
		"crlf":     strings.Join(synthTable, "\r\n"),
		"markdown": "Results:\n```\n" + strings.Join(synthTable, "\n") + "\n```",
		"quoted":   "> " + strings.Join(synthTable, "\n> "),
		"mpi-tags": "[1,0]<stdout>:" + strings.Join(synthTable, "\n[1,0]<stdout>:"),
		"ansi":     "\x1b[0m" + strings.Join(synthTable, "\x1b[0m\n\x1b[1m"),
		"srun":     "0: " + strings.Join(synthTable, "\n0: "),
		"no-hash": strings.NewReplacer("\n#  Rank", "\n  Rank", "\n#       size", "\n       size", "\n# nThread", "\nnThread").
			Replace("\n" + strings.Join(synthTable, "\n")),
	}
	for name, text := range variants {
		x := parseTests(t, text)
		if x == nil || len(x.Runs) != 1 {
			t.Errorf("%s: no single run", name)
			continue
		}
		r := x.Runs[0]
		if r.Collective != want.Collective || len(r.Rows) != len(want.Rows) || r.NRanks() != 4 || r.Rows[1].In.BusBW != want.Rows[1].In.BusBW || !r.HasRoot {
			t.Errorf("%s: coll %q rows %d ranks %d", name, r.Collective, len(r.Rows), r.NRanks())
		}
	}
}

func TestNCCLTestsTruncatedAndHeaderless(t *testing.T) {
	// Synthetic: the paste starts at the rows and ends mid-row.
	text := strings.Join([]string{
		"   134217728      33554432     float     sum      -1   5592.4   24.00   24.00      0   5580.0   24.05   24.05      0",
		"   268435456      67108864     float     sum      -1    11185   24.00   24.00      0    11160   24.05   24.",
	}, "\n")
	r := parseTests(t, text).Runs[0]
	if len(r.Rows) != 1 || len(r.Truncated) != 1 || r.Truncated[0].Line != 2 || !r.HasRedop || !r.HasRoot {
		t.Errorf("rows %d truncated %v redop %v root %v", len(r.Rows), r.Truncated, r.HasRedop, r.HasRoot)
	}
	cut := parseTests(t, "   268435456      67108864     float     sum      -1    11185   24.00").Runs[0]
	if len(cut.Rows) != 0 || len(cut.Truncated) != 1 {
		t.Errorf("a row cut after busbw is truncated, got rows %d truncated %d", len(cut.Rows), len(cut.Truncated))
	}
	// Old header-less broadcast rows: root, no redop, error column.
	old := parseTests(t, "           8             2   float       0    45.82    0.00    0.00    N/A    38.17    0.00    0.00    N/A").Runs[0]
	if len(old.Rows) != 1 || old.Rows[0].Root != 0 || old.HasRedop || !old.HasRoot {
		t.Errorf("old broadcast row %+v redop %v root %v", old.Rows, old.HasRedop, old.HasRoot)
	}
}

func TestNCCLTestsRunsAndWrong(t *testing.T) {
	// Synthetic: two tests pasted one after the other, the second with
	// wrong elements and a failed bound check.
	text := strings.Join([]string{
		"# nccl-tests version 2.17.1 nccl-headers=22304 nccl-library=22304",
		"# Collective test starting: all_reduce_perf",
		"# nThread 1 nGpus 8 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong",
		"     1048576        262144     float     sum      -1    40.00   26.21   45.88       0    40.00   26.21   45.88       0",
		"     2097152        524288     float     sum      -1    60.00   34.95   61.16       0    60.00   34.95   61.16       0",
		"# Out of bounds values : 0 OK",
		"# Collective test concluded: all_reduce_perf",
		"# nccl-tests version 2.17.1 nccl-headers=22304 nccl-library=22304",
		"# Collective test starting: reduce_scatter_perf",
		"# nThread 1 nGpus 8 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong",
		"     1048576         32768     float     sum      -1    30.00   34.95   30.58       0    30.00   34.95   30.58      12",
		"     2097152         65536     float     sum      -1    50.00   41.94   36.70       3    50.00   41.94   36.70       0",
		"# Out of bounds values : 15 FAILED",
	}, "\n")
	x := parseTests(t, text)
	if len(x.Runs) != 2 {
		t.Fatalf("runs = %d, want 2", len(x.Runs))
	}
	a, b := x.Runs[0], x.Runs[1]
	if a.Collective != "all_reduce" || b.Collective != "reduce_scatter" || a.CollectiveFrom != FromBanner || a.NGpus != 8 {
		t.Errorf("collectives %q %q", a.Collective, b.Collective)
	}
	if len(a.Rows) != 2 || len(b.Rows) != 2 || b.Rows[0].In.Wrong != 12 || b.Rows[1].Out.Wrong != 3 || b.OutOfBounds != 15 || a.OutOfBounds != 0 {
		t.Errorf("rows %d %d, wrong %d %d, oob %d %d", len(a.Rows), len(b.Rows), b.Rows[0].In.Wrong, b.Rows[1].Out.Wrong, a.OutOfBounds, b.OutOfBounds)
	}
}

func TestNCCLTestsIgnoresOtherText(t *testing.T) {
	// Synthetic: perftest rows, ethtool counters and prose are not tables.
	text := strings.Join([]string{
		" 65536      5000             2758.40            2758.38            0.044134",
		"     rx_discards_phy: 123",
		"nodes were rebooted at 12:00",
		"size matters but this is prose with busbw in it",
	}, "\n")
	if x := parseTests(t, text); x != nil {
		t.Errorf("recognised %+v in text that holds no nccl-tests output", x.Runs)
	}
}
