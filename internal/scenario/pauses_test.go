package scenario

import (
	"testing"

	"rocelab/internal/unit"
)

// The pause series agree with the port counters: each is cumulative
// (never falls), its last point is the port's rx pause duration at that
// sample, and the run's worst port holds the worst series. A port that
// never received pause has no series; the queue levels are the
// scenario's ECN profile and an XOFF level inside the shared buffer.
func TestPauseSeriesMatchCounters(t *testing.T) {
	tw, end := run(t, example(t, "incast-pfc"))
	o := tw.Observe()
	if len(o.Pauses) == 0 {
		t.Fatal("incast-pfc paused no port")
	}
	ports := map[string]int{}
	for i, pt := range tw.Net.Ports {
		ports[pt.Name()] = i
	}
	var worst float64
	for _, p := range o.Pauses {
		pt := tw.Net.Ports[ports[p.Port]]
		vs := p.Held.Values
		for i := 1; i < len(vs); i++ {
			if vs[i] < vs[i-1] {
				t.Fatalf("%s prio %d: held time falls at point %d: %v < %v", p.Port, p.Priority, i, vs[i], vs[i-1])
			}
		}
		last := p.Held.First + unit.Time(len(vs)-1)*p.Held.Every
		if last > end {
			t.Fatalf("%s: last point at %v after the end %v", p.Port, last, end)
		}
		final := pt.Snapshot().RxPauseDuration[p.Priority]
		if got := unit.Time(vs[len(vs)-1]); got > final || final-got > end-last {
			t.Errorf("%s prio %d: last point %v, counter %v at the end (%v later)", p.Port, p.Priority, got, final, end-last)
		}
		worst = max(worst, float64(final))
	}
	if unit.Time(worst) != o.Basis.WorstPause {
		t.Errorf("worst series %v, worst pause of the health basis %v", unit.Time(worst), o.Basis.WorstPause)
	}
	for _, pt := range tw.Net.Ports {
		if pt.Snapshot().RxPause == [8]int64{} {
			for _, p := range o.Pauses {
				if p.Port == pt.Name() {
					t.Errorf("%s received no pause but has a series", p.Port)
				}
			}
		}
	}
	s := tw.Scenario.Switch
	for _, q := range o.Queues {
		lv := q.Levels
		if lv == nil || (lv.ECN == nil) != !(s.ECN.Enabled && s.ECN.Priorities&(1<<q.Priority) != 0) {
			t.Fatalf("queue %s prio %d: levels %+v", q.Port, q.Priority, lv)
		}
		if lv.ECN != nil && (lv.ECN.KminBytes != int64(s.ECN.Kmin) || lv.ECN.KmaxBytes != int64(s.ECN.Kmax)) {
			t.Errorf("queue %s: ECN %+v, scenario Kmin %d Kmax %d", q.Port, *lv.ECN, s.ECN.Kmin, s.ECN.Kmax)
		}
		lossless := s.PFC.Enabled && s.PFC.Priorities&(1<<q.Priority) != 0
		if (lv.XoffBytes != nil) != lossless || (lv.XoffBytes != nil && (*lv.XoffBytes <= 0 || *lv.XoffBytes >= int64(s.Buffer))) {
			t.Errorf("queue %s prio %d: XOFF %v (lossless %v, buffer %d)", q.Port, q.Priority, lv.XoffBytes, lossless, s.Buffer)
		}
	}
}
