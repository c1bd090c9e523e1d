package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// mlx5_ib's "Responder error cqe on cqn" lines were not recognised (exit
// 2); three flushes (syndrome 0x5) are a warning that names them.
func TestDmesgCQEErrors(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/dmesg-mlx5-poll-one-responder-error-cqe-syndrome-5-f9-nvmecli3268.txt")
	f := nicMustFind(t, fs, "dmesg.cqe_error", Warn, "3 completions with error", "rocep33s0f0 responder: work request flushed (syndrome 0x5, vendor 0xf9) ×3")
	if len(f.Evidence) != 2 || !strings.Contains(f.Mechanism, "every completion is a flush") {
		t.Errorf("evidence %v mechanism %s", f.Evidence, f.Mechanism)
	}
	// A retry-exceeded CQE is an error.
	res, err := ingest.Read("x", strings.NewReader("[1.0] infiniband mlx5_0: mlx5_poll_one:527:(pid 0): Requester error cqe on cqn 0x1:\n[1.0] infiniband mlx5_0: mlx5_poll_one:530:(pid 0): syndrome 0x15, vendor syndrome 0x81\n"))
	if err != nil || len(res.Artifacts) != 1 {
		t.Fatalf("artifacts %v", res.Artifacts)
	}
	d := res.Artifacts[0].(*ingest.Dmesg)
	if len(d.CQEErrors) != 1 || d.CQEErrors[0].Syndrome != 0x15 || d.CQEErrors[0].Vendor != 0x81 || d.CQEErrors[0].Side != "Requester" {
		t.Errorf("CQE errors %+v", d.CQEErrors)
	}
}
