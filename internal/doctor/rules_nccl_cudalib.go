package doctor

import "strings"

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
