package doctor

import "testing"

// "ring N does not loop back to start" is the ranks disagreeing on the
// rings (NVIDIA/nccl#520 under pdsh, #577 under srun, #879 with
// NCCL_HOSTID and no return codes): one finding per log, not one
// unexplained WARN per rank.
func TestRingDoesNotLoopBack(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-pdsh-prefix-ring-does-not-loop-back-p4d-nccl520.txt")
	nicMustFind(t, fs, "nccl.warn.error", Error, "rings that do not agree", "returned 3 (internal error)", "3 lines")
	if n := len(nicFind(fs, "nccl.warn.error")); n != 1 {
		t.Errorf("%d findings, want 1:\n%s", n, nicTitles(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.12.12-k8s-prefix-hostid-ring-does-not-loop-back-nccl879.txt")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "rings that do not agree", "card-16-final-4509-master-0")
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-srun-label-ring-does-not-loop-back-pytorch-internal-nccl577.txt")
	nicMustFind(t, fs, "nccl.warn.error", Error, "rings that do not agree", "ip-0A0C04E3")
}
