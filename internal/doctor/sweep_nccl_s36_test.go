package doctor

import "testing"

// ncclLogFindingsS36 is what the doctor finds in each of the real NCCL logs
// taken from public threads in session 36 (testdata/corpus/nccl-log; each
// file names its source), chosen for NCCL 2.27-2.30 forms: 2.30.7's
// "file:line (func)" locations, symmetric memory and window registration,
// the env and profiler plugin lines, Ray's "[repeated Nx across cluster]"
// suffix under quoting: every finding's id and severity, sorted.
var ncclLogFindingsS36 = []struct{ file, want string }{
	{"nccl-2.21.5-vllm-wifi-wlp38s0-bootstrap-plugin-load-returned-2-one-host-vllm5484.txt", ""},
	{"nccl-2.28-vllm-symmetric-kernel-register-comm-allreduce-algo-lines-vllm28901.txt", ""},
	{"nccl-2.2x-h100-k8s-p2p-cumem-channels-nvls-comm-buffsize-8-ranks-nccl1410.txt", ""},
	{"nccl-2.2x-ray-quoted-repeated-across-cluster-suffix-nvls-multicast-mnnvl-8-ranks-nccl1672.txt", ""},
	{"nccl-2.27-mpirun-tag-10-roce-nics-bond0-profiler-not-found-symmetric-preview-nccl1713.txt", "nccl.transport.ib:info"},
	{"nccl-2.27-pytorch-symm-mem-p2p-cuda-invalid-argument-commreclaim-glog-lines-pytorch155740.txt", "nccl.warn.error:error"},
	{"nccl-2.28.9-docker-socket-ib-init-failed-env-plugin-symm-mem-pytorch174029.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-2.28.9-vllm-hami-socket-lo-env-plugin-nccl-call-lines-hamicore261.txt", ""},
	{"nccl-2.28.9-slurm-gpus-per-task-p2p-cuda-101-invalid-device-ordinal-title-line-nccl1948.txt", "nccl.warn.error:error"},
	{"nccl-hpcx-ib-plugin-c-completion-error-5-vendor-249-progress-thread-repeated-nccl1737.txt", "nccl.ib.completion_flushed:error"},
	{"nccl-2.30.7-register-cumemgetaddressrange-cuda-500-vmm-rank-only-prefix-nccl2332.txt", "nccl.warn.error:error"},
	{"nccl-2.30.7-symmetric-va-exhausted-allocator-warn-function-names-rank-only-prefix-nccl2331.txt", "nccl.warn.error:error"},
}

func TestNCCLLogCorpusFindingsS36(t *testing.T) { checkLogFindings(t, ncclLogFindingsS36) }
