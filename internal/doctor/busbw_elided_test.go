package doctor

import "testing"

// OCI's page elides its 2 x 8 A100 run's rank lines to each host's first
// and last: read as 8 ranks a host, the run is set beside the usual
// fabric of 8-GPU A100 nodes instead of being called more NICs than shown.
func TestBusBWElidedRankLines(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/oci-b4.8-a100-2n-16rank-roce-1g-10g-step-bytes-nccl2.29.3-191GBps.txt")
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "191.22 GB/s", "102% of the ~188 GB/s of the usual fabric")
	// With the shape's 16 x 100G given, the A100s' PCIe Gen4 x16 caps it.
	fs = diagnoseFiles(t, Options{NICSpeed: 100e9, NICsPerNode: 16}, "corpus/nccl-tests/oci-b4.8-a100-2n-16rank-roce-1g-8g-footer-without-avg-line-190GBps.txt")
	nicMustFind(t, fs, "nccltests.busbw.ok", Info, "98% of what 100Gbps allows per rank (192.00 GB/s")
}
