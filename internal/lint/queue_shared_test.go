package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueueShared: pfc.queue.shared names the classes in use that share
// RoCE's queue (one a DSCP maps to, or class 0, where unmapped code
// points land) and leaves out one no DSCP reaches (SYNTHETIC config_db of
// testdata/lint/sonic-ecn-kmin-above-xoff, its TC_TO_QUEUE_MAP moved).
func TestQueueShared(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(casesDir, "sonic-ecn-kmin-above-xoff", "fixed", "config_db-synthetic.json"))
	if err != nil {
		t.Fatal(err)
	}
	const identity = `"TC_TO_QUEUE_MAP": {
        "AZURE": {"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7"}`
	for _, c := range []struct{ entries, want string }{
		{`"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7"`, ""},
		{`"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "3"`, ""},
		{`"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "3", "6": "6", "7": "3"`, "which lossy class 5 share"},
		{`"0": "3", "1": "1", "2": "2", "3": "3", "4": "4", "5": "3", "6": "6", "7": "7"`, "which lossy classes 0,5 share"},
	} {
		text := string(data)
		if strings.Count(text, identity) != 1 {
			t.Fatal("the case changed: no identity TC_TO_QUEUE_MAP")
		}
		text = strings.Replace(text, identity, `"TC_TO_QUEUE_MAP": {
        "AZURE": {`+c.entries+`}`, 1)
		f := filepath.Join(t.TempDir(), "config_db.json")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, fd := range lintFiles(t, f).Findings {
			if fd.ID == "pfc.queue.shared" {
				got = append(got, fd.Title)
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)) {
			t.Errorf("%s: got %q, want %q", c.entries, got, c.want)
		}
	}
}
