package doctor

import (
	"strings"
	"testing"
)

// aws-ofi-nccl 1.6.0 over libfabric's verbs;ofi_rxm on a RoCE cluster
// (devopsrustem/slurmv4): the plugin's device query fails ("Invalid type
// of PCI bus returned 0") and NCCL falls back to NET/IB. The doctor names
// the plugin failing and the fallback, not only RDMA in use.
func TestPluginFallbackToIB(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.27.5-ofi-1.6-verbs-invalid-pci-bus-plugin-fails-falls-back-net-ib-slurmv4.txt")
	f := find(fs, "nccl.plugin.fallback")
	if f == nil {
		t.Fatalf("no nccl.plugin.fallback: %v", ids(fs))
	}
	if f.Severity != Warn || !strings.Contains(f.Title, "NET/OFI") || !strings.Contains(f.Title, "Invalid type of PCI bus returned 0") ||
		!strings.Contains(f.Title, "tpgds-aihub0008") || !strings.Contains(f.Fix, "NCCL_NET_PLUGIN") {
		t.Errorf("finding %+v", f)
	}
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 23 || f.Evidence[1].Line != 30 {
		t.Errorf("evidence %v, want the plugin's failure (line 23) and NCCL's IB assignment (line 30)", f.Evidence)
	}
	if find(fs, "nccl.transport.socket_fallback") != nil {
		t.Errorf("a fallback to IB is not a socket fallback: %v", ids(fs))
	}
	// A plugin failing into sockets stays the socket finding's.
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-ofi-init-failed-socket-fallback-mpi-tags-awsk8stester454.txt")
	if find(fs, "nccl.plugin.fallback") != nil || find(fs, "nccl.transport.socket_fallback") == nil {
		t.Errorf("socket fallback: %v", ids(fs))
	}
}

// "NET/Plugin: Failed to find ncclNetPlugin_v5 symbol." is NCCL probing a
// plugin's interface versions, not a failure: a DGX-A100 host whose
// excerpt ends before its NET/IB line was said to fall back to sockets.
func TestPluginProbeNoSocketFallback(t *testing.T) {
	for _, rel := range []string{"corpus/nccl-log/nccl-ibext-disabled-by-env-net-cc-55-fallback-roce-dgxa100-nccl676.txt", "corpus/nccl-log/nccl-hpcx-ibext-sharp-v6-plugin-4nic-ib-tree-nccl1357.txt"} {
		nicMustNot(t, diagnoseFiles(t, Options{}, rel), "nccl.transport.socket_fallback")
	}
}

const tencentA2A = "corpus/nccl-tests/alltoall-2.26.5-h20-2vm-tencent-ibext-plugin-renamed-network-nccltests321.txt"

// A build of the IBext plugin that names its network otherwise ("Using
// network NCCL RDMA Plugin v6", "P2P plugin IBext") is NCCL's verbs
// transport over the RoCE ports it lists, not a foreign plugin whose
// transport is unknown.
func TestRenamedIBextPluginIsRDMA(t *testing.T) {
	fs := Diagnose([]string{nicTestdata(tencentA2A)}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "nccl.transport.ib", Info, "RDMA in use: NET/NCCL RDMA Plugin v6 over RoCE (mlx5_bond_6:1, mlx5_bond_7:1), GID index 3")
	if !strings.Contains(f.Mechanism, "announced itself as the IBext verbs transport") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
	for _, f := range fs {
		if f.ID == "nccl.transport.plugin" {
			t.Errorf("reported as a foreign plugin: %s", f.Title)
		}
	}
}

// A net plugin that fails to initialise is why NCCL fell back to sockets:
// aws-ofi-nccl on an EKS MPIJob (aws/aws-k8s-tester#454) and on SageMaker
// (aws/aws-ofi-nccl#715). Before, the finding named only "no RDMA device"
// or NCCL_IB_DISABLE and advised installing the plugin that had failed.
func TestPluginInitFailureExplainsSocketFallback(t *testing.T) {
	for _, c := range []struct{ file, msg string }{
		{"corpus/nccl-log/nccl-ofi-init-failed-socket-fallback-mpi-tags-awsk8stester454.txt", `"Failed to initialize sendrecv protocol"`},
		{"corpus/nccl-log/nccl-ofi-init-failed-ib-disabled-cloudwatch-prefix-awsofinccl715.txt", `"aws-ofi-nccl initialization failed"`},
	} {
		f := nicMustFind(t, diagnoseFiles(t, Options{}, c.file), "nccl.transport.socket_fallback", Warn)
		if !strings.Contains(f.Mechanism, "the net plugin NET/OFI failed to initialise on 1 host ("+c.msg) {
			t.Errorf("%s: mechanism does not name the plugin failure: %s", c.file, f.Mechanism)
		}
		if !strings.Contains(f.Fix, "fi_info -p efa") || strings.Contains(f.Fix, "use its own net plugin") {
			t.Errorf("%s: fix %q", c.file, f.Fix)
		}
	}
}

// The mechanism names a TCP plugin's transport; several plugins "move".
func TestPluginTCPMechanism(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.20.5-fastsocket-plugin-v6-tcp-device-list-5-nics-nccl1519.txt")
	f := nicMustFind(t, fs, "nccl.transport.plugin", Info)
	if !strings.Contains(f.Mechanism, "FastSocket moves data over TCP") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
	r := diagnoseText(t, "h1:1:1 [0] NCCL INFO Using network FastSocket\nh2:1:1 [0] NCCL INFO Using network OtherSocket\n")
	f = nicMustFind(t, r.Findings, "nccl.transport.plugin", Info)
	if !strings.Contains(f.Mechanism, "FastSocket, OtherSocket move data over TCP") {
		t.Errorf("several TCP plugins (synthetic names): %q", f.Mechanism)
	}
}

// Two hosts of one nccl-tests run, one loading HPC-X's net plugin and one
// NCCL's internal transport, the lines quoted in a nested Markdown quote
// (NVIDIA/nccl#1634: the run hung with no error between such hosts).
// Before, the two lines made no finding.
func TestPluginMismatch(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-markdown-quoted-hpcx-plugin-on-one-host-internal-on-other-nccl1634.txt")
	f := nicMustFind(t, fs, "nccl.plugin.mismatch", Warn, "HGX-H100-04 a net plugin, HGX-H100-11 none")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 3 || f.Evidence[1].Line != 4 || !strings.Contains(f.Fix, "NCCL_NET_PLUGIN=none") {
		t.Errorf("evidence or fix: %+v %s", f.Evidence, f.Fix)
	}
	// SYNTHETIC: a host that tries a name, finds nothing, then loads a
	// plugin is a plugin host; one whose plugin failed to start is
	// nccl.plugin.fallback's, not this.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"a:1:2 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net-x.so.",
		"a:1:2 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)",
		"b:1:2 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so")
	if f := find(fs, "nccl.plugin.mismatch"); f != nil {
		t.Errorf("both hosts load a plugin: %s", f.Title)
	}
}
