package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"rocelab/internal/workload"
)

type zzres struct {
	metric string
	vals   []float64
}

func zzmeasure(traffic *workload.Flows, jobs *Jobs) string {
	var b strings.Builder
	if jobs != nil && jobs.Sweep != nil {
		for _, r := range jobs.Sweep.Rows {
			fmt.Fprintf(&b, "size %d time %.1fus busbw %.3f; ", r.Size, r.Out.Time, r.Out.BusBW)
		}
	}
	if jobs != nil && jobs.Training != nil {
		fmt.Fprintf(&b, "iter %v dp %v pp %v", jobs.Training.Report.Iteration, jobs.Training.Report.DP, jobs.Training.Report.PP)
	}
	var fct []float64
	for i := range traffic.Flows() {
		if d, ok := traffic.State(i).FCT(); ok {
			fct = append(fct, d.Micros())
		}
	}
	if len(fct) > 0 {
		sort.Float64s(fct)
		fmt.Fprintf(&b, "fct p50 %.1f p99 %.1f max %.1f n %d", fct[len(fct)/2], fct[(len(fct)*99)/100], fct[len(fct)-1], len(fct))
	}
	return b.String()
}

func TestZZAgree(t *testing.T) {
	files, _ := filepath.Glob(os.Getenv("ZZGLOB"))
	only := os.Getenv("ZZCASE")
	pk := os.Getenv("ZZPACKET") != ""
	for _, f := range files {
		if only != "" && !strings.Contains(f, only) {
			continue
		}
		s, err := LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		ft, err := BuildFluid(s)
		if err != nil {
			t.Fatal(err)
		}
		ft.Engine.RunUntil(s.Duration)
		t.Logf("%s fluid (%v, %d ev): %s", s.Name, time.Since(t0).Round(time.Millisecond), ft.Engine.Events(), zzmeasure(ft.Traffic, ft.Jobs))
		if pk {
			t0 = time.Now()
			tw, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			tw.Run()
			t.Logf("%s packet (%v): %s", s.Name, time.Since(t0).Round(time.Millisecond), zzmeasure(tw.Traffic, tw.Jobs))
		}
	}
}
