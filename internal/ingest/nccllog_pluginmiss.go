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
