package ingest

import (
	"slices"
	"strings"
	"testing"
)

// An nvidia-smi topo -m paste whose every GPU row lost the tab between
// its last NIC cell and the CPU affinity ("PH0-115"): the rows are read
// on their other cells, and each bad cell is kept with its column.
// Before, no row was read and the input was "in no format".
func TestGPUTopoGarbledCell(t *testing.T) {
	g := corpusAs[*GPUTopo](t, "topo/nvidia-smi-topo-a100-8nic-phb-last-cell-run-into-affinity-notes.txt", KindGPUTopo)
	if len(g.GPUs) != 8 || len(g.NICs) != 8 || g.NICs[7] != "mlx5_7" {
		t.Fatalf("topology %+v", g)
	}
	if got := g.GPUs[3].ToNIC; got[0] != "PHB" || got[7] != "?" || g.GPUs[3].ToGPU[3] != "X" || g.GPUs[3].ToGPU[0] != "NV12" {
		t.Errorf("GPU3 links %v %v", got, g.GPUs[3].ToGPU)
	}
	if len(g.Garbled) != 8 || g.Garbled[0].Line != 6 || g.Garbled[0].Col != 73 || !strings.HasPrefix(g.Garbled[0].Text[72:], "PH0-115") {
		t.Errorf("garbles %+v", g.Garbled)
	}
}

// A GB200 node's matrix as sglang's environment dump prints it
// (sgl-project/sglang#11208): every NIC at SYS, the GPU memory numbered as
// a NUMA node, and the GPU model on a line before the matrix.
func TestGPUTopoGraceModelAndGPUNUMAID(t *testing.T) {
	g := corpusAs[*GPUTopo](t, "topo/nvidia-smi-topo-gb200-4gpu-sys-to-every-nic-gpu-numa-id-cut-sglang11208.txt", KindGPUTopo)
	if len(g.GPUs) != 3 || g.HeaderGPUs != 4 || len(g.NICs) != 6 || g.GPUs[0].ToNIC[0] != "SYS" {
		t.Fatalf("topology %+v", g)
	}
	if got := []string{g.GPUs[0].MemNUMA, g.GPUs[1].MemNUMA, g.GPUs[2].MemNUMA}; strings.Join(got, ",") != "2,10,18" {
		t.Errorf("GPU NUMA IDs %q", got)
	}
	if len(g.Models) != 1 || g.Models[0] != "NVIDIA GB200" {
		t.Errorf("models %q", g.Models)
	}
}

// An x86 matrix prints N/A as the GPU NUMA ID, and `nvidia-smi -L` lines
// name the model up to the UUID (SYNTHETIC lines in nvidia-smi's layout).
func TestGPUTopoNUMAIDNotApplicable(t *testing.T) {
	const in = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0c1d)\n" +
		"GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-9f2e)\n" +
		"        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity   GPU NUMA ID\n" +
		"GPU0     X      NV18    SYS     0-55,112-167    0               N/A\n" +
		"GPU1    NV18     X      SYS     0-55,112-167    0               N/A\n"
	p := NewGPUTopoParser("synthetic")
	for i, l := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
		p.Feed(Line{Text: l, Num: i + 1})
	}
	g := p.Result().(*GPUTopo)
	if g.GPUs[0].MemNUMA != "" || g.GPUs[1].MemNUMA != "" || len(g.Models) != 1 || g.Models[0] != "NVIDIA H100 80GB HBM3" {
		t.Fatalf("NUMA IDs %q %q, models %q", g.GPUs[0].MemNUMA, g.GPUs[1].MemNUMA, g.Models)
	}
}

// Two link cells run together where the paste lost the tab between them
// (NVIDIA/nccl#820: "NODENODE" for mlx5_4 and mlx5_5, older nvidia-smi
// naming the NICs in its header): the cell is both links, so the cells
// after it stay in their columns. Before, it and the CPU affinity pushed
// into mlx5_9's column were two garbles per row, and mlx5_5 to mlx5_8
// took their right-hand neighbours' links.
func TestGPUTopoGluedCells(t *testing.T) {
	g := corpusAs[*GPUTopo](t, "topo/nvidia-smi-topo-v100-10nic-mlx5-header-node-cells-glued-nccl820.txt", KindGPUTopo)
	if len(g.GPUs) != 6 || len(g.NICs) != 10 || len(g.Garbled) != 0 {
		t.Fatalf("topology %+v", g)
	}
	want := "PXB PXB NODE NODE NODE NODE SYS SYS SYS SYS"
	if got := strings.Join(g.GPUs[0].ToNIC, " "); got != want {
		t.Errorf("GPU0 to NICs %s, want %s", got, want)
	}
	if got := strings.Join(g.GPUs[5].ToNIC, " "); got != "SYS SYS SYS SYS SYS SYS PXB PXB NODE NODE" {
		t.Errorf("GPU5 to NICs %s", got)
	}
}

// Two NIC names run together in the header where the paste lost the tab
// between them (vllm-project/vllm#31594, a B200 node: "NIC11NIC12"): the
// name is both columns. Before, it was one NIC named "NIC11NIC12", so
// GPU0's PIX NIC was named so, NIC12's cells fell outside the matrix, and
// the NUMA Affinity column was read from a link cell (none).
func TestGPUTopoGluedHeaderNames(t *testing.T) {
	g := corpusAs[*GPUTopo](t, "topo/nvidia-smi-topo-b200-13nic-header-nic11nic12-glued-pix-cut-vllm31594.txt", KindGPUTopo)
	if len(g.GPUs) != 4 || g.HeaderGPUs != 8 || len(g.NICs) != 13 || g.NICs[11] != "NIC11" || g.NICs[12] != "NIC12" {
		t.Fatalf("topology: %d GPUs of %d, NICs %q", len(g.GPUs), g.HeaderGPUs, g.NICs)
	}
	for i, want := range []int{11, 10, 9, 8} {
		gpu := g.GPUs[i]
		if gpu.ToNIC[want] != "PIX" || gpu.ToNIC[12] != "NODE" || gpu.NUMA != "0" {
			t.Errorf("%s to NICs %v, NUMA %q: want PIX at NIC%d, NODE at NIC12, NUMA 0", gpu.Name, gpu.ToNIC, gpu.NUMA, want)
		}
	}
}

// A B200 matrix pasted from GPU0's row on, without its header
// (vllm-project/vllm#16336): the columns are worked out from the rows,
// 8 GPUs (the last column with X or NVLink) and 12 NICs after them. GPU2
// is the GPU with no NVLink. Before, the input was "in no format".
func TestGPUTopoHeaderless(t *testing.T) {
	g := corpusAs[*GPUTopo](t, "topo/nvidia-smi-topo-b200-headerless-gpu2-no-nvlink-node-sys-to-peers-cut-vllm16336.txt", KindGPUTopo)
	if !g.Headerless || len(g.GPUs) != 6 || g.HeaderGPUs != 8 || len(g.NICs) != 12 || g.NICs[11] != "NIC11" {
		t.Fatalf("topology: headerless %v, %d GPUs of %d, NICs %q", g.Headerless, len(g.GPUs), g.HeaderGPUs, g.NICs)
	}
	if got := strings.Join(g.GPUs[2].ToGPU, " "); got != "NODE NODE X NODE SYS SYS SYS SYS" {
		t.Errorf("GPU2 to GPUs %s", got)
	}
	for i, gpu := range g.GPUs {
		if gpu.ToNIC[i] != "PXB" || gpu.NUMA != []string{"0", "0", "0", "0", "1", "1"}[i] {
			t.Errorf("%s to NICs %v, NUMA %q", gpu.Name, gpu.ToNIC, gpu.NUMA)
		}
	}
}

// Rows without a header that do not hold X in their own column are no
// matrix (SYNTHETIC).
func TestGPUTopoHeaderlessNotAMatrix(t *testing.T) {
	p := NewGPUTopoParser("synthetic")
	p.Feed(Line{Num: 1, Text: "GPU0    NV18     X      SYS     0-15    0"})
	if a := p.Result(); a != nil {
		t.Fatalf("read %+v", a)
	}
}

// feedTopo feeds lines to a fresh nvidia-smi topo parser.
func feedTopo(lines ...string) Artifact {
	p := NewGPUTopoParser("synthetic")
	for i, s := range lines {
		p.Feed(Line{Num: i + 1, Text: s})
	}
	return p.Result()
}

// Headerless rows of a PCIe server (SYNTHETIC, nvidia-smi's layout): no
// NVLink cell says where the GPU columns end, since PIX to SYS link GPU
// pairs and GPU-NIC pairs alike. Rows cut after GPU1 of a 4-GPU server
// with 2 NICs would read GPU2 and GPU3 as NIC0 and NIC1; without the
// legend nothing is read, with it the NICs are its last columns.
func TestGPUTopoHeaderlessPCIeNeedsLegend(t *testing.T) {
	rows := []string{
		"GPU0     X      PIX     SYS     SYS     PIX     SYS     0-15    0               N/A",
		"GPU1    PIX      X      SYS     SYS     PIX     SYS     0-15    0               N/A",
	}
	if a := feedTopo(rows...); a != nil {
		t.Fatalf("no legend: read %+v", a)
	}
	g, ok := feedTopo(append(rows, "NIC Legend:", "  NIC0: mlx5_0", "  NIC1: mlx5_1")...).(*GPUTopo)
	if !ok || g.HeaderGPUs != 4 || len(g.GPUs) != 2 || !slices.Equal(g.NICs, []string{"mlx5_0", "mlx5_1"}) {
		t.Fatalf("with legend: %+v", g)
	}
	if got := strings.Join(g.GPUs[1].ToGPU, " "); got != "PIX X SYS SYS" || strings.Join(g.GPUs[1].ToNIC, " ") != "PIX SYS" {
		t.Errorf("GPU1 to GPUs %s, to NICs %v", got, g.GPUs[1].ToNIC)
	}
	// A legend of more NICs than the columns past the rows' own GPUs
	// leaves no room for them: no matrix.
	if a := feedTopo(append(rows, "  NIC0: mlx5_0", "  NIC1: mlx5_1", "  NIC2: mlx5_2", "  NIC3: mlx5_3", "  NIC4: mlx5_4")...); a != nil {
		t.Fatalf("legend of 5 NICs beside 6 columns: read %+v", a)
	}
}

// With NVLink, a GPU column no shown row reaches over NVLink (GPU3 off the
// fabric, its row cut) is told from a NIC by the legend (SYNTHETIC).
func TestGPUTopoHeaderlessLegendCountsNICs(t *testing.T) {
	g, ok := feedTopo(
		"GPU0     X      NV18    NV18    SYS     PXB     SYS     0-15    0               N/A",
		"GPU1    NV18     X      NV18    SYS     SYS     PXB     0-15    0               N/A",
		"",
		"NIC Legend:",
		"",
		"  NIC0: mlx5_0",
		"  NIC1: mlx5_1",
	).(*GPUTopo)
	if !ok || g.HeaderGPUs != 4 || !slices.Equal(g.NICs, []string{"mlx5_0", "mlx5_1"}) || strings.Join(g.GPUs[0].ToGPU, " ") != "X NV18 NV18 SYS" {
		t.Fatalf("read %+v", g)
	}
}
