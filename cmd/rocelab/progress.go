package main

import (
	"io"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// A progressSink is told the work done so far against the estimate.
type progressSink interface {
	update(done, total int64)
	finish(done int64)
}

// progressUpdates is roughly how many times a run reports its progress.
const progressUpdates = 400

// runWithProgress runs the twin to its end, reporting scheduler events done
// against the estimated events to sink (nil: none). It runs in slices of
// simulated time sized so that each executes about total/progressUpdates
// events; slicing does not change the order of events.
func runWithProgress(tw *scenario.Twin, estEvents int64, sink progressSink) unit.Time {
	limit := tw.Scenario.Duration
	if sink == nil {
		return tw.Run()
	}
	total := max(estEvents, 1)
	target := max(total/progressUpdates, 1000)
	step := max(limit/progressUpdates/16, unit.Nanosecond)
	for now := tw.Net.Now(); now < limit && !tw.Done(); now = tw.Net.Now() {
		before := int64(tw.Executed())
		tw.RunUntil(min(limit, now+step))
		n := int64(tw.Executed()) - before
		switch {
		case n < target/2 && step < limit/4:
			step *= 2
		case n > 2*target && step > unit.Nanosecond:
			step /= 2
		}
		sink.update(int64(tw.Executed()), total)
	}
	end := tw.Run()
	sink.finish(int64(tw.Executed()))
	return end
}

// barSink shows the progress as an mpb bar on a terminal: events done of
// the estimate, the simulated time reached, and the time left.
type barSink struct {
	p   *mpb.Progress
	bar *mpb.Bar
}

func newBar(w io.Writer, name string, total int64) *barSink {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40))
	bar := p.AddBar(max(total, 1),
		mpb.PrependDecorators(decor.Name("simulating "+name+" ")),
		mpb.AppendDecorators(
			decor.Percentage(decor.WCSyncSpace),
			decor.CountersNoUnit(" %d of ~%d events"),
			decor.Name(", ETA "),
			decor.AverageETA(decor.ET_STYLE_GO)))
	return &barSink{p: p, bar: bar}
}

func (b *barSink) update(done, total int64) {
	// The estimate may be low: hold the bar short of full until the end.
	b.bar.SetCurrent(min(done, total-1))
}

func (b *barSink) finish(done int64) {
	b.bar.SetTotal(max(done, 1), true)
	b.p.Wait()
}
