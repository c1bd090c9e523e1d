package ingest

import (
	"fmt"
	"strconv"
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

// perIterTable is a synthetic table in nccl-tests 2.19.5+'s layout with
// -I 1 (per-iteration i_min i_max i_p99 i_cv% after each half's #wrong),
// -C 1 (the time column named cputime) and -S 1 (a timestamp after the
// in-place half), each line built with the printf formats of util.cu
// (writeResultHeader, writeBenchmarkLine*, writePerIterReport).
func perIterTable() string {
	head := "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s"
	lines := []string{
		"# nccl-tests version 2.19.6 nccl-headers=22903 nccl-library=22903",
		"# Collective test starting: all_reduce_perf",
		"#  Rank  0 Group  0 Pid   1001 on      nodeA device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",
		"#  Rank  1 Group  0 Pid   2001 on      nodeB device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",
		"#",
		fmt.Sprintf(head, "size", "count", "type", "redop", "root", "cputime", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%",
			"cputime", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", 19, "timestamp"),
		fmt.Sprintf(head, "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)",
			"(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", 19, "%Y-%m-%d %H:%M:%S"),
	}
	for i, size := range []int64{134217728, 268435456} {
		t := []float64{5600.5, 11190}[i]
		alg := float64(size) / t / 1e3
		row := fmt.Sprintf("%12d  %12d  %8s  %6s  %6d", size, size/4, "float", "sum", -1)
		for _, half := range []float64{t, t * 1.01} {
			row += fmt.Sprintf("  %7.1f  %6.2f  %6.2f  %6g", half, alg, alg, 0.0)
			row += fmt.Sprintf("  %7.1f  %7.1f  %7.1f  %7.2f", half*0.98, half*1.2, half*1.15, 3.5)
		}
		lines = append(lines, row+fmt.Sprintf("%21s", "2026-07-10 12:00:0"+strconv.Itoa(i)))
	}
	return strings.Join(append(lines, "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 23.9 "), "\n")
}

func TestNCCLTestsPerIterationColumns(t *testing.T) {
	x := parseTests(t, perIterTable())
	if x == nil || len(x.Runs) != 1 {
		t.Fatal("one run expected")
	}
	r := x.Runs[0]
	if len(r.Rows) != 2 || len(r.Truncated) != 0 || r.Header.Line != 6 {
		t.Fatalf("rows %d truncated %d header %v: the cputime header or the per-iteration columns were not read", len(r.Rows), len(r.Truncated), r.Header)
	}
	row := r.Rows[1]
	// The in-place half starts after the out-of-place half's four
	// per-iteration columns, not right after its #wrong.
	if row.Out.Time != 11190 || row.In.Time != 11301.9 || row.In.BusBW != row.Out.BusBW || row.In.Wrong != 0 || row.Out.Wrong != 0 {
		t.Errorf("row %+v", row)
	}
}
