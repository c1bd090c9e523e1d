package cc

import "rocelab/internal/unit"

// NP is DCQCN's notification point: it decides which CE-marked packets a
// receiving NIC answers with a CNP. The NIC keeps one NP per port or one per
// QP, as cnp_pacing_scope says (Scope), and calls OnCE for every CE-marked
// RoCE packet of a QP whose priority roce_cc_prio_mask enables.
//
// mlx5 (the default): a CE mark is answered at once if at least
// min_time_between_cnps has passed since the last CNP of the scope, and
// dropped otherwise. Paper: the same, and a mark dropped inside the gap is
// remembered; when the gap ends the NP sends one CNP for all of them, as the
// paper's "at most one CNP every N µs for the flow, if any packet in that
// window was marked" and htsim's DCQCNSink do. The NIC then calls
// NextDeadline and OnDeadline as for a Controller. A deferred CNP goes to the
// QP of the last mark held back, which the NIC remembers.
type NP struct {
	gap      unit.Time
	deferred bool
	last     unit.Time // when the last CNP went out
	sent     bool      // a CNP has gone out
	pending  bool      // paper: a mark was held back in the current gap
}

// NewNP returns a notification point with no CNP sent yet.
func (c *DCQCNConfig) NewNP() NP {
	return NP{
		gap:      unit.Time(min(max(c.MinTimeBetweenCnps, 0), 131071)) * unit.Microsecond,
		deferred: c.Variant == VariantPaper,
	}
}

// Scope returns cnp_pacing_scope: ScopePort (one NP per NIC port) or
// ScopeQP (one per QP).
func (c *DCQCNConfig) Scope() int64 { return c.CnpPacingScope }

// OnCE handles a CE-marked packet arriving at now and reports whether the NIC
// sends a CNP for it now.
func (n *NP) OnCE(now unit.Time) (sendCNP bool) {
	if !n.sent || now-n.last >= n.gap {
		n.sent, n.last, n.pending = true, now, false
		return true
	}
	if n.deferred {
		n.pending = true
	}
	return false
}

// NextDeadline returns when a held-back mark turns into a CNP (paper), or
// unit.MaxTime.
func (n *NP) NextDeadline() unit.Time {
	if !n.pending {
		return unit.MaxTime
	}
	return addTime(n.last, n.gap)
}

// OnDeadline reports whether a deferred CNP is due at or before now; if so
// the NIC sends it now.
func (n *NP) OnDeadline(now unit.Time) (sendCNP bool) {
	if !n.pending || now < addTime(n.last, n.gap) {
		return false
	}
	n.pending, n.last = false, now
	return true
}
