package report

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/examples"
	"rocelab/internal/scenario"
	"rocelab/internal/twin"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// TestExampleGoldens runs every example and compares its text summary with
// testdata/golden/<example>.txt: a readable record of what each scenario
// does, so that any change in the twin's behaviour shows up as a diff to
// read. Run with -update to rewrite them.
func TestExampleGoldens(t *testing.T) {
	names, err := fs.Glob(examples.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatal("no examples")
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			data, _ := examples.FS.ReadFile(n)
			s, err := scenario.Load("examples/"+n, data)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := run(t, s).WriteText(&b); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", strings.TrimSuffix(n, ".yaml")+".txt")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(want, b.Bytes()) {
				t.Errorf("%s changed; read the diff and run with -update if it is right:\n%s", path, b.String())
			}
		})
	}
}

// run runs s through the twin pipeline and reports it.
func run(t *testing.T, s *scenario.Scenario) *Run {
	t.Helper()
	j := s.Job()
	o, err := twin.Run(&j, &twin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return New(&o)
}

// The summary's topology line says when the switches hash as the HPCC
// ns-3 model's do, and the JSON names it, so that a run's paths are not
// mistaken for rocelab's own hash; a run on rocelab's hash says nothing.
func TestSummaryNamesNS3ECMP(t *testing.T) {
	for _, ns3 := range []bool{false, true} {
		s, err := scenario.Load("ecmp.yaml", []byte(`
topology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
traffic: {flows: [{src: h0, dst: h3, bytes: 64KiB}]}`))
		if err != nil {
			t.Fatal(err)
		}
		s.Switch.NS3 = ns3
		r := run(t, s)
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		line, _, _ := strings.Cut(strings.SplitN(b.String(), "\n", 3)[2], "\n")
		if said := strings.Contains(line, "ECMP hashed as the HPCC ns-3 model's switches do"); said != ns3 {
			t.Errorf("ns3 %v: topology line %q", ns3, line)
		}
		if (r.Scenario.ECMP == "ns3") != ns3 {
			t.Errorf("ns3 %v: scenario.ecmp %q", ns3, r.Scenario.ECMP)
		}
	}
}
