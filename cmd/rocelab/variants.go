package main

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"rocelab/internal/report"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// runVariants runs every variant of s, independent twins spread over the
// cores, and prints them side by side.
func runVariants(cmd *cobra.Command, s *scenario.Scenario, limits scenario.Limits, asJSON bool, outDir string) error {
	vs := s.Variants
	twins := make([]*scenario.Twin, len(vs))
	for i, v := range vs {
		if err := v.Estimate().Check(limits); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("%s (variant %s): %w", v.File, v.Variant, err)}
		}
		tw, err := scenario.Build(v)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("%s (variant %s): %w", v.File, v.Variant, err)}
		}
		twins[i] = tw
	}
	var p *mpb.Progress
	if stderr := cmd.ErrOrStderr(); isTerminal(stderr) {
		p = mpb.New(mpb.WithOutput(stderr), mpb.WithWidth(40))
	}
	ends := make([]unit.Time, len(vs))
	wall := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(len(vs), runtime.NumCPU()); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				var bar *mpb.Bar
				if p != nil {
					bar = workBar(p, vs[i].Variant, twins[i])
				}
				ends[i] = runTracked(twins[i], bar)
			}
		}()
	}
	for i := range vs {
		work <- i
	}
	close(work)
	wg.Wait()
	if p != nil {
		p.Wait()
	}
	var events uint64
	cmp := &report.Comparison{Name: s.Name}
	for i, v := range vs {
		events += twins[i].Net.Sched.Executed()
		cmp.Variants = append(cmp.Variants, report.Variant{Name: v.Variant, Description: v.Description, Run: report.New(twins[i], ends[i])})
	}
	elapsed := time.Since(wall)
	slog.Info("done", "variants", len(vs), "events", events, "wall", elapsed.Round(time.Millisecond).String(),
		"events_per_s", fmt.Sprintf("%.3g", float64(events)/elapsed.Seconds()))
	if err := writeResult(cmd.OutOrStdout(), asJSON, cmp); err != nil {
		return err
	}
	if outDir != "" {
		for i, v := range cmp.Variants {
			if err := v.Run.WriteDir(filepath.Join(outDir, v.Name), twins[i].Net); err != nil {
				return err
			}
		}
	}
	return nil
}

// workBar adds a progress bar that follows a twin's workload (nccl-tests
// batches, training iterations) with an ETA, or its simulated time.
func workBar(p *mpb.Progress, name string, tw *scenario.Twin) *mpb.Bar {
	_, total, ok := tw.WorkProgress()
	if !ok {
		total = 200
	}
	return p.AddBar(int64(max(total, 1)),
		mpb.PrependDecorators(decor.Name("simulating "+name+" "), decor.CountersNoUnit("%d/%d")),
		mpb.AppendDecorators(decor.Percentage(), decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
}

// runTracked runs tw to completion in slices of simulated time, moving
// bar (if any) with the workload; slicing does not change the order of
// events.
func runTracked(tw *scenario.Twin, bar *mpb.Bar) unit.Time {
	limit := tw.Scenario.Duration
	const slice = unit.Millisecond
	for !tw.Done() && tw.Net.Sched.Now() < limit {
		tw.RunUntil(min(tw.Net.Sched.Now()+slice, limit))
		if bar != nil {
			if done, _, ok := tw.WorkProgress(); ok {
				bar.SetCurrent(int64(done))
			} else {
				bar.SetCurrent(int64(200 * tw.Net.Sched.Now() / limit))
			}
		}
	}
	if bar != nil {
		bar.SetTotal(-1, true)
	}
	return tw.Net.Sched.Now()
}
