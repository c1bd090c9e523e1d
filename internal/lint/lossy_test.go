package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// NVIDIA's Spectrum-X AI SKU (SN5600 C256S1) ships lossy: pfc_enable empty
// on every port, every class in priority group 0, RoCE's queue marking
// ECN only above 158 MB. It read as two unrelated findings (qos.pfc.disabled
// error "PFC is off on every priority" and ecn.disabled "ECN never marks
// RoCE"); it is one decision, right or wrong by the NICs, said once.
func TestLossyByDesign(t *testing.T) {
	const file = "testdata/bi-sn5600-c256s1-qos-render-t0.json"
	rep := lintFiles(t, file)
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %v, want qos.lossy.by_design alone", ids(rep))
	}
	f := rep.Findings[0]
	if f.ID != "qos.lossy.by_design" || f.Severity != doctor.Warn {
		t.Fatalf("%s %v, want qos.lossy.by_design warn", f.ID, f.Severity)
	}
	for _, want := range []string{"pfc_enable is empty on every port", "one priority group", "RoCE (DSCP 26, assumed) lands in class 4", "only above 158220288 bytes"} {
		if !strings.Contains(f.Title, want) {
			t.Errorf("title %q lacks %q", f.Title, want)
		}
	}
	if !strings.Contains(f.Mechanism, "Spectrum-X") || !strings.Contains(f.Fix, "--pfc 0,0,0,0,0,0,0,0") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
	// Without green_drop_probability the profile is judged at SAI's
	// default, 100 %; without green thresholds it keeps SAI's default 0,
	// the maximum buffer size, and marks in practice never.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ drop, want string }{
		{`(?m)^\s*"green_drop_probability": "\d+",\n`, "only above 158220288 bytes"},
		{`(?m)^\s*"green_m(in|ax)_threshold": "\d+",\n`, "whose queue 4 marks ECN only at the maximum buffer size (WRED_PROFILE AZURE_LOSSY_DOWNLINK_Q4 sets no green thresholds"},
	} {
		text := regexp.MustCompile(c.drop).ReplaceAllString(string(data), "")
		var title string
		for _, f := range lintFiles(t, tempFile(t, "qos.json", text)).Findings {
			if f.ID == "qos.lossy.by_design" {
				title = f.Title
			}
		}
		if !strings.Contains(title, c.want) {
			t.Errorf("without %s: %q, want %q", c.drop, title, c.want)
		}
	}
	// With NICs that run PFC on priority 3 (a real mlnx_qos), the lossy
	// switch is a mistake.
	rep = lintFiles(t, file, "../../testdata/corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	var got *doctor.Finding
	for i := range rep.Findings {
		if rep.Findings[i].ID == "qos.lossy.by_design" {
			got = &rep.Findings[i]
		}
		if rep.Findings[i].ID == "qos.pfc.disabled" || rep.Findings[i].ID == "ecn.disabled" {
			t.Errorf("%s beside qos.lossy.by_design: %s", rep.Findings[i].ID, rep.Findings[i].Title)
		}
	}
	if got == nil || got.Severity != doctor.Error || !strings.Contains(got.Title, "run PFC, expecting a lossless class") {
		t.Errorf("with PFC NICs: %+v", got)
	}
}

func lintFiles(t *testing.T, paths ...string) *doctor.Report {
	t.Helper()
	rep, err := Lint(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range doctor.Nonconforming(rep.Findings) {
		t.Error(msg)
	}
	return rep
}

// A config_db whose PORT_QOS_MAP rows write no pfc_enable pauses no
// priority (orchagent reads the row as an empty pfc_enable, buffermgrd
// writes no lossless priority group). Where no buffer profile keeps xoff
// (Nexthop NH-4010, Dell S5232F-P: lossy pools and profiles only) that is
// a lossy design; PFC was forgotten only where a profile keeps PFC
// headroom. Both SKUs were told "PFC is off on every priority" (error),
// and the Dell's fix paused class 0, where every DSCP lands.
func TestPFCEnableAbsent(t *testing.T) {
	withXoff := func(data []byte) string {
		s := strings.Replace(string(data), `"BUFFER_PROFILE": {`, `"BUFFER_PROFILE": {
        "pg_lossless_profile": {"pool": "ingress_pool", "size": "18432", "xon": "18432", "xoff": "165888", "dynamic_th": "0"},`, 1)
		return strings.Replace(s, `"BUFFER_PG": {`, `"BUFFER_PG": {
        "Ethernet0|3-4": {"profile": "pg_lossless_profile"},`, 1)
	}
	for _, c := range []struct{ file, fix string }{
		{"testdata/bi-nh4010-128x400g-qos-buffers-render-t1-synthetic-ports.json", `"pfc_enable": "3,4" in every port's`},
		{"../../testdata/corpus/sonic/buildimage-render-dell-s5232f-p-100g-t1-qos-buffers-synthetic-ports.json", "Map DSCP 26 to class 3 in DSCP_TO_TC_MAP DEFAULT first"},
	} {
		rep := lintFiles(t, c.file)
		if len(rep.Findings) != 1 || rep.Findings[0].ID != "qos.lossy.by_design" {
			t.Errorf("%s: findings %v, want qos.lossy.by_design alone", c.file, ids(rep))
		}
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		// With a lossless profile keeping xoff on priority groups 3-4
		// (the classic forgotten field: headroom kept, nothing paused).
		var f *doctor.Finding
		for _, g := range lintFiles(t, tempFile(t, "config_db.json", withXoff(data))).Findings {
			if g.ID == "qos.lossy.by_design" {
				t.Errorf("%s with xoff: %s", c.file, g.Title)
			}
			if g.ID == "qos.pfc.disabled" {
				f = &g
			}
		}
		if f == nil || f.Severity != doctor.Error || !strings.Contains(f.Title, "write no pfc_enable") || !strings.Contains(f.Fix, c.fix) || strings.Contains(f.Fix, `"3,4,0"`) {
			t.Errorf("%s with xoff: %+v, want qos.pfc.disabled error with fix %q", c.file, f, c.fix)
			continue
		}
		named := false
		for _, e := range f.Evidence {
			named = named || strings.Contains(e.Text, `"Ethernet0`)
		}
		if !named {
			t.Errorf("evidence %v does not name PORT_QOS_MAP's Ethernet0 row", f.Evidence)
		}
	}
	// One port writing pfc_enable 3 sets the others apart: not judged
	// as forgotten (service ports beside lossless ones).
	const file = "testdata/bi-nh4010-128x400g-qos-buffers-render-t1-synthetic-ports.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The global row's pfc_enable pauses nothing (orchagent reads only its
	// dscp_to_tc_map): the port rows still write none. It hid the finding.
	global := strings.Replace(withXoff(data), `"PORT_QOS_MAP": {`, `"PORT_QOS_MAP": {
        "global": {"pfc_enable": "3,4"},`, 1)
	if got := ids(lintFiles(t, tempFile(t, "config_db.json", global))); got["qos.pfc.disabled"] != doctor.Error {
		t.Errorf("global pfc_enable 3,4, none on the ports: %v, want qos.pfc.disabled error", got)
	}
	text := strings.Replace(withXoff(data), `"tc_to_pg_map": "NH_DEFAULT_TC_TO_PRI_GROUP_MAP"`, `"tc_to_pg_map": "NH_DEFAULT_TC_TO_PRI_GROUP_MAP", "pfc_enable": "3"`, 1)
	for _, f := range lintFiles(t, tempFile(t, "config_db.json", text)).Findings {
		if f.ID == "qos.lossy.by_design" || f.ID == "qos.pfc.disabled" && strings.Contains(f.Title, "write no pfc_enable") {
			t.Errorf("pfc_enable 3 on one port: %s", f.Title)
		}
	}
}

// A lossy SKU's RoCE queue that marks only above the pool it draws on
// never marks: the pool bounds the queue, whatever the ASIC's whole
// buffer (SN5640 C448O16: 136 MB threshold, 108 MB egress_lossy_pool). It
// was judged against a fixed 64 MiB "switch's buffer", below Spectrum-4's
// and Tomahawk 5's, and its thresholds were judged again as
// switch.ecn.thresholds; a pool larger than the threshold lets it mark.
func TestLossyECNJudgedAgainstQueuePool(t *testing.T) {
	const file = "testdata/bi-sn5640-c448o16-qos-buffers-render-t0-synthetic-ports.json"
	rep := lintFiles(t, file)
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "qos.lossy.by_design" {
		t.Fatalf("findings %v, want qos.lossy.by_design alone", ids(rep))
	}
	if want := "beyond the 108270592 bytes of egress_lossy_pool, the pool queue 4 draws on (BUFFER_QUEUE profile queue4_downlink_lossy_profile): in practice never"; !strings.Contains(rep.Findings[0].Title, want) {
		t.Errorf("title %q lacks %q", rep.Findings[0].Title, want)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `"size": "108270592",
            "type": "egress"`, `"size": "216541184",
            "type": "egress"`, 1)
	if text == string(data) {
		t.Fatal("egress_lossy_pool's size not found")
	}
	rep = lintFiles(t, tempFile(t, "config_db.json", text))
	var title string
	for _, f := range rep.Findings {
		if f.ID == "qos.lossy.by_design" {
			title = f.Title
		}
	}
	if !strings.Contains(title, "marks ECN from 136200192 to 136200192 bytes") {
		t.Errorf("with a 216 MB pool: %q, want the queue judged as marking", title)
	}
}

// A lossy design's RoCE queue under a profile that marks with
// wred_green_enable false marks nothing on a platform DEVICE_METADATA
// names and that is not Spectrum (SAI's per-colour enable, as
// sonicECNMode reads it): Arista 7060X6-64PE-B C448O16, Tomahawk 5,
// ecn_green on queue 4. It was told as a queue that marks at its
// thresholds; a fragment naming no platform is still told so.
func TestLossyECNGreenOffOffSpectrum(t *testing.T) {
	const file = "../../testdata/corpus/sonic/buildimage-render-arista-7060x6-64pe-b-c448o16-t0-lossy-qos-buffers-synthetic-ports.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	title := func(text string) string {
		for _, f := range lintFiles(t, tempFile(t, "config_db.json", text)).Findings {
			if f.ID == "qos.lossy.by_design" {
				return f.Title
			}
		}
		return ""
	}
	if got, want := title(string(data)), `whose queue 4 marks nothing: WRED_PROFILE AZURE_LOSSY_DOWNLINK_Q4 has ecn ecn_green with wred_green_enable "false", which on x86_64-arista_7060x6_64pe_b`; !strings.Contains(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	noPlatform := strings.Replace(string(data), `"platform": "x86_64-arista_7060x6_64pe_b",`, ``, 1)
	if got := title(noPlatform); !strings.Contains(got, "marks nothing") || !strings.Contains(got, "which on Arista-7060X6-64PE-B-C448O16") {
		t.Errorf("without a platform, with its hwsku: %q", got)
	}
	// Naming neither, the ASIC is not known: whether green packets are
	// marked is not judged, as ecn.disabled reads it (which warns that it
	// may never mark); it was told as marking.
	noPlatform = strings.Replace(noPlatform, `"hwsku": "Arista-7060X6-64PE-B-C448O16",`, ``, 1)
	if got := title(noPlatform); !strings.Contains(got, "marks ECN only above 266338050 bytes") {
		t.Errorf("without a platform or hwsku: %q", got)
	}
	reach := strings.ReplaceAll(noPlatform, `"266338050"`, `"1048576"`)
	if got := title(reach); !strings.Contains(got, "only if the ASIC marks green packets without wred_green_enable") || !strings.Contains(got, "not judged") {
		t.Errorf("without a platform or hwsku, thresholds at 1 MiB: %q", got)
	}
}

// The same profile with thresholds a queue reaches (1-2 MiB) still marks
// nothing there: switch.ecn.thresholds judged it as well, saying marking
// starts late on a queue that never marks. Without the wred_green_enable
// field the title read `wred_green_enable ""` over a line-0 evidence.
func TestLossyECNGreenOffNotJudgedTwice(t *testing.T) {
	const file = "../../testdata/corpus/sonic/buildimage-render-arista-7060x6-64pe-b-c448o16-t0-lossy-qos-buffers-synthetic-ports.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const q4 = `"green_max_threshold": "266338050",
            "green_min_threshold": "266338050",
            "wred_green_enable": "false"`
	if !strings.Contains(string(data), q4) {
		t.Fatal("AZURE_LOSSY_DOWNLINK_Q4's thresholds not found")
	}
	for _, c := range []struct{ with, want string }{
		{`"green_max_threshold": "2097152",
            "green_min_threshold": "1048576",
            "wred_green_enable": "false"`, `wred_green_enable "false"`},
		{`"green_max_threshold": "2097152",
            "green_min_threshold": "1048576"`, "with no wred_green_enable (SAI's default, false)"},
	} {
		rep := lintFiles(t, tempFile(t, "config_db.json", strings.Replace(string(data), q4, c.with, 1)))
		var title string
		for _, f := range rep.Findings {
			switch f.ID {
			case "switch.ecn.thresholds":
				t.Errorf("%s: also %s", c.want, f.Title)
			case "qos.lossy.by_design":
				title = f.Title
				for _, e := range f.Evidence {
					if e.Line < 1 {
						t.Errorf("%s: evidence %+v at no line", c.want, e)
					}
				}
			}
		}
		if !strings.Contains(title, "marks nothing") || !strings.Contains(title, c.want) {
			t.Errorf("title %q, want marks nothing %s", title, c.want)
		}
	}
}

// The pool bounds the queue only where it is an egress pool with a size:
// one written without a size (the dynamic buffer model sizes it at run
// time) was taken for the 64 MiB fallback and the queue told never to
// mark; now where it stops is not judged. A pool that is not egress is no
// bound for a queue: the fallback holds.
func TestLossyECNPoolUnsizedOrNotEgress(t *testing.T) {
	const file = "testdata/bi-sn5640-c448o16-qos-buffers-render-t0-synthetic-ports.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const pool = `"size": "108270592",
            "type": "egress"`
	if !strings.Contains(string(data), pool) {
		t.Fatal("egress_lossy_pool not found")
	}
	for _, c := range []struct{ with, want string }{
		{`"type": "egress"`, "egress_lossy_pool, the pool queue 4 draws on, has no size (sized at run time): whether it reaches 136200192 bytes is not judged"},
		{`"size": "108270592",
            "type": "ingress"`, "more than a switch's buffer: in practice never"},
	} {
		var title string
		for _, f := range lintFiles(t, tempFile(t, "config_db.json", strings.Replace(string(data), pool, c.with, 1))).Findings {
			if f.ID == "qos.lossy.by_design" {
				title = f.Title
			}
		}
		if !strings.Contains(title, c.want) {
			t.Errorf("title %q lacks %q", title, c.want)
		}
	}
}

// Rows that write pfc_enable empty beside rows that omit it: the title
// said "empty on every port", which some ports do not write at all.
func TestLossyByDesignPFCEnableMixed(t *testing.T) {
	data, err := os.ReadFile("testdata/bi-sn5600-c256s1-qos-render-t0.json")
	if err != nil {
		t.Fatal(err)
	}
	const empty = `"pfc_enable"      : "",`
	if !strings.Contains(string(data), empty) {
		t.Fatal("empty pfc_enable not found")
	}
	var title string
	for _, f := range lintFiles(t, tempFile(t, "config_db.json", strings.Replace(string(data), empty, "", 1))).Findings {
		if f.ID == "qos.lossy.by_design" {
			title = f.Title
		}
	}
	if strings.Contains(title, "empty on every port") || !strings.Contains(title, "empty or not written on every port") {
		t.Errorf("title %q", title)
	}
}

// Dell's Z9432F (Trident 4) SKUs render BUFFER_POOL, BUFFER_PROFILE and
// BUFFER_PG as empty tables beside PORT_QOS_MAP rows without pfc_enable:
// no profile keeps xoff, so the config is lossy by design. The empty table
// did not count as "no profile keeps xoff", and lint said "PFC is off on
// every priority" at error on a stock SKU.
func TestLossyByDesignEmptyBufferProfile(t *testing.T) {
	rep := lintFiles(t, "../../testdata/corpus/sonic/buildimage-render-dell-z9432f-o32-t1-qos-buffers-synthetic-ports.json")
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "qos.lossy.by_design" || rep.Findings[0].Severity != doctor.Warn {
		t.Fatalf("findings %v, want qos.lossy.by_design warn alone", ids(rep))
	}
	if f := rep.Findings[0]; !strings.Contains(f.Title, "no buffer profile keeps PFC headroom (xoff)") {
		t.Errorf("title %q", f.Title)
	}
	// A qos.json alone (no BUFFER_PROFILE table) does not say whether a
	// profile keeps xoff: PFC left off there is still a forgotten field,
	// once its DSCP_TO_TC_MAP tells one class from another (Dell's sends
	// all 64 DSCP values to class 0, itself a lossy design; here DSCP 26
	// goes to class 3).
	data, err := os.ReadFile("../../testdata/corpus/sonic/buildimage-render-dell-z9432f-o32-t1-qos-buffers-synthetic-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`(?m)^\s*"BUFFER_PROFILE": \{\},\n`).ReplaceAllString(string(data), "")
	if text == string(data) || !strings.Contains(text, `"26": "0",`) {
		t.Fatal("no empty BUFFER_PROFILE table to drop, or no DSCP 26 in class 0")
	}
	text = strings.Replace(text, `"26": "0",`, `"26": "3",`, 1)
	rep = lintFiles(t, tempFile(t, "qos.json", text))
	got := ids(rep)
	if _, off := got["qos.pfc.disabled"]; !off {
		t.Errorf("without BUFFER_PROFILE: %v, want qos.pfc.disabled", got)
	}
}

// Under the dynamic buffer model, and for a BUFFER_PG row naming profile
// NULL, buffermgrd computes the lossless profiles at run time and never
// writes them to config_db: an empty BUFFER_PROFILE there does not say no
// profile keeps xoff, so PORT_QOS_MAP rows without pfc_enable are PFC
// forgotten (qos.pfc.disabled), not lossy by design. Celestica DS2000's
// render, changed so.
func TestLossyByDesignRuntimeProfiles(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/sonic/buildimage-render-celestica-ds2000-t1-qos-buffers-synthetic-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		model  string
		nullPG bool
	}{{"dynamic, NULL rows", "dynamic", true}, {"NULL rows", "traditional", true}, {"dynamic", "dynamic", false}} {
		var cfg map[string]map[string]any
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		cfg["DEVICE_METADATA"]["localhost"].(map[string]any)["buffer_model"] = c.model
		for _, row := range cfg["PORT_QOS_MAP"] {
			delete(row.(map[string]any), "pfc_enable")
		}
		cfg["BUFFER_PROFILE"] = map[string]any{}
		cfg["BUFFER_PG"] = map[string]any{}
		if c.nullPG {
			for port := range cfg["PORT"] {
				cfg["BUFFER_PG"][port+"|3-4"] = map[string]any{"profile": "NULL"}
			}
		}
		text, err := json.MarshalIndent(cfg, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		got := ids(lintFiles(t, tempFile(t, "config_db.json", string(text))))
		if _, lossy := got["qos.lossy.by_design"]; lossy {
			t.Errorf("%s: %v, want no qos.lossy.by_design", c.name, got)
		}
		if _, off := got["qos.pfc.disabled"]; !off {
			t.Errorf("%s: %v, want qos.pfc.disabled", c.name, got)
		}
	}
}

// The dynamic buffer model only explains an EMPTY BUFFER_PROFILE table: a
// config that writes its own profiles, none keeping xoff, and pfc_enable ""
// on every port is lossy by design under either model. Celestica DS2000's
// render (lossy profiles only), changed so, with no NULL BUFFER_PG rows.
func TestLossyByDesignDynamicOwnProfiles(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/sonic/buildimage-render-celestica-ds2000-t1-qos-buffers-synthetic-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["DEVICE_METADATA"]["localhost"].(map[string]any)["buffer_model"] = "dynamic"
	for _, row := range cfg["PORT_QOS_MAP"] {
		row.(map[string]any)["pfc_enable"] = ""
	}
	text, err := json.MarshalIndent(cfg, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	rep := lintFiles(t, tempFile(t, "config_db.json", string(text)))
	got := ids(rep)
	if _, off := got["qos.pfc.disabled"]; off {
		t.Errorf("%v, want no qos.pfc.disabled", got)
	}
	found := false
	for _, f := range rep.Findings {
		if f.ID == "qos.lossy.by_design" {
			found = true
			if f.Severity != doctor.Warn {
				t.Errorf("qos.lossy.by_design severity %v, want warn", f.Severity)
			}
		}
	}
	if !found {
		t.Errorf("%v, want qos.lossy.by_design", got)
	}
}

// TestLossyOneClass: Marvell's d64p512t qos_defaults_def_lossy.j2 (real,
// rendered) writes no pfc_enable and no buffer table, and a DSCP_TO_TC_MAP
// sending all 64 DSCP values to class 0: no class can be kept lossless
// apart from the rest, so the template is lossy by design, one warning,
// not qos.pfc.disabled's "PFC forgotten" error.
func TestLossyOneClass(t *testing.T) {
	var ids []string
	var design doctor.Finding
	for _, fd := range lintFiles(t, filepath.Join("..", "..", "testdata", "corpus", "sonic", "buildimage-render-marvell-d64p512t-64x800g-qos_defaults_def_lossy-synthetic-ports.json")).Findings {
		ids = append(ids, fd.ID)
		if fd.ID == "qos.lossy.by_design" {
			design = fd
		}
	}
	if slices.Contains(ids, "qos.pfc.disabled") || design.Severity != doctor.Warn ||
		!strings.Contains(design.Title, "every DSCP lands in one traffic class (DSCP_TO_TC_MAP)") ||
		!strings.HasSuffix(design.Title, "RoCE (DSCP 26, assumed) lands in class 0") {
		t.Fatalf("%v: %+v", ids, design)
	}
}
