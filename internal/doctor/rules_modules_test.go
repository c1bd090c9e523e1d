package doctor

import (
	"strings"
	"testing"
)

// lsmod judged on real pastes: nvidia_peermem loaded while the same
// paste's NCCL turned GPUDirect RDMA off is a warning quoting both; two
// greps that printed nothing, one per module, are a warning that neither
// is loaded; a grep for nv_peer_mem alone says what it could not show.
// Before, lsmod was not read: the first gave only nccl.gdr.disabled with
// "no reason printed", the others nothing.
func TestPeerMemoryCorpusJudged(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/modules/lsmod-peermem-loaded-nccl-gdr-disabled-nccl1537.txt")
	f := nicMustFind(t, fs, "host.gdr.module", Warn, "nvidia_peermem is loaded, and NCCL's log turned GPUDirect RDMA off (NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0')")
	if len(f.Evidence) != 4 || f.Evidence[0].Line != 7 || f.Evidence[3].Line != 11 || !strings.Contains(f.Fix, "/sys/kernel/mm/memory_peers/") {
		t.Errorf("finding %+v", f)
	}
	f = nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/modules/lsmod-grep-peermem-nv-peer-mem-empty-nccl988.txt"),
		"host.gdr.module", Warn, "gpu3: lsmod shows no nvidia_peermem nor nv_peer_mem: GPUDirect RDMA has no peer-memory module")
	if len(f.Evidence) != 2 || strings.Contains(f.Title, "would not show") || !strings.Contains(f.Fix, "modprobe nvidia_peermem") {
		t.Errorf("finding %+v", f)
	}
	nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/modules/lsmod-grep-nv-peer-empty-modinfo-nvpeermemory46.txt"),
		"host.gdr.module", Warn, "lsmod shows no nv_peer_mem: GPUDirect RDMA has no peer-memory module (the grep would not show nvidia_peermem)")
}

// A module loaded with no NCCL log saying GPUDirect RDMA is off is info;
// another host's NCCL log does not make it a warning; a grep whose
// pattern is not plain text, or that would show neither module, is not
// judged. Synthetic.
func TestPeerMemoryJudged(t *testing.T) {
	nicMustFind(t, synthFindings(t, Options{}, "[root@gpu01 ~]# lsmod | grep peer", "nvidia_peermem         16384  0", "[root@gpu01 ~]#"),
		"host.gdr.module", Info, "gpu01: nvidia_peermem is loaded: the NIC can pin GPU memory")
	fs := synthFindings(t, Options{},
		"gpu02:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>",
		"gpu02:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
		"[root@gpu01 ~]# lsmod | grep peer", "nvidia_peermem         16384  0", "[root@gpu01 ~]#")
	nicMustFind(t, fs, "host.gdr.module", Info, "gpu01: nvidia_peermem is loaded")
	for _, lines := range [][]string{
		{"$ lsmod | grep 'nv.*peer'", "$"},
		{"$ lsmod | grep mlx5", "mlx5_ib 434176 0", "$"},
	} {
		if got := nicFind(synthFindings(t, Options{}, lines...), "host.gdr.module"); len(got) != 0 {
			t.Errorf("%q judged: %s", lines, nicTitles(got))
		}
	}
}

// A full listing is judged only when the GPU driver (nvidia) is in it: a
// CPU or storage node's lsmod has no peer-memory module to miss; a host
// whose NCCL pins GPU memory through DMA-BUF needs none. Synthetic.
func TestPeerMemoryNeededOnlyForGPUDriverWithoutDMABuf(t *testing.T) {
	cpu := []string{"$ lsmod", "Module                  Size  Used by", "mlx5_ib               434176  0", "ib_core               446464  1 mlx5_ib", "$"}
	if got := nicFind(synthFindings(t, Options{}, cpu...), "host.gdr.module"); len(got) != 0 {
		t.Errorf("CPU node judged: %s", nicTitles(got))
	}
	gpu := []string{"$ lsmod", "Module                  Size  Used by", "nvidia              56860672  1 nvidia_uvm", "mlx5_ib               434176  0", "$"}
	nicMustFind(t, synthFindings(t, Options{}, gpu...), "host.gdr.module", Warn, "lsmod shows no nvidia_peermem nor nv_peer_mem")
	dmabuf := append([]string{"gpu01:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'"}, gpu...)
	if got := nicFind(synthFindings(t, Options{}, dmabuf...), "host.gdr.module"); len(got) != 0 {
		t.Errorf("DMA-BUF host judged: %s", nicTitles(got))
	}
}

// `lsmod | grep -w nvidia` prints the nvidia row only, whose Used-by
// column names nvidia_peermem: the module is loaded. An inverted grep is
// not judged. Synthetic.
func TestPeerMemoryFromUsedBy(t *testing.T) {
	nicMustFind(t, synthFindings(t, Options{}, "$ lsmod | grep -w nvidia", "nvidia              56860672  1 nvidia_peermem", "$"),
		"host.gdr.module", Info, "nvidia_peermem is loaded")
	if got := nicFind(synthFindings(t, Options{}, "$ lsmod | grep -v peermem", "nvidia              56860672  0", "$"), "host.gdr.module"); len(got) != 0 {
		t.Errorf("grep -v judged: %s", nicTitles(got))
	}
}

// The listing's prompt and NCCL's prefix name one host in another case
// ("root@NODE-1", "node-1"): the DMA-BUF line is that host's, so the GPU
// driver without a peer-memory module is not judged. Before, the names
// compared exactly and a false warning was raised. Synthetic.
func TestPeerMemoryDMABufHostNameCase(t *testing.T) {
	fs := synthFindings(t, Options{},
		"node-1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'",
		"root@NODE-1:~# lsmod", "Module                  Size  Used by", "nvidia              56860672  1 nvidia_uvm", "mlx5_ib               434176  0", "root@NODE-1:~#")
	if got := nicFind(fs, "host.gdr.module"); len(got) != 0 {
		t.Errorf("DMA-BUF host judged: %s", nicTitles(got))
	}
}
