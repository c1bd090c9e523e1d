package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// ns-3 takes a start in seconds as a 64-bit binary fraction cut short, so
// a start written to the nanosecond mostly starts one early: every start
// ns-3 reported in the recorded web-search run (fct.txt's start_time) is
// ns3Seconds of the flow file's, though traffic_gen.py wrote them to the
// nanosecond and half start one before.
func TestNs3SecondsAsNs3(t *testing.T) {
	for s, want := range map[string]unit.Time{"0.000000492": 491, "2.0000678856034946": 2000067885, "2": 2000000000, "0": 0, "2.000002264": 2000002263} {
		v, _ := strconv.ParseFloat(s, 64)
		if got := ns3Seconds(v); got != want*unit.Nanosecond {
			t.Errorf("ns3Seconds(%s) = %v, want %d ns", s, got, want)
		}
	}
	flows, err := os.ReadFile("testdata/websearch/ws.txt")
	if err != nil {
		t.Fatal(err)
	}
	fct, err := os.ReadFile("testdata/websearch/fct-hp.txt")
	if err != nil {
		t.Fatal(err)
	}
	started := map[int64]int{}
	for _, l := range strings.Split(string(fct), "\n") {
		if f := strings.Fields(l); len(f) == 8 && !strings.HasPrefix(l, "#") {
			ns, _ := strconv.ParseInt(f[5], 10, 64)
			started[ns]++
		}
	}
	lines := strings.Split(strings.TrimSpace(string(flows)), "\n")[1:]
	early := 0
	for _, l := range lines {
		f := strings.Fields(l)
		v, _ := strconv.ParseFloat(f[5], 64)
		ns := int64(ns3Seconds(v) / unit.Nanosecond)
		if started[ns] == 0 {
			t.Errorf("ws.txt start %s: ns3Seconds gives %d ns, which ns-3 started no flow at", f[5], ns)
		}
		started[ns]--
		if written, _ := strconv.ParseInt(strings.Replace(f[5], ".", "", 1), 10, 64); ns < written {
			early++
		}
	}
	if early != 208 || len(lines) != 415 {
		t.Errorf("%d of %d flows start a nanosecond before the file's start, want 208 of 415", early, len(lines))
	}
}

// ns3conv writes each start so that ns-3 takes it to the nanosecond.
func TestStartSecondsExact(t *testing.T) {
	check := func(ns int64) {
		t.Helper()
		tm := unit.Time(ns) * unit.Nanosecond
		s := startSeconds(tm)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || ns3Seconds(v) != tm {
			t.Fatalf("start %d ns written %q, which ns-3 starts at %v", ns, s, ns3Seconds(v))
		}
	}
	for ns := range int64(200_000) {
		check(ns)
		check(2_000_000_000 + ns*7919)
	}
	for x := int64(1); x < 1e15; x = x*3 + 1 {
		check(x)
	}
	if s := startSeconds(492 * unit.Nanosecond); s != "0.0000004925" {
		t.Errorf("492 ns written %q, want 0.0000004925 (ns-3 takes 0.000000492 as 491 ns)", s)
	}
	if s := startSeconds(0); s != "0.000000000" {
		t.Errorf("0 written %q: a start ns-3 takes as written keeps its text", s)
	}
}
