package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NCCL 2.3 names the HCA of its GPUDirect RDMA decision by its device and
// gives a reason in parentheses (horovod/horovod#1651, the terminal
// wrapping the reason). Before, the finding said "disabled for HCA  on
// ta1-0, ta1-1, no reason printed".
func TestGDRDisabledHCAByNameNCCL23(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.3-gdr-disabled-hca-by-name-wrapped-reason-create-qp-failed-mlx4-horovod1651.txt")
	f := nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "disabled for HCA mlx4_0 on ta1-0, ta1-1 (not supported b…)")
	if strings.Contains(f.Title, "no reason printed") || strings.Contains(f.Mechanism, "but not why") {
		t.Errorf("the printed reason is called none: %s / %s", f.Title, f.Mechanism)
	}
	nicMustFind(t, fs, "nccl.ib.alloc_failed", Error, "ibv_create_qp on ta1-1")
}

// A net plugin that turns GPUDirect RDMA off says why: aws-ofi-nccl 1.18
// on EFA ("Could not disable CUDA API usage for HMEM, disabling GDR"),
// where the finding said "no reason printed".
func TestPluginGDROffReason(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-efa-aws-ofi-nccl1.18-nccl2.29-gdr0-plugin-reason-g7e.txt")
	f := nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "the net plugin NET/OFI turned it off", "Could not disable CUDA API usage for HMEM")
	if strings.Contains(f.Title, "no reason printed") || !strings.Contains(f.Fix, "aws-ofi-nccl") {
		t.Errorf("title %q fix %q", f.Title, f.Fix)
	}
	if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[0].Text, "disabling GDR") {
		t.Errorf("first evidence %+v, want the plugin's line", f.Evidence)
	}
}

// Each HCA NCCL turns GPUDirect RDMA off for is named, not the first only
// (NVIDIA/nccl#1537: two RoCE HCAs, no reason printed).
func TestGDRDisabledNamesEveryHCA(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-roce-16-ranks-gdr-disabled-two-hcas-no-reason-nccl1537.txt")
	f := nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "disabled for HCAs mlx5_0, mlx5_1 on hostname1, no reason printed")
	// With no reason NCCL's transport registers neither GPU memory nor
	// DMA-BUF: the peer-memory files are absent where NCCL runs; the
	// GPU-NIC distance plays no part.
	for _, want := range []string{"/sys/module/nvidia_peermem/version", "NCCL_NET_GDR_LEVEL (the GPU-NIC distance) plays no part"} {
		if !strings.Contains(f.Mechanism, want) {
			t.Errorf("mechanism lacks %q: %s", want, f.Mechanism)
		}
	}
	if !strings.Contains(f.Fix, "Inside the job's container") || strings.Contains(f.Fix, "against NCCL_NET_GDR_LEVEL") || strings.Contains(f.Mechanism, "2.1x-2.2x") {
		t.Errorf("fix %q mechanism %q", f.Fix, f.Mechanism)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/gdr-disabled-no-module-netib-channels-issue899.txt")
	nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "peer-memory module not loaded (HCAs mlx5_1, mlx5_2, mlx5_3)")
}

// The HCAs GPUDirect RDMA stays on for read "HCAs a, b" as those it is off
// for do, not "HCA a, b".
func TestGDRPartlyOnNamesHCAs(t *testing.T) {
	const p = "h1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA "
	r := diagnoseText(t, p+"Enabled for HCA 0 'mlx5_0'\n"+p+"Disabled for HCA 1 'mlx5_1'\n"+p+"Enabled for HCA 2 'mlx5_2'\n")
	nicMustFind(t, r.Findings, "nccl.gdr.disabled", Warn, "only partly on", "; on for HCAs mlx5_0, mlx5_2")
}

// A job's directory holding a log with no-reason "Disabled for HCA" lines
// (NVIDIA/nccl#1537, hostname1) and one whose ring summaries say GDR 0
// (NVIDIA/nccl#2397, ubuntu2/ubuntu4) is told by the HCA lines on their
// own host: before, the title said "ring summary says GDR 0 on hostname1"
// and the fix pointed at NCCL_NET_GDR_LEVEL.
func TestGDRNoReasonHCABeforeRingSummary(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"nccl-2.2x-roce-16-ranks-gdr-disabled-two-hcas-no-reason-nccl1537.txt",
		"nccl-2.30.4-roce-2-hosts-gin-rma-ras-bind-in-use-ring-gdr0-then-shrink-one-node-gdr1-nccl2397.txt",
	} {
		b, err := os.ReadFile(nicTestdata("corpus/nccl-log/" + f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := nicMustFind(t, diagnose(t, Options{}, dir).Findings, "nccl.gdr.disabled", Warn,
		"disabled for HCAs mlx5_0, mlx5_1 on hostname1, no reason printed", "; ring summary says GDR 0 on ubuntu2, ubuntu4")
	if strings.Contains(f.Title, "GDR 0 on hostname1") || strings.Contains(f.Mechanism, "'GPU Direct RDMA Disabled for HCA' or") ||
		strings.Contains(f.Fix, "NCCL_NET_GDR_LEVEL") || !strings.Contains(f.Fix, "Inside the job's container") {
		t.Errorf("title %q\nmechanism %q\nfix %q", f.Title, f.Mechanism, f.Fix)
	}
}

// A net plugin's no-reason "Disabled for HCA" line (aws-ofi-nccl's
// "NET/AWS Libfabric", SYNTHETIC line in its printed form) is the
// plugin's report of no GPU-memory support: the fix names the plugin and
// the provider's FI_HMEM, not nvidia_peermem, which is NET/IB's check.
func TestGDRNoReasonPluginNet(t *testing.T) {
	fs := synthFindings(t, Options{},
		"ip-10-0-0-1:100:200 [0] NCCL INFO NET/AWS Libfabric : GPU Direct RDMA Disabled for HCA 0 'rdmap16s27'",
		"ip-10-0-0-1:100:200 [0] NCCL INFO NET/AWS Libfabric : GPU Direct RDMA Disabled for HCA 1 'rdmap32s27'")
	f := nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "disabled for HCAs rdmap16s27, rdmap32s27", "no reason printed")
	for _, want := range []string{"NET/AWS Libfabric", "FI_HMEM", "instance type"} {
		if !strings.Contains(f.Fix, want) {
			t.Errorf("fix lacks %q: %s", want, f.Fix)
		}
	}
	if strings.Contains(f.Fix, "modprobe nvidia_peermem") || !strings.Contains(f.Mechanism, "no GPU-memory support") {
		t.Errorf("fix %q\nmechanism %q", f.Fix, f.Mechanism)
	}
}
