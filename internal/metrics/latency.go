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
// 1 ns to 10 s.
type Latency struct {
	h     [8]*hdrhistogram.Histogram
	class [packet.NumClasses]*hdrhistogram.Histogram
}

// NewLatency returns empty histograms.
func NewLatency() *Latency {
	l := &Latency{}
	for i := range l.h {
		l.h[i] = hdrhistogram.New(1, 10_000_000_000, 3)
	}
	for i := range l.class {
		l.class[i] = hdrhistogram.New(1, 10_000_000_000, 3)
	}
	return l
}

// Record adds one packet's latency: of class c, received on priority prio.
func (l *Latency) Record(c packet.Class, prio uint8, d unit.Time) {
	ns := int64(d / unit.Nanosecond)
	if ns < 1 {
		ns = 1
	}
	// Values above 10 s saturate: the error is the only outcome and is not
	// actionable.
	_ = l.h[prio&7].RecordValue(ns)
	_ = l.class[c].RecordValue(ns)
}

// ClassCount returns how many packets of class c were recorded.
func (l *Latency) ClassCount(c packet.Class) int64 { return l.class[c].TotalCount() }

// ClassQuantile returns the q-th percentile (0..100) of class c's latency.
func (l *Latency) ClassQuantile(c packet.Class, q float64) unit.Time {
	return unit.Time(l.class[c].ValueAtQuantile(q)) * unit.Nanosecond
}

// Count returns how many packets priority prio recorded.
func (l *Latency) Count(prio int) int64 { return l.h[prio].TotalCount() }

// Quantile returns the q-th percentile (0..100) of priority prio's latency.
func (l *Latency) Quantile(prio int, q float64) unit.Time {
	return unit.Time(l.h[prio].ValueAtQuantile(q)) * unit.Nanosecond
}

// Max returns the largest latency recorded on priority prio.
func (l *Latency) Max(prio int) unit.Time { return unit.Time(l.h[prio].Max()) * unit.Nanosecond }

// Mean returns the mean latency on priority prio.
func (l *Latency) Mean(prio int) unit.Time {
	return unit.Time(l.h[prio].Mean() * float64(unit.Nanosecond))
}

// QuantileOf returns the q-th percentile over the priorities in mask.
func (l *Latency) QuantileOf(mask uint8, q float64) unit.Time {
	m := hdrhistogram.New(1, 10_000_000_000, 3)
	for p := 0; p < 8; p++ {
		if mask&(1<<p) != 0 {
			m.Merge(l.h[p])
		}
	}
	return unit.Time(m.ValueAtQuantile(q)) * unit.Nanosecond
}

// Merge adds every value recorded in o, exactly: the histograms share
// their layout, so the merged one is the one a single recorder would hold.
func (l *Latency) Merge(o *Latency) {
	for i := range l.h {
		l.h[i].Merge(o.h[i])
	}
	for i := range l.class {
		l.class[i].Merge(o.class[i])
	}
}
