package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the eighteenth sweep (host side): each was misread before
// its fix, and each test fails on the code before it.

// The bootstrap root of a newer NCCL refuses check-ins from an older
// NCCL's ranks (devopsrustem/slurmv4): the offset it prints is the
// sender's listen address, 0xebb80002 = AF_INET and port 47339. Before,
// these lines were called a failed connection between ranks, and the fix
// sent the reader to NCCL_SOCKET_IFNAME and firewalls.
func TestBootstrapRootMismatchIsTwoNCCLVersions(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28-bootstrap-root-mismatch-offset-is-sockaddr-two-versions-slurmv4.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "Ranks of two NCCL versions checked in to one bootstrap root", "on tpgds-aihub0003; 1 line")
	if !strings.Contains(f.Mechanism, "offset -340262910") || !strings.Contains(f.Mechanism, "(47339)") || f.Evidence[0].Line != 4 {
		t.Errorf("offset not decoded: %s %+v", f.Mechanism, f.Evidence)
	}
	// The older ranks' refused connects to the root are still a
	// connection failure of their own.
	nicMustFind(t, fs, "nccl.warn.error", Warn, "bootstrap connection between ranks failed", "on tpgds-aihub0006; 7 lines")

	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28-bootstrap-root-mismatch-twice-then-os-linux-connect-refused-slurmv4.txt")
	f = nicMustFind(t, fs, "nccl.warn.error", Warn, "Ranks of two NCCL versions", "2 lines")
	if !strings.Contains(f.Mechanism, "(53069)") {
		t.Errorf("first offset 0x4dcf0002 not read as port 53069: %s", f.Mechanism)
	}
	for _, f := range fs {
		if strings.Contains(f.Title, "connection between ranks failed") && strings.Contains(f.Title, "2 lines") {
			t.Errorf("the mismatch lines are called a connect failure: %s", f.Title)
		}
	}
}

// The root's other refusals, SYNTHETIC lines in NCCL's format
// (bootstrap.cc): check-ins that disagree in size, and a rank checked in
// twice.
func TestBootstrapRootOtherRefusals(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:100:200 [0] bootstrap.cc:345 NCCL WARN Bootstrap Root : mismatch in info from procs, nranks 16 vs 8, nroots 1 vs 1, iroot 0 vs 0, offset 0 vs 0",
		"h1:101:201 [1] bootstrap.cc:352 NCCL WARN Bootstrap Root : rank 3 of 16 ranks has already checked in")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "NCCL's bootstrap root got check-ins that disagree (nranks 16 vs 8)")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "Two processes checked in to NCCL's bootstrap root as the same rank")
	for _, f := range fs {
		if strings.Contains(f.Title, "connection between ranks failed") {
			t.Errorf("a refused check-in is called a connect failure: %s", f.Title)
		}
	}
}

// addressAsOffset reads a sockaddr's first four bytes as NCCL's int
// offset: family in the low half, the port in network order above.
func TestAddressAsOffset(t *testing.T) {
	for _, c := range []struct {
		v    int64
		port int
		ok   bool
	}{
		{1305411586, 0xcf4d, true}, // 0x4dcf0002
		{-981270526, 0x83c5, true}, // 0xc5830002
		{0x5000000a, 0x0050, true}, // AF_INET6, port 80
		{0, 0, false},
		{3, 0, false},
		{2, 0, false}, // AF_INET without a port is no address
	} {
		port, ok := addressAsOffset(c.v)
		if ok != c.ok || ok && port != c.port {
			t.Errorf("addressAsOffset(%d) = %d %v, want %d %v", c.v, port, ok, c.port, c.ok)
		}
	}
}

// NVLS's CUDA calls failing at init (NVIDIA/nccl#1705 with its return
// chain; devopsrustem/slurmv4 at NCCL_DEBUG=WARN, without one): before,
// the first was a generic "NCCL failed after a WARN" and the second no
// finding at all.
func TestNVLSCudaFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-nvls-cuda-failure-invalid-argument-h100-chain-nccl1705.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NVLink SHARP (NVLS) could not set up its multicast memory", "NCCL returned 1 (unhandled cuda error) through nvls.cc:409, init.cc:1157", "on bm-h100-02")
	if !strings.Contains(f.Fix, "NCCL_NVLS_ENABLE=0") || !strings.Contains(f.Mechanism, "later WARNs after it on the same processes are its fallout") {
		t.Errorf("fix or fallout missing: %s / %s", f.Fix, f.Mechanism)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-nvls-cuda-failure-invalid-argument-warn-only-slurmv4.txt")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "NVLink SHARP (NVLS)", "on tpgds-aihub0003; 2 lines")
}

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

// mlxlink, read for the first time: two real pastes read as healthy
// links with their line rates, and SYNTHETIC faults in mlxlink's own
// form. Before, rocelab called mlxlink output unrecognised.
func TestMlxlinkLinks(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/mlxlink-show-mo-cx7-ib-ndr-4x-copper-osfp-notes.txt")
	nicMustFind(t, fs, "mlxlink.ok", Info, "csegpu1 /dev/mst/mt4129_pciconf0: link Active/LinkUp at 400Gbps (IB-NDR 4x)")
	fs = diagnoseFiles(t, Options{}, "corpus/ethtool/mlxlink-loop-cx6-ib-hdr-2x-8-devices-fec-counters-a100-notes.txt")
	nicMustFind(t, fs, "mlxlink.ok", Info, "brev-7hpnmoj9o mt4123_pciconf1: link Active/LinkUp at 100Gbps (IB-HDR 2x)")
	for _, f := range fs {
		if f.Severity != Info {
			t.Errorf("%s on healthy links: %s", f.ID, f.Title)
		}
	}

	fs = synthFindings(t, Options{},
		"# synthetic",
		"[root@gpu7 ~]# mlxlink -d mlx5_3 -c",
		"Operational Info",
		"----------------",
		"State                           : Polling",
		"Physical state                  : ETH_AN_FSM_ENABLE",
		"Speed                           : 400G",
		"Width                           : 4x",
		"Troubleshooting Info",
		"--------------------",
		"Status Opcode                   : 1024",
		"Recommendation                  : Bad signal integrity",
		"Physical Counters and BER Info",
		"------------------------------",
		"Effective Physical Errors       : 12",
		"Effective Physical BER          : 3E-12",
		"Link Down Counter               : 3",
	)
	nicMustFind(t, fs, "mlxlink.down", Error, "gpu7 mlx5_3: link not up (State Polling")
	nicMustFind(t, fs, "mlxlink.issue", Warn, `"Bad signal integrity", status opcode 1024`)
	nicMustFind(t, fs, "mlxlink.errors", Error, "12 errors FEC did not correct (effective BER 3E-12), link went down 3 times")
}

// mlxlink's line rate judges a perftest run of the same paste: 92 Gb/s
// over an HDR100 port is 92% of it. SYNTHETIC lines in the tools' forms.
func TestMlxlinkRateJudgesPerftest(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"$ mlxlink -d mlx5_0",
		"Operational Info",
		"----------------",
		"State                           : Active",
		"Physical state                  : LinkUp",
		"Speed                           : IB-HDR",
		"Width                           : 2x",
		"$ ib_write_bw -d mlx5_0 --report_gbits -s 65536 peer",
		"                    RDMA_Write BW Test",
		" Dual-port       : OFF          Device         : mlx5_0",
		" Number of qps   : 1            Transport type : IB",
		" Link type       : IB",
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
		" 65536      5000             92.10              92.00              0.175476",
	)
	nicMustFind(t, fs, "perftest.bw.ok", Info, "92.0 Gb/s", "of the 100.0 Gb/s link rate")
}

// The same topology in the doctor: the lost tab is said with its line and
// column, and the GPUs are judged on the cells that read (every NIC at
// PHB). Before, the file was "in no format rocelab recognises".
func TestTopoGarbledCellJudged(t *testing.T) {
	rel := "corpus/topo/nvidia-smi-topo-a100-8nic-phb-last-cell-run-into-affinity-notes.txt"
	fs := diagnoseFiles(t, Options{}, rel)
	nicMustFind(t, fs, "input.garbled", Warn, "8 lines of nvidia-smi topo -m could not be read", rel+`:6:73: expected a link type (X, NV#, PIX, PXB, PHB, NODE, SYS), got "PH0-115`)
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "8 of 8 GPUs have no NIC within one PCIe switch")
}
