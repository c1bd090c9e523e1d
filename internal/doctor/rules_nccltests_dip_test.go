package doctor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A GKE GPUDirect-TCPX all_reduce whose in-place half drops to 51.92 GB/s
// at 1 GiB between 85.77 and 88.45, its out-of-place half at 86.99: no
// rule said so (the plateau takes the better half, the fall rule wants
// the largest sizes low). The old DGX-2 all_gather's out-of-place half is
// below its in-place half at every size: no dip at one size.
func TestBusBWDipAtOneSize(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-tcpx-benchmark-wrapper-line-inplace-dip-1g-check-off.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.dip", Warn, "all_reduce in-place busbw dips to 51.92 GB/s at 1GiB, 61% of the 85.77 GB/s of the sizes on either side; the other half of that row ran at 86.99")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 18 || !strings.Contains(f.Fix, "-b 512MiB -e 2GiB -n 50") {
		t.Errorf("evidence %+v, fix %s", f.Evidence, f.Fix)
	}
	for _, name := range []string{
		"old-nccltests-dgx2-12gpu-g12-allgather-no-redop-error-1e00-4-failed-broadcast-root-only.txt",
		"allreduce-h200-2n-16g-roce-bf3-400g-datatype-all-485GBps-good.txt",
		"allgather-a3high-2n-tcpx-no-hash-check-off-50GBps-dstack.txt",
	} {
		nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/"+name), "nccltests.busbw.dip")
	}
}

// A synthetic sweep at 40 GB/s with one size lower in both halves: below
// 75% of its neighbours it is a dip, at 75% or above it is not; the same low value
// at the last size is a fall, not a dip.
func TestBusBWDipThreshold(t *testing.T) {
	row := func(size, count, bw string) string {
		return "  " + size + "  " + count + "     float     sum      -1   1000.0   " + bw + "   " + bw + "      0   1000.0   " + bw + "   " + bw + "      0\n"
	}
	table := func(mid, last string) string {
		return "# synthetic: all_reduce_perf rows, busbw 40 GB/s from 64 MiB\n" +
			"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
			row("67108864", "16777216", "40.00") + row("134217728", "33554432", "40.00") + row("268435456", "67108864", mid) +
			row("536870912", "134217728", "40.00") + row("1073741824", "268435456", last)
	}
	nicMustFind(t, diagnoseText(t, table("29.00", "40.00")).Findings, "nccltests.busbw.dip", Warn, "all_reduce busbw dips to 29.00 GB/s at 256MiB, 73% of the 40.00 GB/s of the sizes on either side; in both halves (the other ran at 29.00)")
	nicMustNot(t, diagnoseText(t, table("30.00", "40.00")).Findings, "nccltests.busbw.dip")
	nicMustNot(t, diagnoseText(t, table("40.00", "20.00")).Findings, "nccltests.busbw.dip")
}

// Four dipping sizes (eight halves) in one synthetic sweep, the worst (10 GB/s at 8 GiB) the
// last: the evidence, three rows at most, holds the row the title names.
func TestBusBWDipEvidenceNamesWorst(t *testing.T) {
	row := func(size int64, bw string) string {
		return "  " + strconv.FormatInt(size, 10) + "  " + strconv.FormatInt(size/4, 10) + "     float     sum      -1   1000.0   " + bw + "   " + bw + "      0   1000.0   " + bw + "   " + bw + "      0\n"
	}
	text := "# synthetic: all_reduce_perf rows, busbw 40 GB/s from 64 MiB, four dips\n" +
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	for i, bw := range []string{"40.00", "29.00", "40.00", "29.00", "40.00", "29.00", "40.00", "10.00", "40.00"} {
		text += row(64<<20<<i, bw)
	}
	f := nicMustFind(t, diagnoseText(t, text).Findings, "nccltests.busbw.dip", Warn, "dips to 10.00 GB/s at 8GiB", "(8 dips in all)")
	if !slices.ContainsFunc(f.Evidence, func(e Evidence) bool { return e.Line == 10 }) || len(f.Evidence) != 3 {
		t.Errorf("evidence %+v lacks the 8 GiB row (line 10)", f.Evidence)
	}
}

// OCI's 32-node GB200 all_reduce falls to 284.58 GB/s at 1 GiB in its
// out-of-place half and to 285.29 in its in-place half, between 411.01 at
// 512 MiB and 549.29 at 2 GiB: two halves timed over their own iterations
// dip alike, so the size (NCCL's plan for it) is the cause, not a passing
// event, and the fix asks for the tuning NCCL chose there first; the
// GKE TCPX in-place dip alone stays a transient.
func TestBusBWDipBothHalves(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-2.29.2-gb200-32n-128rank-two-racks-dip-1g-both-halves-684GBps-ocihpcoke.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.dip", Warn, "all_reduce busbw dips to 284.58 GB/s at 1GiB, 69% of the 411.01 GB/s of the sizes on either side; in both halves (the other ran at 285.29)")
	if strings.Contains(f.Title, "dips in all") || !strings.HasPrefix(f.Fix, "Rerun those sizes with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING (-b 512MiB -e 2GiB -n 50)") || !strings.Contains(f.Mechanism, "follow the size itself") {
		t.Errorf("title %q\nmechanism %s\nfix %s", f.Title, f.Mechanism, f.Fix)
	}
	g := nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-tcpx-benchmark-wrapper-line-inplace-dip-1g-check-off.txt"), "nccltests.busbw.dip", Warn, "in-place busbw dips")
	if !strings.HasPrefix(g.Fix, "Rerun the sizes around it with more iterations") {
		t.Errorf("one-half dip fix %s", g.Fix)
	}
}

// An alltoall on two hosts collapses from 28.12 GB/s at 8 MiB to 1-10
// GB/s between 16 MiB and 1 GiB (the stall rule's finding, a synthetic
// run); the 64 MiB in-place half at 1.03 between 2.81 and 1.50 is noise
// inside that collapse, not a dip at one size.
func TestBusBWDipNotInsideCollapse(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/alltoall-2n-16rank-collapse-16m-1g-inplace-low-inside-synthetic.txt")
	nicMustFind(t, fs, "nccltests.time.stall", Warn, "16MiB-")
	nicMustNot(t, fs, "nccltests.busbw.dip")
}

// A synthetic sweep at 40 GB/s where one smaller size ran at 80 (a single
// high reading): the sizes after it did not fall from a level, so a size
// at 29 between two at 40 is still a dip.
func TestBusBWDipAfterOneHighSize(t *testing.T) {
	row := func(size int64, bw string) string {
		return fmt.Sprintf("  %d  %d     float     sum      -1   1000.0   %s   %s      0   1000.0   %s   %s      0\n", size, size/4, bw, bw, bw, bw)
	}
	text := "# synthetic: all_reduce_perf rows, busbw 40 GB/s from 64 MiB, 80 at 128 MiB\n" +
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
		row(64<<20, "40.00") + row(128<<20, "80.00") + row(256<<20, "40.00") + row(512<<20, "29.00") + row(1<<30, "40.00") + row(2<<30, "40.00")
	nicMustFind(t, diagnoseText(t, text).Findings, "nccltests.busbw.dip", Warn, "busbw dips to 29.00 GB/s at 512MiB")
}
