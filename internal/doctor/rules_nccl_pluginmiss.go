package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// pluginMissing reports each plugin a setting named that NCCL's loader did
// not find, told by the name it tried. NCCL 2.27's loader
// (src/plugin/plugin_open.cc) opens a NCCL_<TYPE>_PLUGIN value that starts
// with "lib" and ends in ".so" as it is, and turns any other value into
// libnccl-<type>-<value>.so; 2.27.5 and later open a value with a "/" as
// a path. dlopen looks a name without "/" up on the library search path
// only: LD_LIBRARY_PATH, the ld.so cache and the system directories, not
// the current directory.
func pluginMissing(logs []*ingest.NCCLLog) []Finding {
	var fs []Finding
	for _, l := range logs {
		for _, m := range l.PluginMisses {
			typ := strings.ToLower(m.Type)
			env := "NCCL_" + m.Type + "_PLUGIN"
			name := m.Names[0]
			prefix := "libnccl-" + typ + "-"
			var why, fix string
			switch short, isShort := strings.CutPrefix(name, prefix); {
			case isShort && strings.ContainsRune(short, '/'):
				why = fmt.Sprintf("%s held a path, which this NCCL read as a short name: a value that does not start with \"lib\" and end in \".so\" becomes %s<value>.so, a file name that cannot exist (NCCL 2.27.3 and earlier; 2.27.5 and later open a value with a \"/\" as a path, NVIDIA/nccl#1732).", env, prefix)
				fix = fmt.Sprintf("Set %s to the file's name (lib....so) and put its directory on LD_LIBRARY_PATH on every rank, or use NCCL 2.27.5 or later with an absolute path.", env)
			case strings.ContainsRune(name, '/'):
				why = fmt.Sprintf("%s named a path, and no file is there on this host.", env)
				fix = fmt.Sprintf("Install the plugin at that path on every host (a container needs it in its image or a mount), or point %s at where it is.", env)
			default:
				why = fmt.Sprintf("dlopen looks a name without a \"/\" up on the library search path only (LD_LIBRARY_PATH, the ld.so cache, the system directories), not in the current directory, and found no %s there", name)
				if isShort {
					why += fmt.Sprintf(" (%s held a short name, which NCCL turns into %s<name>.so)", env, prefix)
				}
				why += "."
				fix = fmt.Sprintf("Put the plugin's directory on LD_LIBRARY_PATH on every rank (or give %s its absolute path, NCCL 2.27.5 and later).", env)
			}
			fs = append(fs, Finding{
				ID: "nccl.plugin.not_found", Severity: Info, Layer: LayerNCCL,
				Title:     fmt.Sprintf("NCCL found no %s plugin %s%s; it ran without it", typ, name, onHosts(realHosts([]string{m.Host}))),
				Evidence:  []Evidence{m.Evidence},
				Mechanism: "NCCL's plugin loader tried " + strings.Join(m.Names, ", ") + " for " + env + " and found none: " + why + " " + pluginWithout(m.Type),
				Fix:       fix,
			})
		}
	}
	return fs
}

// pluginWithout says what NCCL does without a plugin of its type.
func pluginWithout(typ string) string {
	switch typ {
	case "NET":
		return "NCCL then uses its own IB or socket transport."
	case "TUNER":
		return "NCCL then uses its internal tuner."
	case "PROFILER":
		return "The job runs, unprofiled: the profiler's events were not recorded."
	}
	return "The job runs without it."
}

// pluginUnused reports each tuner or profiler library NCCL opened but
// took no entry point from (ingest.PluginUnused): NCCL_TUNER_PLUGIN naming
// a library without the ncclTunerPlugin_vN symbols NCCL's tuner loader
// looks up, newest first, after which NCCL tunes with its internal model;
// a profiler library without ncclProfiler_vN, after which NCCL runs
// unprofiled.
func pluginUnused(logs []*ingest.NCCLLog) []Finding {
	var fs []Finding
	for _, l := range logs {
		for _, u := range l.PluginUnused {
			if u.Type == "PROFILER" {
				fs = append(fs, profilerUnused(u))
				continue
			}
			typ := strings.ToLower(u.Type)
			named := fmt.Sprintf("NCCL_%s_PLUGIN's %s", u.Type, u.Name)
			if !u.Setting {
				named = fmt.Sprintf("The %s library %s", typ, u.Name)
			}
			ev := []Evidence{u.Named, u.Evidence}
			if u.Named.Line == u.Evidence.Line {
				ev = ev[1:]
			}
			fs = append(fs, Finding{
				ID: "nccl.plugin.no_symbol", Severity: Info, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s holds no %s NCCL reads%s; NCCL used its internal %s", named, typ, onHosts(realHosts([]string{u.Host})), typ),
				Evidence:  ev,
				Mechanism: fmt.Sprintf("NCCL's loader opened %s and looked up the ncclTunerPlugin_vN symbols of the tuner interfaces this release reads, newest first; the library exports none of them, so NCCL's own cost model chose each collective's algorithm and protocol. Either the library is no tuner (a net plugin's library, which holds ncclNetPlugin_vN symbols only, unless it also carries a tuner, as aws-ofi-nccl's does) or it is a tuner built for an interface version this NCCL does not read. The job runs; only the plugin's tuning is missing.", u.Name),
				Fix:       fmt.Sprintf("Check the library's symbols (`nm -D %s | grep ncclTunerPlugin`): point NCCL_%s_PLUGIN at a tuner built against this NCCL's tuner interface, or unset it (or remove the library from the search path) if no tuner was meant.", u.Name, u.Type),
			})
		}
	}
	return fs
}

// profilerUnused reports a profiler library NCCL opened without finding
// a profiler in it: NCCL_PROFILER_PLUGIN's, or the file NCCL found under
// the default name (2.23-2.27 print no name for it).
func profilerUnused(u ingest.PluginUnused) Finding {
	named, opened := "The library NCCL found under the profiler's default name, libnccl-profiler.so,", "the default libnccl-profiler.so on the library search path (NCCL_PROFILER_PLUGIN unset)"
	fix := "Check the file's symbols (`nm -D <library> | grep ncclProfiler`) and remove it from the library search path if no profiling was meant (NCCL's 'Could not find: libnccl-profiler.so' line when none is there is harmless), or put a profiler built against this NCCL's profiler interface there."
	switch {
	case u.Setting:
		named, opened = fmt.Sprintf("NCCL_PROFILER_PLUGIN's %s", u.Name), fmt.Sprintf("%s, which NCCL_PROFILER_PLUGIN named", u.Name)
		fix = fmt.Sprintf("Check the library's symbols (`nm -D %s | grep ncclProfiler`): point NCCL_PROFILER_PLUGIN at a profiler built against this NCCL's profiler interface, or unset it if no profiling was meant.", u.Name)
	case u.Name != "":
		named, opened = fmt.Sprintf("The profiler library %s, found under the default name,", u.Name), fmt.Sprintf("%s, found under the default name libnccl-profiler.so (NCCL_PROFILER_PLUGIN unset)", u.Name)
	}
	ev := []Evidence{u.Named, u.Evidence}
	if u.Named.Line == u.Evidence.Line {
		ev = ev[1:]
	}
	return Finding{
		ID: "nccl.plugin.no_symbol", Severity: Info, Layer: LayerNCCL,
		Title:     fmt.Sprintf("%s holds no profiler NCCL reads%s; NCCL ran without a profiler", named, onHosts(realHosts([]string{u.Host}))),
		Evidence:  ev,
		Mechanism: fmt.Sprintf("NCCL's profiler loader opened %s and looked up the ncclProfiler_vN symbols of the profiler interfaces this release reads, newest first down to v1; the library exports none of them, so NCCL runs without a profiler and records no profiler events. Either the file is no profiler (another library under the profiler's name, as when NCCL's own libraries are copied in to silence the loader's 'Could not find' line: gpustack/gpustack#3067) or it is a profiler built for an interface this NCCL does not read. The job and its network are unaffected; only the profiling is missing.", opened),
		Fix:       fix,
	}
}
