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

// Async events: the port error on node 48 is named beside the retry
// failure of the peer that talked to it; a QP fatal event is an error; an
// IPv6-only GID table and an address on two netdevs give the index NCCL
// should use.
func TestAsyncEventsAndGIDs(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-async-port-error-old-completion-format-litllama380.txt")
	f := find(fs, "nccl.ib.async_event")
	if f == nil || f.Severity != Error || !strings.Contains(f.Title, "'port error'") || !strings.Contains(f.Title, "8 lines") || find(fs, "nccl.ib.retry_exceeded") == nil {
		t.Errorf("port error and retry exceeded: %v", ids(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.21.5-double-timestamp-status4-vendor83-async-fatal-nccl1905.txt")
	if f := find(fs, "nccl.ib.async_event"); f == nil || !strings.Contains(f.Title, "mlx5_ib0:1") || !strings.Contains(f.Mechanism, "GPUDirect") {
		t.Errorf("QP fatal event: %v", ids(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/threads/show-gids-ipv6-only-rocep-amd-mi355-mooncake1617.txt")
	if f := find(fs, "gid.index.roce_v2"); f == nil || !strings.Contains(f.Title, "index 1") || !strings.Contains(f.Mechanism, "no IPv4 GID") {
		t.Errorf("IPv6-only table: %v", ids(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/threads/show-gids-bond-vxlan-same-ipv4-at-2-3-and-4-5-ucx9484.txt")
	if f := find(fs, "gid.index.roce_v2"); f == nil || !strings.Contains(f.Title, "index 5") {
		t.Errorf("address on bond1 and a VXLAN netdev: %v", ids(fs))
	}
}
