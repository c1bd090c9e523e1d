package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// abortKey groups the processes that aborted for one reason: its kind and
// text without digits (ranks, lines and addresses differ from process to
// process).
func abortKey(a ingest.Abort) string {
	if a.Kind == "" {
		return ""
	}
	return string(a.Kind) + "\x00" + a.Type + "\x00" + strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, a.Text)
}

// abortWhat names the reason a process gave as it aborted itself, for a
// finding's title: " after glog's fatal 'Check failed: bind(...)'".
func abortWhat(a ingest.Abort) string {
	text := "'" + clip(a.Text, 120) + "'"
	switch a.Kind {
	case ingest.AbortCheck:
		return " after glog's fatal " + text
	case ingest.AbortException:
		typ := "C++ exception"
		if a.Type != "" {
			typ = a.Type
		}
		if a.Text == "" || a.Text == a.Type {
			return " after an uncaught " + typ
		}
		return " after an uncaught " + typ + ", " + text
	case ingest.AbortHeap:
		return " after glibc's " + text
	case ingest.AbortAssert:
		return " after " + text
	}
	return ""
}

// abortCause explains the reason a process gave as it aborted itself, in
// place of signalCause: it did abort, it did not crash; rocm says the
// library is RCCL.
func abortCause(a ingest.Abort, rocm bool) string {
	switch a.Kind {
	case ingest.AbortCheck:
		return fmt.Sprintf("Signal 6 (SIGABRT) is a process ending itself, and the line just before the report says why: glog's fatal line '%s' is a CHECK in the program or a library it loaded (a net plugin such as UCCL's logs with glog) that failed, after which glog calls abort(). The signal is the consequence; the call in the check's expression failing is the cause. Its peers then hang in or fail their next collective.", a.Text)
	case ingest.AbortException:
		s := "Signal 6 (SIGABRT) is a process ending itself: here a C++ exception that nothing caught ended it (std::terminate calls abort()), and the runtime printed its type and what() text just before the report"
		if a.Text != "" {
			s += fmt.Sprintf(": '%s'", a.Text)
		}
		s += ". The signal is the consequence; the exception is the cause, and the peers then hang in or fail their next collective."
		if ncclText(a.Text) {
			s += " Its text carries an NCCL error: an NCCL call returned it and the program threw it. " + thrownNCCLCause(a.Text, rocm)
		}
		return s
	case ingest.AbortHeap:
		return fmt.Sprintf("Signal 6 (SIGABRT) is a process ending itself: here glibc found its heap or stack corrupted and aborted it: '%s'. Memory corruption is a bug in the program or a library it loaded (a write past a buffer, a double free, libraries built against other versions of one another), not the network, and it can surface long after the write that caused it.", a.Text)
	case ingest.AbortAssert:
		return fmt.Sprintf("Signal 6 (SIGABRT) is a process ending itself: here an assert failed: '%s'; its condition and file name say which check, in which program or library.", a.Text)
	}
	return ""
}

// abortFix says what to do about the reason a process gave as it aborted
// itself.
func abortFix(a ingest.Abort) string {
	switch a.Kind {
	case ingest.AbortCheck:
		return "Fix what the check names: the call in its expression failed (the glog W or E line, or the WARN, before it often gives the error); if the check's file is a plugin's, report it to that plugin's maintainers with the line."
	case ingest.AbortException:
		if ncclText(a.Text) {
			fix := "The exception only carries NCCL's error: rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET so that NCCL's WARN line before it names the call that failed and why, and give that log to rocelab diagnose."
			if thrownCUDA(a.Text) {
				fix += " Check `nvidia-smi` for other processes holding the GPU's memory and dmesg for Xid lines."
			}
			return fix
		}
		return "Read the exception's text: it is the program's own error. Fix what it names, or run under gdb with `catch throw` to see where it was thrown."
	case ingest.AbortHeap:
		return "Find the corrupting write with a memory checker (valgrind; MALLOC_CHECK_=3 for glibc's own checks; compute-sanitizer for GPU code), and check with ldd that the NCCL, CUDA and MPI libraries loaded are the ones the program was built against."
	case ingest.AbortAssert:
		return "Fix the condition the assert names; if its file is a library's, report it to that library's maintainers with the line."
	}
	return ""
}

// ncclText reports whether an exception's text carries an NCCL error
// ("NCCL failure: unhandled cuda error", PyTorch's "NCCL error in: ...").
func ncclText(s string) bool {
	return strings.Contains(s, "NCCL") || strings.Contains(s, "nccl")
}

// thrownNCCLCause explains the NCCL error an exception's text carries.
// The program is not nccl-tests (which throws nothing), so the CUDA
// errors' explanations, which name nccl-tests' options, are not used.
func thrownNCCLCause(text string, rocm bool) string {
	if !thrownCUDA(text) {
		return failureCause(ingest.TestFailure{Call: "NCCL", Message: text}, rocm)
	}
	api := "CUDA"
	if rocm {
		api = "HIP (RCCL keeps NCCL's error names)"
	}
	return fmt.Sprintf("'unhandled cuda error', or the CUDA error it quotes, is a %s call failing under NCCL, the GPU side rather than the network: GPU memory exhausted (by the program's own buffers, or other processes on the GPU), a driver or peer-to-peer access problem, or a GPU fault (dmesg Xid).", api)
}

// thrownCUDA reports whether an exception's NCCL error is a CUDA call's.
func thrownCUDA(text string) bool {
	_, ok := cudaFailure(ingest.TestFailure{Message: text})
	return ok || strings.Contains(strings.ToLower(text), "cuda error")
}
