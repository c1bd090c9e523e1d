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
