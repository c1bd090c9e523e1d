package doctor

import "testing"

// nccl#1435: all_gather on two GPUs of one node, out-of-place 13% below
// in-place at every plateau size (a copy of the rank's own chunk), not a
// dip at one size.
func TestBusBWHalvesApart(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allgather-1n-g2-bfloat16-16m-step-inplace-15pct-above-outofplace-nccl1435.txt")
	nicMustFind(t, fs, "nccltests.busbw.halves", Info, "all_gather out-of-place busbw runs 13% below in-place on every plateau row (141.46 against 162.46 GB/s, 11 rows from 736MiB)")
	nicMustNot(t, fs, "nccltests.busbw.dip")
	// Healthy multi-node runs keep their halves together.
	for _, name := range []string{"rccl-mi300x-2n-16g-roce-8nic-allreduce-357GBps.txt", "allreduce-h200-2n-16g-roce-bf3-400g-datatype-all-485GBps-good.txt"} {
		nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/"+name), "nccltests.busbw.halves")
	}
}

// A synthetic plateau of three sizes with in-place at 80%: a gap at
// every row is reported, one row at 80% is not (a dip's, if anything),
// and 91% everywhere is noise.
func TestBusBWHalvesThreshold(t *testing.T) {
	row := func(size, count, out, in string) string {
		return "  " + size + "  " + count + "     float     sum      -1   1000.0   " + out + "   " + out + "      0   1000.0   " + in + "   " + in + "      0\n"
	}
	table := func(in1, in2, in3 string) string {
		return "# synthetic: all_reduce_perf rows, out-of-place busbw 40 GB/s from 1 GiB\n" +
			"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
			row("1073741824", "268435456", "40.00", in1) + row("2147483648", "536870912", "40.00", in2) + row("4294967296", "1073741824", "40.00", in3)
	}
	nicMustFind(t, diagnoseText(t, table("32.00", "32.00", "32.00")).Findings, "nccltests.busbw.halves", Info, "in-place busbw runs 20% below out-of-place on every plateau row (32.00 against 40.00 GB/s")
	nicMustNot(t, diagnoseText(t, table("32.00", "40.00", "32.00")).Findings, "nccltests.busbw.halves")
	nicMustNot(t, diagnoseText(t, table("36.40", "36.40", "36.40")).Findings, "nccltests.busbw.halves")
}
