package doctor

import (
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// The tail of a 2-GPU all_reduce_perf on one host (NVIDIA/nccl#1706: the
// 4-GPU run hung until NCCL_NVLS_ENABLE=0), its rank lines not pasted:
// rocelab judged the 25.88 GB/s plateau as a network figure awaiting the
// NIC speed. NCCL's "comm ... rank 0 nranks 2" and "rank 1 nranks 2"
// lines, both from host deepseek, show the job never left that node.
func TestOneHostHoldsEveryRank(t *testing.T) {
	rel := "corpus/nccl-tests/nccltests-tail-destroy-complete-one-host-2-ranks-nvls-hang-nccl1706.txt"
	var l *ingest.NCCLLog
	for _, a := range nicReadArtifacts(t, rel) {
		if x, ok := a.(*ingest.NCCLLog); ok {
			l = x
		}
	}
	if h, ev, ok := l.Comm.SingleHost(); !ok || h != "deepseek" || ev.Line != 4 {
		t.Fatalf("single host %q line %d ok %v", h, ev.Line, ok)
	}
	f := nicMustFind(t, diagnoseFiles(t, Options{}, rel), "nccltests.busbw.unjudged", Info, "25.88 GB/s", "host deepseek prints both ranks of the communicator", "no NIC is on its path")
	if !strings.Contains(f.Mechanism, "NVLink or PCIe") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	// SYNTHETIC: ranks of one communicator on two hosts are no single host.
	res, err := ingest.Read("two", strings.NewReader("a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId f000 - Destroy COMPLETE\nb:1:1 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 busId f000 - Destroy COMPLETE\n"))
	if err != nil || len(res.Artifacts) != 1 {
		t.Fatal(err, res)
	}
	if h, _, ok := res.Artifacts[0].(*ingest.NCCLLog).Comm.SingleHost(); ok {
		t.Errorf("two hosts read as one: %q", h)
	}
}

// nccl-tests 2.13.6's all_gather on one RTX 4090 (NixOS/nixpkgs#251856):
// busbw 0.00, an in-place algbw of 619657 GB/s. rocelab said only that
// 32MiB was too small to judge; one rank measures no transport at all.
func TestOneRankRun(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccltests-2.13.6-one-rank-all-gather-busbw-zero-rtx4090-nixpkgs251856.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "all_gather ran on one rank (nixos-desktop device 0)", "busbw is 0 by definition")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 5 || f.Evidence[1].Line != 10 {
		t.Errorf("evidence %v", f.Evidence)
	}
	nicMustNot(t, fs, "nccltests.sizes.small")
}

// #wrong above a million is printed with %g ("1.04858e+06"); those nine
// sizes of an in-network-compute plugin's run counted no wrong element.
func TestNCCLTestsWrongExponent(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-rtx3090-2n-inc-plugin-wrong-float-exponent-108-failed.txt")
	nicMustFind(t, fs, "nccltests.wrong", Error, "1073741424 wrong elements in 27 sizes")
}

// Without rank lines an alltoall's share of off-node data is unknown: the
// MI355X tables of OCI's guide were said to have 'no NIC on their path'.
// Their count column gives 16 and 32 ranks, but not how many share a
// node: the finding names the ranks, and a NIC speed does not make the
// limit model guess one rank per node (it judged 86.68 GB/s against
// 50 GB/s, L·(n−1)/(n−G) with G=1).
func TestAlltoallRanksUnknown(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccl-mi355x-pollara400-2n-4n-allreduce-alltoall-no-rank-lines-oci.txt")
	for _, f := range nicFind(fs, "nccltests.busbw.unjudged") {
		if strings.Contains(f.Title, "no NIC is on its path") {
			t.Errorf("judged on one node: %s", f.Title)
		}
	}
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "alltoall per-rank busbw plateau 86.68 GB/s", "not judged: its 16 ranks' nodes are unknown")
	fs = diagnoseFiles(t, Options{NICSpeed: 400e9}, "corpus/nccl-tests/rccl-mi355x-pollara400-2n-4n-allreduce-alltoall-no-rank-lines-oci.txt")
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "alltoall per-rank busbw plateau 50.67 GB/s", "not judged: its 32 ranks' nodes are unknown")
}

// A run left as candidates is no easier to judge when one of them is
// alltoall, gather or scatter: with a NIC speed the awsome-distributed-
// training scatter (gather/scatter, 16 ranks from its count column) was
// told to exceed what 100 Gb/s allows, as if its ranks were one per node,
// and nccl-tests#78's alltoall got an error at 4 %.
func TestCandidatesRanksUnknown(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 100e9}, "corpus/nccl-tests/scatter-srun-l-efa-no-rank-lines-79GBps-awsome-validation.txt")
	nicMustNot(t, fs, "nccltests.busbw.ok")
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "gather/scatter per-rank busbw plateau 78.59 GB/s", "not judged: its 16 ranks' nodes are unknown")
	fs = diagnoseFiles(t, Options{NICSpeed: 100e9}, "corpus/nccl-tests/allreduce-alltoall-v100-8n-64rank-ib100g-old-error-column-two-tables-nccltests78.txt")
	for _, f := range nicFind(fs, "nccltests.busbw.low") {
		if strings.Contains(f.Title, "alltoall") {
			t.Errorf("judged: %s", f.Title)
		}
	}
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "alltoall per-rank busbw plateau 0.51 GB/s", "not judged: its 64 ranks' nodes are unknown")
}

// An nccl-tests output cut in its device list (nebius/soperator#428).
// Before, it gave no finding at all, as if the run were clean.
func TestNCCLTestsPreambleOnly(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/preamble-only-h100-2n-srun-mpi-cut-before-table-soperator428.txt")
	f := nicMustFind(t, fs, "nccltests.rows.none", Info, "ends in its preamble (12 rank lines)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 4 || f.Evidence[1].Line != 18 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// An output that ends at its "# Collective test starting" banner
// (Azure/aks-rdma-infiniband#150, after two ssh warnings) is cut before
// any rank line; it was read as no artifact. Banners followed by the
// run's rank lines and table (every process of a launch prints one) are
// not a cut (synthTestsRuns).
func TestNCCLTestsBannerOnlyCut(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccl-mi300x-aks-16rank-check-off-ssh-known-hosts-banner-only-aksrdma150.txt")
	f := nicMustFind(t, fs, "nccltests.rows.none", Info, "all_reduce: the output ends in its banner, before any rank line or table")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 4 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, diagnoseText(t, synthTestsRuns(2)).Findings, "nccltests.rows.none")
}

// An output that stops inside the table's header, its units line cut
// at "(eleme" (nccl-tests#272's excerpt), was reported at warn as a
// header with no size under it (a first collective that never
// finished): the cut line says the output was cut there. A whole header
// with nothing under it stays a warning.
func TestNCCLTestsHeaderCut(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/preamble-h200-1n-8rank-srun-nccl-version-after-ranks-header-cut-nccltests272.txt")
	f := nicMustFind(t, fs, "nccltests.rows.none", Info, "the output ends inside the table's header")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 16 || f.Evidence[1].Line != 17 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	const hdr = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	nicMustFind(t, diagnoseText(t, hdr+"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n").Findings,
		"nccltests.rows.none", Warn, "printed its table header and no size")
}

// synthTestsRuns writes a SYNTHETIC nccl-tests output of n all_reduce runs
// on two hosts with one rank each, every run at 10 GB/s busbw, after one
// NCCL line that names the RoCE NIC each host uses.
func synthTestsRuns(n int) string {
	var b strings.Builder
	b.WriteString("# synthetic: written by synthTestsRuns\n")
	b.WriteString("hostA:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n")
	b.WriteString("hostB:2:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.2<0>\n")
	for i := 0; i < n; i++ {
		b.WriteString("# Collective test starting: all_reduce_perf\n")
		b.WriteString("# nThread 1 nGpus 1 minBytes 67108864 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n")
		b.WriteString("#  Rank  0 Group  0 Pid   1001 on      hostA device  0 [0x1b] NVIDIA H100 80GB HBM3\n")
		b.WriteString("#  Rank  1 Group  0 Pid   2002 on      hostB device  0 [0x1b] NVIDIA H100 80GB HBM3\n")
		b.WriteString("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n")
		for _, sz := range []int{67108864, 134217728, 268435456} {
			us := float64(sz) / 10e3
			b.WriteString(strings.Join([]string{"", itoa(sz), itoa(sz / 4), "float", "sum", "-1", ftoa(us), "10.00", "10.00", "0", ftoa(us), "10.00", "10.00", "0"}, "  ") + "\n")
		}
		b.WriteString("# Avg bus bandwidth    : 10.00\n")
	}
	return b.String()
}

// An nccl-tests output with more than 64 runs. The runs
// beyond the 64th used to be merged into the 64th, whose rank lines then
// made seven ranks per host share one NIC and turned a low busbw into a
// false nccltests.busbw.ok. Every run is judged on its own now.
func TestNCCLTestsManyRuns(t *testing.T) {
	rep := Diagnose([]string{"-"}, strings.NewReader(synthTestsRuns(70)), Options{NICSpeed: 400e9})
	low, ok := 0, 0
	for _, f := range rep.Findings {
		switch f.ID {
		case "nccltests.busbw.low":
			low++
		case "nccltests.busbw.ok":
			ok++
			t.Errorf("false ok: %s", f.Title)
		}
	}
	if low != 70 || ok != 0 {
		t.Errorf("%d runs judged low, %d ok; want 70 low", low, ok)
	}
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// An nccl-tests excerpt whose rank list starts at "Rank 71" runs on hosts
// it does not show: the one host it shows does not make it a one-node run.
func TestPartialRankListNotOneNode(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccltests-gb200-nvl72-out-of-bounds-footer-coreweave43.txt")
	f := find(fs, "nccltests.busbw.unjudged")
	if f == nil {
		t.Fatalf("no busbw finding: %v", ids(fs))
	}
	if strings.Contains(f.Title, "one node") || !strings.Contains(f.Title, "all_reduce") {
		t.Errorf("title %q: want an all_reduce plateau not judged as a one-node run", f.Title)
	}
	// The same table with the rank list whole is a one-node run.
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-a3mega-16xh100-tcpxo-338GBps-good.txt")
	for _, f := range fs {
		if strings.Contains(f.Title, "on one node") {
			t.Errorf("16 ranks on 2 hosts judged on one node: %s", f.Title)
		}
	}
}

// li-plus/playground's note: "./build/sendrecv_perf ... -g 8" pasted above
// the table, without rank lines, is one process driving eight GPUs of one
// node. Before, the run was judged as if it crossed nodes ("no NIC speed
// known to judge it", 1549 Gb/s per NIC).
func TestNCCLTestsDirectCommandLineOneNode(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 400e9}, "corpus/nccl-tests/sendrecv-a100-1n-g8-command-line-then-header-rows-only-inplace-na-195GBps-liplus.txt")
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "all 8 ranks on one node, so no NIC is on its path")
	nicMustNot(t, fs, "nccltests.busbw.ok")
	nicMustNot(t, fs, "nccltests.busbw.low")
}

// A rank-less paste's rank count read from its busbw/algbw ratio is said
// in the finding (AWS's p4de README table: 1.875 on every row, all_reduce
// on 16 ranks), and a one-host pair reads "both ranks" (nccl#1706).
func TestBusBWRanksFromRatioSaid(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"allreduce-p4de-2n-efa-srun-l-rows-only-78GBps-awsome-readme.txt", "is all_reduce's 2(n-1)/n for n = 16 only, so it ran on 16 ranks"},
		{"nccltests-tail-destroy-complete-one-host-2-ranks-nvls-hang-nccl1706.txt", "both ranks on one node"},
	} {
		fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/"+c.file)
		found := false
		for _, f := range fs {
			if strings.HasPrefix(f.ID, "nccltests.busbw") && strings.Contains(f.Title+f.Mechanism, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no busbw finding says %q: %+v", c.file, c.want, fs)
		}
	}
}

// azcluster's 2-node NDv5 all_reduce (8 × NDR400 per node, IB SHARP and
// NVLS) has no rank lines and reaches 465 GB/s, above 8 NICs' 400. Judged
// with --nic-speed 400G --nics-per-node 8, the finding claimed "1 rank per
// host" (no line says how many) and put the excess down to more NICs than
// the artifacts show only, though an unknown node count leaves the 2-node
// Tree/NVLS excess as likely.
func TestBusBWAboveNICsNodesUnknown(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 400 * unit.Gbps, NICsPerNode: 8}, "corpus/nccl-tests/allreduce-2.18.3-nccl2.29.7-h100-ndv5-2n-16rank-8xndr400-sharp-nvls-rank-lines-condensed-466GBps-azcluster.txt")
	f := find(fs, "nccltests.busbw.ok")
	if f == nil {
		t.Fatalf("no nccltests.busbw.ok: %+v", fs)
	}
	if strings.Contains(f.Mechanism, "1 rank per host") || !strings.Contains(f.Mechanism, "how many ranks share them is not known") {
		t.Errorf("ranks per host told as known: %s", f.Mechanism)
	}
	if !strings.Contains(f.Mechanism, "On exactly 2 nodes the Tree and NVLS") {
		t.Errorf("the 2-node Tree/NVLS excess not named with the node count unknown: %s", f.Mechanism)
	}
	if strings.Contains(f.Mechanism, "than the artifacts show") || !strings.Contains(f.Mechanism, "no NIC on the path") {
		t.Errorf("--nics-per-node given, or one node not named as a cause: %s", f.Mechanism)
	}
}

// nccl-tests#194's all_reduce on two NVLink-bridged H100 PCIe has no rank
// lines: its busbw/algbw ratio gives 2 ranks, the node count stays unknown.
// 2 ranks on 2 nodes have one GPU per node, so the 2-node Tree/NVLS excess
// cannot explain 115 GB/s above one 400G NIC; one node (no NIC) can, and
// --nics-per-node was given, so "more NICs than the artifacts show" is wrong.
func TestBusBWAboveNICsTwoRanksNodesUnknown(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 400 * unit.Gbps, NICsPerNode: 1}, "corpus/nccl-tests/allreduce-h100-pcie-1n-g2-nvlink-info-elided-115GBps-nccltests194.txt")
	f := find(fs, "nccltests.busbw.ok")
	if f == nil {
		t.Fatalf("no nccltests.busbw.ok: %+v", fs)
	}
	for _, bad := range []string{"On exactly 2 nodes", "On more nodes", "than the artifacts show"} {
		if strings.Contains(f.Mechanism, bad) {
			t.Errorf("says %q of a 2-rank run given --nics-per-node: %s", bad, f.Mechanism)
		}
	}
	for _, want := range []string{"all its ranks on one node (NVLink/PCIe, no NIC on the path)", "than --nics-per-node gives"} {
		if !strings.Contains(f.Mechanism, want) {
			t.Errorf("does not say %q: %s", want, f.Mechanism)
		}
	}
}
