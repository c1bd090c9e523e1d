package ingest

import "strings"

// profilerUnused follows a thread's profiler loading (src/misc/profiler.cc
// 2.23-2.25, src/plugin/profiler.cc 2.26 on) to the line that says the
// library NCCL opened exports none of the ncclProfiler_vN symbols it
// looks up, newest first down to v1: 2.23-2.27's "PROFILER/Plugin: failed
// to find ncclProfiler_v1.", 2.28 on "External profiler plugin X is
// unsupported". NCCL then runs without a profiler. NCCL_PROFILER_PLUGIN
// naming the library shows in the line before: 2.23-2.27's
// "PROFILER/Plugin: Plugin name set by env to X" (printed only for the
// setting's library), 2.28's "NCCL_PROFILER_PLUGIN set by environment to
// X". Without it the library is the default libnccl-profiler.so, which
// 2.23-2.27 do not name and 2.28 name by the path found.
func (l *NCCLLog) profilerUnused(thread, host, msg string, ev Evidence) {
	for _, p := range []string{"PROFILER/Plugin: Plugin name set by env to ", "NCCL_PROFILER_PLUGIN set by environment to "} {
		if lib, ok := strings.CutPrefix(msg, p); ok {
			if lib = strings.TrimSpace(lib); lib != "" && (len(l.profilers) < maxDistinct || l.profilers[thread] != nil) {
				l.profilers[strings.Clone(thread)] = &tunerLoad{setting: strings.Clone(lib), settingEv: ev}
			}
			return
		}
	}
	lib, ok := cutAround(msg, "External profiler plugin ", " is unsupported")
	if !ok && !strings.HasPrefix(msg, "PROFILER/Plugin: failed to find ncclProfiler_v1") {
		return
	}
	u := PluginUnused{Host: host, Type: "PROFILER", Name: strings.Clone(strings.TrimSpace(lib)), Named: ev, Evidence: ev}
	if t := l.profilers[thread]; t != nil {
		delete(l.profilers, thread)
		u.Setting, u.Named = true, t.settingEv
		if u.Name == "" {
			u.Name = t.setting
		}
	}
	if len(l.PluginUnused) >= maxKept || !l.once(seenKey{kind: 'U', a: host, b: "PROFILER\x00" + u.Name}) {
		return
	}
	l.PluginUnused = append(l.PluginUnused, u)
}
