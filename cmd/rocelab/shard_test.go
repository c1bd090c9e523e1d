package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const shardScenario = "../../testdata/shards/incast-variants.yaml"

// readTree maps every file under dir to its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeShards runs the shards of args (with extra) and writes each shard's
// output to a file; setEnv, when set, passes the index through the
// environment (as a Slurm array does) instead of flags.
func writeShards(t *testing.T, n int, setEnv func(i int), args ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i := 0; i < n; i++ {
		a := append([]string(nil), args...)
		if setEnv != nil {
			setEnv(i)
		} else {
			a = append(a, "--shard-index", strconv.Itoa(i), "--shard-count", strconv.Itoa(n))
		}
		code, out, errOut := rocelab(t, a...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// A run split into shards — by flags, by a Slurm array, by a Kubernetes
// Indexed Job — merges into exactly the unsharded run: its text, its JSON,
// its --out tree and its --fail-on exit, byte for byte. Shards given in any
// order merge the same; missing, doubled or foreign shards are refused.
func TestRunShardsMerge(t *testing.T) {
	whole := map[string]string{}
	for _, form := range []string{"text", "json"} {
		args := []string{"run", "-q", shardScenario}
		if form == "json" {
			args = append(args, "--json")
		}
		code, out, errOut := rocelab(t, args...)
		if code != 0 {
			t.Fatalf("unsharded run: exit %d: %s", code, errOut)
		}
		whole[form] = out
	}
	outDir := filepath.Join(t.TempDir(), "whole")
	if code, _, errOut := rocelab(t, "run", "-q", shardScenario, "--out", outDir); code != 0 {
		t.Fatalf("unsharded --out: %s", errOut)
	}
	failCode, _, failErr := rocelab(t, "run", "-q", shardScenario, "--fail-on", "targets")
	if failCode != 1 {
		t.Fatalf("--fail-on targets: exit %d, want 1 (the dcqcn variant fails its targets)", failCode)
	}

	splits := map[string][]string{
		"flags 2": writeShards(t, 2, nil, "run", "-q", shardScenario),
		"flags 3": writeShards(t, 3, nil, "run", "-q", shardScenario),
		"slurm 2": writeShards(t, 2, func(i int) {
			t.Setenv("SLURM_ARRAY_TASK_ID", strconv.Itoa(10+i))
			t.Setenv("SLURM_ARRAY_TASK_MIN", "10")
			t.Setenv("SLURM_ARRAY_TASK_COUNT", "2")
		}, "run", "-q", shardScenario),
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	splits["k8s 4"] = writeShards(t, 4, func(i int) { t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(i)) }, "run", "-q", shardScenario, "--shard-count", "4")
	t.Setenv("JOB_COMPLETION_INDEX", "")

	for name, files := range splits {
		reversed := make([]string, len(files))
		for i, f := range files {
			reversed[len(files)-1-i] = f
		}
		for form, want := range whole {
			args := append([]string{"merge"}, reversed...)
			if form == "json" {
				args = append(args, "--json")
			}
			code, got, errOut := rocelab(t, args...)
			if code != 0 || got != want {
				t.Errorf("%s: merge (%s): exit %d, output equal %v: %s", name, form, code, got == want, errOut)
			}
		}
	}
	files := splits["flags 2"]
	mergedDir := filepath.Join(t.TempDir(), "merged")
	if code, _, errOut := rocelab(t, "merge", "--out", mergedDir, files[0], files[1]); code != 0 {
		t.Fatalf("merge --out: %s", errOut)
	}
	a, b := readTree(t, outDir), readTree(t, mergedDir)
	if len(a) < 10 || len(a) != len(b) {
		t.Errorf("--out: %d files unsharded, %d merged", len(a), len(b))
	}
	for f, data := range a {
		if b[f] != data {
			t.Errorf("--out: %s differs after merge", f)
		}
	}
	if code, _, errOut := rocelab(t, "merge", "--fail-on", "targets", files[0], files[1]); code != failCode || errOut != failErr {
		t.Errorf("merge --fail-on: exit %d %q, unsharded exit %d %q", code, errOut, failCode, failErr)
	}

	other := writeShards(t, 2, nil, "run", "-q", shardScenario, "--seed", "8")
	for _, c := range []struct {
		files []string
		want  string
	}{
		{files[:1], "shards 1 of 2 missing"},
		{[]string{files[0], files[0]}, "are both shard 0"},
		{[]string{files[0], other[1]}, "is a shard of another run"},
		{[]string{files[0], splits["flags 3"][1]}, "shards of one split only"},
		{[]string{shardScenario}, "not a shard of 'rocelab run'"},
	} {
		code, _, errOut := rocelab(t, append([]string{"merge"}, c.files...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("merge %v: exit %d %q, want 2 with %q", c.files, code, errOut, c.want)
		}
	}
	for _, args := range [][]string{
		{"run", shardScenario, "--shard-index", "0", "--shard-count", "2", "--out", t.TempDir()},
		{"run", shardScenario, "--shard-index", "2", "--shard-count", "2"},
		{"run", shardScenario, "--shard-index", "0"},
	} {
		if code, _, _ := rocelab(t, args...); code != 2 {
			t.Errorf("rocelab %s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}

// A plain scenario (one job) splits too when asked: one shard runs it,
// the others carry nothing, and the merge is the run. Under a Slurm array
// alone it is not split, so an array whose tasks run their own files works.
func TestRunPlainShards(t *testing.T) {
	_, want, _ := rocelab(t, "run", "-q", "--example", "incast-pfc")
	files := writeShards(t, 2, nil, "run", "-q", "--example", "incast-pfc")
	if code, got, errOut := rocelab(t, append([]string{"merge"}, files...)...); code != 0 || got != want {
		t.Errorf("merge: exit %d, equal %v: %s", code, got == want, errOut)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "2")
	if code, got, _ := rocelab(t, "run", "-q", "--example", "incast-pfc"); code != 0 || got != want {
		t.Errorf("plain run under a Slurm array: exit %d, whole output %v", code, got == want)
	}
}

// Shards of a tune search merge through 'rocelab merge' as through 'tune
// merge': exactly the unsharded search.
func TestMergeTuneShards(t *testing.T) {
	base := []string{"tune", "../../examples/headroom-short.yaml", "--space", "../../internal/tune/testdata/headroom-space.yaml", "--json"}
	_, want, _ := rocelab(t, base...)
	files := writeShards(t, 3, nil, base...)
	for _, cmd := range [][]string{{"merge", "--json"}, {"tune", "merge", "--json"}} {
		if code, got, errOut := rocelab(t, append(cmd, files...)...); code != 0 || got != want {
			t.Errorf("%v: exit %d, equal %v: %s", cmd, code, got == want, errOut)
		}
	}
}
