// Package metrics holds the twin's measurement instruments: per-priority
// latency histograms, sampled time series, and the four health targets.
// It knows nothing of the fabric; the fabric feeds it.
package metrics

import (
	"math/bits"

	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// Latency keeps histograms of one-way packet latency per priority and per
// traffic class, in nanoseconds with three significant digits, from 1 ns
// to 10 s: HDR histograms, each the dense counts array hdrhistogram-go
// would keep, indexed by the same arithmetic (geometry), so that an
// export is the buckets the library's histogram would give. Recording
// is an index of constant shifts and an add, where the library's call
// took about sixty instructions. Each histogram (about 200 KB) is made when its priority
// or class records its first packet: a domain of a split run, or a run
// on one priority, holds only those it uses.
type Latency struct {
	h     [8][]int64
	class [packet.NumClasses][]int64
}

// The histograms' range and precision, and their geometry as constants
// (geometryOf's for that range, as TestLatencyAgreesWithHDR checks): the
// unit is 1 ns, each bucket holds 1<<latencyHalf sub-buckets of its
// upper half, and there are latencyCounts counts.
const (
	lowest, highest = 1, 10_000_000_000
	digits          = 3
	latencyHalf     = 10
	latencyCounts   = 25 << latencyHalf
)

// latencyIndex is geometry.index in the histograms' geometry: the index
// that counts v >= 1.
func latencyIndex(v int64) int {
	b := bits.Len64(uint64(v)|(2<<latencyHalf-1)) - (latencyHalf + 1)
	return b<<latencyHalf + int(uint64(v)>>uint(b))
}

// NewLatency returns empty histograms.
func NewLatency() *Latency { return &Latency{} }

// of returns *h, made if it is not yet; small enough to inline on the
// per-packet path, where the histogram almost always exists.
func (l *Latency) of(h *[]int64) []int64 {
	if *h == nil {
		l.made(h)
	}
	return *h
}

// made makes *h.
func (l *Latency) made(h *[]int64) { *h = make([]int64, latencyCounts) }

// Record adds one packet's latency: of class c, received on priority prio.
func (l *Latency) Record(c packet.Class, prio uint8, d unit.Time) {
	l.RecordN(c, prio, d, 1)
}

// RecordN adds n packets of one latency (an engine that estimates a
// message's latency rather than timing each packet). A value past the
// last bucket (above 10 s, give or take the bucket's width) is not
// recorded, as hdrhistogram-go refuses it.
func (l *Latency) RecordN(c packet.Class, prio uint8, d unit.Time, n int64) {
	i := latencyIndex(max(int64(d/unit.Nanosecond), 1))
	if i >= latencyCounts {
		return
	}
	l.of(&l.h[prio&7])[i] += n
	l.of(&l.class[c])[i] += n
}

// Histogram returns priority prio's latencies as plain data.
func (l *Latency) Histogram(prio int) Histogram { return histogramOf(l.h[prio]) }

// ClassHistogram returns class c's latencies as plain data.
func (l *Latency) ClassHistogram(c packet.Class) Histogram { return histogramOf(l.class[c]) }

// Count returns how many packets priority prio recorded.
func (l *Latency) Count(prio int) int64 {
	var n int64
	for _, c := range l.h[prio] {
		n += c
	}
	return n
}

// Merge adds every value recorded in o, exactly: the histograms share
// their layout, so the merged one is the one a single recorder would hold.
func (l *Latency) Merge(o *Latency) {
	l.merge(l.h[:], o.h[:])
	l.merge(l.class[:], o.class[:])
}

// merge adds each histogram of src that exists into dst's.
func (l *Latency) merge(dst, src [][]int64) {
	for i, h := range src {
		if h == nil {
			continue
		}
		d := l.of(&dst[i])
		for j, c := range h {
			d[j] += c
		}
	}
}
