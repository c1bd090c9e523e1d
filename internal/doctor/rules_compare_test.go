package doctor

import (
	"os"
	"path/filepath"
	"strings"
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

// Hosts on different NCCL versions; one host printing two
// versions (two runs pasted) is not a mismatch. SYNTHETIC.
func TestNCCLVersionMismatch(t *testing.T) {
	fs := synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NCCL version 2.18.3+cuda12.2",
		"gpu2:20:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
		"gpu3:30:30 [0] NCCL INFO NCCL version 2.21.5+cuda12.2")
	nicMustFind(t, fs, "nccl.version.mismatch", Warn, "2.18.3 on gpu1", "2.21.5 on gpu2")
	fs = synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NCCL version 2.18.3+cuda12.2",
		"gpu1:11:11 [0] NCCL INFO NCCL version 2.21.5+cuda12.4")
	nicMustNot(t, fs, "nccl.version.mismatch")
}

// Hosts whose RoCE ports run at different MTUs, from ibv_devinfo
// after two prompts and from NCCL 2.2x's per-QP lines. SYNTHETIC.
func TestPortMTUMismatch(t *testing.T) {
	port := func(mtu, enum string) []string {
		return []string{
			"hca_id:\tmlx5_0",
			"\ttransport:\t\t\tInfiniBand (0)",
			"\tphys_port_cnt:\t\t\t1",
			"\t\tport:\t1",
			"\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
			"\t\t\tmax_mtu:\t\t4096 (5)",
			"\t\t\tactive_mtu:\t\t" + mtu + " (" + enum + ")",
			"\t\t\tlink_layer:\t\tEthernet",
		}
	}
	lines := append([]string{"[root@gpu1 ~]# ibv_devinfo"}, port("4096", "5")...)
	lines = append(lines, "[root@gpu2 ~]# ibv_devinfo")
	lines = append(lines, port("1024", "3")...)
	fs := synthFindings(t, Options{}, lines...)
	f := nicMustFind(t, fs, "host.mtu.mismatch", Warn, "1024 on gpu2", "4096 on gpu1")
	if !strings.Contains(f.Mechanism, "every connection to gpu2 runs at 1024") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"gpu1:10:12 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5 query_ece={supported=1, vendor_id=0x15b3, options=0x0, comp_mask=0x0} GID 3 (0/1000A8C0FFFF0000) fifoRkey=0x15e6c5 fifoLkey=0x15e6c5",
		"gpu2:20:22 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 2047 mtu 3 query_ece={supported=1, vendor_id=0x15b3, options=0x0, comp_mask=0x0} GID 3 (0/2000A8C0FFFF0000) fifoRkey=0x15e6c5 fifoLkey=0x15e6c5")
	nicMustFind(t, fs, "host.mtu.mismatch", Warn, "1024 on gpu2", "4096 on gpu1")
}
