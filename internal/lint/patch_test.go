package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A JSON Patch for `config apply-patch` on a multi-ASIC switch is linted
// as the config each namespace's operations write, not refused: its
// remove, which changes what only the running config holds, is named as
// not judged at its line, for its namespace.
func TestLintGCUPatch(t *testing.T) {
	f := filepath.Join(t.TempDir(), "patch.json")
	text := `[
  {"op": "add", "path": "/asic0/PORT_QOS_MAP/Ethernet0", "value": {"pfc_enable": "3,4", "dscp_to_tc_map": "AZURE"}},
  {"op": "remove", "path": "/asic0/PFC_WD/Ethernet0"}
]
`
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := lintFiles(t, f)
	var found bool
	for _, fd := range rep.Findings {
		if fd.ID != "config.not_judged" || !strings.Contains(fd.Title, "patch operation not read: remove /asic0/PFC_WD/Ethernet0") {
			continue
		}
		found = true
		if !strings.HasPrefix(fd.Title, f+" asic0:") || len(fd.Evidence) != 1 || fd.Evidence[0].Line != 3 {
			t.Errorf("%s: evidence %+v", fd.Title, fd.Evidence)
		}
	}
	if !found {
		t.Errorf("no config.not_judged naming the remove: %+v", rep.Findings)
	}
}
