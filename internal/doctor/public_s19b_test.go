package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the nineteenth sweep's second pass: each was misread
// before its fix, and each test fails on the code before it.

// An nccl-tests output quoted with only its footer (aws/aws-k8s-tester
// #503, under mpirun's "[1,0]<stdout>:" prefix). Before, the file was "in
// no format rocelab recognises"; the average mixes every size of the
// sweep, so it is reported, not judged.
func TestNCCLTestsFooterOnly(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/footer-only-mpirun-stdout-prefix-avg-92GBps-awsk8stester503.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "only the footer was given: Avg bus bandwidth 92.34 GB/s (739 Gb/s)", "the plateau is at least that")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, fs, "nccltests.wrong")
}

// The footer of nccl-tests#37 without its "#", after a command line that
// sweeps one size (-b 4294967296 -e 4294967296): its average is that
// size's busbw, judged as a plateau, and its failed bound check is wrong
// data.
func TestNCCLTestsFooterOfOneSize(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/footer-no-hash-one-size-4GiB-allgather-v100-2-failed-nccltests37.txt")
	w := nicMustFind(t, fs, "nccltests.wrong", Error, "nccl-tests all_gather reports 2 out-of-bounds values")
	if w.Evidence[0].Line != 3 {
		t.Errorf("evidence %+v", w.Evidence)
	}
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "busbw plateau 128.94 GB/s", "at 4GiB-4GiB")
	if !strings.Contains(f.Mechanism, "its run measured one size (4GiB)") || f.Evidence[0].Line != 4 {
		t.Errorf("mechanism %s evidence %+v", f.Mechanism, f.Evidence)
	}
}

// aws-ofi-nccl's rail check pasted without NCCL's prefixes
// (NVIDIA/nccl#1913, NCCL 2.28.9 on P5): eight devices whose two ends
// disagree on their rail count, then nccl-tests stops on internal error.
// Before, the rail lines were read as INFO and the only finding sent the
// reader to NCCL_DEBUG=INFO.
func TestOFIRemoteRailsMismatch(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.9-ofi-remote-rails-mismatch-test-failure-no-host-nccl1913.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "The two ends of an aws-ofi-nccl connection have different rail counts", "8 lines")
	if len(f.Evidence) != 8 || f.Evidence[0].Line != 3 || !strings.Contains(f.Fix, "OFI_NCCL_FORCE_NUM_RAILS") || strings.Contains(f.Mechanism, "fallout") {
		t.Errorf("evidence %+v fix %s mechanism %s", f.Evidence, f.Fix, f.Mechanism)
	}
	failed := nicMustFind(t, fs, "nccltests.failed", Error, "all_reduce.cu:471")
	if !strings.Contains(failed.Fix, "nccl.warn.error") {
		t.Errorf("the failure's fix does not point at the WARN lines: %s", failed.Fix)
	}
	// The WARN with NCCL's prefix and aws-ofi-nccl's function for location
	// (the line aws-ofi-nccl#990 quotes, SYNTHETIC host and counts).
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h100-316:1747401:1751360 [3] accept_wait_for_connection(nccl_net_ofi_rdma_domain_t*, nccl_net_ofi_rdma_listen_comm_t*, nccl_net_ofi_rdma_recv_comm_t**):4909 NCCL WARN NET/OFI Unexpected number of remote rails for dev 3. Expected 4 but got 2")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "different rail counts", "on h100-316")
}
