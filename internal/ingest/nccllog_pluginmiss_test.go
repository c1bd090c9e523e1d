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
