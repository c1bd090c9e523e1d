package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const minBWFixture = "synthetic/allreduce-2.19.6-2n-16rank-min-bw-failed-per-iter-skip-memory-report-synthetic.txt"

// A run that failed nccl-tests' own NCCL_TESTS_MIN_BW check ("# Avg bus
// bandwidth    : 179.512 FAILED"; the test exits non-zero) was reported as
// an unjudged plateau and rocelab exited 0. It is an error that names the
// threshold when the mpirun line sets it, 90% of 200 = 180 GB/s
// (SYNTHETIC, from nccl-tests 2.19.6's format strings); a run that passed
// it (OK) or was not checked gets no finding.
func TestNCCLTestsMinBWFailed(t *testing.T) {
	rep := diagnose(t, Options{}, nicTestdata(minBWFixture))
	f := nicMustFind(t, rep.Findings, "nccltests.minbw.failed", Error, "nccl-tests all_reduce failed its own bandwidth check: the average busbw 179.51 GB/s is below 90% of NCCL_TESTS_MIN_BW=200 (180.00 GB/s)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 1 || f.Evidence[1].Line != 34 {
		t.Errorf("evidence %+v; want the mpirun line and the average", f.Evidence)
	}
	data, err := os.ReadFile(nicTestdata(minBWFixture))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	noCmd := text[strings.Index(text, "\n")+1:]
	for _, c := range []struct{ name, text, title string }{
		{"no-command-line.txt", noCmd, "below 90% of NCCL_TESTS_MIN_BW"},
		{"ok.txt", strings.Replace(text, "179.512 FAILED", "179.512 OK", 1), ""},
		{"unchecked.txt", strings.Replace(noCmd, "179.512 FAILED", "179.512 ", 1), ""},
		// A setting the verdict contradicts (90% of 150 is below the
		// average) is not the one this run was checked against.
		{"other-threshold.txt", strings.Replace(text, "NCCL_TESTS_MIN_BW=200", "NCCL_TESTS_MIN_BW=150", 1), "below 90% of NCCL_TESTS_MIN_BW"},
	} {
		path := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		fs := diagnose(t, Options{}, path).Findings
		if c.title == "" {
			nicMustNot(t, fs, "nccltests.minbw.failed")
			continue
		}
		f := nicMustFind(t, fs, "nccltests.minbw.failed", Error, c.title)
		if strings.Contains(f.Title, "=200") || strings.Contains(f.Title, "=150") {
			t.Errorf("%s: %s names a threshold the run was not checked against", c.name, f.Title)
		}
	}
}
