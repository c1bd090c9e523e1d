package confgen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"rocelab/internal/doctor"
	"rocelab/internal/lint"
	"rocelab/internal/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const cluster = "testdata/cluster.yaml"

func load(t *testing.T) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile(cluster)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.LoadDescription(cluster, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ext is the file name each target's output is linted under.
var ext = map[string]string{"sonic": ".json", "mlnx_qos": ".sh", "mlxconfig": ".sh", "dcqcn-sysfs": ".sh", "nccl-env": ".env"}

// TestGolden compares every target's output with its golden file
// (go test ./internal/confgen -update rewrites them).
func TestGolden(t *testing.T) {
	s := load(t)
	o := Options{Interfaces: []string{"ens1f0np0", "ens1f1np1"}, Device: "mlx5_0"}
	for _, tg := range Targets() {
		name := tg[0]
		out, err := Generate(name, s, o)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Generate(name, load(t), o)
		if !bytes.Equal(out.Config, again.Config) || !bytes.Equal(out.Provenance, again.Provenance) {
			t.Errorf("%s: output differs between two runs", name)
		}
		got := append(append([]byte{}, out.Config...), out.Provenance...)
		path := filepath.Join("testdata", name+".golden")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: output differs from %s (run with -update and review the diff)", name, path)
		}
	}
}

// TestLintRoundTrip lints every target's output, alone and together with
// the description it came from: no warning or error.
func TestLintRoundTrip(t *testing.T) {
	s := load(t)
	dir := t.TempDir()
	for _, tg := range Targets() {
		name := tg[0]
		out, err := Generate(name, s, Options{Interfaces: []string{"ens1f0np0"}})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+ext[name])
		if err := os.WriteFile(file, out.Config, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, paths := range [][]string{{file}, {cluster, file}} {
			rep, err := lint.Lint(paths, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(rep.Inputs) != len(paths) || rep.Inputs[len(paths)-1].Type == "unknown" {
				t.Errorf("%s: lint did not recognise the output: %+v", name, rep.Inputs)
			}
			for _, f := range rep.Findings {
				if f.Severity >= doctor.Warn {
					t.Errorf("%s (linted with %v): %s %s: %s", name, paths, f.Severity, f.ID, f.Title)
				}
			}
		}
	}
}

func TestBadTarget(t *testing.T) {
	if _, err := Generate("junos", load(t), Options{}); err == nil {
		t.Error("unknown target accepted")
	}
	if _, err := Generate("mlnx_qos", load(t), Options{Interfaces: []string{"eth0; reboot"}}); err == nil {
		t.Error("interface name with shell characters accepted")
	}
}
