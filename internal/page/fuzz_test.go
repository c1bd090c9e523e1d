package page

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// stamp reads any line without panicking, and a time it reads is finite;
// the lines it must read, it reads.
func FuzzStamp(f *testing.F) {
	for _, s := range []string{
		"[    8.387840] mlx5_core 0001:43:00.0: 63.008 Gb/s available PCIe bandwidth",
		"2024-03-01T12:00:01.123456Z host kernel: link down",
		"2024-03-01 12:00:01+0100 something",
		"1700000000.123456789",
		"[ 1.5", "2024-13-45T99:99:99", "", "\x00\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, v, ok := stamp(line)
		if !ok {
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || (c == uptimeClock && v < 0) {
			t.Fatalf("%q: %v on %s", line, v, c.name)
		}
	})
}

// A diagnosis page is well-formed whatever the findings say: text that is
// not UTF-8, control characters, markup and backquotes are escaped.
func FuzzDiagnosisPage(f *testing.F) {
	f.Add("title", "file.txt", "[  1.0] evidence <b>&amp;</b>", "why `cmd`", "fix ``", "Ethernet0")
	f.Add("\x00\x1b[31m", "\xff\xfe", "]]>", "<script>", "`", "'\"")
	f.Fuzz(func(t *testing.T, title, file, line, why, fix, subject string) {
		rep := &doctor.Report{
			Inputs: []doctor.InputInfo{{Path: file, Type: "nccl-log"}},
			Findings: []doctor.Finding{
				{ID: "x.y", Severity: doctor.Error, Layer: doctor.LayerRDMA, Title: title, Mechanism: why, Fix: fix, Subject: subject,
					Evidence: []doctor.Evidence{{File: file, Line: 3, Text: line}}},
				{ID: "x.y", Severity: doctor.Error, Layer: doctor.LayerRDMA, Title: why, Subject: subject + "2"},
			},
		}
		var b bytes.Buffer
		if err := Diagnosis(&b, rep, "fuzz"); err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(&b)
		d.Strict = true
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed: %v\n%s", err, strings.ToValidUTF8(b.String(), "?"))
			}
		}
	})
}
