package ingest

import (
	"strconv"
	"strings"
)

// MSCCL++'s benchmarks (mscclpp-test: allreduce_test_perf,
// allgather_test_perf, ...) print nccl-tests' table without its type,
// redop and root columns, and measure one half per row: in place for
// allreduce and allgather, out of place for alltoall and sendrecv, whose
// rows are indented past the in-place columns. The header names both
// halves, so only where the row's time column starts tells them apart.
// Every element is an int.

// ToolMSCCLPP names MSCCL++'s benchmark in TestRun.Tool.
const ToolMSCCLPP = "mscclpp-test"

// mscclppBinaries maps an mscclpp-test binary's name before
// "_test_perf" to the collective it runs.
var mscclppBinaries = map[string]string{
	"allreduce": "all_reduce", "allgather": "all_gather", "alltoall": "alltoall",
	"alltoallv": "alltoallv", "sendrecv": "sendrecv",
}

// mscclppCollective maps "allreduce_test_perf" to "all_reduce"; it
// returns "" for anything else.
func mscclppCollective(bin string) string {
	base, ok := strings.CutSuffix(bin, "_test_perf")
	if !ok {
		return ""
	}
	return mscclppBinaries[base]
}

// mscclppRuns reports whether mscclpp-test has a benchmark of collective c.
func mscclppRuns(c string) bool {
	for _, v := range mscclppBinaries {
		if v == c {
			return true
		}
	}
	return false
}

// isOneHalfHeader reports whether s names mscclpp-test's columns: "size
// count time algbw busbw #wrong time algbw busbw #wrong", no type.
func isOneHalfHeader(s string) bool {
	f := strings.Fields(s)
	return len(f) >= 5 && f[0] == "size" && f[1] == "count" && f[2] == "time" && f[3] == "algbw" && f[4] == "busbw"
}

// mscclppLine reads the preamble lines only mscclpp-test prints; it
// reports whether s was one.
func (t *NCCLTests) mscclppLine(s string, ev Evidence) bool {
	switch {
	case strings.HasPrefix(s, "minBytes ") && strings.Contains(s, " maxBytes "):
		// mscclpp-test's parameter line, where nccl-tests prints "nThread".
		r := t.cur(true)
		r.Tool, r.Params = ToolMSCCLPP, ev
	case strings.HasPrefix(s, "Initializing MSCCL++"), strings.HasPrefix(s, "Setting up the connection in MSCCL++"),
		strings.HasPrefix(s, "Launching MSCCL++ proxy threads"):
		t.cur(false).Tool = ToolMSCCLPP
	case strings.HasPrefix(s, "in-place") && strings.Contains(s, "out-of-place"):
	default:
		return false
	}
	return true
}

// oneHalfHeader starts an mscclpp-test table whose header is s; at is
// where s starts in its line, so that wrongEnd is a column of the line.
func (t *NCCLTests) oneHalfHeader(s string, at int, ev Evidence) {
	r := t.cur(true)
	r.layout = rowLayout{known: true, oneHalf: true}
	end := strings.Index(s, "#wrong") + len("#wrong")
	if end < len("#wrong") {
		// A header without #wrong: the in-place half ends after busbw.
		end = strings.Index(s, "busbw") + len("busbw")
	}
	r.layout.wrongEnd = at + end
	r.Tool, r.WrongColumn, r.Header = ToolMSCCLPP, "#wrong", ev
}

// oneHalfRow reads an mscclpp-test row, "size count time algbw busbw
// #wrong" (no #wrong under -c 0), into run r; it reports whether s was one.
func (t *NCCLTests) oneHalfRow(ln Line, s string, r *TestRun) bool {
	var buf [8]string
	f := fieldsInto(buf[:0], s, len(buf))
	if len(f) < 2 || len(f) > 6 {
		return false
	}
	size, err1 := strconv.ParseInt(f[0], 10, 64)
	count, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || size < 0 || count < 0 {
		return false
	}
	row := TestRow{Size: size, Count: count, Type: "int", Root: -1, Evidence: At(t.src, ln)}
	var h TestHalf
	ok := len(f) >= 5
	if ok {
		wrong := "N/A"
		if len(f) == 6 {
			wrong = f[5]
		}
		h, ok = parseHalf([]string{f[2], f[3], f[4], wrong}, false)
	}
	if !ok {
		if len(r.Truncated) < maxKept {
			r.Truncated = append(r.Truncated, row.Evidence)
		}
		return true
	}
	none := TestHalf{Wrong: -1}
	if len(ln.Text)-len(s)+fieldStart(s, 2) >= r.layout.wrongEnd {
		row.Out, row.In = h, none
	} else {
		row.Out, row.In = none, h
	}
	t.keepRow(r, row)
	return true
}

// fieldStart returns where the space-separated field n (from 0) of s
// starts, or len(s).
func fieldStart(s string, n int) int {
	i := 0
	for k := 0; ; k++ {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if k == n || i == len(s) {
			return i
		}
		for i < len(s) && s[i] != ' ' && s[i] != '\t' {
			i++
		}
	}
}
