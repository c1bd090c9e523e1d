package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// orchagent applies only dscp_to_tc_map of PORT_QOS_MAP|global and skips
// its other fields, so a TC_TO_PRIORITY_GROUP_MAP named there is no
// port's: the sonic-tc-pg-lossy case (TC 3 to PG 0) with its map moved
// from Ethernet0 and Ethernet4 to the global row leaves the ports SAI's
// default, no judged PG, and no pfc.pg.lossy.
func TestClassPathGlobalMapsNotPorts(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-tc-pg-lossy", "bad", "sn4600c-c64-t1-qos-buffers-edited-synthetic.json")
	text := readText(t, src)
	if rep := lintFiles(t, src); !hasID(rep, "pfc.pg.lossy") {
		t.Fatalf("the case itself: no pfc.pg.lossy in %v", rep.Findings)
	}
	const global = "\"global\": {\n            \"dscp_to_tc_map\": \"AZURE\"\n        },"
	const port = "\"tc_to_pg_map\": \"AZURE\",\n"
	if !strings.Contains(text, global) || strings.Count(text, port) != 2 {
		t.Fatal("the case's PORT_QOS_MAP rows changed")
	}
	text = strings.Replace(text, global, "\"global\": {\n            \"dscp_to_tc_map\": \"AZURE\",\n            \"tc_to_pg_map\": \"AZURE\"\n        },", 1)
	text = strings.ReplaceAll(text, port, "")
	moved := filepath.Join(t.TempDir(), "global-tc-pg.json")
	if err := os.WriteFile(moved, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := lintFiles(t, moved); hasID(rep, "pfc.pg.lossy") {
		t.Errorf("pfc.pg.lossy from the global row's tc_to_pg_map, which orchagent does not apply to ports")
	}
}

func hasID(rep *doctor.Report, id string) bool {
	_, ok := ids(rep)[id]
	return ok
}

// A port with no QUEUE row for RoCE's queue while it has one for its other
// lossless queue leaves RoCE unmarked (ecn.disabled, naming the profile
// the other queue carries); a port whose rows are all for lossy queues
// says nothing of ECN. SONiC's rendered SN4600C QoS with QUEUE rows cut.
func TestClassPathQueueRowMissing(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-ecn-queue-unmarked", "fixed", "sn4600c-c64-t1-qos-buffers.json")
	data := readText(t, src)
	cut := func(text string, queue int) string {
		for _, port := range []string{"Ethernet0", "Ethernet4"} {
			row := fmt.Sprintf("        \"%s|%d\": {\n            \"scheduler\": \"scheduler.1\",\n            \"wred_profile\": \"AZURE_LOSSLESS\"\n        },\n", port, queue)
			if !strings.Contains(text, row) {
				t.Fatalf("no QUEUE row %s|%d", port, queue)
			}
			text = strings.Replace(text, row, "", 1)
		}
		return text
	}
	lint := func(text string) []doctor.Finding { return lintText(t, text, "ecn.disabled") }
	no3 := cut(data, 3)
	if fs := lint(no3); len(fs) != 1 || fs[0].Severity != doctor.Warn || !strings.Contains(fs[0].Title, "Ethernet0,Ethernet4: RoCE's queue 3 has no WRED profile") || !strings.Contains(fs[0].Title, "(the port has AZURE_LOSSLESS on queue 4)") {
		t.Errorf("queue 3's rows cut: %v, want one ecn.disabled on queue 3 naming queue 4's profile", fs)
	}
	if fs := lint(cut(no3, 4)); len(fs) != 0 {
		t.Errorf("queues 3 and 4's rows cut: %v, want no ecn.disabled (the rows left are lossy queues')", fs)
	}
}

// The WRED profile judged for RoCE is the one on the queue tc_to_queue_map
// sends RoCE's class to: SONiC's rendered SN4600C QoS with class 3 sent
// to queue 5, whose row on Ethernet0 names a profile without ecn (WRED
// drops there), while queue 3 keeps its marking AZURE_LOSSLESS.
func TestClassPathECNModeOnMappedQueue(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-ecn-queue-unmarked", "fixed", "sn4600c-c64-t1-qos-buffers.json")
	text := readText(t, src)
	for _, e := range []struct{ from, to string }{
		{"\"TC_TO_QUEUE_MAP\": {\n        \"AZURE\": {\n            \"0\": \"0\",\n            \"1\": \"1\",\n            \"2\": \"2\",\n            \"3\": \"3\",",
			"\"TC_TO_QUEUE_MAP\": {\n        \"AZURE\": {\n            \"0\": \"0\",\n            \"1\": \"1\",\n            \"2\": \"2\",\n            \"3\": \"5\","},
		{"\"Ethernet0|5\": {\n            \"scheduler\": \"scheduler.0\"\n",
			"\"Ethernet0|5\": {\n            \"scheduler\": \"scheduler.0\",\n            \"wred_profile\": \"AZURE_DROP\"\n"},
		{"\"WRED_PROFILE\": {\n",
			"\"WRED_PROFILE\": {\n        \"AZURE_DROP\": {\n            \"wred_green_enable\": \"true\",\n            \"green_max_threshold\": \"10000000\",\n            \"green_min_threshold\": \"2000000\",\n            \"green_drop_probability\": \"5\"\n        },\n"},
	} {
		if strings.Count(text, e.from) != 1 {
			t.Fatalf("the case changed: %q", e.from)
		}
		text = strings.Replace(text, e.from, e.to, 1)
	}
	f := filepath.Join(t.TempDir(), "queue5.json")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fd := range lintFiles(t, f).Findings {
		if fd.ID == "ecn.disabled" && fd.Severity == doctor.Error {
			got = append(got, fd.Title)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "AZURE_DROP (on Ethernet0, queue 5): no ecn field") {
		t.Errorf("ecn.disabled errors %q, want one on AZURE_DROP, queue 5", got)
	}
}

// lintText lints text as a config_db.json and returns its findings of id.
func lintText(t *testing.T, text, id string) []doctor.Finding {
	t.Helper()
	var out []doctor.Finding
	for _, fd := range lintFiles(t, tempFile(t, "edited.json", text)).Findings {
		if fd.ID == id {
			out = append(out, fd)
		}
	}
	return out
}

// tempFile writes text to a file named name in a test directory.
func tempFile(t *testing.T, name, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// readText returns the text of the file at path.
func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// pfc.pg.unpaused on NVIDIA's SONiC documentation example (pfc_enable
// 3,4; TC_TO_PRIORITY_GROUP_MAP and PFC_PRIORITY_TO_PRIORITY_GROUP_MAP 3
// → 3, 4 → 4) with one entry edited at a time. Priority 3 sent to PG 0
// while RoCE fills PG 3 is judged by SAI's reading (no pause of 3 when PG
// 3 fills), except on a Spectrum platform, whose SAI leaves PG 3's
// priority alone when no entry names it; priority 4 named for PG 3 too
// pauses both from PG 3 and is sound. Each fix moves the pause to RoCE's
// group, or RoCE's class to the lossless group whose fill pauses its
// priority.
func TestClassPathPFCToPG(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-pfc-pg-unpaused", "fixed", "nvidia-doc-new-cfg.json")
	text := readText(t, src)
	const pfcToPG = "\"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP\": {\n        \"AZURE\": {\n            \"3\": \"3\",\n            \"4\": \"4\"\n        }"
	if !strings.Contains(text, pfcToPG) {
		t.Fatal("the case's PFC_PRIORITY_TO_PRIORITY_GROUP_MAP changed")
	}
	lint := func(entries, platform string) []doctor.Finding {
		edited := strings.Replace(text, pfcToPG, "\"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP\": {\n        \"AZURE\": {\n"+entries+"\n        }", 1)
		if platform != "" {
			edited = strings.Replace(edited, "{", "{\n    \"DEVICE_METADATA\": {\"localhost\": {\"platform\": \""+platform+"\"}},", 1)
		}
		return lintText(t, edited, "pfc.pg.unpaused")
	}
	for _, c := range []struct {
		entries, platform, title, fix string
	}{
		{`"3": "0", "4": "4"`, "", "Ethernet0: RoCE's class 3 is counted in priority group 3 (tc_to_pg_map AZURE), but pfc_to_pg_map AZURE sends a PFC pause of priority 3 when priority group 0 fills", `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|AZURE "3": "3"`},
		{`"3": "0", "4": "4"`, "x86_64-mlnx_msn2700-r0", "", ""},
		{`"3": "0", "4": "4"`, "x86_64-dellemc_z9332f_d1508-r0", "Ethernet0: RoCE's class 3 is counted in priority group 3 (tc_to_pg_map AZURE), but pfc_to_pg_map AZURE sends a PFC pause of priority 3 when priority group 0 fills", `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|AZURE "3": "3"`},
		{`"3": "4", "4": "3"`, "x86_64-mlnx_msn2700-r0", "Ethernet0: RoCE's class 3 is counted in priority group 3 (tc_to_pg_map AZURE), whose fill sends a PFC pause of priority 4, not 3 (pfc_to_pg_map AZURE)", `TC_TO_PRIORITY_GROUP_MAP|AZURE "3": "4", the lossless priority group`},
		{`"3": "3", "4": "3"`, "", "", ""},
		{`"4": "4"`, "", "", ""},
	} {
		fs := lint(c.entries, c.platform)
		switch {
		case c.title == "" && len(fs) != 0:
			t.Errorf("%s on %q: %v, want no pfc.pg.unpaused", c.entries, c.platform, fs)
		case c.title != "" && (len(fs) != 1 || !strings.Contains(fs[0].Title, c.title) || !strings.Contains(fs[0].Fix, c.fix) || fs[0].Severity != doctor.Error):
			t.Errorf("%s on %q: %v, want one error %q, fix %q", c.entries, c.platform, fs, c.title, c.fix)
		}
	}
}

// A switch config alone gives RoCE's DSCP as 26 when its map keeps 26
// lossless (AMD's Dell Z9664f sonic-cli example: 24 and 26 in class 3, 4
// in class 4), not the lowest lossless DSCP (4): the edited example's
// pause of priority 3 from group 7 is found with no NIC input.
func TestInferDSCP26(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-cli-pfc-pg-unpaused", "bad", "rocm-dell-z9664f-enterprise-sonic-dcqcn-edited-synthetic.cfg")
	var got []string
	for _, f := range lintFiles(t, src).Findings {
		if f.ID == "pfc.pg.unpaused" {
			got = append(got, f.Title)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "RoCE's class 3 is counted in priority group 3") {
		t.Errorf("pfc.pg.unpaused %q, want one on class 3", got)
	}
	m := &Model{}
	if _, err := m.read(src, nil); err != nil {
		t.Fatal(err)
	}
	if r := m.roceDSCP(); r.DSCP != 26 || !strings.Contains(r.From, ": DSCP 26, the usual RoCE marking (NCCL_IB_TC=106), which its map ") {
		t.Errorf("RoCE's DSCP %d from %q, want 26 named as the usual marking", r.DSCP, r.From)
	}
}

// A public RoCE-on-SONiC proof of concept's QoS tables put PG 3 of its
// pfc_enable 3 ports on a profile without xoff, and name no tc_to_pg_map.
// Whether that PG keeps headroom depends on who writes the row: the
// dynamic buffer model keeps it lossy (error); the traditional model
// writes its own lossless profile over it from the port's cable length
// (no finding), but not for a 0m cable (error); a fragment that says
// neither gives a warning.
func TestClassPathOwnPGNoHeadroom(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-pg-no-headroom", "bad", "roceonsonic-qos_config_template.json")
	text := readText(t, src)
	const head = "{\n    \"BUFFER_POOL\": {"
	if !strings.HasPrefix(text, head) {
		t.Fatal("the case's first table changed")
	}
	with := func(tables string) string { return "{\n" + tables + ",\n" + strings.TrimPrefix(text, "{\n") }
	const meta = `"DEVICE_METADATA": {"localhost": {"buffer_model": "%s"}}`
	const cable = `"CABLE_LENGTH": {"AZURE": {"Ethernet0": "%s", "Ethernet4": "%[1]s"}}`
	for _, tc := range []struct {
		name, text string
		want       doctor.Severity // 0: no finding
	}{
		{"fragment", text, doctor.Warn},
		{"dynamic", with(fmt.Sprintf(meta, "dynamic")), doctor.Error},
		{"dynamic with cable", with(fmt.Sprintf(meta, "dynamic") + ",\n" + fmt.Sprintf(cable, "5m")), doctor.Error},
		{"traditional with cable", with(fmt.Sprintf(meta, "traditional") + ",\n" + fmt.Sprintf(cable, "5m")), 0},
		{"traditional 0m", with(fmt.Sprintf(meta, "traditional") + ",\n" + fmt.Sprintf(cable, "0m")), doctor.Error},
		{"cable, model unsaid", with(fmt.Sprintf(cable, "5m")), doctor.Warn},
	} {
		wantPGLossy(t, tc.name, lintText(t, tc.text, "pfc.pg.lossy"), tc.want, "Ethernet0,Ethernet4: pfc_enable has priority 3, but BUFFER_PG puts priority group 3, the one SONiC keeps lossless for it, on profile ingress_lossless_profile")
	}
}

// wantPGLossy checks the pfc.pg.lossy findings of one variant: none when
// want is 0, else one at want whose title holds title.
func wantPGLossy(t *testing.T, name string, fs []doctor.Finding, want doctor.Severity, title string) {
	t.Helper()
	switch {
	case want == 0 && len(fs) != 0:
		t.Errorf("%s: %v, want no pfc.pg.lossy", name, fs)
	case want != 0 && (len(fs) != 1 || fs[0].Severity != want):
		t.Errorf("%s: %v, want one pfc.pg.lossy at %v", name, fs, want)
	case want != 0 && !strings.Contains(fs[0].Title, title):
		t.Errorf("%s: title %q", name, fs[0].Title)
	}
}

// The same ports given a tc_to_pg_map that counts class 3 in priority
// group 3 (a SYNTHETIC edit) reach that lossy row by the map instead:
// the finding then takes the map's path, and must weigh buffermgrd's
// rewrite of the row as the path without a map does. Before, it was an
// error whatever the buffer model.
func TestClassPathMappedPGRewritten(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-pg-no-headroom", "bad", "roceonsonic-qos_config_template.json")
	text := readText(t, src)
	const pfc = `"pfc_enable": "3"`
	if strings.Count(text, pfc) != 2 || !strings.HasPrefix(text, "{\n") {
		t.Fatal("the case's PORT_QOS_MAP rows changed")
	}
	mapped := strings.ReplaceAll(text, pfc, pfc+`, "tc_to_pg_map": "AZURE"`)
	with := func(tables string) string {
		return "{\n" + `"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "3": "3"}},` + "\n" + tables + strings.TrimPrefix(mapped, "{\n")
	}
	const meta = `"DEVICE_METADATA": {"localhost": {"buffer_model": "%s"}},` + "\n"
	const cable = `"CABLE_LENGTH": {"AZURE": {"Ethernet0": "%s", "Ethernet4": "%[1]s"}},` + "\n"
	for _, tc := range []struct {
		name, text string
		want       doctor.Severity // 0: no finding
	}{
		{"fragment", with(""), doctor.Warn},
		{"dynamic with cable", with(fmt.Sprintf(meta, "dynamic") + fmt.Sprintf(cable, "5m")), doctor.Error},
		{"traditional with cable", with(fmt.Sprintf(meta, "traditional") + fmt.Sprintf(cable, "5m")), 0},
		{"traditional 0m", with(fmt.Sprintf(meta, "traditional") + fmt.Sprintf(cable, "0m")), doctor.Error},
	} {
		wantPGLossy(t, tc.name, lintText(t, tc.text, "pfc.pg.lossy"), tc.want, "Ethernet0,Ethernet4: RoCE's class 3 is counted in priority group 3 (tc_to_pg_map AZURE), which keeps no PFC headroom")
	}
}

// A port that binds no dscp_to_tc_map, where the config defines one and no
// global row binds it, keeps class 0 for RoCE (qos.pfc.disabled); the
// global row's map, or a dot1p_to_tc_map on the port, classifies it, and a
// fragment without DSCP_TO_TC_MAP says nothing of classes.
func TestUnboundDSCPMap(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-dscp-map-unbound", "bad", "sn4600c-c64-t1-qos-buffers-edited-synthetic.json")
	text := readText(t, src)
	const port = "\"Ethernet4\": {\n            \"tc_to_queue_map\": \"AZURE\","
	const first = "\"PORT_QOS_MAP\": {\n        \"Ethernet0\": {"
	if !strings.Contains(text, port) || !strings.Contains(text, first) {
		t.Fatal("the case's PORT_QOS_MAP rows changed")
	}
	fs := lintText(t, text, "qos.pfc.disabled")
	if len(fs) != 1 || !strings.Contains(fs[0].Title, "Ethernet4: RoCE (DSCP 3) lands in class 0 (its PORT_QOS_MAP rows bind no dscp_to_tc_map") {
		t.Fatalf("the case: %v", fs)
	}
	for name, edited := range map[string]string{
		"global map": strings.Replace(text, first, "\"PORT_QOS_MAP\": {\n        \"global\": {\"dscp_to_tc_map\": \"AZURE\"},\n        \"Ethernet0\": {", 1),
		"dot1p map":  strings.Replace(text, port, "\"Ethernet4\": {\n            \"dot1p_to_tc_map\": \"AZURE\",\n            \"tc_to_queue_map\": \"AZURE\",", 1),
	} {
		if fs := lintText(t, edited, "qos.pfc.disabled"); len(fs) != 0 {
			t.Errorf("%s: %v", name, fs)
		}
	}
	// The global row's map is read for the ports that name none, wherever
	// the row sorts: with PFC off on Ethernet4, RoCE's class there is
	// known (3, unpaused: an error), not "not given".
	global := strings.Replace(text, first, "\"PORT_QOS_MAP\": {\n        \"global\": {\"dscp_to_tc_map\": \"AZURE\"},\n        \"Ethernet0\": {", 1)
	i := strings.LastIndex(global, "\"pfc_enable\": \"3,4\"")
	global = global[:i] + "\"pfc_enable\": \"\"" + global[i+len("\"pfc_enable\": \"3,4\""):]
	if fs := lintText(t, global, "qos.pfc.disabled"); len(fs) != 1 || !strings.HasSuffix(fs[0].Title, "Ethernet4: PFC is off on every priority") || fs[0].Severity != doctor.Error {
		t.Errorf("global map, Ethernet4 PFC off: %v", fs)
	}
	frag := filepath.Join("..", "..", "testdata", "lint", "sonic-pg-no-headroom", "bad", "roceonsonic-qos_config_template.json")
	if fs := lintText(t, readText(t, frag), "qos.pfc.disabled"); len(fs) != 0 {
		t.Errorf("a fragment without DSCP_TO_TC_MAP: %v", fs)
	}
}

// RoCE's queue on a profile of the lossy egress pool is judged only where
// the config keeps an egress lossless pool and the profile draws on a
// lossy one: SONiC's Spectrum SKUs whose egress_lossy_profile draws on
// egress_lossless_pool (one shared egress pool) say nothing.
func TestEgressLossyQueue(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lint", "sonic-queue-egress-lossy", "bad", "sn4600c-c64-t1-qos-buffers-queues-edited-synthetic.json")
	text := readText(t, src)
	if fs := lintText(t, text, "pfc.queue.egress_lossy"); len(fs) != 1 || !strings.Contains(fs[0].Title, "Ethernet4: RoCE's queue 3 takes its egress buffer from egress_lossy_pool (BUFFER_QUEUE profile egress_lossy_profile)") {
		t.Fatalf("the case: %v", fs)
	}
	const pool = "\"egress_lossy_profile\": {\n            \"pool\": \"egress_lossy_pool\","
	if !strings.Contains(text, pool) {
		t.Fatal("the case's egress_lossy_profile changed")
	}
	shared := strings.Replace(text, pool, "\"egress_lossy_profile\": {\n            \"pool\": \"egress_lossless_pool\",", 1)
	if fs := lintText(t, shared, "pfc.queue.egress_lossy"); len(fs) != 0 {
		t.Errorf("one shared egress pool: %v", fs)
	}
	const lossless = "\"egress_lossless_pool\": {\n            \"size\": \"60817392\",\n            \"type\": \"egress\""
	if !strings.Contains(text, lossless) {
		t.Fatal("the case's egress_lossless_pool changed")
	}
	noLossless := strings.Replace(text, lossless, strings.Replace(lossless, "\"egress\"", "\"ingress\"", 1), 1)
	if fs := lintText(t, noLossless, "pfc.queue.egress_lossy"); len(fs) != 0 {
		t.Errorf("no egress pool for lossless queues: %v", fs)
	}
}

// TestLintDynamicPGUnsized joins two real sonic-buildimage renderings for
// the SN4600C (qos.json and the dynamic buffer model's buffers.json: RoCE's
// priority groups 3-4 "NULL", which buffermgrd sizes from each port's
// speed and cable length) into one CONFIG_DB: as rendered, nothing is
// wrong. With Ethernet0's cable length removed, or Ethernet4's set to 0m,
// buffermgrd computes no lossless profile for their groups (sonic-swss
// buffermgrdyn.cpp), and pfc.pg.lossy says so at the CABLE_LENGTH table or
// the 0m entry; so with a headroom_type dynamic profile in the row's
// place. Before, lint took every "NULL" row as lossless.
func TestLintDynamicPGUnsized(t *testing.T) {
	qos := strings.TrimSpace(readText(t, filepath.Join(stockDir, "qos-mellanox4600c-c64.json")))
	buf := readText(t, filepath.Join(stockDir, "buffers-mellanox4600c-t1-dynamic.json"))
	joined := strings.TrimSuffix(qos, "}") + ",\n" + buf[strings.Index(buf, "{")+1:]
	lossy := func(text string) []doctor.Finding {
		var out []doctor.Finding
		for _, fd := range lintFiles(t, tempFile(t, "config_db.json", text)).Findings {
			if fd.ID == "pfc.pg.lossy" {
				out = append(out, fd)
			}
		}
		return out
	}
	if fs := lossy(joined); len(fs) != 0 {
		t.Fatalf("as rendered: %s", fs[0].Title)
	}
	// What buffermgrd computes is not in CONFIG_DB: said once, with the
	// pools the rendering leaves without a size.
	var said []string
	for _, fd := range lintFiles(t, tempFile(t, "config_db.json", joined)).Findings {
		said = append(said, fd.ID+": "+fd.Title)
	}
	if len(said) != 1 || !strings.Contains(said[0], "config.not_judged: ") || !strings.Contains(said[0], "(the dynamic buffer model)") || !strings.Contains(said[0], "ingress_lossless_pool") {
		t.Errorf("as rendered: %q, want one config.not_judged naming the dynamic buffer model and ingress_lossless_pool", said)
	}
	// A profile with headroom_type dynamic (`config buffer profile add
	// --dynamic_th`) is sized as "NULL" is.
	const pg0 = "\"Ethernet0|3-4\": {\n            \"profile\" : \"NULL\""
	const profiles = "\"BUFFER_PROFILE\": {\n"
	if !strings.Contains(joined, pg0) || !strings.Contains(joined, profiles) {
		t.Fatal("no Ethernet0|3-4 NULL row or BUFFER_PROFILE table in the rendering")
	}
	ownProfile := strings.Replace(strings.Replace(joined, pg0, strings.Replace(pg0, "NULL", "roce_dyn", 1), 1),
		profiles, profiles+"        \"roce_dyn\": {\"pool\": \"ingress_lossless_pool\", \"headroom_type\": \"dynamic\", \"dynamic_th\": \"0\"},\n", 1)
	for _, c := range []struct{ text, from, to, port, why, at string }{
		{joined, `"Ethernet0": "300m",`, ``, "Ethernet0", "no cable length", `"CABLE_LENGTH"`},
		{joined, `"Ethernet4": "300m",`, `"Ethernet4": "0m",`, "Ethernet4", "cable length 0m", `"Ethernet4": "0m"`},
		{ownProfile, `"Ethernet0": "300m",`, ``, "Ethernet0", "no cable length", `"CABLE_LENGTH"`},
	} {
		if !strings.Contains(c.text, c.from) {
			t.Fatalf("no %s in the rendering", c.from)
		}
		fs := lossy(strings.Replace(c.text, c.from, c.to, 1))
		if len(fs) != 1 || fs[0].Severity != doctor.Error || !strings.HasSuffix(fs[0].Subject, "config_db.json "+c.port) || !strings.Contains(fs[0].Title, "has "+c.why+":") {
			t.Errorf("%s: %v, want one error on %s saying %q", c.why, fs, c.port, c.why)
			continue
		}
		if !slices.ContainsFunc(fs[0].Evidence, func(e doctor.Evidence) bool { return strings.Contains(e.Text, c.at) }) {
			t.Errorf("%s: evidence %v does not quote %s", c.why, fs[0].Evidence, c.at)
		}
	}
	// A PORT table (synthetic: the rendering holds none) whose rows give
	// the ports' speeds: as rendered, sized; with one row's speed deleted
	// that port has "no speed", its PORT row quoted; with two deleted, one
	// finding on both quotes both rows, not only the last port's.
	const speed0, speed4 = `"Ethernet0": {"mtu": "9100", "speed": "100000"}`, `"Ethernet4": {"mtu": "9100", "speed": "100000"}`
	withPort := "{\n    \"PORT\": {\n        " + speed0 + ",\n        " + speed4 + "\n    }," + strings.TrimPrefix(joined, "{")
	noSpeed := func(text, row string) string {
		return strings.Replace(text, row, strings.Replace(row, `, "speed": "100000"`, "", 1), 1)
	}
	if fs := lossy(withPort); len(fs) != 0 {
		t.Errorf("with speeds: %s", fs[0].Title)
	}
	quotes := func(fd doctor.Finding, port string) bool {
		return slices.ContainsFunc(fd.Evidence, func(e doctor.Evidence) bool {
			return strings.Contains(e.Text, `"`+port+`": {"mtu": "9100"}`)
		})
	}
	fs := lossy(noSpeed(withPort, speed0))
	if len(fs) != 1 || !strings.HasSuffix(fs[0].Subject, "config_db.json Ethernet0") || !strings.Contains(fs[0].Title, "has no speed:") || !quotes(fs[0], "Ethernet0") {
		t.Errorf("Ethernet0 without a speed: %v, want one finding on Ethernet0 saying no speed and quoting its PORT row", fs)
	}
	fs = lossy(noSpeed(noSpeed(withPort, speed0), speed4))
	if len(fs) != 1 || !strings.HasSuffix(fs[0].Subject, "config_db.json Ethernet0,Ethernet4") || !strings.Contains(fs[0].Title, "has no speed:") {
		t.Fatalf("Ethernet0 and Ethernet4 without a speed: %v, want one finding on both saying no speed", fs)
	}
	if !quotes(fs[0], "Ethernet0") || !quotes(fs[0], "Ethernet4") {
		t.Errorf("Ethernet0 and Ethernet4 without a speed: evidence %v, want both PORT rows", fs[0].Evidence)
	}
}
