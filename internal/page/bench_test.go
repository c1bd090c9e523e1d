package page_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"rocelab/examples"
	"rocelab/internal/page"
)

// BenchmarkDefaultPage writes the page of the default scenario (its
// variants run once, before the timer) and reports the page's bytes and
// its time as a share of that run's wall time: writing it must add under
// 10 % to the run. On a shared machine compare with -count and benchstat,
// or time the whole process (docs/html.md).
func BenchmarkDefaultPage(b *testing.B) {
	name := examples.Default[:len(examples.Default)-len(".yaml")]
	start := time.Now()
	jobs := runJobs(b, name)
	run := time.Since(start)
	var size int
	b.ResetTimer()
	for b.Loop() {
		var buf bytes.Buffer
		if err := page.Run(&buf, name, version, jobs); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(size), "page-bytes")
	b.ReportMetric(100*float64(per)/float64(run), "%-of-run")
}

// BenchmarkLargePage writes the page of 10,000 QPs and 5,000 ports.
func BenchmarkLargePage(b *testing.B) {
	o := bigObservation(10000, 5000)
	jobs := []page.Job{{Obs: o}}
	for b.Loop() {
		if err := page.Run(io.Discard, "synthetic-large", version, jobs); err != nil {
			b.Fatal(err)
		}
	}
}
