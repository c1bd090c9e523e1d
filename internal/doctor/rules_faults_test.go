package doctor

import (
	"strings"
	"testing"
)

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
	// 21.3 G marks against 2.4 G RDMA WRITE requests: the requests bound
	// nothing, where the title called 885.8% "an upper bound of the
	// marked share".
	e := nicMustFind(t, fs, "counters.ecn.marking", Warn, "21278189006 marks outnumber the 2402134794 RDMA WRITE requests")
	if strings.Contains(e.Title, "upper bound") || strings.Contains(e.Mechanism, "bound the marked share from above") {
		t.Errorf("title %q mechanism %q", e.Title, e.Mechanism)
	}
}

// req_cqe_error without local ACK timeouts, counted since driver load, is
// not retries running out: a ConnectX-4 Lx host's show_counters in
// public notes (22 errors, no timeouts) was an error telling to find a
// dead path. A hang with ACK timeouts (NVIDIA/nccl#394) stays an error.
func TestReqCQEErrorWithoutTimeouts(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/cx4lx-4port-show-counters-req-cqe-error-no-ack-timeouts-notes.txt")
	f := nicMustFind(t, fs, "counters.retry_exceeded", Info, "22 work requests")
	if !strings.Contains(f.Mechanism, "since driver load") || strings.Contains(f.Fix, "dead path") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/threads/hwcounters-ecn-marks-beside-ack-timeouts-nccl394.txt")
	nicMustFind(t, fs, "counters.retry_exceeded", Error, "2 work requests")
}
