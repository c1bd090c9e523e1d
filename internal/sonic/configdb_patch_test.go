package sonic

import (
	"errors"
	"os"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestPatchReference reads sonic-mgmt's add-cluster JSON Patch: each
// "add" writes its row (PORT_QOS_MAP, PFC_WD, BUFFER_QUEUE "3-4", QUEUE)
// or its one field (CABLE_LENGTH|AZURE's Ethernet316) into the config,
// JSON Pointer's "~1" is read as '/', and the appends to ACL_TABLE's port
// lists, which need the running list, are kept as not read. Before, the
// file was refused as no CONFIG_DB.
func TestPatchReference(t *testing.T) {
	const f = "../../testdata/corpus/sonic/mgmt-gcu-addcluster-reference-patch.json"
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	dbs, err := ParseAll(f, data)
	if err != nil || len(dbs) != 1 {
		t.Fatalf("%d configs, %v", len(dbs), err)
	}
	db := dbs[0]
	if !db.Patch {
		t.Error("not marked as a patch")
	}
	for _, c := range []struct{ table, key, field, want string }{
		{"PORT_QOS_MAP", "Ethernet316", "pfc_enable", "3,4"},
		{"PFC_WD", "Ethernet316", "action", "drop"},
		{"CABLE_LENGTH", "AZURE", "Ethernet316", "500m"},
		{"BUFFER_QUEUE", "Ethernet316|3-4", "profile", "egress_lossless_profile"},
		{"QUEUE", "Ethernet316|3", "wred_profile", "AZURE_LOSSLESS"},
		{"PORT", "Ethernet316", "speed", "100000"},
	} {
		if v := db.Tables[c.table][c.key][c.field]; v.Text != c.want || v.Line == 0 {
			t.Errorf("%s|%s.%s = %q at line %d, want %q", c.table, c.key, c.field, v.Text, v.Line, c.want)
		}
	}
	if _, ok := db.Tables["PORTCHANNEL_INTERFACE"]["PortChannel1015|10.0.0.56/31"]; !ok {
		t.Errorf("PORTCHANNEL_INTERFACE keys %v, want the ~1 read as /", db.Tables["PORTCHANNEL_INTERFACE"].Keys())
	}
	var skipped []string
	for _, v := range db.Skipped {
		skipped = append(skipped, v.Text)
	}
	if got := strings.Join(skipped, " "); got != "add /ACL_TABLE/EVERFLOW/ports/- add /ACL_TABLE/EVERFLOWV6/ports/-" {
		t.Errorf("skipped %q", got)
	}
}

// TestPatchNamespaces: on a multi-ASIC switch GCU's paths start with the
// namespace ("/asic0/...", "/localhost/..."): each namespace's operations
// make a config of its own, as a `show runningconfiguration all` dump's
// do. A "remove" is kept as not read, at its path (a "test", which
// changes nothing, is not named); a field-level "replace"
// writes its field; a whole namespace or table can be the value.
func TestPatchNamespaces(t *testing.T) {
	text := `[
  {"op": "add", "path": "/asic0/PORT_QOS_MAP/Ethernet0", "value": {"pfc_enable": "3,4", "dscp_to_tc_map": "AZURE"}},
  {"op": "replace", "path": "/asic1/WRED_PROFILE/AZURE_LOSSLESS/ecn", "value": "ecn_all"},
  {"op": "remove", "path": "/asic1/PFC_WD/Ethernet8"},
  {"op": "test", "path": "/asic1/PFC_WD/Ethernet12/action", "value": "drop"},
  {"op": "add", "path": "/localhost", "value": {"DEVICE_METADATA": {"localhost": {"hwsku": "x"}}}},
  {"op": "add", "path": "/asic0/SCHEDULER", "value": {"scheduler.1": {"type": "DWRR", "weight": "15"}}}
]`
	dbs, err := ParseAll("p.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*ConfigDB{}
	for _, db := range dbs {
		got[db.Namespace] = db
	}
	if len(dbs) != 3 || got["asic0"] == nil || got["asic1"] == nil || got["localhost"] == nil {
		t.Fatalf("configs %d: %v", len(dbs), got)
	}
	a0, a1 := got["asic0"], got["asic1"]
	if v := a0.Tables["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]; v.Text != "3,4" || v.Line != 2 {
		t.Errorf("asic0 pfc_enable %+v", v)
	}
	if v := a0.Tables["SCHEDULER"]["scheduler.1"]["weight"]; v.Text != "15" {
		t.Errorf("asic0 SCHEDULER weight %+v", v)
	}
	if v := a1.Tables["WRED_PROFILE"]["AZURE_LOSSLESS"]["ecn"]; v.Text != "ecn_all" || v.Line != 3 {
		t.Errorf("asic1 ecn %+v", v)
	}
	if len(a1.Skipped) != 1 || a1.Skipped[0].Text != "remove /asic1/PFC_WD/Ethernet8" || a1.Skipped[0].Line != 4 || a1.Tables["PFC_WD"] != nil {
		t.Errorf("asic1 skipped %+v", a1.Skipped)
	}
	if v := got["localhost"].Tables["DEVICE_METADATA"]["localhost"]["hwsku"]; v.Text != "x" {
		t.Errorf("localhost hwsku %+v", v)
	}
	if a0.File != "p.json asic0" {
		t.Errorf("file %q", a0.File)
	}
}

// TestPatchReplaces: an add or replace on a row, table or config that is
// already written replaces it whole (RFC 6902), as GCU applies it; a
// field's add changes that field alone; a remove, move or copy drops what
// was added where it takes away or writes.
func TestPatchReplaces(t *testing.T) {
	text := `[
  {"op": "add", "path": "/QUEUE/E|3", "value": {"scheduler": "s0", "wred_profile": "W"}},
  {"op": "replace", "path": "/QUEUE/E|3", "value": {"scheduler": "s1"}},
  {"op": "add", "path": "/PFC_WD", "value": {"E": {"action": "drop"}, "F": {"action": "drop"}}},
  {"op": "add", "path": "/PFC_WD", "value": {"F": {"action": "alert"}}},
  {"op": "add", "path": "/PFC_WD/F/detection_time", "value": "200"},
  {"op": "add", "path": "/QUEUE/E|4", "value": {"wred_profile": "W"}},
  {"op": "remove", "path": "/QUEUE/E|4"},
  {"op": "add", "path": "/PORT_QOS_MAP/E", "value": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"}},
  {"op": "remove", "path": "/PORT_QOS_MAP/E/pfc_enable"},
  {"op": "add", "path": "/WRED_PROFILE/W", "value": {"ecn": "ecn_all"}},
  {"op": "add", "path": "/SCHEDULER/s1", "value": {"type": "DWRR"}},
  {"op": "move", "from": "/WRED_PROFILE/W", "path": "/WRED_PROFILE/W2"},
  {"op": "copy", "from": "/SCHEDULER/s0", "path": "/SCHEDULER/s1"}
]`
	db, err := Parse("p.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if row := db.Tables["QUEUE"]["E|3"]; len(row) != 1 || row["scheduler"].Text != "s1" {
		t.Errorf("QUEUE|E|3 %v, want scheduler s1 alone", row)
	}
	if wd := db.Tables["PFC_WD"]; len(wd) != 1 || wd["F"]["action"].Text != "alert" || wd["F"]["detection_time"].Text != "200" {
		t.Errorf("PFC_WD %v, want F alone, alert, 200", wd)
	}
	// A remove takes away what the patch added before it (RFC 6902 4.2).
	if _, ok := db.Tables["QUEUE"]["E|4"]; ok {
		t.Errorf("QUEUE|E|4 still held after its remove: %v", db.Tables["QUEUE"])
	}
	if row := db.Tables["PORT_QOS_MAP"]["E"]; len(row) != 1 || row["pfcwd_sw_enable"].Text != "3,4" {
		t.Errorf("PORT_QOS_MAP|E %v, want pfcwd_sw_enable alone", row)
	}
	// A move takes away its from; a move or copy puts at its path what
	// only the running config holds: neither keeps what the patch wrote.
	if len(db.Tables["WRED_PROFILE"]) != 0 || len(db.Tables["SCHEDULER"]) != 0 {
		t.Errorf("WRED_PROFILE %v SCHEDULER %v, want what the move and copy replaced gone", db.Tables["WRED_PROFILE"], db.Tables["SCHEDULER"])
	}
	if len(db.Duplicates) != 0 {
		t.Errorf("duplicates %v", db.Duplicates)
	}
}

// TestPatchMoveFromOtherNamespace: a move from a namespace the patch
// writes nothing to takes away what only the running config holds there:
// that namespace gets no config of its own (an empty one was judged as a
// config without QoS, config.qos.absent on "asic0", tables: none).
func TestPatchMoveFromOtherNamespace(t *testing.T) {
	dbs, err := ParseAll("p.json", []byte(`[
  {"op": "add", "path": "/PORT_QOS_MAP/E", "value": {"pfc_enable": "3,4"}},
  {"op": "move", "from": "/asic0/PFC_WD/E", "path": "/PFC_WD/E"}
]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(dbs) != 1 || dbs[0].Namespace != "" || len(dbs[0].Skipped) != 1 || dbs[0].Skipped[0].Text != "move /PFC_WD/E" {
		for _, db := range dbs {
			t.Errorf("config %q: tables %v, skipped %v", db.Namespace, db.Tables, db.Skipped)
		}
	}
}

// TestPatchValueFirst: RFC 6902 does not order an operation's members, and
// JSON tools that sort keys write "value" before "op" and "path": the value
// is read once the operation is known, with its own positions; a "remove"
// whose "value" comes first is still only a remove.
func TestPatchValueFirst(t *testing.T) {
	const data = `[{"value": {"action": "drop",
  "detection_time": "400"}, "path": "/PFC_WD/Ethernet0", "op": "add"},
 {"value": "3,4", "op": "replace", "path": "/PORT_QOS_MAP/Ethernet0/pfc_enable"},
 {"value": {}, "op": "remove", "path": "/WRED_PROFILE/AZURE_LOSSLESS"}]`
	dbs, err := ParseAll("x.json", []byte(data))
	if err != nil || len(dbs) != 1 {
		t.Fatalf("%d configs, %v", len(dbs), err)
	}
	db := dbs[0]
	for _, c := range []struct {
		table, key, field, want string
		line, col               int
	}{
		{"PFC_WD", "Ethernet0", "action", "drop", 1, 23},
		{"PFC_WD", "Ethernet0", "detection_time", "400", 2, 21},
		{"PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,4", 3, 12},
	} {
		if v := db.Tables[c.table][c.key][c.field]; v.Text != c.want || v.Line != c.line || v.Col != c.col {
			t.Errorf("%s|%s.%s = %q at %d:%d, want %q at %d:%d", c.table, c.key, c.field, v.Text, v.Line, v.Col, c.want, c.line, c.col)
		}
	}
	if len(db.Skipped) != 1 || db.Skipped[0].Text != "remove /WRED_PROFILE/AZURE_LOSSLESS" {
		t.Errorf("skipped %v", db.Skipped)
	}
}

// TestPatchBad: a path that is no JSON Pointer, and an operation without a
// path are refused at their place.
func TestPatchBad(t *testing.T) {
	for _, c := range []struct {
		data      string
		want      string
		line, col int
	}{
		{`[{"value": "drop", "op": "add", "path": "/PFC_WD/Ethernet0"}]`, "expected an object", 1, 12},
		{`[{"op": "add", "path": "PFC_WD/Ethernet0", "value": {}}]`, "expected a JSON Pointer", 1, 16},
		{"[{\"op\": \"remove\"}\n]", `expected "op" and "path"`, 1, 2},
		{`[{"op": "add", "path": "/PFC_WD/Ethernet0", "value": "drop"}]`, "expected an object", 1, 54},
		{`[{"op": "add", "path": "/PFC_WD/Ethernet0"}, 3]`, "expected an operation", 1, 46},
	} {
		_, err := ParseAll("x.json", []byte(c.data))
		var e *pos.Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, c.want) || e.Line != c.line || e.Col != c.col {
			t.Errorf("%s: %v, want %q at %d:%d", c.data, err, c.want, c.line, c.col)
		}
	}
}
