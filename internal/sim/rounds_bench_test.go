package sim

import (
	"testing"
	"time"

	"rocelab/internal/unit"
)

// tossPart is a part of BenchmarkWindowsRounds: each event hands a token
// to the other part one lookahead later and, every fourth, a completion to
// the control side, so that every window moves frames both ways and some
// move completions: a round carries almost no work besides its hand-overs.
type tossPart struct {
	i            int
	s            *Scheduler
	other        *tossPart
	out, done    []unit.Time
	inbox, comps Box[unit.Time]
	horizon      unit.Time
	sent         unit.Time
}

func (p *tossPart) Scheduler() *Scheduler   { return p.s }
func (p *tossPart) Begin(horizon unit.Time) { p.horizon, p.sent = horizon, 0 }
func (p *tossPart) Sent() (unit.Time, bool) { return p.sent, p.sent != 0 }

func (p *tossPart) Flush() {
	p.other.inbox.Put(&p.out)
	p.comps.Put(&p.done)
}

func (p *tossPart) Receive() {
	for _, at := range p.inbox.Take() {
		p.s.At(at, NodeKey(uint32(p.i+1), SrcFrom(1-p.i)), p, uint64(at))
	}
}

func (p *tossPart) Handle(now unit.Time, tok uint64) {
	at := now + ringLook
	p.out = append(p.out, at)
	if at > p.horizon && (p.sent == 0 || at < p.sent) {
		p.sent = at
	}
	if now/ringLook%4 == 0 {
		p.done = append(p.done, now)
		p.s.Bound(now + ringLook - 1)
	}
}

// tossControl counts the completions.
type tossControl struct{ n int }

func (c *tossControl) Handle(now unit.Time, tok uint64) { c.n++ }

// BenchmarkWindowsRounds measures what a window costs two workers beside
// the control side when it carries almost no work: its barriers, the
// round, the parts' states and the boxes crossing between the cores
// (docs/engine.md, "Two threads"). It reports the least time a round took
// over bursts of roundBurst rounds, so that bursts in which another
// process held a core do not count; run with -cpu 2 on two free cores.
// With one core (-cpu 1) the workers take turns: it then times the
// rounds' instructions and Go's scheduler, not the hand-overs.
func BenchmarkWindowsRounds(b *testing.B) {
	ctl := &tossControl{}
	cs := NewScheduler()
	var parts [2]*tossPart
	for i := range parts {
		parts[i] = &tossPart{i: i, s: NewScheduler()}
	}
	w := &Windows{Control: cs, Lookahead: ringLook, Reply: ringLook, Workers: 2}
	for i, p := range parts {
		p.other = parts[1-i]
		p.s.At(unit.Time(i), NodeKey(uint32(i+1), SrcControl), p, 0)
		w.Parts = append(w.Parts, p)
	}
	w.Collect = func() {
		for _, p := range parts {
			for _, at := range p.comps.Take() {
				cs.At(at+ringLook, NodeKey(0, SrcFrom(p.i)), ctl, 0)
			}
		}
	}
	best := 1e18
	end := unit.Time(0)
	b.ResetTimer()
	for n := 0; n < b.N; n += roundBurst {
		rounds, t0 := w.Stats().Windows, time.Now()
		end = w.RunUntil(end + roundBurst*ringLook)
		best = min(best, float64(time.Since(t0).Nanoseconds())/float64(w.Stats().Windows-rounds))
	}
	b.ReportMetric(best, "ns/round-best")
}

// roundBurst is how many lookaheads BenchmarkWindowsRounds times at once
// (each ends one round, and a completion's reply some more).
const roundBurst = 2000
