package ingest

import (
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// Tests from session 49's sweep of public nccl-tests outputs: each reads
// a real one and fails without the fix it names.

// A script's MI325X sweep over 1, 2, 4 and 8 nodes, each run's largest
// rows under the "====== N-node ======" its echo printed: the sizes went
// back after each rule, and the rows were one run with three backsteps,
// which the doctor took for split processes (nccltests.ranks.split, an
// error). A rule of '=' ends a run that has rows; the four runs read
// apart, each with its own ranks in busbw/algbw (2(n-1)/n: 8, 16, 32).
func TestNCCLTestsScriptRuleSplitsRuns(t *testing.T) {
	x := ncclTests(t, "nccl-tests/allreduce-rccl-mi325x-1-2-4-8n-bnxt-ring-script-rules-egrep-rows-350GBps-hisohara.txt")
	if len(x.Runs) != 4 {
		t.Fatalf("%d runs; want 4, one under each rule", len(x.Runs))
	}
	want := []float64{319.21, 350.24, 350.59, 350.84}
	for i, r := range x.Runs {
		if len(r.Rows) != 3 || r.Backsteps != 0 {
			t.Errorf("run %d: %d rows, %d backsteps; want 3 rows in order", i, len(r.Rows), r.Backsteps)
			continue
		}
		if last := r.Rows[2]; last.Size != 17179869184 || last.BestBusBW() != want[i] {
			t.Errorf("run %d: last row %d B busbw %.2f; want 16 GiB %.2f", i, last.Size, last.BestBusBW(), want[i])
		}
	}
	// A rule before a run's first row splits nothing: the rows after it
	// are that run's.
	x = parseTests(t, "========================================\n"+
		"     8388608       2097152     float     sum      -1    80.32  104.44  195.77      0    80.11  104.72  196.30      0\n"+
		"    16777216       4194304     float     sum      -1    142.1  118.07  221.38      0    141.9  118.23  221.69      0\n")
	if len(x.Runs) != 1 || len(x.Runs[0].Rows) != 2 {
		t.Errorf("%d runs; want 1 of 2 rows", len(x.Runs))
	}
	// Nor does a '-' rule (Open MPI's help text, which other ranks print
	// in the middle of a table): a size going back after it still is one.
	x = parseTests(t, strings.Join([]string{
		"    16777216       4194304     float     sum      -1    142.1  118.07  221.38      0    141.9  118.23  221.69      0",
		"--------------------------------------------------------------------------",
		"     8388608       2097152     float     sum      -1    80.32  104.44  195.77      0    80.11  104.72  196.30      0",
	}, "\n")+"\n")
	if len(x.Runs) != 1 || x.Runs[0].Backsteps != 1 {
		t.Errorf("%d runs; want 1 with its backstep", len(x.Runs))
	}
}

// aws-ofi-nccl names the EC2 instance type at init ("NET/OFI Running on
// p5.48xlarge platform"), and no line of an EFA job states a NIC speed:
// the busbw of a p5 pair was left unjudged ("no NIC speed known"). The
// type fixes the EFA bandwidth behind each NET device (aws-ofi-nccl
// get_properties: a device's speed is its rails' sum), 3200 Gbps over
// p5's 8 devices, 400 Gbps each; p4d's 4 devices are one 100 Gbps EFA
// each, whether the plugin names it "P4d" (1.1.1-1.2.0, the real line of
// the awsefaeks p4d run) or by its type. The other lines are SYNTHETIC,
// the plugin's other format strings (platform-aws.cpp: "topology file"
// from 1.16, "already set to"; tuner.cpp: the tuner's choice) with other
// types; an instance type it does not know states none.
func TestNCCLLogEFAPlatformSpeed(t *testing.T) {
	l := ncclLog(t, "nccl-tests/allreduce-p5-2n-16rank-efa-aws-ofi-1.9.2-kubeflow-tag-output-mid-row-prefixes-487GBps-keitaw.txt")
	sp := l.LinkSpeeds()
	if len(sp) != 1 || sp[0].Rate != 400*unit.Gbps || sp[0].Device != "" || !strings.Contains(sp[0].Evidence.Text, "Running on p5.48xlarge platform") {
		t.Fatalf("speeds %+v; want one 400Gbps from the platform line", sp)
	}
	l = ncclLog(t, "nccl-tests/allreduce-a100-p4d-2n-16g-efa-4nic-aws-ofi-channels-44GBps-awsefaeks.txt")
	if sp := l.LinkSpeeds(); len(sp) != 2 || sp[0].Rate != 100*unit.Gbps || sp[1].Rate != 100*unit.Gbps || sp[0].Host == sp[1].Host || !strings.Contains(sp[1].Evidence.Text, "Running on P4d platform") {
		t.Fatalf("p4d speeds %+v; want 100Gbps on each of the 2 hosts from the 1.1-1.2 platform line", sp)
	}
	for _, tc := range []struct {
		line string
		want unit.BitRate
	}{
		{"h:1:2 [0] NCCL INFO NET/OFI Running on p4de.24xlarge platform, topology file /opt/aws-ofi-nccl/share/aws-ofi-nccl/xml/p4de-24xl-topo.xml", 100 * unit.Gbps},
		{"h:1:2 [0] NCCL INFO NET/OFI Running on p5en.48xlarge platform, NCCL_TOPO_FILE environment variable is already set to /x.xml", 400 * unit.Gbps},
		{"h:1:2 [0] NCCL INFO NET/OFI Region base Tuner is chosen for platform: p5e.48xlarge", 400 * unit.Gbps},
		{"h:1:2 [0] NCCL INFO NET/OFI Model base Tuner is chosen for platform: p6-b200.48xlarge  \r", 400 * unit.Gbps},
		{"h:1:2 [0] NCCL INFO NET/OFI Running on g5.48xlarge platform, topology file /x.xml", 0},
		{"h:1:2 [0] NCCL INFO NET/OFI Region base Tuner is chosen for platform: p5.4xlarge", 0},
	} {
		var got unit.BitRate
		for _, s := range parseLog(t, tc.line+"\n").LinkSpeeds() {
			got = s.Rate
		}
		if got != tc.want {
			t.Errorf("%q: rate %v; want %v", tc.line, got, tc.want)
		}
	}
}
