package confgen

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/examples"
	"rocelab/internal/doctor"
	"rocelab/internal/lint"
	"rocelab/internal/scenario"
	"rocelab/internal/sonic"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const cluster = "testdata/cluster.yaml"

func load(t *testing.T) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile(cluster)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.LoadDescription(cluster, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ext is the file name each target's output is linted under.
var ext = map[string]string{"sonic": ".json", "mlnx_qos": ".sh", "mlxconfig": ".sh", "dcqcn-sysfs": ".sh", "nccl-env": ".env"}

// TestGolden compares every target's output with its golden file
// (go test ./internal/confgen -update rewrites them).
func TestGolden(t *testing.T) {
	s := load(t)
	o := Options{Interfaces: []string{"ens1f0np0", "ens1f1np1"}, Device: "mlx5_0"}
	for _, tg := range Targets() {
		name := tg[0]
		out, err := Generate(name, s, o)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Generate(name, load(t), o)
		if !bytes.Equal(out.Config, again.Config) || !bytes.Equal(out.Provenance, again.Provenance) {
			t.Errorf("%s: output differs between two runs", name)
		}
		got := append(append([]byte{}, out.Config...), out.Provenance...)
		path := filepath.Join("testdata", name+".golden")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: output differs from %s (run with -update and review the diff)", name, path)
		}
	}
}

// TestLintRoundTrip lints every target's output, alone and together with
// the description it came from: no warning or error.
func TestLintRoundTrip(t *testing.T) {
	s := load(t)
	dir := t.TempDir()
	for _, tg := range Targets() {
		name := tg[0]
		out, err := Generate(name, s, Options{Interfaces: []string{"ens1f0np0"}})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+ext[name])
		if err := os.WriteFile(file, out.Config, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, paths := range [][]string{{file}, {cluster, file}} {
			rep, err := lint.Lint(paths, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(rep.Inputs) != len(paths) || rep.Inputs[len(paths)-1].Type == "unknown" {
				t.Errorf("%s: lint did not recognise the output: %+v", name, rep.Inputs)
			}
			for _, f := range rep.Findings {
				if f.Severity >= doctor.Warn {
					t.Errorf("%s (linted with %v): %s %s: %s", name, paths, f.Severity, f.ID, f.Title)
				}
			}
		}
	}
}

func TestBadTarget(t *testing.T) {
	if _, err := Generate("junos", load(t), Options{}); err == nil {
		t.Error("unknown target accepted")
	}
	if _, err := Generate("mlnx_qos", load(t), Options{Interfaces: []string{"eth0; reboot"}}); err == nil {
		t.Error("interface name with shell characters accepted")
	}
}

// TestExamplesSONiC runs every example through `config gen --target sonic`
// and checks what it writes against SONiC's YANG constraints again, read
// back from the JSON. testdata/examples-sonic.golden lists, per example, the
// rows written and every value clamped (pause-storm's and pfc-deadlock's
// watchdog times, which the twin runs short to fit a 10 ms run); -update
// rewrites it. With Strict, those two are refused with a clear message.
func TestExamplesSONiC(t *testing.T) {
	names, err := fs.Glob(examples.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatal(err)
	}
	var golden strings.Builder
	golden.WriteString("# config gen --target sonic on every example: rows written, values clamped to SONiC's YANG ranges\n")
	for _, name := range names {
		data, _ := examples.FS.ReadFile(name)
		s, err := scenario.LoadDescription(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := Generate("sonic", s, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var db sonic.Rows
		if err := json.Unmarshal(out.Config, &db); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if vs := sonic.CheckYANG(db); len(vs) > 0 {
			t.Errorf("%s: written config breaks SONiC's YANG model: %v", name, vs)
		}
		if err := pgsProfiled(db); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		rows := 0
		for _, tab := range db {
			rows += len(tab)
		}
		fmt.Fprintf(&golden, "\n%s: %d tables, %d rows\n", name, len(db), rows)
		for _, w := range out.Warnings {
			fmt.Fprintf(&golden, "  warning: %s\n", w)
		}
		_, strictErr := Generate("sonic", s, Options{Strict: true})
		if (len(out.Warnings) > 0) != (strictErr != nil) {
			t.Errorf("%s: %d warnings, strict error %v", name, len(out.Warnings), strictErr)
		}
		if strictErr != nil && !strings.Contains(strictErr.Error(), ".yang ") {
			t.Errorf("%s: strict error does not name the model: %v", name, strictErr)
		}
	}
	for _, name := range []string{"pause-storm.yaml", "pfc-deadlock.yaml"} {
		if !strings.Contains(golden.String(), "\n"+name) || !strings.Contains(golden.String(), "PFC_WD detection_time (Ethernet0") {
			t.Errorf("%s: no clamped watchdog time", name)
		}
	}
	path := filepath.Join("testdata", "examples-sonic.golden")
	if *update {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != golden.String() {
		t.Errorf("differs from %s (run with -update and review the diff):\n%s", path, golden.String())
	}
}

// TestDefaultsLintClean generates every target from a description that
// gives nothing but a topology, and lints each output with it: the
// scenario's defaults trip none of the project's own rules at warn or
// error, and the firmware mask written is the one the twin simulates.
func TestDefaultsLintClean(t *testing.T) {
	dir := t.TempDir()
	desc := filepath.Join(dir, "defaults.yaml")
	if err := os.WriteFile(desc, []byte("name: defaults\ntopology: {kind: single-switch, hosts: 4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(desc)
	s, err := scenario.LoadDescription(desc, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range Targets() {
		name := tg[0]
		out, err := Generate(name, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Warnings) > 0 {
			t.Errorf("%s: warnings on the defaults: %q", name, out.Warnings)
		}
		file := filepath.Join(dir, name+ext[name])
		if err := os.WriteFile(file, out.Config, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := lint.Lint([]string{desc, file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if f.Severity >= doctor.Warn {
				t.Errorf("%s: %s %s: %s", name, f.Severity, f.ID, f.Title)
			}
		}
	}
}

// TestMlxConfigIsSimulated: for every example, the ROCE_CC_PRIO_MASK that
// config gen writes is the mask the twin simulates, and a single-port
// adapter gets no _P2 parameter.
func TestMlxConfigIsSimulated(t *testing.T) {
	names, _ := fs.Glob(examples.FS, "*.yaml")
	for _, name := range names {
		data, _ := examples.FS.ReadFile(name)
		s, err := scenario.LoadDescription(name, data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Generate("mlxconfig", s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var simulated int64
		if cfg := s.Host.NIC.DCQCN.Config; cfg != nil {
			simulated = cfg.RoceCcPrioMask
		}
		want := fmt.Sprintf("ROCE_CC_PRIO_MASK_P1=%#x ", simulated)
		if !strings.Contains(string(out.Config), want) {
			t.Errorf("%s: the twin simulates ROCE_CC_PRIO_MASK %#x; config gen wrote:\n%s", name, simulated, out.Config)
		}
		if s.Host.NIC.Ports == 1 && strings.Contains(string(out.Config), "_P2=") {
			t.Errorf("%s: _P2 parameters for a single-port adapter", name)
		}
	}
	bad := "topology: {kind: single-switch, hosts: 2}\nhost:\n  firmware: {ROCE_CC_PRIO_MASK_P2: 0x08}\n"
	if _, err := scenario.LoadDescription("p2.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "p2.yaml:3") || !strings.Contains(err.Error(), "nic_ports") {
		t.Errorf("_P2 on a single-port adapter: %v", err)
	}
}

// sonicOf generates the SONiC fragment of the golden cluster as edit
// changes it, loaded as file, and returns it and its tables.
func sonicOf(t *testing.T, file string, edit func(string) string) (Output, map[string]map[string]map[string]string) {
	t.Helper()
	data, err := os.ReadFile(cluster)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.LoadDescription(file, []byte(edit(string(data))))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate("sonic", s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var db map[string]map[string]map[string]string
	if err := json.Unmarshal(out.Config, &db); err != nil {
		t.Fatal(err)
	}
	return out, db
}

// A description with a static threshold gives SONiC's static form: the
// lossless profile's static_th in dynamic_th's place, in a pool of mode
// static, which SONiC's YANG accepts and lint reads back clean.
func TestStaticThreshold(t *testing.T) {
	out, db := sonicOf(t, "static.yaml", func(y string) string {
		return strings.Replace(y, "switch:\n", "switch:\n  static_th: 60KiB\n", 1)
	})
	if len(db["BUFFER_PROFILE"]) == 0 {
		t.Fatal("no BUFFER_PROFILE")
	}
	for name, p := range db["BUFFER_PROFILE"] {
		if p["static_th"] != "61440" || p["dynamic_th"] != "" {
			t.Errorf("BUFFER_PROFILE|%s: %v, expected static_th 61440 and no dynamic_th", name, p)
		}
	}
	for name, p := range db["BUFFER_POOL"] {
		if p["mode"] != "static" {
			t.Errorf("BUFFER_POOL|%s mode %q, expected static", name, p["mode"])
		}
	}
	if !strings.Contains(string(out.Provenance), "static.yaml:") || !strings.Contains(string(out.Provenance), "switch.static_th") {
		t.Errorf("provenance does not name switch.static_th's line:\n%s", out.Provenance)
	}
	lintsClean(t, out)
}

// A fabric of two speeds with switch.ecn.by_rate and alpha_by_rate gets a
// WRED profile per speed, each port's lossless queue the one of its
// speed, and each speed's buffer profile its own dynamic_th, each named
// with its source line; the fragment lints clean.
func TestProfilesByRate(t *testing.T) {
	out, db := sonicOf(t, "speeds.yaml", func(y string) string {
		y = strings.Replace(y, "fabric_link: {rate: 100G, cable: 30m}", "fabric_link: {rate: 400G, cable: 30m}", 1)
		y = strings.Replace(y, "switch:\n", "switch:\n  alpha_by_rate: {400G: 1/2}\n", 1)
		return strings.Replace(y, "pmax: 0.05}", "pmax: 0.05,\n    by_rate: {400G: {kmin: 600KB, kmax: 3000KB}}}", 1)
	})
	for name, want := range map[string]string{"pg_lossless_100000_3m_profile": "0", "pg_lossless_400000_30m_profile": "-1"} {
		if got := db["BUFFER_PROFILE"][name]["dynamic_th"]; got != want {
			t.Errorf("BUFFER_PROFILE|%s dynamic_th %q, want %q (all: %v)", name, got, want, db["BUFFER_PROFILE"])
		}
	}
	w := db["WRED_PROFILE"]
	if len(w) != 2 || w["ROCE_LOSSLESS"]["green_min_threshold"] != "150000" || w["ROCE_LOSSLESS_400G"]["green_min_threshold"] != "600000" ||
		w["ROCE_LOSSLESS_400G"]["green_max_threshold"] != "3000000" || w["ROCE_LOSSLESS_400G"]["green_drop_probability"] != "5" {
		t.Errorf("WRED_PROFILE: %v", w)
	}
	speeds := map[string]string{}
	for port, r := range db["PORT"] {
		speeds[port] = r["speed"]
	}
	n := map[string]int{}
	for key, q := range db["QUEUE"] {
		port, queue, _ := strings.Cut(key, "|")
		if queue != "3" {
			continue
		}
		want := map[string]string{"100000": "ROCE_LOSSLESS", "400000": "ROCE_LOSSLESS_400G"}[speeds[port]]
		if q["wred_profile"] != want {
			t.Errorf("QUEUE|%s at speed %s: profile %q, want %q", key, speeds[port], q["wred_profile"], want)
		}
		n[want]++
	}
	if n["ROCE_LOSSLESS"] == 0 || n["ROCE_LOSSLESS_400G"] == 0 {
		t.Errorf("queues by profile: %v", n)
	}
	if !strings.Contains(string(out.Provenance), "speeds.yaml:23 switch.ecn.by_rate.400G.kmin") || !strings.Contains(string(out.Provenance), "speeds.yaml:16 switch.alpha_by_rate.400G as log2 α") {
		t.Errorf("provenance does not name the 400G kmin's line:\n%s", out.Provenance)
	}
	lintsClean(t, out)
}

// lintsClean lints a generated SONiC fragment and fails on any finding
// of warn level or above.
func lintsClean(t *testing.T, out Output) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "sonic.json")
	if err := os.WriteFile(file, out.Config, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := lint.Lint([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity >= doctor.Warn {
			t.Errorf("%s %s: %s", f.Severity, f.ID, f.Title)
		}
	}
}

// pgsProfiled checks that every traffic class of a port goes to PG 0, the
// lossy PG every SONiC port profiles, or to a PG the fragment gives a
// BUFFER_PG row: a PG with no profile holds no buffer of its own.
func pgsProfiled(db sonic.Rows) error {
	profiled := map[string]bool{}
	for key := range db["BUFFER_PG"] {
		ports, pgs, ok := sonic.PortKey(key)
		if !ok {
			return fmt.Errorf("BUFFER_PG|%s: not PORT|PGS", key)
		}
		for _, p := range ports {
			for _, g := range pgs {
				profiled[fmt.Sprintf("%s|%d", p, g)] = true
			}
		}
	}
	for port, pq := range db["PORT_QOS_MAP"] {
		for tc, pg := range db["TC_TO_PRIORITY_GROUP_MAP"][pq["tc_to_pg_map"]] {
			if pg != "0" && !profiled[port+"|"+pg] {
				return fmt.Errorf("%s: TC %s goes to PG %s, which has no BUFFER_PG row", port, tc, pg)
			}
		}
	}
	return nil
}

// buffermgrd names the lossless profile of a port from its PORT speed and
// CABLE_LENGTH as written, and replaces a BUFFER_PG row that names any
// other profile with its own from pg_profile_lookup.ini: a cable the twin
// gives in fractions of a metre is written rounded up, and the profile
// must carry that name for SONiC to keep it.
func TestSONiCProfileNamedAsBuffermgrd(t *testing.T) {
	desc := "name: half-metre\ntopology: {kind: single-switch, hosts: 2, host_link: {rate: 100G, cable: 2.5m}}\nswitch: {pfc: {enabled: true, priorities: [3]}}\n"
	s, err := scenario.LoadDescription("half-metre.yaml", []byte(desc))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate("sonic", s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var db sonic.Rows
	if err := json.Unmarshal(out.Config, &db); err != nil {
		t.Fatal(err)
	}
	n := 0
	for key, pg := range db["BUFFER_PG"] {
		port, _, _ := strings.Cut(key, "|")
		want := "pg_lossless_" + db["PORT"][port]["speed"] + "_" + db["CABLE_LENGTH"]["AZURE"][port] + "_profile"
		if pg["profile"] != want || db["BUFFER_PROFILE"][want] == nil {
			t.Errorf("BUFFER_PG|%s: profile %q, want %q (defined)", key, pg["profile"], want)
		}
		n++
	}
	if n == 0 || db["CABLE_LENGTH"]["AZURE"]["Ethernet0"] != "3m" {
		t.Errorf("BUFFER_PG rows %d, CABLE_LENGTH %v: want rows and 3m", n, db["CABLE_LENGTH"])
	}
}
