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
