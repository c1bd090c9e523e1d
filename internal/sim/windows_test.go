package sim

import (
	"cmp"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rocelab/internal/sim/stalltest"
	"rocelab/internal/unit"
)

// ring is a test of Windows: parts in a ring pass tokens to the next part
// with a delay of at least the lookahead, and tell the control side when
// a token has gone round; the control side starts new tokens and stops
// after a number of laps. The trace of every part and of the control side
// must not depend on the number of workers, and each part's trace must be
// the one a single scheduler holding everything gives.
type ring struct {
	parts []*ringPart
	ctrl  *Scheduler
	log   []string
	laps  int
	posts []post // the control side's, until delivered
	// direct, when set, is the one scheduler that holds every part's
	// events and the control side's (the reference of a run of one part).
	direct *Scheduler
	// echo has every part that passes a token on also send an echo back
	// to the previous part, so that each part sends to both neighbours.
	echo bool
	// onControl, when set, is called by each of the control side's
	// events.
	onControl func()
}

// post is a token the control side starts at a part.
type post struct {
	p   *ringPart
	at  unit.Time
	tok uint64
}

type msg struct {
	at  unit.Time
	tok uint64
}

type ringPart struct {
	r       *ring
	i       int
	s       *Scheduler
	out     []msg // to the next part, not flushed yet
	next    *ringPart
	inbox   Box[msg] // flushed to the part by the previous one
	prev    *ringPart
	back    []msg     // echoes to the previous part, not flushed yet
	echoes  Box[msg]  // flushed to the part by the next one
	posts   Box[post] // delivered by the control side
	horizon unit.Time
	sent    unit.Time
	done    []msg    // laps reported to the control side, not flushed yet
	laps    Box[msg] // flushed, not yet collected
	trace   []string
	hold    func(now unit.Time) // when set, called first by each Handle
}

const (
	ringLook  = 100
	ringParts = 5
)

func (p *ringPart) Scheduler() *Scheduler { return p.s }

func (p *ringPart) Begin(horizon unit.Time) { p.horizon, p.sent = horizon, 0 }

func (p *ringPart) Flush() {
	p.next.inbox.Put(&p.out)
	p.prev.echoes.Put(&p.back)
	p.laps.Put(&p.done)
}

func (p *ringPart) Receive() {
	from := (p.i + len(p.r.parts) - 1) % len(p.r.parts)
	for _, m := range p.inbox.Take() {
		p.s.At(m.at, NodeKey(uint32(p.i+1), SrcFrom(from)), p, m.tok)
	}
	for _, m := range p.posts.Take() {
		p.s.At(m.at, NodeKey(uint32(p.i+1), SrcControl), p, m.tok)
	}
	for _, m := range p.echoes.Take() { // a source apart from the next part's tokens
		p.s.At(m.at, NodeKey(uint32(p.i+1), SrcFrom(len(p.r.parts)+p.next.i)), p, m.tok)
	}
}

func (p *ringPart) Sent() (unit.Time, bool) { return p.sent, p.sent != 0 }

// Handle passes a token on, or reports a finished lap.
func (p *ringPart) Handle(now unit.Time, tok uint64) {
	if p.hold != nil {
		p.hold(now)
	}
	p.trace = append(p.trace, fmt.Sprintf("%d@%d", tok, now))
	if tok&(timerBit|echoBit) != 0 {
		return
	}
	hops := tok & 0xff
	if hops == ringParts {
		if p.r.direct != nil {
			p.s.At(now+ringLook, NodeKey(0, SrcFrom(p.i)), p.r, tok)
			return
		}
		p.done = append(p.done, msg{now, tok})
		p.s.Bound(now + ringLook - 1) // the control side sees it then
		return
	}
	at := now + ringLook + unit.Time(tok>>8%37)
	if p.next == p { // a run of one part: no message to itself
		p.s.At(at, NodeKey(uint32(p.i+1), SrcFrom(p.i)), p, tok+1)
		return
	}
	p.out = append(p.out, msg{at, tok + 1})
	p.noteSent(at)
	if p.r.echo {
		at := now + ringLook + unit.Time(tok%7)
		p.back = append(p.back, msg{at, tok | echoBit})
		p.noteSent(at)
	}
	// A local timer at an equal time as some arrivals.
	if tok%3 == 0 {
		p.s.At(now+ringLook, NodeKey(uint32(p.i+1), SrcSelf), p, tok|timerBit)
	}
}

// noteSent notes a message sent to take effect at at (Sent).
func (p *ringPart) noteSent(at unit.Time) {
	if at > p.horizon && (p.sent == 0 || at < p.sent) {
		p.sent = at
	}
}

// timerBit marks a part's local timer, echoBit an echo (ring.echo).
const (
	timerBit = 1 << 62
	echoBit  = 1 << 61
)

// Handle is the control side: a lap is done; start the next token.
func (r *ring) Handle(now unit.Time, tok uint64) {
	if r.onControl != nil {
		r.onControl()
	}
	r.log = append(r.log, fmt.Sprintf("lap %d@%d", tok>>8, now))
	r.laps++
	if r.laps == 40 {
		r.ctrl.Stop()
		return
	}
	p := r.parts[int(tok>>8)%len(r.parts)]
	if r.direct != nil {
		r.direct.At(now, NodeKey(uint32(p.i+1), SrcControl), p, (tok>>8+ringParts)<<8)
		return
	}
	r.posts = append(r.posts, post{p, now, (tok>>8 + ringParts) << 8})
}

func (r *ring) deliver() unit.Time {
	first := unit.MaxTime
	for _, m := range r.posts {
		ms := []post{m}
		m.p.posts.Put(&ms)
		first = min(first, m.at)
	}
	r.posts = r.posts[:0]
	return first
}

func (r *ring) collect() {
	for _, p := range r.parts {
		for _, m := range p.laps.Take() {
			r.ctrl.At(m.at+ringLook, NodeKey(0, SrcFrom(p.i)), r, m.tok)
		}
	}
}

func newRing(n int) *ring { return newRingFrom(n, 0) }

// newRingFrom is a ring whose part i starts its token at start + i.
func newRingFrom(n int, start unit.Time) *ring {
	r := &ring{ctrl: NewScheduler()}
	for i := 0; i < n; i++ {
		r.parts = append(r.parts, &ringPart{r: r, i: i, s: NewScheduler()})
	}
	for i, p := range r.parts {
		p.next, p.prev = r.parts[(i+1)%n], r.parts[(i+n-1)%n]
		p.s.At(start+unit.Time(i), NodeKey(uint32(i+1), SrcControl), p, uint64(i)<<8)
	}
	return r
}

// ringWindows is w run over ring r: r's control side and parts, and the
// ring's lookahead and reply unless w sets its own.
func ringWindows(r *ring, w *Windows) *Windows {
	w.Control, w.Collect, w.Deliver = r.ctrl, r.collect, r.deliver
	w.Lookahead = cmp.Or(w.Lookahead, ringLook)
	w.Reply = cmp.Or(w.Reply, ringLook)
	for _, p := range r.parts {
		w.Parts = append(w.Parts, p)
	}
	return w
}

func runRing(n, workers int, alone bool) (*ring, unit.Time) {
	r, _, end := runRingStats(n, workers, alone)
	return r, end
}

func runRingStats(n, workers int, alone bool) (*ring, WindowStats, unit.Time) {
	r := newRing(n)
	w := ringWindows(r, &Windows{Workers: workers, ControlAlone: alone, LinkedBelow: 2})
	w.RunUntil(3000) // a run observed mid-way continues as one that is not
	end := w.RunUntil(unit.MaxTime)
	return r, w.Stats(), end
}

// Beside the parts, the control side's events leave the critical path
// where a part ran fewer events than another in the same round; alone,
// they all lie on it.
func TestWindowsControlBeside(t *testing.T) {
	_, alone, _ := runRingStats(ringParts, 1, true)
	_, beside, _ := runRingStats(ringParts, 1, false)
	if alone.ControlEvents == 0 || alone.ControlEvents != beside.ControlEvents {
		t.Fatalf("control events %d alone, %d beside", alone.ControlEvents, beside.ControlEvents)
	}
	if alone.PathEvents != alone.CriticalEvents+alone.ControlEvents {
		t.Errorf("alone: path %d, want critical %d + control %d", alone.PathEvents, alone.CriticalEvents, alone.ControlEvents)
	}
	if beside.PathEvents >= beside.CriticalEvents+beside.ControlEvents {
		t.Errorf("beside: path %d, not below critical %d + control %d", beside.PathEvents, beside.CriticalEvents, beside.ControlEvents)
	}
}

// The windows give the same traces with 1, 2, 3 and 5 workers, with the
// control side alone and beside the parts, and stop at the control
// side's Stop with every clock there.
func TestWindowsWorkersAgree(t *testing.T) {
	ref, refEnd := runRing(ringParts, 1, true)
	if ref.laps != 40 {
		t.Fatalf("%d laps, want 40", ref.laps)
	}
	for _, c := range []struct {
		workers int
		alone   bool
	}{{2, true}, {3, true}, {5, true}, {1, false}, {2, false}, {3, false}, {5, false}} {
		r, end := runRing(ringParts, c.workers, c.alone)
		workers := fmt.Sprintf("%d (alone %v)", c.workers, c.alone)
		if end != refEnd {
			t.Errorf("%s workers: stopped at %v, want %v", workers, end, refEnd)
		}
		if fmt.Sprint(r.log) != fmt.Sprint(ref.log) {
			t.Errorf("%s workers: control log differs", workers)
		}
		for i, p := range r.parts {
			if fmt.Sprint(p.trace) != fmt.Sprint(ref.parts[i].trace) {
				t.Errorf("%s workers: part %d trace differs", workers, i)
			}
			if p.s.Now() != end {
				t.Errorf("%s workers: part %d clock at %v, want %v", workers, i, p.s.Now(), end)
			}
		}
	}
}

// A run of one part goes on past its window to the control side's next
// event, held back by the completions it writes (Scheduler.Bound), and
// gives the traces of one scheduler holding everything, in a few rounds
// a lap instead of one a window.
func TestWindowsSoloReach(t *testing.T) {
	ref := newRing(1)
	ref.direct = ref.ctrl
	ref.parts[0].s = ref.ctrl
	ref.ctrl.At(0, NodeKey(1, SrcControl), ref.parts[0], 0)
	ref.ctrl.Run()
	r := newRing(1)
	w := &Windows{Control: r.ctrl, Collect: r.collect, Deliver: r.deliver, Lookahead: unit.MaxTime, Reply: ringLook, Workers: 1}
	w.Parts = []Part{r.parts[0]}
	if at := w.RunUntil(3000); r.ctrl.Now() != at || r.parts[0].s.Now() != at { // a run observed mid-way continues as one that is not
		t.Errorf("RunUntil(3000) = %v with the control side at %v, the part at %v", at, r.ctrl.Now(), r.parts[0].s.Now())
	}
	end := w.RunUntil(1 << 20)
	if ref.laps != 40 || fmt.Sprint(r.log) != fmt.Sprint(ref.log) {
		t.Errorf("control log %v, want %v", r.log, ref.log)
	}
	if fmt.Sprint(r.parts[0].trace) != fmt.Sprint(ref.parts[0].trace) {
		t.Errorf("part trace %v, want %v", r.parts[0].trace, ref.parts[0].trace)
	}
	if end != ref.ctrl.Now() || r.parts[0].s.Now() != end {
		t.Errorf("stopped at %v (part at %v), want %v", end, r.parts[0].s.Now(), ref.ctrl.Now())
	}
	// A lap is a completion and a post: a window of ringLook each would
	// take end/ringLook rounds.
	if n := w.Stats().Windows; n > 4*40 {
		t.Errorf("%d rounds for 40 laps over %v, want at most %d", n, end, 4*40)
	}
}

// With a clock, the windows book each round's slowest and mean worker
// time: equal with one worker, the slowest never under the mean with
// more; without a clock, nothing.
func TestWindowsRoundTimes(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3} {
		r := newRing(ringParts)
		var tick atomic.Int64
		w := ringWindows(r, &Windows{Workers: max(workers, 1)})
		if workers > 0 {
			w.Clock = func() int64 { return tick.Add(1) }
		}
		w.RunUntil(unit.MaxTime)
		st := w.Stats()
		switch {
		case workers == 0 && (st.SlowestNS != 0 || st.MeanNS != 0):
			t.Errorf("no clock: slowest %d, mean %d, want 0", st.SlowestNS, st.MeanNS)
		case workers == 1 && (st.MeanNS == 0 || st.SlowestNS != st.MeanNS):
			t.Errorf("1 worker: slowest %d, mean %d, want equal and above 0", st.SlowestNS, st.MeanNS)
		case workers > 1 && (st.MeanNS == 0 || st.SlowestNS < st.MeanNS):
			t.Errorf("%d workers: slowest %d under mean %d", workers, st.SlowestNS, st.MeanNS)
		}
	}
}

// A worker done with its own parts takes up those of another worker that
// it has not begun, and a part runs once a round whoever takes it.
func TestWindowsWorkTaking(t *testing.T) {
	r := newRing(ringParts)
	w := ringWindows(r, &Windows{Workers: 2})
	w.RunUntil(100)
	before := make([]uint64, len(r.parts))
	for i, p := range r.parts {
		before[i] = p.s.Executed()
	}
	// Worker 0 alone through a round, worker 1 never arriving.
	rd := round{parts: 100 + ringLook - 1, control: -1, seq: w.rounds + 1}
	w.runRound(0, 2, rd)
	ran := 0
	for i, p := range r.parts {
		if p.s.Now() != rd.parts {
			t.Errorf("part %d (worker %d's) at %v, want %v: not taken up", i, i%2, p.s.Now(), rd.parts)
		}
		if p.s.Executed() > before[i] {
			ran++
		}
	}
	if ran == 0 {
		t.Fatal("the round ran no event")
	}
	// The same round again: every part is claimed, nothing runs twice.
	after := make([]uint64, len(r.parts))
	for i, p := range r.parts {
		after[i] = p.s.Executed()
		p.s.At(rd.parts, NodeKey(uint32(i+1), SrcControl), nil, 0)
	}
	w.runRound(1, 2, rd)
	for i, p := range r.parts {
		if p.s.Executed() != after[i] {
			t.Errorf("part %d ran again in the same round", i)
		}
	}
}

// newRingIdle is a ring whose parts have nothing to do until 10000, while
// the control side starts a token at part 2 at 50: the post must reach the
// part, whose own events are all later, before it runs past 50.
func newRingIdle(n int) *ring {
	r := newRingFrom(n, 10000)
	r.ctrl.At(50, NodeKey(0, SrcSelf), r, uint64(n-3)<<8)
	return r
}

// Linked rounds (a worker per part) give the traces of windowed rounds and
// of a single worker, also when the control side posts to parts whose own
// events all lie later, and take fewer rounds than windows of Lookahead.
func TestWindowsLinked(t *testing.T) {
	run := func(workers int, windowed bool, below float64) (*ring, WindowStats) {
		r := newRingIdle(ringParts)
		w := ringWindows(r, &Windows{Workers: workers, Windowed: windowed, LinkedBelow: below})
		w.RunUntil(unit.MaxTime)
		return r, w.Stats()
	}
	ref, _ := run(1, false, 2)
	if ref.laps != 40 || len(ref.parts[2].trace) == 0 || ref.parts[2].trace[0] != fmt.Sprintf("%d@50", (ringParts-3+ringParts)<<8) {
		t.Fatalf("reference: %d laps, part 2 starts %v: the control side's token did not start at 50", ref.laps, ref.parts[2].trace[:1])
	}
	windowed, ws := run(ringParts, true, 2)
	linked, ls := run(ringParts, false, 2)
	// The control side's share of the events moves about this: some
	// rounds linked, some windows.
	mixed, ms := run(ringParts, false, 0.1)
	for name, r := range map[string]*ring{"windowed": windowed, "linked": linked, "mixed": mixed} {
		if fmt.Sprint(r.log) != fmt.Sprint(ref.log) {
			t.Errorf("%s: control log differs", name)
		}
		for i, p := range r.parts {
			if fmt.Sprint(p.trace) != fmt.Sprint(ref.parts[i].trace) {
				t.Errorf("%s: part %d trace differs", name, i)
			}
		}
	}
	if ls.Windows >= ws.Windows || ls.Linked != ls.Windows || ws.Linked != 0 {
		t.Errorf("linked: %d rounds (%d linked), not fewer than the %d windows of Lookahead (%d linked)", ls.Windows, ls.Linked, ws.Windows, ws.Linked)
	}
	if ms.Linked == 0 || ms.Linked == ms.Windows {
		t.Errorf("mixed: %d of %d rounds linked, want some of each", ms.Linked, ms.Windows)
	}
	// Under the default rule the ring's control side, about a tenth of
	// its events, keeps windows (its first round, before any count, is
	// linked).
	if _, ds := run(ringParts, false, 0); ds.Linked > 1 {
		t.Errorf("default rule: %d of %d rounds linked, want windows for a busy control side", ds.Linked, ds.Windows)
	}
}

// A linked run that stops within its last round ends at the stop, every
// clock there, as the serial run does; one with nothing to run before its
// limit still brings the control side's clock to the limit.
func TestWindowsLinkedEnds(t *testing.T) {
	newWindows := func(r *ring, workers int, alone bool) *Windows {
		w := ringWindows(r, &Windows{Workers: workers, ControlAlone: alone, LinkedBelow: 2})
		return w
	}
	ref := newRing(ringParts)
	stop := newWindows(ref, 1, true).RunUntil(unit.MaxTime)
	for _, limit := range []unit.Time{stop, stop + 1, stop + ringLook/2} {
		r := newRing(ringParts)
		end := newWindows(r, ringParts, false).RunUntil(limit)
		if end != stop || r.ctrl.Now() != stop {
			t.Errorf("limit %v: ended at %v, control side at %v, want %v", limit, end, r.ctrl.Now(), stop)
		}
		for i, p := range r.parts {
			if p.s.Now() != stop || fmt.Sprint(p.trace) != fmt.Sprint(ref.parts[i].trace) {
				t.Errorf("limit %v: part %d at %v (want %v), trace same %v", limit, i, p.s.Now(), stop, fmt.Sprint(p.trace) == fmt.Sprint(ref.parts[i].trace))
			}
		}
	}
	r := newRingFrom(ringParts, 10000)
	if end := newWindows(r, ringParts, false).RunUntil(500); end != 500 || r.ctrl.Now() != 500 {
		t.Errorf("nothing before 500: ended at %v, control side at %v, want 500", end, r.ctrl.Now())
	}
}

// A waiter spins with the hint, and never yields, only when every worker
// has a core: with more workers than cores it checks briefly, without the
// hint, and yields, so that the worker it waits for can have its core.
func TestSpinFor(t *testing.T) {
	if sp := spinFor(1); sp.checks <= spinFor(1<<20).checks || sp.pauses == 0 || !sp.own {
		t.Errorf("one worker: %+v", sp)
	}
	if sp := spinFor(1 << 20); sp.pauses != 0 || sp.checks > 64 || sp.own {
		t.Errorf("more workers than cores: %+v", sp)
	}
}

// A sleeper on its own thread and one on the condition variable both
// wake at a publication, and one that sees the publication already made
// does not sleep.
func TestWakeSleepers(t *testing.T) {
	for _, own := range []bool{true, false} {
		var k wake
		k.init()
		var pub atomic.Int64
		done := make(chan struct{})
		go func() {
			k.wait(func() bool { return pub.Load() == 0 }, own)
			close(done)
		}()
		for k.sleepers.Load() == 0 {
			runtime.Gosched()
		}
		pub.Store(1)
		k.published()
		<-done
		k.wait(func() bool { return pub.Load() == 0 }, own) // returns at once
		if n := k.sleepers.Load(); n != 0 {
			t.Errorf("own %v: %d sleepers left", own, n)
		}
	}
}

// Adapting the workers (Windows.Adapt) changes nothing the parts and the
// control side do: with every epoch's wait share over the limit, the run
// goes back and forth between one worker and several, in windows (three
// workers for five parts) and linked (a worker each), and gives one
// worker's traces; with none over it, it never leaves them.
func TestWindowsAdapt(t *testing.T) {
	ref, refEnd := runRing(ringParts, 1, false)
	for _, c := range []struct {
		workers  int
		limit    float64
		someSolo bool
	}{{3, -1, true}, {ringParts, -1, true}, {3, 2, false}, {ringParts, 2, false}} {
		name := fmt.Sprintf("%d workers, limit %v", c.workers, c.limit)
		r := newRing(ringParts)
		var tick atomic.Int64
		w := ringWindows(r, &Windows{Workers: c.workers, LinkedBelow: 2, Adapt: true, Clock: func() int64 { return tick.Add(soloFirst / 2) }, waitLimit: c.limit})
		w.RunUntil(3000)
		end := w.RunUntil(unit.MaxTime)
		st := w.Stats()
		if c.someSolo && (st.Solo == 0 || st.Solo == st.Windows) || !c.someSolo && st.Solo != 0 {
			t.Errorf("%s: %d of %d rounds on one worker", name, st.Solo, st.Windows)
		}
		if c.workers == ringParts && st.Linked == 0 {
			t.Errorf("%s: no linked round", name)
		}
		if end != refEnd || fmt.Sprint(r.log) != fmt.Sprint(ref.log) {
			t.Errorf("%s: stopped at %v, want %v, or the control log differs", name, end, refEnd)
		}
		for i, p := range r.parts {
			if fmt.Sprint(p.trace) != fmt.Sprint(ref.parts[i].trace) || p.s.Now() != end {
				t.Errorf("%s: part %d's trace or clock differs", name, i)
			}
		}
	}
}

// The windows beside the control side count what ended them: with a
// lookahead under the reply, the frames or the control side's next
// event, never a reply; with the reply under the lookahead, never the
// frames; and every window but the last few (the limit, the stop) is
// counted once. Linked, the control side runs in steps.
func TestWindowsEnds(t *testing.T) {
	for _, c := range []struct {
		look, reply unit.Time
		workers     int
	}{{ringLook / 2, ringLook, 1}, {ringLook, ringLook / 2, 1}, {ringLook, ringLook, ringParts}} {
		r := newRing(ringParts)
		w := &Windows{Control: r.ctrl, Collect: r.collect, Deliver: r.deliver, Lookahead: c.look, Reply: c.reply,
			Workers: c.workers, LinkedBelow: 2}
		for _, p := range r.parts {
			w.Parts = append(w.Parts, p)
		}
		w.RunUntil(unit.MaxTime)
		st := w.Stats()
		ends := st.ByControl + st.ByReply + st.ByLookahead
		name := fmt.Sprintf("lookahead %v, reply %v, %d workers", c.look, c.reply, c.workers)
		switch {
		case c.workers > 1 && (st.Linked != st.Windows || ends != 0 || st.ControlSteps == 0):
			t.Errorf("%s: %d of %d rounds linked, %d window ends, %d control steps", name, st.Linked, st.Windows, ends, st.ControlSteps)
		case c.workers > 1:
		case ends > st.Windows || ends+3 < st.Windows:
			t.Errorf("%s: %d window ends of %d windows", name, ends, st.Windows)
		case st.ByControl == 0:
			t.Errorf("%s: no window ended at the control side's next event", name)
		case c.look < c.reply && st.ByReply != 0:
			t.Errorf("%s: %d windows ended by a reply", name, st.ByReply)
		case c.reply < c.look && (st.ByLookahead != 0 || st.ByReply == 0):
			t.Errorf("%s: %d windows ended by the lookahead, %d by a reply", name, st.ByLookahead, st.ByReply)
		}
		if st.ControlSteps > 0 && c.workers == 1 {
			t.Errorf("%s: %d control steps in windows", name, st.ControlSteps)
		}
	}
}

// A timeline records, once a slice, the cumulative events of each part
// and of the control side and the rounds, ending at the run's totals;
// it stops when full and leaves the traces as they are.
func TestWindowsTimeline(t *testing.T) {
	ref, _ := runRing(ringParts, 2, false)
	for _, room := range []int{3, 100000} {
		r := newRing(ringParts)
		var tick int64 // read by the coordinator only
		tl := NewTimeline(func() int64 { tick++; return tick }, 1, ringParts, room)
		tl.CPU = func() int64 { return 2 * tick } // two cores busy
		w := ringWindows(r, &Windows{Workers: 2, Timeline: tl})
		w.RunUntil(unit.MaxTime)
		st := w.Stats()
		for i, p := range r.parts {
			if fmt.Sprint(p.trace) != fmt.Sprint(ref.parts[i].trace) {
				t.Errorf("room %d: part %d trace differs", room, i)
			}
		}
		n := tl.Records()
		want := min(room, int(st.Windows)-1) // a record after every round but the first
		if n != want {
			t.Fatalf("room %d: %d records after %d rounds, want %d", room, n, st.Windows, want)
		}
		for k := 1; k < n; k++ {
			if b := tl.Busy(k); b != 2 {
				t.Errorf("room %d: record %d busy %v, want 2", room, k, b)
			}
			if tl.Rounds[k] != tl.Rounds[k-1]+1 || tl.At[k] != tl.At[k-1]+1 {
				t.Errorf("room %d: record %d at %d after %d rounds, record %d at %d after %d",
					room, k, tl.At[k], tl.Rounds[k], k-1, tl.At[k-1], tl.Rounds[k-1])
			}
			for i := range tl.Stride {
				if tl.Events[k*tl.Stride+i] < tl.Events[(k-1)*tl.Stride+i] || tl.Rate(k, i) < 0 {
					t.Errorf("room %d: record %d entry %d fell", room, k, i)
				}
			}
		}
		if room < int(st.Windows)-1 {
			continue // full before the end
		}
		last := tl.Events[(n-1)*tl.Stride:]
		for i, e := range st.PartEvents {
			if last[i] != e {
				t.Errorf("part %d: %d events at the last record, %d in all", i, last[i], e)
			}
		}
		if last[ringParts] != st.ControlEvents || tl.Rounds[n-1] != st.Windows {
			t.Errorf("last record: control %d after %d rounds, want %d after %d", last[ringParts], tl.Rounds[n-1], st.ControlEvents, st.Windows)
		}
	}
}

// Linked rounds whose waiters sleep at once, or after a check or two, run
// to the end with the traces of one worker, however Go schedules the
// workers: a wake-up that a publication owes a sleeper and does not give
// hangs the run (stalltest.Watch fails it with where each part waited), and
// a sleeper that misses a publication it needed does too. Every other
// run has each part send to both neighbours (ring.echo), so that a part
// waits on two. Run it with -race, -count and -cpu 2,4,8: each
// repetition meets the workers at different moments. It hung on its
// first run while a part that had run a pubSteps-th of a lookahead, with
// more to run, paused (the pause slept), and on its 98th of two parts
// while both parts, held by the control side, slept: the token's holder
// had read the other's earlier time and run nothing, the other had found
// the token taken (stepControl, when any worker could run the control
// side).
func TestWindowsLinkedSleepers(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 5
	}
	run := func(parts, workers int, echo bool, sp *spinning) *ring {
		r := newRing(parts)
		r.echo = echo
		w := ringWindows(r, &Windows{Workers: workers, LinkedBelow: 2, spinTest: sp})
		stalltest.Watch(t, "linked sleepers", w.State, func() { w.RunUntil(unit.MaxTime) })
		if st := w.Stats(); workers > 1 && st.Linked == 0 {
			t.Fatalf("%+v, %d parts: no linked round", sp, parts)
		}
		return r
	}
	sizes := []int{2, 3, ringParts}
	wants := map[int][2]*ring{} // one worker's runs, without and with echoes
	for _, parts := range sizes {
		wants[parts] = [2]*ring{run(parts, 1, false, nil), run(parts, 1, true, nil)}
	}
	for _, sp := range []spinning{{own: true}, {}, {checks: 2, pauses: 1, own: true}} {
		for _, parts := range sizes {
			want := wants[parts]
			for k := range n {
				echo := k%2 == 1
				r := run(parts, parts, echo, &sp)
				if fmt.Sprint(r.log) != fmt.Sprint(want[k%2].log) {
					t.Fatalf("%+v, %d parts, echo %v: control log differs", sp, parts, echo)
				}
				for i, p := range r.parts {
					if fmt.Sprint(p.trace) != fmt.Sprint(want[k%2].parts[i].trace) {
						t.Fatalf("%+v, %d parts, echo %v: part %d trace differs", sp, parts, echo, i)
					}
				}
			}
		}
	}
}

// In linked rounds the control side runs on part 0's worker, the
// goroutine that called RunUntil, and no other, so that its state stays
// in one core's cache; with two and three parts, each on a worker of its
// own, the control side's laps are the same as one worker's. Before, it
// ran on whichever worker it blocked: on the 64-server AllReduce, 92 % of
// its steps ran on another worker than the step before.
func TestWindowsControlOnPartZero(t *testing.T) {
	for _, parts := range []int{2, 3} {
		want, _ := runRing(parts, 1, false)
		for k := range 10 {
			r := newRing(parts)
			r.echo = k%2 == 1
			w := ringWindows(r, &Windows{Workers: parts, LinkedBelow: 2})
			caller, elsewhere := goroutineID(), 0
			r.onControl = func() {
				if goroutineID() != caller {
					elsewhere++
				}
			}
			w.RunUntil(unit.MaxTime)
			if st := w.Stats(); st.Linked == 0 || st.ControlSteps == 0 {
				t.Fatalf("%d parts: %d linked rounds, %d control steps", parts, st.Linked, st.ControlSteps)
			}
			if elsewhere > 0 {
				t.Fatalf("%d parts, run %d: %d of %d control events ran on another worker than part 0's", parts, k, elsewhere, len(r.log))
			}
			if !r.echo && fmt.Sprint(r.log) != fmt.Sprint(want.log) {
				t.Fatalf("%d parts: the control side's laps differ from one worker's", parts)
			}
		}
	}
}

// Part 0's worker in a linked round waits (and sleeps) like the other
// parts' when the control side can run no further: when it has no share
// in the round (the rounds after it stopped) or has stopped; while the
// parts' published times let it go further, it runs it instead. In the
// first two it had compared the control side's bound (0 with no share)
// with the last one it ran to, found it could go further, and spun
// without sleeping or yielding.
func TestWindowsLinkedWaitsStill(t *testing.T) {
	w := ringWindows(newRing(2), &Windows{Workers: 2, LinkedBelow: 2})
	w.RunUntil(unit.MaxTime) // sets up the parts' states
	for _, c := range []struct {
		name          string
		control, stop unit.Time
		want          bool
	}{
		{"no control share", -1, -1, true},
		{"control stopped", 900, 500, true},
		{"control can run", 900, -1, false},
	} {
		r := round{parts: 900, control: c.control, linked: true}
		w.startLinked(r)
		w.ctl.stop.Store(int64(c.stop))
		end := r.parts + 1
		if c.stop >= 0 {
			end = c.stop
		}
		bound, _ := w.linkedBound(0, end)
		if got := w.waitsStill(0, r, end, bound, int64(c.stop)); got != c.want {
			t.Errorf("%s: part 0 waits still %v, want %v", c.name, got, c.want)
		}
	}
}

// goroutineID returns the calling goroutine's number, from its stack's
// first line ("goroutine N [running]:").
func goroutineID() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf))
	var id int
	if len(f) < 2 {
		return -1
	}
	if _, err := fmt.Sscan(f[1], &id); err != nil {
		return -1
	}
	return id
}

// stallTries is how many times, a millisecond apart or more, a test
// reads a run's State for what it expects before it gives up.
const stallTries = 60000

// State says where each worker waits: with part 0's worker held in a
// handler at 1000, part 1 waits at the bound part 0's published time
// gives, asleep (waiters that sleep at once), and part 0 does not wait;
// released, the run gives the traces of one worker.
func TestWindowsState(t *testing.T) {
	const at = 1000
	want, end := runRing(2, 1, false)
	if end <= at {
		t.Fatalf("the ring ends at %v, before the hold", end)
	}
	r, w, release, done := heldRing(at, 2)
	var state string
	for tries := 0; ; tries++ {
		state = w.State()
		_, p1, _ := strings.Cut(state, "part 1: ")
		p1, _, _ = strings.Cut(p1, ";")
		if strings.Contains(p1, ", waits at ") && strings.HasSuffix(p1, ", asleep") {
			break
		}
		select {
		case <-done:
			t.Fatalf("the run ended with part 0 held: %s", state)
		case <-time.After(time.Millisecond):
		}
		if tries == stallTries {
			t.Fatalf("part 1 not seen asleep: %s", state) // part 0's worker stays held
		}
	}
	_, p0, _ := strings.Cut(state, "part 0: ")
	p0, _, _ = strings.Cut(p0, ";")
	if !strings.Contains(state, "(linked)") || strings.Contains(p0, "waits") || strings.Contains(p0, "asleep") {
		t.Errorf("part 0 runs its handler in a linked round, part 1 waits asleep: %s", state)
	}
	close(release)
	<-done
	for i, p := range r.parts {
		if fmt.Sprint(p.trace) != fmt.Sprint(want.parts[i].trace) {
			t.Errorf("part %d trace differs from one worker's", i)
		}
	}
	if s := w.State(); strings.Contains(s, "waits") || strings.Contains(s, "asleep") {
		t.Errorf("after the run: %s", s)
	}
	t.Log(state)
}

// heldRing starts a two-part ring on two workers whose part 0 holds its
// worker in a handler from time at until release is closed; it returns
// once the hold has begun. linkedBelow is Windows.LinkedBelow (2: every
// round linked; -1: none).
func heldRing(at unit.Time, linkedBelow float64) (r *ring, w *Windows, release chan struct{}, done chan struct{}) {
	r = newRing(2)
	held := make(chan struct{})
	release = make(chan struct{})
	var once sync.Once
	r.parts[0].hold = func(now unit.Time) {
		if now >= at {
			once.Do(func() {
				close(held)
				<-release
			})
		}
	}
	w = ringWindows(r, &Windows{Workers: 2, LinkedBelow: linkedBelow, spinTest: &spinning{own: true}})
	done = make(chan struct{})
	go func() {
		defer close(done)
		w.RunUntil(unit.MaxTime)
	}()
	<-held
	return r, w, release, done
}

// TestWindowsStateWindowed: in windowed rounds no part waits at a bound
// (they meet at the round's barrier), so State names no bound, from the
// first round on.
func TestWindowsStateWindowed(t *testing.T) {
	_, w, release, done := heldRing(1000, -1)
	s := w.State()
	close(release)
	<-done
	if !strings.Contains(s, "(windows)") || strings.Contains(s, "waits at") {
		t.Errorf("part 0 held in a windowed round: %s", s)
	}
}

// HomePathEvents counts the control side's events where Homes puts them:
// all in no part's hosts, they run beside the parts as PathEvents says;
// all across parts (or unseen by Homes), each holds the parts, as with
// the control side alone; all in one part, they add to its events.
func TestWindowsHomes(t *testing.T) {
	run := func(split func(parts []uint64, n uint64) (free, cross uint64)) WindowStats {
		r := newRing(ringParts)
		seen := uint64(0)
		w := ringWindows(r, &Windows{Workers: 1, LinkedBelow: 2})
		w.Homes = func(parts []uint64) (free, cross uint64) {
			n := r.ctrl.Executed() - seen
			seen += n
			return split(parts, n)
		}
		w.RunUntil(unit.MaxTime)
		return w.Stats()
	}
	free := run(func(_ []uint64, n uint64) (uint64, uint64) { return n, 0 })
	if free.ControlEvents == 0 || free.HomePathEvents != free.PathEvents || free.CrossEvents != 0 {
		t.Errorf("free: home path %d, want path %d; cross %d of %d control events", free.HomePathEvents, free.PathEvents, free.CrossEvents, free.ControlEvents)
	}
	for name, split := range map[string]func([]uint64, uint64) (uint64, uint64){
		"cross":  func(_ []uint64, n uint64) (uint64, uint64) { return 0, n },
		"unseen": func([]uint64, uint64) (uint64, uint64) { return 0, 0 },
	} {
		st := run(split)
		if want := st.CriticalEvents + st.ControlEvents; st.HomePathEvents != want || st.CrossEvents != st.ControlEvents {
			t.Errorf("%s: home path %d, want critical %d + control %d; cross %d", name, st.HomePathEvents, st.CriticalEvents, st.ControlEvents, st.CrossEvents)
		}
	}
	one := run(func(parts []uint64, n uint64) (uint64, uint64) { parts[0] += n; return 0, 0 })
	if one.HomePathEvents < one.PathEvents || one.HomePathEvents > one.CriticalEvents+one.ControlEvents || one.CrossEvents != 0 {
		t.Errorf("one part: home path %d, want between path %d and critical %d + control %d; cross %d", one.HomePathEvents, one.PathEvents, one.CriticalEvents, one.ControlEvents, one.CrossEvents)
	}
}

// RunPathEvents puts the control side's events where the run does: with
// a worker per part, in windows and linked rounds, on the coordinator's,
// beside part 0, so the path it gives lies between PathEvents (on the
// least busy part's core) and the critical path plus every control
// event; otherwise, on the first worker done or alone, it is PathEvents.
func TestWindowsRunPath(t *testing.T) {
	run := func(w *Windows) WindowStats {
		ringWindows(newRing(ringParts), w).RunUntil(unit.MaxTime)
		return w.Stats()
	}
	for name, w := range map[string]*Windows{
		"windows":       {Workers: ringParts, Windowed: true},
		"linked rounds": {Workers: ringParts, LinkedBelow: 2},
	} {
		own := run(w)
		if own.ControlEvents == 0 || own.RunPathEvents <= own.PathEvents || own.RunPathEvents > own.CriticalEvents+own.ControlEvents {
			t.Errorf("%s, a worker a part: run path %d, want above path %d and at most critical %d + control %d",
				name, own.RunPathEvents, own.PathEvents, own.CriticalEvents, own.ControlEvents)
		}
	}
	for name, w := range map[string]*Windows{
		"one worker": {Workers: 1, Windowed: true},
		"alone":      {Workers: ringParts, ControlAlone: true},
	} {
		if st := run(w); st.RunPathEvents != st.PathEvents {
			t.Errorf("%s: run path %d, want path %d", name, st.RunPathEvents, st.PathEvents)
		}
	}
}
