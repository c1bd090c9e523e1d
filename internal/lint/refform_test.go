package lint

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestReferenceFormMixed: sonic-buildimage's real DellEMC-Z9664f-O64
// templates, rendered as `config qos reload` renders them, write the four
// BUFFER_PROFILE pools as "[BUFFER_POOL|...]" and every other reference
// (69) as a plain name. From 202111 bufferorch refuses the bracketed pools
// ("Must not be surrounded by [ ]") and, up to 202106, orchagent the plain
// names: one warning names the four pools.
func TestReferenceFormMixed(t *testing.T) {
	var got []doctor.Finding
	for _, fd := range lintFiles(t, filepath.Join("..", "..", "testdata", "corpus", "sonic", "buildimage-render-dell-z9664f-o64-t1-qos-buffers-synthetic-ports.json")).Findings {
		if fd.ID == "config.reference.form" {
			got = append(got, fd)
		}
	}
	if len(got) != 1 || got[0].Severity != doctor.Warn ||
		!strings.Contains(got[0].Title, `: 4 references in the bracket form, "[TABLE|name]" (BUFFER_PROFILE|egress_lossless_profile pool, `) ||
		!strings.Contains(got[0].Title, "beside 69 written as plain names") || len(got[0].Evidence) != 5 {
		t.Fatalf("%+v", got)
	}
	// Marvell's d64p512t qos_defaults_def_lossy.j2 (2026), rendered: its
	// queue 7 scheduler alone is bracketed.
	got = got[:0]
	for _, fd := range lintFiles(t, filepath.Join("..", "..", "testdata", "corpus", "sonic", "buildimage-render-marvell-d64p512t-64x800g-qos_defaults_def_lossy-synthetic-ports.json")).Findings {
		if fd.ID == "config.reference.form" {
			got = append(got, fd)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0].Title, `: 1 reference in the bracket form, "[TABLE|name]" (QUEUE|Ethernet0,Ethernet8,Ethernet16,Ethernet24|7 scheduler) beside 12 written as plain names`) {
		t.Errorf("marvell: %+v", got)
	}
}

// TestReferenceFormFix: the fix quotes a bracketed reference as the file
// writes it: sonic-utilities' asic1 mock CONFIG_DB writes QUEUE's
// schedulers as "[SCHEDULAR|scheduler.0]", with the table misspelt.
func TestReferenceFormFix(t *testing.T) {
	var got []string
	for _, fd := range lintFiles(t, filepath.Join("..", "..", "testdata", "corpus", "sonic", "utilities-mock_tables-asic1-config_db.json")).Findings {
		if fd.ID == "config.reference.form" {
			got = append(got, fd.Fix)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `("scheduler.0" for "[SCHEDULAR|scheduler.0]")`) {
		t.Errorf("%q", got)
	}
}

// TestReferenceFormVersion: SYNTHETIC configs. Bracketed references in a
// CONFIG_DB db_migrator has already migrated (version_2_0_3 and _4 on
// 202111, version_3_0_3 or later, the release-named versions of 202305
// on) are an error, whether or not plain ones sit beside them; at
// version_3_0_2 or version_2_0_2 db_migrator strips them, and a file in
// one form alone says nothing.
func TestReferenceFormVersion(t *testing.T) {
	body := `"PORT": {"Ethernet0": {}},
"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
"TC_TO_QUEUE_MAP": {"AZURE": {"3": "3"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "%s", "tc_to_queue_map": "%s", "pfc_enable": "3"}}`
	for _, c := range []struct {
		version, dscp, queue string
		want                 doctor.Severity
		none                 bool
	}{
		{"version_3_0_3", "[DSCP_TO_TC_MAP|AZURE]", "[TC_TO_QUEUE_MAP|AZURE]", doctor.Error, false},
		{"version_3_0_6", "[DSCP_TO_TC_MAP|AZURE]", "AZURE", doctor.Error, false},
		{"version_3_0_2", "[DSCP_TO_TC_MAP|AZURE]", "[TC_TO_QUEUE_MAP|AZURE]", 0, true},
		{"version_3_0_6", "AZURE", "AZURE", 0, true},
		// 202111 writes version_2_0_4, having migrated at version_2_0_2;
		// 202012 and 202106 write version_2_0_2; 202305 on name the
		// schema after the release.
		{"version_2_0_4", "[DSCP_TO_TC_MAP|AZURE]", "[TC_TO_QUEUE_MAP|AZURE]", doctor.Error, false},
		{"version_2_0_3", "[DSCP_TO_TC_MAP|AZURE]", "[TC_TO_QUEUE_MAP|AZURE]", doctor.Error, false},
		{"version_202311_03", "[DSCP_TO_TC_MAP|AZURE]", "[TC_TO_QUEUE_MAP|AZURE]", doctor.Error, false},
		{"version_202605_01", "[DSCP_TO_TC_MAP|AZURE]", "AZURE", doctor.Error, false},
		{"version_2_0_2", "[DSCP_TO_TC_MAP|AZURE]", "[TC_TO_QUEUE_MAP|AZURE]", 0, true},
		{"version_1_0_6", "[DSCP_TO_TC_MAP|AZURE]", "[TC_TO_QUEUE_MAP|AZURE]", 0, true},
		{"", "[DSCP_TO_TC_MAP|AZURE]", "[TC_TO_QUEUE_MAP|AZURE]", 0, true},
		{"", "[DSCP_TO_TC_MAP|AZURE]", "AZURE", doctor.Warn, false},
	} {
		text := strings.Replace(strings.Replace(body, "%s", c.dscp, 1), "%s", c.queue, 1)
		if c.version != "" {
			text = `"VERSIONS": {"DATABASE": {"VERSION": "` + c.version + `"}}, ` + text
		}
		fs := lintText(t, "{"+text+"}", "config.reference.form")
		switch {
		case c.none && len(fs) != 0:
			t.Errorf("%+v: %q", c, fs[0].Title)
		case !c.none && (len(fs) != 1 || fs[0].Severity != c.want):
			t.Errorf("%+v: %+v", c, fs)
		}
	}
}

// TestReferenceFormRedis: SYNTHETIC `redis-cli hgetall` and `sonic-db-cli
// hgetall` output of a CONFIG_DB. Its values are the file's text as much
// as a config_db.json's: the bracketed dscp_to_tc_map and QUEUE scheduler
// beside two plain names are the mixed file the warning names, not two
// plain references.
func TestReferenceFormRedis(t *testing.T) {
	text := `admin@sonic:~$ redis-cli -n 4 hgetall "PORT_QOS_MAP|Ethernet0"
 1) "dscp_to_tc_map"
 2) "[DSCP_TO_TC_MAP|AZURE]"
 3) "pfc_enable"
 4) "3"
 5) "tc_to_queue_map"
 6) "AZURE"
admin@sonic:~$ redis-cli -n 4 hgetall "DSCP_TO_TC_MAP|AZURE"
 1) "26"
 2) "3"
admin@sonic:~$ redis-cli -n 4 hgetall "TC_TO_QUEUE_MAP|AZURE"
 1) "3"
 2) "3"
admin@sonic:~$ sonic-db-cli CONFIG_DB hgetall 'QUEUE|Ethernet0|3'
{'scheduler': '[SCHEDULER|scheduler.1]', 'wred_profile': 'AZURE_LOSSLESS'}
`
	var got []doctor.Finding
	for _, fd := range lintFiles(t, tempFile(t, "redis.txt", text)).Findings {
		if fd.ID == "config.reference.form" {
			got = append(got, fd)
		}
	}
	if len(got) != 1 || got[0].Severity != doctor.Warn ||
		!strings.Contains(got[0].Title, `2 references in the bracket form, "[TABLE|name]" (PORT_QOS_MAP|Ethernet0 dscp_to_tc_map, QUEUE|Ethernet0|3 scheduler) beside 2 written as plain names`) {
		t.Fatalf("%+v", got)
	}
	// The evidence points at the values: line 3's and line 15's.
	var lines []int
	for _, e := range got[0].Evidence {
		lines = append(lines, e.Line)
	}
	if !slices.Contains(lines, 3) || !slices.Contains(lines, 15) {
		t.Errorf("evidence lines %v", lines)
	}
}

// TestReferenceFormMixedList: SYNTHETIC. A profile_list mixing the forms,
// "[BUFFER_PROFILE|a],b", is read by no release whole (each item goes
// through Orch::parseReference): in a file otherwise all bracketed it is
// both a bracketed and a plain reference, so the warning fires, naming b
// as the plain item (not a, the bracketed one) whichever comes first;
// written wholly in one form, the same file says nothing.
func TestReferenceFormMixedList(t *testing.T) {
	body := `{"PORT": {"Ethernet0": {}},
"BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000000", "type": "ingress"}, "ingress_lossy_pool": {"size": "1000000", "type": "ingress"}},
"BUFFER_PROFILE": {"a": {"pool": "[BUFFER_POOL|ingress_lossless_pool]", "size": "0", "static_th": "100000"},
  "b": {"pool": "[BUFFER_POOL|ingress_lossy_pool]", "size": "0", "static_th": "100000"}},
"BUFFER_PORT_INGRESS_PROFILE_LIST": {"Ethernet0": {"profile_list": "%s"}}}`
	fs := lintText(t, strings.Replace(body, "%s", "[BUFFER_PROFILE|a],b", 1), "config.reference.form")
	if len(fs) != 1 || !strings.Contains(fs[0].Title, `3 references in the bracket form`) ||
		!strings.Contains(fs[0].Title, `beside 1 written as plain names (BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet0 profile_list "b")`) {
		t.Fatalf("%+v", fs)
	}
	// The list the only bracketed reference, its plain item first: the fix
	// rewrites its bracketed item, a, not b.
	plainPools := strings.ReplaceAll(strings.ReplaceAll(body, "[BUFFER_POOL|", ""), "pool]", "pool")
	fs = lintText(t, strings.Replace(plainPools, "%s", "b,[BUFFER_PROFILE|a]", 1), "config.reference.form")
	if len(fs) != 1 || !strings.Contains(fs[0].Title, `1 reference in the bracket form`) || !strings.Contains(fs[0].Fix, `("a" for "[BUFFER_PROFILE|a]")`) {
		t.Fatalf("plain first: %+v", fs)
	}
	if fs := lintText(t, strings.Replace(body, "%s", "[BUFFER_PROFILE|a],[BUFFER_PROFILE|b]", 1), "config.reference.form"); len(fs) != 0 {
		t.Errorf("all bracketed: %q", fs[0].Title)
	}
	// The names resolve whatever the form: no profile is reported missing,
	// and the plain item names no table, so none other than the field's.
	for _, id := range []string{"config.reference.missing", "config.reference.table"} {
		if fs := lintText(t, strings.Replace(body, "%s", "[BUFFER_PROFILE|a],b", 1), id); len(fs) != 0 {
			t.Errorf("%s: %q", id, fs[0].Title)
		}
	}
}

// TestReferenceFormOldPlain: sonic-utilities' filter_fdb input CONFIG_DB,
// stamped version_1_0_1 (a release up to 202106, whose orchagent reads
// only "[TABLE|name]"), writes all its 479 references as plain names: an
// info note, not a warning (a sonic-utilities test fixture of master, read
// right on 202111 and later, where db_migrator moves the stamp on).
// SYNTHETIC cases bound it: the same plain names at version_2_0_2 are
// noted, and at version_3_0_0 to version_3_0_2 (202205's steps before it
// strips brackets); at version_2_0_3 (202111, migrated), version_3_0_3 or
// without a stamp they say nothing.
func TestReferenceFormOldPlain(t *testing.T) {
	var got []doctor.Finding
	for _, fd := range lintFiles(t, filepath.Join("..", "..", "testdata", "corpus", "sonic", "utilities-filter_fdb_input-config_db.json")).Findings {
		if fd.ID == "config.reference.form" {
			got = append(got, fd)
		}
	}
	if len(got) != 1 || got[0].Severity != doctor.Info ||
		!strings.Contains(got[0].Title, ": 479 references written as plain names (PORT_QOS_MAP|Ethernet112 dscp_to_tc_map, ") ||
		!strings.HasSuffix(got[0].Title, "read as written on 202111 or later, refused by that release's orchagent") ||
		!strings.Contains(got[0].Title, "VERSIONS|DATABASE is version_1_0_1 (SONiC 202106 or earlier)") || len(got[0].Evidence) != 4 {
		t.Fatalf("%+v", got)
	}
	body := `"PORT": {"Ethernet0": {}},
"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"}}`
	for version, want := range map[string]int{"version_2_0_2": 1, "version_2_0_0": 1, "version_2_0_3": 0, "version_3_0_0": 1, "version_3_0_2": 1, "version_3_0_3": 0, "version_202305_01": 0, "": 0} {
		text := "{" + body + "}"
		if version != "" {
			text = `{"VERSIONS": {"DATABASE": {"VERSION": "` + version + `"}}, ` + body + "}"
		}
		if fs := lintText(t, text, "config.reference.form"); len(fs) != want {
			t.Errorf("%q: %d findings, want %d", version, len(fs), want)
		}
	}
}

// TestReferenceFormUnstrippedStamp: sonic-utilities' db_migrator input
// for reclaiming buffers, stamped version_3_0_2 (the step before
// db_migrator of 202205 on strips the bracket form), writes its buffer
// references as plain names: the same info note as under a 202106 stamp,
// saying the stamp is one db_migrator passes, not a release's. Its bracketed
// twin at version_3_0_1 (the reference-format migration's input) is
// migrated at boot: nothing to say.
func TestReferenceFormUnstrippedStamp(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "corpus")
	var got []doctor.Finding
	for _, fd := range lintFiles(t, filepath.Join(dir, "sonic", "utilities-db_migrator_input-config_db-reclaiming-buffer-traditional-single-pool-input.json")).Findings {
		if fd.ID == "config.reference.form" {
			got = append(got, fd)
		}
	}
	if len(got) != 1 || got[0].Severity != doctor.Info ||
		!strings.Contains(got[0].Title, "VERSIONS|DATABASE is version_3_0_2 (a stamp db_migrator passes before it strips brackets, from 202205)") ||
		!strings.Contains(got[0].Mechanism, "at version_3_0_2 it strips the bracket form") {
		t.Fatalf("%+v", got)
	}
	for _, fd := range lintFiles(t, filepath.Join(dir, "sonic-stock", "utilities-db_migrator_input-config_db-qos_tables_db_field_value_reference_format_3_0_1.json")).Findings {
		if fd.ID == "config.reference.form" {
			t.Errorf("bracketed at version_3_0_1: %s", fd.Title)
		}
	}
}
