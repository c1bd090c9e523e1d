package ingest

import (
	"math"
	"strconv"
	"strings"
)

// InitTiming is one of the lines NCCL prints, under NCCL_DEBUG_SUBSYS
// INIT, BOOTSTRAP or PROFILE, with how long a rank spent creating its
// communicator (init.cc), by phase:
//
//	Init timings: rank 5 nranks 8 total 2.46 (kernels 0.18, bootstrap 1.60, allgathers 0.00, topo 0.52, graphs 0.01, connections 0.12, rest 0.02)   (2.22)
//	Init timings - ncclCommInitRankConfig: rank 3 nranks 8 total 55.01 (kernels 52.45, alloc 0.41, bootstrap 0.57, ...)   (2.23 on)
//
// or in its bootstrap (bootstrap.cc, 2.23 on):
//
//	Bootstrap timings total 0.633247 (create 0.000033, send 0.000110, recv 0.632491, ring 0.000067, delay 0.000002)
type InitTiming struct {
	Host string
	// Bootstrap is set for a "Bootstrap timings" line.
	Bootstrap bool
	// Func is the init call an "Init timings - FUNC:" line names.
	Func string
	// Rank and NRanks are -1 where the line does not print them.
	Rank, NRanks int
	TotalMS      int64
	// Phases are the parenthesised parts in printed order.
	Phases   []TimingPhase
	Evidence Evidence
}

// TimingPhase is one phase of an InitTiming, in milliseconds.
type TimingPhase struct {
	Name string
	MS   int64
}

// Slowest returns the phase that took longest (the first of equals).
func (t InitTiming) Slowest() TimingPhase {
	var s TimingPhase
	for _, p := range t.Phases {
		if p.MS > s.MS || s.Name == "" {
			s = p
		}
	}
	return s
}

// Phase returns the time of the named phase, and whether the line has it.
func (t InitTiming) Phase(name string) (int64, bool) {
	for _, p := range t.Phases {
		if p.Name == name {
			return p.MS, true
		}
	}
	return 0, false
}

// initTiming reads an "Init timings" or "Bootstrap timings" line and keeps,
// per host and kind of line, the slowest one, and per host the "Init
// timings" line of least bootstrap time of each communicator size.
func (l *NCCLLog) initTiming(host, msg string, ev Evidence) {
	t, ok := parseInitTiming(msg)
	if !ok {
		return
	}
	t.Host, t.Evidence = host, ev
	keepPer(&l.InitTimings, t, func(k InitTiming) bool { return k.Bootstrap == t.Bootstrap }, func(k InitTiming) bool { return t.TotalMS > k.TotalMS })
	if b, ok := t.Phase("bootstrap"); ok && !t.Bootstrap {
		keepPer(&l.LastArrivals, t, func(k InitTiming) bool { return k.Func == t.Func && k.NRanks == t.NRanks }, func(k InitTiming) bool {
			kb, _ := k.Phase("bootstrap")
			return b < kb
		})
	}
}

// keepPer keeps t in *ts as the one of its host and kind (same), replacing
// the one held when better says so, within maxKept.
func keepPer(ts *[]InitTiming, t InitTiming, same, better func(InitTiming) bool) {
	for i, k := range *ts {
		if k.Host == t.Host && same(k) {
			if better(k) {
				(*ts)[i] = t
			}
			return
		}
	}
	if len(*ts) < maxKept {
		*ts = append(*ts, t)
	}
}

// parseInitTiming reads the fields of an "Init timings" or "Bootstrap
// timings" message (NCCL's own, after its prefix).
func parseInitTiming(msg string) (InitTiming, bool) {
	t := InitTiming{Rank: -1, NRanks: -1}
	head, body, ok := strings.Cut(msg, " total ")
	if !ok {
		return t, false
	}
	switch {
	case head == "Bootstrap timings":
		t.Bootstrap = true
	case strings.HasPrefix(head, "Init timings"):
		rest := strings.TrimPrefix(head, "Init timings")
		if fn, ranks, ok := strings.Cut(rest, ": "); ok {
			t.Func = strings.Clone(strings.TrimPrefix(fn, " - "))
			t.Rank = atoiOr(wordAfter(" "+ranks, " rank "), -1)
			t.NRanks = atoiOr(wordAfter(" "+ranks, " nranks "), -1)
		}
	default:
		return t, false
	}
	total, phases, _ := strings.Cut(body, " (")
	if t.TotalMS, ok = secondsMS(total); !ok {
		return t, false
	}
	phases, _, _ = strings.Cut(phases, ")")
	for _, f := range strings.Split(phases, ", ") {
		name, v, ok := strings.Cut(strings.TrimSpace(f), " ")
		if ms, good := secondsMS(v); ok && good && name != "" && len(t.Phases) < 16 {
			t.Phases = append(t.Phases, TimingPhase{Name: strings.Clone(name), MS: ms})
		}
	}
	return t, len(t.Phases) > 0
}

// secondsMS reads NCCL's "%.2f" or "%f" seconds as whole milliseconds.
func secondsMS(s string) (int64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || f > 1e9 || math.IsNaN(f) {
		return 0, false
	}
	return int64(math.Round(f * 1000)), true
}
