package doctor

import (
	"strings"
	"testing"
)

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
// data. The command line runs one process with -g 8: its 8 ranks share
// one node, so no NIC is on the path.
func TestNCCLTestsFooterOfOneSize(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/footer-no-hash-one-size-4GiB-allgather-v100-2-failed-nccltests37.txt")
	w := nicMustFind(t, fs, "nccltests.wrong", Error, "nccl-tests all_gather reports 2 out-of-bounds values")
	if w.Evidence[0].Line != 3 {
		t.Errorf("evidence %+v", w.Evidence)
	}
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "busbw plateau 128.94 GB/s", "at 4GiB: all 8 ranks on one node")
	if !strings.Contains(f.Mechanism, "its run measured one size (4GiB)") || f.Evidence[0].Line != 4 {
		t.Errorf("mechanism %s evidence %+v", f.Mechanism, f.Evidence)
	}
}
