package main

import (
	"testing"

	"rocelab/internal/report"
	"rocelab/internal/scenario"
)

// recorder keeps what a run reports of its progress.
type recorder struct {
	done, total []int64
	final       int64
}

func (r *recorder) update(done, total int64) {
	r.done = append(r.done, done)
	r.total = append(r.total, total)
}
func (r *recorder) finish(done int64) { r.final = done }

// The progress follows the work: scheduler events done against the
// estimate, often and monotonely, ending at the events executed; and
// slicing the run for it changes nothing in the result.
func TestProgressTracksWork(t *testing.T) {
	for _, name := range []string{"incast-pfc", "incast-nopfc"} {
		s, err := loadExample(name)
		if err != nil {
			t.Fatal(err)
		}
		est := s.Estimate()
		tw, err := scenario.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		var rec recorder
		end := runWithProgress(tw, est.Events, &rec)
		executed := int64(tw.Executed())
		if len(rec.done) < 50 {
			t.Errorf("%s: %d progress updates, want at least 50", name, len(rec.done))
		}
		for i := range rec.done {
			if rec.total[i] != est.Events || i > 0 && rec.done[i] < rec.done[i-1] {
				t.Fatalf("%s: update %d: %d of %d after %d", name, i, rec.done[i], rec.total[i], rec.done[max(i-1, 0)])
			}
		}
		if rec.final != executed || rec.done[len(rec.done)-1] > executed {
			t.Errorf("%s: finished at %d, executed %d", name, rec.final, executed)
		}
		plain, _ := scenario.Build(s)
		plainEnd := plain.Run()
		var a, b []byte
		a, _ = jsonOf(report.New(tw, end))
		b, _ = jsonOf(report.New(plain, plainEnd))
		if end != plainEnd || string(a) != string(b) {
			t.Errorf("%s: a run in slices differs from one in one go", name)
		}
	}
}

func jsonOf(r *report.Run) ([]byte, error) {
	var b bytesBuffer
	err := r.WriteJSON(&b)
	return b.data, err
}

type bytesBuffer struct{ data []byte }

func (b *bytesBuffer) Write(p []byte) (int, error) { b.data = append(b.data, p...); return len(p), nil }
