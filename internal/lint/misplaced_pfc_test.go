package lint

import (
	"strings"
	"testing"
)

// TestPFCEnableInPortTable: a SYNTHETIC config_db whose pfc_enable is
// written in the PORT row (as sonic-mgmt #25442 found a script writing
// it) while the port's PORT_QOS_MAP row writes none: PFC is off, and the
// finding names the misplaced field and moves it.
func TestPFCEnableInPortTable(t *testing.T) {
	text := `{"PORT": {"Ethernet0": {"speed": "400000", "mtu": "9100", "pfc_enable": "3,4"}},
"DSCP_TO_TC_MAP": {"AZURE": {"0": "1", "3": "3", "26": "3"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfcwd_sw_enable": "3,4"}}}`
	var got []string
	for _, f := range lintFiles(t, tempFile(t, "port-pfc-synthetic.json", text)).Findings {
		if f.ID == "qos.pfc.disabled" {
			got = append(got, f.Title, f.Fix, f.Evidence[len(f.Evidence)-1].Text)
		}
	}
	if len(got) != 3 || !strings.HasSuffix(got[0], `(PORT|Ethernet0 writes "pfc_enable": "3,4", a field SONiC reads only in PORT_QOS_MAP)`) ||
		!strings.HasPrefix(got[1], `Move "pfc_enable": "3,4" from the PORT rows to these ports' PORT_QOS_MAP rows`) || !strings.Contains(got[2], `"pfc_enable": "3,4"`) {
		t.Errorf("qos.pfc.disabled: %q", got)
	}
}
