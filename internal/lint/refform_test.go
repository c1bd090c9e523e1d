package lint

import (
	"path/filepath"
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
