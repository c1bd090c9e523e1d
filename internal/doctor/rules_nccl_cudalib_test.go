package doctor

import (
	"strings"
	"testing"
)

// NCCL failing to dlopen libcuda.so (misc/cudawrap.cc; WSL2 here, where the
// driver's library sits in /usr/lib/wsl/lib) is the GPU driver out of the
// process's reach, named as such, not a WARN left unread.
func TestCUDALibraryNotFoundIsNamed(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.18.5-wsl-cudawrap-libcuda-not-found-socket-eth0-llamafactory1169.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "could not load the CUDA driver library", "on DESKTOP-VMBL43V")
	if !strings.Contains(f.Fix, "/usr/lib/wsl/lib") || !strings.Contains(f.Fix, "NCCL_CUDA_PATH") {
		t.Errorf("fix %q", f.Fix)
	}
}

// A libcuda.so without the driver's entry points is the toolkit's stub.
func TestCUDALibraryMissingSymbolIsTheStub(t *testing.T) {
	for _, m := range []string{"Failed to load CUDA missing symbol cuGetProcAddress", "CUDA some PFN functions not found in the library", "cuDriverGetVersion failed with 34"} {
		c, ok := cudaLibraryClass(strings.ToLower(m))
		if !ok || !strings.Contains(c.what, "stub") {
			t.Errorf("%q: %v %q", m, ok, c.what)
		}
	}
	if _, ok := cudaLibraryClass("cuda failure 'invalid argument'"); ok {
		t.Error("a CUDA call's failure read as the library's")
	}
}

// CUDA's 'invalid device ordinal' in transport/p2p.cc (NVIDIA/nccl#1948,
// real line: srun --gpus-per-task=1) is the P2P transport mapping a peer
// process's buffer on a GPU this process cannot see, not any CUDA failure.
func TestP2PInvalidDeviceOrdinalIsHiddenPeerGPU(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.9-slurm-gpus-per-task-p2p-cuda-101-invalid-device-ordinal-title-line-nccl1948.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "each process sees only its own GPU")
	if !strings.Contains(f.Fix, "--gpus-per-node") || !strings.Contains(f.Fix, "NCCL_P2P_DISABLE=1") {
		t.Errorf("fix %q", f.Fix)
	}
}
