package doctor

import (
	"os"
	"path/filepath"
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
// that failed: NCCL says so ("Bootstrap : no socket interface found") and
// returns ncclInvalidUsage (ncclInternalError through 2.23), never going on
// without an address. The fix is the interface name (or, only when
// NCCL_SOCKET_IFNAME is set, a container's network: unset, the search ends
// at lo), not routes or firewalls, nor the unique id's launcher.
func TestBootstrapNoInterface(t *testing.T) {
	for _, file := range []string{
		"pytorch-nccl-2.14.3-bootstrap-no-socket-interface-found-mambatree14.txt",
		"pytorch-distbackenderror-nccl-2.14.3-bootstrap-no-socket-interface-found-sigterm-mftcoder31.txt",
	} {
		f := nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/"+file), "nccl.warn.error", Error, "no network interface to bootstrap on")
		if !strings.Contains(f.Fix, "ip -br addr") || strings.Contains(f.Fix, "firewall") || strings.Contains(f.Fix, "MPI=1") || !strings.Contains(f.Fix, "falls back to lo") {
			t.Errorf("%s: fix %q", file, f.Fix)
		}
		if !strings.Contains(f.Mechanism, "ncclInvalidUsage") || !strings.Contains(f.Mechanism, "IFF_RUNNING") || strings.Contains(f.Mechanism, "without an address") {
			t.Errorf("%s: mechanism %q", file, f.Mechanism)
		}
		if !evidenceHas(f, "no socket interface found") {
			t.Errorf("%s: evidence %v", file, f.Evidence)
		}
	}
	// Synthetic: the settings echoed are evidence, the fix names them.
	rep := diagnoseText(t, "h1:7:7 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth2\nh1:7:7 [0] NCCL INFO NCCL_SOCKET_FAMILY set by environment to AF_INET\nh1:7:7 [0] NCCL INFO NCCL version 2.27.7+cuda12.9\nh1:7:7 [0] NCCL WARN Bootstrap : no socket interface found\nh1:7:7 [0] NCCL INFO init.cc:100 -> 5\n")
	f := nicMustFind(t, rep.Findings, "nccl.warn.error", Error, "no network interface to bootstrap on")
	if !evidenceHas(f, "NCCL_SOCKET_IFNAME set by environment to eth2") || !evidenceHas(f, "NCCL_SOCKET_FAMILY set by environment to AF_INET") {
		t.Errorf("evidence %v", f.Evidence)
	}
	if !strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME=eth2") || !strings.Contains(f.Fix, "--network=none") {
		t.Errorf("fix %q", f.Fix)
	}
}

// An address family that is no IP family through the bootstrap is a unique
// id this rank got that was never filled in (NVIDIA/nccl#1837, NCCL 2.27.7:
// family 59936). When NCCL_SOCKET_IFNAME was echoed and no line shows an
// interface found, the id's creator may have failed its interface search
// and the application ignored the error: a hint on that finding, which the
// class's own text must leave room for. A NET/Socket
// or NET/IB OOB "Using" line proves the search worked ("Bootstrap : Using" is
// under NCCL_DEBUG_SUBSYS=BOOTSTRAP from 2.23 on, "NCCL_SOCKET_IFNAME set to"
// under NET), and then there is no hint. The second and third logs are the
// first with one synthetic line added.
func TestBootstrapUniqueIDHint(t *testing.T) {
	const file = "corpus/nccl-log/nccl-2.27.7-socket-ifname-eth2-missing-family-59936-trainer-tags-nccl1837.txt"
	f := nicMustFind(t, diagnoseFiles(t, Options{}, file), "nccl.warn.error", Error, "bootstrap address this rank was given is no IP address")
	if !strings.Contains(f.Mechanism, "may have failed that search") || !strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME=eth2") || !evidenceHas(f, "set by environment to eth2") {
		t.Errorf("no hint at the id's creator: %q / %q / %v", f.Mechanism, f.Fix, f.Evidence)
	}
	// The class's own text leaves room for the creator's failure the hint
	// names: it does not say the id was never rank 0's.
	if strings.Contains(f.Mechanism, "not one rank 0 made") || !strings.Contains(f.Mechanism, "passed on unfilled") {
		t.Errorf("the mechanism contradicts the hint: %q", f.Mechanism)
	}
	text, err := os.ReadFile(filepath.Join("..", "..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	for _, found := range []string{
		"[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n",
		"[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n",
	} {
		rep := diagnoseText(t, found+string(text))
		f := nicMustFind(t, rep.Findings, "nccl.warn.error", Error, "bootstrap address this rank was given is no IP address")
		if strings.Contains(f.Mechanism, "may have failed that search") || strings.Contains(f.Title, "no network interface") {
			t.Errorf("hint though the search found an interface (%q): %q", found, f.Mechanism)
		}
	}
}

// "No usable listening interface found" is printed only with NCCL_COMM_ID
// set: the bootstrap then ignores NCCL_SOCKET_IFNAME and looks for a local
// interface on the subnet and in the family of NCCL_COMM_ID's address.
// Synthetic log.
func TestBootstrapCommIDSubnet(t *testing.T) {
	rep := diagnoseText(t, "h1:7:7 [0] NCCL INFO NCCL_COMM_ID set by environment to 192.168.5.1:29500\nh1:7:7 [0] NCCL INFO NCCL version 2.27.7+cuda12.9\nh1:7:7 [0] NCCL WARN NET/Socket : No usable listening interface found\nh1:7:7 [0] NCCL INFO init.cc:100 -> 2\n")
	f := nicMustFind(t, rep.Findings, "nccl.warn.error", Error, "subnet of NCCL_COMM_ID")
	if !strings.Contains(f.Fix, "NCCL_COMM_ID") || strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME") || !strings.Contains(f.Mechanism, "IPv6") || !evidenceHas(f, "192.168.5.1:29500") {
		t.Errorf("%q / %q / %v", f.Mechanism, f.Fix, f.Evidence)
	}
}
