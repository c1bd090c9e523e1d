package ingest

import (
	"slices"
	"strings"
)

// PluginMiss is NCCL's plugin loader saying it found none of the files it
// tried for a plugin a setting named ("PROFILER/Plugin: Could not find:
// libnccl-profiler-./libx.so.so."), NCCL 2.27 on (src/plugin/plugin_open.cc).
// Default names alone (libnccl-profiler.so, the tuner's "libnccl-tuner.so
// libnccl-net.so": no plugin asked for) and NCCL_NET_PLUGIN=none are not
// one.
type PluginMiss struct {
	Host     string
	Type     string   // "NET", "TUNER", "PROFILER", "ENV"
	Names    []string // the file names tried, as printed
	Evidence Evidence
}

// pluginMiss reads a plugin loader's "Could not find:" line into
// l.PluginMisses, once per plugin type and names.
func (l *NCCLLog) pluginMiss(host, msg string, ev Evidence) {
	typ, rest, ok := strings.Cut(msg, "/Plugin: Could not find:")
	if !ok || typ == "" || strings.ContainsRune(typ, ' ') {
		return
	}
	names := strings.Fields(rest)
	if i := len(names) - 1; i >= 0 {
		// Then the fallback NCCL prints after the list ("Using internal
		// tuner plugin."), or the list's closing period.
		for i >= 0 && !strings.Contains(names[i], ".so") {
			i--
		}
		names = names[:i+1]
	}
	if len(names) == 0 {
		return
	}
	names[len(names)-1] = strings.TrimSuffix(names[len(names)-1], ".")
	if !slices.ContainsFunc(names, asked) {
		return
	}
	key := typ + " " + strings.Join(names, " ")
	if len(l.PluginMisses) < maxKept && l.once(seenKey{kind: 'M', a: key}) {
		for i := range names {
			names[i] = strings.Clone(names[i])
		}
		l.PluginMisses = append(l.PluginMisses, PluginMiss{Host: host, Type: strings.Clone(typ), Names: names, Evidence: ev})
	}
}

// asked reports whether a file name the loader tried is one a setting
// named: not a default "lib{nccl,rccl}-<type>.so", nor the "none" that
// turns net plugins off (libnccl-net-none.so).
func asked(name string) bool {
	for _, lib := range []string{"libnccl-", "librccl-"} {
		if r, ok := strings.CutPrefix(name, lib); ok {
			r = strings.TrimSuffix(r, ".so")
			return strings.ContainsAny(r, "-./") && r != "net-none"
		}
	}
	return true
}

// PluginUnused is a plugin a setting named that NCCL's loader opened but
// found no entry point of its type in: NCCL_TUNER_PLUGIN naming a library
// ("TUNER/Plugin: Plugin name set by env to X") that exports none of the
// ncclTunerPlugin_vN symbols this NCCL reads, after which the thread
// prints "Failed to find ncclTunerPlugin_v2 symbol, using internal tuner
// instead." (src/plugin/tuner.cc, 2.19 to 2.28; uccl-project/uccl#172
// named a net plugin).
type PluginUnused struct {
	Host     string
	Type     string // "TUNER"
	Name     string // the library as NCCL printed it
	Named    Evidence
	Evidence Evidence // the line saying NCCL went on without it
}

// namedPlugin is a plugin library a setting named that NCCL opened.
type namedPlugin struct {
	name string
	ev   Evidence
}

// tunerChoice follows a thread's tuner loading: the library
// NCCL_TUNER_PLUGIN named and NCCL opened, then either the tuner it uses
// from it ("Using tuner plugin N") or NCCL's internal one, which it keeps
// in l.PluginUnused once per host and library.
func (l *NCCLLog) tunerChoice(thread, host, msg string, ev Evidence) {
	rest, ok := strings.CutPrefix(msg, "TUNER/Plugin: ")
	if !ok {
		return
	}
	if name, ok := strings.CutPrefix(rest, "Plugin name set by env to "); ok {
		if name = strings.TrimSpace(name); name != "" && len(l.namedTuner) < maxDistinct {
			l.namedTuner[strings.Clone(thread)] = namedPlugin{name: strings.Clone(name), ev: ev}
		}
		return
	}
	named, ok := l.namedTuner[thread]
	if !ok {
		return
	}
	switch {
	case strings.HasPrefix(rest, "Using tuner plugin"):
		delete(l.namedTuner, thread)
	case strings.Contains(rest, "using internal tuner instead"):
		delete(l.namedTuner, thread)
		if len(l.PluginUnused) < maxKept && l.once(seenKey{kind: 'U', a: host, b: named.name}) {
			l.PluginUnused = append(l.PluginUnused, PluginUnused{Host: host, Type: "TUNER", Name: named.name, Named: named.ev, Evidence: ev})
		}
	}
}
