package ingest

import "testing"

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
