package doctor

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"rocelab/internal/unit"
)

// ECN thresholds are judged by one function for both front ends: the
// doctor on `ecnconfig -l` output, lint on a SONiC WRED_PROFILE or a
// cluster description. The same profile at the same line rate gets the
// same finding and severity from either.

// ECNKminMaxBDP is the most BDPs of queue Kmin may let build before the
// first mark.
const ECNKminMaxBDP = 2

// An ECNProfile is a RED/ECN marking profile on a lossless queue.
type ECNProfile struct {
	// Subject names the profile and where it applies.
	Subject    string
	Kmin, Kmax unit.Bytes
	// Pmax is the marking probability at Kmax (0–1), negative when not
	// stated.
	Pmax float64
	// Rate is the port speed the profile drains at; RateHow says where it
	// comes from, and RateAssumed that nothing stated it.
	Rate        unit.BitRate
	RateHow     string
	RateAssumed bool
	RTT         unit.Time
	// Units says how the source writes thresholds ("bytes (SONiC WRED
	// thresholds)").
	Units    string
	Evidence []Evidence
	// Note is added to every finding's mechanism (what was inferred).
	Note string
	// KminName and KmaxName are the source's own names for the
	// thresholds in titles and fixes ("min-threshold" in NVUE); Kmin and
	// Kmax when empty; PmaxName likewise ("probability"; Pmax).
	KminName, KmaxName, PmaxName string
}

// Names returns the names of the thresholds and the marking probability
// in titles and fixes.
func (p ECNProfile) Names() (kmin, kmax, pmax string) {
	return cmp.Or(p.KminName, "Kmin"), cmp.Or(p.KmaxName, "Kmax"), cmp.Or(p.PmaxName, "Pmax")
}

// BDP is the bandwidth-delay product of the profile's rate and RTT.
func (p ECNProfile) BDP() unit.Bytes {
	return unit.Bytes(math.Round(float64(p.Rate) * p.RTT.Seconds() / 8))
}

// JudgeECN returns the switch.ecn.thresholds findings of a profile: Kmax
// below one BDP (error; warn when the line rate is assumed), Kmin above
// ECNKminMaxBDP BDPs (warn; at an assumed rate only the doctor says so,
// as info), or, when healthy is set, an info finding that the thresholds
// sit in range (the doctor reports the state it saw; lint only problems).
func JudgeECN(p ECNProfile, healthy bool) []Finding {
	bdp := p.BDP()
	if bdp <= 0 {
		return nil
	}
	at := fmt.Sprintf("%v at %v, RTT %v", bdp, p.Rate, p.RTT)
	rateNote := "Line rate: " + p.RateHow + "."
	if p.RateAssumed {
		at = fmt.Sprintf("%v at an assumed %v, RTT %v", bdp, p.Rate, p.RTT)
	}
	kmin, kmax, pmaxName := p.Names()
	pmax := ""
	if p.Pmax >= 0 {
		pmax = fmt.Sprintf(" (%s %s%%)", pmaxName, trimFloat(p.Pmax*100))
	}
	f := Finding{
		ID: "switch.ecn.thresholds", Layer: LayerFabric, Subject: p.Subject,
		Evidence: evidenceInOrder(p.Evidence),
	}
	switch {
	case p.Kmax < bdp:
		below := fmt.Sprintf("%s %v is", kmax, p.Kmax)
		if p.Kmin < bdp {
			below = fmt.Sprintf("%s %v and %s %v are", kmin, p.Kmin, kmax, p.Kmax)
		}
		f.Severity = Error
		if p.RateAssumed {
			f.Severity = Warn
		}
		f.Title = fmt.Sprintf("%s: %s below one BDP (%s)%s", p.Subject, below, at, pmax)
		f.Mechanism = fmt.Sprintf("Above Kmax every packet is marked. A queue of one bandwidth-delay product is what a port holds while senders learn of congestion, so with Kmax below it nearly every packet of a busy queue carries CE, receivers send a CNP per flow every few microseconds, and DCQCN keeps cutting rates that were never too high: bandwidth collapses without any loss. "+
			"Thresholds are %s here; numbers meant as buffer cells (96–256 B each) are far smaller as bytes. Huawei sizes Kmax at 2–3 BDP (%v–%v here). %s", p.Units, 2*bdp, 3*bdp, rateNote)
		f.Fix = fmt.Sprintf("Raise %s to 2–3×BDP (%v–%v) and %s to at least BDP/7 (%v); `rocelab calc ecn --speed %v --rtt %v` shows the rules and published profiles.", kmax, 2*bdp, 3*bdp, kmin, unit.Bytes(math.Ceil(float64(bdp)/7)), p.Rate, p.RTT)
	case p.Kmin > ECNKminMaxBDP*bdp && p.RateAssumed && !healthy:
		// Late marking is a matter of degree that rests on the line rate;
		// lint does not judge it at a rate nobody stated.
		return nil
	case p.Kmin > ECNKminMaxBDP*bdp:
		f.Severity = Warn
		if p.RateAssumed {
			f.Severity = Info
		}
		f.Title = fmt.Sprintf("%s: %s %v is %.1f BDPs (%s): marking starts late", p.Subject, kmin, p.Kmin, float64(p.Kmin)/float64(bdp), at)
		f.Mechanism = fmt.Sprintf("No packet is marked until the queue holds Kmin: %v is %.0f µs of line rate, during which senders keep full speed; under an incast the ingress ports can reach PFC XOFF before DCQCN slows anyone, so congestion spreads by pause instead of being controlled at the senders. %s", p.Kmin, float64(p.Kmin)*8/p.Rate.Gbps()/1e3, rateNote)
		f.Fix = fmt.Sprintf("%s at most %d BDPs (%v here); published 100G values: NVIDIA 150 KB, HPCC ns-3 400 KB.", kmin, ECNKminMaxBDP, ECNKminMaxBDP*bdp)
	case healthy:
		f.Severity = Info
		f.Title = fmt.Sprintf("%s: ECN marks from %v to %v%s; BDP %s", p.Subject, p.Kmin, p.Kmax, pmax, at)
		f.Mechanism = fmt.Sprintf("DCQCN reacts to ECN marks: the switch marks between Kmin and Kmax with a probability rising to Pmax. Kmin %v and Kmax %v sit within the usual range (Kmin up to %d BDPs, Kmax at least one BDP, about 2–3 BDPs by Huawei's AI fabric guide). %s", p.Kmin, p.Kmax, ECNKminMaxBDP, rateNote)
	default:
		return nil
	}
	if p.Note != "" {
		f.Mechanism += " " + p.Note
	}
	return []Finding{f.per(p.Subject, "profile", "ECN thresholds")}
}

// trimFloat formats f without trailing zeros.
func trimFloat(f float64) string {
	s := fmt.Sprintf("%.3f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
