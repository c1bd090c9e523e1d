package doctor

import (
	"strings"

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

// crashText says what the library and function the crash stopped in tell,
// and what to do: NCCL's RAS thread, a plugin NCCL loaded, or NCCL
// itself. ok is false when no frame was read.
func crashText(f ingest.TestFailure) (cause, fix string, ok bool) {
	at := strings.TrimPrefix(crashAt(f), " in ")
	if at == "" {
		return "", "", false
	}
	lead := " The backtrace's first frame past the signal handler and the C library is in " + at
	lib := f.CrashIn
	switch {
	case strings.HasPrefix(f.CrashFunc, "ras"):
		return lead + ": NCCL's RAS thread, which runs in every process (whether or not ncclras is queried) to track peers and answer queries on port 28028. Crashes there are known in NCCL 2.26-2.29 (NVIDIA/nccl#1669 on a query during init, #1762 and #1996 on 2.27, #2346 on 2.29.7).",
			"Set NCCL_RAS_ENABLE=0 on every rank (and stop polling port 28028) until an NCCL release with the fix; the job loses only the ncclras status, not data.", true
	case strings.HasPrefix(lib, "libnccl-"):
		return lead + ": a plugin NCCL loaded (net, tuner, profiler or env plugin), not NCCL itself.",
			"Rerun without that plugin (unset the NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_PROFILER_PLUGIN or NCCL_ENV_PLUGIN that names it, or take it off LD_LIBRARY_PATH); if the crash stops, use a plugin built for this NCCL release and report it to the plugin's maintainers.", true
	case strings.HasPrefix(lib, "libnccl") || strings.HasPrefix(lib, "librccl"):
		return lead + ": the collective library itself, not a plugin. Without symbols the function is not named; NCCL 2.26-2.29 have had crashes in the RAS thread (NVIDIA/nccl#1669, #1762, #1996, #2346), which runs in every process.",
			"Rerun with NCCL_RAS_ENABLE=0: if the crash stops, it is RAS (keep it off until a release with the fix); otherwise name the function with `addr2line -f -C -e <path to " + lib + "> <offset in the frame>` and report it with the NCCL version, or try another release.", true
	}
	return lead + ".", "", true
}
