package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
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
// --fail-on applies to every variant: the run exits 1 when any meets the
// condition.
func runVariants(cmd *cobra.Command, ls logSetup, s *scenario.Scenario, limits scenario.Limits, asJSON bool, outDir string, fail map[string]bool) error {
	vs := s.Variants
	twins := make([]*scenario.Twin, len(vs))
	ests := make([]int64, len(vs))
	for i, v := range vs {
		est := v.Estimate()
		if err := est.Check(limits); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("%s (variant %s): %w", v.File, v.Variant, err)}
		}
		tw, err := scenario.Build(v)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("%s (variant %s): %w", v.File, v.Variant, err)}
		}
		twins[i], ests[i] = tw, est.Events
		ls.log.Info("running", "scenario", s.Name, "variant", v.Variant, "seed", v.Seed, "est_events", est.Events, "est_memory", fmt.Sprint(est.Memory))
	}
	var p *mpb.Progress
	if ls.progress {
		p = mpb.New(mpb.WithOutput(cmd.ErrOrStderr()), mpb.WithWidth(40))
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
				var sink progressSink
				if p != nil {
					sink = addBar(p, vs[i].Variant, ests[i])
				}
				ends[i] = runWithProgress(twins[i], ests[i], sink)
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
		events += twins[i].Executed()
		cmp.Variants = append(cmp.Variants, report.Variant{Name: v.Variant, Description: v.Description, Run: report.New(twins[i], ends[i])})
	}
	elapsed := time.Since(wall)
	ls.log.Info("done", "variants", len(vs), "events", events, "wall", elapsed.Round(time.Millisecond).String(),
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
		if err := writeManifest(outDir); err != nil {
			return err
		}
	}
	var why []string
	for _, v := range cmp.Variants {
		for _, w := range failures(v.Run, fail) {
			why = append(why, v.Name+": "+w)
		}
	}
	if len(why) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("--fail-on: %s", strings.Join(why, "; "))}
	}
	return nil
}

// variantBar is one variant's bar on a shared progress display.
type variantBar struct{ bar *mpb.Bar }

func addBar(p *mpb.Progress, name string, total int64) *variantBar {
	return &variantBar{p.AddBar(max(total, 1),
		mpb.PrependDecorators(decor.Name("simulating "+name+" ")),
		mpb.AppendDecorators(
			decor.Percentage(decor.WCSyncSpace),
			decor.CountersNoUnit(" %d of ~%d events"),
			decor.Name(", ETA "),
			decor.AverageETA(decor.ET_STYLE_GO)))}
}

func (b *variantBar) update(done, total int64) { b.bar.SetCurrent(min(done, total-1)) }
func (b *variantBar) finish(done int64)        { b.bar.SetTotal(max(done, 1), true) }

// A result is anything a command prints as text or JSON: a run, a
// comparison of variants, a calculator.
type result interface {
	WriteJSON(io.Writer) error
	WriteText(io.Writer) error
}

// writeResult writes r as JSON or text.
func writeResult(w io.Writer, asJSON bool, r result) error {
	out := bufio.NewWriter(w)
	var err error
	if asJSON {
		err = r.WriteJSON(out)
	} else {
		err = r.WriteText(out)
	}
	if err == nil {
		err = out.Flush()
	}
	return err
}
