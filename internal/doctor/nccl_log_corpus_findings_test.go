package doctor

import (
	"slices"
	"strings"
	"testing"
)

// ncclLogFindings is what the doctor finds in each NCCL log of a sweep
// (real logs, testdata/corpus/nccl-log; each file names its
// source): every finding's id and severity, sorted. A healthy log, or an
// excerpt with nothing to judge, finds nothing at error level.
var ncclLogFindings = []struct{ file, want string }{
	{"nccl-2-hosts-16-ranks-net-ib-gdrdma-p2p-ipc-read-channels-nccl834.txt", "nccl.transport.ib:info"},
	{"nccl-2-ranks-one-host-nvls-not-available-connected-trees-pytorch105287.txt", ""},
	{"nccl-2.13-reg-dmabuf-mr-not-supported-one-line-nccl778.txt", "nccl.ib.alloc_failed:error"},
	{"nccl-2.14.3-aws-socket-recv-broken-pipe-proxy-connect-remote-error-nccl795.txt", "nccl.warn.error:error"},
	{"nccl-2.18.3-roce-one-hca-ib-hca-async-thread-socketstartconnect-nccl1038.txt", "nccl.transport.ib:info"},
	{"nccl-2.18.5-wsl-cudawrap-libcuda-not-found-socket-eth0-llamafactory1169.txt", "nccl.warn.error:warn"},
	{"nccl-2.19.3-ibext-v7-no-device-socket-eth0-2-ranks-24-channels-vllm4277.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-2.19.3-socket-ens7-plugin-v7-symbol-single-rank-32-channels-nccl1267.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-2.20.5-vllm-joined-lines-one-line-bond0-plugin-dlerror-4-ranks-vllm12292.txt", ""},
	{"nccl-2.21.5-ofi-cloudwatch-pipe-duplicated-lines-efa-empty-awsofinccl889.txt", ""},
	{"nccl-2.21.5-vllm-ray-topo-system-dump-bare-version-nccl1591.txt", ""},
	{"nccl-2.22-init-timings-bootstrap-dominant-8-ranks-one-host-nccl534.txt", ""},
	{"nccl-2.25.1-b200-init-timings-kernels-52s-of-55s-nccl1646.txt", "nccl.init.slow:warn"},
	{"nccl-2.25.1-async-fatal-qp-invalid-request-h100-2-nodes-alltoall-nccl1919.txt", "nccl.ib.async_event:error"},
	{"nccl-2.30-ib-port-failover-device-0-marked-failed-recovery-yes-nccl2157.txt", "nccl.warn.error:warn"},
	{"nccl-2.2x-grep-rank-files-custom-prefix-socketpollconnect-no-pollout-1024-ranks-nccl-pr1618.txt", "nccl.warn.error:warn"},
	{"nccl-2.22.3-kubevirt-vm-roce-2-nodes-init-nccl1373.txt", "nccl.transport.ib:info"},
	{"nccl-2.25.1-p2p-ipc-register-userbuff-warn-watchdog-stuck-300s-nccl1684.txt", "nccl.collective.timeout:error"},
	{"nccl-2.25.1-rtx5090-p2p-disabled-socket-cloudflarewarp-maxsharedmem-nccl1637.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-2.26.2-k8s-timestamp-socket-no-libibverbs-ras-bootstrap-timings-nccl1647.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-2.26.2-ras-listening-ib-set-ece-fifo-tc-signal-nccl1669.txt", "nccl.transport.ib:info"},
	{"nccl-2.2x-aws-efa-ofi-nic-groups-p5en-nccl1597.txt", "nccl.transport.plugin:info"},
	{"nccl-2.2x-ras-bind-address-in-use-p2p-disabled-shm-one-host-vllm19204.txt", ""},
	{"nccl-2.2x-roce-intermittent-status12-recv-hca-mlx5_10-gid-subnet-differs-from-oob-nccl1698.txt", "nccl.ib.retry_exceeded:error"},
	{"nccl-2.29-gb300-roce-8-dma-devices-list-elided-no-prefix-aicr1413.txt", "nccl.transport.ib:info"},
	{"nccl-2.2x-host-cut-prefix-local-protection-and-retry-exceeded-ipv4-mapped-gids-nccl1434.txt", "nccl.ib.local_protection:error nccl.ib.retry_exceeded:error"},
	{"nccl-2.1x-mpirun-local-protection-err4-vendor81-ipv6-link-local-peers-5-hosts-nccl928.txt", "nccl.ib.local_protection:error"},
	{"nccl-2.28.9-vllm-worker-pid-k8s-pod-ib-gin-gdaki-dmabuf-dynamo11914.txt", "nccl.transport.ib:info"},
	{"nccl-2.26.2-vllm-rfc3339-lines-k8s-bridge-br0-rdma-sharp-plugin-v8-dynamo1408.txt", ""},
	{"nccl-2.30.7-erdma-unable-to-open-device-one-of-two-no-prefix-nccl2428.txt", "nccl.warn.error:warn"},
	{"nccl-2.3-old-format-18-ib-devices-ib0-sideband-dgx1-pytorch43258.txt", "nccl.transport.ib:info"},
	{"nccl-2.4-mpirun-stdout-tag-ofi-libfabric-open-av-einval-awsofinccl24.txt", "nccl.warn.error:warn"},
	{"nccl-2.4.2-aws-socket-rings-shm-h-cuda-invalid-argument-32-ranks-pytorch23534.txt", "nccl.transport.socket_fallback:error nccl.warn.error:error"},
	{"nccl-2.5.6-mpirun-tag-bootstrap-lo-socket-lo-no-ib-4-ranks-nccl300.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-docker-socket-eth0-libibverbs-missing-joined-lines-vllm9329.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-gpudirecttcpx-plugin-rx-ctrl-timeout-warn-no-host-nccl1652.txt", "nccl.warn.error:warn"},
	{"nccl-ib-docker-status12-vendor129-recv-then-status5-vendor249-hca-ibp152s0-deepspeed6875.txt", "nccl.ib.retry_exceeded:error"},
	{"nccl-ib-hca-two-ports-ib-disable-0-user-host-nccltests228.txt", "nccl.transport.ib:info"},
	{"nccl-ibext-disabled-socket-lo-127-bgp-unnumbered-nccl1053.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-k8s-modify-qp-no-such-device-wrong-gid-index-one-line-nccl718.txt", "nccl.ib.qp_setup_failed:error"},
	{"nccl-legacy-cuda-register-p2p-cuda-failure-1-mpirun-tag-timestamp-commreclaim-nccl1704.txt", "nccl.warn.error:error"},
	{"nccl-ofi-no-host-prefix-dmabuf-available-gdr-disabled-nccltests245.txt", "nccl.gdr.disabled:warn"},
	{"nccl-ray-actor-prefix-timestamp-alloc-h-cuda-invalid-argument-24-channels-nccl1283.txt", "nccl.warn.error:error"},
	{"nccl-ray-worker-wrapper-ip-prefix-p2p-nchannels-env-32-ranks-ray59778.txt", ""},
	{"nccl-roce-4-hca-one-host-2-ranks-mnnvl-topo-numa-nccl1358.txt", "nccl.transport.ib:info"},
	{"nccl-search-cc-no-path-for-pattern-4-fallback-simple-order-2-hosts-nccl487.txt", "nccl.graph.search_fallback:warn nccl.log.no_network_lines:info"},
	{"nccl-vllm-k8s-rfc3339-timestamps-interleaved-cut-line-socket-eth0-4-ranks-vllm9193.txt", "nccl.transport.socket_fallback:warn"},
	{"pytorch-nccl-2.14.3-one-line-remote-error-completion-error-12-alpaca207.txt", "nccl.ib.retry_exceeded:error"},
	{"pytorch-rank-prefix-nccl-2.28.8-remote-error-ofi-undeliverable-nccl1928.txt", "nccl.warn.error:error"},
	{"pytorch-distbackenderror-nccl-2.29.7-wrapped-after-location-symm-mem-window-register-pytorch188567.txt", "nccl.warn.error:error"},
	{"pytorch-watchdog-reduce-scatter-seq7753-pg1-no-nccl-lines-llamafactory6269.txt", "nccl.collective.timeout:error"},
	{"nccl-2.20.5-fastsocket-plugin-v6-tcp-device-list-5-nics-nccl1519.txt", "nccl.transport.plugin:info"},
	{"nccl-fastsocket-gdr-disabled-per-eth-topology-unreadable-nccl1519.txt", ""},
	{"nccl-pdsh-double-prefix-blank-lines-plugin-loader-only-2-azure-vms-nccl1059.txt", "nccl.log.no_network_lines:info"},
	{"nccl-2.27.6-bootstrap-colon-nccltests-devices-2-vms-plugin-could-not-find-nccl1866.txt", "nccl.log.no_network_lines:info nccltests.rows.none:info"},
	{"nccl-2.28.9-comm-config-blocking-env-plugin-ibs17-one-host-vllm42750.txt", ""},
	{"nccl-mpirun-stderr-tag-libibverbs-couldnt-stat-roce-one-hca-k8s-horovod3333.txt", "nccl.transport.ib:info"},
	{"nccl-socket-gdr-disabled-per-lan-nic-topology-dump-fastertransformer-nccl901.txt", ""},
	{"nccl-2.18.6-azure-mlx5_an0-roce-one-vm-2-ranks-init-start-nccl1101.txt", "nccl.transport.ib:info"},
	{"nccl-2.27.5-user-prints-interleaved-dlvsym-no-ib-device-socket-eth0-one-host-nccl1936.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-mpich-two-hosts-plugin-load-returned-2-nccltests244.txt", "nccl.log.no_network_lines:info"},
	{"nccl-2.30.4-roce-2-hosts-gin-rma-ras-bind-in-use-ring-gdr0-then-shrink-one-node-gdr1-nccl2397.txt", "nccl.gdr.disabled:warn nccl.transport.ib:info"},
	{"nccl-2.2x-roce-16-ranks-gdr-disabled-two-hcas-no-reason-nccl1537.txt", "nccl.gdr.disabled:warn nccl.transport.ib:info"},
	{"nccl-socket-libibverbs-missing-gdr-disabled-per-socket-nic-topology-one-host-accelerate2183.txt", "nccl.transport.socket_fallback:warn"},
	{"rccl-2.20.5-azure-mi300x-vf-topology-reverse-path-failed-socket-quoted-rccl1728.txt", "nccl.transport.socket_fallback:info nccl.warn.error:error nccltests.rows.none:info"},
	{"rccl-2.21.5-banner-socket-dmabuf-disabled-mi50-rccltests163.txt", "nccl.transport.socket_fallback:warn nccltests.rows.none:info"},
	{"rccl-ib-4-hca-librccl-net-no-plugin-rccl419.txt", "nccl.transport.ib:info"},
	{"nccl-2.22-proxy-service-accept-eagain-close-retcode3-at-abort-complete-nccl1668.txt", "nccl.log.no_network_lines:info"},
	{"nccl-2.22-docker-proxy-service-warns-after-intranode-test-socket-chains-deepep41.txt", ""},
	{"nccl-2.17.1-container-hpcx-ibext-v5-no-device-twice-socket-five-nics-virbr0-nccl941.txt", "nccl.transport.socket_fallback:warn"},
	{"nccl-k8s-pod-ibv-open-device-failed-two-of-many-mlx5-devices-skipped-roce-imagereward65.txt", "nccl.transport.ib:info nccl.warn.error:warn"},
	{"nccl-2.20.3-async-local-access-violation-then-status5-flushed-link-local-gids-cx4-nccl1524.txt", "gid.index.link_local:warn nccl.ib.async_event:error nccl.ib.completion_flushed:error"},
}

func TestNCCLLogCorpusFindings(t *testing.T) { checkLogFindings(t, ncclLogFindings) }

// checkLogFindings diagnoses each NCCL log of a sweep's table alone and
// compares its findings' ids and severities with the table's.
func checkLogFindings(t *testing.T, table []struct{ file, want string }) {
	t.Helper()
	checkCorpusFindings(t, "corpus/nccl-log/", table)
}

// checkCorpusFindings diagnoses each file of dir alone and compares its
// findings' ids and severities, sorted, with the table's.
func checkCorpusFindings(t *testing.T, dir string, table []struct{ file, want string }) {
	t.Helper()
	for _, c := range table {
		var got []string
		for _, f := range diagnoseFiles(t, Options{}, dir+c.file) {
			got = append(got, f.ID+":"+strings.ToLower(f.Severity.String()))
		}
		slices.Sort(got)
		if g := strings.Join(slices.Compact(got), " "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.file, g, c.want)
		}
	}
}

// NET/IB skipping two devices on one host, each after the verbs wrapper's
// own "Call to ibv_open_device failed" (zai-org/ImageReward#65): one
// finding naming both devices, the second skip of a process part of it
// rather than its fallout, and no queue-pair setup failure.
func TestDeviceSkipsOneFinding(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-k8s-pod-ibv-open-device-failed-two-of-many-mlx5-devices-skipped-roce-imagereward65.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "mlx5_59, mlx5_58", "left them out")
	if strings.Contains(f.Mechanism, "fallout") || len(f.Evidence) != 3 {
		t.Errorf("mechanism %q, %d lines", f.Mechanism, len(f.Evidence))
	}
}

// One receive flushed after its host's queue-pair fatal event (NVIDIA/nccl#1524):
// the flush names the event as its cause, in the singular, and the
// link-local GIDs it printed are a warning that says why for RoCE v1 and v2.
func TestFlushedAfterQPEvent(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.20.3-async-local-access-violation-then-status5-flushed-link-local-gids-cx4-nccl1524.txt")
	f := nicMustFind(t, fs, "nccl.ib.completion_flushed", Error, "after a queue-pair fatal event")
	if !strings.Contains(f.Mechanism, "on ubuntu20-server-2 mlx5_0:1") || !strings.Contains(f.Mechanism, "the flushed completion is its fallout, not a fault of its own") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
	g := nicMustFind(t, fs, "gid.index.link_local", Warn, "fe80::e61d:2dff:fef2:9c94")
	if !strings.Contains(g.Mechanism, "as a RoCE v1 GID") || strings.Contains(g.Mechanism, "share one L2 segment and") {
		t.Errorf("mechanism %q", g.Mechanism)
	}
}

// ibv_reg_dmabuf_mr failing with EOPNOTSUPP (NVIDIA/nccl#778) is the verbs
// stack without DMA-BUF memory regions, not a locked-memory or resource
// limit: the fix is NCCL_DMABUF_ENABLE=0 (nvidia-peermem) or a stack that
// has them.
func TestDMABufNotSupportedIsNoResourceLimit(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.13-reg-dmabuf-mr-not-supported-one-line-nccl778.txt")
	f := nicMustFind(t, fs, "nccl.ib.alloc_failed", Error, "DMA-BUF", "ibv_reg_dmabuf_mr: Operation not supported")
	if !strings.Contains(f.Fix, "NCCL_DMABUF_ENABLE=0") || strings.Contains(f.Fix, "ulimit") {
		t.Errorf("fix %q", f.Fix)
	}
}

// A net plugin's WARN is known by its location, a function where NCCL
// prints a source file (aws-ofi-nccl's "create_nccl_ofi_component:459",
// GPUDirect-TCPX's signature), or by its NET/<name> tag; the plugin's
// channel lines keep the job off the socket-fallback story, and one
// plugin location's WARNs about several connections are one finding.
func TestPluginWarnsAreThePlugins(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.4-mpirun-stdout-tag-ofi-libfabric-open-av-einval-awsofinccl24.txt")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "net plugin failed (create_nccl_ofi_component:459)", "Couldn't open AV", "on ip-172-32-45-165")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-gpudirecttcpx-plugin-rx-ctrl-timeout-warn-no-host-nccl1652.txt")
	if got := nicFind(fs, "nccl.warn.error"); len(got) != 1 || !strings.Contains(got[0].Title, "(tcpxCommProgress:1231)") || !strings.Contains(got[0].Title, "2 lines") {
		t.Errorf("tcpx WARNs: %s", nicTitles(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-rank-prefix-nccl-2.28.8-remote-error-ofi-undeliverable-nccl1928.txt")
	nicMustFind(t, fs, "nccl.warn.error", Error, "net plugin failed (NET/OFI)", "UNDELIVERABLE", "returned 6")
	// A plugin that fails to start: nccl.transport.none tells it, with its
	// first failure line; its later WARNs are no second finding.
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.3-ofi-1.21-cxi-no-provider-no-net-plugin-polaris.txt")
	nicMustFind(t, fs, "nccl.transport.none", Error)
	if got := nicFind(fs, "nccl.warn.error", "net plugin"); len(got) > 0 {
		t.Errorf("the failed start told twice: %s", got[0].Title)
	}
}

// A net plugin that turned GPUDirect RDMA off says so in its own lines
// (aws-ofi-nccl "Could not disable CUDA API usage for HMEM, disabling
// GDR", NVIDIA/nccl-tests#245) with no GPU Direct RDMA decision of NCCL's
// beside them: that alone is GPUDirect RDMA off.
func TestPluginGDROffAlone(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-ofi-no-host-prefix-dmabuf-available-gdr-disabled-nccltests245.txt")
	nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "NET/OFI turned it off")
}

// Queue pairs NET/IB connected (NCCL 2.19+'s set_ece lines,
// NVIDIA/nccl#1669) are lines about the network: IB in use, not "no
// network lines".
func TestECELinesAreNetworkLines(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.26.2-ras-listening-ib-set-ece-fifo-tc-signal-nccl1669.txt")
	f := nicMustFind(t, fs, "nccl.transport.ib", Info, "NET/IB")
	if f.Evidence[0].Line != 4 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, fs, "nccl.log.no_network_lines")
}

// A WARN from a tuner's or profiler's plugin, or from a function with no
// net plugin's signature, is not told as a net plugin's failure: only a
// NET/<name> tag or a net plugin's location is. Synthetic.
func TestOnlyNetPluginWarnsAreNetPlugins(t *testing.T) {
	for _, where := range []string{"ncclTunerPluginGetCollInfo:88", "profilerPluginInit:55", "pluginInit:12", "runTask:40"} {
		fs := synthFindings(t, Options{}, "gpu01:1:1 [0] "+where+" NCCL WARN call failed: invalid argument")
		if got := nicFind(fs, "nccl.warn.error", "net plugin"); len(got) != 0 {
			t.Errorf("%s told as a net plugin: %s", where, nicTitles(got))
		}
	}
	nicMustFind(t, synthFindings(t, Options{}, "gpu01:1:1 [0] nccl_net_ofi_rdma_init:310 NCCL WARN call failed: invalid argument"),
		"nccl.warn.error", Warn, "net plugin failed (nccl_net_ofi_rdma_init:310)")
}
