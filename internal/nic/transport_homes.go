package nic

// Where the workloads' events would run if they ran in their hosts'
// domains: bookkeeping for the run's statistics (sim.Windows.Homes), kept
// only in runs of more than one part.

// homes says, for the run's statistics (Homes), which domains the
// workloads' events touch: the event being handled has touched home.cur
// (noHome: none yet; crossHome: more than one domain's hosts); a wake
// starts from where the event that asked for it was, or from no home if
// that event crossed domains (its wakes are counted by what they touch
// themselves, not all as crossing because one step did), a completion
// from its NIC's domain, and posts and connects add their NICs' domains.
// Only on (CountHomes) does the transport keep any of it.
type homes struct {
	on          bool
	cur         int32
	wake, comp  []int32 // by slot
	parts       []uint64
	free, cross uint64
}

const (
	noHome    = -1
	crossHome = -2
)

// touch adds domain d to what the current event touched.
func (h *homes) touch(dom int) {
	switch d := int32(dom); h.cur {
	case noHome:
		h.cur = d
	case d:
	default:
		h.cur = crossHome
	}
}

// keep records home for slot i of a wake or completion.
func keep(s *[]int32, i int32, home int32) {
	for int(i) >= len(*s) {
		*s = append(*s, noHome)
	}
	(*s)[i] = home
}

// enter starts the transport event of kind k (a tag's low byte) and slot
// i where it begins: the start touches every host, a wake and a
// completion begin where they were kept.
func (h *homes) enter(k uint64, i int32) {
	switch k {
	case tagStart:
		h.cur = crossHome
	case tagWake:
		h.cur = h.wake[i]
	case tagComplete:
		h.cur = h.comp[i]
	}
}

// book counts the event just handled where it touched.
func (h *homes) book() {
	switch h.cur {
	case noHome:
		h.free++
	case crossHome:
		h.cross++
	default:
		h.parts[h.cur]++
	}
}

// CountHomes has the transport keep, from now on, where the workloads'
// events would run (Homes). A run of one part never asks, and without it
// the transport does none of that bookkeeping.
func (t *Transport) CountHomes() { t.home.on = true }

// Homes says where the workloads' events since the last call would run
// if they ran in their hosts' domains (sim.Windows.Homes), as counted
// since CountHomes (all free before it): it adds to
// parts[d] those that touched only domain d's NICs (through their wake's
// or completion's origin, their posts and connects) and returns those
// that touched none and those that touched more than one domain's. It
// does not see the workloads' state shared between hosts (a call's count
// of finished ranks), only where their messages go.
func (t *Transport) Homes(parts []uint64) (free, cross uint64) {
	h := &t.home
	for d, n := range h.parts {
		parts[d] += n
	}
	clear(h.parts)
	free, cross, h.free, h.cross = h.free, h.cross, 0, 0
	return free, cross
}
