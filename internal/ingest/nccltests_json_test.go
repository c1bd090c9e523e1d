package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// jsonDir holds the twin's nccl-tests pair (the same run's stdout and -J
// output) and a synthetic cut document; no real -J file is public.
const jsonDir = "../../testdata/synthetic/nccltests-json"

func twinJSON(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(jsonDir, "allreduce-4x8-a100-as-found-twin.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readJSONTests(t testing.TB, doc []byte) *NCCLTests {
	t.Helper()
	if !IsNCCLTestsJSON(doc) {
		t.Fatalf("not recognised as nccl-tests JSON: %.80s", doc)
	}
	res, err := ReadNCCLTestsJSON("t.json", bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return res.Artifacts[0].(*NCCLTests)
}

// stripEvidence drops what differs by form: evidence and the fields only
// one form has.
func stripEvidence(r TestRun) TestRun {
	r.Rows = append([]TestRow(nil), r.Rows...)
	r.Ranks = append([]TestRank(nil), r.Ranks...)
	for i := range r.Rows {
		r.Rows[i].Evidence = Evidence{}
	}
	for i := range r.Ranks {
		r.Ranks[i].Evidence = Evidence{}
		r.Ranks[i].BusID, r.Ranks[i].GPU = "", ""
	}
	r.RankZero = nil
	r.Params, r.Banner, r.Header, r.AvgEvidence, r.OutOfBoundsEvidence, r.VersionLine = Evidence{}, Evidence{}, Evidence{}, Evidence{}, Evidence{}, Evidence{}
	r.Version, r.CollectiveFrom = "", ""
	r.JSON, r.JSONVersion, r.NCCLVersion, r.Args, r.Errors, r.Footer, r.Ended = false, 0, 0, nil, nil, false, false
	return r
}

// TestNCCLTestsJSONSameAsTable: the twin's -J output of a run gives the
// run its stdout table gives, value for value (the JSON's six decimals
// rounded as the table prints them), ranks expanded from the one device
// nccl-tests lists per process.
func TestNCCLTestsJSONSameAsTable(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(jsonDir, "allreduce-4x8-a100-as-found-twin.txt"))
	if err != nil {
		t.Fatal(err)
	}
	table := parseTests(t, string(text))
	js := readJSONTests(t, twinJSON(t))
	if len(table.Runs) != 1 || len(js.Runs) != 1 {
		t.Fatalf("runs: table %d, JSON %d", len(table.Runs), len(js.Runs))
	}
	jr := js.Runs[0]
	if !jr.JSON || jr.JSONVersion != 3 || jr.NCCLVersion != 23007 || !jr.Footer || !jr.Ended || jr.Cut.Line != 0 || len(jr.Rows) != 14 || jr.NRanks() != 32 {
		t.Fatalf("JSON run: json %v v%d nccl %d footer %v ended %v cut %v rows %d ranks %d", jr.JSON, jr.JSONVersion, jr.NCCLVersion, jr.Footer, jr.Ended, jr.Cut, len(jr.Rows), jr.NRanks())
	}
	if h, c := jr.RanksPerHost(); len(h) != 4 || c[0] != 8 {
		t.Errorf("ranks per host %v %v, want 4 hosts of 8", h, c)
	}
	a, b := stripEvidence(*table.Runs[0]), stripEvidence(*jr)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("table and JSON runs differ:\ntable %+v\njson  %+v", a, b)
	}
	if ev := jr.Rows[0].Evidence; ev.Line != 1 || ev.Col < 1000 || !strings.HasPrefix(ev.Text, `{"size":65536,`) {
		t.Errorf("row evidence %+v", ev)
	}
}

// jsonVariant rewrites the twin's document as another nccl-tests version
// or tool leaves it.
func jsonVariant(t testing.TB, name string) []byte {
	t.Helper()
	doc := string(twinJSON(t))
	switch name {
	case "v1-typo": // 2.17.3-2.17.9
		doc = strings.Replace(doc, `"version":3`, `"version":1`, 1)
		doc = strings.Replace(doc, `"average_bus_bandwidth":{"bandwidth"`, `"average_bus_bandwidith":{"bandwidith"`, 1)
		doc = strings.Replace(doc, `,"per_iter_timing":"false","per_iter_skip":0`, "", 1)
	case "v2-per-iter": // 2.19.2 with per-iteration timing
		doc = strings.Replace(doc, `"version":3`, `"version":2`, 1)
		doc = strings.ReplaceAll(doc, `,"actual_iterations"`, `,"in_place_per_iter":{"min_us":1.0,"max_us":2.0,"avg_us":1.5,"p50_us":1.5,"p95_us":2.0,"p99_us":2.0,"stdev_us":0.5,"cv_pct":33.3,"times_us":[1.0,2.0],"per_process_max_times_us":[[1.0,2.0],[1.0,2.0]]},"actual_iterations"`)
	case "pretty":
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(v, "", "  ") // sorted keys, as jq -S or json.tool --sort-keys
		doc = string(b) + "\n"
	case "stopped": // 2.18.5+: a failure at the 8th size closes the open containers
		i := strings.Index(doc, `{"size":8388608,`)
		doc = doc[:i] + `{"size":8388608,"count":2097152,"type":"float","redop":"sum","root":"    -1"}]}`
	}
	return []byte(doc)
}

func TestNCCLTestsJSONVersions(t *testing.T) {
	want := readJSONTests(t, twinJSON(t)).Runs[0]
	for _, v := range []string{"v1-typo", "v2-per-iter", "pretty"} {
		got := readJSONTests(t, jsonVariant(t, v)).Runs[0]
		if !reflect.DeepEqual(stripEvidence(*got), stripEvidence(*want)) || got.AvgBusBW != want.AvgBusBW || !got.Footer {
			t.Errorf("%s: run differs from the version 3 document's (avg %v, footer %v)", v, got.AvgBusBW, got.Footer)
		}
	}
	r := readJSONTests(t, jsonVariant(t, "stopped")).Runs[0]
	if len(r.Rows) != 7 || len(r.Truncated) != 1 || r.Footer || r.Ended || r.Cut.Line != 0 || r.AvgBusBW != -1 {
		t.Errorf("stopped run: %d rows, %d truncated, footer %v, cut %+v", len(r.Rows), len(r.Truncated), r.Footer, r.Cut)
	}
}

// TestNCCLTestsJSONCut: a document cut at any byte (what a killed job
// leaves) keeps the whole rows before the cut, says where it breaks, and
// never invents a row.
func TestNCCLTestsJSONCut(t *testing.T) {
	doc := twinJSON(t)
	full := readJSONTests(t, doc).Runs[0]
	prevRows := 0
	for n := 64; n < len(doc); n++ {
		res, err := ReadNCCLTestsJSON("cut.json", bytes.NewReader(doc[:n]))
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		r := res.Artifacts[0].(*NCCLTests).Runs[0]
		if r.Cut.Line != 1 || r.Cut.Col != n+1 || r.CutWhere == "" {
			t.Fatalf("cut at %d: Cut %+v %q", n, r.Cut, r.CutWhere)
		}
		if len(r.Rows) < prevRows || len(r.Rows) > len(full.Rows) {
			t.Fatalf("cut at %d: %d rows after %d", n, len(r.Rows), prevRows)
		}
		for i, row := range r.Rows {
			row.Evidence = full.Rows[i].Evidence
			if row != full.Rows[i] {
				t.Fatalf("cut at %d: row %d is %+v, want %+v", n, i, row, full.Rows[i])
			}
		}
		prevRows = len(r.Rows)
	}
	if prevRows != len(full.Rows) {
		t.Errorf("cut before the footer: %d rows, want %d", prevRows, len(full.Rows))
	}
}

// TestNCCLTestsJSONGarbled: a document that goes on otherwise than
// nccl-tests writes it is refused with file:line:col and what was
// expected there.
func TestNCCLTestsJSONGarbled(t *testing.T) {
	doc := string(twinJSON(t))
	for _, c := range []struct{ name, doc, want string }{
		{"semicolon", strings.Replace(doc, `"bus_bw":`, `"bus_bw";`, 1), "t.json:1:"},
		{"size as string", strings.Replace(doc, `"size":65536`, `"size":"65536"`, 1), "in results[0].size: expected an integer"},
		{"rows not a list", strings.Replace(doc, `"results":[`, `"results":{`, 1), "in results: expected a list"},
		{"inf", strings.Replace(doc, `"bus_bw":`, `"bus_bw":inf,"x":`, 1), "t.json:1:"},
		{"second line", strings.Replace(doc, `"errors":[""]`, "\n\"errors\":[x]", 1), "t.json:2:11:"},
		{"trailing text", doc + " end", "t.json:1:"},
		{"endless string", `{"version":3,"start_time":"` + strings.Repeat("a", 3<<20) + `"}`, "longer than 1024 KiB"},
	} {
		_, err := ReadNCCLTestsJSON("t.json", strings.NewReader(c.doc))
		var je *pos.Error
		if !errors.As(err, &je) || !strings.Contains(err.Error(), c.want) || je.Line < 1 || je.Col < 1 {
			t.Errorf("%s: %v, want a *pos.Error containing %q", c.name, err, c.want)
		}
	}
}

// TestNCCLTestsJSONConcatenated: documents back to back (cat *.json)
// are runs of their own.
func TestNCCLTestsJSONConcatenated(t *testing.T) {
	doc := twinJSON(t)
	tt := readJSONTests(t, append(append(append([]byte{}, doc...), '\n'), doc...))
	if len(tt.Runs) != 2 || len(tt.Runs[1].Rows) != 14 || tt.Runs[1].Rows[0].Evidence.Line != 2 {
		t.Fatalf("%d runs", len(tt.Runs))
	}
}

func TestIsNCCLTestsJSON(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{`{"version":3,"start_time":"2026-07-09 10:00:00","args":[`, true},
		{"\ufeff  {\n  \"version\": 1,\n  \"start_time\": \"x\"", true},
		{`{"args":["all_reduce_perf"],"average_bus_bandwidth":{}`, true},
		{`{"version":3}`, false},
		{`{"schema": 2, "start_time": 1}`, false},
		{`{"results":[{"size":8}],"average_bus_bandwidth":{"bandwidth":1}}`, false},
		{`[1,2]`, false},
		{"# nThread 1 nGpus 1", false},
	} {
		if got := IsNCCLTestsJSON([]byte(c.head)); got != c.want {
			t.Errorf("%q: %v, want %v", c.head, got, c.want)
		}
	}
}

// TestNCCLTestsJSONSettings: the environment nccl-tests records becomes
// NCCL settings, with their line and column.
func TestNCCLTestsJSONSettings(t *testing.T) {
	res, err := ReadNCCLTestsJSON("t.json", bytes.NewReader(twinJSON(t)))
	if err != nil {
		t.Fatal(err)
	}
	var set *NCCLSettings
	for _, a := range res.Artifacts {
		if s, ok := a.(*NCCLSettings); ok {
			set = s
		}
	}
	if set == nil || len(set.Values("NCCL_IB_GID_INDEX")) != 1 {
		t.Fatalf("settings %+v", set)
	}
	if e := set.Values("NCCL_IB_GID_INDEX")[0]; e.Value != "3" || e.Evidence.Line != 1 || e.Evidence.Col < 100 {
		t.Errorf("NCCL_IB_GID_INDEX %+v", e)
	}
}

// FuzzNcclTestsJSON: any input gives runs within the caps and evidence
// inside the input, or a *pos.Error with a place in it; never a panic.
func FuzzNcclTestsJSON(f *testing.F) {
	doc := twinJSON(f)
	f.Add(doc)
	for _, v := range []string{"v1-typo", "v2-per-iter", "pretty", "stopped"} {
		f.Add(jsonVariant(f, v))
	}
	f.Add(doc[:2900])
	f.Add([]byte(`{"version":3,"start_time":"x","results":[{"size":8,"out_of_place":null,"in_place":{"time":"nan"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		IsNCCLTestsJSON(data)
		res, err := ReadNCCLTestsJSON("f.json", bytes.NewReader(data))
		if err != nil {
			var je *pos.Error
			if !errors.As(err, &je) || je.Line < 1 || je.Col < 1 || je.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error %v is not a *pos.Error with a place in the input", err)
			}
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		check := func(e Evidence) {
			if e.Line < 1 || e.Line > lines || e.Col < 1 {
				t.Fatalf("evidence %+v outside the input's %d lines", e, lines)
			}
		}
		for _, r := range res.Artifacts[0].(*NCCLTests).Runs {
			if len(r.Rows) > maxRows || len(r.Ranks) > maxRanks || len(r.Errors) > maxKept {
				t.Fatal("caps exceeded")
			}
			for _, row := range r.Rows {
				check(row.Evidence)
			}
			if r.Cut.Line > 0 {
				check(r.Cut)
			}
			if p, ok := r.Plateau(); ok && (p.Max < p.BusBW || p.BusBW < p.Min) {
				t.Fatalf("plateau %+v out of order", p)
			}
		}
	})
}

// Read, the one entry every front end calls, recognises an nccl-tests -J
// document itself (the doctor sniffed it before calling, lint did not):
// the runs are the JSON reader's, the same as ReadNCCLTestsJSON gives.
func TestReadSniffsNCCLTestsJSON(t *testing.T) {
	doc := twinJSON(t)
	res, err := Read("t.json", bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ReadNCCLTestsJSON("t.json", bytes.NewReader(doc))
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("Read gave %s with %d artifacts, want the JSON reader's %s with %d", res.Type(), len(res.Artifacts), want.Type(), len(want.Artifacts))
	}
	if got, ok := res.Artifacts[0].(*NCCLTests); !ok || len(got.Runs) == 0 || !got.Runs[0].JSON {
		t.Errorf("Read gave %s, not the JSON runs", res.Type())
	}
}
