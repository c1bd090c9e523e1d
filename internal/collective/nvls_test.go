package collective

import (
	"testing"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
)

// TestNVLSTreeProxyOps: NCCL connects NVLSTree's tree across servers on
// every NVLS channel (graph/connect.cc connectNvls; transport/nvls.cc
// ncclNvlsTreeConnect) and posts, per channel, a receive and a send on
// treeUp and on each treeDown[1..2] (proxy.cc ncclProxySaveOp,
// ncclPatternNvlsTree), unmerged (only shared p2p connections group a
// call's operations, proxy.cc ProxyAppend). Blackwell has 32 NVLS
// channels across servers from 2.25 to 2.29 (nvls.cc NVLS_NCHANNELS_SM100),
// so on 2 servers of 8 B200 each GPU's proxy serves 64 operations a call;
// on n servers every tree edge of every head's pipeline carries 4 (a send
// and a receive at each end), channels × heads × 4 × (n-1) in all.
func TestNVLSTreeProxyOps(t *testing.T) {
	srv := serverOf("B200", 8, 400*unit.Gbps, 5, gpu.PXB, gpu.Intel)
	for _, servers := range []int{2, 4} {
		c := mustCommOf(t, Version{2, 29, 7}, srv, servers, 8, nil)
		call := Call{Func: AllReduce, Bytes: 8 << 20}
		ch, err := c.Plan(call)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Algo != NVLSTree || ch.Channels != 32 {
			t.Fatalf("%d servers, 8 MiB: %s/%s/%d, want NVLSTree on 32 channels", servers, ch.Algo, ch.Proto, ch.Channels)
		}
		e := builtEngine(c, call, ch)
		heads := len(c.nvlsHeads())
		total := 0
		for r, ops := range e.rankNet {
			total += len(ops)
			if servers == 2 && len(ops) != 2*ch.Channels {
				t.Errorf("2 servers: rank %d's proxy serves %d operations a call, want %d", r, len(ops), 2*ch.Channels)
			}
		}
		if want := ch.Channels * heads * 4 * (servers - 1); total != want {
			t.Errorf("%d servers: %d operations a call in all, want %d (%d channels × %d heads × 4 × %d tree edges)", servers, total, want, ch.Channels, heads, servers-1)
		}
	}
}

// TestNVLSTuningByRelease: the NVLS channels and chunk caps NCCL sets up
// (transport/nvls.cc), by release, GPU, servers, GPUs per server and
// GPU-NIC path: 16 channels on Hopper and before 2.25; on Blackwell 32
// from 2.25, 24 on one server from 2.27; from 2.30 ncclNvlsTreeSm100Tuning
// across servers: 32 channels on two servers with NVLSTree's chunk capped
// at 64 KiB (8 GPUs on 400G NICs behind PCIe switches, 48 GB/s a path),
// 24 on four (64 KiB), 24 with 256 KiB chunks on four servers of 800G NICs
// (96 GB/s), 256 KiB chunks on two servers of 4 GPUs; NCCL_NVLS_NCHANNELS
// overrides the channels, NCCL_NVLS_CHUNKSIZE the chunk (over the 2.30
// tuning too, whose cap then stands), NCCL_NVLSTREE_MAX_CHUNKSIZE the cap.
// Below 48 GB/s a path (200G) 2.30 keeps 32 channels and 128 KiB; on two
// servers of 800G NICs (96 GB/s) the cap stays 128 KiB; on four servers
// at 48 GB/s through the host bridge (PHB) 24 channels, cap 128 KiB. Up to 2.28 a server of 2 GPUs has no NVLS
// (ncclNvlsInit: gpuCount <= 2), from 2.29 it has. A call's chunk follows the cap (calcCollChunking:
// 64 KiB at 1 GiB on 2 × 8 B200 from 2.30, 128 KiB before).
func TestNVLSTuningByRelease(t *testing.T) {
	b200 := serverOf("B200", 8, 400*unit.Gbps, 5, gpu.PXB, gpu.Intel)
	b200x800 := serverOf("B200", 8, 800*unit.Gbps, 6, gpu.PXB, gpu.Intel)
	b200x800.GPUPCIe = 6
	h100 := serverOf("H100", 8, 400*unit.Gbps, 5, gpu.PXB, gpu.Intel)
	b200x200 := serverOf("B200", 8, 200*unit.Gbps, 5, gpu.PXB, gpu.Intel)
	b200phb := serverOf("B200", 8, 400*unit.Gbps, 5, gpu.PHB, gpu.Intel)
	env := func(k, v string) map[string]string { return map[string]string{k: v} }
	for _, c := range []struct {
		name                    string
		v                       Version
		srv                     gpu.Server
		servers, ppn            int
		env                     map[string]string
		channels                int
		chunk, treeMax, chunk1G int64
	}{
		{"H100 2.30.7", Version{2, 30, 7}, h100, 2, 8, nil, 16, 128 << 10, 128 << 10, 128 << 10},
		{"B200 2.24.3", Version{2, 24, 3}, b200, 2, 8, nil, 16, 128 << 10, 128 << 10, 128 << 10},
		{"B200 2.26.2", Version{2, 26, 2}, b200, 2, 8, nil, 32, 128 << 10, 128 << 10, 128 << 10},
		{"B200 2.26.2, one server", Version{2, 26, 2}, b200, 1, 8, nil, 32, 128 << 10, 128 << 10, 0},
		{"B200 2.28.3, one server", Version{2, 28, 3}, b200, 1, 8, nil, 24, 128 << 10, 128 << 10, 0},
		{"B200 2.29.7, 4 servers", Version{2, 29, 7}, b200, 4, 8, nil, 32, 128 << 10, 64 << 10, 64 << 10},
		{"B200 2.30.7", Version{2, 30, 7}, b200, 2, 8, nil, 32, 128 << 10, 64 << 10, 64 << 10},
		{"B200 2.30.7, 4 GPUs a server", Version{2, 30, 7}, b200, 2, 4, nil, 32, 256 << 10, 256 << 10, 256 << 10},
		{"B200 2.30.7, 4 servers", Version{2, 30, 7}, b200, 4, 8, nil, 24, 128 << 10, 64 << 10, 64 << 10},
		{"B200 2.30.7, 4 servers, 800G", Version{2, 30, 7}, b200x800, 4, 8, nil, 24, 256 << 10, 256 << 10, 256 << 10},
		{"2 × 2 B200 2.26.2", Version{2, 26, 2}, b200, 2, 2, nil, 0, 0, 0, 0},
		{"2 × 2 B200 2.29.7", Version{2, 29, 7}, b200, 2, 2, nil, 32, 128 << 10, 128 << 10, 128 << 10},
		{"B200 2.30.7, 200G", Version{2, 30, 7}, b200x200, 2, 8, nil, 32, 128 << 10, 128 << 10, 128 << 10},
		{"B200 2.30.7, 800G", Version{2, 30, 7}, b200x800, 2, 8, nil, 32, 128 << 10, 128 << 10, 128 << 10},
		{"B200 2.30.7, 4 servers, PHB", Version{2, 30, 7}, b200phb, 4, 8, nil, 24, 128 << 10, 128 << 10, 128 << 10},
		{"B200 2.30.7, NCCL_NVLS_NCHANNELS=16", Version{2, 30, 7}, b200, 4, 8, env("NCCL_NVLS_NCHANNELS", "16"), 16, 128 << 10, 64 << 10, 64 << 10},
		{"B200 2.30.7, 4 GPUs a server, NCCL_NVLS_CHUNKSIZE=65536", Version{2, 30, 7}, b200, 2, 4, env("NCCL_NVLS_CHUNKSIZE", "65536"), 32, 64 << 10, 256 << 10, 64 << 10},
		{"B200 2.26.2, NCCL_NVLS_CHUNKSIZE=262144", Version{2, 26, 2}, b200, 2, 8, env("NCCL_NVLS_CHUNKSIZE", "262144"), 32, 256 << 10, 256 << 10, 256 << 10},
		{"B200 2.30.7, NCCL_NVLSTREE_MAX_CHUNKSIZE=262144", Version{2, 30, 7}, b200, 2, 8, env("NCCL_NVLSTREE_MAX_CHUNKSIZE", "262144"), 32, 128 << 10, 256 << 10, 128 << 10},
		{"B200 2.29.7, 4 servers, NCCL_NVLSTREE_MAX_CHUNKSIZE=131072", Version{2, 29, 7}, b200, 4, 8, env("NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072"), 32, 128 << 10, 128 << 10, 128 << 10},
	} {
		cm := mustCommOf(t, c.v, c.srv, c.servers, c.ppn, c.env)
		got := cm.Tuning.nvlsTune
		if got.channels != c.channels || got.chunk != c.chunk || got.treeMax != c.treeMax {
			t.Errorf("%s: %d channels, chunk %d, NVLSTree cap %d; want %d, %d, %d", c.name, got.channels, got.chunk, got.treeMax, c.channels, c.chunk, c.treeMax)
		}
		if c.channels == 0 {
			ch, err := cm.Plan(Call{Func: AllReduce, Bytes: 1 << 30})
			if err != nil || ch.Algo == NVLS || ch.Algo == NVLSTree {
				t.Errorf("%s: no NVLS, yet 1 GiB runs %s (%v)", c.name, ch.Algo, err)
			}
		}
		if c.chunk1G == 0 {
			continue
		}
		if ch := cm.nvlsChunk(NVLSTree, 1<<30, got.channels); ch != c.chunk1G {
			t.Errorf("%s: NVLSTree chunk at 1 GiB %d, want %d", c.name, ch, c.chunk1G)
		}
	}
}

// builtEngine returns an engine with one iteration of call on c built as
// NCCL's choice ch, before it runs.
func builtEngine(c *Comm, call Call, ch Choice) *engine {
	e := &engine{}
	e.init(c)
	e.call, e.choice, e.iters = call, ch, 1
	e.plan()
	e.setTiming()
	e.build()
	return e
}

// TestNVLSSearchCPUPath: the NVLS search types a head's path to its NIC
// as the ring and tree searches do, on paths.cc's paths: without
// GPUDirect RDMA a PXB path goes through the GPU's CPU and is PHB
// (v2.25.1-1 src/graph/paths.cc ncclTopoComputePaths), so NVLS's
// typeInter is PHB and, on an Intel host, a channel takes 6/5 of its
// bandwidth from each PCI link (search.cc followPath,
// INTEL_P2P_OVERHEAD): 48 GB/s Gen5 links carry 40 a channel, so pass 2
// stops at the SM90 ladder's 40, not 48. Per GPU: a head whose NIC is on
// the other socket makes the graph SYS, and the socket link NCCL believes
// (10 GB/s on an Intel host from Skylake in 2.25.1) leaves bwInter at
// bwIntra.
func TestNVLSSearchCPUPath(t *testing.T) {
	hgx := serverOf("H100", 8, 400*unit.Gbps, 5, gpu.PXB, gpu.Intel)
	noGDR := make([]bool, 8)
	for g := range noGDR {
		noGDR[g] = true
	}
	far := hgx
	far.GPUNICPaths = []gpu.Path{gpu.PXB, gpu.PXB, gpu.PXB, gpu.PXB, gpu.SYS, gpu.SYS, gpu.SYS, gpu.SYS}
	for _, c := range []struct {
		name  string
		n     node
		typ   gpu.Path
		inter float32
	}{
		{"GPUDirect RDMA on", node{srv: hgx, nics: 8, inter: true, ppn: 8, ver: Version{2, 25, 1}}, gpu.PXB, 48},
		{"GPUDirect RDMA off", node{srv: hgx, nics: 8, inter: true, ppn: 8, noGDR: noGDR, ver: Version{2, 25, 1}}, gpu.PHB, 40},
		{"NICs of GPUs 4-7 on the far socket", node{srv: far, nics: 8, inter: true, ppn: 8, ver: Version{2, 25, 1}}, gpu.SYS, 40},
	} {
		g := nvlsSearch(c.n)
		if g.NChannels != 8 || g.TypeInter != c.typ || g.BWInter != c.inter {
			t.Errorf("2 × 8 H100, 8 × 400G at PXB, %s: NVLS graph %d heads, %v GB/s across over %s, want 8 over %s at %v",
				c.name, g.NChannels, g.BWInter, g.TypeInter, c.typ, c.inter)
		}
	}
}
