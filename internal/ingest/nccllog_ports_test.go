package ingest

import (
	"os"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// NCCL 2.27 and later print each port they open at INFO, with its speed
// (Mb/s: ncclIbSpeed × ncclIbWidth in net_ib.cc), verbs provider, PCI path
// and adaptive routing. The [n] is the verbs device index; the "NET/IB :
// Using" list after it gives NCCL's own index.
func TestCorpusPortLinesSpark(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.28.9-dgx-spark-gb10-roce-200g-port-lines-gid0-allgather.txt")
	if len(l.IBPorts) != 4 {
		t.Fatalf("%d port lines, want 4 (2 hosts x 2 ports)", len(l.IBPorts))
	}
	p := l.IBPorts[0]
	if p.Host != "spark-4440" || p.Device != "rocep1s0f1" || p.Index != 1 || p.Port != 1 || p.LinkLayer != "RoCE" ||
		p.Provider != "Mlx5" || p.Speed != 200*unit.Gbps || p.AR != 0 || p.PCIAddr() != "0000:01:00.0" || p.Evidence.Line != 24 {
		t.Errorf("port 0 = %+v (PCI %q)", p, p.PCIAddr())
	}
	if a := l.IBPorts[2].PCIAddr(); a != "0002:01:00.0" {
		t.Errorf("roceP2p1s0f1 PCI address %q, want 0002:01:00.0", a)
	}
	// NCCL's indices come from the Using lists: 0 and 1, not the verbs 1 and 3.
	if len(l.IBDevices) != 4 {
		t.Fatalf("IB devices %+v", l.IBDevices)
	}
	for _, d := range l.IBDevices {
		want := map[string]int{"rocep1s0f1": 0, "roceP2p1s0f1": 1}[d.Name]
		if d.Index != want || d.Port != 1 || !strings.Contains(d.Evidence.Text, "NET/IB : Using") {
			t.Errorf("device %+v, want NCCL index %d cited from its Using line", d, want)
		}
	}
	// One speed per host and port; the virtual devices say the same rate.
	sp := l.LinkSpeeds()
	if len(sp) != 4 || sp[0].Device != "rocep1s0f1" || sp[0].Rate != 200*unit.Gbps || sp[0].Evidence.Line != 24 {
		t.Errorf("speeds %+v", sp)
	}
	if l.Comm.Ranks != 2 || l.Comm.Nodes != 2 || l.Comm.LocalRanks != 1 || l.Comm.MNNVL.Line != 0 {
		t.Errorf("comm %+v", l.Comm)
	}
}

// The port lines of one host with NCCL_IB_HCA naming 8 of 12 devices:
// "[11] mlx5_11" is the verbs index, and no Using list follows in the
// excerpt, so the devices are known from the port lines alone.
func TestCorpusPortLinesHCASubset(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.27.5-sglang-port-lines-400g-roce-pcipath-ib-hca-8-of-12.txt")
	if len(l.IBPorts) != 2 || l.IBPorts[1].Device != "mlx5_11" || l.IBPorts[1].Index != 11 || l.IBPorts[1].PCIAddr() != "0000:da:00.0" {
		t.Fatalf("ports %+v", l.IBPorts)
	}
	if len(l.IBDevices) != 2 || !l.RoCE() {
		t.Errorf("devices %+v", l.IBDevices)
	}
	// mlx5_2's speed from its port line; mlx5_0's only from its virtual device.
	got := map[string]unit.BitRate{}
	for _, s := range l.LinkSpeeds() {
		got[s.Device] = s.Rate
	}
	if len(got) != 3 || got["mlx5_0"] != 400*unit.Gbps || got["mlx5_2"] != 400*unit.Gbps || got["mlx5_11"] != 400*unit.Gbps {
		t.Errorf("speeds %v", got)
	}
	if e := l.EnvValues("NCCL_IB_HCA"); len(e) != 1 || !strings.HasSuffix(e[0].Value, "mlx5_11") {
		t.Errorf("NCCL_IB_HCA %+v", e)
	}
}

// Port lines as the NCCL sources print them: 2.28 (provider, ar), 2.30
// (oooRqSize after ar), 2.3-2.19 (name:port only), an IB port with
// adaptive routing on. Lines that are not a port are refused.
func TestParseIBPort(t *testing.T) {
	cases := []struct {
		rest string
		ok   bool
		want IBPort
	}{
		{"[2] mlx5_2:uverbs2:1/RoCE provider=Mlx5 speed=400000 context=0x5563d0080110 pciPath=/sys/devices/pci0000:37/0000:3b:00.0 ar=0", true,
			IBPort{Index: 2, Device: "mlx5_2", Port: 1, LinkLayer: "RoCE", Provider: "Mlx5", Speed: 400 * unit.Gbps, PCIPath: "/sys/devices/pci0000:37/0000:3b:00.0", AR: 0}},
		{"[0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=800000 context=0x1 pciPath=/sys/devices/pci0000:00/0000:0a:00.0 ar=1 oooRqSize=0", true,
			IBPort{Index: 0, Device: "mlx5_0", Port: 1, LinkLayer: "IB", Provider: "Mlx5", Speed: 800 * unit.Gbps, PCIPath: "/sys/devices/pci0000:00/0000:0a:00.0", AR: 1}},
		{"[1] bnxt_re1:uverbs1:1/RoCE provider=None speed=100000 context=0x2 pciPath=/sys/devices/pci0000:40/0000:41:00.0 ar=0", true,
			IBPort{Index: 1, Device: "bnxt_re1", Port: 1, LinkLayer: "RoCE", Provider: "None", Speed: 100 * unit.Gbps, PCIPath: "/sys/devices/pci0000:40/0000:41:00.0", AR: 0}},
		{"[0] mlx5_0:1/RoCE ", true, IBPort{Index: 0, Device: "mlx5_0", Port: 1, LinkLayer: "RoCE", AR: -1}},
		{"[0]mlx5_0:1/RoCE", true, IBPort{Index: 0, Device: "mlx5_0", Port: 1, LinkLayer: "RoCE", AR: -1}},
		// speed 0 or beyond the table, a port 0, a socket-like body: not read.
		{"[0] mlx5_0:uverbs0:1/RoCE speed=99999999 ar=2", true, IBPort{Index: 0, Device: "mlx5_0", Port: 1, LinkLayer: "RoCE", AR: -1}},
		{"[0] mlx5_0:uverbs0:0/RoCE speed=100000", false, IBPort{}},
		{"[0] eth0:10.0.0.1<0>", false, IBPort{}},
		{"[x] mlx5_0:1/RoCE", false, IBPort{}},
		{"[RO]; OOB eth0:10.0.0.1<0>", false, IBPort{}},
	}
	for _, c := range cases {
		p, ok := parseIBPort(c.rest)
		if ok != c.ok || ok && p != c.want {
			t.Errorf("parseIBPort(%q) = %+v, %v; want %+v, %v", c.rest, p, ok, c.want, c.ok)
		}
	}
}

// A port line before the Using list, then the list: one device, with
// NCCL's index and the Using line as evidence; a second list does not move
// it again.
func TestIBDeviceIndexFromUsingList(t *testing.T) {
	l := parseLog(t, strings.Join([]string{ // synthetic, in NCCL 2.28's format
		"h1:1:1 [0] NCCL INFO NET/IB: [3] mlx5_3:uverbs3:1/RoCE provider=Mlx5 speed=100000 context=0x1 pciPath=/sys/devices/pci0000:00/0000:17:00.0 ar=0",
		"h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_3:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
		"h1:1:1 [0] NCCL INFO NET/IB : Using [5]mlx5_3:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
	}, "\n"))
	if len(l.IBDevices) != 1 || l.IBDevices[0].Index != 0 || l.IBDevices[0].Evidence.Line != 2 {
		t.Errorf("devices %+v", l.IBDevices)
	}
	if s := l.LinkSpeeds(); len(s) != 1 || s[0].Rate != 100*unit.Gbps || s[0].Evidence.Line != 1 {
		t.Errorf("speeds %+v", s)
	}
}

// A merged device's ports: one a port line states keeps that line's
// speed, once; only the other takes a share of the sum, so NICs per node
// × speed counts each port once.
func TestMergedDeviceBesidePortLine(t *testing.T) {
	l := parseLog(t, strings.Join([]string{ // synthetic, in NCCL 2.28's format
		"h1:1:1 [0] NCCL INFO NET/IB: [0] mlx5_0:uverbs0:1/RoCE provider=Mlx5 speed=400000 context=0x1 pciPath=/sys/devices/pci0000:00/0000:17:00.0 ar=0",
		"h1:1:1 [0] NCCL INFO NET/IB : Made virtual device [0] name=mlx5_0+mlx5_1 speed=800000 ndevs=2",
	}, "\n"))
	s := l.LinkSpeeds()
	if len(s) != 2 || s[0].Device != "mlx5_0" || s[0].Evidence.Line != 1 || s[1].Device != "mlx5_1" || s[1].Rate != 400*unit.Gbps || s[1].Evidence.Line != 2 {
		t.Errorf("speeds %+v, want mlx5_0 from line 1 and mlx5_1's 400 Gb/s share from line 2", s)
	}
}

// NCCL asks a plugin for its newest interface first: "Failed to find
// ncclNetPlugin_v8 symbol." before "Loaded net plugin ... (v6)" is no
// failure; "(>= v5) ... not supported" is.
func TestPluginSymbolProbeNotFailure(t *testing.T) {
	for _, rel := range []string{"nccl-log/nccl-hpcx-ibext-sharp-v6-plugin-4nic-ib-tree-nccl1357.txt", "nccl-log/nccl-ibext-disabled-by-env-net-cc-55-fallback-roce-dgxa100-nccl676.txt"} {
		if l := ncclLog(t, rel); l.PluginFailures.Count != 0 || l.Plugins.Count < 3 {
			t.Errorf("%s: plugin lines %d, failures %d; want none failed", rel, l.Plugins.Count, l.PluginFailures.Count)
		}
	}
	if !pluginFailed("Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.") {
		t.Error("an unsupported plugin read as a probe")
	}
}

// "Assigned NET plugin IB to comm" (NCCL 2.27+, subsystems INIT and NET)
// names the network when "Using network" (INIT only) is filtered out.
func TestAssignedNetPlugin(t *testing.T) {
	text, err := os.ReadFile(corpusDir + "/nccl-log/nccl-2.28.9-dgx-spark-gb10-roce-200g-port-lines-gid0-allgather.txt")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, ln := range strings.Split(string(text), "\n") {
		if !strings.Contains(ln, "Using network") {
			kept = append(kept, ln)
		}
	}
	l := parseLog(t, strings.Join(kept, "\n"))
	if len(l.Networks) != 2 || l.Networks[0].Name != "IB" || !strings.Contains(l.Networks[0].Evidence.Text, "Assigned NET plugin IB to comm") {
		t.Errorf("networks %+v", l.Networks)
	}
}

// "comm ... MNNVL 1": the communicator spans a multi-node NVLink domain.
func TestCorpusMNNVL(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-mnnvl-1-clique-p2p-mnnvl-nnodes-1-gb200.txt")
	if l.Comm.MNNVL.Line != 5 || l.Comm.Nodes != 1 || l.Comm.LocalRanks != 4 {
		t.Errorf("comm %+v", l.Comm)
	}
	if len(l.Channels) != 1 || l.Channels[0].Kind != "P2P" || l.Channels[0].Net != "MNNVL" {
		t.Errorf("channels %+v", l.Channels)
	}
	if q := ncclLog(t, "nccl-log/nccl-quoted-gt-prefix-nvls-nchannels-0-2-nodes-4-local-msswift6107.txt"); q.Comm.Ranks != 8 || q.Comm.Nodes != 2 || q.Comm.LocalRanks != 4 || q.Comm.MNNVL.Line != 0 {
		t.Errorf("quoted MNNVL 0 comm %+v", q.Comm)
	}
}

// NCCL 2.30 prints the function before a queue pair's line and names the
// QP number qp_num (synthetic, in connect.cc's format).
func TestQPLineWithFunction(t *testing.T) {
	l := parseLog(t, "h1:1:2 [0] NCCL INFO NET/IB: ncclIbConnect: NCCL Dev 0 IbDev 0 Port 1 qp_num 704 mtu 5 GID 3 (0/1000A0AFFFF0000) ctsFifoRkey=0x1 ctsFifoLkey=0x1")
	if len(l.QPs) != 1 || l.QPs[0].GIDIndex != 3 || l.QPs[0].GID != "::ffff:10.10.0.1" || len(l.MTUs) != 1 || l.MTUs[0].MTU != 4096 {
		t.Errorf("QPs %+v MTUs %+v", l.QPs, l.MTUs)
	}
}

// A device list shortened with an ellipsis keeps NCCL's count in each
// device it names; a whole list, or one whose last index is its length,
// does not (SYNTHETIC lists; NVIDIA/aicr#1413 shortens with "…"). An
// ellipsis glued to an index is read as the cut, not as a device.
func TestNetDevicesElided(t *testing.T) {
	for _, c := range []struct {
		list      string
		n, elided int
	}{
		{"[0]rocep161s0_dma:1/RoCE … [7]rocep202s0_dma:1/RoCE [RO]; OOB eth0:10.0.0.1<0>", 2, 8},
		{"[0]mlx5_0:1/IB ... [3]mlx5_3:1/IB", 2, 4},
		{"[0]mlx5_0:1/IB [...] [15]mlx5_15:1/IB", 2, 16},
		{"[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]", 2, 0},
		{"[0]mlx5_0:1/RoCE … [1]mlx5_1:1/RoCE", 2, 0},
		{"… [RO]", 0, 0},
		// The ellipsis glued to an index: no device named "...", and
		// the device after it kept.
		{"[0]mlx5_0:1/IB [1]... [7]mlx5_7:1/IB", 2, 8},
		{"[0]mlx5_0:1/IB ...[7]mlx5_7:1/IB", 2, 8},
		{"[0]mlx5_0:1/IB [...][7]mlx5_7:1/IB", 2, 8},
		// Cut at its end: the last index shown counts, a device cut
		// after its index too; a trailing ellipsis is at least one more.
		{"[0]mlx5_0:1/RoCE [1]... ; OOB eth0:10.0.0.1<0>", 1, 2},
		{"[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ... ;", 2, 3},
		{"[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE … [RO]; OOB eth0:10.0.0.1<0>", 2, 3},
	} {
		ds := parseNetDevices(c.list)
		if len(ds) != c.n {
			t.Fatalf("%s: %d devices, want %d", c.list, len(ds), c.n)
		}
		for _, d := range ds {
			if d.Elided != c.elided {
				t.Errorf("%s: %s elided %d, want %d", c.list, d.Name, d.Elided, c.elided)
			}
		}
	}
}
