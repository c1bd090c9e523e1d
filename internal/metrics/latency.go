// Package metrics holds the twin's measurement instruments: per-priority
// latency histograms, sampled time series, and the four health targets.
// It knows nothing of the fabric; the fabric feeds it.
package metrics

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// Latency keeps HDR histograms of one-way packet latency per priority and
// per traffic class, in nanoseconds with three significant digits, from
// 1 ns to 10 s. Each histogram (about 200 KB) is made when its priority
// or class records its first packet: a domain of a split run, or a run
// on one priority, holds only those it uses.
type Latency struct {
	h     [8]*hdrhistogram.Histogram
	class [packet.NumClasses]*hdrhistogram.Histogram
}

// The histograms' range and precision.
const (
	lowest, highest = 1, 10_000_000_000
	digits          = 3
)

// NewLatency returns empty histograms.
func NewLatency() *Latency { return &Latency{} }

// of returns *h, made if it is not yet; small enough to inline on the
// per-packet path, where the histogram almost always exists.
func of(h **hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if *h == nil {
		made(h)
	}
	return *h
}

// made makes *h.
func made(h **hdrhistogram.Histogram) { *h = hdrhistogram.New(lowest, highest, digits) }

// Record adds one packet's latency: of class c, received on priority prio.
func (l *Latency) Record(c packet.Class, prio uint8, d unit.Time) {
	l.RecordN(c, prio, d, 1)
}

// RecordN adds n packets of one latency (an engine that estimates a
// message's latency rather than timing each packet). Values above 10 s
// saturate: the error is the only outcome and is not actionable.
func (l *Latency) RecordN(c packet.Class, prio uint8, d unit.Time, n int64) {
	ns := max(int64(d/unit.Nanosecond), 1)
	_ = of(&l.h[prio&7]).RecordValues(ns, n)
	_ = of(&l.class[c]).RecordValues(ns, n)
}

// Histogram returns priority prio's latencies as plain data.
func (l *Latency) Histogram(prio int) Histogram { return histogramOf(l.h[prio]) }

// ClassHistogram returns class c's latencies as plain data.
func (l *Latency) ClassHistogram(c packet.Class) Histogram { return histogramOf(l.class[c]) }

// Count returns how many packets priority prio recorded.
func (l *Latency) Count(prio int) int64 {
	if l.h[prio] == nil {
		return 0
	}
	return l.h[prio].TotalCount()
}

// Merge adds every value recorded in o, exactly: the histograms share
// their layout, so the merged one is the one a single recorder would hold.
func (l *Latency) Merge(o *Latency) {
	merge(l.h[:], o.h[:])
	merge(l.class[:], o.class[:])
}

// merge adds each histogram of src that exists into dst's.
func merge(dst, src []*hdrhistogram.Histogram) {
	for i, h := range src {
		if h != nil {
			of(&dst[i]).Merge(h)
		}
	}
}
