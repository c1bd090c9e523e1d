package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the fourteenth sweep. Each test failed before the change it
// covers.

// A perftest result row whose cell is no non-negative number is reported
// with its file, line and column instead of being passed over (synthetic
// figures; perftest 5.60 printed negative BW averages in
// linux-rdma/perftest#82).
func TestPerftestGarbledRowReported(t *testing.T) {
	const text = ` #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      5000           0.00               -12.34               0.023
`
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	f := nicMustFind(t, fs, "input.garbled", Warn, `<stdin>:2:47: expected a non-negative number in a perftest result row, got "-12.34`)
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// The same figures emphasised in Markdown are read, and judged.
func TestPerftestMarkdownBoldJudged(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/perftest/ib-send-bw-markdown-bold-bw-average-arm-perftest65.txt")}, nil, Options{}).Findings
	nicMustFind(t, fs, "perftest.bw.unjudged", Info, "best 46.5 Gb/s")
	for _, f := range fs {
		if f.ID == "input.garbled" {
			t.Errorf("garbled: %s", f.Title)
		}
	}
}
