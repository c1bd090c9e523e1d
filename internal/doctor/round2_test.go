package doctor

import (
	"strings"
	"testing"
)

// Tests of issue 9's classes of what fell short ("second round"). Each
// names its class; real text sits under testdata/corpus with its source,
// synthetic text is written here and says so.

// Class 1 and 2, real text (multus-cni#1100): GID indices set with export
// lines, two pods' show_gids tables of the same device in one paste. The
// tables are kept apart, so the RoCEv2 row at index 5 in one and 7 in the
// other is a mismatch with the value for each, and each exported value is
// joined with a table.
func TestClass1And2TwoPodsExport(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/threads/show-gids-two-pods-export-gid5-7-multus1100.txt")
	m := nicMustFind(t, fs, "gid.index.mismatch", Warn, "5 on mlx5_4 (table 1", "7 on mlx5_4 (table 2")
	if !strings.Contains(m.Fix, "NCCL_IB_GID_INDEX=5 on mlx5_4 (table 1") || !strings.Contains(m.Fix, "NCCL_IB_GID_INDEX=7 on mlx5_4 (table 2") {
		t.Errorf("fix does not give each pod its value: %s", m.Fix)
	}
	if !strings.Contains(m.Mechanism, "5 (") || !strings.Contains(m.Mechanism, "7 (") {
		t.Errorf("mechanism does not cite the exported values: %s", m.Mechanism)
	}
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "GID index 5", "set by export")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "GID index 7", "set by export")
}
