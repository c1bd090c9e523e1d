package lint

import (
	"strings"
	"testing"
)

// TestPortQoSMapOnPortChannel: a SYNTHETIC config_db whose PORT_QOS_MAP
// row is keyed by a port channel while its member has none: orchagent
// cannot set the row on a LAG (it drops the row from 202505 on, exits
// through 202411), so the member pauses nothing (qos.ports.unbound, error);
// a member with a row of its own is not named. The same config as
// sonic-mgmt's config_facts returns it, PORTCHANNEL_MEMBER's keys split at
// their first '|' ("PortChannel0001": {"Ethernet0": {}}), is judged alike.
func TestPortQoSMapOnPortChannel(t *testing.T) {
	const tables = `"PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}},
"PORTCHANNEL": {"PortChannel0001": {"mtu": "9100"}},
"DSCP_TO_TC_MAP": {"AZURE": {"0": "1", "3": "3", "26": "3"}},
"PORT_QOS_MAP": {"PortChannel0001": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}, "Ethernet4": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}}`
	for _, text := range []string{
		`{` + tables + `, "PORTCHANNEL_MEMBER": {"PortChannel0001|Ethernet0": {}, "PortChannel0001|Ethernet4": {}}}`,
		`{"ansible_facts": {` + tables + `, "PORTCHANNEL_MEMBER": {"PortChannel0001": {"Ethernet0": {}, "Ethernet4": {}}}}, "changed": false}`,
	} {
		var got []string
		for _, f := range lintFiles(t, tempFile(t, "lag-synthetic.json", text)).Findings {
			if f.ID == "qos.ports.unbound" {
				got = append(got, f.Severity.String()+" "+f.Title, f.Fix)
				if !strings.Contains(f.Mechanism, "through 202411 a failed port set exits orchagent") {
					t.Errorf("mechanism says not what a failed port set does per release: %s", f.Mechanism)
				}
			}
		}
		if len(got) != 2 || !strings.HasPrefix(got[0], "error ") || !strings.HasSuffix(got[0], "PORT_QOS_MAP|PortChannel0001 names port channel PortChannel0001, to which orchagent applies no QoS map or PFC: its member Ethernet0 has no row of its own") ||
			!strings.HasPrefix(got[1], "Write the row's fields") || !strings.Contains(got[1], "PORT_QOS_MAP|Ethernet0, and remove PORT_QOS_MAP|PortChannel0001") {
			t.Errorf("%.40s: qos.ports.unbound: %q", text, got)
		}
	}
}
