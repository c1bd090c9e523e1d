package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// nvidia-smi topo -m was in no format rocelab recognised. A GPU whose
// nearest NIC is beyond PXB gets no GPUDirect RDMA from NCCL by default
// (NVIDIA/nccl-tests#320: NODE and PHB); one NIC per GPU at PIX is said
// to be fine, in the NIC0 form with tabs (NVIDIA/nccl#1453) and the older
// form that names the NICs mlx5_N in the header (NVIDIA/nccl-tests#78).
func TestGPUTopology(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-gpus-node-phb-from-nics-nccltests320.txt")
	f := nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "3 of 3 GPUs", "GPU0 NODE (mlx5_0)", "GPU2 PHB (mlx5_0)")
	if len(f.Evidence) != 3 || !strings.Contains(f.Fix, "NCCL_NET_GDR_LEVEL=PHB") {
		t.Errorf("evidence %v fix %q", f.Evidence, f.Fix)
	}
	nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-h100-pix-nic-per-gpu-tabs-nccl1453.txt"), "topo.gpu_nic.ok", Info, "GPU0 PIX (NIC8)", "and 4 more")
	fs = diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-16gpu-mlx5-columns-nccltests78.txt")
	nicMustFind(t, fs, "topo.gpu_nic.ok", Info, "GPU2 PIX (mlx5_1)")
	nicMustNot(t, fs, "topo.gpu_nic.far")
}

// nvidia-smi topo -m pasted up to GPU5 of 8: "every GPU" was claimed of
// six; and GPUs that reach each other only through SYS (no NVLink) went
// unremarked.
func TestTopoCutAndNoNVLink(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-h100-nv18-pxb-8nic-cut-nccl2150.txt")
	nicMustFind(t, fs, "topo.gpu_nic.ok", Info, "every GPU shown", "6 of the 8 GPUs in the header: the paste ends at GPU5")
	nicMustNot(t, fs, "topo.gpu_gpu.host")
	fs = diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-gpus-sys-no-nvlink-pix-per-gpu-cut-deepep128.txt")
	nicMustFind(t, fs, "topo.gpu_gpu.host", Info, "no NVLink and no shared PCIe switch", "every pair is SYS")
	// A complete matrix says "every GPU" and counts them.
	fs = diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-h100-pix-nic-per-gpu-tabs-nccl1453.txt")
	f := nicMustFind(t, fs, "topo.gpu_nic.ok", Info, "every GPU has")
	if strings.Contains(f.Title, "shown") {
		t.Errorf("complete matrix read as cut: %s", f.Title)
	}
}

// rocm-smi --showtopo was not read: two MI100 linked by PCIE (their xGMI
// bridge not working) said nothing, and an MI300-series node whose eight
// GPUs are all XGMI must raise nothing.
func TestROCmShowTopo(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/rocm-smi-showtopo-mi100-pair-pcie-bridge-rocm1503.txt")
	f := nicMustFind(t, fs, "topo.gpu_gpu.host", Info, "no xGMI between the 2 GPUs: every pair is PCIE")
	if !strings.Contains(f.Fix, "rocm-smi --showxgmierr") || strings.Contains(f.Fix, "nvidia") {
		t.Errorf("fix %s", f.Fix)
	}
	arts := nicReadArtifacts(t, "corpus/topo/rocm-smi-showtopo-mi300-8gpu-xgmi-msswift.txt")
	topo, ok := arts[0].(*ingest.GPUTopo)
	if !ok || len(topo.GPUs) != 8 || topo.GPUs[7].ToGPU[0] != "XGMI" || topo.GPUs[7].ToGPU[7] != "X" {
		t.Fatalf("MI300 matrix not read: %+v", arts)
	}
	if fs := diagnoseFiles(t, Options{}, "corpus/topo/rocm-smi-showtopo-mi300-8gpu-xgmi-msswift.txt"); len(fs) != 0 {
		t.Errorf("an all-XGMI node raised %v", fs)
	}
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

// A GB200 node (sgl-project/sglang#11208): nvidia-smi prints every NIC at
// SYS because its matrix has no link type for NVLink-C2C, and the GPU
// model line beside the matrix says the GPUs are Grace-attached. Before,
// topo.gpu_nic.far claimed their traffic is staged through host memory.
func TestGPUTopoGB200NotFar(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-gb200-4gpu-sys-to-every-nic-gpu-numa-id-cut-sglang11208.txt")
	nicMustNot(t, fs, "topo.gpu_nic.far")
	f := nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "3 of 3 GPUs", "the GPUs are NVIDIA GB200", "NCCL_NET_GDR_C2C=1", "GPU2 SYS (NIC0)")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 7 || !strings.Contains(f.Mechanism, "2.27") {
		t.Errorf("evidence %+v mechanism %s", f.Evidence, f.Mechanism)
	}
}

// Without a model line the GPU NUMA ID column says it: a number where the
// GPU's memory is a NUMA node of its Grace (SYNTHETIC lines in the layout
// of sglang#11208); an x86 host's N/A keeps the far finding, and so does
// an x86 model named by nvidia-smi -L.
func TestGPUTopoGraceByNUMAIDOrModel(t *testing.T) {
	header := "        GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID"
	fs := synthFindings(t, Options{}, header,
		"GPU0     X      NV18    NODE    SYS     0-71    0               2",
		"GPU1    NV18     X      SYS     NODE    72-143  1               10")
	nicMustNot(t, fs, "topo.gpu_nic.far")
	nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "2 of 2 GPUs", "GPU NUMA ID", "GPU0 NODE (NIC0)")

	x86 := []string{header,
		"GPU0     X      NV18    NODE    SYS     0-55,112-167    0               N/A",
		"GPU1    NV18     X      SYS     NODE    56-111,168-223  1               N/A"}
	fs = synthFindings(t, Options{}, x86...)
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "2 of 2 GPUs", "GPU0 NODE (NIC0)")
	nicMustNot(t, fs, "topo.gpu_nic.c2c")
	fs = synthFindings(t, Options{}, append([]string{"GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0c1d)"}, x86...)...)
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "2 of 2 GPUs")

	fs = synthFindings(t, Options{}, append([]string{"GPU 0: NVIDIA GH200 480GB (UUID: GPU-0c1d)"}, x86...)...)
	nicMustNot(t, fs, "topo.gpu_nic.far")
	nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "the GPUs are NVIDIA GH200 480GB")
}

// A GB10 (DGX Spark) reaches its NIC over C2C too, but has no GPUDirect
// RDMA at all (NVIDIA's forum; NCCL prints "GPU Direct RDMA Disabled" on
// a Spark): the finding says so and does not send the engineer after
// NCCL_NET_GDR_C2C (SYNTHETIC matrix in nvidia-smi's layout). Before, it
// said NCCL 2.27 and later use GPUDirect RDMA there.
func TestGPUTopoGB10NoGDR(t *testing.T) {
	fs := synthFindings(t, Options{}, "GPU 0: NVIDIA GB10 (UUID: GPU-0c1d)",
		"        GPU0    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID",
		"GPU0     X      NODE    NODE    0-19    0               N/A")
	nicMustNot(t, fs, "topo.gpu_nic.far")
	f := nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "1 of 1 GPUs", "a GB10 has no GPUDirect RDMA", "GPU0 NODE (NIC0)")
	if strings.Contains(f.Title, "NCCL_NET_GDR_C2C=1") || !strings.Contains(f.Fix, "Nothing to enable") {
		t.Errorf("title %s\nfix %s", f.Title, f.Fix)
	}
}

// The model can come from another input of the incident: nccl-tests' rank
// lines naming a GH200 answer for a matrix without model lines or a GPU
// NUMA ID; a rank on an x86 GPU among them keeps the far finding
// (SYNTHETIC lines in the layouts of nccl-tests and nvidia-smi).
func TestGPUTopoGraceFromNCCLTestsRanks(t *testing.T) {
	dir := t.TempDir()
	diagnose := func(gpu1 string) []Finding {
		t.Helper()
		nt := strings.Join([]string{
			"# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
			"# Using devices",
			"#  Rank  0 Group  0 Pid  41187 on gh200-a device  0 [0009:01:00] NVIDIA GH200 480GB",
			"#  Rank  1 Group  0 Pid  52210 on gh200-b device  0 [0009:01:00] " + gpu1,
			"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
			"           8             2     float     sum      -1    30.12    0.00    0.00      0    29.80    0.00    0.00      0",
			"# Avg bus bandwidth    : 0.00", ""}, "\n")
		topo := "        GPU0    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID\n" +
			"GPU0     X      SYS     SYS     0-71    0               N/A\n"
		paths := []string{filepath.Join(dir, "nt.txt"), filepath.Join(dir, "topo.txt")}
		for i, text := range []string{nt, topo} {
			if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return Diagnose(paths, nil, Options{}).Findings
	}
	fs := diagnose("NVIDIA GH200 480GB")
	nicMustNot(t, fs, "topo.gpu_nic.far")
	nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "1 of 1 GPUs", "the GPUs are NVIDIA GH200 480GB", "GPU0 SYS (NIC0)")
	fs = diagnose("NVIDIA H100 80GB HBM3")
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "1 of 1 GPUs")
	nicMustNot(t, fs, "topo.gpu_nic.c2c")
}

// A B200 node pasted without its header (vllm-project/vllm#16336): GPU2
// reaches the other GPUs over NODE and SYS only while every other pair is
// NV18, so its NVLinks are down or it is off the NVSwitch fabric. Before,
// the rows were "in no format rocelab recognises".
func TestGPUTopoOneGPUOffNVLink(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-b200-headerless-gpu2-no-nvlink-node-sys-to-peers-cut-vllm16336.txt")
	f := nicMustFind(t, fs, "topo.gpu_gpu.nvlink_missing", Warn, "GPU2 has no NVLink to any other GPU (NODE NODE X NODE SYS SYS SYS SYS) while the other 5 GPUs shown reach their peers over NV18")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 6 {
		t.Errorf("evidence %+v, want GPU2's row (line 6)", f.Evidence)
	}
	nicMustNot(t, fs, "topo.gpu_gpu.host")
	nicMustFind(t, fs, "topo.gpu_nic.ok", Info, "6 of the 8 GPUs the rows' columns name (no header line): the paste ends at GPU5")
	// Every GPU on NVLink raises nothing.
	for _, rel := range []string{"corpus/topo/nvidia-smi-topo-h100-nv18-pxb-8nic-cut-nccl2150.txt", "corpus/topo/nvidia-smi-topo-b200-13nic-header-nic11nic12-glued-pix-cut-vllm31594.txt"} {
		nicMustNot(t, diagnoseFiles(t, Options{}, rel), "topo.gpu_gpu.nvlink_missing")
	}
	// Nor do PCIe cards joined in pairs by NVLink bridges (NV4 to one peer
	// each) beside a card without one: built so (SYNTHETIC rows in
	// nvidia-smi's layout).
	nicMustNot(t, synthFindings(t, Options{},
		"        GPU0    GPU1    GPU2    CPU Affinity    NUMA Affinity   GPU NUMA ID",
		"GPU0     X      NV4     SYS     0-31    0               N/A",
		"GPU1    NV4      X      SYS     0-31    0               N/A",
		"GPU2    SYS     SYS      X      0-31    0               N/A"), "topo.gpu_gpu.nvlink_missing")
}

// A GB200 node's matrix with no NIC column (NVIDIA/k8s-test-infra#371):
// nvidia-smi saw no RDMA device where it ran, so there is no GPU-to-NIC
// path to judge and NCCL there would use sockets. Before, it said
// nothing. rocm-smi's matrices, which never list NICs, stay silent.
func TestGPUTopoNoNICColumn(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-gb200-4gpu-nv18-no-nic-columns-numa-id-na-cut-k8stestinfra371.txt")
	f := nicMustFind(t, fs, "topo.gpu_nic.none", Info, "nvidia-smi topo -m lists no NIC beside the 4 GPUs")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 6 {
		t.Errorf("evidence %+v, want GPU0's row (line 6)", f.Evidence)
	}
	// Sockets only where no net plugin brings a transport of its own.
	if !strings.Contains(f.Mechanism, "unless a net plugin") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
	nicMustNot(t, fs, "topo.gpu_gpu.nvlink_missing")
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/topo/rocm-smi-showtopo-mi300-8gpu-xgmi-msswift.txt"), "topo.gpu_nic.none")
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-h100-pix-nic-per-gpu-tabs-nccl1453.txt"), "topo.gpu_nic.none")
}
