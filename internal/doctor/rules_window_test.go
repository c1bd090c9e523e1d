package doctor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Item 5 of the second round: two dumps of one port in two files without
// date lines are timed by the files' modification times when --interval is
// not given, and the finding says so; --interval takes precedence.
// SYNTHETIC ethtool dumps of 10 s at 5% pause (500 ms of 10 s).
func TestWindowFromMTimes(t *testing.T) {
	dir := t.TempDir()
	dump := func(name string, pause uint64, at time.Time) string {
		p := filepath.Join(dir, name)
		text := "# synthetic: rocelab test, one ethtool dump\n[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n" +
			"     rx_prio3_pause: " + strconv.FormatUint(pause/100, 10) + "\n" +
			"     rx_prio3_pause_duration: " + strconv.FormatUint(pause, 10) + "\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t0 := time.Date(2026, 11, 30, 22, 15, 16, 0, time.UTC)
	a := dump("before.txt", 1000000, t0)
	b := dump("after.txt", 1500000, t0.Add(10*time.Second))
	f := nicMustFind(t, Diagnose([]string{a, b}, nil, Options{}).Findings, "counters.pause.ratio", Warn, "5.000% of the 10 s window")
	if !strings.Contains(f.Mechanism, "modification times") || !strings.Contains(f.Mechanism, "22:15:16.000") {
		t.Errorf("mechanism does not say how the window is timed: %s", f.Mechanism)
	}
	f = nicMustFind(t, Diagnose([]string{a, b}, nil, Options{Interval: 20 * time.Second}).Findings, "counters.pause.ratio", Warn, "2.500% of the 20 s window")
	if !strings.Contains(f.Mechanism, "--interval") {
		t.Errorf("--interval not named: %s", f.Mechanism)
	}
}
