package doctor

import (
	"strings"
	"testing"
)

// NCCL 2.7.8's "Call to ibv_create_cq failed" carries no error
// (NVIDIA/nccl#380): the finding names the call alone, not "ibv_create_cq: "
// with nothing after it.
func TestAllocFailureWithoutReason(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.7.8-ibv-create-cq-failed-no-reason-roce-nccl380.txt")
	f := nicMustFind(t, fs, "nccl.ib.alloc_failed", Error, "A verbs resource could not be created (ibv_create_cq on spark01; 1 line)")
	if f.Evidence[0].Line != 15 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// A connection to the bootstrap listener that closed before sending NCCL's
// magic (NVIDIA/nccl#1612: a port scan, nmap -sT) fails init in NCCL
// before 2.27.3. Its error returns through four socket.cc lines before
// bootstrap.cc; the chain kept only those four, so the WARN read as a
// peer rank that died ("A peer closed its NCCL connection") and its fix
// sent the reader to the peer's logs.
func TestBootstrapProbeNotRankCrash(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-bootstrap-scanner-probe-closed-before-magic-nccl1612.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "port scan or probe")
	if !strings.Contains(f.Title, "through socket.cc:80, bootstrap.cc:701, init.cc:1402, group.cc:75") {
		t.Errorf("title %q", f.Title)
	}
	if !strings.Contains(f.Fix, "2.27.3") || strings.Contains(f.Title, "remote process exited") {
		t.Errorf("fix %q", f.Fix)
	}
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 || f.Evidence[0].Col != 5 {
		t.Errorf("evidence %v", f.Evidence)
	}
	// A socket closed later in the run, through the proxy, stays a peer
	// that died (NVIDIA/nccl#1235).
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.1x-cuda-out-of-memory-p2p-calloc-peer-closed-nccl1235.txt")
	for _, f := range fs {
		if strings.Contains(f.Title, "port scan") {
			t.Errorf("%s", f.Title)
		}
	}
}

// Open MPI's --timestamp-output runs ctime's date into the --tag-output
// tag ("Fri Aug 11 12:31:45 2023[1,0]<stdout>:", NVIDIA/nccl#957, NCCL
// 2.18.3): both are cut, so the host is tomte401, not "2023[1,0]<stdout>:
// tomte401", and the column is the NCCL line's. Its CUDACHECK WARN
// ("transport.cc:154 NCCL WARN Cuda failure 'invalid argument'") is the
// cause, its code the one the proxy thread's next WARN states ("res=3",
// "retcode 3"). Before, the log gave one info about two hosts named by
// the date and no finding of the failure.
func TestMPITimestampCudaFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.18.3-mpi-timestamp-output-cuda-invalid-argument-nccl957.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "A CUDA call NCCL made failed (Cuda failure 'invalid argument' in transport.cc:154): NCCL returned 3 (internal error) (on tomte401; 2 lines)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 2 || f.Evidence[0].Col != 39 || f.Evidence[1].Line != 7 {
		t.Errorf("evidence %v", f.Evidence)
	}
	nicMustNot(t, fs, "nccl.log.no_network_lines")
	if len(fs) != 1 {
		t.Errorf("%s", nicTitles(fs))
	}
}
