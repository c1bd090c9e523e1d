package doctor

import (
	"fmt"
	"testing"
)

// One half of a row far slower than the other is a stalled pass, which the
// busbw judgement (the better half) hides: NVIDIA/nccl#1453's 2 MiB
// out-of-place pass took 2325 us against 417 us in place (a warn: a
// hiccup of milliseconds), and a synthetic run like the twin's pause storm
// with the PFC watchdog on took 2158350 us against 10868 us, the RC ACK
// timeout (an error). One rank's in-place no-op (0 us) and nccl-tests'
// ordinary spread between the halves are none.
func TestNCCLTestsPassStalled(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/allreduce-rank-tag-repeated-midline-nccl1453.txt")
	nicMustFind(t, fs, "nccltests.pass.stalled", Warn, "at 2MiB the out-of-place pass took 2325 us, 6× the other's 417 us (1.9 ms more per iteration on average; 1 size)")

	rep := diagnoseText(t, `# nccl-tests synthetic: 4 servers x 8 GPUs, -n 2, a pause storm the PFC watchdog breaks by dropping
#  Rank  0 Group  0 Pid  10000 on      node0 device  0 [0000:07:00] NVIDIA A100-SXM4-80GB
#  Rank  8 Group  0 Pid  10001 on      node1 device  0 [0000:07:00] NVIDIA A100-SXM4-80GB
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
    16777216       4194304     float     sum      -1   2801.2    5.99   11.60       0   2790.4    6.01   11.65       0
    67108864      16777216     float     sum      -1  2158350    0.03    0.06       0  10868.3    6.17   11.96       0
`)
	nicMustFind(t, rep.Findings, "nccltests.pass.stalled", Error, "at 64MiB the out-of-place pass took 2158350 us, 199× the other's 10868 us (2.15 s more per iteration on average; 1 size)")

	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-efa-blog-1rank-inplace-algbw-overflow-columns.txt"), "nccltests.pass.stalled")
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt"), "nccltests.pass.stalled")
}

// stallTable is a SYNTHETIC nccl-tests all_reduce table of eight sizes,
// both halves at 100 us plus the size's share at 20 GB/s, with the
// out-of-place and in-place times of row slow (0-based) replaced.
func stallTable(slow int, out, in float64) []string {
	lines := []string{
		"# synthetic: nccl-tests all_reduce_perf table, one row's half stalled",
		"#                                                              out-of-place                       in-place          ",
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
	}
	for i := range 8 {
		size := 1 << (20 + i)
		o := 100 + float64(size)/20e3
		n := o
		if i == slow {
			o, n = out, in
		}
		bw := func(t float64) float64 { return float64(size) / t / 1e3 }
		lines = append(lines, fmt.Sprintf("%12d  %12d     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0",
			size, size/4, o, bw(o), bw(o)*2*7/8, n, bw(n), bw(n)*2*7/8))
	}
	return append(lines, "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 10.0 ", "#")
}

// The first row's out-of-place half is the run's first collective: a
// slow one there is warm-up (connection setup nccl-tests' -w did not
// cover), not a stall. Before, a 25 ms first call raised
// nccltests.pass.stalled.
func TestStalledPassFirstRowWarmUp(t *testing.T) {
	fs := synthFindings(t, Options{}, stallTable(0, 25000, 152.4)...)
	nicMustNot(t, fs, "nccltests.pass.stalled")
	// The same stall on a later row, or on the first row's in-place half,
	// is one.
	fs = synthFindings(t, Options{}, stallTable(3, 25000, 519.3)...)
	nicMustFind(t, fs, "nccltests.pass.stalled", Warn, "at 8MiB the out-of-place pass took 25000 us")
	fs = synthFindings(t, Options{}, stallTable(0, 152.4, 25000)...)
	nicMustFind(t, fs, "nccltests.pass.stalled", Warn, "at 1MiB the in-place pass took 25000 us")
}
