package doctor

import (
	"strings"
	"testing"
)

// NCCL 2.30.7 failing to fit a window into its symmetric address space
// (NVIDIA/nccl#2331, real lines) is told as the window space used up, with
// the sizes, not as an unread WARN.
func TestSymmetricSpaceUsedUp(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.30.7-symmetric-va-exhausted-allocator-warn-function-names-rank-only-prefix-nccl2331.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "symmetric window address space is used up", "133.8 GiB", "180.0 GiB")
	if !strings.Contains(f.Fix, "ncclCommWindowDeregister") || !strings.Contains(f.Fix, "NCCL_WIN_STRIDE") {
		t.Errorf("fix %q", f.Fix)
	}
}

// SYNTHETIC lines carrying NCCL 2.30.7's exact WARN and INFO texts
// (src/gin/gin_host.cc, src/dev_runtime.cc, src/ras/ras.cc, init.cc) in its
// "file:line (func)" form, and one case in 2.29's form (marked): each
// is named by its cause, and a refused device communicator takes its reason
// from the INFO line that says why symmetric memory is off.
func TestDeviceAPIWarnsNamed(t *testing.T) {
	const p = "gpu1:11:12 [0] "
	cases := []struct {
		lines []string
		want  []string
	}{
		{[]string{p + "NCCL INFO Symmetric memory is not supported. cuMemEnable 0, globalGinSupport 0, cuMemGdrSupport 1",
			p + "dev_runtime.cc:1523 (ncclDevCommCreate) NCCL WARN Communicator does not support symmetric memory!",
			p + "NCCL INFO dev_runtime.cc:1530 (ncclDevCommCreate) -> 5"},
			[]string{"no symmetric memory", "cuMem (CUDA VMM) is off", "GIN is not available"}},
		// One NVLink domain (nNodes 1) with cuMem on: GIN is not what
		// turned symmetric memory off.
		{[]string{p + "NCCL INFO comm 0x5581 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0",
			p + "NCCL INFO Symmetric memory is not supported. cuMemEnable 1, globalGinSupport 0, cuMemGdrSupport 1",
			p + "dev_runtime.cc:1523 (ncclDevCommCreate) NCCL WARN Communicator does not support symmetric memory!"},
			[]string{"one NVLink domain", "CUDA P2P is missing between some pair of GPUs or NCCL_WIN_ENABLE=0"}},
		// NCCL 2.29.2-2.30.4's INFO text with globalNicFused, and that
		// release's WARN without the function name.
		{[]string{p + "NCCL INFO comm 0x5581 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
			p + "NCCL INFO Symmetric memory is not supported. cuMemEnable 1, globalGinSupport 0, globalNicFused 1 cuMemGdrSupport 1",
			p + "dev_runtime.cc:1523 NCCL WARN Communicator does not support symmetric memory!"},
			[]string{"merged virtual NIC (globalNicFused 1"}},
		{[]string{p + "gin/gin_host.cc:86 (ncclGinConnectOnce) NCCL WARN GIN is disabled."}, []string{"NCCL_GIN_ENABLE=0"}},
		{[]string{p + "gin/gin_host.cc:92 (ncclGinConnectOnce) NCCL WARN GIN not supported."}, []string{"no GIN plugin"}},
		{[]string{p + "dev_runtime.cc:1126 (ncclDevrCommCreateInternal) NCCL WARN User requested GIN but not all ranks in the communicator support GIN"}, []string{"not every rank"}},
		{[]string{p + "dev_runtime.cc:1131 (ncclDevrCommCreateInternal) NCCL WARN User requested GIN connection type NCCL_GIN_CONNECTION_FULL but the communicator supports only NCCL_GIN_CONNECTION_RAIL"}, []string{"NCCL_CROSS_NIC=0"}},
		{[]string{p + "dev_runtime.cc:881 (symMemoryRegisterLocal) NCCL WARN Window address must be suitably aligned."}, []string{"alignment"}},
		{[]string{p + "ras/ras.cc:415 (rasMsgHandleConnInit) NCCL WARN NCCL version mismatch with remote peer 10.0.0.2<43211> (local: 2.30.7, remote 2.29.7)"}, []string{"different NCCL versions", "remote 2.29.7"}},
	}
	for _, c := range cases {
		rep := diagnoseText(t, strings.Join(c.lines, "\n")+"\n")
		got := nicFind(rep.Findings, "nccl.warn.error", c.want...)
		if len(got) == 0 {
			t.Errorf("%q: no finding with %q; got:\n%s", c.lines[len(c.lines)-1], c.want, nicTitles(rep.Findings))
		} else if len(got[0].Evidence) < min(2, len(c.lines)) || got[0].Fix == "" {
			t.Errorf("%q: evidence %v fix %q", c.lines, got[0].Evidence, got[0].Fix)
		}
	}
}

// RAS's version WARN and the hosts' differing version lines tell one
// cause: the WARN is nccl.version.mismatch's evidence, not a second
// finding (synthetic lines after ras.cc).
func TestRASVersionFoldsIntoMismatch(t *testing.T) {
	fs := synthFindings(t, Options{}, "# synthetic",
		"node1:1000:1000 [0] NCCL INFO NCCL version 2.28.3+cuda12.9",
		"node2:2000:2000 [0] NCCL INFO NCCL version 2.27.7+cuda12.9",
		"node1:1000:1090 [0] ras/ras.cc:500 NCCL WARN NCCL version mismatch with remote peer node2<10.0.0.2:41234> (local 22803, remote 22707)")
	f := nicMustFind(t, fs, "nccl.version.mismatch", Warn, "2.28.3 on node1, 2.27.7 on node2")
	if !cites(f, "<stdin>", 4) || !strings.Contains(f.Mechanism, "RAS thread saw it too") {
		t.Errorf("evidence %v mechanism %s", f.Evidence, f.Mechanism)
	}
	for _, f := range fs {
		if f.ID == "nccl.warn.error" {
			t.Errorf("RAS's WARN told twice: %s", f.Title)
		}
	}
}
