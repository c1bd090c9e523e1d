package doctor

import (
	"strings"
	"testing"
)

// nccl-tests#350's gather holds ~22 GB/s to 6 GB and then halves: before,
// only its low plateau was reported, as if the fabric never carried more.
// #256's VM run climbs to 57.78 GB/s and ends at 54.97, within the
// noise: no fall.
func TestBusBWFallsAtLargestSizes(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/gather-2.16.5-a100-roce25g-ib200g-mixed-list-channels-ib1-drop-6g-nccltests350.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.falls", Warn, "gather busbw falls as the message grows: 23.12 GB/s at 384MiB, 11.69 GB/s (median) at 4GiB-10880MiB, 51% of its peak, below 75% of it from 6GiB on")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 67 || f.Evidence[1].Line != 73 || f.Evidence[2].Line != 76 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	if !strings.Contains(f.Fix, "-b 384MiB -e 10880MiB") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustFind(t, fs, "nccltests.busbw.low", Error)
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-h200-2n-16g-kvm-vm-passthrough-27GBps-erratic-nccltests256.txt"), "nccltests.busbw.falls")
}

// A synthetic sweep: a fall of more than a quarter is reported, exactly a
// quarter or less is not.
func TestBusBWFallsThreshold(t *testing.T) {
	table := func(last string) string {
		row := func(size, count, bw string) string {
			return "  " + size + "  " + count + "     float     sum      -1   1000.0   " + bw + "   " + bw + "      0   1000.0   " + bw + "   " + bw + "      0\n"
		}
		return "# synthetic: all_reduce_perf rows, busbw 40 GB/s to 256 MiB\n" +
			"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
			row("67108864", "16777216", "40.00") + row("134217728", "33554432", "40.00") + row("268435456", "67108864", "40.00") +
			row("536870912", "134217728", last) + row("1073741824", "268435456", last) + row("2147483648", "536870912", last)
	}
	nicMustFind(t, diagnoseText(t, table("29.00")).Findings, "nccltests.busbw.falls", Warn, "40.00 GB/s at 64MiB, 29.00 GB/s (median) at 512MiB-2GiB, 73% of its peak, below 75% of it from 512MiB on")
	nicMustNot(t, diagnoseText(t, table("30.00")).Findings, "nccltests.busbw.falls")
	nicMustNot(t, diagnoseText(t, table("31.00")).Findings, "nccltests.busbw.falls")
}

// nccl#1453's all_reduce reaches 29.5 GB/s at 32 MiB and runs at ~5 GB/s
// from 64 MiB on: a peak held to the plateau's 64 MiB floor found none, so
// only the low plateau was told. Below that floor a fall counts past half
// of the peak: nccl-tests#319's 60 GB/s at 16 MiB against 44 from 4 GiB
// (74%, the protocol of mid sizes) stays unreported.
func TestBusBWFallsFromBelowThePlateauFloor(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/allreduce-rank-tag-repeated-midline-nccl1453.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.falls", Warn, "nccl-tests table busbw falls as the message grows: 29.50 GB/s at 32MiB, 5.30 GB/s (median) at 128MiB-512MiB, 18% of its peak, below 50% of it from 64MiB on")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 22 || f.Evidence[1].Line != 23 || f.Evidence[2].Line != 26 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-h100-2n-8nic-ib400g-ring-rdma-plugin-qps64-44GBps-nccltests319.txt"), "nccltests.busbw.falls")
}
