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

// Two processes that abort for different reasons print them, then their
// reports, interleaved (synthetic, in the forms above): each report takes
// its own process's reason, known by Open MPI's --tag-output tag or by
// glog's thread id when it is the pid, never the other's; when nothing
// tells whose two unlike reasons are, neither report takes one, while
// alike ones (the same exception, ranks apart) are taken in turn.
func TestAbortReasonPerProcess(t *testing.T) {
	const glog = "F0721 02:48:28.834262 100 util.h:139] Check failed: bind(fd) >= 0\n"
	for _, c := range []struct {
		name, text string
		want       []string // each report's reason, in order
	}{
		{"tagged", "[1,0]<stderr>:" + glog + "[1,1]<stderr>:corrupted double-linked list\n[1,0]<stderr>:[h1:100] Signal: Aborted (6)\n[1,1]<stderr>:[h1:101] Signal: Aborted (6)\n",
			[]string{"Check failed: bind(fd) >= 0", "corrupted double-linked list"}},
		{"tagged, reports swapped", "[1,0]<stderr>:" + glog + "[1,1]<stderr>:corrupted double-linked list\n[1,1]<stderr>:[h1:101] Signal: Aborted (6)\n[1,0]<stderr>:[h1:100] Signal: Aborted (6)\n",
			[]string{"corrupted double-linked list", "Check failed: bind(fd) >= 0"}},
		{"glog thread id is the pid", "corrupted double-linked list\n" + glog + "[h1:100] Signal: Aborted (6)\n[h1:101] Signal: Aborted (6)\n",
			[]string{"Check failed: bind(fd) >= 0", "corrupted double-linked list"}},
		{"unlike, untold", "corrupted double-linked list\nprog: a.c:1: f: Assertion `x' failed.\n[h1:7] Signal: Aborted (6)\n[h2:8] Signal: Aborted (6)\n",
			[]string{"", ""}},
		{"UCX and Open MPI report one process", glog + "[h1:100:0:100] Caught signal 6 (Aborted)\n[h1:100] Signal: Aborted (6)\n",
			[]string{"Check failed: bind(fd) >= 0", "Check failed: bind(fd) >= 0"}},
	} {
		tests := parseTests(t, c.text)
		if tests == nil || len(tests.Failures) != len(c.want) {
			t.Fatalf("%s: failures %+v", c.name, tests)
		}
		for i, w := range c.want {
			if got := tests.Failures[i].Abort.Text; got != w {
				t.Errorf("%s: report %d (%s) took %q, want %q", c.name, i, tests.Failures[i].Evidence.Text, got, w)
			}
		}
	}
}

// The reason's wordings across runtimes and releases: glog with the year
// (glog 0.7, uccl-project/uccl#301's form), glibc up to 2.25's "*** Error
// in" report, glibc 2.37's malloc assert, libstdc++'s assert (straight
// quotes) and libc++abi's uncaught exception (synthetic lines in those
// shapes). A CUDA device-side assert ("... Assertion `x` failed.") ends
// no process with SIGABRT by itself and is no reason.
func TestAbortReasonWordings(t *testing.T) {
	const report = "[h1:42] Signal: Aborted (6)\n"
	for _, c := range []struct {
		line      string
		kind      AbortKind
		typ, text string
	}{
		{"F20250825 11:10:33.595355   331 util_rdma.h:592] Check failed: ncclIbRoceGetVersionNum(deviceName)", AbortCheck, "", "Check failed: ncclIbRoceGetVersionNum(deviceName)"},
		{"*** Error in `./all_reduce_perf': double free or corruption (fasttop): 0x0000000001e0e010 ***", AbortHeap, "", "double free or corruption (fasttop)"},
		{"Fatal glibc error: malloc.c:4376 (_int_malloc): assertion failed: (unsigned long) (size) >= (unsigned long) (nb)", AbortHeap, "", "Fatal glibc error: malloc.c:4376 (_int_malloc): assertion failed: (unsigned long) (size) >= (unsigned long) (nb)"},
		{"/usr/include/c++/13/bits/stl_vector.h:1130: std::vector<_Tp, _Alloc>::reference std::vector<_Tp, _Alloc>::operator[](size_type) [with _Tp = int]: Assertion '__n < this->size()' failed.", AbortAssert, "", "Assertion '__n < this->size()' failed."},
		{"libc++abi: terminating due to uncaught exception of type std::runtime_error: NCCL error: unhandled system error", AbortException, "std::runtime_error", "NCCL error: unhandled system error"},
		{"/w/k.cu:12: void k(): block: [0,0,0], thread: [0,0,0] Assertion `i < n` failed.", "", "", ""},
	} {
		tests := parseTests(t, c.line+"\n"+report)
		if tests == nil || len(tests.Failures) != 1 {
			t.Fatalf("%q: no failure read", c.line)
		}
		if a := tests.Failures[0].Abort; a.Kind != c.kind || a.Type != c.typ || a.Text != c.text {
			t.Errorf("%q: abort %+v, want %s %q %q", c.line, a, c.kind, c.typ, c.text)
		}
	}
}
