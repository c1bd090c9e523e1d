package doctor

import (
	"strings"
	"testing"
)

// RCCL's own host WARNs (ROCm/rccl#1261: automatic NUMA balancing on
// node01, no iommu=pt on both) were dropped: no return code follows
// them. They are reported as host settings, once each with the hosts,
// and are never taken for the process's first failure: the UCX plugin
// stays the one cause.
func TestHostConfigWarnings(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/rccl-2.18.3-ucx-plugin-bnxt_re-gdr-invalid-parameter-rccl1261.txt")
	if got := nicFind(fs, "nccl.host.config"); len(got) != 2 {
		t.Fatalf("nccl.host.config findings:\n%s", nicTitles(got))
	}
	f := nicMustFind(t, fs, "nccl.host.config", Warn, "automatic NUMA balancing is on", "on node01; 1 line")
	if !strings.Contains(f.Fix, "kernel.numa_balancing=0") {
		t.Errorf("fix %q", f.Fix)
	}
	nicMustFind(t, fs, "nccl.host.config", Warn, "lacks iommu=pt", "on node01, node02; 2 lines")
	nicMustFind(t, fs, "nccl.warn.error", Error, "net plugin failed (ucx_plugin.c:498)")
}

// A host WARN is never a failure's cause, even when an error is returned
// on its thread right after it (synthetic: the iommu WARN of rccl#1261,
// then a return code): it stays a host setting, and no nccl.warn.error
// names it.
func TestHostWarningNotACause(t *testing.T) {
	rep := diagnoseText(t, `node01:5646:5646 [0] /src/init.cc:136 NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!
node01:5646:5646 [0] NCCL INFO /src/init.cc:1200 -> 3
`)
	nicMustFind(t, rep.Findings, "nccl.host.config", Warn, "lacks iommu=pt")
	nicMustNot(t, rep.Findings, "nccl.warn.error")
}
