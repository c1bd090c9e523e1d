package doctor

import (
	"os"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// Artifacts of the thirteenth sweep: NCCL 2.18-2.28 INFO logs as engineers
// post them. Each test failed before the change it covers.

const sparkLog = "corpus/nccl-log/nccl-2.28.9-dgx-spark-gb10-roce-200g-port-lines-gid0-allgather.txt"

// NCCL 2.27+ states each port's speed on its port line ("NET/IB: [1]
// rocep1s0f1:uverbs1:1/RoCE provider=Mlx5 speed=200000 ..."): a pasted
// nccl-tests run with those lines is judged against the NIC it used, also
// when the "Made virtual device" lines are not in the paste.
func TestNCCLTestsSpeedFromPortLine(t *testing.T) {
	b, err := os.ReadFile(nicTestdata(sparkLog))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, ln := range strings.Split(string(b), "\n") {
		if !strings.Contains(ln, "Made virtual device") {
			kept = append(kept, ln)
		}
	}
	fs := Diagnose([]string{"-"}, strings.NewReader(strings.Join(kept, "\n")), Options{}).Findings
	f := nicMustFind(t, fs, "nccltests.busbw.low", Warn, "21.99 GB/s", "88% of what 200Gbps allows per rank")
	if !strings.Contains(f.Mechanism, "stated for the NIC NCCL uses, rocep1s0f1") || !strings.Contains(f.Evidence[0].Text, "provider=Mlx5 speed=200000") {
		t.Errorf("speed not taken from the port line: %s / %v", f.Mechanism, f.Evidence[0])
	}
	ib := nicMustFind(t, fs, "nccl.transport.ib", Info, "RoCE (rocep1s0f1:1, roceP2p1s0f1:1)")
	if !strings.Contains(ib.Mechanism, "2 ranks on 2 nodes, up to 1 per node; ports at 200Gbps") {
		t.Errorf("transport facts: %s", ib.Mechanism)
	}
}

// MNNVL 1: the nodes share one NVLink domain, so the run's busbw is not
// judged against a NIC (the speed given would call 300 GB/s impossible or
// low). The NCCL lines are real (see the corpus file); the table is
// synthetic.
func TestMNNVLBusBWUnjudged(t *testing.T) {
	b, err := os.ReadFile(nicTestdata("corpus/nccl-log/nccl-mnnvl-1-clique-p2p-mnnvl-nnodes-1-gb200.txt"))
	if err != nil {
		t.Fatal(err)
	}
	table := []string{ // synthetic
		"#  Rank  0 Group  0 Pid 2619530 on watchtower-navy-cn13 device  0 [0009:01:00] NVIDIA GB200",
		"#  Rank  1 Group  0 Pid 2619531 on watchtower-navy-cn14 device  0 [0009:01:00] NVIDIA GB200",
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
		"  1073741824     268435456     float     sum      -1   7158.3  150.00  300.00      0   7158.3  150.00  300.00      0",
		"  2147483648     536870912     float     sum      -1  14316.6  150.00  300.00      0  14316.6  150.00  300.00      0",
		"  4294967296    1073741824     float     sum      -1  28633.1  150.00  300.00      0  28633.1  150.00  300.00      0",
	}
	fs := Diagnose([]string{"-"}, strings.NewReader(string(b)+strings.Join(table, "\n")+"\n"), Options{NICSpeed: 400 * unit.Gbps}).Findings
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "not judged against a NIC: NCCL says MNNVL 1")
	nicMustNot(t, fs, "nccltests.busbw.low")
	nicMustNot(t, fs, "nccltests.busbw.ok")
}

// Two DGX Sparks whose second port has no IP address: NCCL addresses its
// queue pairs from GID 0 (fe80::). The rings connected and the all_gather
// ran: a warning (it works on one L2 segment), not an error. With a
// completion error on the host it stays an error.
func TestLinkLocalConnectedIsWarn(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, sparkLog)
	for _, f := range nicFind(fs, "gid.index.link_local") {
		if f.Severity != Warn || !strings.Contains(f.Mechanism, "rings connected and no queue pair failed") {
			t.Errorf("%s: %v %s", f.Title, f.Severity, f.Mechanism)
		}
	}
	if n := len(nicFind(fs, "gid.index.link_local")); n != 2 {
		t.Errorf("%d link-local findings, want one per host", n)
	}
	b, err := os.ReadFile(nicTestdata(sparkLog))
	if err != nil {
		t.Fatal(err)
	}
	failed := string(b) + "spark-4440:24302:24310 [0] transport/net_ib.cc:2472 NCCL WARN NET/IB: Got completion from peer 192.168.100.15<40000> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fe80::4ebb:47ff:fe2f:4446 remoteGid fe80::4ebb:47ff:fe2f:fb9d hca roceP2p1s0f1\n" // synthetic
	fs = Diagnose([]string{"-"}, strings.NewReader(failed), Options{}).Findings
	nicMustFind(t, fs, "gid.index.link_local", Error, "spark-4440")
}
