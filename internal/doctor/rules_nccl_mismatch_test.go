package doctor

import (
	"strings"
	"testing"
)

// The WARNs of ranks out of step name the calls, never the network: NET/IB's
// "collective mismatch error" (NCCL 2.14.3 under a pdsh prefix that is an
// address, NVIDIA/nccl#969), NET/Socket's "message truncated" set in
// Markdown bold (2.4.7, #268) or without its host prefix and wrapped
// (2.10.3, #626), and 2.4's own "Mismatched collective detected" (#296).
// Before, #969 was a transport failure at init (a socket fallback) and
// the three others gave no finding at all.
func TestMismatchedCallsWarns(t *testing.T) {
	for _, c := range []struct {
		file  string
		sev   Severity
		frags []string
		line  int
	}{
		{"nccl-2.14.3-pdsh-ip-prefix-ib-collective-mismatch-nccl969.txt", Error, []string{"did not make the same NCCL calls", "collective mismatch error", "returned 5 (invalid usage)", "so-ucloud-10-10-23-10"}, 2},
		{"nccl-2.4.7-markdown-bold-socket-message-truncated-nccl268.txt", Warn, []string{"did not make the same NCCL calls", "instead of 32768)", "on hvd1"}, 3},
		{"nccl-2.10.3-bare-warn-socket-message-truncated-wrapped-nccl626.txt", Warn, []string{"did not make the same NCCL calls", "message truncated"}, 2},
		{"nccl-2.4.8-bare-warn-mismatched-collective-nccl296.txt", Warn, []string{"did not make the same NCCL calls", "around rank 39"}, 3},
	} {
		t.Run(c.file, func(t *testing.T) {
			fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/"+c.file)
			f := nicMustFind(t, fs, "nccl.warn.error", c.sev, c.frags...)
			if f.Evidence[0].Line != c.line {
				t.Errorf("evidence at line %d, want %d", f.Evidence[0].Line, c.line)
			}
			if !strings.Contains(f.Mechanism, "not a network fault") || !strings.Contains(f.Fix, "NCCL_DEBUG_SUBSYS=COLL") {
				t.Errorf("mechanism or fix does not say the calls differ:\n%s\n%s", f.Mechanism, f.Fix)
			}
			nicMustNot(t, fs, "nccl.transport.socket_fallback")
		})
	}
}

// A bootstrap message of another size than expected (NCCL 2.19.4 under
// srun --label, NVIDIA/nccl#1176, intermittent at init and gone with
// 2.18.6) is two ranks out of step in setup; before, it was called a
// failed bootstrap connection, whose fix (NCCL_SOCKET_IFNAME) cannot help.
func TestBootstrapMessageTruncated(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.19.4-srun-label-bootstrap-message-truncated-nccl1176.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "bootstrap messages crossed", "received 256 bytes instead of 4", "returned 3 (internal error) through bootstrap.cc:554")
	if e := f.Evidence[0]; e.Line != 2 || e.Col != 4 {
		t.Errorf("evidence at %d:%d, want 2:4 (after srun's label)", e.Line, e.Col)
	}
	if strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME") || !strings.Contains(f.Fix, "same NCCL") {
		t.Errorf("fix is the bootstrap connection's, not the versions': %s", f.Fix)
	}
}
