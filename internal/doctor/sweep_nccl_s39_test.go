package doctor

import (
	"strings"
	"testing"
)

// ncclLogFindingsS39 is what the doctor finds in each of the real NCCL logs
// taken from public threads in session 39 (testdata/corpus/nccl-log; each
// file names its source), chosen for bootstrap and RoCE failures not read
// before: every finding's id and severity, sorted.
var ncclLogFindingsS39 = []struct{ file, want string }{
	{"nccl-2.27.7-socket-ifname-eth2-missing-family-59936-trainer-tags-nccl1837.txt", "nccl.warn.error:error"},
	{"pytorch-nccl-2.14.3-bootstrap-no-socket-interface-found-mambatree14.txt", "nccl.warn.error:error"},
	{"pytorch-distbackenderror-nccl-2.14.3-bootstrap-no-socket-interface-found-sigterm-mftcoder31.txt", "nccl.warn.error:error"},
}

func TestNCCLLogCorpusFindingsS39(t *testing.T) { checkLogFindings(t, ncclLogFindingsS39) }

// An interface search that matched nothing is no connection between hosts
// that failed: NCCL said so ("Bootstrap : no socket interface found"), or
// a release that went on printed an unset address's family after
// NCCL_SOCKET_IFNAME was echoed and no "Bootstrap : Using" line
// (NVIDIA/nccl#1837, where an application printed NCCL's error string and
// last error without PyTorch's "NCCL error in:" line). The fix is the
// interface name, not routes or firewalls, nor the unique id's launcher.
func TestBootstrapNoInterface(t *testing.T) {
	for _, c := range []struct{ file, ev string }{
		{"nccl-2.27.7-socket-ifname-eth2-missing-family-59936-trainer-tags-nccl1837.txt", "set by environment to eth2"},
		{"pytorch-nccl-2.14.3-bootstrap-no-socket-interface-found-mambatree14.txt", "no socket interface found"},
		{"pytorch-distbackenderror-nccl-2.14.3-bootstrap-no-socket-interface-found-sigterm-mftcoder31.txt", "no socket interface found"},
	} {
		fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/"+c.file)
		f := nicMustFind(t, fs, "nccl.warn.error", Error, "no network interface to bootstrap on")
		if !strings.Contains(f.Fix, "ip -br addr") || strings.Contains(f.Fix, "firewall") || strings.Contains(f.Fix, "MPI=1") {
			t.Errorf("%s: fix %q", c.file, f.Fix)
		}
		if !evidenceHas(f, c.ev) {
			t.Errorf("%s: evidence lacks %q: %v", c.file, c.ev, f.Evidence)
		}
	}
	if f := nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.27.7-socket-ifname-eth2-missing-family-59936-trainer-tags-nccl1837.txt"), "nccl.warn.error", Error); !strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME=eth2") {
		t.Errorf("fix does not name the setting: %q", f.Fix)
	}
}
