package doctor

import (
	"os"
	"strings"
	"testing"
)

// Two DGX Sparks whose second port has no IP address: NCCL addresses its
// queue pairs from GID 0 (fe80::). The rings connected and the all_gather
// ran: a warning (it works on one L2 segment), not an error. With a
// completion error on the host it stays an error.
func TestLinkLocalConnectedIsWarn(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, sparkLog)
	for _, f := range nicFind(fs, "gid.index.link_local") {
		if f.Severity != Warn || !strings.Contains(f.Mechanism, "rings connected and no queue pair failed") {
			t.Errorf("%s: %v %s", f.Title, f.Severity, f.Mechanism)
		}
	}
	if n := len(nicFind(fs, "gid.index.link_local")); n != 2 {
		t.Errorf("%d link-local findings, want one per host", n)
	}
	b, err := os.ReadFile(nicTestdata(sparkLog))
	if err != nil {
		t.Fatal(err)
	}
	failed := string(b) + "spark-4440:24302:24310 [0] transport/net_ib.cc:2472 NCCL WARN NET/IB: Got completion from peer 192.168.100.15<40000> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fe80::4ebb:47ff:fe2f:4446 remoteGid fe80::4ebb:47ff:fe2f:fb9d hca roceP2p1s0f1\n" // synthetic
	fs = Diagnose([]string{"-"}, strings.NewReader(failed), Options{}).Findings
	nicMustFind(t, fs, "gid.index.link_local", Error, "spark-4440")
}
