package doctor

import "testing"

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
