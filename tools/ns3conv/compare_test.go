package main

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fct.txt's lines give node ids from the addresses and times in µs; a bad
// line is reported at its line and column.
func TestReadFCT(t *testing.T) {
	got, err := readFCT("fct.txt", strings.NewReader("# comment\n0b000901 0b000001 10000 101 2000000 1000 2126977 171185\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := ns3Flow{src: 9, dst: 0, sport: 10000, size: 2000000, start: 1, fct: 2126.977, standalone: 171.185}
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, c := range []struct{ in, want string }{
		{"0b000901 0b000001 10000 101 2000000 0 -5 171185\n", "fct.txt:1:39: field 7"},
		{"0b000901 zz 10000 101 2000000 0 5 171185\n", "fct.txt:1:10: field 2"},
		{"0b000901 0b000001 10000\n", "fct.txt:1:1: expected fct.txt's 8 fields"},
		{"# nothing\n", "fct.txt: no flow completions"},
	} {
		if _, err := readFCT("fct.txt", strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
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

var position = regexp.MustCompile(`^x\.txt(:\d+:\d+)?: `)

// The readers never panic; they return lines or an error that says
// where.
func FuzzReadFCT(f *testing.F) {
	f.Add("0b000901 0b000001 10000 101 2000000 0 2126977 171185\n")
	f.Add("# c\n\n0b000001 0b000101 1 2 3 4 5 6\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := readFCT("x.txt", strings.NewReader(in))
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

// Slowdowns are bucketed by size rank and read as fct_analysis.py reads
// them: each percentile is a[int(len·p)], a slowdown under 1 counts as 1.
func TestSlowdowns(t *testing.T) {
	var flows []flowResult
	for i := range 200 {
		// sizes 1..200; ns-3 takes 2x standalone, rocelab 3x, the
		// largest flow of each bucket 10x in rocelab; flow 0 beats its
		// standalone time
		f := flowResult{size: int64(i + 1), standalone: 10, ns3: 20, rocelab: 30}
		switch i {
		case 0:
			f.ns3 = 5
		case 99, 159, 189, 199:
			f.rocelab = 100
		}
		flows = append(flows, f)
	}
	slices.Reverse(flows)
	bs := slowdowns(flows)
	if len(bs) != 4 {
		t.Fatalf("%d buckets, want 4", len(bs))
	}
	for i, want := range []struct {
		upTo int64
		n    int
	}{{100, 100}, {160, 60}, {190, 30}, {200, 10}} {
		b := bs[i]
		if b.upTo != want.upTo || b.n != want.n {
			t.Errorf("bucket %d: up to %d, %d flows; want %d, %d", i, b.upTo, b.n, want.upTo, want.n)
		}
		if b.ns3[0] != 2 || b.rocelab[0] != 3 || b.rocelab[2] != 10 {
			t.Errorf("bucket %d: p50 %g/%g, rocelab p99 %g; want 2/3, 10", i, b.ns3[0], b.rocelab[0], b.rocelab[2])
		}
	}
	if got := bs[0].ns3[0]; got != 2 { // flow 0's 0.5 counts as 1, below the median
		t.Errorf("first bucket's ns-3 median %g", got)
	}
	if r := bs[3].fctRatio; math.Abs(r-(9*30+100)/(10*20.0)) > 1e-12 {
		t.Errorf("largest bucket's FCT ratio %g", r)
	}
}
