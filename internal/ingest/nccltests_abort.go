package ingest

import "strings"

// AbortKind says what made a process abort itself (SIGABRT), as the line
// it printed just before its signal report tells.
type AbortKind string

const (
	// AbortCheck is glog's fatal line, "F0721 02:48:28.834262 1159892
	// util.h:139] Check failed: bind(...) >= 0" (uccl-project/uccl#172).
	AbortCheck AbortKind = "check"
	// AbortException is the C++ runtime's std::terminate on an exception
	// nothing caught: "terminate called after throwing an instance of
	// 'std::runtime_error'", then "  what():  NCCL failure: ..."
	// (baidu-research/DeepBench#97).
	AbortException AbortKind = "exception"
	// AbortHeap is glibc's check of its heap or of the stack finding it
	// corrupted: "corrupted double-linked list" (NVIDIA/nccl#726),
	// "*** stack smashing detected ***: mpi_test terminated".
	AbortHeap AbortKind = "heap"
	// AbortAssert is assert(3): "prog: file.c:12: func: Assertion `x'
	// failed."
	AbortAssert AbortKind = "assert"
)

// An Abort is the line with which a process said why it aborted itself.
type Abort struct {
	Kind AbortKind // "" when no such line was read
	// Type is the C++ exception's type for AbortException
	// ("std::runtime_error"), "" when not printed.
	Type string
	// Text is the reason: glog's message ("Check failed: ..."), the
	// exception's what() text, glibc's or assert's line.
	Text     string
	Evidence Evidence
}

// abortWindow is how many lines before a signal report the line of its
// reason may be: the report follows it at once, but other processes'
// lines interleave.
const abortWindow = 40

// heapChecks start the lines glibc prints before it aborts a process
// whose heap or stack it found corrupted (malloc/malloc.c, debug/
// stack_chk_fail.c).
var heapChecks = []string{
	"*** stack smashing detected ***", "*** buffer overflow detected ***",
	"corrupted double-linked list", "corrupted size vs. prev_size",
	"double free or corruption", "free(): ", "malloc(): ", "realloc(): ",
	"munmap_chunk(): ", "malloc_consolidate(): ",
}

// noteAbort reads a line that tells why a process is about to abort
// itself and keeps it for the signal report that follows. It claims no
// line: the line belongs to no test.
func (t *NCCLTests) noteAbort(ln Line, s string) {
	ev := At(t.src, ln)
	if rest, ok := strings.CutPrefix(s, "terminate called "); ok {
		a := Abort{Kind: AbortException, Evidence: ev}
		if typ, ok := strings.CutPrefix(rest, "after throwing an instance of "); ok {
			a.Type = strings.Clone(strings.Trim(strings.TrimSpace(typ), "'`\""))
		} else {
			a.Text = strings.Clone(s) // "terminate called without an active exception"
		}
		t.abort = a
		return
	}
	if what, ok := strings.CutPrefix(s, "what():"); ok {
		a := t.abort
		// Processes that threw alike print their "terminate called"
		// lines, then their what() lines: each takes the type before it.
		if a.Kind != AbortException || ln.Num-a.Evidence.Line > abortWindow {
			a = Abort{Kind: AbortException}
		}
		a.Text, a.Evidence = strings.Clone(strings.TrimSpace(what)), ev
		t.abort = a
		return
	}
	if msg, ok := glogFatal(s); ok {
		t.abort = Abort{Kind: AbortCheck, Text: strings.Clone(msg), Evidence: ev}
		return
	}
	for _, p := range heapChecks {
		if strings.HasPrefix(s, p) {
			t.abort = Abort{Kind: AbortHeap, Text: strings.Clone(s), Evidence: ev}
			return
		}
	}
	if i := strings.Index(s, ": Assertion `"); i >= 0 && strings.HasSuffix(s, "' failed.") {
		t.abort = Abort{Kind: AbortAssert, Text: strings.Clone(s[i+2:]), Evidence: ev}
	}
}

// glogFatal reads glog's FATAL line, "F0721 02:48:28.834262 1159892
// util.h:139] Check failed: ...", and returns its message.
func glogFatal(s string) (string, bool) {
	if len(s) < 7 || s[0] != 'F' || !isDigits(s[1:5]) || s[5] != ' ' {
		return "", false
	}
	_, msg, ok := strings.Cut(s, "] ")
	msg = strings.TrimSpace(msg)
	return msg, ok && msg != ""
}

// abortFor returns the reason kept for a process that died on signal n
// at line num: the last one read, when the signal is SIGABRT and the
// line is near enough.
func (t *NCCLTests) abortFor(n, num int) Abort {
	if n != sigabrt || t.abort.Kind == "" || num-t.abort.Evidence.Line > abortWindow {
		return Abort{}
	}
	return t.abort
}
