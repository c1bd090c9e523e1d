package doctor

import (
	"path"
	"strings"

	"rocelab/internal/ingest"
)

// cudaLibraryClass is NCCL failing to load the CUDA driver library it
// reaches the driver through (misc/cudawrap.cc, 2.13 to 2.18): dlopen of
// "libcuda.so" (under NCCL_CUDA_PATH when set) failing, or a library found
// without the entry points NCCL needs (cuInit, cuDriverGetVersion,
// cuGetProcAddress), which is the CUDA toolkit's stub libcuda.so; NCCL then
// returns ncclSystemError, which PyTorch reports as an unhandled system or
// CUDA error. The message names the call that failed.
func cudaLibraryClass(m string) (failureClass, bool) {
	var what string
	switch {
	case strings.HasPrefix(m, "failed to find cuda library "):
		what = "NCCL could not load the CUDA driver library (libcuda.so not found by the dynamic loader)"
	case strings.HasPrefix(m, "failed to load cuda missing symbol "),
		strings.HasPrefix(m, "cuda some pfn functions not found"),
		strings.HasPrefix(m, "cudrivergetversion failed with "):
		what = "NCCL loaded a libcuda.so that is not the driver's (missing entry points: the CUDA toolkit's stub, or a driver older than the CUDA NCCL was built for)"
	default:
		return failureClass{}, false
	}
	return failureClass{what,
		"NCCL reaches the GPU driver through libcuda.so, which it opens itself with dlopen (misc/cudawrap.cc, looked up by the loader's path, or under NCCL_CUDA_PATH); when that fails, communicator creation returns a system error before any network is touched. The driver's libcuda.so is missing from the process's view in a container started without the NVIDIA runtime (no --gpus, no nvidia-container-toolkit), under WSL2, where the driver's library lives in /usr/lib/wsl/lib and only as libcuda.so.1 unless that directory is on the loader's path, and when the CUDA toolkit's stubs directory (lib64/stubs, a link-time stand-in without the driver's entry points) comes first on LD_LIBRARY_PATH.",
		"Check which libcuda the process finds: `ldconfig -p | grep libcuda` and `ls -l $(dirname $(ldconfig -p | grep -m1 libcuda.so | awk '{print $NF}'))/libcuda.so*` on the host or in the container. Start containers with the NVIDIA runtime (`docker run --gpus all`); on WSL2 add /usr/lib/wsl/lib to LD_LIBRARY_PATH (or `ldconfig /usr/lib/wsl/lib`) so libcuda.so resolves; remove any .../stubs directory from LD_LIBRARY_PATH; or point NCCL_CUDA_PATH at the directory (with its trailing /) that holds the driver's libcuda.so."}, true
}

// p2pPeerHiddenClass is the P2P transport failing with CUDA error 101,
// 'invalid device ordinal', in transport/p2p.cc: mapping the buffer of a
// peer process on the same node (cuMemImportFromShareableHandle of its cuMem
// handle, NCCL 2.19 and later) needs the peer's GPU visible to this process,
// and a process that sees only its own GPU (Slurm's --gpus-per-task=1 with
// ConstrainDevices, NVIDIA/nccl#1948; one GPU per container or pod,
// NVIDIA/nccl#1647) cannot.
func p2pPeerHiddenClass(w ingest.Warning) (failureClass, bool) {
	m := strings.ToLower(w.Message)
	if !strings.HasPrefix(path.Base(w.Where), "p2p.cc") || !strings.Contains(m, "'invalid device ordinal'") {
		return failureClass{}, false
	}
	return failureClass{"the P2P transport could not map a peer process's GPU buffer ('invalid device ordinal' in p2p.cc): each process sees only its own GPU",
		"Between GPUs of one node driven by different processes, NCCL's P2P transport imports the peer's buffer (a cuMem handle, or a legacy CUDA IPC handle) and maps it on this process's GPU; CUDA refuses with 'invalid device ordinal' when the peer's GPU does not exist for this process. That is what a per-process GPU restriction makes: Slurm's --gpus-per-task=1 (or --gpu-bind) with ConstrainDevices=yes (NVIDIA/nccl#1948), a container or Kubernetes pod given one GPU each (NVIDIA/nccl#1647), CUDA_VISIBLE_DEVICES set to one GPU per rank. NCCL's topology still sees the GPUs as peers and picks P2P. It is not the network.",
		"Give every process of a node all the node's GPUs and let it select its own by local rank: srun --gpus-per-node=<n> (or --gpu-bind=none) rather than --gpus-per-task=1, one container or pod for the node's ranks, CUDA_VISIBLE_DEVICES unset; to confirm, rerun with NCCL_P2P_DISABLE=1 (shared memory between the processes instead): if that runs, the processes cannot see each other's GPUs."}, true
}

// sameGPUClass is NCCL refusing two ranks of one communicator on one GPU
// at init, returning ncclInvalidUsage: init.cc's "Duplicate GPU detected :
// rank 2 and rank 0 both on CUDA device 1000" through 2.29, graph/topo.cc's
// "Multiple ranks detected using the same GPU on this node." in
// 2.30.3-2.30.4, init.cc's "Multiple Ranks are using the same GPU/Partition"
// from 2.30.7. The WARN naming NCCL_NVLS_ENABLE is the other way round:
// several ranks per GPU allowed, and NVLS forced on beside them (init.cc's
// "Multiple ranks detected using the same GPU on this node and
// NCCL_NVLS_ENABLE has been set to "1"" in 2.30.3-2.30.4, transport/nvls.cc's
// "NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks
// using the same NVML device" from 2.30.7).
func sameGPUClass(m string) (failureClass, bool) {
	nvls := strings.HasPrefix(m, "nccl_nvls_enable has been set") && strings.Contains(m, "multiple ranks using the same nvml device")
	if !nvls && !strings.HasPrefix(m, "duplicate gpu detected") && !strings.HasPrefix(m, "multiple ranks detected using the same gpu") &&
		!strings.HasPrefix(m, "multiple ranks are using the same gpu") {
		return failureClass{}, false
	}
	if nvls || strings.Contains(m, "nccl_nvls_enable") {
		return failureClass{"several ranks share a GPU, as NCCL_MULTI_RANK_GPU_ENABLE=1 allows, and NCCL_NVLS_ENABLE=1 asks for NVLS beside them: NCCL refused init (invalid usage)",
			"NCCL 2.30 runs several ranks of a communicator on one GPU only when NCCL_MULTI_RANK_GPU_ENABLE=1, and then turns NVLink SHARP (NVLS) off, which cannot serve them; NCCL_NVLS_ENABLE=1 demands NVLS, so NCCL returns ncclInvalidUsage from init instead. The placement was asked for; the two settings contradict each other. It is not the network.",
			"Unset NCCL_NVLS_ENABLE (or set it to 0) for jobs that put several ranks on one GPU; to keep NVLS, start one rank per GPU and drop NCCL_MULTI_RANK_GPU_ENABLE."}, true
	}
	return failureClass{"two ranks of one communicator are on the same GPU, and NCCL refused init (invalid usage)",
		"NCCL wants one GPU per rank of a communicator: at init it compares the host and GPU of every rank (the GPU's PCI bus id through 2.30.4, so MIG instances of one GPU count as one; its UUID from 2.30.7) and returns ncclInvalidUsage when two match. The processes did not pick their GPU by local rank: each stayed on device 0 (no torch.cuda.set_device(local_rank) or hvd.local_rank() before init, every process given the same CUDA_VISIBLE_DEVICES), or more ranks were started on a node than it has GPUs. It is not the network.",
		"Start at most one rank per GPU of each node and bind each to its own by local rank: torch.cuda.set_device(local_rank) (or CUDA_VISIBLE_DEVICES=$LOCAL_RANK) before the communicator is created, mpirun/srun with as many tasks per node as GPUs (Slurm --gpus-per-task=1 or --gpu-bind); check that the 'comm … rank … cudaDev … busId' lines show a distinct busId per rank of a host. NCCL 2.30 on runs several ranks on one GPU when NCCL_MULTI_RANK_GPU_ENABLE=1 is set (without NVLS)."}, true
}
