package doctor

import (
	"strings"
	"testing"
)

// "Call to ibv_get_async_event failed" after "Got async event : local
// catastrophic error" (NVIDIA/nccl#230) is NCCL's async thread losing the
// dead device's event channel. Before, it was a queue-pair setup failure
// whose fix was the GID index.
func TestAsyncEventChannelLostFollowsCatastrophe(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.4-async-local-catastrophic-then-get-async-event-failed-mpirun-timestamps-nccl230.txt")
	nicMustNot(t, fs, "nccl.ib.qp_setup_failed")
	f := nicMustFind(t, fs, "nccl.ib.async_event", Error, "'local catastrophic error'", "(3 lines)")
	if len(f.Evidence) != 4 || !strings.Contains(f.Mechanism, "ibv_get_async_event") {
		t.Errorf("evidence %+v mechanism %s", f.Evidence, f.Mechanism)
	}
	if len(fs) != 1 {
		t.Errorf("want one finding:\n%s", nicTitles(fs))
	}
}
