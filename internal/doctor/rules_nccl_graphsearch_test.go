package doctor

import (
	"strings"
	"testing"
)

// graph/search.cc's fallback WARN on every rank of two hosts
// (NVIDIA/nccl#487) is one warning for the pattern, naming it; before, no
// finding read it. Beside a real failure (NVIDIA/nccl-tests#287) it stays
// a warning of its own and the failure keeps its cause.
func TestGraphSearchFallback(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-search-cc-no-path-for-pattern-4-fallback-simple-order-2-hosts-nccl487.txt")
	f := nicMustFind(t, fs, "nccl.graph.search_fallback", Warn, "pattern 4 (the ring's)", "on node0021, node0014; 11 lines")
	if !strings.Contains(f.Fix, "NCCL_TOPO_DUMP_FILE") {
		t.Errorf("fix %q", f.Fix)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.25.1-rtx5090-maxsharedmem-exceeds-launch-invalid-argument-nccltests287.txt")
	nicMustFind(t, fs, "nccl.graph.search_fallback", Warn, "pattern 1 (the balanced tree's)")
	nicMustFind(t, fs, "nccl.warn.error", Error, "more shared memory than this GPU gives a block")
	if _, ok := searchFallbackPattern("Could not find a path for pattern x, falling back to simple order"); ok {
		t.Error("a pattern that is no number read")
	}
}
