package doctor

import (
	"strings"
	"testing"
)

// ncclLogFindingsS33 is what the doctor finds in each of 26 real NCCL,
// RCCL, aws-ofi-nccl and PyTorch watchdog logs taken from public issue
// threads in session 33 (testdata/corpus/nccl-log; each file names its
// source), chosen for line forms not read before (launcher, Ray, pdsh,
// k9s and line-number prefixes; plugin, SHARP and GPUDirect-TCPX lines;
// PyTorch watchdog variants): every finding's id and severity, sorted.
var ncclLogFindingsS33 = []struct{ file, want string }{
	{"nccl-2.10.3-one-host-libibverbs-warn-blank-lines-socket-eth0-nccl857.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-2.20.3-plugin-symbol-v8-v5-lines-stripped-prefix-nccl1292.txt", ""},
	{"nccl-2.21.5-rtx4090-roce-bond-vlan-oob-one-host-plugin-internal-nccltests307.txt", "nccl.transport.ib:info"},
	{"nccl-2.29-gin-plugin-lines-ibtest-cqe-retry-exc-err-named-status-markdown-links-nccl2397.txt", "nccl.ib.retry_exceeded:error nccl.transport.ib:info"},
	{"nccl-2.8.2-one-host-2-gpus-p2p-level-loc-shm-no-ib-device-nccl606.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-aks-leader-pod-net-gdr-level-sys-env-net-ib-gdrdma-healthy-aksrdma36.txt", "nccl.transport.ib:info"},
	{"nccl-azureml-hpcx-ibext-no-device-ib-disabled-socket-eth0-relaxed-ordering-nccl847.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-blank-host-2-rails-net-ib-4-5-gid3-ring-pxn-0-gdr-0-ncclmesh56.txt", "nccl.gdr.disabled:warn nccl.transport.ib:info"},
	{"nccl-dgx-spark-engine-core-ray-double-prefix-2-ranks-cc-off-workfifo-vllmdgxspark1.txt", ""},
	{"nccl-gpudirecttcpx-rx-ctrl-timeout-warn-signature-no-host-a3-tcpxplugin1.txt", "nccl.warn.error:warn"},
	{"nccl-ofi-find-provider-warn-one-line-docker-no-efa-baseami2.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-ofi-old-function-line-format-open-av-einval-efa-1.5-awsofinccl22.txt", "nccl.warn.error:warn"},
	{"nccl-ofi-old-function-line-format-pdsh-prefix-no-optimal-provider-p4d-awsofinccl67.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-pdsh-host-prefix-p4d-16-nodes-ofi-efa-collnet-v4-symbol-init-hang-nccl526.txt", "nccl.transport.plugin:info"},
	{"nccl-ray-train-worker-p5-nvls-head-16-ranks-2-nodes-awsomedistai386.txt", "nccl.log.no_network_lines:info"},
	{"nccl-sglang-2-nodes-p2p-ipc-net-ib-gdrdma-rings-bare-rank-tid-sglang4289.txt", "nccl.transport.ib:info"},
	{"nccl-sharp-plugin-streaming-tree-lock-failed-sharp-log-lines-sharpplugins151.txt", "nccl.log.no_network_lines:info nccl.warn.error:warn"},
	{"nccl-socket-2-hosts-no-ib-device-4-ranks-init-start-trees-nccltests179.txt", "nccl.transport.socket_fallback:error"},
	{"nccl-vllm-ray-worker-wrapper-deepseek-2-nodes-p2p-ipc-read-net-ib-gdrdma-vllm15100.txt", "nccl.transport.ib:info"},
	{"pytorch-line-number-prefix-failure-detected-by-watchdog-flightrecorder-off-llamafactory8261.txt", "nccl.collective.timeout:error"},
	{"pytorch-timestamp-rank-prefix-alltoall-two-pgs-watchdog-socket-chain-nccl1610.txt", "nccl.collective.timeout:error"},
	{"pytorch-watchdog-k9s-box-frame-allgather-seqnum1-3-ib-nics-nccl719.txt", "nccl.collective.timeout:error"},
	{"rccl-2.20.5-pytorch-glog-lines-iommu-warn-dmabuf-disabled-bond0-rccl1454.txt", "nccl.host.config:warn"},
	{"rccl-2.22.3-vllm-iommu-warn-banner-libibverbs-missing-veth-socket-rocmvllm390.txt", "nccl.host.config:warn nccl.transport.socket_fallback:warn"},
	{"rccl-collective-trace-opcount-kernel-launch-hwid-lines-rccl429.txt", ""},
	{"rccl-mi250x-2-nodes-net-socket-channels-comm-nranks-suffix-rccl1026.txt", "nccl.transport.socket_fallback:error"},
}

func TestNCCLLogCorpusFindingsS33(t *testing.T) { checkLogFindings(t, ncclLogFindingsS33) }

// PyTorch numbers each process group's collectives on its own, and a
// process numbers its groups in the order it creates them: two ranks'
// "PG ID 11" with GUIDs 119 and 112 (NVIDIA/nccl#1610) are two groups, so
// their sequence numbers (216, 57) and completed work (215, 56) do not
// compare. The ranks named are the job-wide ones of PyTorch's "[rank13]:"
// tag, not the "[Rank 1]" within each group.
func TestWatchdogProgressOfSeveralGroups(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-timestamp-rank-prefix-alltoall-two-pgs-watchdog-socket-chain-nccl1610.txt")
	f := nicMustFind(t, fs, "nccl.collective.timeout", Error, "on ranks 13, 15")
	for _, s := range []string{"2 process groups", "in PG GUID 119 rank 13 completed work 215", "in PG GUID 112 rank 15 completed work 56"} {
		if !strings.Contains(f.Mechanism, s) {
			t.Errorf("mechanism lacks %q:\n%s", s, f.Mechanism)
		}
	}
	for _, s := range []string{"completed only work", "they are not at the same point of the job"} {
		if strings.Contains(f.Mechanism, s) {
			t.Errorf("mechanism compares groups (%q):\n%s", s, f.Mechanism)
		}
	}
	// One group's lines still compare; rank 0 printed no timeout line, but
	// its watchdog's summary stopped at the same work (2847): it reports
	// the timeout too.
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-line-number-prefix-failure-detected-by-watchdog-flightrecorder-off-llamafactory8261.txt")
	f = nicMustFind(t, fs, "nccl.collective.timeout", Error, "on ranks 0, 2")
	if !strings.Contains(f.Mechanism, "2 ranks completed work 2846 and no further") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
}

// The SHARP CollNet plugin's WARN (sharp_plugin.c) is no net-plugin data
// path failure and no unknown WARN: its SHARP group could not be created,
// here because the streaming aggregation tree could not be locked.
func TestSHARPPluginWarn(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-sharp-plugin-streaming-tree-lock-failed-sharp-log-lines-sharpplugins151.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "SHARP CollNet plugin failed (sharp_plugin.c:302)", "Streaming Tree lock failed", "2 lines")
	if !strings.Contains(f.Fix, "SHARP_COLL_ENABLE_SAT=0") || strings.Contains(f.Fix, "NCCL_NET_GDR_LEVEL") {
		t.Errorf("fix: %s", f.Fix)
	}
}

// aws-ofi-nccl's own logger of 2019-2021 ("WARN: Function:
// find_ofi_provider Line: 543: NET/OFI ...") is an NCCL log: the plugin's
// failure to find a provider is the plugin not starting, and its AV error
// a plugin WARN by location.
func TestOFILegacyLogger(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-ofi-old-function-line-format-pdsh-prefix-no-optimal-provider-p4d-awsofinccl67.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "falls back to TCP sockets")
	if !strings.Contains(f.Fix, "fi_info -p efa") {
		t.Errorf("fix: %s", f.Fix)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-ofi-old-function-line-format-open-av-einval-efa-1.5-awsofinccl22.txt")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "net plugin failed (create_nccl_ofi_component:459)", "Couldn't open AV")
}

// A net plugin library that NCCL loaded but could not use ("Failed to
// find ncclNetPlugin symbol (>= v5)", NVIDIA/nccl#1292) leaves NCCL on its
// own transports, IB first: alone it is no sign of a socket fallback.
func TestPluginSymbolMissingIsNoSocketFallback(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.20.3-plugin-symbol-v8-v5-lines-stripped-prefix-nccl1292.txt")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}
