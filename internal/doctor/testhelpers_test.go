package doctor

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Helpers the doctor's tests share: diagnosing files of testdata or
// SYNTHETIC text, and finding what a diagnosis says.

// find returns the first finding with id, or nil.
func find(fs []Finding, id string) *Finding {
	for i := range fs {
		if fs[i].ID == id {
			return &fs[i]
		}
	}
	return nil
}

// countID returns how many findings carry id.
func countID(fs []Finding, id string) int {
	n := 0
	for _, f := range fs {
		if f.ID == id {
			n++
		}
	}
	return n
}

// diagnose diagnoses the files at paths and fails on an unusable input.
func diagnose(t *testing.T, opts Options, paths ...string) *Report {
	t.Helper()
	rep := Diagnose(paths, nil, opts)
	for _, in := range rep.Inputs {
		if !in.Usable() {
			t.Fatalf("input %s not usable: %+v", in.Path, in)
		}
	}
	return rep
}

// ids lists the findings as id/severity.
func ids(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+f.Severity.String())
	}
	return out
}

// diagnoseText diagnoses text given as standard input.
func diagnoseText(t *testing.T, text string) *Report {
	t.Helper()
	return Diagnose([]string{"-"}, strings.NewReader(text), Options{})
}

// diagnoseFiles diagnoses files under testdata and fails on an unusable
// input.
func diagnoseFiles(t *testing.T, opts Options, rels ...string) []Finding {
	t.Helper()
	var paths []string
	for _, r := range rels {
		paths = append(paths, nicTestdata(r))
	}
	return diagnose(t, opts, paths...).Findings
}

// synthFindings diagnoses SYNTHETIC text given as lines.
func synthFindings(t *testing.T, opts Options, lines ...string) []Finding {
	t.Helper()
	return Diagnose([]string{"-"}, strings.NewReader(strings.Join(lines, "\n")+"\n"), opts).Findings
}

// nicTestdata is the path of rel under the repository's testdata.
func nicTestdata(rel string) string { return filepath.Join("..", "..", "testdata", rel) }

// nicFind returns the findings with id whose title contains every fragment.
func nicFind(fs []Finding, id string, fragments ...string) []Finding {
	var out []Finding
next:
	for _, f := range fs {
		if f.ID != id {
			continue
		}
		for _, fr := range fragments {
			if !strings.Contains(f.Title, fr) {
				continue next
			}
		}
		out = append(out, f)
	}
	return out
}

// nicMustFind returns the first finding with id whose title holds every
// fragment, and fails unless there is one at severity sev with evidence, a
// mechanism and, above info, a fix.
func nicMustFind(t *testing.T, fs []Finding, id string, sev Severity, fragments ...string) Finding {
	t.Helper()
	got := nicFind(fs, id, fragments...)
	if len(got) == 0 {
		t.Fatalf("no %s finding with %q; got:\n%s", id, fragments, nicTitles(fs))
	}
	if got[0].Severity != sev {
		t.Errorf("%s: severity %v, want %v", id, got[0].Severity, sev)
	}
	if len(got[0].Evidence) == 0 || got[0].Mechanism == "" {
		t.Errorf("%s: no evidence or mechanism", id)
	}
	if got[0].Severity != Info && got[0].Fix == "" {
		t.Errorf("%s: no fix", id)
	}
	return got[0]
}

// nicMustNot fails when fs holds a finding with id.
func nicMustNot(t *testing.T, fs []Finding, id string) {
	t.Helper()
	if got := nicFind(fs, id); len(got) > 0 {
		t.Errorf("unexpected %s: %s", id, got[0].Title)
	}
}

// nicTitles lists the findings, one a line, for a failure's message.
func nicTitles(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.Severity.String() + " " + f.ID + ": " + f.Title + "\n")
	}
	return b.String()
}

// nicReadArtifacts reads the artifacts of a testdata file, without diagnosing.
func nicReadArtifacts(t *testing.T, rel string) []ingest.Artifact {
	t.Helper()
	f, err := os.Open(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := ingest.Read(rel, f)
	if err != nil {
		t.Fatal(err)
	}
	return res.Artifacts
}

// writeFiles writes SYNTHETIC inputs into a temporary directory and
// returns their paths.
func writeFiles(t *testing.T, files map[string][]string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for name, lines := range files {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// cites reports whether the finding's evidence has line n of a file whose
// path ends in suffix.
func cites(f Finding, suffix string, n int) bool {
	for _, e := range f.Evidence {
		if strings.HasSuffix(e.File, suffix) && e.Line == n {
			return true
		}
	}
	return false
}
