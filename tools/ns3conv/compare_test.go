package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readAllFCT reads a whole fct.txt (no cut), for readFile.
func readAllFCT(file string, r io.Reader) ([]ns3Flow, error) {
	flows, _, err := readFCT(file, r, math.MaxInt64)
	return flows, err
}

// fct.txt's lines give node ids from the addresses and times in µs; a bad
// line is reported at its line and column.
func TestReadFCT(t *testing.T) {
	got, _, err := readFCT("fct.txt", strings.NewReader("# comment\n0b000901 0b000001 10000 101 2000000 1000 2126977 171185\n"), math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	want := ns3Flow{src: 9, dst: 0, sport: 10000, size: 2000000, start: 1, fct: 2126.977, standalone: 171.185, line: 2}
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// a scenario cut at 1 ms: the flows from then on are counted, not kept
	got, beyond, err := readFCT("fct.txt", strings.NewReader("0b000901 0b000001 10000 101 2000000 1000 2126977 171185\n0b000901 0b000001 10001 101 2000000 1000000 5 5\n"), 1000000)
	if err != nil || len(got) != 1 || got[0].sport != 10000 || beyond != 1 {
		t.Errorf("cut at 1 ms: %+v, beyond %d, %v", got, beyond, err)
	}
	for _, c := range []struct{ in, want string }{
		{"0b000901 0b000001 10000 101 2000000 0 -5 171185\n", "fct.txt:1:39: field 7"},
		{"0b000901 zz 10000 101 2000000 0 5 171185\n", "fct.txt:1:10: field 2"},
		{"0b000901 0b000001 10000\n", "fct.txt:1:1: expected fct.txt's 8 fields"},
		{"# nothing\n", "fct.txt: no flow completions"},
	} {
		if _, _, err := readFCT("fct.txt", strings.NewReader(c.in), math.MaxInt64); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// A pause held until its resume, another until the last event.
func TestReadPauses(t *testing.T) {
	p, err := readPauses("pfc.txt", strings.NewReader("1000 33 1 2 1\n4000 33 1 2 0\n5000 34 1 1 1\n7000 33 1 2 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.n != 3 || p.held != 5 { // 3 µs, then 2 µs to the last event, then 0
		t.Errorf("got %+v, want 3 pauses held 5 us", p)
	}
	if _, err := readPauses("pfc.txt", strings.NewReader("1000 33 1 2 7\n")); err == nil || !strings.Contains(err.Error(), "pfc.txt:1:13: field 5") {
		t.Errorf("type 7: %v", err)
	}
}

var position = regexp.MustCompile(`^x\.txt:\d+:\d+: `)

// The readers never panic; they return lines or an error that says
// where.
func FuzzReadFCT(f *testing.F) {
	f.Add("0b000901 0b000001 10000 101 2000000 0 2126977 171185\n")
	f.Add("# c\n\n0b000001 0b000101 1 2 3 4 5 6\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, _, err := readFCT("x.txt", strings.NewReader(in), math.MaxInt64)
		if err != nil {
			if !position.MatchString(err.Error()) {
				t.Errorf("error without a position: %v", err)
			}
			return
		}
		for _, g := range got {
			if g.size < 0 || g.start < 0 || g.fct < 0 || g.src < 0 || g.dst < 0 {
				t.Errorf("negative field in %+v", g)
			}
		}
	})
}

func FuzzReadPauses(f *testing.F) {
	f.Add("1000 33 1 2 1\n4000 33 1 2 0\n")
	f.Add("5 1 1 1 0\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := readPauses("x.txt", strings.NewReader(in))
		if err != nil {
			if !position.MatchString(err.Error()) {
				t.Errorf("error without a position: %v", err)
			}
			return
		}
		if p.n < 0 || p.held < 0 {
			t.Errorf("negative result %+v", p)
		}
	})
}

// whole holds a comparison to every flow completed on both sides, as the
// agreement tests need: compare itself reads a run cut short.
func whole(c *comparison, err error) (*comparison, error) {
	if err == nil && (c.ns3Unfinished > 0 || c.rocelabUnfinished > 0) {
		return nil, fmt.Errorf("%s: flows left unfinished: ns-3 %d, rocelab %d", c.name, c.ns3Unfinished, c.rocelabUnfinished)
	}
	return c, err
}

// A run that SIMULATOR_STOP_TIME cuts short leaves flows without an
// fct.txt line, and the scenario from-ns3 writes stops at the same time:
// compare reads the flows both runs completed and says how many each
// left, as htsimconv's compare does for -end. The model's own run
// stopped at 2.036 s (its first 200 MB flow done at 35.67 ms, the second
// at 36.69: fct.txt's first line alone, synthetic) had been refused ("no
// line for flow"), and rocelab's unfinished flow too ("did not
// complete"). An fct.txt line that matches no flow is still refused. The
// warnings go to stderr (they went to stdout, inside the table's output).
func TestCompareRunCutShort(t *testing.T) {
	fct, err := os.ReadFile("testdata/mix/fct.txt")
	if err != nil {
		t.Fatal(err)
	}
	first, second, _ := strings.Cut(string(fct), "\n")
	top, err := readFile("testdata/mix/topology.txt", readTopology)
	if err != nil {
		t.Fatal(err)
	}
	// the second flow's line, ns-3 finishing it at 48 ms (synthetic)
	slow := strings.Replace(second, " 36685006 ", " 48000000 ", 1)
	for _, c := range []struct{ name, stop, fct, want string }{
		{"cut short", "2.036", first + "\n", "warning: ns-3 completed 1 of the scenario's 2 flows"},
		{"a line of another run", "2.036", first + "\n0b000401 0b000101 10000 100 200000000 2000000000 36685006 16772160\n", "fct.txt:2:1: nodes 4 -> 1, sport 10000: no flow of the scenario"},
		{"two runs' lines", "2.036", first + "\n" + first + "\n", "fct.txt:2:1: nodes 3 -> 1, sport 10000: a second line for this flow (first at line 1): not one run's fct.txt"},
		// rocelab finishes both flows by 37 ms of 50
		{"stopped well before its stop time", "2.050", first + "\n", "which rocelab finished at 3"},
		{"slower up to its stop time", "2.050", slow, "warning: ns-3 has no line for flow"},
	} {
		t.Run(c.name, func(t *testing.T) {
			scen := cutShort(t, c.stop)
			file := filepath.Join(t.TempDir(), "fct.txt")
			if err := os.WriteFile(file, []byte(c.fct), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := compare(scen, 1, file, "", top.hostIDs())
			if !strings.HasPrefix(c.want, "warning: ") {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, expected %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.ns3) != 1 || got.ns3Unfinished != 1 {
				t.Fatalf("compared %d flows, unfinished ns-3 %d: expected 1, 1", len(got.ns3), got.ns3Unfinished)
			}
			// the warnings go to stderr, the table alone to stdout
			var out, warn bytes.Buffer
			got.print(&out, &warn)
			if !strings.Contains(warn.String(), c.want) || strings.Contains(out.String(), "warning") {
				t.Errorf("no %q in the warnings, or a warning in the table:\n%s\n%s", c.want, warn.String(), out.String())
			}
		})
	}
}

// The refusal looks at the rocelab-only flow that ended earliest, not the
// first in the scenario's order (synthetic, three flows): the 5 MB flow
// from node 4, done in about a millisecond, has no ns-3 line while ns-3's
// last line ends at 30 ms of 38, and is refused; the 250 MB flow listed
// first, which rocelab finished near the end, was the one judged, and the
// run passed as cut short.
func TestCompareEarliestRocelabOnly(t *testing.T) {
	scen := cutShortFlows(t, "2.045", "3\n3 1 3 100 260000000 2\n2 1 3 100 200000000 2\n4 1 3 100 5000000 2\n")
	file := filepath.Join(t.TempDir(), "fct.txt")
	if err := os.WriteFile(file, []byte("0b000201 0b000101 10000 100 200000000 2000000000 30000000 16772160\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	top, err := readFile("testdata/mix/topology.txt", readTopology)
	if err != nil {
		t.Fatal(err)
	}
	c, err := compare(scen, 1, file, "", top.hostIDs())
	if err == nil || !strings.Contains(err.Error(), "nodes 4 -> 1") {
		var out bytes.Buffer
		if c != nil {
			c.print(&out, &out)
		}
		t.Errorf("error %v, want the flow from node 4 refused; output:\n%s", err, out.String())
	}
}

// cutShort writes the scenario from-ns3 reads from testdata/mix with
// SIMULATOR_STOP_TIME stop, and returns its file.
func cutShort(t *testing.T, stop string) string {
	return cutShortFlows(t, stop, "")
}

// cutShortFlows is cutShort with flow.txt's text (not given: the mix's).
func cutShortFlows(t *testing.T, stop, flows string) string {
	dir := t.TempDir()
	cfg, err := os.ReadFile("testdata/mix/config.txt")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"config.txt":   strings.Replace(string(cfg), "SIMULATOR_STOP_TIME 4.00", "SIMULATOR_STOP_TIME "+stop, 1),
		"topology.txt": "", "flow.txt": flows, "trace.txt": "",
	} {
		if text == "" {
			b, err := os.ReadFile(filepath.Join("testdata/mix", name))
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var y bytes.Buffer
	if err := fromNs3(filepath.Join(dir, "config.txt"), &y); err != nil {
		t.Fatal(err)
	}
	scen := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(scen, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return scen
}
