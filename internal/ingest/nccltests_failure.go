package ingest

import (
	"fmt"
	"strconv"
	"strings"
)

// A TestFailure is one line nccl-tests prints when a call fails and the
// test stops: NCCLCHECK's "host: Test NCCL failure common.cu:1204
// 'unhandled cuda error / detail'", CUDACHECK's "host: Test CUDA failure
// ...", or the first versions' "NCCL failure all_reduce.cu:95 'unhandled
// cuda error'" without a host; or the line of its -T watchdog (since
// 2022), "host: Test timeout (300s) common.cu:523", printed after it
// aborted the communicators of a collective that did not complete in time.
type TestFailure struct {
	Host string // "" when the line names none
	// Call is "NCCL" or "CUDA": which library returned the error; "" for
	// a timeout.
	Call string
	// Timeout is -T's limit in seconds when the line is the watchdog's.
	Timeout int
	// GPUsWanted and GPUsFound are set by the device check nccl-tests has
	// had since September 2025 (af68bc5; stderr, in place of the rank
	// lines; before it the same launch failed with CUDA's 'invalid device
	// ordinal'): "Invalid number of GPUs: 16 requested but only 8 were
	// found." GPUsWanted is one past
	// the highest device index the process needed (local rank x -t x -g,
	// plus -t x -g), GPUsFound the devices it could see.
	GPUsWanted, GPUsFound int
	// Usage says which check refused the test's command line (Message
	// holds the line); "" for any other failure.
	Usage UsageKind
	// Signal is set when a process died on a signal, as UCX's error
	// handler prints it under Open MPI or HPC-X ("[h20-01:3765588:0:3767672]
	// Caught signal 11 (Segmentation fault: address not mapped ...)") or
	// Open MPI's own does ("[n232-194-226:1159290] Signal: Aborted (6)");
	// Message then holds the signal's description.
	Signal int
	// CrashIn is the library of the backtrace's first frame past the
	// signal handler and the C library ("libnccl.so",
	// "libnccl-profiler-example.so"), and CrashFunc that frame's function
	// when printed ("rasMsgHandlePeersUpdate"); "" when no frame was read.
	// CrashFrame is that frame's line.
	CrashIn, CrashFunc string
	CrashFrame         Evidence
	// Abort is the line, printed just before the report of a process
	// that died on SIGABRT, that says why it aborted itself (glog's
	// "Check failed", an uncaught C++ exception's what()); its Kind is ""
	// when none was read.
	Abort Abort
	// Where is the source location of the failed check, "common.cu:1204".
	Where string
	// Message is the error string without NCCL's empty " / " detail,
	// "unhandled cuda error (run with NCCL_DEBUG=INFO for details)".
	Message  string
	Evidence Evidence
	// Test is the collective of the run the failure stopped, as far as
	// read then ("alltoall"); "" before any run.
	Test string
	// Run numbers that run from 1 in input order, so that a test a script
	// ran twice is two runs; 0 before any run.
	Run int
}

// failure reads an abort line, or the " .. host pid N: Test failure
// common.cu:915" trace each process prints under it, whose host is given
// to the abort line that names none.
func (t *NCCLTests) failure(ln Line, s string) bool {
	if rest, ok := strings.CutPrefix(s, ".. "); ok && strings.Contains(rest, ": Test failure ") {
		if host, pid, ok := strings.Cut(rest, " pid "); ok && host != "" && !strings.ContainsAny(host, " \t") {
			pid, _, _ = strings.Cut(pid, ":")
			t.traced(host, pid)
		}
		return true
	}
	if t.timeout(ln, s) || t.tooFewGPUs(ln, s) || t.refused(ln, s) || t.caughtSignal(ln, s) || t.receivedSignal(ln, s) {
		return true
	}
	var call string
	i := -1
	for _, c := range []string{"NCCL", "CUDA"} {
		if j := strings.Index(s, c+" failure "); j >= 0 {
			call, i = c, j
			break
		}
	}
	if i < 0 {
		return false
	}
	host := ""
	if pre := s[:i]; pre != "" && pre != "Test " {
		// "Test NCCL failure ..." alone is the line with its host cut off
		// (a paste that dropped "host: ").
		h, cut := strings.CutSuffix(pre, ": Test ")
		var ok bool
		if host, ok = failureHost(h); !cut || !ok {
			return false
		}
	}
	rest := s[i+len(call)+len(" failure "):]
	where, msg, _ := strings.Cut(rest, " ")
	if !strings.Contains(where, ":") {
		return false
	}
	msg = strings.TrimSpace(msg)
	msg = strings.TrimSuffix(strings.TrimPrefix(msg, "'"), "'")
	msg = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(msg), "/"))
	t.keepFailure(TestFailure{Host: strings.Clone(host), Call: call, Where: strings.Clone(where), Message: strings.Clone(msg), Evidence: At(t.src, ln)})
	return true
}

// timeout reads the -T watchdog's line, common.cu's
// printf("%s: Test timeout (%ds) %s:%d\n", hostname, timeout, __FILE__,
// __LINE__): "node-1: Test timeout (300s) common.cu:523".
func (t *NCCLTests) timeout(ln Line, s string) bool {
	const mark = "Test timeout ("
	i := strings.Index(s, mark)
	if i < 0 {
		return false
	}
	host := ""
	if i > 0 {
		h, cut := strings.CutSuffix(s[:i], ": ")
		var ok bool
		if host, ok = failureHost(h); !cut || !ok {
			return false
		}
	}
	secs, rest, ok := strings.Cut(s[i+len(mark):], "s) ")
	where := strings.TrimSpace(rest)
	n := atoiOr(secs, 0) // 0 for digits past an int: not a line -T printed
	if !ok || !isDigits(secs) || n <= 0 || !strings.Contains(where, ":") || strings.ContainsAny(where, " \t") {
		return false
	}
	t.keepFailure(TestFailure{Host: strings.Clone(host), Timeout: n, Where: strings.Clone(where), Evidence: At(t.src, ln)})
	return true
}

// tooFewGPUs reads util.cu's fprintf(stderr, "Invalid number of GPUs: %d
// requested but only %d were found.\n", ...).
func (t *NCCLTests) tooFewGPUs(ln Line, s string) bool {
	rest, ok := strings.CutPrefix(s, "Invalid number of GPUs: ")
	if !ok {
		return false
	}
	wanted, rest, ok1 := strings.Cut(rest, " requested but only ")
	found, _, ok2 := strings.Cut(rest, " were found")
	w, f := atoiOr(wanted, 0), atoiOr(found, -1)
	if !ok1 || !ok2 || !isDigits(wanted) || !isDigits(found) || w <= f {
		return false
	}
	t.keepFailure(TestFailure{GPUsWanted: w, GPUsFound: f, Message: fmt.Sprintf("only %d GPUs found", f), Evidence: At(t.src, ln)})
	return true
}

// failureHost returns the host an abort line names before its ": Test ",
// h; ok is false when h is no host. When the check failed while the size's
// row was being printed, the line continues that row: "2097152 32768
// float none -1 node0: Test CUDA failure ..." (nccl-tests#355).
func failureHost(h string) (host string, ok bool) {
	f := strings.Fields(h)
	switch {
	case len(f) == 1:
		return f[0], true
	case len(f) > 1 && isDigits(f[0]):
		return f[len(f)-1], true
	}
	return "", false
}

// caughtSignal reads UCX's error handler line for a process that died on
// a signal (ucs_handle_error: "[host:pid:idx:tid] Caught signal 11
// (Segmentation fault: address not mapped to object at address 0x48)"),
// the description cut where the output was.
func (t *NCCLTests) caughtSignal(ln Line, s string) bool {
	pre, rest, ok := strings.Cut(s, "] Caught signal ")
	if !ok || !strings.HasPrefix(pre, "[") {
		return false
	}
	num, desc, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return false
	}
	// UCX's prefix is "host:pid:idx:tid", all three numbers: "[rank0]"
	// and other tools' tags are no process.
	id := strings.Split(pre[1:], ":")
	if len(id) < 4 || !isDigits(id[len(id)-3]) || !isDigits(id[len(id)-2]) || !isDigits(id[len(id)-1]) {
		return false
	}
	host := strings.Join(id[:len(id)-3], ":")
	desc = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(desc), "("), ")")
	t.keepFailure(TestFailure{Host: strings.Clone(host), Signal: n, Message: strings.Clone(desc), Evidence: At(t.src, ln), Abort: t.abortFor(n, ln, host, id[len(id)-3])})
	if len(t.Failures) > 0 && t.Failures[len(t.Failures)-1].Evidence.Line == ln.Num {
		t.crashAt = len(t.Failures)
	}
	return true
}

// receivedSignal reads the report Open MPI's signal handler prints for a
// process that died on a signal, each line tagged "[host:pid]" ("***
// Process received signal ***", "Signal: Aborted (6)", "Signal code:",
// the frames, "*** End of error message ***"; uccl-project/uccl#172): the
// "Signal:" line is the failure, its frames follow.
func (t *NCCLTests) receivedSignal(ln Line, s string) bool {
	host, pid, rest, ok := ompiReport(s)
	if !ok {
		return false
	}
	sig, isSig := strings.CutPrefix(rest, "Signal: ")
	if !isSig {
		return strings.HasPrefix(rest, "*** Process received signal") || strings.HasPrefix(rest, "*** End of error message")
	}
	// "Aborted (6)", or the number alone where Open MPI was built
	// without strsignal ("Signal: 6", opal/util/stacktrace.c).
	desc, num, named := strings.Cut(sig, " (")
	if !named {
		desc, num = "", sig
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(num, ")")))
	if err != nil || n <= 0 {
		return false
	}
	t.keepFailure(TestFailure{Host: strings.Clone(host), Signal: n, Message: strings.Clone(strings.TrimSpace(desc)), Evidence: At(t.src, ln), Abort: t.abortFor(n, ln, host, pid)})
	if len(t.Failures) > 0 && t.Failures[len(t.Failures)-1].Evidence.Line == ln.Num {
		t.crashAt = len(t.Failures)
	}
	return true
}

// ompiReport splits a line of Open MPI's signal report, "[host:pid] rest",
// into its host, pid and rest; ok is false for any other line.
func ompiReport(s string) (host, pid, rest string, ok bool) {
	id, rest, found := strings.Cut(s, "] ")
	if !found || !strings.HasPrefix(id, "[") {
		return "", "", "", false
	}
	host, pid, found = strings.Cut(id[1:], ":")
	if !found || host == "" || strings.ContainsAny(host, " \t") || !isDigits(pid) {
		return "", "", "", false
	}
	return host, pid, strings.TrimSpace(rest), true
}

// crashFrame reads the backtrace UCX prints under a "Caught signal" line,
// its "==== backtrace (tid: N) ====" banner and its frames, in the form
// of UCX's own unwinder (" 3  /opt/nccl/lib/libnccl.so(+0x120057)
// [0x7ff1c18c1057]") or of its libdw/gdb one ("1 0x0000000000122927
// rasMsgHandlePeersUpdate() /src/ras/peers.cc:412"), and gives the
// signal the first frame outside the handler (libucs, libucm), the C
// library and the signal trampoline: where the process crashed. Any
// other line ends the backtrace.
func (t *NCCLTests) crashFrame(ln Line, s string) bool {
	if t.crashAt == 0 {
		return false
	}
	if _, _, rest, ok := ompiReport(s); ok {
		switch {
		case strings.HasPrefix(rest, "*** End of error message"):
			t.crashAt = 0
			return true
		case strings.HasPrefix(rest, "Signal: ") || strings.HasPrefix(rest, "*** Process received signal"):
			// Another process's report begins (two processes that
			// aborted together print theirs one after the other).
			t.crashAt = 0
			return false
		case strings.HasPrefix(rest, "["):
			// Open MPI's frame, "[ 3] /lib/.../libc.so.6(abort+0xdf)[0x...]":
			// the frame number in brackets, then glibc's backtrace form.
			n, frame, _ := strings.Cut(rest[1:], "]")
			s = strings.TrimSpace(n) + " " + strings.TrimSpace(frame)
		default:
			// The report's other lines ("Signal code:", "Failing at
			// address:") sit between the signal and its frames.
			return true
		}
	}
	if strings.HasPrefix(s, "==== backtrace") || strings.HasPrefix(s, "=====") {
		return true
	}
	f := strings.Fields(s)
	if len(f) < 2 || !isDigits(f[0]) {
		t.crashAt = 0
		return false
	}
	lib, fn := "", ""
	if strings.HasPrefix(f[1], "0x") {
		if len(f) > 2 {
			fn = f[2]
		}
		if len(f) > 3 {
			lib = f[3]
		}
	} else {
		lib, fn, _ = strings.Cut(f[1], "(")
		fn, _, _ = strings.Cut(fn, "+")
		fn = strings.TrimSuffix(fn, ")")
	}
	lib = lib[strings.LastIndexByte(lib, '/')+1:]
	lib, _, _ = strings.Cut(lib, ":")
	lib = strings.Trim(lib, "?")
	fn, _, _ = strings.Cut(fn, "(")
	c := &t.Failures[t.crashAt-1]
	if handlerFrame(lib, fn) || c.Signal == sigabrt && abortFrame(lib) {
		return true
	}
	c.CrashIn, c.CrashFunc, c.CrashFrame = strings.Clone(lib), strings.Clone(fn), At(t.src, ln)
	t.crashAt = 0
	return true
}

// CrashOnly reports whether t holds a process's crash and nothing of
// nccl-tests: no run, and only failures that are signals ("Caught
// signal"), which any program UCX's handler is loaded in prints.
func (t *NCCLTests) CrashOnly() bool {
	if len(t.Runs) > 0 || len(t.Failures) == 0 {
		return false
	}
	for _, f := range t.Failures {
		if f.Signal == 0 {
			return false
		}
	}
	return true
}

// handlerFrame reports whether a backtrace frame is the signal's
// handling, not the crash: UCX's handler and memory hooks, the C library
// and its thread start, the signal trampoline, or a frame naming
// nothing.
func handlerFrame(lib, fn string) bool {
	for _, p := range []string{"libucs.so", "libucm.so", "libc.so", "libc-", "libpthread.so", "ld-linux"} {
		if strings.HasPrefix(lib, p) {
			return true
		}
	}
	return lib == "" && strings.Trim(fn, "?") == "" || strings.Contains(fn, "sigaction") || fn == "__restore_rt" || strings.Contains(fn, "ucs_")
}

// sigabrt is SIGABRT's number, the signal of a process that aborted itself.
const sigabrt = 6

// abortFrame reports whether a frame of an aborted process's backtrace is
// the abort's machinery, not the code that asked for it: the C++ runtime's
// std::terminate and unwinder (libstdc++, libgcc_s), glog's fatal check
// (libglog, uccl-project/uccl#172: frames 4-7 are LogMessageFatal's).
func abortFrame(lib string) bool {
	for _, p := range []string{"libstdc++.so", "libgcc_s.so", "libglog.so"} {
		if strings.HasPrefix(lib, p) {
			return true
		}
	}
	return false
}

// traced gives a trace line's host to the earliest kept abort line not
// yet traced: processes print their abort line and then its trace, so
// with their output interleaved the traces come in the aborts' order. An
// abort line that names the host already is its own. A process prints a
// trace line per call level it unwinds (common.cu:891, then :1100), so
// only its first claims an abort; a command-line refusal returns before
// any trace, so none is claimed by one (the tests' own checks of the
// communicator, "This test requires GIN support", fail through the
// trace like any call).
func (t *NCCLTests) traced(host, pid string) {
	id := host + " pid " + pid
	if t.traces[id] {
		return
	}
	if t.traces == nil {
		t.traces = map[string]bool{}
	}
	t.traces[id] = true
	for i := t.nextTrace; i < len(t.Failures); i++ {
		if f := &t.Failures[i]; !f.traceless() && (f.Host == "" || f.Host == host) {
			if f.Host == "" {
				f.Host = strings.Clone(host)
			}
			t.nextTrace = i + 1
			return
		}
	}
}

// traceless reports a refusal of the command line, which returns before
// any trace line is printed.
func (f *TestFailure) traceless() bool {
	return f.Usage != "" && !f.CommunicatorCheck()
}

// CommunicatorCheck reports a device-API refusal by the test's own check
// of the communicator it created (no GIN, multimem or CUDA P2P for the -D
// kernel), not of its command line.
func (f *TestFailure) CommunicatorCheck() bool {
	return f.Usage == UsageDevice && (strings.HasPrefix(f.Message, "This test requires ") ||
		strings.HasPrefix(f.Message, "DeviceImplementation ") && strings.Contains(f.Message, " requires CUDA P2P connectivity"))
}

// keepFailure counts f and keeps it within the bound.
func (t *NCCLTests) keepFailure(f TestFailure) {
	t.FailureCount++
	if n := len(t.Runs); n > 0 && t.sink == nil {
		f.Test, f.Run = t.Runs[n-1].Collective, n
	}
	if len(t.Failures) < maxKept {
		t.Failures = append(t.Failures, f)
	}
}
