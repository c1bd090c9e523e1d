package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintPFCWDSWEnable: since sonic-swss #2171 (SONiC 202205) the PFC
// watchdog watches only PORT_QOS_MAP's pfcwd_sw_enable priorities, and
// db_migrator (version_3_0_4) copies pfc_enable into it. sonic-utilities'
// migrator test pair is judged as SONiC would run it: the 3_0_4 input
// (the migrator will add the field) and the 3_0_5 output (which has it)
// are sound; the output with Ethernet0's pfcwd_sw_enable removed, or cut
// to "4", leaves RoCE's priority 3 unwatched on Ethernet0 alone. Before,
// lint said nothing of pfcwd_sw_enable.
func TestLintPFCWDSWEnable(t *testing.T) {
	expected, err := os.ReadFile("testdata/util-dbmig-qos_map_table_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, from, to string) string {
		edited := strings.Replace(string(expected), from, to, 1)
		if edited == string(expected) {
			t.Fatalf("%s: %q not in the file", name, from)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	row := "\"pfc_enable\": \"3,4\",\n        \"pfcwd_sw_enable\": \"3,4\","
	for _, c := range []struct {
		file, want string
	}{
		{"testdata/util-dbmig-qos_map_table_input.json", ""},
		{"testdata/util-dbmig-qos_map_table_expected.json", ""},
		{write("no-field.json", row, "\"pfc_enable\": \"3,4\","), "Ethernet0: pfc_enable \"3,4\" without pfcwd_sw_enable"},
		{write("cut.json", row, "\"pfc_enable\": \"3,4\",\n        \"pfcwd_sw_enable\": \"4\","), "Ethernet0: pfcwd_sw_enable \"4\" leaves out 3 of pfc_enable \"3,4\""},
	} {
		rep, err := Lint([]string{c.file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings {
			if f.ID == "pfc.watchdog.off" {
				got = append(got, f.Title)
			}
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: %v, want no pfc.watchdog.off", filepath.Base(c.file), got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: %v, want one naming %q", filepath.Base(c.file), got, c.want)
		}
	}
}

// TestDBVersionAtLeast: db_migrator's schema versions in the order its
// releases write them (sonic-utilities scripts/db_migrator.py): the
// numbered ones up to version_4_0_3 (202211), then the release-named
// ones from version_202305_01, later than every numbered one.
func TestDBVersionAtLeast(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{
		{"version_3_0_4", false}, {"version_3_0_5", true}, {"version_4_0_3", true},
		{"version_202305_01", true}, {"version_202605_01", true}, {"version_2_0_4", false},
		{"version_1_0_6", false}, {"version_unknown", false}, {"version_3_0", false},
	} {
		if got := dbVersionAtLeast(c.v, 3, 0, 5); got != c.want {
			t.Errorf("dbVersionAtLeast(%q, 3, 0, 5) = %v, want %v", c.v, got, c.want)
		}
	}
}
