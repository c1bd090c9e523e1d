package nccltests

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// jsonKeys lists a document's keys in order, depth first.
func jsonKeys(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	var keys []string
	var stack []bool // true inside an object, where a string token in key place is a key
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				stack = append(stack, v == '{')
				expectKey = v == '{'
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if expectKey {
				keys = append(keys, v)
				expectKey = false
				continue
			}
		}
		expectKey = len(stack) > 0 && stack[len(stack)-1]
	}
	return keys
}

// TestJSONAsNCCLTestsWritesIt: the twin's -J output of every collective
// is one line of JSON with nccl-tests 2.19.6's keys in its order
// (src/util.cu: jsonOutputInit, writeDeviceReport, writeResultHeader,
// writeBenchmarkLine*, writeResultFooter, writeErrors,
// jsonOutputFinalize), and the doctor's JSON reader gives the run its
// table parser gives.
func TestJSONAsNCCLTestsWritesIt(t *testing.T) {
	for bin := range Binaries {
		s, out := run(t, bin+" -b 64K -e 4M -f 4 -g 8 -n 2 -w 1", 2, 8)
		var b bytes.Buffer
		if err := s.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		doc := b.Bytes()
		if !json.Valid(doc) || bytes.ContainsAny(doc, "\n") || !ingest.IsNCCLTestsJSON(doc) {
			t.Fatalf("%s: not one line of nccl-tests JSON: %s", bin, doc)
		}
		keys := strings.Join(jsonKeys(t, doc), " ")
		row := "size count type redop root out_of_place time alg_bw bus_bw nwrong in_place time alg_bw bus_bw nwrong actual_iterations experiment_name"
		dev := "rank group pid hostname device device_hex device_info"
		want := "version start_time args env nccl_version config nthreads ngpus minimum_bytes maximum_bytes step_factor warmup_iters iterations aggregated_iterations validation graph blocking_collectives per_iter_timing per_iter_skip parallel_init devices " +
			dev + " " + dev + " results " + strings.Repeat(row+" ", len(s.Rows)) + "out_of_bounds count okay average_bus_bandwidth bandwidth okay errors end_time"
		if keys != want {
			t.Errorf("%s keys:\n got %s\nwant %s", bin, keys, want)
		}
		res, err := ingest.ReadNCCLTestsJSON("t.json", bytes.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		jr := res.Artifacts[0].(*ingest.NCCLTests).Runs[0]
		txt, err := ingest.Read("t.txt", strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		var tr *ingest.TestRun
		for _, a := range txt.Artifacts {
			if x, ok := a.(*ingest.NCCLTests); ok {
				tr = x.Runs[0]
			}
		}
		// The JSON carries the average as %f and the table as %g: read
		// back to the table's 6 digits, the two may differ in the last
		// one (5.6531649 prints 5.653165, then 5.65317, against 5.65316).
		if jr.Collective != tr.Collective || jr.NRanks() != tr.NRanks() || math.Abs(jr.AvgBusBW-tr.AvgBusBW) > 1e-5*math.Abs(tr.AvgBusBW) || len(jr.Rows) != len(tr.Rows) {
			t.Fatalf("%s: JSON run %s %d ranks avg %v %d rows, table %s %d avg %v %d", bin, jr.Collective, jr.NRanks(), jr.AvgBusBW, len(jr.Rows), tr.Collective, tr.NRanks(), tr.AvgBusBW, len(tr.Rows))
		}
		for i := range jr.Rows {
			a, b := jr.Rows[i], tr.Rows[i]
			a.Evidence, b.Evidence = ingest.Evidence{}, ingest.Evidence{}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s row %d: JSON %+v, table %+v", bin, i, a, b)
			}
		}
	}
}

// TestJSONEnds: a failed sweep ends as nccl-tests 2.18.5+ ends it (open
// containers closed, no footer), one the time limit stopped as a killed
// job leaves it (whole 4 KiB blocks).
func TestJSONEnds(t *testing.T) {
	s, _ := run(t, "all_reduce_perf -b 8 -e 4M -f 2 -g 8 -n 2 -w 1", 2, 8)
	full := len(s.Rows)
	s.Err = errors.New("injected")
	s.next = len(s.steps) // the last size's in-place half failed
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) || strings.Contains(b.String(), "average_bus_bandwidth") || !strings.HasSuffix(b.String(), `"nwrong":0.000000}}]}`) {
		t.Errorf("failed sweep: %s", b.String()[max(0, b.Len()-200):])
	}
	s.Err, s.Rows = nil, s.Rows[:full-2]
	b.Reset()
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if b.Len() == 0 || b.Len()%flushBlock != 0 || json.Valid(b.Bytes()) {
		t.Errorf("stopped sweep: %d bytes, valid %v", b.Len(), json.Valid(b.Bytes()))
	}
}
