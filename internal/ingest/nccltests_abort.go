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

// maxAborts is how many reasons are kept for the reports that follow.
const maxAborts = 8

// pendingAbort is a reason read and the process it is known to be of.
type pendingAbort struct {
	Abort
	rank   int    // the launcher tag's rank, -1 when none
	origin string // the pdsh or clush host prefix, "" when none
	tid    string // glog's thread id (the pid on the main thread), "" when none
	owner  string // "host:pid" of the report that took it, "" until one did
}

// heapChecks start the lines glibc prints before it aborts a process
// whose heap or stack it found corrupted (malloc/malloc.c, debug/
// stack_chk_fail.c, debug/fortify_fail.c; 2.37 on, malloc's own asserts
// "Fatal glibc error: malloc.c:4376 (_int_malloc): assertion failed").
// Up to 2.25 glibc printed them as "*** Error in `prog': double free or
// corruption (fasttop): 0x... ***" (heapError).
var heapChecks = []string{
	"*** stack smashing detected ***", "*** buffer overflow detected ***",
	"corrupted double-linked list", "corrupted size vs. prev_size",
	"double free or corruption", "free(): ", "malloc(): ", "realloc(): ",
	"munmap_chunk(): ", "malloc_consolidate(): ", "tcache_thread_shutdown(): ",
	"Fatal glibc error: ",
}

// noteAbort reads a line that tells why a process is about to abort
// itself and keeps it for the signal report that follows. It claims no
// line: the line belongs to no test.
func (t *NCCLTests) noteAbort(ln Line, s string) {
	ev := At(t.src, ln)
	if what, ok := strings.CutPrefix(s, "what():"); ok {
		// Processes that threw alike print their "terminate called"
		// lines, then their what() lines: each takes the oldest type
		// still without a text, of its own tag when lines carry one.
		for i := range t.aborts {
			p := &t.aborts[i]
			if p.Kind == AbortException && p.Text == "" && p.Evidence.Line > 0 && ln.Num-p.Evidence.Line <= abortWindow && p.rank == ln.Rank() && p.origin == ln.Origin {
				p.Text, p.Evidence = strings.Clone(strings.TrimSpace(what)), ev
				return
			}
		}
		t.keepAbort(ln, "", Abort{Kind: AbortException, Text: strings.Clone(strings.TrimSpace(what)), Evidence: ev})
		return
	}
	a, tid, ok := abortLine(s)
	if ok {
		a.Evidence = ev
		t.keepAbort(ln, tid, a)
	}
}

// abortLine reads a line that says why a process aborts itself; tid is
// glog's thread id when the line is glog's.
func abortLine(s string) (a Abort, tid string, ok bool) {
	if rest, ok := strings.CutPrefix(s, "terminate called "); ok {
		a = Abort{Kind: AbortException}
		if typ, ok := strings.CutPrefix(rest, "after throwing an instance of "); ok {
			a.Type = strings.Clone(strings.Trim(strings.TrimSpace(typ), "'`\""))
		} else {
			a.Text = strings.Clone(s) // "terminate called without an active exception", "... recursively"
		}
		return a, "", true
	}
	// libc++abi (clang's runtime): "libc++abi: terminating due to
	// uncaught exception of type std::runtime_error: text" (LLVM 15 on;
	// before, "terminating with uncaught exception of type").
	if _, rest, found := strings.Cut(s, "libc++abi: terminating "); found {
		for _, p := range []string{"due to uncaught exception of type ", "with uncaught exception of type "} {
			if r, ok := strings.CutPrefix(rest, p); ok {
				typ, text, _ := strings.Cut(r, ": ")
				return Abort{Kind: AbortException, Type: strings.Clone(strings.TrimSpace(typ)), Text: strings.Clone(strings.TrimSpace(text))}, "", true
			}
		}
	}
	if msg, tid, ok := glogFatal(s); ok {
		return Abort{Kind: AbortCheck, Text: strings.Clone(msg)}, tid, true
	}
	if msg, ok := heapError(s); ok {
		return Abort{Kind: AbortHeap, Text: strings.Clone(msg)}, "", true
	}
	for _, p := range heapChecks {
		if strings.HasPrefix(s, p) {
			return Abort{Kind: AbortHeap, Text: strings.Clone(s)}, "", true
		}
	}
	// glibc's assert(3), "prog: file.c:12: func: Assertion `x' failed.",
	// and libstdc++'s __glibcxx_assert (GCC 13 on, straight quotes):
	// "file.h:1130: func: Assertion '__n < this->size()' failed.".
	if strings.HasSuffix(s, "' failed.") {
		for _, q := range []string{": Assertion `", ": Assertion '"} {
			if i := strings.Index(s, q); i >= 0 {
				return Abort{Kind: AbortAssert, Text: strings.Clone(s[i+2:])}, "", true
			}
		}
	}
	return Abort{}, "", false
}

// heapError reads glibc's report of a corrupted heap up to 2.25,
// "*** Error in `./prog': free(): invalid pointer: 0x0000000001e0e010
// ***", and returns its message without the program and address.
func heapError(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "*** Error in `")
	if !ok {
		return "", false
	}
	_, msg, ok := strings.Cut(rest, "': ")
	if !ok {
		return "", false
	}
	msg = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(msg), "***"))
	if i := strings.LastIndex(msg, ": 0x"); i > 0 {
		msg = msg[:i]
	}
	return msg, msg != ""
}

// keepAbort keeps a reason with the process its line is known to be of,
// dropping those too far above to be taken.
func (t *NCCLTests) keepAbort(ln Line, tid string, a Abort) {
	kept := t.aborts[:0]
	for _, p := range t.aborts {
		if ln.Num-p.Evidence.Line <= abortWindow {
			kept = append(kept, p)
		}
	}
	if len(kept) == maxAborts {
		kept = append(kept[:0], kept[1:]...)
	}
	t.aborts = append(kept, pendingAbort{Abort: a, rank: ln.Rank(), origin: strings.Clone(ln.Origin), tid: strings.Clone(tid)})
}

// glogFatal reads glog's FATAL line, "F0721 02:48:28.834262 1159892
// util.h:139] Check failed: ...", or with the year (glog 0.7 on,
// "F20250825 11:10:33.595355   331 util_rdma.h:592] ..."), and returns
// its message and thread id.
func glogFatal(s string) (msg, tid string, ok bool) {
	date, rest, found := strings.Cut(s, " ")
	if !found || len(date) < 5 || date[0] != 'F' || (len(date) != 5 && len(date) != 9) || !isDigits(date[1:]) {
		return "", "", false
	}
	head, msg, found := strings.Cut(rest, "] ")
	if f := strings.Fields(head); len(f) == 3 && isDigits(f[1]) {
		tid = f[1]
	}
	msg = strings.TrimSpace(msg)
	return msg, tid, found && msg != ""
}

// abortFor returns the reason kept for the process host:pid that died on
// signal n at line ln: none unless the signal is SIGABRT. A reason of the
// same launcher tag or glog thread id (the pid, on the main thread) is
// the process's own; otherwise the oldest one no other process took and
// whose tag or pdsh host does not say it is another's, since
// each process prints its reason just before its own report. Where
// those left disagree (two kinds, or two texts) which is whose cannot be
// told, and none is taken.
func (t *NCCLTests) abortFor(n int, ln Line, host, pid string) Abort {
	if n != sigabrt {
		return Abort{}
	}
	who := host + ":" + pid
	var cand []int
	for i := range t.aborts {
		p := &t.aborts[i]
		if ln.Num-p.Evidence.Line > abortWindow || (p.owner != "" && p.owner != who) {
			continue
		}
		if p.rank >= 0 && ln.Rank() >= 0 && p.rank != ln.Rank() || p.origin != "" && ln.Origin != "" && p.origin != ln.Origin {
			continue
		}
		if p.owner == who || p.rank >= 0 && p.rank == ln.Rank() || p.tid != "" && p.tid == strings.TrimLeft(pid, "0") {
			p.owner = who
			return p.Abort
		}
		cand = append(cand, i)
	}
	if len(cand) == 0 {
		return Abort{}
	}
	first := &t.aborts[cand[0]]
	for _, i := range cand[1:] {
		if !sameReason(first.Abort, t.aborts[i].Abort) {
			return Abort{}
		}
	}
	first.owner = who
	return first.Abort
}

// sameReason reports whether two processes' reasons are alike: the same
// kind and type, and texts that differ at most in their digits (ranks,
// addresses) or are not printed yet.
func sameReason(a, b Abort) bool {
	digitless := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	return a.Kind == b.Kind && a.Type == b.Type && (a.Text == "" || b.Text == "" || digitless(a.Text) == digitless(b.Text))
}
