package exporter

import (
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// A metric is one family the exporter exports: what a registry needs (a
// prometheus.Desc) and what the text exposition needs (name, help, type,
// label names), so that one collector run feeds either.
type metric struct {
	name, help string
	typ        prometheus.ValueType
	labels     []string
	desc       func() *prometheus.Desc // made at the first scrape that registers it
	id         int
	// self marks the exporter's own metrics, which describe the scrape,
	// not the host: they never carry the host's timestamp.
	self bool
}

// fixedMetrics are the metrics newMetric made, in that order (at package
// initialisation; never changed after).
var fixedMetrics []*metric

func newMetric(name, help string, typ prometheus.ValueType, labels ...string) *metric {
	m := makeMetric(name, help, typ, len(fixedMetrics), labels)
	fixedMetrics = append(fixedMetrics, m)
	return m
}

func makeMetric(name, help string, typ prometheus.ValueType, id int, labels []string) *metric {
	desc := sync.OnceValue(func() *prometheus.Desc { return prometheus.NewDesc(name, help, labels, nil) })
	return &metric{name: name, help: help, typ: typ, labels: labels, desc: desc, id: id}
}

// allMetrics is every metric by id: the fixed ones, then the mapping
// table's families.
var allMetrics = sync.OnceValue(func() []*metric {
	out := slices.Clip(fixedMetrics)
	for _, f := range index().families {
		out = append(out, f.metric)
	}
	return out
})

// byName is allMetrics sorted by name: the order the exposition writes
// families in, as a registry does.
var byName = sync.OnceValue(func() []*metric {
	out := slices.Clone(allMetrics())
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
})

// typeName is the exposition's name of a value type.
func typeName(t prometheus.ValueType) string {
	switch t {
	case prometheus.CounterValue:
		return "counter"
	case prometheus.GaugeValue:
		return "gauge"
	}
	return "untyped"
}

// A labelRef is one label of a sample in the exposition: a constant of
// the exporter (value set) or the sample's value at idx.
type labelRef struct {
	name  string
	value []byte // escaped constant value, nil for a sample's own label
	idx   int
}

// layout orders the labels of every metric by name, the exporter's
// constant labels among them, as a registry's exposition does.
type layout [][]labelRef // by metric id

func newLayout(pairs ...string) layout {
	l := make(layout, len(allMetrics()))
	for _, m := range allMetrics() {
		var refs []labelRef
		for i, n := range m.labels {
			refs = append(refs, labelRef{name: n, idx: i})
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			refs = append(refs, labelRef{name: pairs[i], value: appendEscaped(nil, pairs[i+1], true), idx: -1})
		}
		sort.SliceStable(refs, func(i, j int) bool { return refs[i].name < refs[j].name })
		l[m.id] = refs
	}
	return l
}

// A textSink collects the samples of one unit of work (a port, a netdev,
// a collector's own metrics) as exposition lines, each tagged with its
// family, so that units read in parallel are merged in a fixed order. Its
// buffers are kept from scrape to scrape: a steady host allocates nothing.
type textSink struct {
	lines  []byte
	recs   []textRec
	layout layout
	// ts is " <milliseconds>", the time the host's state is of, or empty
	// for now (a real host).
	ts []byte
}

type textRec struct{ id, start, end int }

func (t *textSink) reset(l layout, ts []byte) {
	t.lines, t.recs, t.layout, t.ts = t.lines[:0], t.recs[:0], l, ts
}

// sample appends one exposition line of m.
func (t *textSink) sample(m *metric, v float64, values []string) {
	start := len(t.lines)
	b := append(t.lines, m.name...)
	if refs := t.layout[m.id]; len(refs) > 0 {
		b = append(b, '{')
		for i, r := range refs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, r.name...)
			b = append(b, '=', '"')
			switch {
			case r.idx < 0:
				b = append(b, r.value...)
			case r.idx < len(values):
				b = appendEscaped(b, values[r.idx], true)
			}
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendFloat(b, v)
	if !m.self {
		b = append(b, t.ts...)
	}
	b = append(b, '\n')
	t.lines = b
	t.recs = append(t.recs, textRec{m.id, start, len(b)})
}

// merge appends o's lines after t's.
func (t *textSink) merge(o *textSink) {
	off := len(t.lines)
	t.lines = append(t.lines, o.lines...)
	for _, r := range o.recs {
		t.recs = append(t.recs, textRec{r.id, r.start + off, r.end + off})
	}
}

// appendEscaped escapes a label value (\, ", newline) or a HELP text (\,
// newline) as the text format wants.
func appendEscaped(b []byte, s string, quote bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '"' && quote:
			b = append(b, '\\', '"')
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat writes a sample value as the Go client's text encoder does.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case f == 1:
		return append(b, '1')
	case f == 0:
		return append(b, '0')
	case f == -1:
		return append(b, '-', '1')
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, +1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// exposition gathers the sinks of a scrape into families and writes them,
// each family once with its HELP and TYPE, in name order.
type exposition struct {
	fams [][]byte // by metric id
	out  []byte
}

// add appends every line of s to its family, in the order s holds them.
func (x *exposition) add(s *textSink) {
	if n := len(allMetrics()); len(x.fams) < n {
		x.fams = make([][]byte, n)
	}
	for _, r := range s.recs {
		x.fams[r.id] = append(x.fams[r.id], s.lines[r.start:r.end]...)
	}
}

// writeTo writes the families with samples and empties them.
func (x *exposition) writeTo(w io.Writer) error {
	b := x.out[:0]
	for _, m := range byName() {
		if m.id >= len(x.fams) || len(x.fams[m.id]) == 0 {
			continue
		}
		b = append(b, "# HELP "...)
		b = append(b, m.name...)
		b = append(b, ' ')
		b = appendEscaped(b, m.help, false)
		b = append(b, "\n# TYPE "...)
		b = append(b, m.name...)
		b = append(b, ' ')
		b = append(b, typeName(m.typ)...)
		b = append(b, '\n')
		b = append(b, x.fams[m.id]...)
		x.fams[m.id] = x.fams[m.id][:0]
	}
	x.out = b
	_, err := w.Write(b)
	return err
}

// metricNames returns the names of every metric, sorted.
func metricNames() []string {
	out := make([]string, 0, len(allMetrics()))
	for _, m := range byName() {
		out = append(out, m.name)
	}
	return out
}
