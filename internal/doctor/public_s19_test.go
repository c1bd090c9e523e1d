package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the nineteenth sweep: each was misread before its fix, and
// each test fails on the code before it.

// An ungrouped ncclSend on both ranks (NVIDIA/nccl#2057, NCCL 2.29.2 over
// NET/Socket): the socket transport reads a peer handle with address
// family 1 and returns internal error through net_socket.cc. Before, the
// line was read as a bootstrap unique id no rank 0 made, and the fix sent
// the reader to MPI=1 and the launcher.
func TestSocketTransportFamilyIsUngroupedSendRecv(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.29.2-socket-ungrouped-send-family-1-net-socket-nccl2057.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "socket transport was handed a peer address that is no IP address", "returned 3 (internal error) through net_socket.cc:399")
	if !strings.Contains(f.Fix, "ncclGroupStart") || f.Evidence[0].Line != 48 {
		t.Errorf("fix or evidence: %s %+v", f.Fix, f.Evidence)
	}
	for _, f := range fs {
		if strings.Contains(f.Title, "bootstrap address") {
			t.Errorf("the transport's connect is called a bootstrap failure: %s", f.Title)
		}
	}
}
