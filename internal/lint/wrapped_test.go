package lint

import (
	"strings"
	"testing"
)

// TestWrapperGivenTwice: a SYNTHETIC file that gives one wrapper key twice
// is config.duplicate_key, as a table given twice is.
func TestWrapperGivenTwice(t *testing.T) {
	text := `{"running_config": {"PORT": {"Ethernet0": {"speed": "100000"}}},
"running_config": {"PORT": {"Ethernet0": {"speed": "400000"}}}}`
	got := ""
	for _, f := range lintFiles(t, tempFile(t, "dup-synthetic.json", text)).Findings {
		if f.ID == "config.duplicate_key" {
			got = f.Title
		}
	}
	if !strings.Contains(got, "1 key given twice (running_config)") {
		t.Errorf("config.duplicate_key %q", got)
	}
}
