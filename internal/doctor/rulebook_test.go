package doctor

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// lintTrailer is the last row of lint's table: the doctor's rules that
// lint runs over the configs it reads.
const lintTrailer = "| `gid.index.*`, `qos.*` | as in docs/diagnose.md | the doctor's rules run over the same inputs (NCCL_IB_GID_INDEX from an env file against a `show_gids` table; mlnx_qos dumps) | shared ids |"

// ruleTable renders the rules of one docs table: the doctor's rules of a
// layer ("layer=rdma"), or lint's ("lint").
func ruleTable(tag string) string {
	var b strings.Builder
	if tag == "lint" {
		b.WriteString("| id | severity | what | rule and source |\n|---|---|---|---|\n")
		for _, s := range book {
			if s.Front&Lint != 0 {
				b.WriteString("| `" + s.ID + "` | " + s.severityText() + " | " + s.Text + " | " + s.Source + " |\n")
			}
		}
		b.WriteString(lintTrailer + "\n")
		return b.String()
	}
	b.WriteString("| id | severity | trigger |\n|---|---|---|\n")
	for _, s := range book {
		if s.Front&Doctor != 0 && "layer="+s.Layer.String() == tag {
			b.WriteString("| `" + s.ID + "` | " + s.severityText() + " | " + s.Text + " |\n")
		}
	}
	return b.String()
}

var rulesBlock = regexp.MustCompile(`(?s)(<!-- rules ([a-z=]+):[^\n]*-->\n)(.*?)(<!-- /rules -->)`)

// TestRuleBookDocs checks that the finding tables of docs/diagnose.md and
// docs/lint.md are the rule book's; -update rewrites them.
func TestRuleBookDocs(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range []string{"diagnose.md", "lint.md"} {
		path := filepath.Join("..", "..", "docs", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := rulesBlock.ReplaceAllStringFunc(string(data), func(m string) string {
			sm := rulesBlock.FindStringSubmatch(m)
			seen[sm[2]] = true
			return sm[1] + ruleTable(sm[2]) + sm[4]
		})
		if got == string(data) {
			continue
		}
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("docs/%s: finding tables differ from the rule book; run go test ./internal/doctor -run TestRuleBookDocs -update", name)
	}
	for _, tag := range []string{"layer=input", "layer=rdma", "layer=fabric", "layer=nccl", "lint"} {
		if !seen[tag] {
			t.Errorf("no docs table for %s", tag)
		}
	}
}

// TestRuleBook checks the book against the doctor's rules: every id a
// rule can raise is in the book as a doctor rule, ids are unique, and
// every rule has a severity and a text.
func TestRuleBook(t *testing.T) {
	ids := map[string]bool{}
	for _, s := range book {
		if ids[s.ID] {
			t.Errorf("%s twice in the book", s.ID)
		}
		ids[s.ID] = true
		if len(s.Severities) == 0 || s.Text == "" || s.Front == 0 {
			t.Errorf("%s: no severity, text or front end", s.ID)
		}
		if !slices.IsSorted(s.Severities) {
			t.Errorf("%s: severities not in order", s.ID)
		}
	}
	for _, r := range rules() {
		for _, id := range r.IDs {
			s, ok := SpecOf(id)
			if !ok || s.Front&Doctor == 0 {
				t.Errorf("rule id %s is not a doctor rule in the book", id)
			}
		}
	}
}

// TestRuleBookCorpus diagnoses every real and synthetic artifact under
// testdata and checks each finding against the book.
func TestRuleBookCorpus(t *testing.T) {
	var paths []string
	for _, dir := range []string{"corpus", "synthetic"} {
		filepath.WalkDir(filepath.Join("..", "..", "testdata", dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				paths = append(paths, p)
			}
			return nil
		})
	}
	if len(paths) < 40 {
		t.Fatalf("only %d corpus files", len(paths))
	}
	for _, p := range paths {
		rep := Diagnose([]string{p}, nil, Options{})
		for _, msg := range Nonconforming(rep.Findings) {
			t.Errorf("%s: %s", p, msg)
		}
	}
}

// The rule book says what the findings say: busbw.unjudged's rank count
// unknown and ranks known only from the count column ("its N ranks' nodes
// are unknown"); input.unrecognized's unpolled tables in JSON too (WRED,
// queue watermarks), queue counters and trim counters.
func TestRuleBookUnjudgedTexts(t *testing.T) {
	for id, wants := range map[string][]string{
		"nccltests.busbw.unjudged": {"the rank count is unknown", "its N ranks' nodes are unknown"},
		"input.unrecognized":       {"WRED and queue watermarks in `-j` form", "queue counters", "trim counters", "whatever else the file holds"},
	} {
		s, ok := SpecOf(id)
		for _, w := range wants {
			if !ok || !strings.Contains(s.Text, w) {
				t.Errorf("%s text lacks %q", id, w)
			}
		}
	}
}
