package collective

import (
	"bytes"
	"strings"
	"testing"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
)

// TestHostCauses: each host-side cause changes busbw the way public
// reports show, on the test network (a healthy fabric):
//   - PCIe ACS on: peer-to-peer traffic, GPUDirect RDMA's, goes up to the
//     root complex and back down the switch uplink: about half the
//     bandwidth ("Did you make sure ACS was disabled? That could explain
//     why bandwidth is halved", NVIDIA/nccl-tests#112; "all traffic goes
//     back to the CPU and your bandwidth is halved", nccl-tests#156; a VM
//     at ~56% of line rate reached it once ACS was set, NVIDIA/nccl#949).
//   - GPUDirect RDMA off: data bounces through host memory, 15.04 GB/s on
//     a 400G port (corpus allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc:
//     "GDR 0"), about a third of what the port carries.
//   - NICs on the other CPU socket (gpu_nic SYS): NCCL turns GPUDirect
//     RDMA off beyond PXB by default (NVIDIA/DeepLearningExamples#383:
//     "GPU Direct RDMA Disabled ... distance 5 > 4") and the data crosses
//     the socket link; NVIDIA/nccl#595 saw about 3 GB/s across two nodes
//     of 200G HDR with NICs at SYS.
//   - A 100G NIC in a PCIe Gen3 x8 slot: "63.008 Gb/s available PCIe
//     bandwidth" (corpus mlnx-qos-...-pcie-x8-cx5blog dmesg), about half
//     of the port.
//   - A per-step host overhead (a hypervisor's exits on every post and
//     poll): small and medium calls slow down, large ones barely (NCCL
//     sessions in VMs: NVIDIA/nccl-tests#309, NVIDIA/nccl#1453).
func TestHostCauses(t *testing.T) {
	ring := map[string]string{"NCCL_ALGO": "ring"}
	busbw := func(srv gpu.Server, servers, ppn int, env map[string]string, size int64) float64 {
		c := mustComm(t, srv, servers, ppn, env)
		r, _ := runOn(t, c, 1, Call{Func: AllReduce, Bytes: size})
		return busBW(r[0], c.NRanks)
	}
	time := func(srv gpu.Server, size int64) float64 {
		c := mustComm(t, srv, 2, 8, nil)
		r, _ := runOn(t, c, 4, Call{Func: AllReduce, Bytes: size})
		return r[0].Time().Micros()
	}
	check := func(name string, base, got, lo, hi float64) {
		t.Logf("%s: %.2f -> %.2f (x%.2f)", name, base, got, got/base)
		if r := got / base; r < lo || r > hi {
			t.Errorf("%s: x%.2f, want x%.2f..x%.2f", name, r, lo, hi)
		}
	}

	dgx := preset(t, "dgx-a100")
	base := busbw(dgx, 2, 8, ring, 1<<30)
	acs := dgx
	acs.ACS = true
	check("ACS on, 2 × 8 A100 × 8 × 200G, ring, 1 GiB", base, busbw(acs, 2, 8, ring, 1<<30), 0.4, 0.65)

	h := server("H100", 1, 1, 400*unit.Gbps, 5)
	env := map[string]string{"NCCL_ALGO": "ring", "NCCL_MAX_NCHANNELS": "2"}
	on := busbw(h, 2, 1, env, 1<<30)
	noGDR := h
	noGDR.PeerMem = false
	off := busbw(noGDR, 2, 1, env, 1<<30)
	check("GDR off, 2 × 1 H100 × 400G, 2 channels", on, off, 0.2, 0.45)
	if off < 14.3 || off > 15.8 {
		t.Errorf("GDR off: %.2f GB/s, the CCI-MOC run measured 15.04", off)
	}

	far := dgx
	far.GPUNICPaths = []gpu.Path{gpu.PXB, gpu.PXB, gpu.PXB, gpu.PXB, gpu.SYS, gpu.SYS, gpu.SYS, gpu.SYS}
	check("NICs of GPUs 4-7 on the far socket, ring, 1 GiB", base, busbw(far, 2, 8, ring, 1<<30), 0.1, 0.6)

	nic := preset(t, "a100-1nic")
	b1 := busbw(nic, 2, 8, ring, 1<<30)
	x8 := nic
	x8.NICPCIe, x8.NICPCIeWidth = 3, 8
	check("100G NIC in PCIe Gen3 x8, ring, 1 GiB", b1, busbw(x8, 2, 8, ring, 1<<30), 0.45, 0.65)

	slow := dgx
	slow.StepOverhead = 5 * unit.Microsecond
	check("5 µs per network step, 8 B time", time(dgx, 8), time(slow, 8), 1.2, 3)
	check("5 µs per network step, 1 MiB time", time(dgx, 1<<20), time(slow, 1<<20), 1.15, 3)
	check("5 µs per network step, 1 GiB busbw", base, busbw(slow, 2, 8, ring, 1<<30), 0.9, 1.01)
}

// TestPXN: on servers of 8 GPUs with a NIC each, an AllToAll's traffic
// between servers stays on the rails with PXN (NCCL's default since 2.12:
// the sender hands its data over NVLink to the GPU next to the NIC on the
// peer's rail), and crosses rails with NCCL_PXN_DISABLE=1 or
// NCCL_P2P_PXN_LEVEL=0; a rail-optimised fabric carries cross-rail
// traffic through its spines.
func TestPXN(t *testing.T) {
	srv := preset(t, "hgx-h100")
	cross := func(env map[string]string) (int64, int64) {
		c := mustComm(t, srv, 2, 8, env)
		tr, err := c.NetTraffic(Call{Func: AllToAll, Bytes: 64 << 20}, 1, 4096)
		if err != nil {
			t.Fatal(err)
		}
		var on, off int64
		for _, x := range tr {
			if x.Src%srv.NICs == x.Dst%srv.NICs {
				on += x.Bytes
			} else {
				off += x.Bytes
			}
		}
		return on, off
	}
	if on, off := cross(nil); off != 0 || on == 0 {
		t.Errorf("PXN on: %d bytes on the rails, %d across", on, off)
	}
	for _, env := range []map[string]string{{"NCCL_PXN_DISABLE": "1"}, {"NCCL_P2P_PXN_LEVEL": "0"}} {
		if on, off := cross(env); off <= 6*on {
			t.Errorf("%v: %d bytes on the rails, %d across; want 7 in 8 across", env, on, off)
		}
	}
	// The NVLink hop costs time but leaves the bandwidth to the NICs.
	c := mustComm(t, srv, 2, 8, nil)
	d := mustComm(t, srv, 2, 8, map[string]string{"NCCL_PXN_DISABLE": "1"})
	r1, _ := runOn(t, c, 1, Call{Func: AllToAll, Bytes: 256 << 20})
	r2, _ := runOn(t, d, 1, Call{Func: AllToAll, Bytes: 256 << 20})
	t.Logf("AllToAll 256 MiB on the test network: PXN %s, without %s", r1[0].Time(), r2[0].Time())
	if x := float64(r1[0].Time()) / float64(r2[0].Time()); x < 0.9 || x > 1.1 {
		t.Errorf("PXN changes a non-blocking fabric's AllToAll time by x%.2f", x)
	}
}

// TestHostGDRFlush: NCCL's proxy flushes every Simple receive of
// GPUDirect RDMA (a loopback RDMA read through the NIC) on Ampere and
// earlier only, from 2.15 (paths.cc ncclTopoNeedFlush: "Flush is required
// on Ampere and earlier"); NCCL_NET_FORCE_FLUSH=1 brings it back on Hopper
// and NCCL_GDR_FLUSH_DISABLE=1 turns it off (net_ib.cc); without GDR
// there is nothing to flush.
func TestHostGDRFlush(t *testing.T) {
	a100 := server("A100", 8, 8, 200*unit.Gbps, 4)
	h100 := server("H100", 8, 8, 400*unit.Gbps, 5)
	noPeer := a100
	noPeer.PeerMem = false
	for _, tc := range []struct {
		name    string
		srv     gpu.Server
		env     map[string]string
		version string
		want    bool
	}{
		{"A100", a100, nil, "2.30.7", true},
		{"H100", h100, nil, "2.30.7", false},
		{"H100 before 2.15", h100, nil, "2.14.3", true},
		{"H100, NCCL_NET_FORCE_FLUSH=1", h100, map[string]string{"NCCL_NET_FORCE_FLUSH": "1"}, "2.30.7", true},
		{"A100, NCCL_GDR_FLUSH_DISABLE=1", a100, map[string]string{"NCCL_GDR_FLUSH_DISABLE": "1"}, "2.30.7", false},
		{"A100 without GDR", noPeer, nil, "2.30.7", false},
	} {
		v, _ := ParseVersion(tc.version)
		env := map[string]string{"NCCL_IB_GID_INDEX": "3"}
		for k, x := range tc.env {
			env[k] = x
		}
		cfg, err := NewConfig(env, v)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewComm(cfg, System{Server: tc.srv, Hosts: DenseHosts(2, tc.srv.NICs)}, []int{0, 1}, AllGPUs(8))
		if err != nil {
			t.Fatal(err)
		}
		for r := range c.NRanks {
			if c.flush[r] != tc.want {
				t.Errorf("%s: rank %d flushes %v, want %v", tc.name, r, c.flush[r], tc.want)
				break
			}
		}
	}
	if _, err := NewConfig(map[string]string{"NCCL_NET_FORCE_FLUSH": "yes"}, DefaultVersion); err == nil {
		t.Error("NCCL_NET_FORCE_FLUSH=yes: no error")
	}
}

// TestMergedNICs: NCCL from 2.20 merges the ports of one NIC card (the
// same PCI device but for the function, one system GUID) into one net
// device of their summed speed, and alternates each connection's queue
// pairs between the ports, splitting every message over them (net_ib.cc
// ncclIbGetPciPath "Merge multi-port NICs into the same PCI device",
// ncclIbFindMatchingDev; nqps = qpsPerConn × ndevs; NCCL_IB_MERGE_NICS).
// OCI's BM.GPU.H100.8 has 8 such cards of 2 × 200G (oracle-quickstart/
// oci-hpc samples/gpu/H100-topology.xml): merged, NCCL's model sees 8 ×
// 400G and takes NVLSTree at 1 GiB, as the public run's 446-465 GB/s
// shows (testdata/public/oci-h100-2n-roce200g-ocitutorials.txt); 16
// separate 200G devices would make it Ring (NVLSTree's heads at 200G).
func TestMergedNICs(t *testing.T) {
	oci := server("H100", 8, 16, 200*unit.Gbps, 5)
	oci.CPU, oci.CardPorts = gpu.Intel, 2
	for _, c := range []struct {
		version string
		env     map[string]string
		devs    int
		algo    Algo
	}{
		{"2.21.5", nil, 8, NVLSTree},
		{"2.21.5", map[string]string{"NCCL_IB_MERGE_NICS": "0"}, 16, Ring},
		{"2.19.3", map[string]string{"NCCL_IB_GID_INDEX": "3"}, 16, Ring}, // before 2.20 every port is a device
	} {
		v, _ := ParseVersion(c.version)
		cfg, err := NewConfig(c.env, v)
		if err != nil {
			t.Fatal(err)
		}
		cm, err := NewComm(cfg, System{Server: oci, Hosts: DenseHosts(2, oci.NICs)}, []int{0, 1}, AllGPUs(8))
		if err != nil {
			t.Fatal(err)
		}
		ch, _ := cm.Plan(Call{Func: AllReduce, Bytes: 1 << 30})
		if cm.dev.NICs != c.devs || ch.Algo != c.algo {
			t.Errorf("NCCL %s %v: %d devices, %s at 1 GiB; want %d, %s", c.version, c.env, cm.dev.NICs, ch.Algo, c.devs, c.algo)
		}
	}
	// One channel over one dual-port card: merged, its messages go half
	// on each port; as two devices, the channel uses one port.
	card := server("H100", 1, 2, 200*unit.Gbps, 5)
	card.CardPorts = 2
	one := map[string]string{"NCCL_ALGO": "ring", "NCCL_MAX_NCHANNELS": "1"}
	run := func(env map[string]string) (float64, float64) {
		c := mustComm(t, card, 2, 1, env)
		r, n := runOn(t, c, 1, Call{Func: AllReduce, Bytes: 256 << 20})
		return busBW(r[0], c.NRanks), float64(min(n.Wire[0], n.Wire[1])) / float64(max(n.Wire[0], n.Wire[1]))
	}
	merged, mShare := run(one)
	one["NCCL_IB_MERGE_NICS"] = "0"
	apart, aShare := run(one)
	t.Logf("one channel, 2 × 200G card: merged %.1f GB/s (port bytes %.2f:1), as two devices %.1f (%.2f:1)", merged, mShare, apart, aShare)
	if mShare < 0.95 || aShare > 0.05 || merged < 1.3*apart {
		t.Errorf("merged %.1f GB/s with ports %.2f:1, apart %.1f with %.2f:1: want both ports evenly used and faster when merged", merged, mShare, apart, aShare)
	}
}

// TestTopoNICRate: a topology file's NIC speed is what NCCL's search
// counts. On OCI BM.GPU.H100.8 (16 × 200G RoCE ports on 8 dual-port
// cards) NCCL 2.19.3, which does not merge a card's ports, finds 15 ring
// channels at 24 GB/s from the ports' 25 GB/s (NVLink carries 15 of
// them), 30 once duplicated, and leaves a port idle; with OCI's
// H100-topology.xml, whose net elements say speed="180000" (22.5 GB/s),
// the ladder's next speed, 22, fits one channel on each of the 16 ports:
// 32 channels, every port used (NVIDIA/nccl#1222's 4-server 2.19.3 run
// moves 385-391 GB/s of busbw, above 15 ports' line rate).
func TestTopoNICRate(t *testing.T) {
	v, _ := ParseVersion("2.19.3")
	srv := ociCards(serverOf("H100", 16, 200*unit.Gbps, 5, gpu.PXB, gpu.Intel))
	env := map[string]string{"NCCL_IB_GID_INDEX": "3"}
	for _, tc := range []struct {
		topo        unit.BitRate
		graph, plan int
	}{{0, 15, 30}, {180 * unit.Gbps, 16, 32}} {
		srv.TopoNICRate = tc.topo
		cm := mustCommOf(t, v, srv, 4, 8, env)
		ch, _ := cm.Plan(Call{Func: AllReduce, Bytes: 1 << 30})
		if g := cm.Tuning.Ring.NChannels; g != tc.graph || ch.Algo != Ring || ch.Channels != tc.plan {
			t.Errorf("topology file speed %v: ring graph of %d channels, %s on %d channels at 1 GiB; want %d, Ring on %d", tc.topo, g, ch.Algo, ch.Channels, tc.graph, tc.plan)
		}
	}
	// From 2.20 NCCL merges each card's two ports into a device named
	// mlx5_0+mlx5_1, which the file's per-port nets do not name: the
	// merged device keeps its plugin's 400G and the search does not move.
	v, _ = ParseVersion("2.20.3")
	graphs := map[unit.BitRate]int{}
	for _, topo := range []unit.BitRate{0, 180 * unit.Gbps} {
		srv.TopoNICRate = topo
		cm := mustCommOf(t, v, srv, 4, 8, env)
		graphs[topo] = cm.Tuning.Ring.NChannels
		if noted := strings.Contains(strings.Join(cm.Notes, "\n"), "topology file's NIC speed"); noted != (topo > 0) {
			t.Errorf("2.20.3, topology file speed %v: notes %q", topo, cm.Notes)
		}
	}
	if graphs[0] != graphs[180*unit.Gbps] {
		t.Errorf("2.20.3 merged ports: ring graph of %d channels with the file's speed, %d without; want the same", graphs[180*unit.Gbps], graphs[0])
	}
}

// TestGB10Channels: NCCL 2.28.9 on a DGX Spark pair with the port's two
// PCIe functions prints "16 coll channels" (the QSFP-switch run's
// NCCL_DEBUG=INFO log, testdata/corpus/nccl-log/nccl-2.28.9-dgx-spark-gb10-roce-200g-port-lines-gid0-allgather.txt).
// The GB10's PCI link, which NCCL reads as 2.5 GT/s × 16 (3 GB/s; its
// C2C link is not counted in the search's total, search.cc getTotalBw),
// starts the search at 3 GB/s a channel; each function's Gen5 x4 link (12
// GB/s) carries 4 of them: 8 channels, doubled by ncclTopoPostset. Before
// the GB10's total was its Gen5 x16 figure and the search stopped at one
// channel of 24 GB/s a function, 4 after the doubling.
func TestGB10Channels(t *testing.T) {
	v, _ := ParseVersion("2.28.9")
	cm := mustCommOf(t, v, sparkFunctions(), 2, 1, nil)
	ring := cm.Tuning.Ring
	ch, _ := cm.Plan(Call{Func: AllGather, Bytes: 1 << 30})
	if ring.NChannels != 8 || ring.BWInter != 3 || cm.Tuning.NChannels != 16 || ch.Algo != Ring || ch.Channels != 16 {
		t.Errorf("DGX Spark pair, two functions: ring graph %d × %v GB/s, %d coll channels, %s on %d at 1 GiB; want 8 × 3, 16, Ring on 16",
			ring.NChannels, ring.BWInter, cm.Tuning.NChannels, ch.Algo, ch.Channels)
	}
}

// TestGB10NoGDR: a GB10 has no GPUDirect RDMA (CUDA's
// cudaDevAttrGPUDirectRDMASupported is 0 on its unified memory, NVIDIA's
// DGX Spark forum answer; NCCL 2.28.9 on a Spark prints "GPU Direct RDMA
// Disabled" for both NIC functions), so NCCL puts its network buffers in
// host memory and the twin must say so. The GB10 reaches that memory over
// NVLink-C2C, not PCIe: the PCIe host figures (HostChannelBW) would cap
// the Spark pair's two-function ring at 21.8 GB/s of busbw at 16 GiB,
// under the 22.9-23.7 that three public GB10 pairs move at 8-16 GiB
// (held-out groups 3 and 21).
func TestGB10NoGDR(t *testing.T) {
	v, _ := ParseVersion("2.28.9")
	cm := mustCommOf(t, v, sparkFunctions(), 2, 1, nil)
	if cm.GDR || cm.gdrOf(0) || !strings.Contains(strings.Join(cm.Notes, "\n"), "GPU Direct RDMA Disabled") {
		t.Errorf("DGX Spark pair: GDR %v, notes %q; want GPU Direct RDMA Disabled", cm.GDR, cm.Notes)
	}
	var log bytes.Buffer
	if err := cm.WriteInfoLog(&log, logHosts(2, 2)); err != nil {
		t.Fatal(err)
	}
	if want := "NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'\n"; !strings.Contains(log.String(), want) {
		t.Errorf("DGX Spark pair: the INFO log has no %q (NCCL 2.28.9's line on a Spark)", want)
	}
	rs, _ := runOn(t, cm, 1, Call{Func: AllGather, Bytes: 16 << 30})
	if bw := busBW(rs[0], cm.NRanks); bw < 22.9 {
		t.Errorf("DGX Spark pair, two functions, all_gather 16 GiB: %.2f GB/s busbw, want at least 22.9 (the public GB10 pairs at 8-16 GiB)", bw)
	}
}

// TestSearchPCIeLinks: NCCL's search bounds a channel by the bandwidth of
// each link on a GPU's path to its NIC, a PCI link's being width × speed
// / 80 (v2.28.9-1 src/graph/topo.cc ncclTopoAddPci, paths.cc
// ncclTopoSetPaths: the least link of the path). A 100G NIC trained at
// Gen3 x8 (6 GB/s) carries one channel of 6 GB/s, not the two its x16
// figure would; one GPU a server on a Gen4 link (gpu_pcie: 4, 24 GB/s)
// carries one channel of 24 GB/s, not the two of its model's Gen5 link.
func TestSearchPCIeLinks(t *testing.T) {
	x8 := preset(t, "a100-1nic")
	x8.NICPCIe, x8.NICPCIeWidth = 3, 8
	if ring, _ := search(node{srv: x8, nics: 1, inter: true, ppn: 8}); ring.NChannels != 1 || ring.BWInter != 6 {
		t.Errorf("8 A100, one 100G NIC in Gen3 x8: ring graph %d × %v GB/s, want 1 × 6", ring.NChannels, ring.BWInter)
	}
	gen4 := preset(t, "hgx-h100")
	gen4.NICs, gen4.GPUPCIe = 1, 4
	if ring, _ := search(node{srv: gen4, nics: 1, inter: true, ppn: 1}); ring.NChannels != 1 || ring.BWInter != 24 {
		t.Errorf("one H100 a server on a Gen4 link, one 400G NIC: ring graph %d × %v GB/s, want 1 × 24", ring.NChannels, ring.BWInter)
	}
}

// TestSearchCPUPath: a path from a GPU to its NIC through a CPU bounds
// NCCL's channels as its links do (v2.25.1-1 src/graph/search.cc
// followPath, paths.cc ncclTopoComputePaths): without GPUDirect RDMA the
// path goes through the GPU's CPU and is PHB; on an Intel host each PCI
// link of a PHB path gives a channel 6/5 of its bandwidth
// (INTEL_P2P_OVERHEAD), so one H100 a server on Gen5 links (48 GB/s)
// carries one channel of 40, not 48, which NCCL splits in two of 20; a
// NIC on the other socket takes a channel's bandwidth from the socket
// link too, which NCCL's topology gives 10 GB/s on Intel before 2.26
// (SKL_QPI_BW) and 22 from it (SRP_QPI_BW): four channels of 2.4 GB/s
// on 2.25.1, one of 22 on 2.26.2, not four of 12. The path's type is the
// graph's typeInter, which turns LL128 off beyond PXB (tuning.cc).
func TestSearchCPUPath(t *testing.T) {
	h100 := serverOf("H100", 1, 400*unit.Gbps, 5, gpu.PHB, gpu.Intel)
	h100.GPUs = 1
	pxb := h100
	pxb.GPUNIC = gpu.PXB
	sys := h100
	sys.GPUNIC = gpu.SYS
	emr := sys
	emr.CPUGen = gpu.EmeraldRapids
	wide := sys
	wide.SocketLink = 300
	for _, c := range []struct {
		name  string
		n     node
		ch    int
		bw    float32
		typ   gpu.Path
		ll128 bool
	}{
		{"PHB, 2.25.1", node{srv: h100, nics: 1, inter: true, ppn: 1, noGDR: []bool{true}, ver: Version{2, 25, 1}}, 2, 20, gpu.PHB, false},
		{"PXB without GPUDirect RDMA, 2.25.1", node{srv: pxb, nics: 1, inter: true, ppn: 1, noGDR: []bool{true}, ver: Version{2, 25, 1}}, 2, 20, gpu.PHB, false},
		{"PXB with GPUDirect RDMA, 2.25.1", node{srv: pxb, nics: 1, inter: true, ppn: 1, ver: Version{2, 25, 1}}, 2, 24, gpu.PXB, true},
		{"SYS, 2.25.1", node{srv: sys, nics: 1, inter: true, ppn: 1, noGDR: []bool{true}, ver: Version{2, 25, 1}}, 4, 2.4, gpu.SYS, false},
		{"SYS, 2.26.2", node{srv: sys, nics: 1, inter: true, ppn: 1, noGDR: []bool{true}, ver: Version{2, 26, 2}}, 1, 22, gpu.SYS, false},
		{"SYS, Emerald Rapids, 2.25.1", node{srv: emr, nics: 1, inter: true, ppn: 1, noGDR: []bool{true}, ver: Version{2, 25, 1}}, 4, 2.4, gpu.SYS, false},
		{"SYS, Emerald Rapids, 2.26.2", node{srv: emr, nics: 1, inter: true, ppn: 1, noGDR: []bool{true}, ver: Version{2, 26, 2}}, 2, 20, gpu.SYS, false},
		{"SYS, a 300 GB/s socket_link, 2.25.1", node{srv: wide, nics: 1, inter: true, ppn: 1, noGDR: []bool{true}, ver: Version{2, 25, 1}}, 4, 2.4, gpu.SYS, false},
	} {
		ring, _ := search(c.n)
		if ring.NChannels != c.ch || ring.BWInter != c.bw || ring.TypeInter != c.typ {
			t.Errorf("one H100 a server, one 400G NIC, %s: ring graph %d × %v GB/s over %s, want %d × %v over %s",
				c.name, ring.NChannels, ring.BWInter, ring.TypeInter, c.ch, c.bw, c.typ)
		}
		if got := ll128Enabled(c.n.ver, ring, 90, 90); got != c.ll128 {
			t.Errorf("%s: LL128 enabled %v, want %v", c.name, got, c.ll128)
		}
	}
	// GPU by GPU (ncclTopoCheckGdr takes a GPU and a NIC): with
	// NCCL_NET_GDR_LEVEL=PIX, the GPU at PIX keeps GPUDirect RDMA and its
	// path, the one at PXB goes through the CPU, and the ring, which
	// enters the server at one GPU and leaves it at the other, is PHB;
	// the socket transport has no GPUDirect RDMA at all.
	two := serverOf("H100", 1, 400*unit.Gbps, 5, gpu.PXB, gpu.Intel)
	two.GPUs, two.GPUNICPaths = 2, []gpu.Path{gpu.PIX, gpu.PXB}
	for _, c := range []struct {
		name string
		env  map[string]string
		want gpu.Path
	}{
		{"NCCL_NET_GDR_LEVEL=PIX", map[string]string{"NCCL_IB_GID_INDEX": "3", "NCCL_NET_GDR_LEVEL": "PIX"}, gpu.PHB},
		{"NCCL_IB_DISABLE=1", map[string]string{"NCCL_IB_DISABLE": "1"}, gpu.PHB},
		{"GPUDirect RDMA on both", map[string]string{"NCCL_IB_GID_INDEX": "3"}, gpu.PXB},
	} {
		cm := mustCommOf(t, Version{2, 25, 1}, two, 2, 2, c.env)
		if got := cm.Tuning.Ring.TypeInter; got != c.want {
			t.Errorf("two H100 a server at PIX and PXB, %s: ring graph over %s, want %s", c.name, got, c.want)
		}
	}
}

// TestSocketLinkHardware: the data crossing the sockets moves at the
// hardware's link (gpu.Server.SocketBW: the CPU generation's UPI links),
// not at the figure NCCL's search believes. One H100 a server whose 400G
// NIC is on the other socket, GPUDirect RDMA off, NCCL 2.25.1: the search
// gives every Intel host from Skylake 10 GB/s whatever its generation, an
// Intel host of unknown generation keeps NCCL's 22 GB/s for the link and
// its all_gather is held under it, while an Emerald Rapids host's four
// UPI links at 20 GT/s (160 GB/s) do not hold it.
func TestSocketLinkHardware(t *testing.T) {
	far := serverOf("H100", 1, 400*unit.Gbps, 5, gpu.SYS, gpu.Intel)
	far.GPUs, far.PeerMem = 1, false
	emr := far
	emr.CPUGen = gpu.EmeraldRapids
	busbw := func(srv gpu.Server) (float64, Graph) {
		c := mustCommOf(t, Version{2, 25, 1}, srv, 2, 1, nil)
		r, _ := runOn(t, c, 1, Call{Func: AllGather, Bytes: 1 << 30})
		return busBW(r[0], c.NRanks), c.Tuning.Ring
	}
	slow, slowRing := busbw(far)
	fast, fastRing := busbw(emr)
	t.Logf("far-socket all_gather, 1 GiB: intel %.2f GB/s, emerald-rapids %.2f (ring %d × %v GB/s)", slow, fast, fastRing.NChannels, fastRing.BWInter)
	if slowRing != fastRing {
		t.Errorf("the search moved with the CPU generation on 2.25.1: %+v, %+v", slowRing, fastRing)
	}
	if slow > 22 {
		t.Errorf("Intel host of unknown generation: %.2f GB/s across a 22 GB/s socket link", slow)
	}
	if fast < 1.2*slow {
		t.Errorf("Emerald Rapids host: %.2f GB/s, want well above the %.2f NCCL's socket figure holds", fast, slow)
	}
}
