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

// lagKeyConfig is a SYNTHETIC whole config_db whose PORT_QOS_MAP keys
// name port channels: PortChannel0001 (member Ethernet0, without a row of
// its own) before Ethernet8 in one key, and PortChannel0002 (member
// Ethernet12, with its row) alone. fields is the first row's fields.
func lagKeyConfig(fields string) string {
	return `{"DEVICE_METADATA": {"localhost": {"hostname": "sw1", "type": "ToRRouter"}},
"PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}, "Ethernet8": {"speed": "100000"}, "Ethernet12": {"speed": "100000"}},
"PORTCHANNEL": {"PortChannel0001": {"mtu": "9100"}, "PortChannel0002": {"mtu": "9100"}},
"PORTCHANNEL_MEMBER": {"PortChannel0001|Ethernet0": {}, "PortChannel0002|Ethernet12": {}},
"DSCP_TO_TC_MAP": {"AZURE": {"0": "1", "3": "3", "26": "3"}},
"PORT_QOS_MAP": {"PortChannel0001,Ethernet8": {` + fields + `}, "PortChannel0002": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}, "Ethernet4": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}, "Ethernet12": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}}}`
}

// TestPortChannelNotAPort: a port channel in a PORT_QOS_MAP key is no port
// QoS applies to, so no other rule counts it among the ports with PFC:
// pfc.watchdog.off counts the three ports of the config with pfc_enable
// (Ethernet4, Ethernet8, Ethernet12), not the two port channels. Before,
// it said "PFC on 5 ports" and named PortChannel0001 and PortChannel0002,
// and ecn.disabled and pfc.pg.lossy counted them too.
func TestPortChannelNotAPort(t *testing.T) {
	rep := lintFiles(t, tempFile(t, "lag-key-synthetic.json", lagKeyConfig(`"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"`)))
	n := 0
	for _, f := range rep.Findings {
		if f.ID == "qos.ports.unbound" {
			continue
		}
		if strings.Contains(f.Title, "PortChannel0") || strings.Contains(f.Subject, "PortChannel0") || strings.Contains(f.Title, "5 ports") {
			t.Errorf("%s names a port channel as a port: %s", f.ID, f.Title)
		}
		if f.ID == "pfc.watchdog.off" {
			n++
			if !strings.Contains(f.Title, "PFC on 3 ports") {
				t.Errorf("pfc.watchdog.off: %s, want PFC on 3 ports", f.Title)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d pfc.watchdog.off, want 1", n)
	}
}

// TestPortChannelAheadInKey: orchagent (qosorch.cpp handlePortQosMapTable)
// applies a row to the key's ports in order; on a port channel portsorch
// has created, the first map set fails and orchagent gives up on the row
// (exits through 202411, drops the row from 202505 on), so Ethernet8,
// after PortChannel0001 in the key, may get none of it: the finding says
// so, and its fix keeps Ethernet8's row (drops the port channel from the
// key, not the row). A row setting no map (pfc_enable alone) makes no
// set on the port channel and goes on to Ethernet8: no word of it then.
// PortChannel0002's member has its own row and nothing follows it: no
// finding.
func TestPortChannelAheadInKey(t *testing.T) {
	for _, c := range []struct {
		fields, title, fix string
	}{
		{`"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"`,
			"PORT_QOS_MAP|PortChannel0001,Ethernet8 names port channel PortChannel0001, to which orchagent applies no QoS map or PFC: its member Ethernet0 has no row of its own, and Ethernet8, after it in the key, gets the row only if portsorch has not yet created PortChannel0001 when orchagent applies it",
			"PORT_QOS_MAP|Ethernet0, and take PortChannel0001 out of the key: PORT_QOS_MAP|Ethernet8."},
		{`"pfc_enable": "3,4"`,
			"PORT_QOS_MAP|PortChannel0001,Ethernet8 names port channel PortChannel0001, to which orchagent applies no QoS map or PFC: its member Ethernet0 has no row of its own",
			"PORT_QOS_MAP|Ethernet0, and take PortChannel0001 out of the key: PORT_QOS_MAP|Ethernet8."},
	} {
		var got []string
		for _, f := range lintFiles(t, tempFile(t, "lag-key-synthetic.json", lagKeyConfig(c.fields))).Findings {
			if f.ID == "qos.ports.unbound" {
				got = append(got, f.Title, f.Fix)
			}
		}
		if len(got) != 2 || !strings.HasSuffix(got[0], c.title) || !strings.HasSuffix(got[1], c.fix) {
			t.Errorf("%s: qos.ports.unbound: %q, want title ending %q, fix ending %q", c.fields, got, c.title, c.fix)
		}
	}
}

// TestPortChannelAheadOfPorts: a port channel whose members have rows of
// their own, ahead of a port in the key, leaves only that port at risk: a
// warning naming it, whose fix keeps the port's row.
func TestPortChannelAheadOfPorts(t *testing.T) {
	text := strings.NewReplacer(`"Ethernet12": {"speed"`, `"Ethernet16": {"speed": "100000"}, "Ethernet12": {"speed"`,
		`"PortChannel0002": {"dscp`, `"PortChannel0002,Ethernet16": {"dscp`).Replace(lagKeyConfig(`"pfc_enable": "3,4"`))
	var got []string
	for _, f := range lintFiles(t, tempFile(t, "lag-key-synthetic.json", text)).Findings {
		if f.ID == "qos.ports.unbound" && strings.Contains(f.Subject, "PortChannel0002") {
			got = append(got, f.Severity.String()+" "+f.Title, f.Fix)
		}
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "warn ") ||
		!strings.HasSuffix(got[0], "PORT_QOS_MAP|PortChannel0002,Ethernet16 names port channel PortChannel0002, to which orchagent applies no QoS map or PFC, and Ethernet16, after it in the key, gets the row only if portsorch has not yet created PortChannel0002 when orchagent applies it") ||
		got[1] != "Take PortChannel0002 out of the key: PORT_QOS_MAP|Ethernet16." {
		t.Errorf("qos.ports.unbound: %q", got)
	}
}
