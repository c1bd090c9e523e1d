package main

import (
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"rocelab/examples"
)

type diagJSON struct {
	Findings []struct {
		ID, Severity, Title string
	} `json:"findings"`
}

// checkJSONTwin: the run's nccl-tests JSON, diagnosed with the incident
// in place of the table (summary.txt), gives the nccl-tests findings the
// table does; a JSON the run cut short says so instead.
func checkJSONTwin(t *testing.T, run, dir string, withTable diagJSON) {
	t.Helper()
	docs, _ := filepath.Glob(filepath.Join(dir, "*_perf.json"))
	if len(docs) == 0 {
		return
	}
	var args []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() != "summary.txt" && !strings.HasPrefix(d.Name(), ".") {
			args = append(args, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := rocelab(t, append([]string{"diagnose", "--json"}, args...)...)
	var res diagJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%s: diagnose without summary.txt: exit %d: %v\n%s", run, code, err, stderr)
	}
	tests := func(r diagJSON) (fs []string, ended bool) {
		for _, f := range r.Findings {
			if strings.HasPrefix(f.ID, "nccltests.json.") {
				ended = true
			}
			if strings.HasPrefix(f.ID, "nccltests.") && !strings.HasPrefix(f.ID, "nccltests.json.") {
				fs = append(fs, f.Severity+" "+f.ID+": "+f.Title)
			}
		}
		return fs, ended
	}
	want, _ := tests(withTable)
	got, ended := tests(res)
	if !ended && !slices.Equal(got, want) {
		t.Errorf("%s: the nccl-tests findings from %s differ from the table's:\n got %q\nwant %q", run, filepath.Base(docs[0]), got, want)
	}
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

// loopFaults is, for every example and every variant (EXAMPLE/VARIANT),
// the finding the doctor must raise at warn or error on the run's --out
// directory, or "" for a healthy run, on which it must raise nothing at
// warn or error. An example missing here fails the test: a new example
// says what it injects.
var loopFaults = map[string]string{
	"single-flow":              "",
	"cc-compare/dcqcn":         "counters.dcqcn.hotspot",  // a 16:1 incast
	"cc-compare/timely":        "counters.pause.ratio",    // TIMELY needs PFC to hold it
	"cc-compare/hpcc":          "",                        // HPCC holds the queue near zero
	"load-balancing/ecmp":      "counters.dcqcn.hotspot",  // two ring crossings on one uplink
	"load-balancing/flowlet":   "",                        // 97% of the ceiling on this seed
	"load-balancing/adaptive":  "",                        // reordering needs uneven queues: 5 retransmitted packets before -g 8's launch skew staggered the ring's start, none since
	"load-balancing/spray":     "counters.retransmission", // a NAK storm
	"load-balancing/spray-ooo": "",
	"storage-read/lossless":    "nccltests.busbw.low", // the READ responses share the job's links (pause 0.03 % since DCQCN covers priority 1)
	"storage-read/lossy":       "counters.discards",   // the storage class drops
	"dcqcn-fairness":           "",                    // DCQCN shares a full link: CNPs answered, nothing to fix
	"gdr/gdr-off":              "nccl.gdr.disabled",
	"gdr/gdr-on":               "",
	"gdr/acs-on":               "host.pcie.acs",      // ReqRedir+ CmpltRedir+ on the switches' downstream ports
	"gdr/nic-gen3-x8":          "host.pcie.degraded", // 8GT/s x8 of 32GT/s x16: 63 Gb/s under a 400G port
	"headroom-short":           "counters.discards",  // headroom overflow on the lossless priority
	"incast-dcqcn":             "counters.dcqcn.hotspot",
	"incast-nopfc":             "counters.pfc.not_on_roce_priority",
	"incast-pfc":               "counters.pause.ratio",
	"leafspine-permutation":    "counters.dcqcn.hotspot", // ECMP collisions on the uplinks
	"lossy-link":               "counters.phy.fcs",       // the dirty link itself, beside the retransmissions it causes
	"pause-storm":              "counters.pause.from_host",
	"perftest":                 "",
	"pfc-deadlock":             "switch.pfcwd.storm",
	"prio-mismatch":            "counters.pfc.not_on_roce_priority",
	"dscp-map":                 "counters.pfc.not_on_roce_priority", // the switch's map, not the hosts'
	"qps-ecmp/qps-1":           "counters.dcqcn.hotspot",            // two rings' flows on one uplink
	"qps-ecmp/qps-4":           "",
	"retry-exceeded":           "counters.retry_exceeded",
	"tuning-case/as-found":     "counters.dcqcn.slowed", // ECN marks every queued packet: DCQCN slowed by marking
	"tuning-case/tuned":        "",
}

// TestTwinDoctorLoop: for every example and every variant of the default
// scenario, `run --out` then `diagnose` with no flags names the fault the
// scenario injects at warn or error, and raises nothing at warn or error
// on a healthy run. The --out directory is a complete incident (NIC speed,
// NICs per node, NCCL log, switch ports), so the doctor needs no flag.
func TestTwinDoctorLoop(t *testing.T) {
	ents, err := examples.FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	// Every run loopFaults names must have run: a variant renamed or
	// removed from its example would otherwise drop out unnoticed. The
	// subtests are parallel, so this is checked once they are done.
	var mu sync.Mutex
	started, ran := map[string]bool{}, map[string]bool{}
	t.Cleanup(func() {
		for run := range loopFaults {
			if ex, _, _ := strings.Cut(run, "/"); started[ex] && !ran[run] {
				t.Errorf("loopFaults names %s, which no example run produced", run)
			}
		}
	})
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mu.Lock()
			started[name] = true
			mu.Unlock()
			dir := t.TempDir()
			if code, _, stderr := rocelab(t, "run", "-q", "--example", name, "--out", dir); code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			runs := map[string]string{name: dir}
			if _, err := os.Stat(filepath.Join(dir, "result.json")); err != nil {
				subs, _ := os.ReadDir(dir)
				runs = map[string]string{}
				for _, v := range subs {
					if v.IsDir() {
						runs[name+"/"+v.Name()] = filepath.Join(dir, v.Name())
					}
				}
			}
			mu.Lock()
			for run := range runs {
				ran[run] = true
			}
			mu.Unlock()
			for run, d := range runs {
				want, ok := loopFaults[run]
				if !ok {
					t.Errorf("%s: not in loopFaults: say which finding it must raise, or \"\" for a healthy run", run)
					continue
				}
				code, out, stderr := rocelab(t, "diagnose", "--json", d)
				var res diagJSON
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("%s: diagnose exit %d: %v\n%s", run, code, err, stderr)
				}
				var raised []string
				named := false
				for _, f := range res.Findings {
					if f.ID == "input.unrecognized" {
						t.Errorf("%s: the twin's own files are unrecognised: %s", run, f.Title)
					}
					if f.Severity == "warn" || f.Severity == "error" {
						raised = append(raised, f.Severity+" "+f.ID+": "+f.Title)
						named = named || f.ID == want
					}
				}
				if run == "tuning-case/as-found" {
					// The text report shows one phenomenon once: the eight
					// switch ports that lead to host NICs are one entry.
					_, text, _ := rocelab(t, "diagnose", d)
					if n := strings.Count(text, "(switch.lldp.host)"); n != 1 || !strings.Contains(text, "switch port to host NIC: 8 ports (leaf0-p0, leaf0-p1,") {
						t.Errorf("%s: %d switch.lldp.host entries in the text report, want 1 group", run, n)
					}
					// The run's own report alone holds nothing to diagnose.
					code, _, stderr := rocelab(t, "diagnose", filepath.Join(d, "result.json"))
					if code != 2 || !strings.Contains(stderr, "rocelab run's own report") {
						t.Errorf("diagnose result.json: exit %d %s", code, stderr)
					}
				}
				checkJSONTwin(t, run, d, res)
				switch {
				case want == "" && len(raised) > 0:
					t.Errorf("%s is healthy, the doctor raises:\n  %s", run, strings.Join(raised, "\n  "))
				case want != "" && !named:
					t.Errorf("%s: no %s at warn or error; raised:\n  %s", run, want, strings.Join(raised, "\n  "))
				}
			}
		})
		seen[name] = true
	}
	for run := range loopFaults {
		if ex, _, _ := strings.Cut(run, "/"); !seen[ex] {
			t.Errorf("loopFaults names %s, which is not an example", run)
		}
	}
}

// Where the hosts send RoCE on the PFC priority and the switch counts it
// on another (dscp-map), the doctor tells to fix the switch's DSCP map,
// not the hosts' QoS; where the hosts send it off the PFC priority
// themselves (prio-mismatch), the fix stays on the hosts. A switch port is
// never told to run a host's tool on itself, and its drops are a switch
// port's, not a NIC's.
func TestDoctorNamesWhichSideMisclassifies(t *testing.T) {
	for ex, want := range map[string]struct{ fix, not string }{
		"dscp-map":      {"Fix the switch, not the host: map RoCE's DSCP (26 for NCCL_IB_TC=106) to priority 3", "mlnx_qos"},
		"prio-mismatch": {"mlnx_qos -i", "DSCP_TO_TC_MAP"},
	} {
		dir := t.TempDir()
		if code, _, stderr := rocelab(t, "run", "-q", "--example", ex, "--out", dir); code != 0 {
			t.Fatalf("%s: run: exit %d: %s", ex, code, stderr)
		}
		_, out, _ := rocelab(t, "diagnose", "--json", dir)
		var res struct {
			Findings []struct{ ID, Subject, Fix string } `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range res.Findings {
			if f.ID != "counters.pfc.not_on_roce_priority" {
				continue
			}
			n++
			if strings.HasPrefix(f.Subject, "sw0-") && strings.Contains(f.Fix, "mlnx_qos -i "+f.Subject) {
				t.Errorf("%s %s: a host's tool on a switch port: %q", ex, f.Subject, f.Fix)
			}
			if !strings.Contains(f.Fix, want.fix) || strings.Contains(f.Fix, want.not) {
				t.Errorf("%s %s: fix %q, want %q and no %q", ex, f.Subject, f.Fix, want.fix, want.not)
			}
		}
		if n == 0 {
			t.Errorf("%s: no counters.pfc.not_on_roce_priority", ex)
		}
		for _, f := range res.Findings {
			if f.ID == "counters.discards" && strings.HasPrefix(f.Subject, "sw0-") && !strings.Contains(f.Fix, "PORT_QOS_MAP") {
				t.Errorf("%s %s: switch port drops, fix %q", ex, f.Subject, f.Fix)
			}
		}
	}
}
