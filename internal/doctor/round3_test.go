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
