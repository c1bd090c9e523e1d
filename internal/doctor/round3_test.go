package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Issue 19's classes of misses. Real text sits under testdata/corpus with
// its source URL; synthetic text is written here and says so. Each test
// failed before the change it covers.

// Class 1: a host is known by its bootstrap address as well as its name.
// Real text: NCCL 2.5.7 with the host prefix stripped (NVIDIA/nccl#392)
// is the host 10.137.141.16.
func TestClass1HostByAddress(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/nccl-log/roce-nccl2.5.7-rings-trees-gdr-partial-issue392.txt")
	l := arts[0].(*ingest.NCCLLog)
	if h := l.Scope().Host; h.Boot != "10.137.141.16" {
		t.Errorf("scope host %+v, want the bootstrap address 10.137.141.16", h)
	}
	// SYNTHETIC: two machines print the hostname "localhost"; one runs
	// NCCL's IB transport, the other falls back to sockets.
	fs := synthFindings(t, Options{},
		"localhost:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
		"localhost:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"localhost:100:100 [0] NCCL INFO Using network IB",
		"localhost:200:200 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>",
		"localhost:200:200 [0] NCCL INFO NET/IB : No device found.",
		"localhost:200:200 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>",
		"localhost:200:200 [0] NCCL INFO Using network Socket")
	nicMustFind(t, fs, "nccl.transport.mismatch", Error, "localhost (10.0.0.1)", "localhost (10.0.0.2)")
}

// Class 2: NCCL before 2.4. Real text: NCCL 2.3.7 on InfiniBand
// (NVIDIA/nccl#179) and on sockets (NVIDIA/nccl#207), in the format of
// NCCL's 2.3 sources (one "NET/IB: [i] dev:port/IB" line per device,
// "Using internal Network IB").
func TestClass2NCCL23(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/nccl2.3.7-ib-old-format-nccl179.txt")
	nicMustFind(t, fs, "nccl.transport.ib", Info, "InfiniBand", "mlx5_1:1")
	fs = diagnoseFiles(t, Options{}, "corpus/threads/nccl2.3.7-socket-internal-network-nccl207.txt")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "1 host")
	// SYNTHETIC, in NCCL 2.3.7's format (net_ib.cu: "NET/IB: Dev %d Port
	// %d qpn %d mtu %d GID %ld (%lX/%lX)", printed by default): the
	// queue pairs use GID index 0, the link-local GID.
	fs = synthFindings(t, Options{},
		"NCCL version 2.3.7+cuda9.2",
		"gpu1:10:10 [0] NCCL INFO NET/IB: [0] mlx5_0:1/RoCE ",
		"gpu1:10:10 [0] NCCL INFO Using internal Network IB",
		"gpu1:10:30 [0] NCCL INFO Ring 00 : 1 -> 0 via NET/IB/0",
		"gpu1:10:30 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 305 mtu 5 GID 0 (80FE/1A8A41FEFF21A75E)")
	nicMustFind(t, fs, "gid.index.link_local", Error, "gpu1 mlx5_0", "GID index 0", "fe80::5ea7:21ff:fe41:8a1a")
}

// Class 3: NCCL's defaults apply when the log states no GID index. Real
// text: the queue-pair line of NVIDIA/nccl#1657 shows what index 0 holds
// (a link-local GID). SYNTHETIC: NCCL 2.10 connecting RoCE without the
// echo uses index 0; NCCL 2.22 on an IPv6-only table keeps index 0.
func TestClass3Defaults(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/nccl2.2x-qp-gid0-linklocal-pod-nccl1657.txt")
	nicMustFind(t, fs, "gid.index.link_local", Error, "GID index 0", "fe80::5ea7:21ff:fe41:8a1a")
	nicMustNot(t, fs, "gid.index.default_zero")

	fs = synthFindings(t, Options{},
		"NCCL version 2.10.3+cuda11.4",
		"gpu1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>",
		"gpu1:10:10 [0] NCCL INFO Using network IB",
		"gpu1:10:30 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1a000] [send] via NET/IB/0")
	f := nicMustFind(t, fs, "gid.index.default_zero", Warn, "gpu1 mlx5_0", "NCCL's default")
	if !strings.Contains(f.Mechanism, "before 2.21 uses index 0") {
		t.Errorf("mechanism does not say why index 0: %s", f.Mechanism)
	}

	fs = synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NCCL version 2.22.3+cuda12.4",
		"gpu1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"gpu1:10:30 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0",
		"gpu1$ show_gids",
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"mlx5_0  1       0       fe80:0000:0000:0000:5ea7:21ff:fe41:8a1a                 v1      eth2",
		"mlx5_0  1       1       fe80:0000:0000:0000:5ea7:21ff:fe41:8a1a                 v2      eth2",
		"mlx5_0  1       2       fd93:16d3:59b6:0023:0000:0000:0000:0011                 v1      eth2",
		"mlx5_0  1       3       fd93:16d3:59b6:0023:0000:0000:0000:0011                 v2      eth2")
	f = nicMustFind(t, fs, "gid.index.link_local", Error, "GID index 0", "NCCL's own choice")
	if !strings.Contains(f.Mechanism, "no IPv4 GID") || !strings.Contains(f.Mechanism, "AF_INET6") {
		t.Errorf("mechanism does not explain the choice: %s", f.Mechanism)
	}
}

// Class 4: an empty GID table. Real text: show_gids in a Kubernetes pod
// on calico, n_gids_found=0 (Mellanox/k8s-rdma-sriov-dev-plugin#30).
func TestClass4EmptyTable(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/show-gids-empty-pod-calico-k8srdma30.txt")
	nicMustFind(t, fs, "gid.table.empty", Warn, "n_gids_found=0")
	// Real text: a sparse table starting at 6 (NVIDIA/nccl#1587) and two
	// link-local addresses before the IPv4 rows (SpectrumScale#4).
	fs = diagnoseFiles(t, Options{}, "corpus/threads/show-gids-sparse-from-6-nccl-pr1587.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 7", "11.0.4.1")
	fs = diagnoseFiles(t, Options{}, "corpus/threads/show-gids-two-linklocal-ipv4-at-4-5-spectrumscale4.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 5", "172.19.0.60")
}

// Class 5: output variants. Real text: a saved `show interfaces counters`
// without its rule of dashes and `show pfcwd config`
// (sonic-net/sonic-buildimage#9193); `show pfcwd config` from
// sonic-utilities' tests, in range.
func TestClass5Variants(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-int-counters-no-rule-txdrp-pfcwd-buildimage9193.txt")
	nicMustFind(t, fs, "switch.queue.drops", Warn, "Ethernet0", "9268210 packets dropped at egress")
	fs = diagnoseFiles(t, Options{}, "corpus/switch/sonic-pfcwd-config-sonic-utilities.txt")
	nicMustNot(t, fs, "pfc.watchdog.range")
	// SYNTHETIC: the same table with times SONiC refuses.
	fs = synthFindings(t, Options{},
		"admin@leaf1:~$ show pfcwd config",
		"     PORT    ACTION    DETECTION TIME    RESTORATION TIME",
		"Ethernet0      drop                 1                  20")
	nicMustFind(t, fs, "pfc.watchdog.range", Error, "leaf1 Ethernet0", "detection 1 ms")
}

// Class 6: a check that needs a missing field infers it or says why it
// could not run. Real text: ibv_devinfo of an rxe device printed by an
// rdma-core without link_layer (SoftRoCE/rxe-dev#46). SYNTHETIC: an
// ecnconfig profile without its mode row, and a port that nothing tells.
func TestClass6MissingFields(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ibv-devinfo-rxe-no-link-layer-mtu1024-rxedev46.txt")
	f := nicMustFind(t, fs, "devinfo.mtu.small", Warn, "rxe0 port 1", "active_mtu 1024")
	if !strings.Contains(f.Title, "inferred: rxe is Soft-RoCE") || len(f.Evidence) != 2 {
		t.Errorf("the finding does not say how RoCE was inferred: %s %+v", f.Title, f.Evidence)
	}
	fs = synthFindings(t, Options{},
		"Profile: AZURE_LOSSLESS",
		"-----------------------  -------",
		"green_min_threshold      15000",
		"green_max_threshold      30000",
		"green_drop_probability   5",
		"-----------------------  -------")
	f = nicMustFind(t, fs, "switch.ecn.thresholds", Warn, "AZURE_LOSSLESS", "below one BDP", "assumed")
	if !strings.Contains(f.Mechanism, "no `ecn` mode row") {
		t.Errorf("mechanism does not say the mode row is missing: %s", f.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"hca_id:	mlx5_0",
		"	port:	1",
		"		state:			PORT_ACTIVE (4)",
		"		active_mtu:		1024 (3)")
	nicMustFind(t, fs, "devinfo.mtu.unjudged", Info, "mlx5_0 port 1", "no link_layer")
}

// Class 7: egress drops. Real text: TX_DRP where the PFC watchdog drops
// a stormed queue (sonic-net/sonic-buildimage#9193), an error beside the
// watchdog's own drop count (SYNTHETIC second line).
func TestClass7EgressDrops(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-int-counters-no-rule-txdrp-pfcwd-buildimage9193.txt")
	nicMustFind(t, fs, "switch.queue.drops", Warn, "TX_DRP")
	fs = synthFindings(t, Options{},
		"admin@leaf1:~$ show pfcwd stats",
		"      QUEUE    STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP",
		"Ethernet0:3   stormed                        1/0    0/41507426           0/0         0/41507426                0/0",
		"admin@leaf1:~$ show interfaces counters",
		"      IFACE    STATE       RX_OK       RX_BPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR       TX_OK       TX_BPS    TX_UTIL    TX_ERR     TX_DRP    TX_OVR",
		"  Ethernet0        U  61,115,381  286.58 KB/s      0.00%         0         0         0  51,847,244  233.95 KB/s      0.00%         0  9,268,210         0")
	nicMustFind(t, fs, "switch.queue.drops", Error, "leaf1 Ethernet0", "TX_DRP")
}

// Class 8: states and contradictions. Real text: a watchdog that does not
// run (status N/A, sonic-utilities' tests), the CLI's PFC counters at 0
// while the ASIC counts 1234 frames (sonic-net/sonic-buildimage#5540), and
// one queue's `show pfcwd stats` pasted three times
// (sonic-net/sonic-buildimage#8483): one queue, not three.
func TestClass8States(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-pfcwd-stats-stopped-na-sonic-utilities.txt")
	nicMustFind(t, fs, "switch.pfcwd.stopped", Warn, "status N/A", "lossless queue 3,4", "2 ports")
	nicMustNot(t, fs, "switch.pfcwd.storm")
	fs = diagnoseFiles(t, Options{}, "corpus/switch/sonic-pfcstat-zero-sdk-dump-1234-buildimage5540.txt")
	nicMustFind(t, fs, "switch.counters.mismatch", Warn, "1234 PFC frames received on priority 3", "show 0")
	fs = diagnoseFiles(t, Options{}, "corpus/switch/sonic-pfcwd-stats-repeated-stormed-buildimage8483.txt")
	if n := countID(fs, "switch.pfcwd.storm"); n != 1 {
		t.Errorf("%d switch.pfcwd.storm findings for one queue pasted three times, want 1", n)
	}
	nicMustFind(t, fs, "switch.pfcwd.storm", Error, "Ethernet4 queue 3", "2 storms detected, 1 restored", "46497254")
}

// Issue 21 item 21: context stays in its host and file. SYNTHETIC: host
// gpu1's perftest on a ConnectX-5 (firmware 16.x) is not judged against
// gpu2's 400G port, nor gpu1's GPUDirect distance named by gpu2's NCCL.
func TestContextAcrossFiles(t *testing.T) {
	paths := writeFiles(t, map[string][]string{
		"gpu1-devinfo.txt": {
			"[root@gpu1 ~]# ibv_devinfo",
			"hca_id:	mlx5_0",
			"	transport:			InfiniBand (0)",
			"	fw_ver:				16.35.2000",
			"	port:	1",
			"		state:			PORT_ACTIVE (4)",
			"		active_mtu:		4096 (5)",
			"		link_layer:		Ethernet",
		},
		"gpu1-perftest.txt": {
			"[root@gpu1 ~]# ib_write_bw -d mlx5_0 --report_gbits gpu3",
			"                    RDMA_Write BW Test",
			" Device         : mlx5_0",
			" Link type       : Ethernet",
			" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
			" 65536      5000             92.00            91.50            0.174",
		},
		"gpu2-ethtool.txt": {
			"[root@gpu2 ~]# ethtool ens1np0",
			"Settings for ens1np0:",
			"	Speed: 400000Mb/s",
			"	Duplex: Full",
		},
	})
	rep := Diagnose(paths, nil, Options{})
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.ID, "perftest.bw") && strings.Contains(f.Title, "400") {
			t.Errorf("gpu1's perftest judged against gpu2's 400G: %s", f.Title)
		}
	}
	nicMustFind(t, rep.Findings, "perftest.bw.unjudged", Info, "line rate is not known")
}

// Class 4, more table shapes. SYNTHETIC tables in show_gids' format: an
// IPv6-only table (ULA addresses, as on the Broadcom NICs of
// uccl-project/uccl#803), one address on a VXLAN device and on the bond
// that carries RoCE, and an older show_gids without the VER and DEV
// columns.
func TestClass4TableShapes(t *testing.T) {
	fs := synthFindings(t, Options{},
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"bnxt_re0  1     0       fe80:0000:0000:0000:5ea7:21ff:fe41:8a1a                 v1      eth2",
		"bnxt_re0  1     1       fe80:0000:0000:0000:5ea7:21ff:fe41:8a1a                 v2      eth2",
		"bnxt_re0  1     2       fd93:16d3:59b6:0023:0000:0000:0000:0011                 v1      eth2",
		"bnxt_re0  1     3       fd93:16d3:59b6:0023:0000:0000:0000:0011                 v2      eth2")
	f := nicMustFind(t, fs, "gid.index.roce_v2", Info, "RoCEv2 IPv6 GID is index 3")
	if !strings.Contains(f.Fix, "NCCL_IB_ADDR_FAMILY=AF_INET6") {
		t.Errorf("fix does not name the address family: %s", f.Fix)
	}
	fs = synthFindings(t, Options{},
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
		"mlx5_bond_0  1  0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v1      bond0",
		"mlx5_bond_0  1  1       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v2      bond0",
		"mlx5_bond_0  1  2       0000:0000:0000:0000:0000:ffff:0a00:0005 10.0.0.5        v1      vxlan100",
		"mlx5_bond_0  1  3       0000:0000:0000:0000:0000:ffff:0a00:0005 10.0.0.5        v2      vxlan100",
		"mlx5_bond_0  1  4       0000:0000:0000:0000:0000:ffff:0a00:0005 10.0.0.5        v1      bond0",
		"mlx5_bond_0  1  5       0000:0000:0000:0000:0000:ffff:0a00:0005 10.0.0.5        v2      bond0")
	f = nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 5", "10.0.0.5")
	if !strings.Contains(f.Mechanism, "bond0") {
		t.Errorf("mechanism does not say why bond0's row: %s", f.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"DEV     PORT    INDEX   GID                                     IPv4",
		"---     ----    -----   ---                                     ------------",
		"mlx5_0  1       0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8",
		"mlx5_0  1       1       0000:0000:0000:0000:0000:ffff:ac13:003c 172.19.0.60",
		"NCCL_IB_GID_INDEX=1")
	nicMustFind(t, fs, "gid.index.ipv4", Info, "GID index 1", "172.19.0.60")
}

// Class 1, launcher rank tags: SYNTHETIC lines whose NCCL prefix was
// stripped to " [0]" under Open MPI's --tag-output: the rank tags tell
// the two processes apart, and their bootstrap addresses the two hosts.
func TestClass1RankTags(t *testing.T) {
	fs := synthFindings(t, Options{},
		"[1,0]<stdout>: [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
		"[1,1]<stdout>: [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>",
		"[1,0]<stdout>: [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>",
		"[1,0]<stdout>: [0] NCCL INFO Using network IB",
		"[1,1]<stdout>: [0] NCCL INFO NET/IB : No device found.",
		"[1,1]<stdout>: [0] NCCL INFO Using network Socket")
	nicMustFind(t, fs, "nccl.transport.mismatch", Error, "10.0.0.1", "10.0.0.2")
}
