package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNCCLNoNetworkLines: a log of a job on several nodes that prints no
// network line cannot show the transport, and says what to rerun with;
// one that shows the network, or a job on one node, says nothing of it.
func TestNCCLNoNetworkLines(t *testing.T) {
	// ms-swift#6107's excerpt: nNodes 2, and no NET line (real).
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-quoted-gt-prefix-nvls-nchannels-0-2-nodes-4-local-msswift6107.txt")
	f := nicMustFind(t, fs, "nccl.log.no_network_lines", Info, "job on 2 nodes", "nNodes 2")
	if want := "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET"; !strings.Contains(f.Fix, want) {
		t.Errorf("fix %q does not say %q", f.Fix, want)
	}
	for _, rel := range []string{
		// Real logs of jobs on 2 nodes that show the network.
		"corpus/nccl-log/nccl-2.28.9-dgx-spark-gb10-roce-200g-port-lines-gid0-allgather.txt",
		"corpus/nccl-log/ibext-merged-nics-wrong-socket-type-nccltests373.txt",
		"corpus/nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt",
		"corpus/nccl-tests/allreduce-efa-aws-ofi-nccl1.18-nccl2.29-gdr0-plugin-reason-g7e.txt",
		// A real GB200 log on one node (nNodes 1) with no NET line.
		"corpus/nccl-log/nccl-mnnvl-1-clique-p2p-mnnvl-nnodes-1-gb200.txt",
	} {
		nicMustNot(t, diagnoseFiles(t, Options{}, rel), "nccl.log.no_network_lines")
	}
	// Synthetic: ranks on two hosts and no nNodes (NCCL before 2.12),
	// without and with the IB transport line.
	dir := t.TempDir()
	lines := "hostA:100:100 [0] NCCL INFO comm 0x5561 rank 0 nranks 2 cudaDev 0 busId 7000 - Init COMPLETE\n" +
		"hostB:200:200 [0] NCCL INFO comm 0x7781 rank 1 nranks 2 cudaDev 0 busId 7000 - Init COMPLETE\n"
	bare, shown := filepath.Join(dir, "nccl-2hosts-synthetic.log"), filepath.Join(dir, "nccl-2hosts-ib-synthetic.log")
	if err := os.WriteFile(bare, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shown, []byte("hostA:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>\n"+lines), 0o644); err != nil {
		t.Fatal(err)
	}
	nicMustFind(t, Diagnose([]string{bare}, nil, Options{}).Findings, "nccl.log.no_network_lines", Info, "job on 2 nodes", "2 hosts appear")
	nicMustNot(t, Diagnose([]string{shown}, nil, Options{}).Findings, "nccl.log.no_network_lines")
}

// TestNCCLIBDisabledTellsTransport: schmaustech/nvidia-tools-image's
// OpenShift runs pass -x NCCL_IB_DISABLE=1 on mpirun's command line and
// print no NCCL network line. The setting tells the transport (sockets,
// nccl.transport.socket_fallback), so the log's silence is not reported as
// the transport being unknown, and the two H200 pods' 92 GB/s over
// sockets is not set beside the 8 x 400G RDMA fabric such nodes carry
// ("24% of the ~380 GB/s of the usual fabric"). The pods' IB run of the
// same README (NCCL_IB_DISABLE=0) still says the network is not shown.
func TestNCCLIBDisabledTellsTransport(t *testing.T) {
	for _, rel := range []string{
		"corpus/nccl-tests/allreduce-2.27.3-h200-2pod-g8-one-shared-if-ib-disable-ring-92GBps-openshift.txt",
		"corpus/nccl-tests/allreduce-2.27.3-l40s-2pod-1g-sriov-ib-disable-socket-reducing-maxbytes-8GBps-openshift.txt",
	} {
		fs := diagnoseFiles(t, Options{}, rel)
		if f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Error, "falls back to TCP sockets"); !strings.Contains(f.Mechanism, "NCCL_IB_DISABLE=1") {
			t.Errorf("%s: socket fallback without its cause: %s", rel, f.Mechanism)
		}
		nicMustNot(t, fs, "nccl.log.no_network_lines")
		f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "no NIC speed known")
		if strings.Contains(f.Title+f.Mechanism, "usual fabric") {
			t.Errorf("%s: set beside the RDMA fabric: %s", rel, f.Title)
		}
	}
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-2.27.3-l40s-2pod-g2-sriov-ib-reducing-maxbytes-9.6GBps-openshift.txt")
	nicMustFind(t, fs, "nccl.log.no_network_lines", Info, "job on 2 nodes")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}

// TestNCCLIBDisabledInEffect: only the NCCL_IB_DISABLE the job ran with
// tells the transport. NCCL's own echo decides; else the setting made last
// (a launcher's -x after an export); any non-zero integer turns IB off, as
// NCCL reads it; a net plugin named by NCCL_NET or NCCL_NET_PLUGIN carries
// the traffic in its place, so the log's silence still hides it.
// Synthetic: a two-host log with no network line after the settings.
func TestNCCLIBDisabledInEffect(t *testing.T) {
	log := "hostA:100:100 [0] NCCL INFO comm 0x5561 rank 0 nranks 2 cudaDev 0 busId 7000 - Init COMPLETE\n" +
		"hostB:200:200 [0] NCCL INFO comm 0x7781 rank 1 nranks 2 cudaDev 0 busId 7000 - Init COMPLETE\n"
	for _, c := range []struct {
		name, pre string
		hidden    bool // the transport is unknown: nccl.log.no_network_lines
	}{
		{"launcher-overrides-export", "export NCCL_IB_DISABLE=1\nmpirun -np 2 -x NCCL_IB_DISABLE=0 ./all_reduce_perf -b 8 -e 1G\n", true},
		{"launcher-sets-after-export", "export NCCL_IB_DISABLE=0\nmpirun -np 2 -x NCCL_IB_DISABLE=1 ./all_reduce_perf -b 8 -e 1G\n", false},
		{"echo-decides", "export NCCL_IB_DISABLE=1\nhostA:100:100 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n", true},
		{"non-zero-integer", "export NCCL_IB_DISABLE=2\n", false},
		{"unreadable-is-default", "export NCCL_IB_DISABLE=yes\n", true},
		{"net-plugin", "export NCCL_IB_DISABLE=1\nexport NCCL_NET_PLUGIN=aws-ofi\n", true},
		{"net-names-plugin", "export NCCL_IB_DISABLE=1\nexport NCCL_NET=\"AWS Libfabric\"\n", true},
		{"net-names-socket", "export NCCL_IB_DISABLE=1\nexport NCCL_NET=Socket\n", false},
	} {
		path := filepath.Join(t.TempDir(), "nccl-2hosts-"+c.name+"-synthetic.log")
		if err := os.WriteFile(path, []byte(c.pre+log), 0o644); err != nil {
			t.Fatal(err)
		}
		fs := Diagnose([]string{path}, nil, Options{}).Findings
		if got := find(fs, "nccl.log.no_network_lines") != nil; got != c.hidden {
			t.Errorf("%s: nccl.log.no_network_lines %v, want %v", c.name, got, c.hidden)
		}
	}
}
