package doctor

import (
	"os"
	"path/filepath"
	"testing"
)

// NCCL logs of the twenty-fifth sweep: each test on a real excerpt fails
// on the code before its fix.

// A job's ranks often come as one file per host. NCCL before 2.2x prints
// its version without a prefix; in a file whose lines name one host it is
// that host's (real: NVIDIA/nccl#1129's node08 on 2.7.8), so a second
// host's file on another version (SYNTHETIC, h2 on 2.21.5) is a version
// mismatch across the two. Before, the bare version had no host and the
// mismatch was not found.
func TestVersionMismatchAcrossHostFiles(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "h2.log")
	if err := os.WriteFile(other, []byte("# synthetic\nh2:20:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := Diagnose([]string{nicTestdata("corpus/nccl-log/nccl-2.7.8-docker-ib-bare-version-one-host-nccl1129.txt"), other}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccl.version.mismatch", Warn, "2.7.8 on node08", "2.21.5 on h2")
}
