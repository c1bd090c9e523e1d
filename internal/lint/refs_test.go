package lint

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestPortUnknown lints a SYNTHETIC config_db.json whose PORT_QOS_MAP key
// is a range (SONiC expands none), whose BUFFER_PG list has a typo (in two
// rows, the port named once) and
// whose CABLE_LENGTH names a port PORT lacks: one config.port.unknown per
// table, an error where the port meant loses pfc_enable, a warning for
// the buffer and cable tables; PortChannels and the global row are ports.
func TestPortUnknown(t *testing.T) {
	fs := lintText(t, `{
"PORT": {"Ethernet0": {}, "Ethernet4": {}},
"PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE"}, "Ethernet0-Ethernet4": {"pfc_enable": "3,4"}},
"BUFFER_PG": {"Ethernet0,Ethernet1|3-4": {"profile": "p"}, "Ethernet1|0": {"profile": "p"}, "PortChannel01|0": {"profile": "p"}},
"BUFFER_PROFILE": {"p": {"pool": "ingress_lossless_pool", "size": "0"}},
"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m", "Ethernet8": "5m"}}
}`, "config.port.unknown")
	var got []string
	for _, fd := range fs {
		_, title, _ := strings.Cut(fd.Title, ": ")
		got = append(got, fmt.Sprintf("%s %s", fd.Severity, title))
	}
	want := []string{
		fmt.Sprintf("%s PORT_QOS_MAP rows of Ethernet0-Ethernet4, ports PORT does not hold", doctor.Error),
		fmt.Sprintf("%s BUFFER_PG|Ethernet0,Ethernet1|3-4, Ethernet1|0 names Ethernet1, which PORT does not hold", doctor.Warn),
		fmt.Sprintf("%s CABLE_LENGTH|AZURE names Ethernet8, which PORT does not hold", doctor.Warn),
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// qosorch skips a name portsorch does not know and sets the row's
	// other ports; bufferorch refuses the row there (qosorch.cpp
	// handlePortQosMapTable, bufferorch.cpp processPriorityGroup).
	for _, fd := range fs {
		table := strings.Fields(strings.SplitN(fd.Title, ": ", 2)[1])[0]
		var want string
		switch {
		case table == "PORT_QOS_MAP":
			want = "qosorch splits the key's port list at ',' and skips a name"
		case strings.HasPrefix(table, "BUFFER_PG"):
			want = "bufferorch splits the key's port list at ',' and refuses the row"
		default:
			continue
		}
		if !strings.Contains(fd.Mechanism, want) {
			t.Errorf("%s mechanism %q, want it to say %q", table, fd.Mechanism, want)
		}
	}
}

// TestUnheldRefs lints sonic-mgmt's real configlet that adds a port to a
// T1 (internal/sonic/testdata/public/mgmt-configlet-clet-add.json): its
// PORT_QOS_MAP, QUEUE and BUFFER_PG rows name AZURE's maps, WRED and
// buffer profiles the switch holds and the configlet does not. Lint said
// "No findings", as if the port's class had been judged; it now names the
// maps and profiles and what they decide as not judged, at their lines.
// The same names held by another input of the run (a SYNTHETIC qos.json
// beside a SYNTHETIC PORT_QOS_MAP row) are judged there and not named.
func TestUnheldRefs(t *testing.T) {
	const clet = "../sonic/testdata/public/mgmt-configlet-clet-add.json"
	var got []doctor.Finding
	for _, fd := range lintFiles(t, clet).Findings {
		if fd.ID == "config.not_judged" && strings.Contains(fd.Title, "which no input holds") {
			got = append(got, fd)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d findings naming unheld maps, want 1: %+v", len(got), got)
	}
	for _, want := range []string{"DSCP_TO_TC_MAP|AZURE", "which class RoCE's DSCP lands in", "the queue's ECN marking", "the priority group's headroom"} {
		if !strings.Contains(got[0].Title, want) {
			t.Errorf("title %q lacks %q", got[0].Title, want)
		}
	}
	var lines []int
	for _, e := range got[0].Evidence {
		lines = append(lines, e.Line)
	}
	// Line 133: QUEUE|Ethernet63|3's "wred_profile": "[WRED_PROFILE|AZURE_LOSSLESS]".
	if !slices.Contains(lines, 133) {
		t.Errorf("evidence lines %v, want 133 (the WRED profile's)", lines)
	}

	port := tempFile(t, "port.json", `{"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_enable": "3"}}}`)
	maps := tempFile(t, "qos.json", `{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}}, "TC_TO_QUEUE_MAP": {"AZURE": {"3": "3"}}}`)
	for _, fd := range lintFiles(t, port, maps).Findings {
		if strings.Contains(fd.Title, "which no input holds") {
			t.Errorf("maps held by the other input named as unheld: %s", fd.Title)
		}
	}
	if fs := lintFiles(t, port).Findings; !slices.ContainsFunc(fs, func(fd doctor.Finding) bool {
		return strings.Contains(fd.Title, "names DSCP_TO_TC_MAP|AZURE, TC_TO_QUEUE_MAP|AZURE, which no input holds")
	}) {
		t.Errorf("PORT_QOS_MAP alone: %+v", fs)
	}
	// Each ASIC's orchagent reads its own CONFIG_DB: maps another
	// namespace of the same dump holds leave asic0's names unheld.
	multi := tempFile(t, "multi.json", `{"asic0": {"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_enable": "3"}}},
 "asic1": {"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}}, "TC_TO_QUEUE_MAP": {"AZURE": {"3": "3"}}}}`)
	if fs := lintFiles(t, multi).Findings; !slices.ContainsFunc(fs, func(fd doctor.Finding) bool {
		return strings.Contains(fd.Title, "names DSCP_TO_TC_MAP|AZURE, TC_TO_QUEUE_MAP|AZURE, which no input holds")
	}) {
		t.Errorf("asic1's maps resolved asic0's names: %+v", fs)
	}
}

// TestUnknownPortProfileList: sonic-yang-models' BUFFER_PORT_*_PROFILE_LIST
// test data (real) keys a row by the port "wrong", which PORT does not
// hold; bufferorch (processIngressBufferProfileList, its egress twin)
// drops the row at that name ("Port with alias:wrong not found"), so
// lint warns once per table, in that test case alone; from 202411
// (bufferorch gathers the row's ports before setting any, as its 202411
// branch's processIngressBufferProfileList does) no port of the row is set.
func TestUnknownPortProfileList(t *testing.T) {
	for _, c := range []struct{ file, table string }{
		{"buildimage-yang-models-tests_config-buffer_port_ingress_profile_list-yang-instance.json", "BUFFER_PORT_INGRESS_PROFILE_LIST"},
		{"buildimage-yang-models-tests_config-buffer_port_egress_profile_list-yang-instance.json", "BUFFER_PORT_EGRESS_PROFILE_LIST"},
	} {
		var got []doctor.Finding
		for _, fd := range lintFiles(t, filepath.Join("..", "..", "testdata", "corpus", "sonic", c.file)).Findings {
			if fd.ID == "config.port.unknown" {
				got = append(got, fd)
			}
		}
		if len(got) != 1 || got[0].Severity != doctor.Warn ||
			!strings.HasSuffix(got[0].Title, "_WRONG_PORT_VALUE: "+c.table+" rows of wrong, ports PORT does not hold") ||
			!strings.Contains(got[0].Mechanism, "drops the row") ||
			!strings.Contains(got[0].Mechanism, "from 202411, which gathers every port before setting any, no port of the row is set") {
			t.Errorf("%s: %+v", c.table, got)
		}
	}
}
