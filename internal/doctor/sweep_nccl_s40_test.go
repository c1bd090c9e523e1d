package doctor

import "testing"

// ncclLogFindingsS40 is what the doctor finds in each of the real NCCL logs
// taken from public threads in session 40 (testdata/corpus/nccl-log; each
// file names its source), chosen for multi-node RoCE/IB runs under
// PyTorch, Megatron, vLLM and SGLang, NVLS failures and healthy init
// excerpts: every finding's id and severity, sorted. The healthy ones find
// nothing at error level.
var ncclLogFindingsS40 = []struct{ file, want string }{
	{"nccl-2.18.1-k8s-hpcx-ibext-one-roce-vf-net1-shared-by-8-ranks-nccl1016.txt", "nccl.transport.ib:info"},
	{"nccl-2.20.5-k8s-h100-nvls-cuda-failure-1-invalid-argument-three-processes-nccl1410.txt", "nccl.warn.error:error"},
	{"nccl-2.20.5-vllm-merged-nic-two-roce-ports-one-host-tp2-vllm6201.txt", "nccl.transport.ib:info"},
	{"nccl-2.20.5-vllm-quoted-socket-lxcbr0-tailscale0-one-host-tp2-vllm6370.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-2.26.2-nvls-cuda-failure-401-present-state-timestamp-nccl1788.txt", "nccl.warn.error:error"},
	{"nccl-megatron-numeric-hostname-64-roce-9-bond-hcas-bond1-nccl997.txt", "nccl.transport.ib:info"},
	{"nccl-pdsh-prefix-nvls-initialization-error-two-pods-nccl1029.txt", "nccl.log.no_network_lines:info nccl.warn.error:error"},
	{"nccl-sglang-2-nodes-ibext-v8-gdrdma-watchdog-allreduce-cut-line-sglang3836.txt", "nccl.collective.timeout:error nccl.transport.ib:info"},
	{"pytorch-megatron-watchdog-allreduce-seq305-service-thread-closed-by-localrank-megatron735.txt", "nccl.collective.timeout:error"},
}

func TestNCCLLogCorpusFindingsS40(t *testing.T) { checkLogFindings(t, ncclLogFindingsS40) }
