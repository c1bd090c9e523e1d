package doctor

import (
	"strings"
	"testing"
)

// ncclLogFindingsS48 is what the doctor finds in each of the real logs
// taken from public threads in session 48 (testdata/corpus/nccl-log; each
// file names its source): every finding's id and severity, sorted.
var ncclLogFindingsS48 = []struct{ file, want string }{
	{"nccl-p2p-disabled-between-connected-gpus-3-ranks-one-host-pytorch130113.txt", "nccl.p2p.disabled:warn"},
	{"nccl-p2p-disabled-rtx4090-4-ranks-nvls-unavailable-comm-nnodes-trtllm2225.txt", "nccl.p2p.disabled:warn"},
	{"nccl-2.18.5-wsl-p2p-disabled-could-not-enable-p2p-shm-direct-llamafactory1169.txt", "nccl.p2p.disabled:warn"},
	{"nccl-mpirun-tag-duplicate-gpu-detected-ranks-on-cuda-device-1000-horovod3929.txt", "nccl.warn.error:error"},
}

func TestNCCLLogCorpusFindingsS48(t *testing.T) { checkLogFindings(t, ncclLogFindingsS48) }

// pytorch/pytorch#130113: three ranks of node155 each print the INFO line
// for the pairs of GPUs 0, 1 and 2 (nine lines, pairs named in both
// orders): one finding naming the three unordered pairs and the host,
// counting every line, with the first line of each pair as evidence,
// telling the host-memory path and its PCIe causes, not the network.
func TestP2PDisabledPairsAndHost(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-p2p-disabled-between-connected-gpus-3-ranks-one-host-pytorch130113.txt")
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1:\n%s", len(fs), nicTitles(fs))
	}
	f := nicMustFind(t, fs, "nccl.p2p.disabled", Warn, "GPUs 0-1, 0-2, 1-2:", "on node155; 9 lines")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 3 || f.Evidence[1].Line != 4 || f.Evidence[2].Line != 7 {
		t.Errorf("evidence %+v, want lines 3, 4 and 7", f.Evidence)
	}
	if !strings.Contains(f.Mechanism, "ACS") || !strings.Contains(f.Mechanism, "shared host memory") || !strings.Contains(f.Fix, "nvidia-smi topo -p2p r") {
		t.Errorf("mechanism %q\nfix %q", f.Mechanism, f.Fix)
	}
}

// The NVLink twin is a WARN after which NCCL returns
// ncclUnhandledCudaError from init (graph/paths.cc; synthetic lines in the
// form of NVIDIA/nccl#2329's quoted message): an error naming NVLink's
// hardware and the Fabric Manager, not the generic "NCCL failed after a
// WARN", and no PCIe-path warning beside it.
func TestP2PDisabledOverNVLinkStopsInit(t *testing.T) {
	fs := diagnoseText(t, "h1:100:200 [1] NCCL INFO NCCL version 2.28.9+cuda12.9\n"+
		"h1:100:200 [1] graph/paths.cc:396 NCCL WARN P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case given their connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.\n"+
		"h1:100:200 [1] NCCL INFO graph/paths.cc:720 -> 1\n"+
		"h1:100:200 [1] NCCL INFO init.cc:1100 -> 1\n").Findings
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1:\n%s", len(fs), nicTitles(fs))
	}
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "joined by NVLink", "stopped init")
	if !strings.Contains(f.Fix, "nvidia-fabricmanager") || !strings.Contains(f.Fix, "nvidia-smi nvlink -s") {
		t.Errorf("fix %q", f.Fix)
	}
}

// horovod/horovod#3929: three ranks of smc-gpu-03 each refused at init
// with "Duplicate GPU detected" (every process on the GPU at bus id 1000):
// one finding for the three lines, telling the placement of ranks on GPUs,
// not three generic failures. NCCL 2.30's two wordings (synthetic lines in
// the form of graph/topo.cc's and init.cc's WARNs) are the same class.
func TestRanksOnOneGPUOneFinding(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-mpirun-tag-duplicate-gpu-detected-ranks-on-cuda-device-1000-horovod3929.txt")
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1:\n%s", len(fs), nicTitles(fs))
	}
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "same GPU", "invalid usage", "on smc-gpu-03; 3 lines")
	if !strings.Contains(f.Fix, "local rank") || strings.Contains(f.Mechanism, "fallout") {
		t.Errorf("mechanism %q\nfix %q", f.Mechanism, f.Fix)
	}
	for _, warn := range []string{"init.cc:1057 NCCL WARN Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
		"graph/topo.cc:1977 NCCL WARN Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration."} {
		fs := diagnoseText(t, "h:1:2 [0] "+warn+"\nh:1:2 [0] NCCL INFO init.cc:1121 -> 5\n").Findings
		f := nicMustFind(t, fs, "nccl.warn.error", Error, "same GPU")
		if !strings.Contains(f.Fix, "at most one rank per GPU") {
			t.Errorf("%s: fix %q", warn, f.Fix)
		}
	}
}

// NCCL 2.30's WARNs for ranks that share a GPU as NCCL_MULTI_RANK_GPU_ENABLE=1
// allows while NCCL_NVLS_ENABLE=1 forces NVLS (2.30.3's init.cc:1123,
// 2.30.7's transport/nvls.cc:254; synthetic lines in their form) open like
// the refusal of ranks on one GPU but ask for the other setting to go: told
// as the two settings in conflict, not as ranks to rebind.
func TestRanksOnOneGPUWithNVLSForced(t *testing.T) {
	for _, warn := range []string{"init.cc:1123 NCCL WARN Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set to \"1\". At this time multiple ranks per gpu is incompatible with NVLS.",
		"transport/nvls.cc:254 NCCL WARN NCCL_NVLS_ENABLE has been set to \"1\" and communicator has multiple ranks using the same NVML device. This is not compatible with NCCL_NVLS_ENABLE=1."} {
		fs := diagnoseText(t, "h:1:2 [0] "+warn+"\nh:1:2 [0] NCCL INFO init.cc:1700 -> 5\n").Findings
		f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL_NVLS_ENABLE=1 asks for NVLS")
		if !strings.Contains(f.Fix, "Unset NCCL_NVLS_ENABLE") || strings.Contains(f.Fix, "at most one rank per GPU of each node") {
			t.Errorf("%s: fix %q", warn, f.Fix)
		}
	}
}
