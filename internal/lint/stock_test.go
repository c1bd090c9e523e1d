package lint

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

var update = flag.Bool("update", false, "rewrite the golden.txt of testdata/corpus/sonic-stock, sonic, sonic-cli, eos, nxos and junos")

const stockDir = "../../testdata/corpus/sonic-stock"

// knownStockMistakes are the findings lint may raise on SONiC's stock
// files: each is a real mistake for a RoCE fabric, and docs/lint.md
// ("Stock SONiC") says why.
var knownStockMistakes = []string{"pfc.watchdog.off", "switch.ecn.thresholds", "config.duplicate_key", "ecn.disabled", "config.reference.missing", "qos.ports.unbound"}

// mockMistakes are the findings a unit-test fixture among the stock files
// shows beyond knownStockMistakes: sonic-utilities' mock CONFIG_DB gives
// ports pfc_enable 3,4 under the traditional buffer model with no
// CABLE_LENGTH and no BUFFER_PG row but Ethernet0's, so buffermgrd writes
// no lossless priority group for the others (pfc.pg.lossy), and writes
// 203 references in the bracket form beside 68 plain names
// (config.reference.form).
var mockMistakes = map[string][]string{"utilities-mock_tables-config_db.json": {"pfc.pg.lossy", "config.reference.form"}}

// TestLintSONiCStock lints every real config_db.json and rendered QoS
// file of SONiC's repositories under testdata/corpus/sonic-stock (their
// sources in SOURCES.md), one at a time, and compares every finding with
// golden.txt (-update rewrites it). Nothing but the known mistakes may
// fire, and none of those on a file that does not show it.
func TestLintSONiCStock(t *testing.T) {
	lintGolden(t, stockDir, "*.json", 20, func(name string, fd doctor.Finding) {
		// A rendered buffers.json is a fragment: what its missing
		// PORT_QOS_MAP decides is named as not judged, as are the buffers
		// a rendered qos.json leaves out; so are the maps a
		// rendered qos.json names and leaves to another file, and what
		// buffermgrd computes under the dynamic buffer model.
		fragment := strings.HasPrefix(name, "buffer") || strings.Contains(fd.Title, "which no input holds") || strings.Contains(fd.Title, "(the dynamic buffer model)") || strings.Contains(fd.Title, " without BUFFER_PG or BUFFER_PROFILE: not judged")
		// Plain names under a VERSIONS|DATABASE of 202106 or earlier
		// (sonic-utilities' counterpoll input, sonic-mgmt's vlab
		// qos_new_dbfmt files) are noted, no mistake: 202111 and later,
		// the only releases such a file is loaded on, read them.
		oldStamp := fd.ID == "config.reference.form" && fd.Severity == doctor.Info
		if !slices.Contains(knownStockMistakes, fd.ID) && (fd.ID != "config.not_judged" || !fragment) && !slices.Contains(mockMistakes[name], fd.ID) && !oldStamp {
			t.Errorf("%s: %s %s on a stock file: %s", name, fd.Severity, fd.ID, fd.Title)
		}
	})
}

// TestLintSONiCPublic lints each config engineers and vendors posted
// (testdata/corpus/sonic, every file's source in its .source sidecar)
// alone, refusals included, against golden.txt there.
func TestLintSONiCPublic(t *testing.T) {
	lintGolden(t, "../../testdata/corpus/sonic", "*.json", 4, nil)
}

// lintGolden lints each file of dir that matches glob alone and compares every
// finding, or the refusal of a file that is not JSON, with dir/golden.txt
// (-update rewrites it); check, when given, judges each finding. A stock
// file must be read; one of dir's own refused is listed with its error.
func lintGolden(t *testing.T, dir, glob string, least int, check func(name string, fd doctor.Finding)) {
	files, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil || len(files) < least {
		t.Fatalf("%d files in %s (%v)", len(files), dir, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# rocelab lint on each file alone (go test ./internal/lint -run %s -update)\n\n", t.Name())
	for _, f := range files {
		rep, err := Lint([]string{f}, nil)
		name := filepath.Base(f)
		if err != nil {
			if check != nil {
				t.Errorf("%s: %v", name, err)
			}
			fmt.Fprintf(&b, "%s: refused: %v\n", name, strings.TrimPrefix(err.Error(), f))
			continue
		}
		fmt.Fprintf(&b, "%s: %d findings\n", name, len(rep.Findings))
		for _, fd := range rep.Findings {
			title := strings.TrimLeft(strings.TrimPrefix(fd.Title, f), ": ")
			fmt.Fprintf(&b, "  %s %s: %s\n", fd.Severity, fd.ID, title)
			if check != nil {
				check(name, fd)
			}
		}
		for _, msg := range doctor.Nonconforming(rep.Findings) {
			t.Errorf("%s: %s", name, msg)
		}
	}
	golden := filepath.Join(dir, "golden.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("findings differ from %s; run go test ./internal/lint -run %s -update and review the diff", golden, t.Name())
	}
}

// TestLintRedisHgetall reads CONFIG_DB rows printed by redis-cli
// (SYNTHETIC, in the tool's format) with an NCCL env file that marks RoCE
// DSCP 26, which this switch sends to a lossy class.
func TestLintRedisHgetall(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeTemp(t, dir, name, text) }
	redis := write("redis.txt", `# SYNTHETIC: hgetall output in the form redis-cli prints it
admin@sonic:~$ redis-cli -n 4 hgetall "PORT_QOS_MAP|Ethernet0"
 1) "dscp_to_tc_map"
 2) "AZURE"
 3) "pfc_enable"
 4) "3,4"
admin@sonic:~$ redis-cli -n 4 hgetall "DSCP_TO_TC_MAP|AZURE"
 1) "3"
 2) "3"
 3) "26"
 4) "1"
`)
	env := write("nccl.env", "export NCCL_IB_TC=106\n")
	rep, err := Lint([]string{redis, env}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.ID != "qos.pfc.disabled" || !strings.Contains(f.Title, "DSCP 26") {
			continue
		}
		lines := map[int]bool{}
		for _, e := range f.Evidence {
			lines[e.Line] = true
		}
		found = lines[6] && lines[11] // pfc_enable's value, DSCP 26's class

	}
	if !found || rep.Inputs[0].Type != KindSONiCConfigDB {
		t.Errorf("inputs %+v, findings %+v", rep.Inputs, rep.Findings)
	}
}

// TestLintConfigDBFragment: CONFIG_DB tables pasted without their braces
// (SONiC's ECN test plan shows them so) are read as config_db, from a
// .json file and from stdin.
func TestLintConfigDBFragment(t *testing.T) {
	const frag = "../../testdata/corpus/sonic/sonic-configdb-fragment-no-braces-wred-ecn-testplan.json"
	rep, err := Lint([]string{frag}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != KindSONiCConfigDB {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	data, err := os.ReadFile(frag)
	if err != nil {
		t.Fatal(err)
	}
	// With a table before it, as pasted into a terminal.
	text := "\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}},\n" + string(data)
	rep, err = Lint([]string{"-"}, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != KindSONiCConfigDB {
		t.Fatalf("stdin fragment read as %+v", rep.Inputs)
	}
}

// TestFragmentNotJudged lints SONiC's real buffers.json for an SN4600C T0
// alone, then beside the qos.json rendered for the same SKU: alone, the
// checks its missing PORT_QOS_MAP and QUEUE decide are named as not
// judged, with no finding claiming them missing; beside qos.json, which
// holds both, nothing is.
func TestFragmentNotJudged(t *testing.T) {
	buffers := filepath.Join(stockDir, "buffers-mellanox4600c-t0.json")
	qos := filepath.Join(stockDir, "qos-mellanox4600c-d48c40-t0.json")
	rep, err := Lint([]string{buffers}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "config.not_judged" || rep.Findings[0].Severity != doctor.Info ||
		!strings.Contains(rep.Findings[0].Title, "buffers-mellanox4600c-t0.json: BUFFER_PG, BUFFER_PROFILE without PORT_QOS_MAP or QUEUE: not judged: PFC on the RoCE priority (pfc_enable)") {
		t.Fatalf("buffers.json alone: %v", rep.Findings)
	}
	rep, err = Lint([]string{buffers, qos}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.ID == "config.not_judged" {
			t.Errorf("beside qos.json: %s", f.Title)
		}
	}
}

// Each ASIC's orchagent reads its own CONFIG_DB: another namespace's
// PORT_QOS_MAP does not stand in for asic1's, whose BUFFER_PG alone is a
// fragment whose PFC is not judged (as unheldRefs and qos.ports.unbound
// already held). SYNTHETIC dump.
func TestFragmentNotJudgedPerASIC(t *testing.T) {
	multi := tempFile(t, "multi.json", `{"asic0": {"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}, "BUFFER_PG": {"Ethernet0|3": {"profile": "p"}}},
 "asic1": {"BUFFER_PG": {"Ethernet8|3": {"profile": "p"}}}}`)
	if fs := lintFiles(t, multi).Findings; !slices.ContainsFunc(fs, func(f doctor.Finding) bool {
		return f.ID == "config.not_judged" && strings.Contains(f.Title, "asic1") && strings.Contains(f.Title, "without PORT_QOS_MAP")
	}) {
		t.Errorf("asic0's PORT_QOS_MAP stood in for asic1's: %+v", fs)
	}
}
