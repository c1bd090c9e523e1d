package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWREDGreenUnset: sonic-utilities' T0 config_db (real) binds
// AZURE_LOSSLESS (green 1 MiB to 2 MiB, 5 %) to the lossless queues, and
// lint judges its Kmin against the BDP. With the green thresholds taken
// out (red and yellow kept, as RoCE how-tos write them), the profile still
// marks RoCE's green packets at the ASIC's own thresholds: lint said
// nothing and now names the missing fields. With green_drop_probability
// alone taken out, the thresholds are judged at SAI's default
// probability, 100 %, where lint skipped the profile.
func TestWREDGreenUnset(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "sonic", "utilities-filter_fdb_input-config_db.json"))
	if err != nil {
		t.Fatal(err)
	}
	without := func(fields ...string) string {
		var db map[string]map[string]map[string]any
		if err := json.Unmarshal(data, &db); err != nil {
			t.Fatal(err)
		}
		for _, f := range fields {
			delete(db["WRED_PROFILE"]["AZURE_LOSSLESS"], f)
		}
		out, err := json.MarshalIndent(db, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	for _, c := range []struct{ what, text, want string }{
		{"as given", string(data), "Kmin 1MiB is 10.5 BDPs"},
		{"no green thresholds", without("green_min_threshold", "green_max_threshold", "green_drop_probability"), "marks RoCE's green packets but sets no green_min_threshold or green_max_threshold (it sets yellow and red thresholds"},
		{"no green_drop_probability", without("green_drop_probability"), "Kmin 1MiB is 10.5 BDPs"},
	} {
		var got []string
		for _, fd := range lintFiles(t, tempFile(t, "config_db.json", c.text)).Findings {
			if fd.ID == "switch.ecn.thresholds" {
				got = append(got, fd.Title)
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: got %q, want one with %q", c.what, got, c.want)
		}
	}
}
