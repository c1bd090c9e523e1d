package doctor

import (
	"os"
	"path/filepath"
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

// The async events of NCCL 2.23 on: a port error in 2.23's and 2.28.9's
// words is an error on its device, and the GID table change, which 2.23-2.27
// print as "unknown event type (18)" and 2.28 on as "GID table changed", a
// warning that says NCCL only logs it; alone, before any device list, none
// of them is NET/IB failing to start. Before, the first, third and fourth
// were no finding at all (the last a fall back to sockets) and the second
// an info without its device. Synthetic lines in the format of
// ncclIbAsyncThreadMain at the tags named (NVIDIA/nccl).
func TestAsyncEventsOfRecentReleases(t *testing.T) {
	for _, c := range []struct {
		line string
		sev  Severity
		want string
	}{
		{"h1:1:2 [0] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_0:1 Got async error event: port error", Error, "'port error' on mlx5_0:1"},         // v2.23.4-1
		{"h1:1:2 [0] transport/net_ib.cc:253 NCCL WARN NET/IB : mlx5_3:1 Got non-fatal async event: port error(10)", Error, "'port error' on mlx5_3:1"}, // v2.28.9-1
		{"h1:1:2 [0] transport/net_ib.cc:204 NCCL WARN NET/IB : mlx5_2:1 unknown event type (18)", Warn, "'GID table change' on mlx5_2:1"},              // v2.27.7-1
		{"h1:1:2 [0] transport/net_ib/common.cc:153 NCCL WARN NET/IB : rocep1s0f1:1 GID table changed", Warn, "'GID table change' on rocep1s0f1:1"},     // v2.30.7-1
	} {
		log := filepath.Join(t.TempDir(), "async.log")
		if err := os.WriteFile(log, []byte(c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fs := Diagnose([]string{log}, nil, Options{}).Findings
		f := nicMustFind(t, fs, "nccl.ib.async_event", c.sev, c.want)
		if c.sev == Warn && !strings.Contains(f.Mechanism, "NCCL only logs the event") {
			t.Errorf("%s: mechanism %s", c.line, f.Mechanism)
		}
		nicMustNot(t, fs, "nccl.transport.socket_fallback")
		nicMustNot(t, fs, "nccl.warn.error")
	}
}

// Each of rdma-core's event names (ibv_event_type_str) is classed by what
// failed: only "local catastrophic error" (IBV_EVENT_DEVICE_FATAL) is the
// device; "local work queue catastrophic error" (IBV_EVENT_QP_FATAL) and
// "SRQ catastrophic error" (IBV_EVENT_SRQ_ERR) are a queue's. Before, every
// name holding "catastrophic" was told as the NIC failing, a card to
// replace.
func TestAsyncEventClassByRdmaCoreName(t *testing.T) {
	for name, want := range map[string]string{
		"local catastrophic error":                "the NIC reported a catastrophic error",
		"local work queue catastrophic error":     "a queue pair failed",
		"SRQ catastrophic error":                  "a queue pair failed",
		"invalid request local work queue error":  "a queue pair failed",
		"local access violation work queue error": "a queue pair failed",
		"CQ error":         "a queue pair failed",
		"WQ fatal":         "a queue pair failed",
		"port error":       "the port went down",
		"GID table change": "the GID table changed",
		"port active":      "an IB async event",
	} {
		if got := asyncEventClass(name).what; got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
}
