package doctor

import (
	"os"
	"path/filepath"
	"testing"
)

// One host's ibv_devinfo (devopsrustem/slurmv4): its rails run at 4096,
// its management bond at 1024. Before, the doctor called that an MTU
// difference "between hosts: 1024 on tpgds-aihub0006; 4096 on
// tpgds-aihub0006"; the small ports are devinfo.mtu.small's alone.
func TestMTUMismatchNeedsTwoHosts(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ibv-devinfo-cx7-12-ports-one-host-bond-mgmt-mtu1024-rails-4096-slurmv4.txt")
	nicMustNot(t, fs, "host.mtu.mismatch")
	nicMustFind(t, fs, "devinfo.mtu.small", Warn, "mlx5_8 port 1: RoCE active_mtu 1024")
	nicMustFind(t, fs, "devinfo.mtu.small", Warn, "mlx5_10 port 1: RoCE active_mtu 1024")

	// SYNTHETIC: without a prompt, a second block of a device name is a
	// second host's output; one block of two devices is one host.
	port := func(dev, mtu, enum string) []string {
		return []string{"hca_id:\t" + dev, "\ttransport:\t\t\tInfiniBand (0)", "\tphys_port_cnt:\t\t\t1", "\t\tport:\t1",
			"\t\t\tstate:\t\t\tPORT_ACTIVE (4)", "\t\t\tmax_mtu:\t\t4096 (5)", "\t\t\tactive_mtu:\t\t" + mtu + " (" + enum + ")", "\t\t\tlink_layer:\t\tEthernet", ""}
	}
	one := append(port("mlx5_0", "4096", "5"), port("mlx5_1", "1024", "3")...)
	nicMustNot(t, synthFindings(t, Options{}, one...), "host.mtu.mismatch")
	two := append(port("mlx5_0", "4096", "5"), port("mlx5_0", "1024", "3")...)
	nicMustFind(t, synthFindings(t, Options{}, two...), "host.mtu.mismatch", Warn, "1024 on host 2 of <stdin>", "4096 on host 1 of <stdin>")
}

// A job's ranks often come as one file per host. NCCL before 2.2x prints
// its version without a prefix; in a file whose lines name one host it is
// that host's (real: NVIDIA/nccl#1129's node08 on 2.7.8), so a second
// host's file on another version (SYNTHETIC, h2 on 2.21.5) is a version
// mismatch across the two. Before, the bare version had no host and the
// mismatch was not found.
func TestVersionMismatchAcrossHostFiles(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "h2.log")
	if err := os.WriteFile(other, []byte("# synthetic\nh2:20:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := Diagnose([]string{nicTestdata("corpus/nccl-log/nccl-2.7.8-docker-ib-bare-version-one-host-nccl1129.txt"), other}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccl.version.mismatch", Warn, "2.7.8 on node08", "2.21.5 on h2")
}
