package nic_test

import (
	"slices"
	"testing"

	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// wakeLog records the tags it is woken with, in order, and how many
// completions its pair had seen at each.
type wakeLog struct {
	p    *pair
	tags []uint64
	seen []int
}

func (w *wakeLog) Wake(_ unit.Time, tag uint64) {
	w.tags = append(w.tags, tag)
	w.seen = append(w.seen, len(w.p.got))
}

// Equal-time wakes run the control side's own first, then group by group
// in order of the group's least host, whatever order they were made in:
// the order a run split over domains can reproduce (workload.Grouper).
// Within a group they run in the order they were made.
func TestGroupedWakeOrder(t *testing.T) {
	p := newPair(t, testConfig())
	p.tr.Group(p, []int{1})
	p.tr.Group(p, []int{0})
	w := &wakeLog{p: p}
	at := unit.Microsecond
	p.tr.AfterOn(1, at, w, 1)
	p.tr.AfterOn(0, at, w, 2)
	p.tr.After(at, w, 3)
	p.tr.AfterOn(1, at, w, 4)
	p.tr.AfterOn(0, at, w, 5)
	p.run()
	if want := []uint64{3, 2, 5, 1, 4}; !slices.Equal(w.tags, want) {
		t.Fatalf("wakes ran in order %v, want %v", w.tags, want)
	}
}

// A completion of an owner that groups is its NIC's group's: one at host
// 0 goes before a wake of host 1's group at the same time (the control
// side's order would put the wake first), and after a wake of its own
// group. Another owner's completions keep the control side's key.
func TestGroupedCompletionOrder(t *testing.T) {
	first := newPair(t, testConfig())
	postWrite(first)
	first.run()
	req := first.side(workload.Requester)
	if len(req) != 1 {
		t.Fatalf("completions %+v", first.got)
	}
	seenAt := req[0].At + testConfig().CompletionDelay

	p := newPair(t, testConfig())
	p.tr.Group(p, []int{0})
	p.tr.Group(p, []int{1})
	postWrite(p)
	w := &wakeLog{p: p}
	p.tr.AfterOn(1, seenAt, w, 1)
	p.tr.AfterOn(0, seenAt, w, 2)
	p.run()
	if len(p.got) != 1 || p.got[0].At != req[0].At {
		t.Fatalf("completions %+v, want one at %s", p.got, req[0].At)
	}
	if !slices.Equal(w.tags, []uint64{2, 1}) || !slices.Equal(w.seen, []int{0, 1}) {
		t.Fatalf("wakes %v saw %v completions, want [2 1] seeing [0 1]", w.tags, w.seen)
	}

	// Grouped by another owner, the pair's completion keeps the control
	// side's key and goes before the group's wake.
	p = newPair(t, testConfig())
	p.tr.Group(first, []int{0})
	postWrite(p)
	w = &wakeLog{p: p}
	p.tr.AfterOn(0, seenAt, w, 1)
	p.run()
	if !slices.Equal(w.seen, []int{1}) {
		t.Fatalf("the group's wake saw %v completions of an owner that does not group, want [1]", w.seen)
	}
}

// An owner that groups no host (Group with none) is still a grouper, so
// its queue pairs are keyed by their NIC's group: with no group anywhere,
// the control side's key, and the completion arrives as it would
// ungrouped (it used to index a group table never made, and panic).
func TestGroupedNoHosts(t *testing.T) {
	want := newPair(t, testConfig())
	postWrite(want)
	want.run()

	p := newPair(t, testConfig())
	p.tr.Group(p, nil)
	postWrite(p)
	p.run()
	if !slices.Equal(p.got, want.got) {
		t.Fatalf("completions %+v, want those ungrouped %+v", p.got, want.got)
	}
}

// postWrite connects host 0 to host 1 for p and posts one 1000-byte WRITE.
func postWrite(p *pair) {
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.Write, Bytes: 1000, ID: 1})
}
