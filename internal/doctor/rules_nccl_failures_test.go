package doctor

import "testing"

// NCCL 2.7.8's "Call to ibv_create_cq failed" carries no error
// (NVIDIA/nccl#380): the finding names the call alone, not "ibv_create_cq: "
// with nothing after it.
func TestAllocFailureWithoutReason(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.7.8-ibv-create-cq-failed-no-reason-roce-nccl380.txt")
	f := nicMustFind(t, fs, "nccl.ib.alloc_failed", Error, "A verbs resource could not be created (ibv_create_cq on spark01; 1 line)")
	if f.Evidence[0].Line != 15 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}
