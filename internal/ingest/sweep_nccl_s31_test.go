package ingest

import "testing"

// aws-ofi-nccl brings no CollNet: "Failed to find ncclCollNetPlugin symbol
// (>= v5)" after "Loaded net plugin AWS Libfabric (v6)" (ray-project/ray
// #43753) is no failed plugin load, which the socket-fallback rule took as
// the reason NCCL fell back to sockets.
func TestCorpusCollNetSymbolIsNoPluginFailure(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.19.3-ray-aws-ofi-v6-collnet-symbol-missing-ray43753.txt")
	if l.PluginFailures.Count != 0 || l.Plugins.Count == 0 {
		t.Errorf("plugin lines %d, failures %d (%+v)", l.Plugins.Count, l.PluginFailures.Count, l.PluginFailures.Lines)
	}
}

// NCCL prints a GPUDirect RDMA decision for every device of its socket
// transport too ("NET/Socket : GPU Direct RDMA Disabled for HCA 1
// 'virbr0'", ray-project/ray#40850): sockets never read GPU memory, so
// these lines are no GPUDirect RDMA decision.
func TestCorpusSocketGDRLinesIgnored(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-ray-socket-gdr-disabled-virbr0-bridge-ray40850.txt")
	if len(l.GDR) != 0 {
		t.Errorf("GDR decisions %+v", l.GDR)
	}
	if g := ncclLog(t, "nccl-log/gdr-disabled-no-module-netib-channels-issue899.txt"); len(g.GDR) == 0 {
		t.Error("NET/IB's decisions lost")
	}
}

// NCCL 2.4-2.7 print "NET/Socket : Using" for bootstrap on every rank, but
// with the IB transport off (NCCL_IB_DISABLE=1, NVIDIA/nccl#529) the
// interfaces listed carry the data: ip6tnl0's link-local address among
// them.
func TestCorpusOldSocketLinesWithIBOff(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.5.6-ib-disabled-socket-ip6tnl0-link-local-first-nccl529.txt")
	if l.SocketLinesBootstrap() || len(l.SocketDevices) == 0 || l.SocketDevices[0].Name != "ip6tnl0" {
		t.Errorf("bootstrap %v, devices %+v", l.SocketLinesBootstrap(), l.SocketDevices)
	}
	if b := ncclLog(t, "nccl-log/nccl-2.4-socket-and-ib-lines-virbr0-mlx5-ib-nccltests29.txt"); !b.SocketLinesBootstrap() {
		t.Error("2.4's bootstrap lines beside IB devices read as the data transport")
	}
}
