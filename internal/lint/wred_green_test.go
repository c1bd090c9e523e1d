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
// keeps SAI's default green thresholds, 0, the maximum buffer size: it
// marks only once PFC has paused. Lint said nothing and now names the
// missing fields. With green_drop_probability
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
		{"no green thresholds", without("green_min_threshold", "green_max_threshold", "green_drop_probability"), "marks RoCE's green packets but sets no green_min_threshold or green_max_threshold (it sets yellow and red thresholds, which act on other colours): the ASIC keeps SAI's default 0, which marks only at the maximum buffer size, after PFC has paused"},
		{"no green_drop_probability", without("green_drop_probability"), "(Pmax 100 %, SAI's default): Kmin 1MiB is 10.5 BDPs"},
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

// TestUnmappedCutNotJudged: a SYNTHETIC cut as RoCE how-tos write it
// (PORT_QOS_MAP rows with pfc_enable alone, QUEUE rows and a WRED profile,
// no DSCP_TO_TC_MAP anywhere) said "No findings", as if RoCE's class had
// been judged; it now says which class RoCE lands in is not judged. With a
// DSCP_TO_TC_MAP beside it, or a PORT table (a whole config), it does not.
func TestUnmappedCutNotJudged(t *testing.T) {
	const cut = `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}, "Ethernet4": {"pfc_enable": "3,4"}},
"QUEUE": {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}},
"WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "150000", "green_max_threshold": "1500000", "green_drop_probability": "5"}}}`
	count := func(text string) int {
		n := 0
		for _, fd := range lintFiles(t, tempFile(t, "qos.json", text)).Findings {
			if fd.ID == "config.not_judged" && strings.Contains(fd.Title, "Ethernet0,Ethernet4: PORT_QOS_MAP sets pfc_enable but names no dscp_to_tc_map") {
				n++
			}
		}
		return n
	}
	if n := count(cut); n != 1 {
		t.Errorf("cut: %d findings, want 1", n)
	}
	if n := count(strings.Replace(cut, `"QUEUE"`, `"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}}, "QUEUE"`, 1)); n != 0 {
		t.Errorf("with a DSCP_TO_TC_MAP: %d findings, want 0", n)
	}
	if n := count(strings.Replace(cut, `"QUEUE"`, `"PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}}, "QUEUE"`, 1)); n != 0 {
		t.Errorf("whole config: %d findings, want 0", n)
	}
}
