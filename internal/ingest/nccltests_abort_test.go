package ingest

import "testing"

// The line a process prints as it aborts itself is kept with the Open MPI
// signal report that follows it. The forms are those of
// baidu-research/DeepBench#97 (std::terminate's two lines, the what()
// lines after both processes' "terminate called" lines) and
// uccl-project/uccl#172 (glog's F line); glibc's heap check and assert's
// line are synthetic, in the shape glibc prints them. A reason too far
// above, or a signal other than SIGABRT, takes none.
func TestAbortReason(t *testing.T) {
	const report = "[h1:42] *** Process received signal ***\n[h1:42] Signal: Aborted (6)\n[h1:42] Signal code:  (-6)\n"
	for _, c := range []struct {
		text        string
		kind        AbortKind
		typ, reason string
		line        int
	}{
		{"terminate called after throwing an instance of 'std::runtime_error'\nterminate called after throwing an instance of 'std::runtime_error'\n  what():  NCCL failure: unhandled cuda error in x.cu at line: 86 rank: 0\n\n" + report, AbortException, "std::runtime_error", "NCCL failure: unhandled cuda error in x.cu at line: 86 rank: 0", 3},
		{"terminate called without an active exception\n" + report, AbortException, "", "terminate called without an active exception", 1},
		{"WARNING: Logging before InitGoogleLogging() is written to STDERR\nF0721 02:48:28.834262 1159892 util.h:139] Check failed: bind(fd) >= 0 ERROR: binding\n*** Check failure stack trace: ***\n" + report, AbortCheck, "", "Check failed: bind(fd) >= 0 ERROR: binding", 2},
		{"corrupted double-linked list\n" + report, AbortHeap, "", "corrupted double-linked list", 1},
		{"all_reduce_perf: common.cu:12: main: Assertion `n > 0' failed.\n" + report, AbortAssert, "", "Assertion `n > 0' failed.", 1},
		{"corrupted double-linked list\n" + repeatLines("x", abortWindow+1) + report, "", "", "", 0},
		{"corrupted double-linked list\n[h1:42] Signal: Segmentation fault (11)\n", "", "", "", 0},
	} {
		tests := parseTests(t, c.text)
		if tests == nil || len(tests.Failures) != 1 {
			t.Fatalf("%q: no failure read", c.text)
		}
		a := tests.Failures[0].Abort
		if a.Kind != c.kind || a.Type != c.typ || a.Text != c.reason || a.Evidence.Line != c.line {
			t.Errorf("%q: abort %+v, want %s %q %q at line %d", c.text, a, c.kind, c.typ, c.reason, c.line)
		}
	}
}

// repeatLines is n lines of s.
func repeatLines(s string, n int) string {
	out := ""
	for range n {
		out += s + "\n"
	}
	return out
}
