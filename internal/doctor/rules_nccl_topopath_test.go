package doctor

import (
	"strings"
	"testing"
)

// RCCL on an Azure MI300X VM (ROCm/rccl#1728): graph/paths.cc's "Failed to
// find reverse path" stops init with an internal error; the finding names
// the one-way link in the topology the driver and sysfs gave, not a WARN
// to read again.
func TestReversePathIsTheTopology(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/rccl-2.20.5-azure-mi300x-vf-topology-reverse-path-failed-socket-quoted-rccl1728.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "link without its way back", "returned 3 (internal error)", "on node-0")
	if !strings.Contains(f.Fix, "nvidia-smi topo -m") || !strings.Contains(f.Fix, "NCCL_TOPO_FILE") {
		t.Errorf("fix %q", f.Fix)
	}
}
