package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const corpus = "../../testdata/corpus"

// A file rocelab cannot read is reported as such; when nothing at all is
// usable, the exit status is 2.
func TestDiagnoseNothingUsable(t *testing.T) {
	dir := t.TempDir()
	garbled := filepath.Join(dir, "garbled.bin")
	os.WriteFile(garbled, []byte{0x00, 0xff, 0x13, 0x37, 0x00, 0x00, 0x42}, 0o644)
	prose := filepath.Join(dir, "notes.txt")
	os.WriteFile(prose, []byte("the job was slow on tuesday\nwe think it is the network\n"), 0o644)
	code, out, _ := rocelab(t, "diagnose", "--json", garbled, prose, filepath.Join(dir, "missing.log"))
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, out)
	}
	var rep struct {
		Inputs []struct {
			Path, Type, Error string
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 3 {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	for _, in := range rep.Inputs {
		if in.Type != "unknown" {
			t.Errorf("%s reported as %s", in.Path, in.Type)
		}
	}
	if !strings.Contains(out, "binary data") || !strings.Contains(out, "no such file") {
		t.Errorf("the reasons are not reported:\n%s", out)
	}
}

// One bad file never hides the findings of the good ones: the socket
// fallback in a real log is still an error finding (exit 1) next to a
// garbled file.
func TestDiagnoseBadFileDoesNotHideGoodOnes(t *testing.T) {
	garbled := filepath.Join(t.TempDir(), "garbled.bin")
	os.WriteFile(garbled, []byte{0x00, 0x01, 0x02, 0x03}, 0o644)
	code, out, stderr := rocelab(t, "diagnose", garbled, filepath.Join(corpus, "nccl-log/socket-aws-ens3-no-ib-issue226.txt"))
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, "nccl.transport.socket_fallback") || !strings.Contains(out, "garbled.bin") {
		t.Errorf("report:\n%s", out)
	}
}

// Stdin is an input like any other.
func TestDiagnoseStdin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus, "nccl-log/roce-err12-vendor129-recv-gid-issue1405.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var errb strings.Builder
	code := execute([]string{"diagnose", "-"}, strings.NewReader(string(data)), &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "nccl.ib.retry_exceeded") || !strings.Contains(out.String(), "<stdin>:") {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
}

func TestDiagnoseBadFlag(t *testing.T) {
	if code, _, stderr := rocelab(t, "diagnose", "--nic-speed", "fast", "x"); code != 2 || !strings.Contains(stderr, "--nic-speed") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if code, _, _ := rocelab(t, "diagnose"); code != 2 {
		t.Errorf("no paths: exit %d", code)
	}
}

// TestReadmeDiagnoseExample runs the README's diagnose example as written,
// from the repository root (issue 10 item 22), and checks the summary line
// the README shows.
func TestReadmeDiagnoseExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, line := range strings.Split(string(readme), "\n") {
		if rest, ok := strings.CutPrefix(line, "$ go run ./cmd/rocelab diagnose "); ok {
			args = append([]string{"diagnose"}, strings.Fields(rest)...)
			break
		}
	}
	if args == nil {
		t.Fatal("README has no `$ go run ./cmd/rocelab diagnose` example")
	}
	for i, a := range args {
		if strings.HasPrefix(a, "testdata/") {
			if _, err := os.Stat(filepath.Join("../..", a)); err != nil {
				t.Fatalf("README names %s, which is not there from the repository root: %v", a, err)
			}
			args[i] = filepath.Join("../..", a)
		}
	}
	code, out, stderr := rocelab(t, args...)
	if code != 1 || !strings.Contains(out, "1 error, 1 warn, 1 info") {
		t.Errorf("exit %d:\n%s\n%s", code, out, stderr)
	}
}

// TestCollectThenDiagnose: collect on a host without RDMA devices (a tree
// with no /sys/class/infiniband) exits 0 and writes an archive that
// diagnose reads with a clear no-RDMA-device finding, exit 0.
func TestCollectThenDiagnose(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "proc/sys/kernel"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "proc/sys/kernel/hostname"), []byte("box\n"), 0o644)
	out := filepath.Join(t.TempDir(), "box.tar.gz")
	if code, _, stderr := rocelab(t, "collect", "--root", root, "--interval", "0", "--out", out); code != 0 {
		t.Fatalf("collect exit %d: %s", code, stderr)
	}
	code, text, stderr := rocelab(t, "diagnose", out)
	if code != 0 || !strings.Contains(text, "box: no RDMA device") || !strings.Contains(text, "(collect.no_rdma_device)") {
		t.Errorf("diagnose exit %d:\n%s\n%s", code, text, stderr)
	}
}
