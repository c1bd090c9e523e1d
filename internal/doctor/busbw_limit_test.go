package doctor

import (
	"math"
	"strings"
	"testing"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
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
		return limitFor(r, nodes, share{ranks: ranks, nics: nics}, 0)
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

// More NICs than GPUs per node: a GPU keeps as many NICs busy as its PCIe
// link carries. OCI's BM.GPU4.8 (ocitutorials) has 16 100G ports for 8
// A100s, whose Gen4 x16 links each drive two: the limit is 16 × L, not the
// 8 × L of one NIC per GPU. At 200G an A100 drives one; a GPU the model
// does not know, or an unknown line rate, keeps one per GPU.
func TestLimitNICsPerGPU(t *testing.T) {
	run := func(gpu string) *ingest.TestRun {
		r := &ingest.TestRun{Collective: "all_reduce", RankCount: 16}
		for i := 0; i < 16; i++ {
			r.Ranks = append(r.Ranks, ingest.TestRank{Rank: i, GPU: gpu})
		}
		return r
	}
	a100, h100 := run("NVIDIA A100-SXM4-40GB"), run("NVIDIA H100 80GB HBM3")
	other := &ingest.TestRun{Collective: "all_reduce", RankCount: 16, Ranks: []ingest.TestRank{{GPU: "NVIDIA L40S"}}}
	for _, c := range []struct {
		r    *ingest.TestRun
		line unit.BitRate
		m    float64 // busbw cap in NIC line rates
	}{
		// OCI BM.GPU4.8 (8 A100, 16 × 100G): min(16 × 12.5, 8 × 24) = 192 GB/s.
		{a100, 100e9, 15.36},
		// 16 × 200G behind 8 A100s: 8 × 24 = 192 GB/s of 400.
		{a100, 200e9, 7.68},
		// OCI BM.GPU.H100.8 (8 H100, 16 × 200G): min(16 × 25, 8 × 48) = 384 GB/s.
		{h100, 200e9, 15.36},
		{a100, 0, 8}, {other, 100e9, 8},
	} {
		if l := limitFor(c.r, 2, share{ranks: 8, nics: 16}, c.line); math.Abs(l.m-c.m) > 1e-9 {
			t.Errorf("%s at %v: m %v, want %v (%s)", c.r.Ranks[0].GPU, c.line, l.m, c.m, l.model)
		}
	}
	// The PCIe cap holds whatever the NIC count: 8 A100s with 8 or 16
	// 400G NICs are both capped at 8 × 24 = 192 GB/s (adding NICs must not
	// lower the limit), and 8 H100s with eight 400G NICs at 8 × 48 = 384
	// GB/s, below the NICs' 400. Each NIC's load is busbw over the NIC
	// count, not over the fractional m.
	for _, c := range []struct {
		r    *ingest.TestRun
		nics int
		m    float64
	}{{a100, 8, 3.84}, {a100, 16, 3.84}, {h100, 8, 7.68}} {
		l := limitFor(c.r, 2, share{ranks: 8, nics: c.nics}, 400e9)
		if math.Abs(l.m-c.m) > 1e-9 {
			t.Errorf("%s with %d × 400G: m %v, want %v (%s)", c.r.Ranks[0].GPU, c.nics, l.m, c.m, l.model)
		}
		if got := l.perNIC(160); math.Abs(got-160/float64(c.nics)) > 1e-9 {
			t.Errorf("%s with %d NICs: per-NIC load %v, want busbw/%d", c.r.Ranks[0].GPU, c.nics, got, c.nics)
		}
	}
	fs := diagnoseFiles(t, Options{NICSpeed: 100e9, NICsPerNode: 16}, "corpus/nccl-tests/allreduce-a100-2n-16g-oci-bm-gpu4.8-16x100g-roce-10g-one-size-mpirun-prompt-223GBps-ocitutorials.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.ok", Info, "222.88 GB/s", "(192.00 GB/s, 15.36 × one NIC's line rate)")
	if !strings.Contains(f.Mechanism, "1.92 × one NIC's line rate") || !strings.Contains(f.Mechanism, "PCIe Gen4 x16") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

// MI300X and MI325X reach their NICs over PCIe Gen5 x16, 48 GB/s in
// RCCL's topology model: 2 x 8 MI300X on 8 x 400G at 356 GB/s is 93% of
// the 384 GB/s that allows, not 89% of eight NICs' 400.
func TestBusBWMI300XPCIeCap(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 400e9, NICsPerNode: 8}, "corpus/nccl-tests/rccl-mi300x-2n-16g-roce-8nic-allreduce-357GBps.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.ok", Info, "93% of what 400Gbps allows per rank (384.00 GB/s")
	if !strings.Contains(f.Mechanism, "about what a 400Gbps NIC delivers, 48-49 GB/s: the NIC binds, not the link") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}
