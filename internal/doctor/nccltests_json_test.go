package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// jsonDir holds the twin's nccl-tests pair: one run's stdout table and
// its -J output (no real -J file is public), and a synthetic cut copy.
const jsonDir = "../../testdata/synthetic/nccltests-json"

// judged is what a finding says, without where it says it.
type judged struct {
	ID, Severity, Layer, Title, Subject, Mechanism, Fix string
	Evidence                                            int
}

func judgedOf(fs []Finding) []judged {
	var out []judged
	for _, f := range fs {
		sub := strings.ReplaceAll(f.Subject, ".json", ".txt")
		out = append(out, judged{f.ID, f.Severity.String(), f.Layer.String(), f.Title, sub, f.Mechanism, f.Fix, len(f.Evidence)})
	}
	return out
}

// TestNCCLTestsJSONSameFindings: the same run's table and JSON give the
// same findings, word for word, under every NIC speed the doctor may be
// told or not told; and so do the other versions and forms of the JSON.
func TestNCCLTestsJSONSameFindings(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "run.txt")
	text, err := os.ReadFile(filepath.Join(jsonDir, "allreduce-4x8-a100-as-found-twin.txt"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(jsonDir, "allreduce-4x8-a100-as-found-twin.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(table, text, 0o644); err != nil {
		t.Fatal(err)
	}
	forms := map[string]string{
		"v3": string(doc),
		// 2.17.3-2.17.9: version 1, the footer's keys misspelt.
		"v1": strings.Replace(strings.Replace(string(doc), `"average_bus_bandwidth":{"bandwidth"`, `"average_bus_bandwidith":{"bandwidith"`, 1), `"version":3`, `"version":1`, 1),
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(v, "", "  ")
	forms["pretty, sorted keys"] = string(pretty)
	for _, speed := range []unit.BitRate{0, 100 * unit.Gbps, 400 * unit.Gbps} {
		want := judgedOf(Diagnose([]string{table}, nil, Options{NICSpeed: speed}).Findings)
		if len(want) == 0 || want[0].ID != map[unit.BitRate]string{0: "nccltests.busbw.unjudged", 100 * unit.Gbps: "nccltests.busbw.low", 400 * unit.Gbps: "nccltests.busbw.low"}[speed] {
			t.Fatalf("table at %v: %+v", speed, want)
		}
		for name, form := range forms {
			path := filepath.Join(dir, "run.json")
			if err := os.WriteFile(path, []byte(form), 0o644); err != nil {
				t.Fatal(err)
			}
			rep := Diagnose([]string{path}, nil, Options{NICSpeed: speed})
			if rep.Inputs[0].Type != "nccl-tests" {
				t.Fatalf("%s: read as %+v", name, rep.Inputs[0])
			}
			if got := judgedOf(rep.Findings); !reflect.DeepEqual(got, want) {
				t.Errorf("%s at %v: JSON findings differ from the table's:\n got %+v\nwant %+v", name, speed, got, want)
			}
		}
	}
}

// TestNCCLTestsJSONOnce: a run's table and JSON in one incident are one
// run: judged once.
func TestNCCLTestsJSONOnce(t *testing.T) {
	rep := Diagnose([]string{jsonDir}, nil, Options{NICSpeed: 100 * unit.Gbps})
	if n := countID(rep.Findings, "nccltests.busbw.low"); n != 1 {
		t.Errorf("%d busbw.low findings for one run and its cut copy", n)
	}
	f := find(rep.Findings, "nccltests.busbw.low")
	if f == nil || !strings.HasSuffix(f.Evidence[0].File, ".txt") {
		t.Errorf("the table's rows should be the evidence: %+v", f)
	}
}

// TestNCCLTestsJSONEnds: a cut document and one nccl-tests closed on an
// error say so, with where the document breaks; a garbled one is refused
// with line and column, and exit 2 when it is the only input.
func TestNCCLTestsJSONEnds(t *testing.T) {
	rep := Diagnose([]string{filepath.Join(jsonDir, "allreduce-4x8-a100-as-found-cut-synthetic.json")}, nil, Options{NICSpeed: 100 * unit.Gbps})
	f := find(rep.Findings, "nccltests.json.cut")
	if f == nil || f.Severity != Warn || !strings.Contains(f.Title, "cut-synthetic.json:1:2901, inside results[6].out_of_place") || !strings.Contains(f.Title, "6 sizes read, the last 2MiB") || f.Evidence[0].Col == 0 {
		t.Fatalf("cut: %+v", rep.Findings)
	}
	if rep.ExitCode() != 0 || find(rep.Findings, "nccltests.sizes.small") == nil {
		t.Errorf("the rows read are judged as they are: exit %d %+v", rep.ExitCode(), rep.Findings)
	}
	doc, err := os.ReadFile(filepath.Join(jsonDir, "allreduce-4x8-a100-as-found-twin.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	i := strings.Index(string(doc), `{"size":8388608,`)
	stopped := string(doc[:i]) + `{"size":8388608,"count":2097152,"type":"float","redop":"sum","root":"    -1"}]}`
	path := filepath.Join(dir, "stopped.json")
	if err := os.WriteFile(path, []byte(stopped), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = Diagnose([]string{path}, nil, Options{})
	if f := find(rep.Findings, "nccltests.json.stopped"); f == nil || !strings.Contains(f.Title, "after 7 sizes read, the last 4MiB, 1 row begun and not finished") {
		t.Errorf("stopped: %+v", rep.Findings)
	}
	garbled := filepath.Join(dir, "garbled.json")
	if err := os.WriteFile(garbled, []byte(strings.Replace(string(doc), `"bus_bw":`, `"bus_bw";`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = Diagnose([]string{garbled}, nil, Options{})
	if rep.ExitCode() != 2 || !strings.Contains(rep.Inputs[0].Error, "garbled.json:1:") || !strings.Contains(rep.Inputs[0].Error, "expected a number") {
		t.Errorf("garbled: exit %d %+v", rep.ExitCode(), rep.Inputs)
	}
}
