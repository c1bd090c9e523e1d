package doctor

import (
	"math"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// nccl-tests' busbw judged against the limit of its collective and topology,
// stated in the finding. SYNTHETIC table (4 hosts x 8 GPUs, busbw 6 GB/s)
// beside the real NCCL lines of nccl-tests#29 (one IB NIC per host): ring
// AllReduce is capped by the host's NIC (12.5 GB/s at 100G), not by an
// eighth of it, so 6 GB/s is low, not "above the limit".
func TestBusBWLimitOneNICPerHost(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 100e9},
		"synthetic/allreduce-4x8-one-nic-per-host-6GBps-synthetic.txt",
		"corpus/threads/nccl-socket-lines-beside-netib-nccltests29.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.low", Error, "48%", "12.50 GB/s")
	if !strings.Contains(f.Mechanism, "Limit used: all_reduce") || !strings.Contains(f.Mechanism, "1 NIC per node") {
		t.Errorf("limit not stated: %s", f.Mechanism)
	}
	nicMustNot(t, fs, "nccltests.busbw.ok")
	// The model's numbers per collective.
	two := func(coll string, ranks, nics, nodes int) busbwLimit {
		r := &ingest.TestRun{Collective: coll, RankCount: ranks * nodes}
		return limitFor(r, nodes, share{ranks: ranks, nics: nics})
	}
	for _, c := range []struct {
		coll               string
		ranks, nics, nodes int
		m                  float64
		lower, off         bool
	}{
		{"all_reduce", 8, 8, 4, 8, false, false},      // eight NICs per node: 8 x L
		{"all_reduce", 8, 1, 4, 1, false, false},      // one NIC behind eight GPUs: L
		{"all_reduce", 1, 4, 2, 1, false, false},      // one GPU drives one NIC's worth (nccl-tests#232)
		{"all_gather", 8, 0, 2, 1, true, false},       // NICs unknown: one assumed, a lower bound
		{"alltoall", 8, 8, 2, 15.0 / 8, false, false}, // (k/G)(n-1)/(n-G) = 1 x 15/8
		{"alltoall", 8, 1, 4, 31.0 / 8 / 24, false, false},
		{"scatter", 8, 8, 2, 15.0 / 8, false, false},
		{"sendrecv", 4, 1, 2, 1, false, false},
		{"all_reduce", 8, 8, 1, 0, false, true}, // one node: no NIC on the path
	} {
		l := two(c.coll, c.ranks, c.nics, c.nodes)
		if l.offNode != c.off || !c.off && (math.Abs(l.m-c.m) > 1e-9 || l.lowerBound != c.lower || l.model == "") {
			t.Errorf("%s %dx%d NICs %d: m %.4f lower %v off %v (%s), want %.4f %v %v", c.coll, c.nodes, c.ranks, c.nics, l.m, l.lowerBound, l.offNode, l.model, c.m, c.lower, c.off)
		}
	}
}
