package main

import (
	"regexp"
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
