package scenario

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsListDefaults keeps docs/scenario.md's defaults table in step
// with defaults.go for the values a reader is most likely to look up.
func TestDocsListDefaults(t *testing.T) {
	data, err := os.ReadFile("../../docs/scenario.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for key, want := range map[string]string{
		"`switch.buffer`":            "`" + DefaultBuffer.String() + "`",
		"`switch.pfc.quanta`":        "`65535`",
		"`switch.pfc.xon_offset`":    "`" + DefaultXONOffset.String() + "`",
		"`switch.pfc.mtu`":           "`9100`",
		"`switch.pfc.mac_phy_delay`": "`" + DefaultMACPHYDelay.String() + "`",
		"`switch.ecn.pmax`":          "`0.2`",
		"`host.mtu`":                 "`4096`",
		"`host.dscp`":                "`26`",
		"`metrics.sample_interval`":  "`" + DefaultSampleInterval.String() + "`",
		"`duration`":                 "`" + DefaultDuration.String() + "`",
	} {
		found := false
		for _, line := range strings.Split(doc, "\n") {
			if strings.HasPrefix(line, "| "+key+" |") && strings.Contains(line, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("docs/scenario.md: no row for %s with %s", key, want)
		}
	}
	if DefaultAlpha != 1 || DefaultAlphaLossy != 8 || DefaultPmax != 0.2 || DefaultPauseQuanta != 65535 {
		t.Error("a default changed: update docs/scenario.md")
	}
}

// TestCitesPrimarySources checks that no document, example or comment cites
// the team's fact sheet, which is not in the repository: a reader must be
// able to follow every citation.
func TestCitesPrimarySources(t *testing.T) {
	needle := "facts" + ".md"
	err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".yaml":
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if bytes.Contains(data, []byte(needle)) {
				t.Errorf("%s cites %s, which is not in the repository: cite the primary source", p, needle)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
