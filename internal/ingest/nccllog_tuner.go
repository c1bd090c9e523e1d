package ingest

import "strings"

// PluginUnused is a tuner or profiler library NCCL's loader opened but
// found no entry point in (for a profiler, profilerUnused): NCCL went on
// without it. A tuner's thread tuned with NCCL's internal model; NCCL
// prints it in three forms: 2.19-2.20's single line "Tuner: failed to find
// ncclTunerPlugin_v1 in plugin (X), using default tuner instead."
// (src/misc/tuner.cc); 2.21-2.27's "TUNER/Plugin: Plugin name set by env
// to X" then "Failed to find ncclTunerPlugin_v2 symbol, using internal
// tuner instead." (src/misc/tuner.cc, from 2.26 src/plugin/tuner/); 2.28
// on, "External tuner plugin X is unsupported" (src/plugin/tuner.cc).
//
// 2.21-2.25 also print "Plugin name set by env to" for the library
// NCCL_NET_PLUGIN named, which they search for a tuner packed with the net
// plugin when NCCL_TUNER_PLUGIN names none (or none found): a net plugin
// without a tuner is then no finding (uccl-project/uccl#172). Those
// releases print "TUNER/Plugin: NCCL_TUNER_PLUGIN set to X" first when
// the setting is there; without that line, a library a NET/Plugin line
// named or a log of 2.21-2.25 is such a search.
type PluginUnused struct {
	Host string
	Type string // "TUNER" or "PROFILER"
	Name string // the library as NCCL printed it; "" when not printed
	// Setting is whether NCCL_TUNER_PLUGIN (NCCL_PROFILER_PLUGIN) named
	// the library; 2.28 on also report a default libnccl-tuner.so (or
	// libnccl-profiler.so) found without one.
	Setting  bool
	Named    Evidence // the line naming the library
	Evidence Evidence // the line saying NCCL went on without it
}

// tunerLoad is what a thread printed of its tuner loading so far.
type tunerLoad struct {
	setting   string // NCCL_TUNER_PLUGIN's value, as its line printed it
	settingEv Evidence
	name      string // the library "Plugin name set by env to" names
	nameEv    Evidence
}

// tunerChoice follows a thread's tuner loading through the lines of the
// release forms PluginUnused describes, and the net plugin libraries
// NET/Plugin lines name.
func (l *NCCLLog) tunerChoice(thread, host, msg string, ev Evidence) {
	if lib, ok := strings.CutPrefix(msg, "NET/Plugin: Plugin name set by env to "); ok {
		if lib = strings.TrimSpace(lib); lib != "" && len(l.netLibs) < maxDistinct {
			l.netLibs[strings.Clone(lib)] = true
		}
		return
	}
	if v, ok := tunerSetting(msg); ok {
		if len(l.tuners) < maxDistinct || l.tuners[thread] != nil {
			l.tuners[strings.Clone(thread)] = &tunerLoad{setting: strings.Clone(v), settingEv: ev}
		}
		return
	}
	t := l.tuners[thread]
	lib, ok := cutAround(msg, "External tuner plugin ", " is unsupported")
	if !ok {
		lib, ok = cutAround(msg, "Tuner: failed to find ncclTunerPlugin_v1 in plugin (", "), using default tuner instead.")
	}
	if ok {
		if t != nil && t.setting != "" {
			l.tunerUnused(host, lib, true, t.settingEv, ev)
		} else {
			l.tunerUnused(host, lib, false, ev, ev)
		}
		return
	}
	rest, ok := strings.CutPrefix(msg, "TUNER/Plugin: ")
	if !ok {
		return
	}
	if lib, ok := strings.CutPrefix(rest, "Plugin name set by env to "); ok {
		if lib = strings.TrimSpace(lib); lib == "" {
			return
		}
		if t == nil {
			if len(l.tuners) >= maxDistinct {
				return
			}
			t = &tunerLoad{}
			l.tuners[strings.Clone(thread)] = t
		}
		t.name, t.nameEv = strings.Clone(lib), ev
		return
	}
	if t == nil || t.name == "" {
		return
	}
	switch {
	case strings.HasPrefix(rest, "Using "):
		delete(l.tuners, thread)
	case strings.Contains(rest, "using internal tuner instead"):
		delete(l.tuners, thread)
		if l.tunerNamedBySetting(t) {
			l.tunerUnused(host, t.name, true, t.nameEv, ev)
		}
	}
}

// tunerNamedBySetting reports whether the library a 2.21-2.27 thread's
// "Plugin name set by env to" line named is NCCL_TUNER_PLUGIN's (the
// setting's value or libnccl-tuner-<value>.so), not the net plugin's
// library 2.21-2.25 search for a packed tuner.
func (l *NCCLLog) tunerNamedBySetting(t *tunerLoad) bool {
	if t.setting != "" {
		return t.name == t.setting || t.name == "libnccl-tuner-"+t.setting+".so"
	}
	if l.netLibs[t.name] {
		return false
	}
	late, known := l.AnyVersionAtLeast(2, 26)
	return late || !known
}

// tunerUnused keeps a tuner library NCCL went on without, once per host
// and library: setting says NCCL_TUNER_PLUGIN named it, named is the line
// naming it, ev the line saying NCCL went on without it.
func (l *NCCLLog) tunerUnused(host, lib string, setting bool, named, ev Evidence) {
	lib = strings.TrimSpace(lib)
	if lib == "" || len(l.PluginUnused) >= maxKept || !l.once(seenKey{kind: 'U', a: host, b: lib}) {
		return
	}
	l.PluginUnused = append(l.PluginUnused, PluginUnused{Host: host, Type: "TUNER", Name: strings.Clone(lib), Setting: setting, Named: named, Evidence: ev})
}

// tunerSetting reads the line NCCL prints for NCCL_TUNER_PLUGIN: 2.19-2.20's
// "NCCL_TUNER_PLUGIN set to X", 2.21-2.25's with a "TUNER/Plugin: " tag,
// 2.28 on "NCCL_TUNER_PLUGIN set by environment to X".
func tunerSetting(msg string) (string, bool) {
	msg = strings.TrimPrefix(msg, "TUNER/Plugin: ")
	for _, p := range []string{"NCCL_TUNER_PLUGIN set to ", "NCCL_TUNER_PLUGIN set by environment to "} {
		if v, ok := strings.CutPrefix(msg, p); ok {
			v = strings.TrimSpace(v)
			return v, v != ""
		}
	}
	return "", false
}

// cutAround returns what msg holds between prefix and suffix.
func cutAround(msg, prefix, suffix string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, prefix)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(strings.TrimSpace(rest), strings.TrimSpace(suffix))
}
