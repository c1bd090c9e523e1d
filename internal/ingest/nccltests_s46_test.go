package ingest

import (
	"slices"
	"strings"
	"testing"
)

// Tests from session 46's sweep of public nccl-tests and rccl-tests
// outputs: each reads a real one and fails without the fix it names.

// An output pasted into GitHub's editor as rich text reaches the page as
// a Markdown table with "\#" for each leading "#" (mscclpp#736, rccl-tests
// on MI300X): it was no artifact at all ("in no format rocelab
// recognises", exit 2). Its header and its nine rows are read, and the
// rows' figures are the cells': an all_reduce of 8 ranks (busbw/algbw =
// 2(n-1)/n = 1.75, count = size/2 for half).
func TestNCCLTestsMarkdownTablePaste(t *testing.T) {
	checkReadWhole(t, []readWholeCase{
		{"allreduce-rccl-tests-mscclpp-mi300x-half-github-markdown-table-escaped-hash-1k-256k-mscclpp736.txt", "all_reduce", 8, 9},
	})
	x := ncclTests(t, "nccl-tests/allreduce-rccl-tests-mscclpp-mi300x-half-github-markdown-table-escaped-hash-1k-256k-mscclpp736.txt")
	r := x.Runs[0]
	if !r.HasRedop || !r.HasRoot || r.Header.Line != 2 {
		t.Errorf("header at line %d, redop %v, root %v; want line 2 with both", r.Header.Line, r.HasRedop, r.HasRoot)
	}
	last := r.Rows[len(r.Rows)-1]
	if last.Size != 262144 || last.Count != 131072 || last.Type != "half" || last.Redop != "sum" || last.Out.BusBW != 39.27 || last.In.BusBW != 37.93 || last.Evidence.Line != 13 {
		t.Errorf("last row %+v; want 262144 131072 half sum, busbw 39.27 and 37.93, line 13", last)
	}
}

// The table form's trailer and lines that hold a "|" but are no table
// row (synthetic): the escaped footer is read, a line whose cells hold
// spaces (nccl-tests' "GPU memory usage" line) is left as it is.
func TestUnrenderTable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`\# Avg bus bandwidth    : 45.9`, "# Avg bus bandwidth    : 45.9"},
		{"| 8 | 2 | float | sum | -1 | 12.9 | 0.00 | 0.00 | 0 | 12.8 | 0.00 | 0.00 | 0 |", "8 2 float sum -1 12.9 0.00 0.00 0 12.8 0.00 0.00 0"},
		{"-- | -- | -- | -- | -- | --", "-- -- -- -- -- --"},
		{"# GPU memory usage : sendbuff 1 GB | recvbuff 1 GB | Total 2 GB", "# GPU memory usage : sendbuff 1 GB | recvbuff 1 GB | Total 2 GB"},
		{"a | b | | c | d | e", "a | b | | c | d | e"},
		{"8 | 2 | float", "8 | 2 | float"},
	} {
		if got := unrenderTable(c.in); got != c.want {
			t.Errorf("unrenderTable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	x := parseTests(t, "\\#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"+
		"1048576 | 262144 | float | sum | -1 | 40.12 | 26.14 | 45.74 | 0 | 39.80 | 26.35 | 46.11 | 0\n"+
		"\\# Out of bounds values : 0 OK\n\\# Avg bus bandwidth    : 45.9\n")
	if x == nil || len(x.Runs) != 1 || len(x.Runs[0].Rows) != 1 || x.Runs[0].AvgBusBW != 45.9 || x.Runs[0].OutOfBounds != 0 {
		t.Fatalf("escaped table with its trailer: %+v", x)
	}
}

// NCCL's per-call INFO lines (NCCL_DEBUG_SUBSYS=TUNING) run on right
// after the first piece of an nccl-tests row, "...  sum  -1[0] h100clust-
// worker-1:497888:497888 [0] NCCL INFO 512 Bytes -> ..." (nccl#1453,
// mpirun --tag-output): the line read as NCCL's alone and the row was
// lost, so the excerpt held no nccl-tests table at all. The piece is cut
// off and read as the row it starts, cut short where the excerpt ends;
// the INFO line keeps its host.
func TestNCCLTestsRowPieceBeforeNCCLLine(t *testing.T) {
	const rel = "nccl-tests/allreduce-h100-mpirun-tag-output-tuning-info-lines-split-rows-cut-nccl1453.txt"
	x := ncclTests(t, rel)
	r := x.Runs[len(x.Runs)-1]
	if len(r.Rows) != 0 || len(r.Truncated) != 1 || r.Truncated[0].Line != 13 {
		t.Errorf("%d rows, cut rows %v; want none read, the 512-byte row cut at line 13", len(r.Rows), r.Truncated)
	}
	l := ncclLog(t, rel)
	if h := l.Hosts(); len(h) != 1 || h[0] != "h100clust-worker-1" {
		t.Errorf("NCCL hosts %q, want [h100clust-worker-1]", h)
	}
}

// The row's later pieces, each half's figures, complete it (synthetic,
// after nccl#1453's form, with and without launcher tags): one row of
// 512 bytes whose halves took 62.05 and 63.05 us, nothing cut, and no
// host made of a field and a host name ("-1h100clust-worker-1").
func TestNCCLTestsRowPiecesJoined(t *testing.T) {
	const info = "h100clust-worker-1:497888:497888 [0] NCCL INFO 512 Bytes -> Algo 0 proto 0 time 25.259054"
	header := "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	// Each case is the tag before a line and the one before a write
	// within it: none, Open MPI's "[0]", and that one inside another
	// launcher's (nested tags: only the outer comes off the line's start).
	for _, c := range []struct{ tag, mid string }{{"", ""}, {"[0] ", "[0] "}, {"[1,0]<stdout>:[0] ", "[0] "}} {
		tag := c.tag
		text := tag + header +
			tag + "         512           128     float     sum      -1" + c.mid + info + "\n" +
			tag + info + "\n" +
			tag + "    62.05    0.00    0.01      0" + c.mid + info + "\n" +
			"\n" +
			tag + "    63.05    0.00    0.01      0\n" +
			tag + "# Out of bounds values : 0 OK\n"
		x := parseTests(t, text)
		if x == nil || len(x.Runs) != 1 {
			t.Fatalf("tag %q: %+v", tag, x)
		}
		r := x.Runs[0]
		if len(r.Rows) != 1 || len(r.Truncated) != 0 || r.Rows[0].Size != 512 || r.Rows[0].Out.Time != 62.05 || r.Rows[0].In.Time != 63.05 || r.Rows[0].Evidence.Line != 2 {
			t.Errorf("tag %q: rows %+v, cut %v; want the 512-byte row of line 2 whole, 62.05 and 63.05 us", tag, r.Rows, r.Truncated)
		}
		res, err := Read("synthetic.txt", strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range res.Artifacts {
			if l, ok := a.(*NCCLLog); ok && !slices.Equal(l.Hosts(), []string{"h100clust-worker-1"}) {
				t.Errorf("tag %q: NCCL hosts %q, want [h100clust-worker-1]", tag, l.Hosts())
			}
		}
	}
	// A piece followed by a line of another kind stays cut.
	x := parseTests(t, header+"         512           128     float     sum      -1\n# Out of bounds values : 0 OK\n    62.05    0.00    0.01      0\n")
	if r := x.Runs[0]; len(r.Rows) != 0 || len(r.Truncated) != 1 {
		t.Errorf("piece then trailer: %d rows, %d cut; want 0 and 1", len(r.Rows), len(r.Truncated))
	}
}

// What splitGluedPiece leaves alone: NCCL lines with nothing, or no row
// piece, before their prefix.
func TestSplitGluedPieceLeavesNCCLLines(t *testing.T) {
	for _, s := range []string{
		"h100:1:2 [0] NCCL INFO 512 Bytes -> Algo 0 proto 0 time 25.2",
		"   h100:1:2 [0] NCCL INFO Bootstrap : Using eth0",
		"2024-05-01 12:00:00 h100:1:2 [0] NCCL INFO Bootstrap : Using eth0",
		"gpu01: h100:1:2 [0] NCCL INFO Bootstrap : Using eth0",
		"512 128 h100:1:2 [0] NCCL INFO too few fields before",
		"512 128 float sum -1 h100 [0] NCCL INFO no pid and tid",
	} {
		if got := splitGluedPiece(s, nil); got != nil {
			t.Errorf("splitGluedPiece(%q) = %q, want no split", s, got)
		}
	}
}
