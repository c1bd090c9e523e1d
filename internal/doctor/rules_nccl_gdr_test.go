package doctor

import (
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
