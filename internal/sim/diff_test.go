package sim

import (
	"fmt"
	"slices"

	"rocelab/internal/unit"
)

// refScheduler is the deliberately naive reference for the differential
// tests: a slice kept sorted by (time, key, insertion sequence), searched
// linearly to cancel, with ids that are never reused.
type refScheduler struct {
	now      unit.Time
	q        []refEvent
	nextID   EventID
	executed uint64
	stopped  bool
}

type refEvent struct {
	t   unit.Time
	key Key
	id  EventID // ids grow with insertion, so they are the sequence too
	h   Handler
	tag uint64
}

func (r *refScheduler) Now() unit.Time   { return r.now }
func (r *refScheduler) Pending() int     { return len(r.q) }
func (r *refScheduler) Executed() uint64 { return r.executed }
func (r *refScheduler) Stop()            { r.stopped = true }

func (r *refScheduler) At(t unit.Time, k Key, h Handler, tag uint64) EventID {
	if t < r.now {
		panic("ref: At in the past")
	}
	r.nextID++
	i := len(r.q)
	for i > 0 && (r.q[i-1].t > t || r.q[i-1].t == t && r.q[i-1].key > k) {
		i--
	}
	r.q = slices.Insert(r.q, i, refEvent{t: t, key: k, id: r.nextID, h: h, tag: tag})
	return r.nextID
}

func (r *refScheduler) Send(t unit.Time, k Key, h Handler, tag uint64) { r.At(t, k, h, tag) }

func (r *refScheduler) After(d unit.Time, k Key, h Handler, tag uint64) EventID {
	return r.At(later(r.now, d), k, h, tag)
}

func (r *refScheduler) Cancel(id EventID) bool {
	for i, e := range r.q {
		if e.id == id {
			r.q = slices.Delete(r.q, i, i+1)
			return true
		}
	}
	return false
}

func (r *refScheduler) Step() bool {
	if len(r.q) == 0 {
		return false
	}
	e := r.q[0]
	r.q = r.q[1:]
	r.now = e.t
	r.executed++
	if e.h != nil {
		e.h.Handle(e.t, e.tag)
	}
	return true
}

func (r *refScheduler) RunUntil(t unit.Time) {
	r.stopped = false
	for !r.stopped && len(r.q) > 0 && r.q[0].t <= t {
		r.Step()
	}
	if !r.stopped && t > r.now {
		r.now = t
	}
}

func (r *refScheduler) NextAt() (unit.Time, bool) {
	if len(r.q) == 0 {
		return 0, false
	}
	return r.q[0].t, true
}

func (r *refScheduler) Run() {
	r.stopped = false
	for !r.stopped && r.Step() {
	}
}

// scheduler is what the differential tests drive: Scheduler or refScheduler.
type scheduler interface {
	Now() unit.Time
	At(t unit.Time, k Key, h Handler, tag uint64) EventID
	Send(t unit.Time, k Key, h Handler, tag uint64)
	After(d unit.Time, k Key, h Handler, tag uint64) EventID
	Cancel(id EventID) bool
	Step() bool
	RunUntil(t unit.Time)
	NextAt() (unit.Time, bool)
	Run()
	Stop()
	Pending() int
	Executed() uint64
}

// Ids that no scheduler issues: zero, and a slot index far beyond any table.
var unknownIDs = [...]EventID{0, 1<<63 | 1<<32 - 1}

// world runs one program against one scheduler and records everything
// observable. Handlers act on their tag, so two worlds whose schedulers
// agree do the same things.
type world struct {
	s     scheduler
	ids   []EventID
	trace []observation
	err   error
}

// observation is one line of a world's trace: what happened and the values
// it returned or saw.
type observation struct {
	what       string
	a, b, c, d uint64
}

func (o observation) String() string {
	return fmt.Sprintf("%s %d %d %d %d", o.what, o.a, o.b, o.c, o.d)
}

func (w *world) note(what string, a, b, c, d uint64) {
	w.trace = append(w.trace, observation{what, a, b, c, d})
}

func bit(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// Handle logs the event and, by its tag, schedules children (at most three
// generations deep), cancels an earlier event, or stops the run.
func (w *world) Handle(now unit.Time, tag uint64) {
	if now != w.s.Now() && w.err == nil {
		w.err = fmt.Errorf("handler got now=%d, Now()=%d", now, w.s.Now())
	}
	w.note("fire", uint64(now), tag, 0, 0)
	depth := tag >> 60
	if depth < 3 && tag%3 == 0 {
		child := (depth+1)<<60 | (tag*0x9e3779b97f4a7c15)>>4
		w.at(later(now, unit.Time(tag>>8%4)), child)
	}
	if tag%5 == 1 && len(w.ids) > 0 {
		w.note("handler cancel", bit(w.s.Cancel(w.ids[int(tag>>12)%len(w.ids)])), 0, 0, 0)
	}
	if tag%13 == 2 {
		w.s.Stop()
	}
}

func (w *world) at(t unit.Time, tag uint64) {
	w.ids = append(w.ids, w.s.At(t, keyOf(tag), w, tag))
}

// keyOf draws an event's key from its tag, from a few nodes and sources
// so that equal times often meet equal and different keys.
func keyOf(tag uint64) Key { return NodeKey(uint32(tag>>20%3), uint32(tag>>24%3)) }

// maxPending bounds bursts, so that the naive reference stays fast on
// long fuzz inputs.
const maxPending = 2000

// program decodes operations from bytes; past the end it reads zeros.
type program struct {
	b []byte
	i int
}

func (p *program) byte() byte {
	if p.i >= len(p.b) {
		return 0
	}
	p.i++
	return p.b[p.i-1]
}

func (p *program) uint64() uint64 {
	var v uint64
	for range 8 {
		v = v<<8 | uint64(p.byte())
	}
	return v
}

// delta reads a time offset: often 0 or tiny, so that times collide,
// otherwise spread over all magnitudes up to about 2^47 ps.
func (p *program) delta() unit.Time {
	c := p.byte()
	switch {
	case c < 64:
		return 0
	case c < 160:
		return unit.Time(c % 8)
	default:
		return unit.Time(1)<<(c%48) + unit.Time(p.byte())
	}
}

// later returns now+d, saturating at unit.MaxTime.
func later(now, d unit.Time) unit.Time {
	if d > unit.MaxTime-now {
		return unit.MaxTime
	}
	return now + d
}

// runProgram applies the program in data to every world, then drains them,
// and reports the first difference between their traces.
func runProgram(data []byte, worlds ...*world) error {
	progs := make([]program, len(worlds))
	for i := range progs {
		progs[i] = program{b: data}
	}
	checked := 0
	for op := 0; progs[0].i < len(data); op++ {
		for k, w := range worlds {
			w.step(op, &progs[k])
		}
		if err := compareWorlds(worlds, checked); err != nil {
			return fmt.Errorf("after op %d: %w", op, err)
		}
		checked = len(worlds[0].trace)
	}
	for _, w := range worlds {
		w.s.Run()
		for w.s.Pending() > 0 { // Run stops when a handler calls Stop
			n := w.s.Executed()
			if w.s.Run(); w.s.Executed() == n {
				return fmt.Errorf("Run ran nothing with %d events pending", w.s.Pending())
			}
		}
		w.note("drained", uint64(w.s.Now()), w.s.Executed(), 0, 0)
	}
	return compareWorlds(worlds, checked)
}

// compareWorlds compares the worlds' traces from line `from` on.
func compareWorlds(worlds []*world, from int) error {
	a := worlds[0]
	for _, b := range worlds[1:] {
		for _, w := range []*world{a, b} {
			if w.err != nil {
				return w.err
			}
		}
		n := min(len(a.trace), len(b.trace))
		for i := from; i < n; i++ {
			if a.trace[i] != b.trace[i] {
				return fmt.Errorf("trace line %d: %v != %v", i, a.trace[i], b.trace[i])
			}
		}
		if len(a.trace) != len(b.trace) {
			return fmt.Errorf("trace lengths %d != %d", len(a.trace), len(b.trace))
		}
	}
	return nil
}

// step decodes and applies one operation, recording what it returned.
func (w *world) step(op int, p *program) {
	s := w.s
	switch c := p.byte(); c % 12 {
	case 0:
		w.at(later(s.Now(), p.delta()), p.uint64())
	case 1: // an event nobody can cancel
		t, tag := later(s.Now(), p.delta()), p.uint64()
		s.Send(t, keyOf(tag), w, tag)
	case 2:
		d := p.delta()
		if p.byte()%16 == 0 {
			d = unit.MaxTime
		}
		tag := p.uint64()
		w.ids = append(w.ids, s.After(d, keyOf(tag), w, tag))
	case 3: // a burst at one time, longer than a chunk
		t, n, tag := later(s.Now(), p.delta()), int(p.byte()%80), p.uint64()
		if s.Pending() > maxPending {
			n = 0
		}
		for j := range n {
			w.at(t, tag+uint64(j)<<4)
		}
	case 4, 5:
		k := int(p.uint64() % uint64(len(w.ids)+1))
		if k == len(w.ids) {
			w.note("cancel unknown", bit(s.Cancel(unknownIDs[p.byte()%2])), 0, 0, 0)
		} else {
			w.note("cancel", uint64(k), bit(s.Cancel(w.ids[k])), 0, 0)
		}
	case 6, 7:
		w.note("step", bit(s.Step()), 0, 0, 0)
	case 8:
		s.RunUntil(later(s.Now(), p.delta()))
	case 10, 11:
		t, ok := s.NextAt()
		w.note("next", uint64(t), bit(ok), 0, 0)
	case 9:
		if p.byte()%8 == 0 {
			s.Run()
		} else {
			s.Stop() // outside a run: no effect
		}
	}
	w.note("op", uint64(op), uint64(s.Now()), uint64(s.Pending()), s.Executed())
}
