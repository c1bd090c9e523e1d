package twin_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"rocelab/examples"
	"rocelab/internal/report"
	"rocelab/internal/scenario"
	"rocelab/internal/twin"
)

func load(t testing.TB, name string) *scenario.Scenario {
	t.Helper()
	data, err := examples.FS.ReadFile(name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load("examples/"+name+".yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jsonOf(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The readers of observations never reach into an engine: report (and so
// everything that prints a run) depends on neither the fabric nor the NIC.
func TestReportSeesNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "rocelab/internal/report").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 3 {
		t.Fatalf("go list -deps listed %d packages", len(deps))
	}
	for _, d := range deps {
		switch d {
		case "rocelab/internal/fabric", "rocelab/internal/nic", "rocelab/internal/scenario", "rocelab/internal/sim":
			t.Errorf("report depends on %s", d)
		}
	}
}

// recorder keeps what a run reports of its progress.
type recorder struct {
	done, total []int64
	final       int64
}

func (r *recorder) Update(done, total int64) {
	r.done = append(r.done, done)
	r.total = append(r.total, total)
}
func (r *recorder) Finish(done int64) { r.final = done }

// The progress follows the work: engine events done against the estimate,
// often and monotonely, ending at the events executed; and slicing the run
// for it changes nothing in the observation.
func TestProgressTracksWork(t *testing.T) {
	for _, name := range []string{"incast-pfc", "incast-nopfc"} {
		s := load(t, name)
		j := s.Job()
		ch, err := twin.Choose(&j, &twin.Config{})
		if err != nil {
			t.Fatal(err)
		}
		e, err := ch.Plan.Build()
		if err != nil {
			t.Fatal(err)
		}
		var rec recorder
		work := ch.Plan.Estimate.Work()
		end := twin.RunSliced(e, j.Duration, work, &rec)
		executed := int64(e.Events())
		if len(rec.done) < 50 {
			t.Errorf("%s: %d progress updates, want at least 50", name, len(rec.done))
		}
		for i := range rec.done {
			if rec.total[i] != work || i > 0 && rec.done[i] < rec.done[i-1] {
				t.Fatalf("%s: update %d: %d of %d after %d", name, i, rec.done[i], rec.total[i], rec.done[max(i-1, 0)])
			}
		}
		if rec.final != executed || rec.done[len(rec.done)-1] > executed {
			t.Errorf("%s: finished at %d, executed %d", name, rec.final, executed)
		}
		sliced := e.Observe()
		whole, err := twin.Run(&j, &twin.Config{})
		if err != nil {
			t.Fatal(err)
		}
		sliced.Engine.Reason = whole.Engine.Reason
		if end != whole.Sim.End || !bytes.Equal(jsonOf(t, sliced), jsonOf(t, whole)) {
			t.Errorf("%s: a run in slices differs from one in one go", name)
		}
	}
}

// Same jobs, same observations: whatever the number of workers, and
// through a JSON round trip (what a shard file carries), byte for byte.
func TestRunAllDeterministic(t *testing.T) {
	var jobs []twin.Job
	for _, seed := range []uint64{1, 2, 3} {
		s := load(t, "lossy-link")
		s.Seed = seed
		jobs = append(jobs, s.Job())
	}
	runs := map[int][][]byte{}
	for _, w := range []int{1, 2} {
		out := make([][]byte, len(jobs))
		twin.RunAll(jobs, &twin.Config{Workers: w}, func(i int, o *twin.Observation, err error) {
			if err != nil {
				t.Fatal(err)
			}
			out[i] = jsonOf(t, o)
			var back twin.Observation
			if err := json.Unmarshal(out[i], &back); err != nil {
				t.Fatal(err)
			}
			if again := jsonOf(t, &back); !bytes.Equal(again, out[i]) {
				t.Errorf("job %d: the observation changes in a JSON round trip", i)
			}
		})
		runs[w] = out
	}
	for i := range jobs {
		if !bytes.Equal(runs[1][i], runs[2][i]) {
			t.Errorf("job %d: 1 and 2 workers differ", i)
		}
	}
	if bytes.Equal(runs[1][0], runs[1][1]) {
		t.Error("seeds 1 and 2 gave the same observation: the seed does not reach the run")
	}
}

// A job over the limits is refused up front with its estimate; an engine
// the scenario has no plan for is named.
func TestChooseRefuses(t *testing.T) {
	j := load(t, "incast-pfc").Job()
	_, err := twin.Choose(&j, &twin.Config{Limits: twin.Limits{Events: 10}})
	if err == nil || !strings.Contains(err.Error(), "scenario too large") || !strings.Contains(err.Error(), "10 events allowed") {
		t.Errorf("over the limits: %v", err)
	}
	// Over packet mode's limit but not the fluid engine's: auto falls
	// back to fluid and says why.
	ch, err := twin.Choose(&j, &twin.Config{Limits: twin.Limits{Events: 1000}})
	if err != nil || ch.Plan.Engine != twin.Fluid || !strings.Contains(ch.Reason, "not packet: scenario too large") {
		t.Errorf("auto over packet's limit: %+v %v", ch, err)
	}
	if _, err := twin.Choose(&j, &twin.Config{Engine: "warp"}); err == nil || !strings.Contains(err.Error(), `no engine "warp"`) {
		t.Errorf("unknown engine: %v", err)
	}
	ch, err = twin.Choose(&j, &twin.Config{})
	if err != nil || ch.Plan.Engine != twin.Packet || !strings.Contains(ch.Reason, "fits the limits") {
		t.Errorf("auto: %+v %v", ch, err)
	}
}

// Same scenario and seed give byte-identical output, text and JSON, on
// every engine that can run the scenario (issue 15, acceptance 6): each
// run is built afresh from the file.
func TestEveryEngineDeterministic(t *testing.T) {
	for _, name := range []string{"incast-pfc", "lossy-link", "dcqcn-fairness"} {
		for _, p := range load(t, name).Job().Plans {
			var outs [2]string
			for k := range outs {
				j := load(t, name).Job()
				o, err := twin.Run(&j, &twin.Config{Engine: p.Engine})
				if err != nil {
					t.Fatalf("%s on %s: %v", name, p.Engine, err)
				}
				var text, js bytes.Buffer
				r := report.New(&o)
				if err := r.WriteText(&text); err != nil {
					t.Fatal(err)
				}
				if err := r.WriteJSON(&js); err != nil {
					t.Fatal(err)
				}
				outs[k] = text.String() + js.String()
			}
			if outs[0] != outs[1] {
				t.Errorf("%s on %s: two runs differ", name, p.Engine)
			}
		}
	}
}
