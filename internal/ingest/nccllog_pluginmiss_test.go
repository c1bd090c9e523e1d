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
// unused when its thread then falls back to the internal tuner (the 2.23
// form of uccl-project/uccl#172), not when the thread takes a tuner from
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
