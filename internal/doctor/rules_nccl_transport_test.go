package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// A vLLM pod without the verbs library: NCCL 2.18+ says so at INFO, and
// the socket fallback names that cause and its fix.
func TestSocketFallbackVerbsAtInfo(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-openshift-vllm-libibverbs-info-socket-ens5-vllm5360.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "falls back to TCP sockets on 1 host")
	if !strings.Contains(f.Fix, "apt-get install libibverbs1") || !strings.Contains(f.Evidence[0].Text, "Failed to open libibverbs.so[.1]") {
		t.Errorf("cause not named: %s / %v", f.Fix, f.Evidence)
	}
}

// NCCL lists a 25G RoCE port and a 200G InfiniBand port, and every
// connection goes over NET/IB/1, the InfiniBand one (nccl-tests#350): the
// RoCE port's default GID index 0 is no index in use, so no GID finding;
// the gather's large-size drop is judged against the 200G port.
func TestListedRoCEPortNoConnection(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/nccl-tests/gather-2.16.5-a100-roce25g-ib200g-mixed-list-channels-ib1-drop-6g-nccltests350.txt")}, nil, Options{}).Findings
	for _, f := range fs {
		if strings.HasPrefix(f.ID, "gid.") {
			t.Errorf("%s: %s", f.ID, f.Title)
		}
	}
	nicMustFind(t, fs, "nccltests.busbw.low", Error, "gather busbw plateau 11.69 GB/s", "200Gbps")
	if f := nicMustFind(t, fs, "nccl.transport.ib", Info, "RoCE+IB"); !strings.Contains(f.Mechanism, "no connection goes over mlx5_0:1") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

// Two p4d.24xlarge (A100, four 100G EFA each) through aws-ofi-nccl: the
// plugin's own "NET/OFI ..." lines say the network, so no "no network
// lines" note, and the 8 x 200G reference of A100 boards is not set
// beside an EFA run. Before, both were printed.
func TestPluginNetworkShown(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/nccl-tests/allreduce-p4d-a100-2n-efa-ofi1.13-76GBps-aws-tutorial.txt")}, nil, Options{}).Findings
	nicMustNot(t, fs, "nccl.log.no_network_lines")
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "plateau 73.46 GB/s")
	if strings.Contains(f.Title+f.Mechanism, "usual fabric") {
		t.Errorf("EFA run set beside the 8 x 200G fabric: %s", f.Title)
	}
}

// A WARN of NCCL's IB transport while it starts (NCCL 2.27+'s Data
// Direct probe, the failure NVIDIA/nccl#1866 is titled after) is why it
// fell back to sockets; before, the fallback named no cause and the fix
// was to rerun with more logging. The fixture is SYNTHETIC, from NCCL's
// source strings.
func TestIBInitWarnExplainsSocketFallback(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/nccl-2.28-ib-data-direct-warn-socket-fallback-synthetic.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn)
	if !strings.Contains(f.Mechanism, `NCCL's IB transport stopped at a warning on 1 host ("Error in mlx5dv_get_data_direct_sysfs_path with device mlx5_0")`) ||
		!strings.Contains(f.Fix, "NCCL_IB_DATA_DIRECT=0") || f.Evidence[0].Line != 6 {
		t.Errorf("evidence %+v mechanism %s fix %s", f.Evidence, f.Mechanism, f.Fix)
	}
	// The DGX Spark log's dlvsym lines (the symbol missing from an older
	// libmlx5) are no such warning: NCCL skips the probe and uses RoCE.
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.9-dgx-spark-gb10-roce-200g-port-lines-gid0-allgather.txt")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}

// NCCL's socket transport lists usb0 169.254.3.1, a BMC's link-local USB
// network, beside eno1 (NVIDIA/Megatron-LM#588): the fallback finding
// names it and sets NCCL_SOCKET_IFNAME first. Before, it was not named.
func TestSocketFallbackNamesLinkLocalInterface(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-socket-no-ib-device-usb0-link-local-169-254-bmc-interface-megatron588.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "(also over usb0 169.254.3.1)")
	if !strings.HasPrefix(f.Fix, "Set NCCL_SOCKET_IFNAME") {
		t.Errorf("fix does not start with NCCL_SOCKET_IFNAME: %s", f.Fix)
	}
	// One node's ranks may use lo: the note is for jobs that may span
	// nodes (SYNTHETIC lines in NCCL's format).
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:1:1 [0] NCCL INFO NET/IB : No device found.",
		"h1:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>",
		"h1:1:1 [0] NCCL INFO Using network Socket",
		"h1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Info, "single-node job")
	if got := nicFind(fs, "nccl.transport.socket_fallback", "over lo"); len(got) > 0 {
		t.Errorf("a single-node job's lo is called unreachable: %s", got[0].Title)
	}
	// A host whose only socket interface is link-local uses it alone,
	// not also.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:1:1 [0] NCCL INFO NET/IB : No device found.",
		"h1:1:1 [0] NCCL INFO NET/Socket : Using [0]usb0:169.254.3.1<0>",
		"h1:1:1 [0] NCCL INFO Using network Socket")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "on 1 host (over usb0 169.254.3.1);")
}

// SYNTHETIC lines in NCCL's format: a NET/IB WARN that names no peer,
// before any device list, is still the IB transport stopping at init; one
// about a request to a peer is not.
func TestIBInitWarnNamesNoPeer(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:10:10 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : Unable to open device mlx5_0",
		"h1:10:10 [0] NCCL INFO Using network Socket")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "falls back to TCP sockets")
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:10:10 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer 10.0.0.2<4242> collective mismatch error, local size 8 remote size 4")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}

// "Failed to initialize any NET plugin" is no network at all, not a
// fallback to sockets: aws-ofi-nccl 1.21.1 found no libfabric provider on
// Slingshot (ALCF Polaris notes, NCCL 2.28.3). Before, the finding said
// NCCL fell back to TCP sockets.
func TestNoNetworkTransport(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.3-ofi-1.21-cxi-no-provider-no-net-plugin-polaris.txt")
	f := nicMustFind(t, fs, "nccl.transport.none", Error, "Failed to initialize any NET plugin", "x3002c0s31b0n0")
	if !strings.Contains(f.Mechanism, `"No eligible providers were found"`) {
		t.Errorf("mechanism %q", f.Mechanism)
	}
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}

// Real text: NCCL 2.4.7 (Mellanox/nv_peer_memory#56) and a
// 2.4-era NCCL (NVIDIA/nccl-tests#29) print "NET/Socket : Using" on every
// rank beside NET/IB: not a socket fallback.
func TestOldNCCLSocketBootstrap(t *testing.T) {
	for _, rel := range []string{
		"corpus/threads/nccl2.4.7-socket-bootstrap-beside-netib-nvpeermem56.txt",
		"corpus/threads/nccl-socket-lines-beside-netib-nccltests29.txt",
	} {
		fs := diagnoseFiles(t, Options{}, rel)
		nicMustNot(t, fs, "nccl.transport.socket_fallback")
		nicMustNot(t, fs, "nccl.transport.mismatch")
		nicMustFind(t, fs, "nccl.transport.ib", Info, "InfiniBand")
	}
	// SYNTHETIC: a 2.18 log whose host shows only the socket transport is
	// still a fallback.
	fs := synthFindings(t, Options{},
		"h1:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2",
		"h1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
		"h2:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>")
	nicMustFind(t, fs, "nccl.transport.socket_fallback", Error, "2 hosts")
}

// One host on IB and another on sockets is a mismatch, and its
// cause is why IB did not start on the socket host. SYNTHETIC lines in
// NCCL 2.2x format.
func TestTransportMismatchIBAndSockets(t *testing.T) {
	fs := synthFindings(t, Options{},
		"gpu1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"gpu1:10:10 [0] NCCL INFO Using network IB",
		"gpu2:20:20 [0] NCCL INFO NET/IB : No device found.",
		"gpu2:20:20 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>",
		"gpu2:20:20 [0] NCCL INFO Using network Socket")
	f := nicMustFind(t, fs, "nccl.transport.mismatch", Error, "gpu1 on RDMA", "gpu2 on TCP sockets")
	if !strings.Contains(f.Mechanism, "NET/IB found no RDMA device on 1 host") || !strings.Contains(f.Fix, "/dev/infiniband") {
		t.Errorf("mismatch does not give the socket host's cause: %s / %s", f.Mechanism, f.Fix)
	}
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}

// NCCL finding no device beside libibverbs's warnings that its provider
// rejected the driver's ABI: the fallback's cause is the mismatch, named
// with its line. SYNTHETIC NCCL lines after the real warning of
// sgl-project/sglang#16242.
func TestSocketFallbackVerbsABI(t *testing.T) {
	fs := synthFindings(t, Options{},
		"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re0",
		"gpu2:20:20 [0] NCCL INFO NET/IB : No device found.",
		"gpu2:20:20 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>",
		"gpu2:20:20 [0] NCCL INFO Using network Socket")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn)
	if !strings.Contains(f.Mechanism, "bnxt_re provider does not speak the kernel driver's ABI 6") || !strings.HasPrefix(f.Fix, "Install the bnxt_re provider") || !strings.Contains(f.Fix, "devinfo.verbs_abi") {
		t.Errorf("the fallback does not name the ABI mismatch first: %s / %s", f.Mechanism, f.Fix)
	}
	nicMustFind(t, fs, "devinfo.verbs_abi", Error, "left out 1 RDMA device (bnxt_re0)")
}

// The same warning beside an NCCL log that says nothing of its transport
// is no fallback: a GPU server's Broadcom LOM may load bnxt_re while NCCL
// runs over its ConnectX rails, so devices left out say only that those
// devices are gone. Before, the warning alone made NCCL "fall back to TCP
// sockets". SYNTHETIC NCCL lines.
func TestVerbsABIAloneNoSocketFallback(t *testing.T) {
	fs := synthFindings(t, Options{},
		"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re0",
		"gpu1:20:20 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
		"gpu1:20:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
		"gpu1:20:45 [0] NCCL INFO comm 0x5555 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1234 - Init COMPLETE")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
	nicMustFind(t, fs, "devinfo.verbs_abi", Error, "bnxt_re0")
}

// A host is known by its bootstrap address as well as its name.
// Real text: NCCL 2.5.7 with the host prefix stripped (NVIDIA/nccl#392)
// is the host 10.137.141.16.
func TestHostByBootstrapAddress(t *testing.T) {
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

// NCCL before 2.4. Real text: NCCL 2.3.7 on InfiniBand
// (NVIDIA/nccl#179) and on sockets (NVIDIA/nccl#207), in the format of
// NCCL's 2.3 sources (one "NET/IB: [i] dev:port/IB" line per device,
// "Using internal Network IB").
func TestNCCL23TransportFormat(t *testing.T) {
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

// SYNTHETIC: a script exports NCCL_IB_DISABLE=1, yet NCCL prints its
// NET/IB lines (devices it could not open, no device found), which it
// never does with IB disabled: the export did not reach NCCL and is no
// cause of the socket fallback.
func TestIBDisableNotSeenByNCCL(t *testing.T) {
	fs := synthFindings(t, Options{},
		"$ export NCCL_IB_DISABLE=1",
		"$ mpirun -np 2 -H node1,node2 ./build/all_reduce_perf -b 8 -e 1G -f 2 -g 1",
		"node1:1234:1234 [0] misc/ibvwrap.cc:108 NCCL WARN NET/IB : Unable to open device mlx5_0",
		"node1:1234:1234 [0] misc/ibvwrap.cc:108 NCCL WARN NET/IB : Unable to open device mlx5_1",
		"node1:1234:1234 [0] NCCL INFO NET/IB : No device found.",
		"node1:1234:1234 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
		"node1:1234:1234 [0] NCCL INFO Using network Socket")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "falls back to TCP sockets")
	if strings.Contains(f.Mechanism, "NCCL_IB_DISABLE") || strings.Contains(f.Fix, "NCCL_IB_DISABLE") {
		t.Errorf("NCCL_IB_DISABLE blamed: %s / %s", f.Mechanism, f.Fix)
	}
	l := &ingest.NCCLLog{IBDevices: []ingest.NetDevice{{Host: "a"}}}
	es := []ingest.NCCLSetting{{Name: "NCCL_IB_DISABLE", Value: "0x1", How: ingest.SetByExport}}
	if _, off := ingest.IBDisabled(es, l.IBShown()); off {
		t.Error("an export NCCL did not see turns IB off")
	}
	if _, off := ingest.IBDisabled(es, false); !off {
		t.Error("NCCL_IB_DISABLE=0x1 not read as set")
	}
}

// NCCL's socket transport lists an LXC bridge and a Tailscale tunnel beside
// the LAN interface (vllm-project/vllm#6370): the bridge has the same
// address on every host and the tunnel carries channels at VPN speed, so
// both are named and excluded by the fix. Before, neither was named.
func TestSocketFallbackNamesBridgeAndTunnel(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.20.5-vllm-quoted-socket-lxcbr0-tailscale0-one-host-tp2-vllm6370.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "(also over lxcbr0 10.0.3.1, tailscale0 100.72.221.35)")
	if !strings.HasPrefix(f.Fix, "Set NCCL_SOCKET_IFNAME") || !strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME=eno3, or exclude the others: NCCL_SOCKET_IFNAME=^docker,lo,lxcbr,tailscale;") {
		t.Errorf("fix: %s", f.Fix)
	}
	if !strings.Contains(f.Mechanism, "host-local bridge") || !strings.Contains(f.Mechanism, "VPN tunnel") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
	// SYNTHETIC lines in NCCL's format: a Docker network bridge (br-<12
	// hex>) and libvirt's virbr0 are bridges; an interface merely named
	// like one (bridge0, br0 with a routed address, wlan0) is not.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h1:1:1 [0] NCCL INFO NET/IB : No device found.",
		"h1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.0.5<0> [1]br-f630fcb1853c:172.18.0.1<0> [2]virbr0:192.168.122.1<0> [3]br0:10.2.0.5<0> [4]wlan0:10.3.0.5<0>",
		"h1:1:1 [0] NCCL INFO Using network Socket")
	f = nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "(also over br-f630fcb1853c 172.18.0.1, virbr0 192.168.122.1)")
	if strings.Contains(f.Title, "br0 10.2.0.5") || strings.Contains(f.Title, "wlan0") || strings.Contains(f.Mechanism, "VPN") {
		t.Errorf("title %s / mechanism %s", f.Title, f.Mechanism)
	}
}

// The NCCL_SOCKET_IFNAME advice by the kind of each interface the socket
// transport lists (SYNTHETIC lines in NCCL's format). NCCL matches every
// entry as a prefix unless the list starts with "=" (after "^"), which
// makes all of them exact; setting the variable replaces the default
// "^docker,lo". A real NIC with a link-local address (eth1 beside eth0,
// ens1f1 beside ens1f0) is excluded by its exact name, not by a stem that
// leaves out its siblings too; virtual families keep their prefix and the
// list keeps Docker's; a transport listing only a tunnel or a bridge is
// limited to it, and excluding it would leave NCCL no interface.
func TestSocketIfnameFixByKind(t *testing.T) {
	for _, c := range []struct {
		devices, want, not string
	}{
		{"[0]eth0:10.1.0.5<0> [1]eth1:169.254.3.1<0>", "Set NCCL_SOCKET_IFNAME=eth0, or exclude the others: NCCL_SOCKET_IFNAME=^=docker0,lo,eth1 (", "^lo,eth"},
		{"[0]ens1f0:10.1.0.5<0> [1]ens1f1:169.254.9.9<0>", "NCCL_SOCKET_IFNAME=^=docker0,lo,ens1f1 (", "ens1f,"},
		{"[0]eno1:10.1.0.5<0> [1]usb0:169.254.3.1<0> [2]br-f630fcb1853c:172.18.0.1<0>", "NCCL_SOCKET_IFNAME=^docker,lo,usb,br-;", "^="},
		{"[0]tailscale0:100.72.221.35<0>", "its traffic is limited to tailscale0 100.72.221.35 (excluding it would leave NCCL no interface): set NCCL_SOCKET_IFNAME to the interface whose address the other hosts reach", "NCCL_SOCKET_IFNAME=^"},
		{"[0]virbr0:192.168.122.1<0> [1]wg0:10.8.0.2<0>", "its traffic is limited to virbr0 192.168.122.1, wg0 10.8.0.2 (", "NCCL_SOCKET_IFNAME=^"},
	} {
		fs := synthFindings(t, Options{},
			"# synthetic",
			"h1:1:1 [0] NCCL INFO NET/IB : No device found.",
			"h1:1:1 [0] NCCL INFO NET/Socket : Using "+c.devices,
			"h1:1:1 [0] NCCL INFO Using network Socket")
		f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn)
		if !strings.Contains(f.Fix, c.want) || strings.Contains(f.Fix, c.not) {
			t.Errorf("%s: fix %s\nwant %q, not %q", c.devices, f.Fix, c.want, c.not)
		}
	}
}

// socketIfnameFix excludes bad interfaces by family prefix only when no
// good one shares the prefix: Docker's br-<id> beside OVN's br-ex takes
// the exact form, which keeps br-ex.
func TestSocketIfnameFixPrefixSparesGood(t *testing.T) {
	for _, c := range []struct {
		bad, good []string
		want      string
	}{
		{[]string{"br-0123456789ab 172.18.0.1"}, []string{"br-ex"}, "NCCL_SOCKET_IFNAME=^=docker0,lo,br-0123456789ab "},
		{[]string{"br-0123456789ab 172.18.0.1", "tailscale0 100.72.221.35"}, []string{"eth0"}, "NCCL_SOCKET_IFNAME=^docker,lo,br-,tailscale;"},
		{[]string{"lxcbr0 10.0.3.1"}, []string{"lo_roce"}, "NCCL_SOCKET_IFNAME=^=docker0,lo,lxcbr0 "},
	} {
		if got := socketIfnameFix(c.bad, c.good); !strings.Contains(got, c.want) {
			t.Errorf("%v beside %v: %q, want %q", c.bad, c.good, got, c.want)
		}
	}
}
