package lint

import (
	"strings"
	"testing"
)

// TestLintWatchdogAlert: the stock Z9264f config_db given PFC_WD rows for
// its 66 ports with PFC: action alert (the watchdog logs a storm and acts
// on nothing) gives pfc.watchdog.off quoting each row's action; drop and
// forward give nothing.
func TestLintWatchdogAlert(t *testing.T) {
	rows := func(action string) func(db map[string]map[string]any) {
		return func(db map[string]map[string]any) {
			db["PFC_WD"] = map[string]any{"GLOBAL": map[string]any{"POLL_INTERVAL": "200"}}
			for p := range db["PORT"] {
				db["PFC_WD"][p] = map[string]any{"action": action, "detection_time": "200", "restoration_time": "200"}
			}
		}
	}
	for _, action := range []string{"alert", "drop", "forward"} {
		var got []string
		for _, fd := range lintFiles(t, editedDB(t, z9264f, rows(action))).Findings {
			if fd.ID == "pfc.watchdog.off" {
				got = append(got, fd.Title)
				if len(fd.Evidence) != 66 || !strings.Contains(fd.Evidence[0].Text, `"action": "alert"`) {
					t.Errorf("%s: %d evidence lines, first %v; want each port's action", action, len(fd.Evidence), fd.Evidence[:1])
				}
			}
		}
		want := action == "alert"
		if want && (len(got) != 1 || !strings.Contains(got[0], "(66 ports): action alert")) || !want && len(got) > 0 {
			t.Errorf("action %s: got %q, want a finding: %v", action, got, want)
		}
	}
}
