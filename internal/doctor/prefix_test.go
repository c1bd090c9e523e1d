package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// pastePrefixes are what the tools that gather output put before each
// line, as each prints it. SYNTHETIC: the corpus files below are real; the
// prefixed copies of them are made here.
var pastePrefixes = []struct{ name, prefix string }{
	{"docker compose", "svc-1  | "},
	{"kubectl logs --prefix", "[pod/trainer-0/main] "},
	{"journald", "Dec 04 10:00:01 gpu01 python[1234]: "},
	{"syslog ISO", "2024-05-01T10:00:00.123456+00:00 gpu01 torchrun[77]: "},
	{"ISO timestamp", "2024-05-01T10:00:00.123Z "},
	{"bracketed timestamp", "[2024-05-01 10:00:00] "},
	{"Python logging", "2024-05-01 10:00:00,123 - trainer - INFO - "},
	{"Avocado job log", "2019-07-16 03:43:24,132 process          L0458 DEBUG| [stdout] "},
	{"srun -l", "0: "},
	{"mpirun --tag-output", "[1,0]<stdout>:"},
	{"pdsh", "gpu01: "},
	{"Markdown quote", "> "},
	{"compose over pdsh", "svc-1  | gpu01: "},
	{"pdsh over srun", "gpu01: 0: "},
}

// withPrefix puts prefix before every line of text after the corpus
// header ("# source:", "# what:" ...), inside any Markdown quoting a
// GitHub paste already has. It returns the text and how many lines got
// the prefix.
func withPrefix(text, prefix string) (string, int) {
	lines := strings.Split(text, "\n")
	head, n := true, 0
	for i, l := range lines {
		if head && strings.HasPrefix(l, "# ") {
			continue
		}
		head = false
		if l == "" {
			continue
		}
		q := 0
		for strings.HasPrefix(l[q:], "> ") {
			q += 2
		}
		lines[i] = l[:q] + prefix + l[q:]
		n++
	}
	return strings.Join(lines, "\n"), n
}

// findingKey is what must not change when a prefix is added: the finding
// and the lines and text it cites. Columns move by the prefix's width.
func findingKey(f Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", f.ID, f.Severity, f.Title)
	for _, e := range f.Evidence {
		fmt.Fprintf(&b, "\n  %d: %s", e.Line, e.Text)
	}
	return b.String()
}

// Every real NCCL log, nccl-tests output and NIC dump reads the same with
// each collector prefix or launcher tag before its lines: the same
// findings citing the same lines and text, at columns that point at the
// text in the prefixed line; a NIC's findings under pdsh's "gpu01: " name
// that host first, as pdsh says whose counters they are.
func TestPrefixedCorpusSameFindings(t *testing.T) {
	var files []string
	for _, dir := range []string{"nccl-log", "nccl-tests", "ethtool", "perftest", "threads"} {
		m, _ := filepath.Glob(nicTestdata(filepath.Join("corpus", dir, "*.txt")))
		files = append(files, m...)
	}
	if len(files) < 100 {
		t.Fatalf("corpus missing: %d files", len(files))
	}
	tried := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		base := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
		if len(base) == 0 {
			continue
		}
		for _, p := range pastePrefixes {
			pasted, n := withPrefix(text, p.prefix)
			if 2*n <= nonBlankLines(text) {
				continue // a prefix is known by most lines carrying it
			}
			if p.name == "mpirun --tag-output" && strings.Contains(path, "rank-tag-repeated-midline") {
				continue // only the outer launcher's repeated tags are split: Open MPI's, not the "[0]" inside
			}
			tried++
			got := Diagnose([]string{"-"}, strings.NewReader(pasted), Options{}).Findings
			comparePrefixed(t, filepath.Base(path)+" / "+p.name, base, got, strings.Split(pasted, "\n"), len(p.prefix))
		}
	}
	t.Logf("%d prefixed copies of %d corpus files diagnosed", tried, len(files))
	if tried < 1000 {
		t.Errorf("%d prefixed copies diagnosed, want over 1000", tried)
	}
}

// comparePrefixed checks the findings of a prefixed copy against the
// original's: the same keys in the same order, and every column one that
// moved by the prefix's width and points at the evidence text.
func comparePrefixed(t *testing.T, name string, base, got []Finding, lines []string, width int) {
	t.Helper()
	if len(got) != len(base) {
		t.Errorf("%s: %d findings, want %d:\n got  %v\n want %v", name, len(got), len(base), ids(got), ids(base))
		return
	}
	for i := range base {
		want := base[i]
		if strings.Contains(name, "pdsh") && strings.HasPrefix(got[i].Title, "gpu01 ") && !strings.HasPrefix(want.Title, "gpu01 ") {
			// pdsh names the host of every line: a NIC's counters are
			// then that host's (Line.Origin).
			want.Title = "gpu01 " + want.Title
		}
		if g, w := findingKey(got[i]), findingKey(want); g != w {
			t.Errorf("%s: finding %d\n got  %s\n want %s", name, i, g, w)
			continue
		}
		for j, e := range got[i].Evidence {
			be := base[i].Evidence[j]
			if e.Col == 0 && be.Col == 0 {
				continue // a piece of a line split between ranks
			}
			if want := max(be.Col, 1) + width; e.Col != want {
				t.Errorf("%s: %s evidence line %d at column %d, want %d", name, got[i].ID, e.Line, e.Col, want)
				continue
			}
			if l := lines[e.Line-1]; e.Col > len(l) || !strings.HasPrefix(strings.TrimLeft(l[e.Col-1:], " \t"), firstWord(e.Text)) {
				t.Errorf("%s: column %d of line %d, %q, is not where %q starts", name, e.Col, e.Line, l, e.Text)
			}
		}
	}
}

// firstWord is the text up to its first space, what a column must point
// at even when the cleaning changed the rest (autolinks undone).
func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t")
	if i := strings.IndexAny(s, " \t"); i > 0 {
		return s[:i]
	}
	return s
}

func nonBlankLines(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// Output a log wrapper indents before Open MPI's tag (a Go test log
// quoting an MPIJob's pods: aws/aws-k8s-tester#464,
// bottlerocket-os/bottlerocket-kernel-kit#424): the nccl-tests rows were
// "in no format rocelab recognises" and the NCCL lines kept the tag.
func TestIndentedMPITags(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/nccl-tests/alltoall-none-inplace-na-go-test-indent-mpi-tag-bottlerocket424.txt")
	if len(arts) == 0 {
		t.Fatal("no artifact read")
	}
	nt, ok := arts[0].(*ingest.NCCLTests)
	if !ok {
		t.Fatalf("first artifact %T, want nccl-tests", arts[0])
	}
	if n := len(nt.Runs); n != 1 || len(nt.Runs[0].Rows) != 9 || nt.Runs[0].Rows[0].Redop != "none" {
		t.Fatalf("runs %d: %+v", n, *nt.Runs[0])
	}
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-socket-eks-go-test-indent-mpi-tag-awsk8stester464.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Error)
	if !strings.HasPrefix(f.Evidence[0].Text, "multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO") {
		t.Errorf("evidence keeps the wrapper's indentation or tag: %q", f.Evidence[0].Text)
	}
}

// NCCL 2.24.3's init as NVIDIA/nccl#1584 posts it, every "host:pid:tid
// [dev] NCCL INFO" prefix stripped: rocelab read the version and nothing
// else ("No findings"). The messages only NCCL prints are now read without
// their prefix; "ncclCommInitRankConfig comm ..." is read with or without.
func TestStrippedNCCLPrefixes(t *testing.T) {
	rel := "corpus/nccl-log/nccl-2.24.3-prefixes-stripped-ibext-v8-sharp-ras-profiler-nccl1584.txt"
	l := nicReadArtifacts(t, rel)[0].(*ingest.NCCLLog)
	if l.Comm.Ranks != 8 || len(l.Networks) != 1 || l.Networks[0].Name != "IBext_v8" || len(l.EnvValues("NCCL_IB_PCI_RELAXED_ORDERING")) != 1 {
		t.Errorf("comm %+v networks %+v", l.Comm, l.Networks)
	}
	f := nicMustFind(t, diagnoseFiles(t, Options{}, rel), "nccl.transport.ib", Info, "NET/IBext_v8 over InfiniBand", "4 more")
	if f.Evidence[0].Line != 15 || !strings.Contains(f.Mechanism, "8 ranks") {
		t.Errorf("evidence %v mechanism %s", f.Evidence, f.Mechanism)
	}
}

// Real text (NVIDIA/nccl#1814): a log pasted inside a Markdown
// code span; the backtick is not part of the host name.
func TestBacktickNotInHostName(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/completion-error-backtick-host-nccl1814.txt")
	f := nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "from hostname-test to peer 172.36.143.59")
	if strings.Contains(f.Title, "`") {
		t.Errorf("backtick in title: %s", f.Title)
	}
}

// Real text (NVIDIA/nccl#1453): the rows whose
// rank tag recurs mid-row are read and judged.
func TestRankTaggedRowsJudged(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 400e9}, "corpus/threads/allreduce-rank-tag-repeated-midline-nccl1453.txt")
	nicMustFind(t, fs, "nccltests.busbw.low", Error, "5.30 GB/s")
}

// Launcher rank tags: SYNTHETIC lines whose NCCL prefix was
// stripped to " [0]" under Open MPI's --tag-output: the rank tags tell
// the two processes apart, and their bootstrap addresses the two hosts.
func TestLauncherRankTagsTellProcessesApart(t *testing.T) {
	fs := synthFindings(t, Options{},
		"[1,0]<stdout>: [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
		"[1,1]<stdout>: [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>",
		"[1,0]<stdout>: [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>",
		"[1,0]<stdout>: [0] NCCL INFO Using network IB",
		"[1,1]<stdout>: [0] NCCL INFO NET/IB : No device found.",
		"[1,1]<stdout>: [0] NCCL INFO Using network Socket")
	nicMustFind(t, fs, "nccl.transport.mismatch", Error, "10.0.0.1", "10.0.0.2")
}
