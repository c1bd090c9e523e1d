package ingest

import "testing"

// NCCL's verbs wrapper failing to open a device ("Call to ibv_open_device
// failed", misc/ibvwrap.cc) comes before NET/IB's "Unable to open device"
// for the same device at init (zai-org/ImageReward#65): it is no queue-pair
// setup failure, and the device skip stays readable.
func TestDeviceOpenFailedIsNoSetup(t *testing.T) {
	const p = "pod-0:80744:80744 [1] "
	l := parseLog(t, "\n"+p+"misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed\n\n"+
		p+"transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_58\n"+
		p+"NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_18:1/RoCE ; OOB eth0:10.0.0.1<0>\n")
	if l.SetupCount != 0 || len(l.Setup) != 0 {
		t.Errorf("setup failures %d: %+v", l.SetupCount, l.Setup)
	}
	if l.IBSkipped.Count != 1 {
		t.Errorf("device skips %d, want 1", l.IBSkipped.Count)
	}
}
