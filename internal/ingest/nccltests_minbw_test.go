package ingest

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// With NCCL_TESTS_MIN_BW set, nccl-tests prints its verdict on the
// average after it ("# Avg bus bandwidth    : 179.512 FAILED", src/util.cu
// writeResultFooter) and writes it as the footer's "okay" in its JSON
// ("true", "false" or "unchecked", a string). Both were dropped: the
// average was read, the verdict not (SYNTHETIC fixture, from 2.19.6's
// format strings).
func TestNCCLTestsAvgCheck(t *testing.T) {
	data, err := os.ReadFile("../../testdata/synthetic/allreduce-2.19.6-2n-16rank-min-bw-failed-per-iter-skip-memory-report-synthetic.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{"", "", AvgFailed},
		{"179.512 FAILED", "179.512 OK", AvgOK},
		{"179.512 FAILED", "179.512 ", ""},
	} {
		x := parseTests(t, strings.Replace(string(data), c.from, c.to, 1))
		r := x.Runs[len(x.Runs)-1]
		if r.AvgBusBW != 179.512 || r.AvgCheck != c.want || r.AvgEvidence.Line != 34 {
			t.Errorf("%q: average %v %q at line %d; want 179.512 %q at line 34", c.to, r.AvgBusBW, r.AvgCheck, r.AvgEvidence.Line, c.want)
		}
		if len(r.Rows) != 3 || r.Rows[2].In.BusBW != 180.09 || len(x.Garbled) != 0 {
			t.Errorf("%q: %d rows, garbled %v; want the 3 per-iteration rows read", c.to, len(r.Rows), x.Garbled)
		}
	}
	doc := twinJSON(t)
	for _, c := range []struct{ okay, want string }{
		{`"unchecked"`, ""},
		{`"false"`, AvgFailed},
		{`"true"`, AvgOK},
		{`false`, AvgFailed},
	} {
		d := bytes.Replace(doc, []byte(`"okay":"unchecked"`), []byte(`"okay":`+c.okay), 1)
		r := readJSONTests(t, d).Runs[0]
		if r.AvgCheck != c.want || r.AvgBusBW != 4.56748 {
			t.Errorf("okay %s: %q, average %v; want %q", c.okay, r.AvgCheck, r.AvgBusBW, c.want)
		}
	}
}
