package doctor

import (
	"strings"
	"testing"
)

// A NET/IB device list with InfiniBand and RoCE ports together
// (huggingface/accelerate#2246, on every host) is a warning naming the
// ports to keep; one link layer is nothing.
func TestMixedLinkLayers(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-ib-plus-roce-device-list-slurm-accelerate2246.txt")
	f := nicMustFind(t, fs, "nccl.ib.mixed_link_layers", Warn, "mlx5_0:1 InfiniBand, mlx5_2:1 RoCE", "qgpu2009, qgpu2008")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	if want := "NCCL_IB_HCA==mlx5_0"; !strings.Contains(f.Fix, want) {
		t.Errorf("fix %q lacks %q", f.Fix, want)
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.10.3-masked-hostnames-two-hosts-ib-bond0-nccl875.txt"), "nccl.ib.mixed_link_layers")
}

// Two jobs whose hosts split the link layers differently (accelerate#2246:
// mlx5_0 InfiniBand, mlx5_2 RoCE; nccl-tests#350's n013: mlx5_0 RoCE,
// mlx5_2 InfiniBand) read together are two findings, each fix naming its
// own ports: one fix over both named mlx5_0 and mlx5_2 as both kinds, and
// every other log's devices besides.
func TestMixedLinkLayersSplitsApart(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-ib-plus-roce-device-list-slurm-accelerate2246.txt",
		"corpus/nccl-tests/gather-2.16.5-a100-roce25g-ib200g-mixed-list-channels-ib1-drop-6g-nccltests350.txt",
		"corpus/nccl-log/nccl-2.10.3-masked-hostnames-two-hosts-ib-bond0-nccl875.txt")
	var fixes []string
	for _, f := range fs {
		if f.ID == "nccl.ib.mixed_link_layers" {
			fixes = append(fixes, f.Fix)
		}
	}
	if len(fixes) < 2 {
		t.Fatalf("%d mixed_link_layers findings, want one per split: %q", len(fixes), fixes)
	}
	if want := "NCCL_IB_HCA==mlx5_0 keeps the InfiniBand ports, or NCCL_IB_HCA=^=mlx5_2 drops"; !strings.Contains(fixes[0], want) {
		t.Errorf("first fix %q lacks %q", fixes[0], want)
	}
	for _, fix := range fixes {
		if n := strings.Count(fix, "mlx5_0"); n != 1 {
			t.Errorf("fix names mlx5_0 %d times (both kinds, or other jobs' ports): %q", n, fix)
		}
	}
}

// NCCL's own WARN about mixing link layers (SYNTHETIC line in the format
// of net_ib.cc, 2.19 on) is told as such, not as an unexplained failure.
func TestIncompatibleDevicesWarn(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:11:12 [0] transport/net_ib.cc:1234 NCCL WARN NET/IB : Attempted to connect incompatible devices: [1]mlx5_2:1/RoCE and [0]mlx5_0:1/IB. Try selecting NICs of only one link type using NCCL_IB_HCA",
		"h1:11:12 [0] NCCL INFO transport/net.cc:680 -> 3")
	nicMustFind(t, fs, "nccl.warn.error", Error, "InfiniBand port with a RoCE port")
}
