package ingest

import (
	"slices"
	"testing"
)

// NCCL's plugin loader's "Could not find:" lines (src/plugin/plugin_open.cc,
// 2.27 and 2.28 forms; synthetic lines in the shape of NVIDIA/nccl#1732's)
// are kept when a setting named the plugin, not for the default name.
func TestPluginMiss(t *testing.T) {
	const p = "h1:11:12 [0] NCCL INFO "
	l := parseLog(t, p+"PROFILER/Plugin: Could not find: libnccl-profiler-./libx.so.so.\n"+
		p+"TUNER/Plugin: Could not find: libnccl-tuner-foo.so. Using internal tuner plugin.\n"+
		p+"NET/Plugin: Could not find: libnccl-net.so.\n"+
		p+"PROFILER/Plugin: Could not find: libnccl-profiler.so\n"+
		p+"TUNER/Plugin: Could not find: libnccl-tuner.so libnccl-net.so. Using internal tuner plugin.\n"+
		p+"NET/Plugin: Could not find: libnccl-net-none.so. \n"+
		p+"PROFILER/Plugin: Could not find: libnccl-profiler-./libx.so.so.\n")
	var got []string
	for _, m := range l.PluginMisses {
		got = append(got, m.Type+" "+m.Names[0])
	}
	if want := []string{"PROFILER libnccl-profiler-./libx.so.so", "TUNER libnccl-tuner-foo.so"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A tuner library NCCL_TUNER_PLUGIN named and NCCL opened is kept as
// unused when its thread then falls back to the internal tuner (2.26-2.27
// print the name for the setting only; this log prints no version and no
// NET/Plugin line naming the library), not when the thread takes a tuner from
// it (aws-ofi-nccl's "Using tuner plugin nccl_ofi_tuner"), nor when no
// setting named one (the default name's fallback). Synthetic lines in
// those threads' shapes; two threads interleave.
func TestTunerNamedButUnused(t *testing.T) {
	const a, b, c = "h1:11:12 [0] NCCL INFO TUNER/Plugin: ", "h1:13:14 [1] NCCL INFO TUNER/Plugin: ", "h2:15:16 [0] NCCL INFO TUNER/Plugin: "
	l := parseLog(t, a+"Plugin name set by env to /opt/x/libnccl-net-x.so\n"+
		b+"Plugin name set by env to libnccl-net.so\n"+
		a+"Failed to find ncclTunerPlugin_v3 symbol.\n"+
		b+"Failed to find ncclTunerPlugin_v4 symbol.\n"+
		b+"Using tuner plugin nccl_ofi_tuner\n"+
		a+"Failed to find ncclTunerPlugin_v2 symbol, using internal tuner instead.\n"+
		c+"Could not find: libnccl-tuner.so. Using internal tuner plugin.\n"+
		c+"Failed to find ncclTunerPlugin_v2 symbol, using internal tuner instead.\n"+
		a+"Plugin name set by env to /opt/x/libnccl-net-x.so\n"+
		a+"Failed to find ncclTunerPlugin_v2 symbol, using internal tuner instead.\n")
	if len(l.PluginUnused) != 1 {
		t.Fatalf("got %+v, want one", l.PluginUnused)
	}
	u := l.PluginUnused[0]
	if u.Host != "h1" || u.Type != "TUNER" || u.Name != "/opt/x/libnccl-net-x.so" || u.Named.Line != 1 || u.Evidence.Line != 6 {
		t.Errorf("got %+v", u)
	}
}

// The tuner loader's forms across releases (synthetic lines in the shapes
// of src/misc/tuner.cc v2.19.3-1 and v2.23.4-1, src/plugin/tuner.cc
// v2.29.7-1): 2.21-2.25 name NCCL_NET_PLUGIN's library in "Plugin name set
// by env to" when they search it for a packed tuner, with no
// NCCL_TUNER_PLUGIN line before (none kept), or after NCCL_TUNER_PLUGIN's
// own library was not found (none kept); the setting's own library, or its
// libnccl-tuner-<value>.so, is kept. 2.19-2.20's one-line form and 2.28's
// "External tuner plugin X is unsupported" are kept, the latter naming
// the setting only when its thread printed the setting's line.
func TestTunerUnusedAcrossReleases(t *testing.T) {
	const v23, v29 = "h1:1:1 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n", "h1:1:1 [0] NCCL INFO NCCL version 2.29.7+cuda13.0\n"
	const tp = "h1:1:2 [0] NCCL INFO TUNER/Plugin: "
	const no = tp + "Failed to find ncclTunerPlugin_v3 symbol.\n" + tp + "Failed to find ncclTunerPlugin_v2 symbol, using internal tuner instead.\n"
	for _, c := range []struct {
		name, text, want string
		setting          bool
		named            int
	}{
		{"2.23 net plugin searched, no setting", v23 + tp + "Plugin name set by env to /w/libnccl-net-uccl.so\n" + no, "", false, 0},
		{"net plugin searched, no version", "h2:1:1 [0] NCCL INFO NET/Plugin: Plugin name set by env to /w/libnccl-net-uccl.so\n" + tp + "Plugin name set by env to /w/libnccl-net-uccl.so\n" + no, "", false, 0},
		{"2.23 setting not found, net plugin searched", v23 + tp + "NCCL_TUNER_PLUGIN set to foo\n" + tp + "Plugin name set by env to libnccl-net-x.so\n" + no, "", false, 0},
		{"2.23 setting's libnccl-tuner-foo.so", v23 + tp + "NCCL_TUNER_PLUGIN set to foo\n" + tp + "Plugin name set by env to libnccl-tuner-foo.so\n" + no, "libnccl-tuner-foo.so", true, 3},
		{"2.23 setting's path", v23 + tp + "NCCL_TUNER_PLUGIN set to /w/libnccl-net-uccl.so\n" + tp + "Plugin name set by env to /w/libnccl-net-uccl.so\n" + no, "/w/libnccl-net-uccl.so", true, 3},
		{"2.19", "h1:1:2 [0] NCCL INFO NCCL_TUNER_PLUGIN set to /w/libt.so\nh1:1:2 [0] NCCL INFO Tuner: failed to find ncclTunerPlugin_v1 in plugin (/w/libt.so), using default tuner instead.\n", "/w/libt.so", true, 1},
		{"2.29 setting", v29 + "h1:1:2 [0] NCCL INFO NCCL_TUNER_PLUGIN set by environment to /w/libt.so\nh1:1:2 [0] NCCL INFO External tuner plugin /w/libt.so is unsupported\n", "/w/libt.so", true, 2},
		{"2.29 default library", v29 + "h1:1:2 [0] NCCL INFO External tuner plugin /usr/lib/libnccl-tuner.so is unsupported\n", "/usr/lib/libnccl-tuner.so", false, 2},
		{"2.29 loaded", v29 + "h1:1:2 [0] NCCL INFO NCCL_TUNER_PLUGIN set by environment to /w/libt.so\nh1:1:2 [0] NCCL INFO TUNER/Plugin: Using t (v5)\nh1:1:2 [0] NCCL INFO Successfully loaded external tuner plugin /w/libt.so\n", "", false, 0},
	} {
		l := parseLog(t, c.text)
		var got string
		if len(l.PluginUnused) > 0 {
			got = l.PluginUnused[0].Name
		}
		if got != c.want || len(l.PluginUnused) > 1 {
			t.Errorf("%s: got %+v, want %q", c.name, l.PluginUnused, c.want)
			continue
		}
		if u := l.PluginUnused; len(u) == 1 && (u[0].Setting != c.setting || u[0].Named.Line != c.named) {
			t.Errorf("%s: got setting %v named at line %d, want %v at %d", c.name, u[0].Setting, u[0].Named.Line, c.setting, c.named)
		}
	}
}
