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

// "NET/Plugin: Failed to find ncclNetPlugin_v5 symbol." is NCCL probing a
// plugin's interface versions, not a failure: a DGX-A100 host whose
// excerpt ends before its NET/IB line was said to fall back to sockets.
func TestPluginProbeNoSocketFallback(t *testing.T) {
	for _, rel := range []string{"corpus/nccl-log/nccl-ibext-disabled-by-env-net-cc-55-fallback-roce-dgxa100-nccl676.txt", "corpus/nccl-log/nccl-hpcx-ibext-sharp-v6-plugin-4nic-ib-tree-nccl1357.txt"} {
		nicMustNot(t, diagnoseFiles(t, Options{}, rel), "nccl.transport.socket_fallback")
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

// A vLLM pod without the verbs library: NCCL 2.18+ says so at INFO, and
// the socket fallback names that cause and its fix.
func TestSocketFallbackVerbsAtInfo(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-openshift-vllm-libibverbs-info-socket-ens5-vllm5360.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn, "falls back to TCP sockets on 1 host")
	if !strings.Contains(f.Fix, "apt-get install libibverbs1") || !strings.Contains(f.Evidence[0].Text, "Failed to open libibverbs.so[.1]") {
		t.Errorf("cause not named: %s / %v", f.Fix, f.Evidence)
	}
}
