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

// NCCL's own WARN about mixing link layers (SYNTHETIC line in the format
// of net_ib.cc, 2.19 on) is told as such, not as an unexplained failure.
func TestIncompatibleDevicesWarn(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:11:12 [0] transport/net_ib.cc:1234 NCCL WARN NET/IB : Attempted to connect incompatible devices: [1]mlx5_2:1/RoCE and [0]mlx5_0:1/IB. Try selecting NICs of only one link type using NCCL_IB_HCA",
		"h1:11:12 [0] NCCL INFO transport/net.cc:680 -> 3")
	nicMustFind(t, fs, "nccl.warn.error", Error, "InfiniBand port with a RoCE port")
}
