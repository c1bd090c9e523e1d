package doctor

import (
	"strings"
	"unicode"

	"rocelab/internal/ingest"
)

// crashAt names where a process that died on a signal crashed, as its
// backtrace's first frame past the handler shows: " in libnccl.so
// (rasMsgHandlePeersUpdate)"; "" when no frame was read.
func crashAt(f ingest.TestFailure) string {
	switch {
	case f.CrashIn == "" && f.CrashFunc == "":
		return ""
	case f.CrashIn == "":
		return " in " + f.CrashFunc
	case f.CrashFunc != "":
		return " in " + f.CrashIn + " (" + f.CrashFunc + ")"
	}
	return " in " + f.CrashIn
}

// rasState is what the output tells of NCCL's RAS thread, which NCCL runs
// in every process from 2.24 on.
type rasState int

const (
	rasUnknown rasState = iota // no version printed
	rasAbsent                  // a release before 2.24
	rasPresent                 // 2.24 or later
)

// rasOf reads the library version of the run failure f stopped, or else
// the NCCL log of the same output, as rasState.
func rasOf(inc *Incident, t *ingest.NCCLTests, f ingest.TestFailure) rasState {
	has := func(at bool) rasState {
		if at {
			return rasPresent
		}
		return rasAbsent
	}
	if c := failedLib(t, f); c > 0 {
		return has(codeAtLeast(c, 2, 24))
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.Source() != t.Source() {
			continue
		}
		if at, known := l.AnyVersionAtLeast(2, 24); known {
			return has(at)
		}
	}
	return rasUnknown
}

// rasFrame reports whether a frame's function is one of NCCL's RAS
// functions (src/ras: rasMsgHandlePeersUpdate, rasNetAcceptNewSocket).
func rasFrame(fn string) bool { return camelAfter(fn, "ras") }

// ncclFunc reports whether a frame's function is one of NCCL's own
// (ncclTopoCompute, ncclProxyProgress).
func ncclFunc(fn string) bool { return camelAfter(fn, "nccl") }

// camelAfter reports whether fn is prefix followed by a capitalised word.
func camelAfter(fn, prefix string) bool {
	r, ok := strings.CutPrefix(fn, prefix)
	return ok && r != "" && unicode.IsUpper(rune(r[0]))
}

// crashText says what the library and function the crash stopped in tell,
// and what to do: NCCL's RAS thread, a plugin NCCL loaded, NCCL itself
// (RAS named only where the release has it), or another library. ok is
// false when no frame was read.
func crashText(f ingest.TestFailure, ras rasState) (cause, fix string, ok bool) {
	at := strings.TrimPrefix(crashAt(f), " in ")
	if at == "" {
		return "", "", false
	}
	lead := " The backtrace's first frame past the signal handler and the C library is in " + at
	lib := f.CrashIn
	// The libdw form names a source file, not the library: NCCL's own
	// functions (ncclTopoCompute) tell it there.
	nccl := strings.HasPrefix(lib, "libnccl") && !strings.HasPrefix(lib, "libnccl-") || strings.HasPrefix(lib, "librccl") && !strings.HasPrefix(lib, "librccl-") ||
		!strings.Contains(lib, ".so") && ncclFunc(f.CrashFunc)
	switch {
	case rasFrame(f.CrashFunc):
		return lead + ": NCCL's RAS thread, which NCCL 2.24 and later run in every process (whether or not ncclras is queried) to track peers and answer queries on port 28028. Crashes there were reported on NCCL 2.26-2.29 (NVIDIA/nccl#1669 during init, #1762 and #1996 on 2.27, #2346 on 2.29.7).",
			"Set NCCL_RAS_ENABLE=0 on every rank (and stop polling port 28028) until an NCCL release with the fix; the job loses only the ncclras status, not data.", true
	case strings.HasPrefix(lib, "libnccl-") || strings.HasPrefix(lib, "librccl-"):
		return lead + ": a plugin NCCL loaded (net, tuner, profiler or env plugin), not NCCL itself.",
			"Rerun without that plugin (unset the NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_PROFILER_PLUGIN or NCCL_ENV_PLUGIN that names it, or take it off LD_LIBRARY_PATH); if the crash stops, use a plugin built for this NCCL release and report it to the plugin's maintainers.", true
	case nccl:
		cause = lead + ": the collective library itself, not a plugin."
		name := "report it with the NCCL version and the backtrace, or try another release."
		if f.CrashFunc == "" {
			cause += " Without symbols the function is not named."
			name = "name the function with `addr2line -f -C -e <path to " + lib + "> <offset in the frame>` and " + name
		}
		switch ras {
		case rasPresent:
			cause += " This release runs NCCL's RAS thread in every process, and crashes there were reported on NCCL 2.26-2.29 (NVIDIA/nccl#1669, #1762, #1996, #2346)."
			fix = "Rerun with NCCL_RAS_ENABLE=0: if the crash stops, it is RAS (keep it off until a release with the fix); otherwise " + name
		case rasUnknown:
			cause += " The output prints no NCCL version; from 2.24 on NCCL runs a RAS thread in every process, where crashes were reported on 2.26-2.29 (NVIDIA/nccl#1669, #1762, #1996, #2346)."
			fix = "Find the NCCL version (NCCL_DEBUG=VERSION prints it); on 2.24 or later, rerun with NCCL_RAS_ENABLE=0 to see whether the crash is RAS's. Otherwise " + name
		default:
			fix = strings.ToUpper(name[:1]) + name[1:]
		}
		return cause, fix, true
	}
	return lead + ": not NCCL nor a plugin it loaded, though NCCL may be the caller (the frames under it say).",
		"Read the frames under it for the caller: if a libnccl frame follows, report the crash with the NCCL version and the backtrace; if not, take it to the library it stopped in, with NCCL_DEBUG=INFO output showing what NCCL was doing then.", true
}
