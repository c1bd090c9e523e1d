package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestLintMultiASIC lints a multi-ASIC dump as `show runningconfiguration
// all` prints it ({"localhost": {...}, "asic0": {...}}), put together at
// run time from two real sonic-utilities files (the host's config_db of
// the stock corpus and asic0's of testdata/): each namespace is linted as
// the config it is, so the findings are those of the two files alone, each
// named for its namespace. Before, the namespaces were tables lint does not
// read, and it reported nothing.
func TestLintMultiASIC(t *testing.T) {
	host := filepath.Join(stockDir, "utilities-mock_tables-config_db.json")
	asic := filepath.Join("testdata", "util-mock-asic0-config_db.json")
	var parts [][]byte
	var alone []string
	for _, f := range []string{host, asic} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, data)
		rep, err := Lint([]string{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range rep.Findings {
			alone = append(alone, fd.ID+" "+strings.ReplaceAll(fd.Title, f, "X"))
		}
	}
	if len(alone) == 0 {
		t.Fatal("the two files alone give no finding: nothing to compare")
	}
	dump := filepath.Join(t.TempDir(), "running.json")
	text := "{\n\"localhost\": " + string(parts[0]) + ",\n\"asic0\": " + string(parts[1]) + "\n}\n"
	if err := os.WriteFile(dump, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{dump}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var joined []string
	for _, fd := range rep.Findings {
		title := strings.ReplaceAll(strings.ReplaceAll(fd.Title, dump+" localhost", "X"), dump+" asic0", "X")
		joined = append(joined, fd.ID+" "+title)
		for _, e := range fd.Evidence {
			if e.File != dump || e.Line < 3 {
				t.Errorf("%s: evidence %s:%d, want a line of %s", fd.ID, e.File, e.Line, dump)
			}
		}
	}
	slices.Sort(alone)
	slices.Sort(joined)
	if !slices.Equal(alone, joined) {
		t.Errorf("multi-ASIC dump:\n%s\nthe files alone:\n%s", strings.Join(joined, "\n"), strings.Join(alone, "\n"))
	}
}

// On a multi-ASIC switch the host's namespace holds DEVICE_METADATA and
// no QoS table, the ASICs' namespaces the QoS: a dump of both (`show
// runningconfiguration all`) says nothing missing of the host, where
// config.qos.absent named "localhost" before. Host: sonic-utilities'
// multi-ASIC override input; ASIC: its asic0 mock CONFIG_DB.
func TestLintMultiASICHostHasNoQoS(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "util-override-multi_asic_dm_gen_sysinfo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var override map[string]json.RawMessage
	if err := json.Unmarshal(data, &override); err != nil {
		t.Fatal(err)
	}
	asic, err := os.ReadFile(filepath.Join("testdata", "util-mock-asic0-config_db.json"))
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "running.json")
	text := "{\n\"localhost\": " + string(override["localhost"]) + ",\n\"asic0\": " + string(asic) + "\n}\n"
	if err := os.WriteFile(dump, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{dump}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range rep.Findings {
		if fd.ID == "config.qos.absent" {
			t.Errorf("%s: %s", fd.ID, fd.Title)
		}
	}
	// The host alone still says its QoS is absent.
	alone := filepath.Join(t.TempDir(), "host.json")
	if err := os.WriteFile(alone, []byte("{\"localhost\": "+string(override["localhost"])+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Lint([]string{alone}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "config.qos.absent" {
		t.Errorf("host alone: %v, want config.qos.absent", rep.Findings)
	}
}

// TestLintNotConfigDB: JSON that is not CONFIG_DB — a test's parameters
// (sonic-mgmt's dynamic_buffer_param.json), an APPL_DB dump (TABLE:key
// rows, sonic-utilities' db_migrator input) — is refused with the key that
// shows it, not linted as an empty config (exit 0 and no finding, before).
func TestLintNotConfigDB(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"mgmt-dynamic_buffer_param.json", `:2:5: "mellanox": expected CONFIG_DB tables`},
		{"util-appl_db-acs-msn2700-t0-v3_0_3.json", `:2:5: "BUFFER_PG_TABLE:Ethernet0:3-4": expected CONFIG_DB tables`},
		// STATE_DB's rows are keyed TABLE|key as CONFIG_DB's are: it read
		// as config.qos.absent ("none of the tables that set RoCE's class").
		{"util-mock-asic0-state_db.json", `:2:5: "TRANSCEIVER_INFO|Ethernet0": a STATE_DB dump`},
		// SONiC's database_config.json: upper-case INSTANCES and DATABASES
		// read as tables, and it passed for a config without QoS.
		{"swss-mock_tests-database_config.json", `:14:5: "DATABASES": SONiC's database_config.json`},
	} {
		_, err := Lint([]string{filepath.Join("testdata", c.file)}, nil)
		var bad *BadInputError
		if !errors.As(err, &bad) || !errors.Is(err, errNotConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal with %q", c.file, err, c.want)
		}
	}
	empty := filepath.Join(t.TempDir(), "config_db.json")
	if err := os.WriteFile(empty, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lint([]string{empty}, nil); err != nil {
		t.Errorf("an empty config is a config: %v", err)
	}
}

// TestLintECNMode: Centec's stock qos.json for the ES6428A puts
// AZURE_LOSSLESS on queues 3-4 with wred_green_enable true and no ecn field
// (ecn_none, the model's default): a drop profile on RoCE's lossless queue,
// an error that lint did not see before (it read neither field). The same
// file with the profile mended (ecn ecn_all) gives no ecn.disabled; with
// green left out of WRED (wred_green_enable false) nothing marks RoCE, a
// warning, unless the platform is NVIDIA Spectrum's, which marks anyway.
func TestLintECNMode(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(stockDir, "device-centec-ES6428A-X48Q2H4-qos.json"))
	if err != nil {
		t.Fatal(err)
	}
	const row = `"AZURE_LOSSLESS": {
            "wred_green_enable":"true",`
	if !strings.Contains(string(data), row) {
		t.Fatal("the stock file changed: no AZURE_LOSSLESS row as expected")
	}
	for _, c := range []struct {
		name, with string
		want       string // severity of ecn.disabled, "" for none
	}{
		{"stock", row, "error"},
		{"ecn_all", row + "\n            \"ecn\": \"ecn_all\",", ""},
		{"green off", strings.Replace(row, `"true"`, `"false"`, 1) + "\n            \"ecn\": \"ecn_all\",", "warn"},
		// The same on an NVIDIA Spectrum platform (a DEVICE_METADATA row
		// added to the Centec file, synthetic): Spectrum marks under the
		// ECN mode with WRED's drops off.
		{"green off, spectrum", strings.Replace(row, `"true"`, `"false"`, 1) + "\n            \"ecn\": \"ecn_all\",", ""},
	} {
		f := filepath.Join(t.TempDir(), "qos.json")
		text := strings.Replace(string(data), row, c.with, 1)
		if strings.HasSuffix(c.name, "spectrum") {
			text = strings.Replace(text, "{", `{"DEVICE_METADATA": {"localhost": {"platform": "x86_64-mlnx_msn2700-r0"}},`, 1)
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Lint([]string{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, fd := range rep.Findings {
			if fd.ID != "ecn.disabled" {
				continue
			}
			got = fd.Severity.String()
			if len(fd.Evidence) == 0 || fd.Evidence[0].Line == 0 || !strings.Contains(fd.Evidence[0].Text, "wred_green_enable") && !strings.Contains(fd.Evidence[0].Text, "ecn") {
				t.Errorf("%s: evidence %+v, want the profile's ecn or wred_green_enable line", c.name, fd.Evidence)
			}
		}
		if got != c.want {
			t.Errorf("%s: ecn.disabled %q, want %q", c.name, got, c.want)
		}
	}
}

// TestLintECNConfigRate: `ecnconfig -l` (the output sonic-utilities' tests
// expect) alone is judged at an assumed 100G, and the finding tells how to
// state the rate without naming diagnose's --nic-speed, which lint does not
// have; beside a config_db with PORT speeds (a real SN3800 one of
// sonic-utilities' db_migrator tests) it is judged at that speed, and the
// finding is a warning rather than information.
func TestLintECNConfigRate(t *testing.T) {
	ecn := filepath.Join("testdata", "util-ecnconfig-l.txt")
	db := filepath.Join("testdata", "util-dbmig-sn3800-c64-t1-v3_0_3.json")
	for _, c := range []struct {
		files []string
		sev   string
		how   string
	}{
		{[]string{ecn}, "info", "assumed: no input states a line rate (give the switch's config_db.json"},
		{[]string{ecn, db}, "warn", "100Gbps, the fastest PORT speed of " + db},
	} {
		rep, err := Lint(c.files, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, fd := range rep.Findings {
			if fd.ID != "switch.ecn.thresholds" || !strings.HasPrefix(fd.Subject, "AZURE_LOSSLESS") && !strings.Contains(fd.Title, "AZURE_LOSSLESS: Kmin") {
				continue
			}
			if fd.Evidence[0].File != ecn {
				continue
			}
			n++
			if fd.Severity.String() != c.sev || !strings.Contains(fd.Mechanism, c.how) || strings.Contains(fd.Mechanism, "--nic-speed") {
				t.Errorf("%v: %s %q", c.files, fd.Severity, fd.Mechanism)
			}
		}
		if n != 1 {
			t.Errorf("%v: %d findings on ecnconfig's AZURE_LOSSLESS, want 1", c.files, n)
		}
	}
}

// TestLintPastedDump: a config_db pasted with the command that printed it
// and the prompt after it (`admin@sonic:~$ show runningconfiguration all`,
// as NVIDIA's SONiC docs show it) was "no configuration lint reads" (.txt)
// or invalid JSON at 1:1 (.json); it is linted like the file, each
// finding's line one below the file's. The JSON is sonic-utilities' real
// mock config_db; the prompt lines are added here.
func TestLintPastedDump(t *testing.T) {
	file := filepath.Join(stockDir, "utilities-mock_tables-config_db.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Lint([]string{file}, nil)
	if err != nil || len(alone.Findings) == 0 {
		t.Fatalf("%v, %d findings", err, len(alone.Findings))
	}
	for _, ext := range []string{".txt", ".json"} {
		paste := filepath.Join(t.TempDir(), "paste"+ext)
		text := "admin@sonic:~$ show runningconfiguration all\n" + string(data) + "admin@sonic:~$ \n"
		if err := os.WriteFile(paste, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Lint([]string{paste}, nil)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if len(rep.Findings) != len(alone.Findings) {
			t.Fatalf("%s: %d findings, the file alone %d", ext, len(rep.Findings), len(alone.Findings))
		}
		for i, fd := range rep.Findings {
			a := alone.Findings[i]
			if fd.ID != a.ID || len(fd.Evidence) != len(a.Evidence) {
				t.Fatalf("%s: finding %d: %s, alone %s", ext, i, fd.ID, a.ID)
			}
			for j, e := range fd.Evidence {
				if e.Line != a.Evidence[j].Line+1 || e.Text != a.Evidence[j].Text {
					t.Errorf("%s: %s evidence %d: line %d %q, the file's %d %q", ext, fd.ID, j, e.Line, e.Text, a.Evidence[j].Line, a.Evidence[j].Text)
				}
			}
		}
	}
}

// TestLintPGProfileLookup: a pg_profile_lookup.ini (NVIDIA's for the
// SN2700, the Broadcom one Dell's S6000 links to) is refused with what it
// is and where its values are read, not "no configuration lint reads".
func TestLintPGProfileLookup(t *testing.T) {
	for _, f := range []string{"bi-mlnx-msn2700-pg_profile_lookup.ini", "bi-dell-s6000-pg_profile_lookup.ini"} {
		_, err := Lint([]string{filepath.Join("testdata", f)}, nil)
		if !errors.Is(err, errNotConfig) || !strings.Contains(err.Error(), "a pg_profile_lookup.ini (SONiC's static headroom table") {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestLintMinigraph: SONiC's minigraph.xml (Inventec D6556's, whole) is
// refused as a minigraph, with where its QoS is read, not "no
// configuration lint reads"; so is one behind an XML declaration, and a
// config_db JSON that names DeviceMiniGraph in a value is read as JSON.
func TestLintMinigraph(t *testing.T) {
	const want = "a SONiC minigraph (DeviceMiniGraph), which holds no QoS tables"
	src := filepath.Join("testdata", "bi-inventec-d6556-minigraph.xml")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	declared := filepath.Join(t.TempDir(), "minigraph.xml")
	if err := os.WriteFile(declared, append([]byte("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"), text...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{src, declared} {
		if _, err := Lint([]string{f}, nil); !errors.Is(err, errNotConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", f, err)
		}
	}
	named := filepath.Join(t.TempDir(), "config_db.json")
	if err := os.WriteFile(named, []byte(`{"DEVICE_METADATA": {"localhost": {"hostname": "<DeviceMiniGraph"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lint([]string{named}, nil); err != nil {
		t.Errorf("a config_db naming DeviceMiniGraph in a value: %v", err)
	}
}

// TestLintPFCFragment: the pfc.json of sonic-swss#842 (PORT_QOS_MAP with
// pfc_enable 0,1 and no DSCP map) beside a host whose mlnx_qos puts RoCE
// on priority 3 with PFC (the corpus' CX-5 blog dump): the switch ignores
// the NIC's pauses for 3. Lint said nothing before, as the switch's class
// for RoCE was unknown; with pfc_enable 3,4 it still says nothing.
func TestLintPFCFragment(t *testing.T) {
	nic := "../../testdata/corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"
	frag := "../sonic/testdata/public/issue-swss842-pfc.json"
	data, err := os.ReadFile(frag)
	if err != nil {
		t.Fatal(err)
	}
	mended := filepath.Join(t.TempDir(), "pfc.json")
	if err := os.WriteFile(mended, []byte(strings.Replace(string(data), `"pfc_enable": "0,1"`, `"pfc_enable": "3,4"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		switchFile string
		want       int
	}{{frag, 1}, {mended, 0}} {
		rep, err := Lint([]string{nic, c.switchFile}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, fd := range rep.Findings {
			if fd.ID == "qos.pfc.disabled" && strings.Contains(fd.Title, "puts RoCE on priority 3") {
				n++
				if last := fd.Evidence[len(fd.Evidence)-1]; last.Line != 4 || !strings.Contains(last.Text, `"pfc_enable": "0,1"`) {
					t.Errorf("evidence %+v, want the pfc_enable line", last)
				}
			}
		}
		if n != c.want {
			t.Errorf("%s: %d findings, want %d", c.switchFile, n, c.want)
		}
	}
}

// TestLintShowPFCPriority: `show pfc priority` (sonic-utilities' expected
// output, PFC on 3,4) beside the CX-5 host (RoCE on priority 3) agrees;
// with Ethernet4 changed to 4 alone, that port is reported. Before, the
// table was "no configuration lint reads".
func TestLintShowPFCPriority(t *testing.T) {
	nic := "../../testdata/corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"
	show := "../sonic/testdata/public/util-show-pfc-priority.txt"
	data, err := os.ReadFile(show)
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "show-pfc.txt")
	if err := os.WriteFile(changed, []byte(strings.Replace(string(data), "Ethernet4    3,4", "Ethernet4    4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		want []string
	}{{show, nil}, {changed, []string{"Ethernet4"}}} {
		rep, err := Lint([]string{nic, c.file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, fd := range rep.Findings {
			if fd.ID == "qos.pfc.disabled" {
				got = append(got, strings.TrimSuffix(strings.Fields(strings.TrimPrefix(fd.Title, c.file+" "))[0], ":"))
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: qos.pfc.disabled on %v, want %v", c.file, got, c.want)
		}
	}
}

// TestLintProfilesUnused: sonic-mgmt's fanout config for the Arista
// 7060CX-32S defines a WRED profile and buffer profiles but no QUEUE,
// BUFFER_PG or PORT_QOS_MAP row uses them: lint cannot judge them at any
// port's speed, and says so (it said 'No findings' before).
func TestLintProfilesUnused(t *testing.T) {
	rep, err := Lint([]string{filepath.Join("testdata", "mgmt-fanout-arista-7060cx32s.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "config.qos.absent" || !strings.Contains(rep.Findings[0].Title, "BUFFER_PROFILE, WRED_PROFILE without the tables") {
		t.Errorf("findings %v, want config.qos.absent naming the unused profiles", rep.Findings)
	}
}

// TestLintNCCLTestsJSON: an nccl-tests -J document is results, not a
// configuration. It was read as a config_db and refused for its
// "version" key ("this JSON is not a config_db"); it is now recognised as
// the doctor recognises it (ingest.IsNCCLTestsJSON) and sent to diagnose,
// whole or cut off.
func TestLintNCCLTestsJSON(t *testing.T) {
	for _, f := range []string{"allreduce-4x8-a100-as-found-twin.json", "allreduce-4x8-a100-as-found-cut-synthetic.json"} {
		path := filepath.Join("../../testdata/synthetic/nccltests-json", f)
		_, err := Lint([]string{path}, nil)
		var bad *BadInputError
		if !errors.As(err, &bad) || !errors.Is(err, errNotConfig) || !strings.Contains(err.Error(), "an nccl-tests JSON document (-J)") || !strings.Contains(err.Error(), "use rocelab diagnose "+path) || strings.Contains(err.Error(), "config_db") {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestLintAssumedDSCPSaid lints sonic-utilities' qos_map_table_input, whose
// DSCP map sends no DSCP to the lossless classes 3 and 4: RoCE's DSCP 26 is
// assumed, and the map leaves it out, so it lands in SONiC's default class
// 0. The finding says both instead of stating DSCP 26 and class 0 as read.
// With the NICs' DSCP given (NCCL_IB_TC=106) nothing is assumed.
func TestLintAssumedDSCPSaid(t *testing.T) {
	cfg := filepath.Join("..", "..", "testdata", "corpus", "sonic", "utilities-db_migrator_input-config_db-qos_map_table_input.json")
	rep, err := Lint([]string{cfg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if buffersNotJudged(f) {
			continue // the buffers this maps-only file leaves out
		}
		got = append(got, f.ID+": "+f.Title)
		if f.ID == "qos.pfc.disabled" && (!strings.Contains(f.Title, "RoCE (DSCP 26, assumed) lands in class 0 (DSCP 26 is not in its DSCP_TO_TC_MAP") || !strings.Contains(f.Mechanism, "DSCP 26 is assumed")) {
			t.Errorf("title or mechanism: %s / %s", f.Title, f.Mechanism)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "qos.pfc.disabled") {
		t.Fatalf("findings: %q", got)
	}
	env := filepath.Join(t.TempDir(), "nccl.env")
	if err := os.WriteFile(env, []byte("export NCCL_IB_TC=106\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Lint([]string{cfg, env}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if strings.Contains(f.Title, "assumed") || strings.Contains(f.Mechanism, "is assumed (NCCL_IB_TC=106") {
			t.Errorf("with NCCL_IB_TC given: %s: %s", f.ID, f.Title)
		}
	}
}

// TestLintBigRedSwitch: sonic-utilities' asic0 mock config_db (a
// multi-ASIC switch's front-end ASIC) sets PFC_WD|GLOBAL BIG_RED_SWITCH to
// enable: the watchdog's emergency mode holds every lossless queue in its
// storm action, so the ports with pfc_enable are lossless in name only.
// Lint said nothing of it. Disabled, or absent, it raises nothing.
func TestLintBigRedSwitch(t *testing.T) {
	src := filepath.Join("testdata", "util-mock-asic0-config_db.json")
	rep, err := Lint([]string{src}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var f *doctor.Finding
	for i := range rep.Findings {
		if rep.Findings[i].ID == "pfc.watchdog.big_red_switch" {
			f = &rep.Findings[i]
		}
	}
	if f == nil || f.Severity != doctor.Error || !strings.Contains(f.Title, "on the 7 ports with pfc_enable here") || len(f.Evidence) != 1 || f.Evidence[0].Line != 124 {
		t.Fatalf("finding %+v", f)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	off := filepath.Join(t.TempDir(), "off.json")
	if err := os.WriteFile(off, []byte(strings.Replace(string(data), `"BIG_RED_SWITCH": "enable"`, `"BIG_RED_SWITCH": "disable"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Lint([]string{off}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.ID == "pfc.watchdog.big_red_switch" {
			t.Errorf("disabled: %s", f.Title)
		}
	}
}

// FuzzIsMinigraph: the minigraph check never panics, claims only input
// whose head names DeviceMiniGraph, and never a JSON document.
func FuzzIsMinigraph(f *testing.F) {
	if text, err := os.ReadFile(filepath.Join("testdata", "bi-inventec-d6556-minigraph.xml")); err == nil {
		f.Add(text)
	}
	f.Add([]byte("<?xml version=\"1.0\"?>\n<!-- x -->\n<DeviceMiniGraph/>"))
	f.Add([]byte("\ufeff<DeviceMiniGraph"))
	f.Add([]byte(`{"DEVICE_METADATA": {"localhost": {"hostname": "<DeviceMiniGraph"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !isMinigraph(data) {
			return
		}
		head := data[:min(len(data), 4096)]
		if !bytes.Contains(head, []byte("<DeviceMiniGraph")) {
			t.Fatalf("%q: a minigraph without DeviceMiniGraph in its head", data)
		}
		if rest := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(rest) > 0 && (rest[0] == '{' || rest[0] == '[') {
			t.Fatalf("%q: a JSON document taken as a minigraph", data)
		}
	})
}
