package doctor

import (
	"strings"
	"testing"
)

// Real artifacts found in public threads and documents that diagnose had
// not seen (the headers of the files under testdata/corpus name each
// source). Each test failed before the change it covers.

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

// A net plugin that turns GPUDirect RDMA off says why: aws-ofi-nccl 1.18
// on EFA ("Could not disable CUDA API usage for HMEM, disabling GDR"),
// where the finding said "no reason printed".
func TestPluginGDROffReason(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-efa-aws-ofi-nccl1.18-nccl2.29-gdr0-plugin-reason-g7e.txt")
	f := nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "the net plugin NET/OFI turned it off", "Could not disable CUDA API usage for HMEM")
	if strings.Contains(f.Title, "no reason printed") || !strings.Contains(f.Fix, "aws-ofi-nccl") {
		t.Errorf("title %q fix %q", f.Title, f.Fix)
	}
	if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[0].Text, "disabling GDR") {
		t.Errorf("first evidence %+v, want the plugin's line", f.Evidence)
	}
}
