package sonic

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

const realQoS = "../../testdata/corpus/sonic/qos-mellanox4600c-c64-subset.json"

func TestRealQoS(t *testing.T) {
	data, err := os.ReadFile(realQoS)
	if err != nil {
		t.Fatal(err)
	}
	db, err := Parse("qos.json", data)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := db.NumMap("DSCP_TO_TC_MAP", "AZURE")
	if !ok || m.To[26] != 1 || m.To[3] != 3 || m.To[48] != 7 {
		t.Fatalf("AZURE map: 26→%d 3→%d 48→%d", m.To[26], m.To[3], m.To[48])
	}
	if !strings.Contains(db.LineText(m.At[26].Line), `"26": "1"`) {
		t.Errorf("position of DSCP 26: line %d %q", m.At[26].Line, db.LineText(m.At[26].Line))
	}
	var eth0 PortQoS
	for _, pq := range db.PortQoSMaps() {
		if pq.Port == "Ethernet0" {
			eth0 = pq
		}
	}
	if eth0.DSCPToTC.Text != "AZURE_UPLINK" || len(eth0.PFCEnable) != 2 || eth0.PFCEnable[0] != 3 || eth0.PFCEnable[1] != 4 {
		t.Errorf("Ethernet0: %+v", eth0)
	}
	w, ok := db.WREDProfile("AZURE_LOSSLESS")
	if !ok || !w.OK || w.Min != 2000000 || w.Max != 10000000 || w.Prob != 5 || w.ECN.Text != "ecn_all" {
		t.Errorf("WRED %+v", w)
	}
	strict := 0
	for _, q := range db.Queues() {
		if q.Scheduler.Text == "scheduler.1" {
			strict++
		}
	}
	if strict != 4 {
		t.Errorf("%d queues on scheduler.1, want 4 (3 and 4 of two ports)", strict)
	}
}

func TestKeys(t *testing.T) {
	ports, ids, ok := PortKey("Ethernet0,Ethernet4|3-4")
	if !ok || len(ports) != 2 || len(ids) != 2 || ids[1] != 4 {
		t.Errorf("%v %v %v", ports, ids, ok)
	}
	if _, _, ok := PortKey("Ethernet0|4-3"); ok {
		t.Error("descending range accepted")
	}
	if r, ok := Range("0-2,5"); !ok || len(r) != 4 {
		t.Errorf("Range: %v", r)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		text, want string
		line, col  int
	}{
		{"{\n  \"PORT\": {\n    \"Ethernet0\": {\"mtu\": \"9100\",}\n  }\n}", "comma before }", 3, 32},
		{"[1, 2]", "configlet: expected an object of tables", 1, 2},
		{"\"x\"", "expected an object", 1, 1},
		{"{\"PORT\": {\"Ethernet0\": \"9100\"}}", "PORT|Ethernet0: expected an object", 1, 24},
		{"{\"PORT\": {\"E\": {\"mtu\": {\"x\": 1}}}}", "PORT|E.mtu: expected a string, number or list", 1, 24},
		// APPL_DB's form, as SONiC's dynamic-headroom HLD prints what
		// buffermgrd writes: a colon between port and priority groups (it
		// was read as CONFIG_DB: a row of no port).
		{"{\"BUFFER_PG\": {\n  \"Ethernet0:3-4\": {\"profile\": \"NULL\"}}}", `BUFFER_PG key "Ethernet0:3-4": a port and its priority groups joined by a colon are APPL_DB's form (CONFIG_DB writes "Ethernet0|3-4")`, 2, 3},
		// SONiC YANG instance data is read (configdb_yang.go); what does
		// not fit its models' shape is refused where it is. OpenConfig's
		// is no SONiC config.
		{"{\"openconfig-qos:qos\": {}}", "OpenConfig instance data", 1, 2},
		{"{\"sonic-queue:QUEUE\": {\"QUEUE_LIST\": [\n {\"ifname\": \"Ethernet0\", \"scheduler\": \"s\"}]}}", `QUEUE_LIST entry: no "qindex", a key leaf of the list (key "ifname qindex")`, 2, 2},
		{"{\"sonic-port:PORT\": {\"PORT_LIST\": {}}}", "PORT_LIST: expected a list of entries", 1, 35},
		// sonic-mgmt-common's CVL test schema lists PORT_QOS_MAP's rows
		// under the module's container ("PORT_QOS_MAP": [{"ifname"}]);
		// no model writes the other tables so.
		{"{\"sonic-port-qos-map:sonic-port-qos-map\": {\n \"PORT_QOS_MAP\": [{\"ifname\": \"Ethernet0\", \"pfc_enable\": \"3\"}]}}", "PORT_QOS_MAP: a list where sonic-yang-models' sonic-port-qos-map writes a container (of lists or rows), as only sonic-mgmt-common's CVL test schema", 2, 18},
		{"{\"sonic-buffer-pg:BUFFER_PG_LIST\": [\n {\"pg_num\": \"3\", \"profile\": \"p\"}]}", `BUFFER_PG_LIST entry: no "port" (or "ifname", as sonic-mgmt-common's models name it)`, 2, 2},
		{"{\"sonic-device_metadata:DEVICE_METADATA\": [{\"hwsku\": \"x\"}]}", "a list where sonic-yang-models' sonic-device_metadata writes a container", 1, 43},
		{"{\"sonic-port:sonic-port\": {\n \"sonic-queue:QUEUE\": {}}}", `"sonic-queue:QUEUE" in "sonic-port:sonic-port": expected a container of module sonic-port`, 2, 2},
		{"{\"sonic-dscp-tc-map:DSCP_TO_TC_MAP_LIST\": [{\"name\": \"m\",\n \"DSCP_TO_TC_MAP\": [{\"dscp\": \"26\"}]}]}", `DSCP_TO_TC_MAP_LIST map entry: expected both "dscp" and "tc"`, 2, 21},
		{"{\"sonic-dscp-tc-map:DSCP_TO_TC_MAP_LIST\": [{\"name\": \"m\",\n \"DSCP_TO_TC_MAP\": [{\"dscp\": \"26\", \"pg\": \"3\"}]}]}", `"pg" in a DSCP_TO_TC_MAP_LIST map entry: expected only "dscp" and "tc"`, 2, 36},
		{"{\"sonic-port-qos-map:PORT_QOS_MAP_LIST\": [{\"ifname\": \"\", \"pfc_enable\": \"3\"}]}", `PORT_QOS_MAP key "": expected a port name`, 1, 43},
		// A table pasted inside the one above it (its } missing, as
		// SONiC's port breakout HLD prints BUFFER_PG then PORT_QOS_MAP)
		// is named at its key: it was refused at its first row's value.
		{"\"BUFFER_PG\": {\n  \"E|0\": {\"profile\": \"p\"},\n\"PORT_QOS_MAP\": {\n  \"E\": {\"pfc_enable\": \"3\"}}}", "BUFFER_PG|PORT_QOS_MAP: the table PORT_QOS_MAP as a row of BUFFER_PG: a } is missing before it", 3, 1},
		// ... inside a table lint does not read too (its rows were read
		// as the unread table's fields, and skipped); a row of such a
		// table named as a table with fields under it stays a row.
		{"{\"SYSLOG_SERVER\": {\n  \"10.0.0.5\": {},\n\"PORT_QOS_MAP\": {\n  \"E\": {\"pfc_enable\": \"3\"}}}}", "SYSLOG_SERVER|PORT_QOS_MAP: the table PORT_QOS_MAP as a row of SYSLOG_SERVER", 3, 1},
		{"{\"PORT\": {\n\"E\": {\"lanes\": [null]}}}", "expected strings or numbers in the list, got null", 2, 17},
		{"{\"PORT\": {\n\"E\": {\"mtu\": nul}}}", "invalid character", 2, 17},
		{"{\"PORT\": {}", "unexpected end of input", 1, 12},
		{"{} {}", "unexpected data after", 1, 4},
		// The two mistakes of hand-made configs, named and placed.
		{"{\n  \u201cPORT\u201d: {}\n}", "typographic quote \u201c (U+201C)", 2, 3},
		{"{\"PORT\": {\"E\": {\"mtu\": \"9100\"},\n  }\n}", "comma before }", 1, 31},
		{"{\"PORT\": {\"E\": {\"lanes\": [\"1\", ]}}}", "comma before ]", 1, 30},
		{"{\"SCHEDULER\": {\"s\": {\"type\": \"WRR\"\n \"weight\": \"1\"}}}", "a comma is missing before \"", 2, 2},
		{"{\"PORT\": {\"E\": {\"mtu\": \"9100\" // jumbo\n}}}", "a comment (JSON has none)", 1, 31},
		// A malformed value is placed at its first bad byte (the decoder's
		// offset for it counted from elsewhere: 1:2 and 2:15 here, 1:8 for
		// the first through lint).
		{"{\"PORT\": x}", "invalid character 'x'", 1, 10},
		{"qos-arista7260-t1.json", "invalid character 'q'", 1, 1},
		{"{\"PORT\": {\"E\": {\"mtu\": \"9100\"}},\n \"QUEUE\": {\"E|3\": {\"scheduler\": tru}}}", "in literal true", 2, 36},
		// PORT_QOS_MAP keys name ports, split on commas: an empty name is
		// no port (it gave two findings with an empty subject).
		{"{\"PORT_QOS_MAP\": {\n \"\": {\"pfc_enable\": \"3\"}}}", `PORT_QOS_MAP key "": expected a port name`, 2, 2},
		{"{\"PORT_QOS_MAP\": {\"Ethernet0,\": {\"pfc_enable\": \"3\"}}}", `key "Ethernet0,": expected`, 1, 19},
		{"{\"PORT_QOS_MAP|,\": {\"pfc_enable\": \"3\"}}", `key ",": expected`, 1, 2},
	} {
		_, err := Parse("c.json", []byte(c.text))
		var e *pos.Error
		if !errors.As(err, &e) {
			t.Errorf("%q: error %v", c.text, err)
			continue
		}
		if !strings.Contains(e.Msg, c.want) || e.Line != c.line || e.Col != c.col {
			t.Errorf("%q: %v, want %q at %d:%d", c.text, e, c.want, c.line, c.col)
		}
	}
}

// TestLenient: duplicate keys (the later wins, as in SONiC's loaders),
// flat "TABLE|key" dumps, the "[TABLE|name]" reference form, and odd
// shapes in tables lint does not read (skipped, not refused).
func TestLenient(t *testing.T) {
	db, err := Parse("c.json", []byte(`{
"QUEUE": {"Ethernet0|3": {"scheduler": "[SCHEDULER|scheduler.1]"}, "Ethernet0|3": {"wred_profile": "[WRED_PROFILE|AZURE_LOSSLESS]"}},
"PORT_QOS_MAP|Ethernet0": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|AZURE]", "pfc_enable": "3,4"},
"VERSIONS": {"DATABASE|VERSION": "version_3_0_1", "X": {"a": {"b": 1}, "c": [1, {"d": 2}], "e": "f"}},
"ACL_RULE": {"r": {"x": [{"y": 1}]}}
}`))
	if err != nil {
		t.Fatal(err)
	}
	q := db.Tables["QUEUE"]["Ethernet0|3"]
	if _, ok := q["scheduler"]; ok || q["wred_profile"].Text != "AZURE_LOSSLESS" || len(db.Duplicates) != 1 {
		t.Errorf("duplicate row: %+v, duplicates %+v", q, db.Duplicates)
	}
	if pq := db.PortQoSMaps(); len(pq) != 1 || pq[0].DSCPToTC.Text != "AZURE" || len(pq[0].PFCEnable) != 2 {
		t.Errorf("flat row: %+v", pq)
	}
	if db.Tables["VERSIONS"]["X"]["e"].Text != "f" || len(db.Skipped) != 4 {
		t.Errorf("skipped %+v, VERSIONS %+v", db.Skipped, db.Tables["VERSIONS"])
	}
}

// TestConfigFactsRows: sonic-mgmt's config_facts splits each row's key at
// its first '|' ("BUFFER_PG": {"Ethernet0": {"3-4": {...}}}); the rows
// are read as the CONFIG_DB keys they came from, at their second part's
// place, a VOQ key's later parts kept ("host|asic0|Ethernet0|3"). A
// field's object in a table of one-part keys stays an error, and so does
// a second part that holds no row.
func TestConfigFactsRows(t *testing.T) {
	db, err := Parse("f.json", []byte(`{"BUFFER_PG": {"Ethernet0": {"0": {"profile": "ingress_lossy_profile"}, "3-4": {"profile": "NULL"}}},
"QUEUE": {"Ethernet0": {"3": {"wred_profile": "AZURE_LOSSLESS"}}, "host": {"asic0|Ethernet0|4": {"scheduler": "s"}}, "Ethernet4|3": {"wred_profile": "W"}},
"BUFFER_QUEUE|Ethernet0|3": {"expireat": 1, "ttl": -1, "type": "hash", "value": {"profile": "q"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	pg := db.Tables["BUFFER_PG"]
	if len(pg) != 2 || pg["Ethernet0|3-4"]["profile"].Text != "NULL" || db.keyPos["BUFFER_PG|Ethernet0|3-4"].Line != 1 || db.keyPos["BUFFER_PG|Ethernet0|3-4"].Col != 73 {
		t.Errorf("BUFFER_PG %+v at %+v", pg, db.keyPos["BUFFER_PG|Ethernet0|3-4"])
	}
	q := db.Tables["QUEUE"]
	if len(q) != 3 || q["Ethernet0|3"]["wred_profile"].Text != "AZURE_LOSSLESS" || q["host|asic0|Ethernet0|4"]["scheduler"].Text != "s" || q["Ethernet4|3"]["wred_profile"].Text != "W" {
		t.Errorf("QUEUE %+v", q)
	}
	if bq := db.Tables["BUFFER_QUEUE"]["Ethernet0|3"]; len(bq) != 1 || bq["profile"].Text != "q" {
		t.Errorf("BUFFER_QUEUE %+v", bq)
	}
	for _, c := range []struct{ text, msg string }{
		{`{"PORT": {"Ethernet0": {"mtu": {"x": "1"}}}}`, "f.json:1:32: PORT|Ethernet0.mtu: expected a string, number or list, got an object"},
		{`{"BUFFER_PG": {"Ethernet0": {"3-4": {"profile": "p"}, "0": "x"}}}`, "f.json:1:60: BUFFER_PG|Ethernet0|0: expected an object ({...}), got the string \"x\""},
		{`{"QUEUE": {"Ethernet0|3": {"wred_profile": {"a": {}}}}}`, "f.json:1:44: QUEUE|Ethernet0|3.wred_profile: expected a string, number or list, got an object"},
	} {
		if _, err := Parse("f.json", []byte(c.text)); err == nil || err.Error() != c.msg {
			t.Errorf("%s: %v, want %s", c.text, err, c.msg)
		}
	}
}

// TestColonReferences reads a whole config_db whose references put a colon
// after the table name, "[TC_TO_PRIORITY_GROUP_MAP:default]", as
// sonic-buildimage's Asterfusion CX564P-N breakout_interface.py writes
// them into /etc/sonic/config_db.json (orchagent's Orch::parseReference
// took ':' as well as '|' until 202111): they name the map as "|" does.
// They were refused as APPL_DB content.
func TestColonReferences(t *testing.T) {
	const file = "testdata/configdb-colon-references-breakout-synthetic.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	db, err := Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []string{"Ethernet0", "Ethernet1", "Ethernet4"} {
		for field, want := range map[string]string{"tc_to_pg_map": "default", "dscp_to_tc_map": "default", "pfc_enable": "3,4"} {
			if v, _ := db.Field("PORT_QOS_MAP", port, field); v.Text != want {
				t.Errorf("%s %s = %q, want %q", port, field, v.Text, want)
			}
		}
	}
	for in, want := range map[string]string{"[X:a],[X:b]": "a,b", "[BUFFER_PROFILE|p:q]": "p:q", "[x:a]": "[x:a]", "[X:a],b": "a,b", "b,[X:a]": "b,a", "[x:a],b": "[x:a],b"} {
		if got := unref(in); got != want {
			t.Errorf("unref(%q) = %q, want %q", in, got, want)
		}
	}
}

// A null field, as sonic-cfggen --print-data wrote an attribute the
// minigraph leaves out ("deployment_id": null in a home lab's 7050QX-32
// config_db), is read as not written, in a table lint reads too:
// ConfigDBConnector stores it as the text "None". It was refused before.
func TestNullField(t *testing.T) {
	db, err := Parse("c.json", []byte(`{
"DEVICE_METADATA": {"localhost": {"deployment_id": null, "hwsku": "Arista-7050-QX32"}},
"PORT": {"Ethernet0": {"speed": null, "mtu": "9100"}},
"BGP_NEIGHBOR": {"10.0.0.1": {"rrclient": 0, "name": null}}
}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := db.Field("PORT", "Ethernet0", "speed"); ok {
		t.Error("a null speed is read as written")
	}
	if v, _ := db.Field("PORT", "Ethernet0", "mtu"); v.Text != "9100" {
		t.Errorf("mtu %+v", v)
	}
	if v, _ := db.Field("DEVICE_METADATA", "localhost", "hwsku"); v.Text != "Arista-7050-QX32" {
		t.Errorf("hwsku %+v", v)
	}
	if len(db.Nulls) != 3 || db.Nulls[0].Text != "DEVICE_METADATA|localhost.deployment_id" || db.Nulls[0].Line != 2 || db.Nulls[0].Col != 35 {
		t.Errorf("nulls %+v", db.Nulls)
	}
}

// A null and a value for one field: the later wins, as ConfigDBConnector
// stores it ("None" for the null), and the two are a duplicate key either
// way round.
func TestNullThenValue(t *testing.T) {
	for _, tc := range []struct {
		fields string
		want   string
		nulls  int
	}{
		{`"pfc_enable": "3,4", "pfc_enable": null`, "", 1},
		{`"pfc_enable": null, "pfc_enable": "3,4"`, "3,4", 0},
		{`"pfc_enable": null, "pfc_enable": "3,4", "pfc_enable": null`, "", 1},
	} {
		db, err := Parse("c.json", []byte(`{"PORT_QOS_MAP": {"Ethernet0": {`+tc.fields+`}}}`))
		if err != nil {
			t.Fatal(err)
		}
		v, _ := db.Field("PORT_QOS_MAP", "Ethernet0", "pfc_enable")
		if v.Text != tc.want || len(db.Nulls) != tc.nulls || len(db.Duplicates) == 0 {
			t.Errorf("%s: pfc_enable %q, nulls %+v, duplicates %+v", tc.fields, v.Text, db.Nulls, db.Duplicates)
		}
	}
}

// A row of a table lint does not read keyed by a read table's name, its
// fields values (FLEX_COUNTER_TABLE's "PORT" and "QUEUE" rows), is read.
func TestUnreadRowNamedAsTable(t *testing.T) {
	db, err := Parse("c.json", []byte(`{"FLEX_COUNTER_TABLE": {"PORT": {"FLEX_COUNTER_STATUS": "enable"}, "QUEUE": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(db.Tables["FLEX_COUNTER_TABLE"]) != 2 {
		t.Errorf("tables %+v", db.Tables)
	}
}

// IPv6 addresses and the like in keys are no YANG names.
func TestYANGNames(t *testing.T) {
	for s, want := range map[string]bool{"sonic-port:sonic-port": true, "sonic-scheduler:SCHEDULER": true, "openconfig-qos:qos": true,
		"fc00::1": false, "Vlan1000|fc02:1000::1/64": false, "sonic-x:1": false, "Ethernet0:3-4": false, "sonic:port": false, "sonic-port:a/b": false} {
		if yangName(s) != want {
			t.Errorf("yangName(%q) = %v", s, !want)
		}
	}
}

// TestDBDump reads sonic-db-dump's CONFIG_DB (sonic-utilities' t1 mock, a
// real switch's dump): each row's fields are those of its "value" object,
// its expireat, ttl and type are not fields, and a list field ("ports@")
// is named without the '@'. A row whose own fields are called type and
// value (BUFFER_POOL's type) is no wrapper.
func TestDBDump(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/sonic/utilities-mock_tables-t1-config_db-sonic-db-dump.json")
	if err != nil {
		t.Fatal(err)
	}
	db, err := Parse("CONFIG_DB.json", data)
	if err != nil {
		t.Fatal(err)
	}
	md := db.Tables["DEVICE_METADATA"]["localhost"]
	if md["default_pfcwd_status"].Text != "disable" || md["hwsku"].Text != "Arista-7050CX3-32S-C32" || md["hwsku"].Line != 850 {
		t.Errorf("DEVICE_METADATA|localhost %+v", md)
	}
	for _, k := range []string{"expireat", "ttl", "value"} {
		if _, ok := md[k]; ok {
			t.Errorf("the dump's %q read as a field", k)
		}
	}
	if md["type"].Text != "LeafRouter" {
		t.Errorf("DEVICE_METADATA's own type field: %+v", md["type"])
	}
	if len(db.Tables["PORT"]) != 34 || db.Tables["PORT"]["Ethernet0"]["speed"].Text != "100000" {
		t.Errorf("PORT: %d rows, Ethernet0 %+v", len(db.Tables["PORT"]), db.Tables["PORT"]["Ethernet0"])
	}
	if !strings.HasPrefix(db.Tables["ACL_TABLE"]["DATAACL"]["ports"].Text, "PortChannel0002,PortChannel0005,") {
		t.Errorf("ACL_TABLE|DATAACL %+v", db.Tables["ACL_TABLE"]["DATAACL"])
	}
	db, err = Parse("x.json", []byte(`{"BUFFER_POOL|p": {"type": "ingress", "value": "1", "size": "9"},
"QUEUE|E|3": {"ttl": -1, "type": "hash", "value": {"type": "x", "wred_profile": "W"}, "ttl": 5}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := db.Tables["BUFFER_POOL"]["p"]; p["type"].Text != "ingress" || p["value"].Text != "1" || p["size"].Text != "9" {
		t.Errorf("BUFFER_POOL|p %+v", p)
	}
	if q := db.Tables["QUEUE"]["E|3"]; len(q) != 2 || q["type"].Text != "x" || q["wred_profile"].Text != "W" {
		t.Errorf("QUEUE|E|3 %+v", q)
	}
}

func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile(realQoS); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`"WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "1048576"}},
"QUEUE": {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}}`))
	f.Add([]byte(`{"PFC_WD": {"Ethernet0": {"detection_time": "200", "action": "drop"}}, "PORT": {"Ethernet0": {"speed": "100000", "mtu": "9100"}}}`))
	f.Add([]byte(`{"BUFFER_PG": {"Ethernet0,Ethernet4|3-4": {"profile": "pg_lossless_100000_300m_profile"}}, "CABLE_LENGTH": {"AZURE": {"Ethernet0": "300m"}}}`))
	f.Add([]byte(`{"PORT_QOS_MAP|Ethernet0": {"expireat": 1.5, "ttl": -0.001, "type": "hash", "value": {"pfc_enable": "3,4", "ports@": "a,b"}}, "BUFFER_POOL|p": {"type": "ingress", "value": {"x": "1"}}}`))
	f.Add([]byte(`{"DEVICE_NEIGHBOR|E": {"type": "hash", "value": {"value": {"value": {"name": "x"}}}}, "PORT|E": {"value": {"value": {"speed": "1"}}}}`))
	f.Add([]byte(`{"PORT": {"Ethernet0": {}}, "BUFFER_QUEUE": {"Ethernet0,Ethernet1|3": {}}, "PORT_QOS_MAP|Ethernet0-Ethernet4": {}, "CABLE_LENGTH": {"AZURE": {"Ethernet2": "5m"}}}`))
	f.Add([]byte(`{"PORT_QOS_MAP|Ethernet0": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|AZURE]"}, "VERSIONS": {"DATABASE|VERSION": "v", "X": {"a": [1, {"b": 2}]}}, "QUEUE": {"E|3": {}, "E|3": {"x": "y"}}}`))
	f.Add([]byte(`{"T": {"sonic-port:sonic-port": {"sonic-port:PORT": {"PORT_LIST": [{"name": "Ethernet0"}]}}}, "VLAN_INTERFACE": {"Vlan1000|fc02:1000::1/64": {}, "fc00::1": {}}}`))
	f.Add([]byte(`{"BUFFER_PG": {"Ethernet0:3-4": {"profile": "[BUFFER_PROFILE:p]"}}, "QUEUE|E:3": {"scheduler": "[SCHEDULER:s]"}, "ACL_RULE": {"r": {"x": "[A:b]"}}}`))
	f.Add([]byte(`{"BUFFER_PG": {"E": {"0": {"profile": "p"}, "3-4": {"value": {}}, "x": 1}}, "QUEUE": {"h": {"a|E|3": {"w": "W"}}, "E|3": {"w": {"x": {}}}}}`))
	f.Add([]byte(`{"DEVICE_METADATA": {"localhost": {"deployment_id": null, "hwsku": "x"}}, "PORT|E": {"type": "hash", "ttl": null, "value": {"speed": null}}, "QUEUE": {"E|3": {"wred_profile": nul}}}`))
	// A reference naming the wrong table (MisnamedRefs), in a list and
	// with a colon, and a template's row key (TemplateKey).
	f.Add([]byte(`{"QUEUE": {"E|3": {"scheduler": "[SCHEDULAR|s]", "wred_profile": "[WRED_PROFILE|w],[X:y]"}}, "PORT_QOS_MAP": {"E": {"dscp_to_tc_map": "[DSCP_TO_TC:A]"}},
"PFC_WD": {"{{ pfc_wd_interface_list }}": {"action": "{{ a }}"}}}`))
	for _, file := range []string{"util-override-multi-asic-namespaced.json", "mgmt-configlet-clet-add.json", "bi-vs-zero_profiles.json"} {
		if data, err := os.ReadFile("testdata/public/" + file); err == nil {
			f.Add(data)
		}
	}
	for _, data := range wrapperShapes(40) {
		f.Add(data)
	}
	// JSON Patches for `config apply-patch` (configdb_patch.go).
	if data, err := os.ReadFile("../../testdata/corpus/sonic/mgmt-gcu-addcluster-reference-patch.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`[{"op": "add", "path": "/asic0/QUEUE/E|3/wred_profile", "value": "W"}, {"op": "remove", "path": "/asic1/PFC_WD/E"}, {"path": "/localhost", "op": "add", "value": {"PORT": {"E": {}}}}, {"op": "add", "path": "/X/a~1b~0/c/0", "value": [1, {"d": 2}]}, {"op": "copy", "from": "/A", "path": "", "value": null}]`))
	// SONiC YANG instance data (configdb_yang.go).
	f.Add([]byte(yangQoS))
	f.Add([]byte(`{"T": {"sonic-queue:QUEUE": {"VOQ_QUEUE_LIST": [{"hostname": "h", "asic_name": "a", "ifname": "E", "qindex": "3"}], "X": 1}, "eStr": ["x"]},
"U": {"sonic-cable-length:CABLE_LENGTH_LIST": [{"name": "A", "CABLE_LENGTH": [{"port": "E", "length": "5m"}, {"port": "E", "length": "40m"}]}]}}`))
	f.Add([]byte(`{"sonic-device_metadata:sonic-device_metadata": {"sonic-device_metadata:DEVICE_METADATA": {"localhost": {"hwsku": "x"}, "bmc": {}}, "sonic-x:Y": {}}, "sonic-port:PORT_LIST": [{"name": "E", "c": {"d": 1}}, {"name": "E"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		dbs, err := ParseAll("f.json", data)
		if err != nil {
			var e *pos.Error
			if !errors.As(err, &e) || e.Line < 1 || e.Col < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		if len(dbs) == 0 {
			t.Fatal("no config and no error")
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, db := range dbs {
			for _, tab := range db.Tables {
				for _, k := range tab.Keys() {
					for _, v := range tab[k] {
						if v.Line < 1 || v.Line > lines || v.Col < 1 {
							t.Fatalf("value %+v outside the %d-line input", v, lines)
						}
					}
				}
			}
			for _, v := range append(append([]Value{}, db.Duplicates...), db.Skipped...) {
				if v.Line < 1 || v.Line > lines || v.Col < 1 {
					t.Fatalf("note %+v outside the %d-line input", v, lines)
				}
			}
			db.Foreign()
			db.PortQoSMaps()
			db.Queues()
			db.PGs()
			db.Watchdogs()
			if d, ok := db.LossyByDesign(); ok && (d.PFCEnableAt.Line < 1 || d.PFCEnableAt.Line > lines) {
				t.Fatalf("lossy design's pfc_enable %+v outside the %d-line input", d.PFCEnableAt, lines)
			}
			for _, r := range db.MisnamedRefs() {
				if r.Written == "" || r.Written == r.To || r.At.Line < 1 || r.At.Line > lines {
					t.Fatalf("misnamed reference %+v", r)
				}
			}
			if at, ok := db.TemplateKey(); ok && (at.Line < 1 || at.Line > lines || at.Col < 1 || !strings.Contains(at.Text, "{{")) {
				t.Fatalf("template key %+v outside the %d-line input", at, lines)
			}
			for _, u := range db.UnknownPorts() {
				if u.At.Line < 1 || u.At.Line > lines || u.At.Col < 1 || u.Port == "" && u.Table == "CABLE_LENGTH" {
					t.Fatalf("unknown port %+v outside the %d-line input", u, lines)
				}
			}
		}
	})
}

// TestParseRedis reads SYNTHETIC hgetall output of redis-cli and
// sonic-db-cli in the form those tools print.
func TestParseRedis(t *testing.T) {
	db, ok := ParseRedis("r.txt", []byte(`admin@sonic:~$ redis-cli -n 4 hgetall "PORT_QOS_MAP|Ethernet0"
 1) "dscp_to_tc_map"
 2) "[DSCP_TO_TC_MAP|AZURE]"
 3) "pfc_enable"
 4) "3,4"
admin@sonic:~$ sonic-db-cli CONFIG_DB hgetall 'PFC_WD|Ethernet0'
{'action': 'drop', 'detection_time': '1', 'restoration_time': '200'}
`))
	if !ok {
		t.Fatal("nothing read")
	}
	pq := db.PortQoSMaps()
	if len(pq) != 1 || pq[0].DSCPToTC.Text != "AZURE" || pq[0].PFCEnableAt.Line != 5 {
		t.Errorf("PORT_QOS_MAP %+v", pq)
	}
	if w := db.Watchdogs(); len(w) != 1 || w[0].Detection != 1 || w[0].DetectionAt.Line != 7 {
		t.Errorf("PFC_WD %+v", w)
	}
}

func FuzzParseRedis(f *testing.F) {
	f.Add([]byte("127.0.0.1:6379[4]> hgetall \"QUEUE|Ethernet0|3\"\n1) \"scheduler\"\n2) \"scheduler.1\"\n$ sonic-db-cli CONFIG_DB hgetall 'X|y'\n{'a': 'b'}\n"))
	f.Add([]byte("127.0.0.1:6379[6]> keys *\n$ redis-cli -n 0 hgetall \"A:b\"\n$ sonic-db-cli -n asic0 STATE_DB keys *\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		if name, line, ok := RedisDB(data); ok && (line < 1 || line > strings.Count(string(data), "\n")+1 || !strings.HasSuffix(name, "_DB")) {
			t.Fatalf("RedisDB: %q at line %d", name, line)
		}
		db, _ := ParseRedis("f.txt", data)
		db.StateDump(nil)
		lines := strings.Count(string(data), "\n") + 1
		for _, tab := range db.Tables {
			for _, k := range tab.Keys() {
				for _, v := range tab[k] {
					if v.Line < 1 || v.Line > lines {
						t.Fatalf("value %+v outside the %d-line input", v, lines)
					}
				}
			}
		}
		db.PortQoSMaps()
		db.Watchdogs()
	})
}

// TestFragment: CONFIG_DB tables pasted without the enclosing braces, as
// SONiC's own test plans show them, read with positions in the text as
// given; a fragment's errors point into it.
func TestFragment(t *testing.T) {
	const frag = "../../testdata/corpus/sonic/sonic-configdb-fragment-no-braces-wred-ecn-testplan.json"
	data, err := os.ReadFile(frag)
	if err != nil {
		t.Fatal(err)
	}
	if !IsFragment(data) {
		t.Fatal("fragment not recognised")
	}
	db, err := Parse("frag.json", data)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := db.WREDProfile("AZURE_LOSSLESS")
	if !ok || !w.OK || w.Min != 1048576 || w.Max != 2097152 || w.Prob != 5 || w.ECN.Text != "ecn_all" {
		t.Errorf("WRED %+v", w)
	}
	if !strings.Contains(db.LineText(w.ECN.Line), `"ecn": "ecn_all"`) || w.ECN.Line != 27 {
		t.Errorf("ecn at line %d: %q", w.ECN.Line, db.LineText(w.ECN.Line))
	}
	if q := db.Tables["QUEUE"]["Ethernet0|1"]["wred_profile"]; q.Text != "AZURE_LOSSY" || q.Line != 7 || q.Col != 29 {
		t.Errorf("QUEUE Ethernet0|1 wred_profile %+v, want AZURE_LOSSY at 7:29", q)
	}
	for _, c := range []struct {
		text, want string
		line, col  int
	}{
		{"\"PORT\": {\n  \"Ethernet0\": {\"mtu\": 9100,}\n}", "comma before }", 2, 28},
		{"\"PORT\": {\"E\": {\"mtu\": \"9100\"}},\n\"QUEUE\": {},,\n", "comma before }", 2, 12},
		{"\"PORT\": {\"E\": \"x\"}", "PORT|E: expected an object", 1, 15},
	} {
		_, err := Parse("f.json", []byte(c.text))
		var e *pos.Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, c.want) || e.Line != c.line || e.Col != c.col {
			t.Errorf("%q: %v, want %q at %d:%d", c.text, err, c.want, c.line, c.col)
		}
	}
	for _, s := range []string{`"PORT" 1`, `"x": "y"`, `{"PORT": {}}`, `""`} {
		if IsFragment([]byte(s)) {
			t.Errorf("%q taken for a fragment", s)
		}
	}
}

// TestNamespaced reads a multi-ASIC config keyed by namespace (a real
// config override file of sonic-utilities' tests; `show runningconfiguration
// all` prints the same shape on a multi-ASIC switch): one config per
// namespace, named for it, with positions in the whole file.
func TestNamespaced(t *testing.T) {
	data, err := os.ReadFile("testdata/public/util-override-multi-asic-namespaced.json")
	if err != nil {
		t.Fatal(err)
	}
	dbs, err := ParseAll("masic.json", data)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ ns, hwsku string }{{"localhost", "Mellanox-SN3800-D112C8"}, {"asic0", "multi_asic"}, {"asic1", "multi_asic"}}
	if len(dbs) != len(want) {
		t.Fatalf("%d configs, want %d (one per namespace)", len(dbs), len(want))
	}
	for i, w := range want {
		db := dbs[i]
		v, ok := db.Field("DEVICE_METADATA", "localhost", "hwsku")
		if db.Namespace != w.ns || db.File != "masic.json "+w.ns || db.Source() != "masic.json" || !ok || v.Text != w.hwsku {
			t.Errorf("config %d: namespace %q file %q hwsku %q, want %s %s", i, db.Namespace, db.File, v.Text, w.ns, w.hwsku)
		}
		if !strings.Contains(db.LineText(v.Line), w.hwsku) {
			t.Errorf("%s: hwsku at line %d: %q", w.ns, v.Line, db.LineText(v.Line))
		}
	}
	if _, err := Parse("masic.json", data); err == nil {
		t.Error("Parse took a multi-ASIC dump as one config")
	}
}

// TestConfiglet reads a configlet (a list of table objects; a real one of
// sonic-mgmt): later elements update the rows of earlier ones, as configlet
// -u applies them, and that is not a duplicate key.
func TestConfiglet(t *testing.T) {
	data, err := os.ReadFile("testdata/public/mgmt-configlet-clet-add.json")
	if err != nil {
		t.Fatal(err)
	}
	db, err := Parse("clet.json", data)
	if err != nil {
		t.Fatal(err)
	}
	mtu, _ := db.Field("PORT", "Ethernet63", "mtu")
	adm, _ := db.Field("PORT", "Ethernet63", "admin_status")
	if mtu.Text != "9100" || mtu.Line != 6 || adm.Text != "up" || adm.Line != 216 {
		t.Errorf("PORT|Ethernet63: mtu %+v admin_status %+v, want 9100 (line 6) and up (line 216, the last element)", mtu, adm)
	}
	if len(db.Duplicates) != 0 {
		t.Errorf("configlet updates reported as duplicates: %v", db.Duplicates)
	}
	var pq PortQoS
	for _, p := range db.PortQoSMaps() {
		if p.Port == "Ethernet63" {
			pq = p
		}
	}
	if len(pq.PFCEnable) != 2 || pq.PFCEnable[0] != 3 || pq.PFCEnable[1] != 4 {
		t.Errorf("PORT_QOS_MAP|Ethernet63 pfc_enable %v, want [3 4]", pq.PFCEnable)
	}
}

// TestNotConfigDB: lists of APPL_DB entries, and a JSON Patch operation
// among a configlet's tables, are refused for what they are, at the key
// that shows it (a list that opens with an operation is a patch:
// configdb_patch_test.go).
func TestNotConfigDB(t *testing.T) {
	data, err := os.ReadFile("testdata/public/bi-vs-zero_profiles.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data      []byte
		want      string
		line, col int
	}{
		{data, "an APPL_DB entry", 8, 9},
		{[]byte(`[{"PORT": {}}, {"op": "add", "path": "/PFC_WD/Ethernet0", "value": {"action": "drop"}}]`), "a JSON Patch operation", 1, 17},
		{[]byte(`[{"PORT": {}}, 3]`), "configlet: expected an object of tables", 1, 16},
	} {
		_, err := ParseAll("x.json", c.data)
		var e *pos.Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, c.want) || e.Line != c.line || e.Col != c.col {
			t.Errorf("%.40s: %v, want %q at %d:%d", c.data, err, c.want, c.line, c.col)
		}
	}
}

// TestDBDumpOneWrapper: only a row's own object can be sonic-db-dump's
// wrapper; a "value" object inside its "value" is a field, which a table
// lint reads refuses at its position, so a nest of them cannot recurse
// (13.5 MB of them, within lint's 16 MiB, overflowed the stack).
func TestDBDumpOneWrapper(t *testing.T) {
	_, err := Parse("x.json", []byte("{\"PORT|E\": {\"type\": \"hash\",\n \"value\": {\"value\": {\"speed\": \"1\"}}}}"))
	if err == nil || !strings.Contains(err.Error(), "x.json:2:21") {
		t.Errorf("a wrapper in a wrapper: %v", err)
	}
	n := 1_500_000
	data := `{"DEVICE_NEIGHBOR|E": ` + strings.Repeat(`{"value": `, n) + "{}" + strings.Repeat("}", n) + "}"
	db, err := Parse("x.json", []byte(data))
	if err != nil || len(db.Skipped) != 1 || db.Skipped[0].Text != "DEVICE_NEIGHBOR|E.value" {
		t.Errorf("%d nested wrappers in a table lint does not read: %v", n, err)
	}
}

// TestForeignListsAreNoTables: sonic-utilities'
// gcu_field_operation_validators.conf.json opens with a "README" list
// beside lower-case keys; a list is no table, so the file is foreign,
// named at its first lower-case key. An upper-case key whose value is an
// object is a table however few there are.
func TestForeignListsAreNoTables(t *testing.T) {
	for _, c := range []struct {
		data    string
		foreign bool
		at      string
	}{
		{"{\n  \"README\": [\"how to\"],\n  \"helper_data\": {\"x\": {}},\n  \"tables\": {}\n}", true, "helper_data"},
		{`{"README": ["a"]}`, true, "README"},
		{`{"README": ["a"], "PORT": {"Ethernet0": {"speed": "100000"}}}`, false, ""},
		{`{"VERSIONS": {"DATABASE": {"VERSION": "v"}}, "x": {}}`, false, ""},
	} {
		db, err := Parse("x.json", []byte(c.data))
		if err != nil {
			t.Fatal(err)
		}
		at, foreign := db.Foreign()
		if foreign != c.foreign || at.Text != c.at {
			t.Errorf("%s: foreign %v at %q", c.data, foreign, at.Text)
		}
	}
}

// TestVOQQueues reads the QUEUE rows of a VOQ linecard, keyed by system
// port ("dut-lc3|Asic0|Ethernet0|3"; SONiC's rendered qos.json for an
// Arista 7800R3 linecard, in the stock corpus), which were all skipped
// before. Without DEVICE_METADATA the rows keep their system port names;
// with the linecard's hostname and asic_name they are its own ports, and
// the other linecards' rows are left out.
func TestVOQQueues(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/sonic-stock/qos-arista7800r3-48cq2-lc.json")
	if err != nil {
		t.Fatal(err)
	}
	db, err := Parse("lc.json", data)
	if err != nil {
		t.Fatal(err)
	}
	qs := db.Queues()
	if len(qs) != 513 || qs[0].Ports[0] != "dut-lc3|Asic0|Ethernet0" {
		t.Fatalf("%d rows (want the 513 of the file), first %+v", len(qs), qs[0])
	}
	db.Tables["DEVICE_METADATA"] = Table{"localhost": {"hostname": {Text: "dut-lc3"}, "asic_name": {Text: "asic0"}}}
	qs = db.Queues()
	lossless := 0
	for _, q := range qs {
		if strings.Contains(q.Ports[0], "|") {
			t.Fatalf("%s: port %q", q.Key, q.Ports[0])
		}
		if q.Ports[0] == "Ethernet0" && (q.Queues[0] == 3 || q.Queues[0] == 4) && q.WREDProfile.Text == "AZURE_LOSSLESS" {
			lossless++
		}
	}
	if len(qs) != 321 || lossless != 2 {
		t.Errorf("dut-lc3 asic0: %d rows (want 321: lc4's and lc5's 192 left out), %d lossless queues of Ethernet0 with AZURE_LOSSLESS (want 2)", len(qs), lossless)
	}
}

// TestBlankPrompts: a SYNTHETIC paste of `show runningconfiguration all`
// with its prompt before and after (as NVIDIA's SONiC docs show the
// command) parses with positions in the text as pasted.
func TestBlankPrompts(t *testing.T) {
	text := "admin@sonic:~$ show runningconfiguration all\n{\n    \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}}\n}\nadmin@sonic:~$ \n"
	d, ok := BlankPrompts([]byte(text))
	if !ok || len(d) != len(text) {
		t.Fatalf("ok %v, %d bytes of %d", ok, len(d), len(text))
	}
	db, err := Parse("paste.txt", d)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := db.Field("PORT", "Ethernet0", "speed"); v.Text != "100000" || v.Line != 3 || v.Col != 37 {
		t.Errorf("speed %+v, want 100000 at 3:37", v)
	}
	for _, s := range []string{"{\"PORT\": {}}", "Profile: AZURE_LOSSLESS\n{\n", "$ show pfc priority\nInterface    Lossless priorities\n"} {
		if d, ok := BlankPrompts([]byte(s)); ok || string(d) != s {
			t.Errorf("%q blanked to %q", s, d)
		}
	}
}

// TestBlankAnsibleHeader: a SYNTHETIC result of `ansible DUT -m
// config_facts`, whose JSON follows "DUT | SUCCESS => " on its first line
// (sonic-mgmt's tests/common/plugins/conditional_mark/__init__.py at
// fb9f62aeb117393547fe0f45727c51cc4140d0a9 splits the output at
// "SUCCESS =>" and reads ansible_facts from the JSON after it), reads
// with the header blanked and every position kept.
func TestBlankAnsibleHeader(t *testing.T) {
	text := "str-msn2700-01 | SUCCESS => {\n    \"ansible_facts\": {\"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}}},\n    \"changed\": false\n}\n"
	d, ok := BlankPrompts([]byte(text))
	if !ok || len(d) != len(text) || !strings.HasPrefix(string(d), strings.Repeat(" ", 28)+"{\n") {
		t.Fatalf("ok %v: %q", ok, d)
	}
	dbs, err := ParseAll("facts.txt", d)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := dbs[0].Field("PORT", "Ethernet0", "speed"); dbs[0].Wrapper != "ansible_facts" || v.Text != "100000" || v.Line != 2 || v.Col != 55 {
		t.Errorf("%s speed %+v, want 100000 at 2:55", dbs[0].Wrapper, v)
	}
	for _, s := range []string{"a b | SUCCESS => {\n}\n", "dut | FAILED! => {\n}\n", "dut | SUCCESS => \n{}\n", "dut | SUCCESS | rc=0 >>\n{}\n"} {
		if d, ok := BlankPrompts([]byte(s)); ok || string(d) != s {
			t.Errorf("%q blanked to %q", s, d)
		}
	}
}

func FuzzBlankPrompts(f *testing.F) {
	f.Add([]byte("admin@sonic:~$ show runningconfiguration all\n{\n}\nadmin@sonic:~$\n"))
	f.Add([]byte("dut | CHANGED => {\"ansible_facts\": {}}\n"))
	f.Add([]byte("$ sudo sonic-cfggen -d --print-data\r\n[{\"PORT\": {}}]\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, ok := BlankPrompts(data)
		if len(d) != len(data) {
			t.Fatalf("%d bytes, want %d", len(d), len(data))
		}
		for i := range data {
			if (data[i] == '\n') != (d[i] == '\n') || !ok && d[i] != data[i] || d[i] != data[i] && d[i] != ' ' {
				t.Fatalf("byte %d: %q -> %q", i, data[i], d[i])
			}
		}
	})
}

// TestShowPFCPriority reads `show pfc priority` as sonic-utilities' tests
// expect it printed into PORT_QOS_MAP pfc_enable rows at their positions.
func TestShowPFCPriority(t *testing.T) {
	data, err := os.ReadFile("testdata/public/util-show-pfc-priority.txt")
	if err != nil {
		t.Fatal(err)
	}
	db, ok := ParseShowPFCPriority("pfc.txt", data)
	if !ok {
		t.Fatal("nothing read")
	}
	pq := db.PortQoSMaps()
	if len(pq) != 2 || pq[0].Port != "Ethernet0" || len(pq[0].PFCEnable) != 2 || pq[0].PFCEnable[0] != 3 || pq[0].PFCEnableAt.Line != 5 || pq[0].PFCEnableAt.Col != 14 {
		t.Errorf("PORT_QOS_MAP %+v", pq)
	}
	if _, ok := ParseShowPFCPriority("x", []byte("Interface    Lossless priorities\nEthernet0    3,4\n")); ok {
		t.Error("a table without its rule line read")
	}
	// The command run twice in one paste (sonic-utilities#796) is one
	// port's state, read again: the later table, no duplicate key.
	data, err = os.ReadFile("../../testdata/corpus/switch/sonic-show-pfc-priority-twice-sonicutilities796.txt")
	if err != nil {
		t.Fatal(err)
	}
	db, ok = ParseShowPFCPriority("796.txt", data)
	if pq := db.PortQoSMaps(); !ok || len(pq) != 1 || pq[0].PFCEnableAt.Line != 12 || len(db.Duplicates) != 0 {
		t.Errorf("PORT_QOS_MAP %+v, duplicates %+v", pq, db.Duplicates)
	}
	// SYNTHETIC: a port twice in one table is a duplicate.
	db, _ = ParseShowPFCPriority("d.txt", []byte("Interface    Lossless priorities\n-----------  ---\nEthernet0    3,4\nEthernet0    3\n"))
	if len(db.Duplicates) != 1 || db.Duplicates[0].Line != 4 {
		t.Errorf("duplicates %+v", db.Duplicates)
	}
}

func FuzzShowPFCPriority(f *testing.F) {
	for _, file := range []string{"testdata/public/util-show-pfc-priority.txt", "../../testdata/corpus/switch/sonic-show-pfc-priority-twice-sonicutilities796.txt"} {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("Interface    Lossless priorities\n-----------  ---------------------\nEthernet0\nEthernet4    0-7\nEthernet0    3\n\nx\n"))
	f.Add([]byte("E: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog Enabled\nEt1        D - -               -\nEt2        E A W  3,4  drop\nEt3 E A W\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		for _, parse := range []func(string, []byte) (*ConfigDB, bool){ParseShowPFCPriority, ParseEOSPriorityFlowControl} {
			db, ok := parse("f.txt", data)
			if !ok {
				continue
			}
			for _, pq := range db.PortQoSMaps() {
				if v := pq.PFCEnableAt; v.Line < 1 || v.Line > lines || v.Col < 1 {
					t.Fatalf("%s: pfc_enable at %d:%d of %d lines", pq.Port, v.Line, v.Col, lines)
				}
			}
		}
	})
}

// TestRedisDB: the database a Redis command names, by name, number or
// prompt; CONFIG_DB is not reported (SYNTHETIC command lines).
func TestRedisDB(t *testing.T) {
	for _, c := range []struct {
		text, want string
		line       int
	}{
		{"admin@sonic:~$ sonic-db-cli STATE_DB hgetall 'PORT_TABLE|Ethernet0'", "STATE_DB", 1},
		{"x\nadmin@sonic:~$ sonic-db-cli -n asic0 APPL_DB keys *", "APPL_DB", 2},
		{"$ redis-cli -n 2 hgetall COUNTERS_PORT_NAME_MAP", "COUNTERS_DB", 1},
		{"127.0.0.1:6379[6]> keys *", "STATE_DB", 1},
		{"admin@sonic:~$ sonic-db-cli CONFIG_DB hgetall 'PFC_WD|Ethernet0'", "", 0},
		{"$ redis-cli -n 4 hgetall \"PORT_QOS_MAP|Ethernet0\"", "", 0},
	} {
		name, line, ok := RedisDB([]byte(c.text))
		if name != c.want || line != c.line || ok != (c.want != "") {
			t.Errorf("%q: %q line %d %v, want %q line %d", c.text, name, line, ok, c.want, c.line)
		}
	}
}

// TestEOSPriorityFlowControl reads EOS's table (SYNTHETIC rows in the
// form of democratic-csi#241's): D is an empty pfc_enable, E with its
// priorities, E with none readable is left out.
func TestEOSPriorityFlowControl(t *testing.T) {
	db, ok := ParseEOSPriorityFlowControl("eos.txt", []byte("E: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog Enabled\nPort       Status  Priorities\n---\nEt1        D - -               -           -\nEt2        E A W   3,4         drop\nEt3        E - -   ?\n"))
	if !ok {
		t.Fatal("not read")
	}
	got := map[string]string{}
	for _, pq := range db.PortQoSMaps() {
		got[pq.Port] = fmt.Sprintf("%v %d:%d", pq.PFCEnable, pq.PFCEnableAt.Line, pq.PFCEnableAt.Col)
	}
	if want := map[string]string{"Et1": "[] 4:12", "Et2": "[3 4] 5:20"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestUnknownPorts reads a SYNTHETIC config whose buffer, QoS and cable
// rows name ports PORT does not hold: a typo in a comma list, a range
// (which SONiC does not expand), a flat dump's key and a cable length;
// PortChannels, PORT_QOS_MAP|global and system-port keys are left out.
func TestUnknownPorts(t *testing.T) {
	db, err := Parse("c.json", []byte(`{
"PORT": {"Ethernet0": {}, "Ethernet4": {}},
"BUFFER_PG": {"Ethernet0,Ethernet1|3-4": {"profile": "p"}, "PortChannel01|0": {}, "lc1|Asic0|Ethernet9|3": {}},
"PORT_QOS_MAP": {"global": {}, "Ethernet0-Ethernet4": {}},
"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m",
  "Ethernet8": "5m"}},
"BUFFER_QUEUE|Ethernet4|0-2": {"profile": "q"}
}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range db.UnknownPorts() {
		got = append(got, fmt.Sprintf("%s %s %s %d:%d", u.Table, u.Key, u.Port, u.At.Line, u.At.Col))
	}
	want := []string{
		"PORT_QOS_MAP Ethernet0-Ethernet4 Ethernet0-Ethernet4 4:32",
		"BUFFER_PG Ethernet0,Ethernet1|3-4 Ethernet1 3:15",
		"CABLE_LENGTH AZURE Ethernet8 6:3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	db.Tables["PORT"] = nil
	if u := db.UnknownPorts(); u != nil {
		t.Errorf("without PORT: %v", u)
	}
}

// TestVarJSON reads one table as `sonic-cfggen -d --var-json TABLE` prints
// it, its rows without the table's name, below the command naming it: the
// rows of the renderer's real qos-dell6100.json, each value at its line and
// column in the paste. The same rows without the command line are refused
// as fields without a table (FieldsOnly), not read as tables.
func TestVarJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/public/bi-dell6100-var-json-port-qos-map.txt")
	if err != nil {
		t.Fatal(err)
	}
	blanked, _ := BlankPrompts(data)
	d, ok := VarJSON(data, blanked)
	if !ok {
		t.Fatal("command line not read")
	}
	db, err := Parse("paste.txt", d)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := db.Field("PORT_QOS_MAP", "Ethernet0", "pfc_enable"); v.Text != "3,4" || v.Line != 11 || v.Col != 23 {
		t.Errorf("pfc_enable %+v, want 3,4 at 11:23", v)
	}
	if _, ok := db.FieldsOnly(); ok {
		t.Error("a table read as fields without one")
	}
	rows := data[bytes.IndexByte(data, '\n')+1 : bytes.LastIndex(data, []byte("admin@"))]
	db, err = Parse("rows.json", rows)
	if err != nil {
		t.Fatal(err)
	}
	if at, ok := db.FieldsOnly(); !ok || at.Text != "global" || at.Line != 2 {
		t.Errorf("rows without their table: FieldsOnly %+v %v", at, ok)
	}
	// The same rows as an issue quotes them: in a Markdown fence, picked
	// out of the whole dump by jq.
	fenced := "```\nadmin@sonic:~$ show runningconfiguration all | jq '.PORT_QOS_MAP'\n" + string(rows) + "```\n"
	b, _ := BlankPrompts([]byte(fenced))
	d, ok = VarJSON([]byte(fenced), b)
	if !ok {
		t.Fatal("jq's table not read")
	}
	if db, err = Parse("fenced.md", d); err != nil {
		t.Fatal(err)
	}
	if v, _ := db.Field("PORT_QOS_MAP", "Ethernet0", "pfc_enable"); v.Text != "3,4" || v.Line != 12 || v.Col != 23 {
		t.Errorf("fenced pfc_enable %+v, want 3,4 at 12:23", v)
	}
	// jq with its flags before the filter, and --var-json=TABLE as one
	// word, name the table as well (synthetic command lines over the
	// real rows).
	for _, cmd := range []string{"admin@sonic:~$ show runningconfiguration all | jq -S .PORT_QOS_MAP", "admin@sonic:~$ sonic-cfggen -d --var-json=PORT_QOS_MAP"} {
		paste := cmd + "\n" + string(rows)
		b, _ := BlankPrompts([]byte(paste))
		d, ok := VarJSON([]byte(paste), b)
		if !ok {
			t.Errorf("%q: table not read", cmd)
			continue
		}
		if db, err = Parse("paste.txt", d); err != nil {
			t.Fatal(err)
		}
		if v, _ := db.Field("PORT_QOS_MAP", "Ethernet0", "pfc_enable"); v.Text != "3,4" {
			t.Errorf("%q: pfc_enable %+v, want 3,4", cmd, v)
		}
	}
	for _, s := range []string{"admin@sonic:~$ show runningconfiguration all\n{}\n", "$ sonic-cfggen -d --var-json port_qos\n{}\n", "sonic-cfggen -d --var-json\n{}\n", "$ jq . config_db.json\n{}\n"} {
		b, _ := BlankPrompts([]byte(s))
		if _, ok := VarJSON([]byte(s), b); ok {
			t.Errorf("%q read as --var-json", s)
		}
	}
}

func FuzzVarJSON(f *testing.F) {
	f.Add([]byte("admin@sonic:~$ sonic-cfggen -d --var-json PORT_QOS_MAP\n{\"Ethernet0\": {\"pfc_enable\": \"3,4\"}}\n"))
	f.Add([]byte("$ sudo sonic-cfggen -d --var-json 'WRED_PROFILE'\r\n{}\r\n$\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, _ := BlankPrompts(data)
		d, ok := VarJSON(data, b)
		if !ok {
			return
		}
		if len(d) != len(data)+2 || bytes.Count(d, []byte("\n")) != bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%q -> %q: lines moved", data, d)
		}
		if db, err := Parse("f", d); err == nil {
			db.FieldsOnly()
		}
	})
}

// TestPFCList reads pfc_enable as orchagent's qosorch.cpp does: each
// comma-separated part's leading integer (std::stoi), into an 8-bit mask.
func TestPFCList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		yang bool
	}{
		{"3,4", "3,4", true}, {"", "", true}, {"0,1,2,3,4,5,6,7", "0,1,2,3,4,5,6,7", true},
		{"3-4", "3", false}, {"3 4", "3", false}, {"3;4", "3", false}, {"3, 4", "3,4", false},
		{"3,4,", "3,4", false}, {"3,4,9", "3,4", false}, {"x,4", "4", false}, {"-3,4", "4", false}, {"+3", "3", false},
	} {
		got, yang := PFCList(c.in)
		s := make([]string, len(got))
		for i, p := range got {
			s[i] = strconv.Itoa(p)
		}
		if strings.Join(s, ",") != c.want || yang != c.yang {
			t.Errorf("PFCList(%q) = %v %v, want %s %v", c.in, got, yang, c.want, c.yang)
		}
	}
}

// A 2017 config_db (a home lab's 7050QX-32) holds "platform" and
// "aboot_*" strings beside its tables: they are no tables, and
// config.qos.absent listed them among the tables read.
func TestTableNamesSkipScalars(t *testing.T) {
	db, err := Parse("c.json", []byte(`{"platform": "x86_64-arista_7050_qx32", "PORT": {"Ethernet0": {"alias": "Ethernet1/1"}}, "SYSLOG_SERVER": {}, "VERSION": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := db.TableNames(); !slices.Equal(got, []string{"PORT", "SYSLOG_SERVER"}) {
		t.Errorf("tables %v", got)
	}
}
