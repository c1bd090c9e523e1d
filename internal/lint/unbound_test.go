package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPortsUnbound: sonic-utilities' `config qos reload` render of ASIC 0
// (real, testdata/corpus/sonic-stock), whose PORT_QOS_MAP and QUEUE are
// empty while it defines the AZURE maps and WRED profile for 32 ports,
// gives qos.ports.unbound; the same file with a port's PORT_QOS_MAP row, or
// beside another input that binds the ports, does not.
func TestPortsUnbound(t *testing.T) {
	const name = "utilities-qos_config_input-0-config_qos.json"
	data, err := os.ReadFile(filepath.Join(stockDir, name))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const empty = `"PORT_QOS_MAP": {},`
	if strings.Count(text, empty) != 1 {
		t.Fatal("the file changed: no empty PORT_QOS_MAP")
	}
	bound := strings.Replace(text, empty, `"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_to_queue_map": "AZURE", "pfc_enable": "3,4"}},`, 1)
	patch := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}`

	for _, c := range []struct {
		what  string
		files []string
		want  bool
	}{
		{"as rendered", []string{tempFile(t, "config_qos.json", text)}, true},
		{"a port bound", []string{tempFile(t, "config_qos.json", bound)}, false},
		{"bound by another input", []string{tempFile(t, "config_qos.json", text), tempFile(t, "ports.json", patch)}, false},
	} {
		var got []string
		for _, fd := range lintFiles(t, c.files...).Findings {
			if fd.ID == "qos.ports.unbound" {
				got = append(got, fd.Title)
			}
		}
		if c.want && (len(got) != 1 || !strings.Contains(got[0], "for its 32 ports (CABLE_LENGTH)")) || !c.want && len(got) > 0 {
			t.Errorf("%s: got %q, want a finding: %v", c.what, got, c.want)
		}
	}
}
