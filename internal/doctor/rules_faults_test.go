package doctor

import "testing"

// mlnx-tools' show_counters of a ConnectX-4 Lx bond (Chinese RDMA notes):
// 3.29 M responder completion errors, 3.21 M of them flushes. Before, no
// finding named them.
func TestResponderCompletionErrors(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/hwcounters/show-counters-mlx5-bond-ecn-np-out-of-sequence-resp-cqe-flush-notes.txt")
	f := nicMustFind(t, fs, "counters.responder_errors", Info, "mlx5_bond_0 port 1: 3293504 receive work requests", "resp_cqe_flush_error 3211234")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 18 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "counters.retransmission", Info, "out_of_sequence 1811101")
}
