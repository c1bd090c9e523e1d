package ingest

import (
	"path"
	"strings"
)

// The error PyTorch raises when an NCCL call fails, printed without NCCL's
// prefix:
//
//	torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6
//	ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
//	Last error:
//	socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host
//
// (RuntimeError before PyTorch 2.1; "Last error:" and NCCL's last error
// text from NCCL 2.13 on, sometimes on the same line). The result and
// version are read, and the last error becomes a WARN that returned that
// result through PyTorch's call.

// backendResults are the texts PyTorch's ncclGetErrorWithVersion prints
// for each ncclResult_t, in nccl.h order.
var backendResults = []struct {
	text   string
	result int
}{
	{"unhandled cuda error", 1},
	{"unhandled system error", 2},
	{"internal error", 3},
	{"invalid argument", 4},
	{"invalid usage", 5},
	{"remote process exited or there was a network error", 6},
	{"remote error", 6},
}

// backendError reads a line holding "NCCL error in: <file>:<line>,
// <result>, NCCL version X", and the last error text when the same line
// carries it. It reports whether the line was one. A terminal or a paste
// may wrap the message after the location's comma, or after "NCCL error
// in:" (pytorch/pytorch#181610): the line is then held until the lines
// after it complete the error.
func (l *NCCLLog) backendError(ln Line, s string) bool {
	i := strings.Index(s, "NCCL error in:")
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(s[i+len("NCCL error in:"):], " ")
	p := &pendingBackend{raised: At(l.src, ln), head: ln}
	// What a logger put before the exception's name ("[rank3]:", "ERROR
	// 04-07 00:57:46 ray_utils.py:45]") it puts before the lines after it.
	if k := strings.LastIndexByte(strings.TrimRight(s[:i], " "), ' '); k >= 0 {
		p.prefix = strings.Clone(s[:k+1])
	}
	if strings.TrimSpace(rest) == "" {
		p.wait = waitLocation
		l.pending = p
		return true
	}
	if !p.location(rest) {
		return false
	}
	l.pending = p
	if p.wait == waitNone {
		l.lines.add(ln)
		l.backendRest(ln, p.rest, p.raised)
	}
	return true
}

// location reads "<file>:<line>, <result> ..." into p: the result, or
// waitResult when the text stops at the location's comma. It reports
// whether s was one.
func (p *pendingBackend) location(s string) bool {
	loc, rest, ok := strings.Cut(s, ", ")
	if !ok && strings.HasSuffix(strings.TrimSpace(loc), ",") && strings.Contains(loc, ":") {
		p.where, p.result, p.wait = strings.Clone(path.Base(strings.TrimSuffix(strings.TrimSpace(loc), ","))), -1, waitResult
		return true
	}
	if p.result = backendResult(rest); p.result < 0 {
		return false
	}
	p.where, p.rest, p.wait = strings.Clone(path.Base(loc)), rest, waitNone
	return true
}

// backendResult returns the ncclResult_t whose text starts s (the part
// of PyTorch's error after the location), or -1.
func backendResult(s string) int {
	low := strings.ToLower(strings.TrimSpace(s))
	for _, r := range backendResults {
		if strings.HasPrefix(low, r.text) {
			return r.result
		}
	}
	return -1
}

// backendRest reads what follows the result in PyTorch's error, on its
// line: NCCL's version and, from NCCL 2.13 on, the last error.
func (l *NCCLLog) backendRest(ln Line, rest string, ev Evidence) {
	if _, v, ok := strings.Cut(rest, "NCCL version "); ok {
		l.addVersion("", v, ev)
	}
	if _, last, ok := strings.Cut(rest, "Last error:"); ok {
		l.lastError(ln, last)
	}
}

// resultNames are the ncclResult_t names that start PyTorch's
// description of a result ("ncclInternalError: Internal check failed.",
// getNcclErrorDetailStr in NCCLUtils.cpp; NCCL's own ncclGetErrorString
// reads "internal error - please report this issue to the NCCL
// developers"), by result.
var resultNames = map[string]int{
	"ncclUnhandledCudaError": 1,
	"ncclSystemError":        2,
	"ncclInternalError":      3,
	"ncclInvalidArgument":    4,
	"ncclInvalidUsage":       5,
	"ncclRemoteError":        6,
}

// describedError reads a line that starts with PyTorch's description of
// a result ("ncclInternalError: Internal check failed.") where no "NCCL
// error in:" line came before it: an excerpt cut below PyTorch's line,
// or an application printing the same text. The "Last error:" after it
// is then read as under PyTorch's error, raised at this line; the line
// and those after it are recognised only once that last error comes. It
// reports whether the line was one.
//
// A tag without spaces may stand before the name ("[trainer0|0]:"); the
// lines after carry it too.
func (l *NCCLLog) describedError(ln Line, s string) bool {
	k := strings.Index(s, "nccl")
	if k < 0 || strings.ContainsAny(strings.TrimLeft(s[:k], " \t"), " \t") {
		return false
	}
	r, ok := resultName(s[k:])
	if !ok {
		return false
	}
	l.pending = &pendingBackend{raised: At(l.src, ln), held: []Line{ln}, result: r, open: true, loose: true, prefix: strings.Clone(s[:k])}
	return true
}

// resultName reads the result of a line that starts with PyTorch's
// description of one ("ncclSystemError: System call ...").
func resultName(t string) (int, bool) {
	name, _, ok := strings.Cut(t, ": ")
	r, known := resultNames[name]
	return r, ok && known
}

// recognise marks a line under a pending error as read: at once under
// PyTorch's "NCCL error in:", held until its last error comes under a
// description alone (describedError: no location).
func (p *pendingBackend) recognise(l *NCCLLog, ln Line) {
	if p.where == "" && p.wait == waitNone {
		p.held = append(p.held, ln)
		return
	}
	l.lines.add(ln)
}

// What a PyTorch NCCL error wrapped over lines still waits for.
const (
	waitNone = iota
	waitLocation
	waitResult
)

// pendingBackend is a PyTorch NCCL error whose last error text is yet to
// come.
type pendingBackend struct {
	where  string
	result int
	raised Evidence
	// prefix is the text before the exception's name on its line.
	prefix string
	// open is set once "Last error:" was read: the next line is the text;
	// loose when only PyTorch's description of the result was, so that the
	// next line is the text only if it reads as an error.
	open, loose bool
	// wait is what a wrapped error still needs (the location, the
	// result); head is its first line, recognised only once it completes.
	wait int
	head Line
	// held are the lines of a description alone (describedError), read
	// only when its last error completes it.
	held []Line
	// rest is the text after the result on the line that gave it.
	rest string
	// reason is PyTorch's message under the error (Warning.Reason).
	reason string
	// more are the error's lines after its first (Warning.More).
	more []Evidence
}

// backendReason reports whether a line under PyTorch's NCCL error is
// PyTorch's own message of the NCCL call that failed: a registration
// ("Failed to window register segment with ptr ...") or a line naming the
// call ("ncclMemAlloc failed").
func backendReason(t string) bool {
	if strings.HasPrefix(t, "Failed to window register segment") || strings.HasPrefix(t, "Failed to register segment") {
		return true
	}
	call, _, _ := strings.Cut(t, " ")
	return len(call) > 4 && strings.HasPrefix(call, "nccl") && call[4] >= 'A' && call[4] <= 'Z' && !strings.Contains(t, "Error: ")
}

// lastErrorText reports whether a line after PyTorch's description of a
// result reads as NCCL's last error rather than the application's
// traceback or log, or a launcher's line ("srun: error: ..."). Under a
// description alone (located false: no "NCCL error in:" above) any text
// with "error" in it is too weak a sign: the line must read as NCCL's own
// (ncclShaped).
func lastErrorText(t string, located bool) bool {
	low := strings.ToLower(t)
	if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "Traceback") || strings.HasPrefix(t, "File ") ||
		strings.Contains(low, "torch") || strings.Contains(low, ".py") {
		return false
	}
	if _, described := resultName(t); described {
		return false // another description, not a last error
	}
	if w, _, _ := strings.Cut(t, " "); launchers[strings.TrimSuffix(w, ":")] {
		return false
	}
	if !located && !ncclShaped(t) {
		return false
	}
	return strings.Contains(low, "fail") || strings.Contains(low, "error")
}

// ncclShaped reports whether a line reads as a last error NCCL sets: one
// that names NCCL's function first ("ncclSocketInit: ...",
// "socketStartConnect: ...", "bootstrapNetInit: ..."), a network
// transport's ("NET/IB : ..."), or a failed call ("Call to ibv_... failed").
func ncclShaped(t string) bool {
	if strings.HasPrefix(t, "NET/") || strings.HasPrefix(t, "Call to ") {
		return true
	}
	fn, _, ok := strings.Cut(t, ":")
	if !ok || strings.ContainsAny(fn, " \t") {
		return false
	}
	for _, p := range []string{"nccl", "socket", "bootstrap"} {
		if rest, ok := strings.CutPrefix(fn, p); ok && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z' {
			return true
		}
	}
	return false
}

// lastError reads what follows "Last error:" (on its line, or the next
// one); an empty text leaves the error open for the next line.
func (l *NCCLLog) lastError(ln Line, text string) {
	p := l.pending
	msg := strings.TrimSpace(stripLabel(strings.TrimSpace(text)))
	if msg == "" {
		p.open = true
		return
	}
	l.pending = nil
	for _, h := range p.held {
		l.lines.add(h)
	}
	l.lines.add(ln)
	ev := At(l.src, ln)
	for i := range l.Warnings {
		if w := &l.Warnings[i]; w.Message == msg && w.Raised.Line == 0 && w.Evidence.Line < ev.Line {
			// The same WARN with NCCL's prefix, earlier in the log: the
			// error PyTorch raised is its.
			w.Raised = p.raised
			return
		}
	}
	n := len(l.Warnings)
	l.feedWarn(origin{pid: -1, tid: -1, dev: -1}, l.intern("", ev), msg, ev)
	if len(l.Warnings) > n {
		w := &l.Warnings[n]
		w.Result, w.Raised, w.More = p.result, p.raised, p.more
		if p.where != "" {
			w.Chain = []string{p.where}
		}
	}
}

// backendLine continues a pending PyTorch NCCL error: the "Last error:"
// line, the text after it, or PyTorch's description of the result between
// ("ncclSystemError: System call ..."). It reports whether the line was
// read; any other line closes the error without a last error.
func (l *NCCLLog) backendLine(ln Line, s string) bool {
	p := l.pending
	t := strings.TrimSpace(stripLabel(strings.TrimSpace(strings.TrimPrefix(s, p.prefix))))
	if p.wait != waitNone {
		// The line the message was wrapped onto gives the location or
		// the result, or the line before was no PyTorch error after all.
		// Blank lines between are skipped.
		if t == "" {
			return true
		}
		ok := false
		if p.wait == waitLocation {
			ok = p.location(t)
		} else if p.result = backendResult(t); p.result >= 0 {
			ok, p.rest, p.wait = true, t, waitNone
		}
		if !ok {
			l.pending = nil
			return false
		}
		if p.wait == waitNone {
			l.lines.add(p.head)
			l.lines.add(ln)
			p.more = append(p.more, At(l.src, ln))
			l.backendRest(ln, p.rest, p.raised)
		}
		return true
	}
	switch {
	case t == "":
		return false
	case strings.HasPrefix(t, "Last error:"):
		p.recognise(l, ln)
		p.loose = false
		l.lastError(ln, t[len("Last error:"):])
		return true
	case p.open && (!p.loose || lastErrorText(t, p.where != "")):
		l.lastError(ln, t)
		return true
	case !p.open && p.reason == "" && backendReason(t):
		l.lines.add(ln)
		p.reason = strings.Clone(t)
		p.more = append(p.more, At(l.src, ln))
		return true
	case strings.HasPrefix(t, "nccl") && strings.Contains(t, "Error: "):
		// NCCL 2.2x's last error may follow this description without a
		// "Last error:" line (NVIDIA/nccl#2077).
		p.recognise(l, ln)
		p.open, p.loose = true, true
		return true
	}
	l.closeBackend()
	return false
}

// closeBackend records a pending PyTorch NCCL error that came without
// its last error as a WARN of its own; PyTorch's description of a result
// alone (describedError: no location) says too little to be one.
func (l *NCCLLog) closeBackend() {
	p := l.pending
	if p == nil {
		return
	}
	l.pending = nil
	if p.wait != waitNone || p.where == "" {
		return
	}
	l.WarningCount++
	if len(l.Warnings) < maxKept {
		l.Warnings = append(l.Warnings, Warning{PID: -1, TID: -1, Where: p.where, Message: strings.Clone(p.raised.Text), Result: p.result, Chain: []string{p.where}, Evidence: p.raised, Raised: p.raised, Reason: p.reason, More: p.more})
	}
}
