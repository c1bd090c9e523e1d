package ingest

import (
	"strings"
	"testing"
)

// NCCL 2.18 and later print "Failed to open libibverbs.so[.1]" at INFO
// (misc/ibvsymbols.cc); only the WARN form of older releases was read.
// The lines come with launcher prefixes NCCL does not print: vLLM V1's
// "(EngineCore_DP0 pid=742) (RayWorkerWrapper pid=927) " twice over.
func TestCorpusVerbsMissingAtInfo(t *testing.T) {
	for _, c := range []struct {
		rel, host string
		lines     int
	}{
		{"nccl-log/nccl-openshift-vllm-libibverbs-info-socket-ens5-vllm5360.txt", "dtrifiro-gpu", 4},
		{"nccl-log/rccl-vllm-engine-core-ray-double-prefix-socket-r9700-rocm5656.txt", "corona", 1},
	} {
		l := ncclLog(t, c.rel)
		if l.VerbsMissing.Count != c.lines || len(l.VerbsMissing.Hosts) != 1 || l.VerbsMissing.Hosts[0] != c.host {
			t.Errorf("%s: libibverbs missing %d times on %v, want %d on %s", c.rel, l.VerbsMissing.Count, l.VerbsMissing.Hosts, c.lines, c.host)
		}
		if len(l.Networks) != 1 || l.Networks[0].Name != "Socket" || len(l.SocketDevices) != 1 {
			t.Errorf("%s: networks %+v sockets %+v", c.rel, l.Networks, l.SocketDevices)
		}
	}
}

// pdsh puts "gpu1505: " before NCCL's own "gpu1505:22060:22174 [0]"; Ray
// puts "(RayWorker pid=75830) " before it. The host is NCCL's.
func TestCorpusLauncherPrefixes(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-pdsh-double-host-prefix-net-ib-1-channels-transformers22363.txt")
	if h := l.Hosts(); len(h) != 2 || h[0] != "gpu1505" || h[1] != "gpu1504" {
		t.Errorf("pdsh hosts %v", h)
	}
	if len(l.Channels) != 2 || l.Channels[0].Net != "IB" || l.Channels[0].Recv != 1 || l.Channels[0].GDR != 0 {
		t.Errorf("pdsh channels %+v", l.Channels)
	}
	r := ncclLog(t, "nccl-log/nccl-ray-worker-prefix-sharp-plugin-v5-probe-v100-vllm2442.txt")
	if h := r.Hosts(); len(h) != 1 || h[0] != "bms-airtrunk-c-g1v2-app-10-214-144-75" || r.PluginFailures.Count != 0 || r.Plugins.Count != 4 {
		t.Errorf("ray: hosts %v plugins %d failures %d", h, r.Plugins.Count, r.PluginFailures.Count)
	}
}

// Init lines as NCCL prints them for every way of making a communicator,
// and with the "[Rank 0] " tag of NCCL 2.29. The first and third lines are
// real (public files the search index found, ids 69648849063 and
// 57129709323: RCCL's ncclCommInitRankConfig_impl); the ncclCommSplit line
// is synthetic, in init.cc's format.
func TestCommInitForms(t *testing.T) {
	l := parseLog(t, strings.Join([]string{
		"VM-16-64-ubuntu:28471:28471 [0] NCCL INFO [Rank 0] ncclCommInitRank comm 0x55eb22a04a50 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 80 commId 0x2ef13c5ed0553a05 - Init START",
		"VM-16-64-ubuntu:28471:28471 [1] NCCL INFO ncclCommSplit comm 0x55eb22a05000 rank 3 nranks 4 cudaDev 1 nvmlDev 1 busId 90 parent 0x55eb22a04a50 splitCount 1 color 0 key 3 - Init COMPLETE",
		"TARS:829507:829550 [0] NCCL INFO ncclCommInitRankConfig_impl comm 0x2bc1f840 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 3000 commId 0xcde2ea451c75c2ba - Init START",
	}, "\n"))
	if l.Comm.Ranks != 4 || len(l.RankGPUs) != 3 || l.RankGPUs[0].BusID != "80" || l.RankGPUs[1].Rank != 3 || l.RankGPUs[2].Host != "TARS" {
		t.Errorf("comm %+v gpus %+v", l.Comm, l.RankGPUs)
	}
}

// NCCL 2.4-2.7 print "NET/Socket : Using" on every rank for bootstrap
// beside "NET/IB : Using": the socket lines say nothing of the data path.
func TestCorpusSocketLinesBesideIB(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.4-socket-and-ib-lines-virbr0-mlx5-ib-nccltests29.txt")
	if !l.SocketLinesBootstrap() || len(l.IBDevices) != 2 || len(l.SocketDevices) != 3 {
		t.Errorf("bootstrap %v, IB %+v, sockets %+v", l.SocketLinesBootstrap(), l.IBDevices, l.SocketDevices)
	}
	for _, tr := range l.Transports() {
		if !tr.RDMA || tr.Socket {
			t.Errorf("%s: %+v, want RDMA only", tr.Host, tr)
		}
	}
}
