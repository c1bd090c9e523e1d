package main

import (
	"io"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"rocelab/internal/twin"
)

// progressBars shows each running job as an mpb bar on a terminal: events
// done of the estimate, and the time left. It implements twin.Progress.
type progressBars struct{ p *mpb.Progress }

func newProgressBars(w io.Writer) *progressBars {
	return &progressBars{mpb.New(mpb.WithOutput(w), mpb.WithWidth(40))}
}

// Start implements twin.Progress.
func (b *progressBars) Start(title string, work int64) twin.Meter {
	return &jobBar{b.p.AddBar(max(work, 1),
		mpb.PrependDecorators(decor.Name("simulating "+title+" ")),
		mpb.AppendDecorators(
			decor.Percentage(decor.WCSyncSpace),
			decor.CountersNoUnit(" %d of ~%d events"),
			decor.Name(", ETA "),
			decor.AverageETA(decor.ET_STYLE_GO)))}
}

// counter adds a bar that counts finished items, such as tune's
// candidates.
func (b *progressBars) counter(title string, total int) *mpb.Bar {
	return b.p.AddBar(int64(total), mpb.PrependDecorators(decor.Name(title), decor.CountersNoUnit(" %d/%d")),
		mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)))
}

// wait waits for the bars to finish drawing.
func (b *progressBars) wait() { b.p.Wait() }

// jobBar is one job's bar.
type jobBar struct{ bar *mpb.Bar }

// Update implements twin.Meter. The estimate may be low: the bar stays
// short of full until the end.
func (b *jobBar) Update(done, total int64) { b.bar.SetCurrent(min(done, total-1)) }

// Finish implements twin.Meter.
func (b *jobBar) Finish(done int64) { b.bar.SetTotal(max(done, 1), true) }
