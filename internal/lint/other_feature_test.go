package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A PORT_QOS_MAP row that binds only a port shaper (SONiC's scheduler HLD,
// real) in an excerpt holding no QoS map or buffer table is about another
// feature: PFC is not judged and config.not_judged says so, where it gave
// qos.pfc.disabled before. The same row in a switch's whole CONFIG_DB
// (DEVICE_METADATA|localhost and PORT; synthetic) is PFC off on the port.
func TestPortShaperExcerptNotJudged(t *testing.T) {
	excerpt := "../../testdata/corpus/sonic/sonic-hld-scheduler-shaper-port-qos-map-scheduler-only.json"
	if got := findingIDs(t, excerpt); got != "config.not_judged" {
		t.Errorf("excerpt: %q, want config.not_judged alone", got)
	}
	whole := filepath.Join(t.TempDir(), "whole-synthetic.json")
	text := `{"DEVICE_METADATA": {"localhost": {"hwsku": "x"}}, "PORT": {"Ethernet52": {"speed": "100000"}},
"SCHEDULER": {"scheduler.port": {"meter_type": "bytes", "pir": "1000000000", "pbs": "8192"}},
"PORT_QOS_MAP": {"Ethernet52": {"scheduler": "scheduler.port"}}}`
	if err := os.WriteFile(whole, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := findingIDs(t, whole); !strings.Contains(got, "qos.pfc.disabled") {
		t.Errorf("whole config: %q, want qos.pfc.disabled", got)
	}
}

// A port row that binds a map beside a shaper-only row makes the config no
// shaper excerpt, in either order (synthetic): the row without pfc_enable
// is PFC off. The excerpt was judged on the group's first row only, so a
// shaper on Ethernet0 hid Ethernet4's qos.pfc.disabled and one on
// Ethernet8 (after it) did not.
func TestPortShaperExcerptRowOrder(t *testing.T) {
	for _, shaper := range []string{"Ethernet0", "Ethernet8"} {
		file := filepath.Join(t.TempDir(), "shaper-and-map-synthetic.json")
		text := `{"SCHEDULER": {"scheduler.port": {"meter_type": "bytes", "pir": "1000000000"}},
"PORT_QOS_MAP": {"` + shaper + `": {"scheduler": "scheduler.port"}, "Ethernet4": {"tc_to_pg_map": "AZURE"}}}`
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := findingIDs(t, file); !strings.Contains(got, "qos.pfc.disabled") {
			t.Errorf("%s shaper, Ethernet4 map: %q, want qos.pfc.disabled", shaper, got)
		}
	}
}

// A null pfc_enable or profile (synthetic) is named at its position with
// the text SONiC stores, "None"; a null field lint does not judge
// (deployment_id, as sonic-cfggen --print-data writes it) is not. They
// were read as not written, silently.
func TestNullJudgedField(t *testing.T) {
	file := filepath.Join(t.TempDir(), "null-fields-synthetic.json")
	text := `{"DEVICE_METADATA": {"localhost": {"deployment_id": null}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": null}},
"BUFFER_PG": {"Ethernet0|3": {"profile": null}}}`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.ID == "config.field.null" {
			got = append(got, f.Title)
		}
	}
	want := "2 fields are null (PORT_QOS_MAP|Ethernet0.pfc_enable at 2:59, BUFFER_PG|Ethernet0|3.profile at 3:31): SONiC stores each as the text \"None\""
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A null and a value for one pfc_enable (synthetic): the later is what
// SONiC stores. A null after "3,4" is judged as null (it was judged as
// "3,4"); "3,4" after a null is no null field (config.field.null fired)
// and the key is given twice (config.duplicate_key did not fire). Titles
// count one key and one field in the singular.
func TestNullAndValueOrder(t *testing.T) {
	for _, tc := range []struct {
		fields string
		null   bool
	}{
		{`"pfc_enable": "3,4", "pfc_enable": null`, true},
		{`"pfc_enable": null, "pfc_enable": "3,4"`, false},
	} {
		file := filepath.Join(t.TempDir(), "null-order-synthetic.json")
		text := `{"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", ` + tc.fields + `}}}`
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Lint([]string{file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var null, dup string
		for _, f := range rep.Findings {
			switch f.ID {
			case "config.field.null":
				null = f.Title
			case "config.duplicate_key":
				dup = f.Title
			}
		}
		if tc.null != strings.Contains(null, "1 field is null (PORT_QOS_MAP|Ethernet0.pfc_enable at 1:") || !strings.Contains(dup, "1 key given twice (PORT_QOS_MAP|Ethernet0.pfc_enable)") {
			t.Errorf("%s: null %q, duplicate %q", tc.fields, null, dup)
		}
	}
}

// A shaper-only PORT_QOS_MAP beside a PFC priority map or egress buffers
// (synthetic) is no excerpt about another feature: its ports' PFC is
// judged. BUFFER_QUEUE and the PFC priority maps were left out of the
// tables that make it so, and the config was named not judged.
func TestPortShaperBesideQoSTables(t *testing.T) {
	for _, table := range []string{
		`"BUFFER_QUEUE": {"Ethernet52|3-4": {"profile": "NULL"}}`,
		`"MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {"3": "3"}}`,
		`"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}}`,
	} {
		file := filepath.Join(t.TempDir(), "shaper-beside-synthetic.json")
		text := `{"SCHEDULER": {"scheduler.port": {"meter_type": "bytes", "pir": "1000000000"}}, ` + table + `,
"PORT_QOS_MAP": {"Ethernet52": {"scheduler": "scheduler.port"}}}`
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := findingIDs(t, file); !strings.Contains(got, "qos.pfc.disabled") {
			t.Errorf("%s: %q, want qos.pfc.disabled", table, got)
		}
	}
}
