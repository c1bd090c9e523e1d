package nic

import (
	"rocelab/internal/roce"
	"rocelab/internal/unit"
)

// maxSendMarks is how many send-time marks a requester keeps.
const maxSendMarks = 8

// sendMarks remembers, in a fixed space, when a requester first sent the
// PSNs it has not yet seen acknowledged: mark k says every PSN up to
// psn[k] was first sent at or before at[k] (first transmissions go out in
// PSN order). The newest mark follows the newest first transmission;
// older ones are spaced at least gap apart, and when they fill the array
// every other one is dropped and gap doubles, so the marks span any run
// and each bound stays true, only looser. Recording costs no allocation.
type sendMarks struct {
	n   int
	gap unit.Time
	psn [maxSendMarks]uint32
	at  [maxSendMarks]unit.Time
}

// sent records that PSNs up to psn were first sent by now.
func (m *sendMarks) sent(psn uint32, now unit.Time) {
	if m.gap == 0 {
		m.gap = unit.Microsecond
	}
	if m.n >= 2 && now-m.at[m.n-2] < m.gap {
		m.psn[m.n-1], m.at[m.n-1] = psn, now
		return
	}
	if m.n == maxSendMarks {
		for i := 0; i < m.n/2; i++ {
			m.psn[i], m.at[i] = m.psn[2*i+1], m.at[2*i+1]
		}
		m.n /= 2
		m.gap *= 2
	}
	m.psn[m.n], m.at[m.n] = psn, now
	m.n++
}

// acked drops the marks of PSNs before una.
func (m *sendMarks) acked(una uint32) {
	k := 0
	for k < m.n && roce.PSNDiff(m.psn[k], una) < 0 {
		k++
	}
	if k > 0 {
		copy(m.psn[:], m.psn[k:m.n])
		copy(m.at[:], m.at[k:m.n])
		m.n -= k
	}
}

// An UnackedRun is Packets data packets sent and not acknowledged, each
// first sent at or before At.
type UnackedRun struct {
	At      unit.Time
	Packets int64
}

// unacked splits the PSNs from una up to (not including) max into runs
// by the latest time each was first sent; PSNs past the last mark count
// at last, the time the requester last sent anything.
func (m *sendMarks) unacked(una, max uint32, last unit.Time) []UnackedRun {
	var out []UnackedRun
	from := una
	for k := 0; k < m.n && roce.PSNDiff(from, max) < 0; k++ {
		to := roce.PSNAdd(m.psn[k], 1)
		if roce.PSNDiff(to, max) > 0 {
			to = max
		}
		if n := roce.PSNDiff(to, from); n > 0 {
			out = append(out, UnackedRun{At: m.at[k], Packets: int64(n)})
			from = to
		}
	}
	if n := roce.PSNDiff(max, from); n > 0 {
		out = append(out, UnackedRun{At: last, Packets: int64(n)})
	}
	return out
}
