package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
)

type diagJSON struct {
	Findings []struct {
		ID, Severity, Title string
	} `json:"findings"`
}

// diagnoseOut runs the example with --out and diagnoses the directory.
func diagnoseOut(t *testing.T, example string) (string, diagJSON) {
	t.Helper()
	dir := t.TempDir()
	if code, _, stderr := rocelab(t, "run", "--example", example, "--out", dir); code != 0 {
		t.Fatalf("run %s: exit %d: %s", example, code, stderr)
	}
	_, out, stderr := rocelab(t, "diagnose", "--json", dir)
	var d diagJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("diagnose %s: %v\n%s", example, err, stderr)
	}
	return dir, d
}

// TestTwinPauseRatioOverWindow: the twin's --out dumps are a before/after
// pair with simulated times, so the doctor judges the PFC pause time over
// the run and finds the ratio the twin's health table reports (its worst
// port), within 1%.
func TestTwinPauseRatioOverWindow(t *testing.T) {
	dir, d := diagnoseOut(t, "incast-pfc")
	raw, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Health struct {
			PFCPauseRatio struct{ Value float64 } `json:"pfc_pause_ratio"`
		} `json:"health"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	want := res.Health.PFCPauseRatio.Value
	re := regexp.MustCompile(`paused ([0-9.]+)% of the ([0-9.]+) ms window`)
	worst := 0.0
	for _, f := range d.Findings {
		if f.ID != "counters.pause.ratio" {
			continue
		}
		m := re.FindStringSubmatch(f.Title)
		if m == nil {
			t.Fatalf("title %q", f.Title)
		}
		if m[2] != "10.95" {
			t.Errorf("window %s ms, want the run's 10.95 ms", m[2])
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		worst = math.Max(worst, v/100)
	}
	if want < 0.5 || math.Abs(worst-want) > 0.01*want {
		t.Errorf("worst pause ratio %.5f, twin's health table %.5f (more than 1%% apart)", worst, want)
	}
}

// TestTwinOutDiagnoses: every example's --out directory (ethtool and
// hw_counters dumps as before/after pairs) gives the findings of what the
// example does: the pause ratio only where ports were paused,
// retransmission where packets were lost; these run without DCQCN, so their
// NICs send Not-ECT and nothing is marked.
func TestTwinOutDiagnoses(t *testing.T) {
	for ex, want := range map[string][]string{
		"single-flow":    {"counters.pfc.ok", "input.unrecognized"},
		"incast-pfc":     {"counters.pause.ratio", "counters.pfc.ok", "input.unrecognized"},
		"incast-nopfc":   {"counters.discards", "counters.pfc.not_on_roce_priority", "counters.retransmission", "input.unrecognized"},
		"headroom-short": {"counters.discards", "counters.pause.ratio", "counters.pfc.ok", "counters.retransmission", "input.unrecognized"},
	} {
		_, d := diagnoseOut(t, ex)
		seen := map[string]bool{}
		for _, f := range d.Findings {
			seen[f.ID] = true
		}
		var got []string
		for id := range seen {
			got = append(got, id)
		}
		sort.Strings(got)
		if strconv.Quote(sortedJoin(got)) != strconv.Quote(sortedJoin(want)) {
			t.Errorf("%s: finding ids %v, want %v", ex, got, want)
		}
	}
}

func sortedJoin(xs []string) string {
	s := append([]string(nil), xs...)
	sort.Strings(s)
	out := ""
	for _, x := range s {
		out += x + " "
	}
	return out
}

// TestTwinFaultsNamed: the doctor, run on the --out directory of each
// example that injects a fault, names that fault.
func TestTwinFaultsNamed(t *testing.T) {
	for ex, want := range map[string]string{
		"lossy-link":     "counters.retransmission",
		"prio-mismatch":  "counters.pfc.not_on_roce_priority",
		"incast-dcqcn":   "counters.ecn.heavy_marking",
		"retry-exceeded": "counters.retry_exceeded",
		"pause-storm":    "counters.pause.from_host",
		"pfc-deadlock":   "switch.pfcwd.storm",
	} {
		_, d := diagnoseOut(t, ex)
		found := false
		for _, f := range d.Findings {
			found = found || f.ID == want
		}
		if !found {
			t.Errorf("%s: no %s finding", ex, want)
		}
	}
}
