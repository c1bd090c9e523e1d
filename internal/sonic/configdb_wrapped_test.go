package sonic

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestWrappedConfig: a whole config kept below a key of a tool's own is
// read as a config named for that key, positions in the whole file.
// sonic-yang-models' sample config (real, SAMPLE_CONFIG_DB_JSON beside two
// smaller wrapped configs) holds PORT_QOS_MAP Ethernet0 with pfc_enable
// 3,4; generic_config_updater's test data (real) keeps the running config
// under "running_data" beside the patches, which are no config. A table
// whose rows are named like tables but hold fields (FLEX_COUNTER_TABLE's
// PORT and QUEUE) stays a table.
func TestWrappedConfig(t *testing.T) {
	read := func(name string) ([]*ConfigDB, string) {
		data, err := os.ReadFile("../../testdata/corpus/sonic/" + name)
		if err != nil {
			t.Fatal(err)
		}
		dbs, err := ParseAll(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return dbs, string(data)
	}
	dbs, text := read("buildimage-yang-models-sample_config_db-wrapped.json")
	var sample *ConfigDB
	for _, db := range dbs {
		if db.Wrapper == "SAMPLE_CONFIG_DB_JSON" {
			sample = db
		}
	}
	if sample == nil {
		t.Fatalf("no config named SAMPLE_CONFIG_DB_JSON among %d", len(dbs))
	}
	v, ok := sample.Field("PORT_QOS_MAP", "Ethernet0", "pfc_enable")
	if !ok || v.Text != "3,4" || !strings.Contains(strings.Split(text, "\n")[v.Line-1], `"pfc_enable"`) {
		t.Errorf("SAMPLE_CONFIG_DB_JSON PORT_QOS_MAP|Ethernet0 pfc_enable %+v", v)
	}
	if sample.File != "buildimage-yang-models-sample_config_db-wrapped.json SAMPLE_CONFIG_DB_JSON" || len(sample.Tables["WRED_PROFILE"]) == 0 {
		t.Errorf("file %q, WRED_PROFILE %v", sample.File, sample.Tables["WRED_PROFILE"])
	}

	dbs, _ = read("utilities-gcu-change_applier_test.data-running_data.json")
	if len(dbs) != 1 || dbs[0].Wrapper != "running_data" || len(dbs[0].PGs()) == 0 {
		t.Fatalf("%d configs, want running_data's alone with its BUFFER_PG rows", len(dbs))
	}

	flex := `{"FLEX_COUNTER_TABLE": {"PORT": {"FLEX_COUNTER_STATUS": "enable"}, "QUEUE": {"FLEX_COUNTER_STATUS": "enable"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}`
	dbs, err := ParseAll("flex.json", []byte(flex))
	if err != nil || len(dbs) != 1 || dbs[0].Wrapper != "" || dbs[0].Tables["FLEX_COUNTER_TABLE"]["QUEUE"]["FLEX_COUNTER_STATUS"].Text != "enable" {
		t.Errorf("FLEX_COUNTER_TABLE: %d configs (%v)", len(dbs), err)
	}

	// A wrapped multi-ASIC config keeps its namespaces, each named after
	// the wrapper, one dump apart from a config under another wrapper.
	ns := `{"golden_config": {"localhost": {"DEVICE_METADATA": {"localhost": {"hostname": "h"}}}, "asic0": {"BUFFER_PG": {"Ethernet0|3-4": {"profile": "p"}}}},
"running_config": {"PORT": {"Ethernet0": {"speed": "100000"}}}}`
	dbs, err = ParseAll("ov.json", []byte(ns))
	if err != nil || len(dbs) != 3 || dbs[1].Namespace != "asic0" || dbs[1].Wrapper != "golden_config" || dbs[1].File != "ov.json golden_config asic0" ||
		!dbs[0].SameDump(dbs[1]) || dbs[1].SameDump(dbs[2]) || dbs[2].File != "ov.json running_config" {
		for _, db := range dbs {
			t.Logf("%q wrapper %q namespace %q", db.File, db.Wrapper, db.Namespace)
		}
		t.Errorf("namespaces in a wrapper: %d configs (%v)", len(dbs), err)
	}

	// A wrapped config's own shape errors keep their place in the file.
	_, err = ParseAll("bad.json", []byte("{\"running_config\": {\n\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}},\n\"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": {\"a\": 1}}}}}"))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.json:3:42: BUFFER_PG|Ethernet0|3.profile: expected") {
		t.Errorf("bad wrapped config: %v", err)
	}
	// One malformed row in a table lint reads, beside a well-formed one,
	// is that config's error at its place, not the wrapper taken for a
	// table; tables that hold lists alone (generic_config_updater's
	// validators) make no wrapper.
	_, err = ParseAll("row.json", []byte(`{"running_config": {"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}},
"BUFFER_PG": {"Ethernet0|3": "p"}}}`))
	if err == nil || !strings.HasPrefix(err.Error(), "row.json:2:30: BUFFER_PG|Ethernet0|3: expected an object") {
		t.Errorf("malformed row in a wrapped config: %v", err)
	}
	// A wrapper given twice: the later replaces the earlier, named as a
	// duplicate at its key.
	dbs, err = ParseAll("dup.json", []byte(`{"running_config": {"PORT": {"Ethernet0": {"speed": "1"}}},
"running_config": {"PORT": {"Ethernet4": {"speed": "2"}}}}`))
	if err != nil || len(dbs) != 1 || dbs[0].Tables["PORT"]["Ethernet4"] == nil || len(dbs[0].Duplicates) != 1 || dbs[0].Duplicates[0] != (Value{Text: "running_config", Line: 2, Col: 1}) {
		t.Errorf("wrapper given twice: %d configs (%v)", len(dbs), err)
	}
	// Given again with a non-object: that later value wins, a duplicate
	// and skipped at its place.
	dbs, err = ParseAll("dup5.json", []byte(`{"running_config": {"PORT": {"Ethernet0": {"speed": "1"}}},
"running_config": 5}`))
	if err != nil || len(dbs) != 1 || dbs[0].Wrapper != "" || len(dbs[0].Duplicates) != 1 || dbs[0].Duplicates[0] != (Value{Text: "running_config", Line: 2, Col: 1}) ||
		len(dbs[0].Skipped) != 1 || dbs[0].Skipped[0] != (Value{Text: "running_config", Line: 2, Col: 19}) {
		t.Errorf("wrapper given again as 5: %+v (%v)", dbs, err)
	}
	dbs, err = ParseAll("val.json", []byte(`{"validators": {"PFC_WD": {"a": ["x"]}, "BUFFER_PG": {"b": ["y"]}}, "PORT": {"Ethernet0": {"speed": "1"}}}`))
	if err != nil || len(dbs) != 1 || dbs[0].Wrapper != "" {
		t.Errorf("validators: %d configs (%v)", len(dbs), err)
	}
}

// wrapperShapes are the two shapes that made wrapped configs cost the
// square of their size: many sibling wrapper keys (each copied the whole
// file) and wrappers nested in wrappers (each level decoded its subtree
// again).
func wrapperShapes(n int) map[string][]byte {
	var sib, nest strings.Builder
	sib.WriteString("{")
	for i := range n {
		if i > 0 {
			sib.WriteString(",\n")
		}
		fmt.Fprintf(&sib, `"w%d": {"AAA": {"r": {"f": "v"}}}`, i)
	}
	sib.WriteString("}")
	nest.WriteString(strings.Repeat(`{"A": `, n) + `{"r": {"f": "v"}}` + strings.Repeat("}", n))
	return map[string][]byte{"siblings": []byte(sib.String()), "nested": []byte(nest.String())}
}

// TestWrappedConfigLinear: the bytes decoded beside the token reader's
// pass grow with the input, not with its square, for both shapes.
func TestWrappedConfigLinear(t *testing.T) {
	for shape, data := range wrapperShapes(2000) {
		dbs, scanned, err := parseAll(shape+".json", data)
		if err != nil || len(dbs) == 0 {
			t.Fatalf("%s: %d configs, %v", shape, len(dbs), err)
		}
		if scanned > 4*len(data) {
			t.Errorf("%s: %d bytes decoded for a %d-byte input", shape, scanned, len(data))
		}
	}
}

// TestGCUTestCases: sonic-utilities' generic config updater patch sorter
// test file (real) holds 28 test cases, each {"desc", "current_config",
// "patch", "expected_changes"}: each case's current_config is a config of
// its own, named by the case, and no case supplies another's tables. It
// was read as one config whose tables were the case names.
func TestGCUTestCases(t *testing.T) {
	const file = "../../testdata/corpus/sonic/utilities-gcu-patch_sorter_test_success.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dbs, err := ParseAll(file, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(dbs) != 28 {
		t.Fatalf("%d configs, want 28 (one per test case)", len(dbs))
	}
	var rack *ConfigDB
	for _, db := range dbs {
		if !db.Case || db.Wrapper == "" {
			t.Errorf("%s: Case %v, Wrapper %q", db.File, db.Case, db.Wrapper)
		}
		if db.Wrapper == "ADD_RACK" {
			rack = db
		}
	}
	if rack == nil || len(rack.Tables["PORT_QOS_MAP"]) == 0 || len(rack.Tables["BUFFER_PG"]) == 0 || rack.File != file+" ADD_RACK" {
		t.Fatalf("ADD_RACK: %+v", rack)
	}
	// Positions are the whole file's.
	if v, ok := rack.Field("PORT_QOS_MAP", "Ethernet52", "pfc_enable"); !ok || v.Text != "3,4" || v.Line < 1 || !strings.Contains(strings.Split(string(data), "\n")[v.Line-1], `"pfc_enable": "3,4"`) {
		t.Errorf("ADD_RACK pfc_enable %+v", v)
	}
	if rack.SuppliedBy(dbs[0]) || !rack.SuppliedBy(rack) {
		t.Error("a test case supplies another's tables")
	}
}
