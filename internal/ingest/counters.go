package ingest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

func itoa(n int) string            { return strconv.Itoa(n) }
func strconvQuote(s string) string { return strconv.Quote(s) }

// Counter dumps (ethtool -S, RDMA hw_counters) share one generic model: a
// CounterSet is one dump, name → value in printed order, and a CounterSample
// is what a rule reads for one port: either a single dump, whose values are
// cumulative since the driver loaded, or a before/after pair, whose values
// are the differences over the window between the two dumps.
//
// Two dumps of the same port (same kind, host, device and port) become a
// pair only when no counter present in both went down; a counter that went
// down means a driver reload, a different machine or a different port, and
// the two dumps are then kept as separate cumulative samples. Parsers join
// the dumps of one input this way as they read; the doctor joins dumps from
// different inputs with MergeSamples, which also keeps apart the dumps of
// two inputs that name no host and list different ports.
//
// The simulator writes its per-port counters in the same text forms, so one
// findings engine reads simulated and real data.

// Caps that keep memory bounded however large the input is.
const (
	// MaxCountersPerDump bounds one CounterSet; further counters are
	// counted in Omitted.
	MaxCountersPerDump = 8192
	// MaxSamples bounds the samples one artifact keeps.
	MaxSamples = 1024
)

// A Counter is one named counter value as printed in a dump.
type Counter struct {
	Name  string
	Value uint64
	// Bits is the counter's width when the input says it (perfquery: the
	// PMA attribute's field); 0 when the source's usual width holds.
	Bits     uint8
	Evidence Evidence
}

// A CounterSet is one dump of a port's counters, in printed order.
type CounterSet struct {
	Counters []Counter
	// Stamp is when the dump was taken, when the input says so (a `date`
	// line before it; see context.go); zero otherwise.
	Stamp Stamp
	index map[string]int
}

// Get returns the counter called name.
func (s *CounterSet) Get(name string) (Counter, bool) {
	if s == nil {
		return Counter{}, false
	}
	i, ok := s.index[name]
	if !ok {
		return Counter{}, false
	}
	return s.Counters[i], true
}

// File returns the input the dump was read from, "" for an empty dump.
func (s *CounterSet) File() string {
	if s == nil || len(s.Counters) == 0 {
		return ""
	}
	return s.Counters[0].Evidence.File
}

// Len returns how many counters the dump holds.
func (s *CounterSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Counters)
}

// has reports whether name is in the set.
func (s *CounterSet) has(name string) bool {
	_, ok := s.index[name]
	return ok
}

// add appends c. It reports false when the set is full.
func (s *CounterSet) add(c Counter) bool {
	if s.index == nil {
		s.index = map[string]int{}
	}
	if len(s.Counters) >= MaxCountersPerDump {
		return false
	}
	s.index[c.Name] = len(s.Counters)
	s.Counters = append(s.Counters, c)
	return true
}

// gauges are values in counter dumps that are not cumulative counters and
// may go down between two dumps of the same port.
var gauges = map[string]bool{"lifespan": true}

// IsGauge reports whether name is a value in counter dumps that is not a
// counter (hw_counters' lifespan, the milliseconds its values are cached).
func IsGauge(name string) bool { return gauges[name] }

// monotonic reports whether after can follow before on the same port: no
// shared counter went down, and they share at least half the counters of
// the shorter dump (two dumps of one port print the same names; a filtered
// paste prints a subset of them), so that two dumps of different NICs
// that happen to share a generic name or two are not taken for a pair.
func monotonic(before, after *CounterSet) bool {
	shared := 0
	for _, a := range after.Counters {
		b, ok := before.Get(a.Name)
		if !ok || gauges[a.Name] {
			continue
		}
		if a.Value < b.Value {
			return false
		}
		shared++
	}
	return shared > 0 && 2*shared >= min(before.Len(), after.Len())
}

// A CounterSample is one port's counters as rules read them.
type CounterSample struct {
	Kind   Kind   // KindEthtool, KindIPLink or KindHWCounters
	Host   string // host name when the input says it
	Device string // netdev for ethtool ("" when the paste does not say), RDMA device for hw_counters
	Port   int    // RDMA port for hw_counters; 0 for ethtool
	// Object is the counter object a per-QP dump counts (`rdma statistic
	// qp show`: "QP 178 of ibv_rc_pingpong, pid 30489"); "" for the
	// port's own counters.
	Object string
	// Tag is the name in the torchrun-form tag ("[gpu01]:") of the lines
	// that printed the dump when no host prefix named their host: dumps
	// under different tags are different sources, never one pair.
	Tag    string
	Driver string // from ethtool -i, when present
	// Before is the first dump of a before/after pair; nil for a single
	// dump.
	Before *CounterSet
	// After is the last (or only) dump.
	After *CounterSet
	// Given is the time between the dumps of a pair as the user gave it
	// (diagnose --interval), used when the dumps carry no times; GivenHow
	// says where it came from when that was not --interval (the files'
	// modification times).
	Given    time.Duration
	GivenHow string
	// Scope is the scope of the input the (last) dump came from.
	Scope Scope
}

// Span returns the time between the two dumps of a pair and says how it is
// known; zero for a single dump or a pair without times.
func (s *CounterSample) Span() (time.Duration, string) {
	if s.Before == nil {
		return 0, ""
	}
	w := Window{From: s.Before.Stamp, To: s.After.Stamp}
	if d := w.Duration(); d > 0 {
		return d, "the " + FormatDuration(d) + " window between the dumps (" + strconvQuote(w.From.Text) + " at line " + itoa(w.From.Line) + ", " + strconvQuote(w.To.Text) + " at line " + itoa(w.To.Line) + ")"
	}
	if s.Given > 0 {
		if s.GivenHow != "" {
			return s.Given, s.GivenHow
		}
		return s.Given, "the " + FormatDuration(s.Given) + " window given by --interval"
	}
	return 0, ""
}

// Netdev reports whether the sample counts a network device's traffic:
// a driver's ethtool -S, or the kernel's own statistics (`ip -s link`).
func (s *CounterSample) Netdev() bool { return s.Kind == KindEthtool || s.Kind == KindIPLink }

// IsDelta reports whether the sample is a before/after pair, so that its
// values are differences over the window between the dumps.
func (s *CounterSample) IsDelta() bool { return s.Before != nil }

// Name describes the port, e.g. "ethtool ens3np0" or "hw_counters mlx5_0/1".
func (s *CounterSample) Name() string {
	var b strings.Builder
	if s.Host != "" {
		b.WriteString(s.Host + " ")
	}
	switch {
	case s.Kind == KindHWCounters && s.Object != "":
		fmt.Fprintf(&b, "%s port %d %s", s.Device, s.Port, s.Object)
	case s.Kind == KindHWCounters:
		fmt.Fprintf(&b, "%s port %d", s.Device, s.Port)
	case s.Device != "":
		b.WriteString(s.Device)
	case s.first().Len() > 0:
		fmt.Fprintf(&b, "ethtool dump at line %d", s.first().Counters[0].Evidence.Line)
	default:
		b.WriteString("ethtool dump")
	}
	return b.String()
}

// samePort reports whether two samples are of the same port.
func (s *CounterSample) samePort(o *CounterSample) bool {
	if same, known := s.Scope.Host.Same(o.Scope.Host); known && !same {
		return false // eth0 of another host
	}
	if s.Driver != "" && o.Driver != "" && s.Driver != o.Driver {
		return false // ethtool -i names two drivers
	}
	return s.Kind == o.Kind && s.Host == o.Host && s.Device == o.Device && s.Port == o.Port && s.Object == o.Object && s.Tag == o.Tag
}

func (s *CounterSample) first() *CounterSet {
	if s.Before != nil {
		return s.Before
	}
	return s.After
}

// A Reading is one counter as a rule sees it: its difference over the
// window for a before/after pair, else its cumulative value, with the lines
// that printed it.
type Reading struct {
	Name     string
	Value    uint64
	Evidence []Evidence
}

// Get returns the reading of the counter called name. A counter missing
// from the first dump of a pair counts as zero there (some pastes list only
// non-zero counters).
func (s *CounterSample) Get(name string) (Reading, bool) {
	a, ok := s.After.Get(name)
	if !ok {
		return Reading{}, false
	}
	if s.Before == nil {
		return Reading{Name: name, Value: a.Value, Evidence: []Evidence{a.Evidence}}, true
	}
	b, ok := s.Before.Get(name)
	if !ok {
		return Reading{Name: name, Value: a.Value, Evidence: []Evidence{a.Evidence}}, true
	}
	v := uint64(0)
	if a.Value > b.Value {
		v = a.Value - b.Value
	}
	return Reading{Name: name, Value: v, Evidence: []Evidence{b.Evidence, a.Evidence}}, true
}

// Has reports whether the last dump printed the counter called name.
func (s *CounterSample) Has(name string) bool { return s.After.has(name) }

// mergeInto appends s to samples, joining it to the latest sample of the
// same port when the counters allow (see the package comment on counter
// dumps) and, when may is not nil, may allows it too. It reports false
// when s was neither joined nor kept because samples already holds
// MaxSamples.
func mergeInto(samples []CounterSample, s CounterSample, may func(p *CounterSample) bool) ([]CounterSample, bool) {
	for i := len(samples) - 1; i >= 0; i-- {
		p := &samples[i]
		if !p.samePort(&s) {
			continue
		}
		if monotonic(p.After, s.first()) && (may == nil || may(p)) {
			if s.first().Stamp.Line == p.After.Stamp.Line && s.first().Stamp.Unix == p.After.Stamp.Unix {
				// One date line before both dumps dates neither.
				s.first().Stamp = Stamp{}
			}
			p.Before = p.first()
			p.After = s.After
			if p.Driver == "" {
				p.Driver = s.Driver
			}
			return samples, true
		}
		break
	}
	if len(samples) >= MaxSamples {
		return samples, false
	}
	return append(samples, s), true
}

// MergeSamples joins the samples of several inputs, given in input order:
// a later dump of the same port whose counters did not go down becomes the
// "after" of the earlier one. Dumps from two inputs of which neither
// names the dump's host join only when both inputs dumped the same ports
// of that kind: one collection step run twice on a host lists the same
// devices and ports, so inputs that list different ones (a node's twelve
// ports, another paste's two) are different hosts whose mlx5_1 happen to
// share a name, not one port read twice. It returns the joined samples
// and how many were dropped for exceeding MaxSamples.
func MergeSamples(in []CounterSample) ([]CounterSample, int) {
	ports := inputPorts(in)
	var out []CounterSample
	dropped := 0
	for _, s := range in {
		var ok bool
		may := func(p *CounterSample) bool {
			if p.Scope.Source == s.Scope.Source || p.Host != "" {
				return true
			}
			if _, known := p.Scope.Host.Same(s.Scope.Host); known {
				return true
			}
			return ports[portsKey{p.Scope.Source, p.Kind}] == ports[portsKey{s.Scope.Source, s.Kind}]
		}
		if out, ok = mergeInto(out, s, may); !ok {
			dropped++
		}
	}
	return out, dropped
}

// portsKey names the dumps of one kind in one input.
type portsKey struct {
	source string
	kind   Kind
}

// inputPorts lists, for each input and kind, the ports its dumps count
// (device, port and tag, sorted; per-QP counter objects, which come and
// go between dumps, left out) as one string.
func inputPorts(in []CounterSample) map[portsKey]string {
	sets := map[portsKey][]string{}
	for i := range in {
		s := &in[i]
		k := portsKey{s.Scope.Source, s.Kind}
		sets[k] = append(sets[k], s.Tag+"\x00"+s.Device+"\x00"+itoa(s.Port))
	}
	ports := make(map[portsKey]string, len(sets))
	for k, ps := range sets {
		slices.Sort(ps)
		ports[k] = strings.Join(slices.Compact(ps), "\x01")
	}
	return ports
}

// parseCounterValue parses a decimal counter value, tolerating a trailing
// comment-free remainder of spaces.
func parseCounterValue(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 20 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (^uint64(0)-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// isCounterName reports whether s looks like a counter name: letters,
// digits and "_.-[]" with no spaces, starting with a letter.
func isCounterName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// splitNameValue splits "name: value" (any spacing) into a counter name and
// value.
func splitNameValue(text string) (string, uint64, bool) {
	t := strings.TrimSpace(text)
	i := strings.IndexByte(t, ':')
	if i <= 0 {
		return "", 0, false
	}
	name := strings.TrimSpace(t[:i])
	if !isCounterName(name) {
		return "", 0, false
	}
	v, ok := parseCounterValue(t[i+1:])
	if !ok {
		return "", 0, false
	}
	return name, v, true
}
