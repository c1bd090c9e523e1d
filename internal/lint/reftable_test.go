package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestReferenceTable: sonic-utilities' real mock asic0 config_db writes
// QUEUE|Ethernet4|0 and |1 scheduler "[SCHEDULAR|scheduler.0]": up to
// 202106 orchagent looks the written table up (orch.cpp
// Orch::parseReference, "not recognized type") and qosorch retries the
// row, so queue 1's WRED profile is never applied. One warning names both
// queues. SYNTHETIC rows check the rest: the right table, a plain name
// and a row other than PORT_QOS_MAP and QUEUE give none; a colon after a
// wrong table, in PORT_QOS_MAP, gives one.
func TestReferenceTable(t *testing.T) {
	var got []doctor.Finding
	for _, fd := range lintFiles(t, filepath.Join("testdata", "util-mock-asic0-config_db.json")).Findings {
		if fd.ID == "config.reference.table" {
			got = append(got, fd)
		}
	}
	if len(got) != 1 || got[0].Severity != doctor.Warn ||
		!strings.HasSuffix(got[0].Title, ": QUEUE|Ethernet4|0, Ethernet4|1 scheduler names [SCHEDULAR|scheduler.0], a row of SCHEDULAR, where the field takes a SCHEDULER row: SONiC up to 202106 resolves no such reference") ||
		len(got[0].Evidence) != 2 || !strings.Contains(got[0].Evidence[0].Text, `"[SCHEDULAR|scheduler.0]"`) {
		t.Fatalf("asic0: %+v", got)
	}
	fs := lintText(t, `{
"PORT": {"Ethernet0": {}},
"SCHEDULER": {"s": {"type": "DWRR", "weight": "1"}},
"WRED_PROFILE": {"W": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "100000", "green_max_threshold": "2000000", "green_drop_probability": "5"}},
"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
"QUEUE": {"Ethernet0|3": {"scheduler": "[SCHEDULER|s]", "wred_profile": "W"}, "Ethernet0|4": {"scheduler": "s", "wred_profile": "[WRED_PROFILE|W]"}},
"BUFFER_PG": {"Ethernet0|3": {"profile": "[BUFFER_PROFIL|p]"}},
"BUFFER_PROFILE": {"p": {"pool": "ingress_lossless_pool", "size": "0", "xon": "18432", "xoff": "40000", "dynamic_th": "0"}},
"BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000000", "type": "ingress", "mode": "dynamic"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "[DSCP_TO_TC:AZURE]", "pfc_enable": "3"}}
}`, "config.reference.table")
	if len(fs) != 1 || !strings.Contains(fs[0].Title, "PORT_QOS_MAP|Ethernet0 dscp_to_tc_map names [DSCP_TO_TC|AZURE], a row of DSCP_TO_TC, where the field takes a DSCP_TO_TC_MAP row") ||
		!strings.Contains(fs[0].Mechanism, "none of the row's maps and none of its pfc_enable are applied") {
		t.Errorf("synthetic: %+v", fs)
	}
}

// TestReferenceTableElsewhere: SYNTHETIC rows whose reference names
// another of the tables orchagent 202106 resolves QoS references in
// (QosOrch::m_qos_maps), holding the name: Orch::parseReference resolves
// it, to that row's object, so the finding says the wrong row is bound,
// not that the reference stays unresolved. A typo'd table, or a known one
// without the name, still resolves to nothing.
func TestReferenceTableElsewhere(t *testing.T) {
	fs := lintText(t, `{
"PORT": {"Ethernet0": {}},
"SCHEDULER": {"s": {"type": "DWRR", "weight": "1"}},
"WRED_PROFILE": {"W": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "100000", "green_max_threshold": "2000000", "green_drop_probability": "5"}},
"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
"TC_TO_QUEUE_MAP": {"AZURE": {"3": "3"}},
"QUEUE": {"Ethernet0|3": {"scheduler": "[WRED_PROFILE|W]", "wred_profile": "[WRED_PROFILE|W]"}, "Ethernet0|4": {"scheduler": "[WRED_PROFILE|s]"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|AZURE]", "tc_to_queue_map": "[DSCP_TO_TC_MAP|AZURE]", "pfc_enable": "3"}}
}`, "config.reference.table")
	var titles []string
	for _, f := range fs {
		titles = append(titles, f.Title)
	}
	want := []string{
		"QUEUE|Ethernet0|3 scheduler names [WRED_PROFILE|W], a row of WRED_PROFILE, where the field takes a SCHEDULER row: SONiC up to 202106 binds WRED_PROFILE's row W in its place",
		"QUEUE|Ethernet0|4 scheduler names [WRED_PROFILE|s], a row of WRED_PROFILE, where the field takes a SCHEDULER row: SONiC up to 202106 resolves no such reference",
		"PORT_QOS_MAP|Ethernet0 tc_to_queue_map names [DSCP_TO_TC_MAP|AZURE], a row of DSCP_TO_TC_MAP, where the field takes a TC_TO_QUEUE_MAP row: SONiC up to 202106 binds DSCP_TO_TC_MAP's row AZURE in its place",
	}
	if len(fs) != len(want) {
		t.Fatalf("got %d findings, want %d: %q", len(fs), len(want), titles)
	}
	for i, w := range want {
		if !strings.HasSuffix(titles[i], w) {
			t.Errorf("finding %d: %q, want suffix %q", i, titles[i], w)
		}
	}
	if !strings.Contains(fs[0].Mechanism, "SAI refuses an object of another type") || strings.Contains(fs[0].Mechanism, "never resolves") ||
		!strings.Contains(fs[1].Mechanism, "never resolves") {
		t.Errorf("mechanisms: %q / %q", fs[0].Mechanism, fs[1].Mechanism)
	}
}
