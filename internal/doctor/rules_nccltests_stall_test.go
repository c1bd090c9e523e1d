package doctor

import (
	"strings"
	"testing"
)

// An alltoall whose time sits near 0.1 s from 16 MiB to 2 GiB while 8 MiB
// took 0.29 ms (two hosts of eight ConnectX-8 through the Spectrum-X
// plugin): the sizes waited and the larger ones climb back to 34 GB/s, so
// it is a stall although no larger size is faster. NVIDIA/nccl#1453's
// table, whose rate stays low from 64 MiB on, is a rate, not a stall.
func TestNCCLTestsStallDip(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/alltoall-2.18.3-2n-16gpu-cx8-spcx-plugin-collapse-8m-1g-mpirun-help.txt")
	f := nicMustFind(t, fs, "nccltests.time.stall", Warn, "alltoall: 16MiB-512MiB took 10.60 ms-99.15 ms", "what the rate of the smaller 8MiB (0.29 ms) gives")
	if len(f.Evidence) != 7 {
		t.Errorf("evidence %d, want the 6 stalled rows and the 8MiB one", len(f.Evidence))
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/threads/allreduce-rank-tag-repeated-midline-nccl1453.txt"), "nccltests.time.stall")
}

// Sizes that take many times longer than a larger size are a stall, not a
// bandwidth figure: RCCL's all_gather on Slingshot (ROCm/rccl#1490) took
// 25-70 ms at 2-8 MiB against 1.06 ms at 16 MiB, which no finding named.
// A one-off in one half of a row (NVIDIA/nccl#1453's 2 MiB out-of-place)
// and a 4x inversion at 1 MiB in that table are not reported.
func TestNCCLTestsStall(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccl-allgather-stall-2m-8m-allreduce-srun-label-rccl1490.txt")
	f := nicMustFind(t, fs, "nccltests.time.stall", Warn, "all_gather: 2MiB-8MiB took 25.55 ms-70.25 ms", "1.06 ms of the larger 16MiB")
	if len(f.Evidence) != 4 || !strings.Contains(f.Fix, "-b 2MiB -e 8MiB") {
		t.Errorf("evidence %d fix %q", len(f.Evidence), f.Fix)
	}
	if got := nicFind(fs, "nccltests.time.stall"); len(got) != 1 {
		t.Errorf("%d stall findings, want 1 (the all_reduce table of the same file has none)", len(got))
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/threads/allreduce-rank-tag-repeated-midline-nccl1453.txt"), "nccltests.time.stall")
}
