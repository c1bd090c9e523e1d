package ingest

import "strings"

// profilerUnused reads the line NCCL's profiler loader prints when the
// library it opened exports none of the ncclProfiler_vN symbols it looks
// up, newest first down to v1 (src/plugin/profiler.cc, 2.23 on:
// "PROFILER/Plugin: failed to find ncclProfiler_v1."): NCCL runs without
// a profiler. The line names no library, so Name stays "".
func (l *NCCLLog) profilerUnused(host, msg string, ev Evidence) {
	if !strings.HasPrefix(msg, "PROFILER/Plugin: failed to find ncclProfiler_v1") {
		return
	}
	if len(l.PluginUnused) >= maxKept || !l.once(seenKey{kind: 'U', a: host, b: "PROFILER"}) {
		return
	}
	l.PluginUnused = append(l.PluginUnused, PluginUnused{Host: host, Type: "PROFILER", Named: ev, Evidence: ev})
}
