package doctor

import "testing"

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
