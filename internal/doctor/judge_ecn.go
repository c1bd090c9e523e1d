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

// ECNMinRTT is a floor under any RoCE fabric's round trip: a packet and
// the reply it draws cross both NICs' pipelines and the link between them.
// The one measured round trip the corpus holds is ib_read_lat's between
// two ConnectX-5 VFs over InfiniBand, switch not stated: 1.84 µs minimum,
// 1.90 typical (testdata/corpus/perftest/ib-read-lat-ib-8-space-indent-cpu-freq-in-table-spiderpool.txt;
// perftest reports a read's latency whole, print_report_lat's rtt_factor
// 1, and halves send's and write's). A RoCE fabric adds Ethernet switches
// to that path, not less. A Kmax that drains in less than ECNMinRTT is
// below one BDP whatever the fabric's RTT.
const ECNMinRTT = 2 * unit.Microsecond

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
	// RTTAssumed says no input stated the RTT: RTT is the default
	// (20 µs, Huawei's AI fabric guide). A SONiC CONFIG_DB and
	// `ecnconfig -l` carry none; a description states it in
	// switch.ecn.rtt.
	RTTAssumed bool
	// XoffAt is where the queue's lossless priority group sends XOFF when
	// one ingress port fills it, when the input shows it (0: not shown).
	XoffAt unit.Bytes
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
	return p.bdpAt(p.RTT)
}

func (p ECNProfile) bdpAt(rtt unit.Time) unit.Bytes {
	return unit.Bytes(math.Round(float64(p.Rate) * rtt.Seconds() / 8))
}

// drain is how long b bytes take to leave at the profile's rate, to 0.1 µs.
func (p ECNProfile) drain(b unit.Bytes) unit.Time {
	tenths := math.Round(float64(b) * 8 / float64(p.Rate) * 1e7)
	return unit.Time(tenths) * unit.Microsecond / 10
}

// JudgeECN returns the switch.ecn.thresholds findings of a profile: Kmax
// below one BDP, Kmin above ECNKminMaxBDP BDPs, or, when healthy is set,
// an info finding that the thresholds sit in range (the doctor reports the
// state it saw; lint only problems).
//
// The BDP is the port's rate times the fabric's RTT, so thresholds written
// in bytes mean less time at a faster port: a profile is judged by how
// long its thresholds take to drain. The RTT is rarely stated, and it
// cuts the two ways apart:
//   - Kmax below one BDP is an error only when the rate and the RTT are
//     both stated, or when Kmax drains in less than ECNMinRTT, the
//     shortest round trip of any fabric (thresholds in the wrong unit,
//     cells read as bytes). Below the default 20 µs RTT alone it is a
//     warning that names the RTT up to which it holds: vendors size their
//     AI SKUs for short back-end round trips (Arista 7060X6 SONiC SKUs
//     128/256 KiB at 400G, NVIDIA SN5600/SN5640 163/276 KiB at 400–800G
//     on their lossy RoCE queues,
//     Cumulus Linux's RoCE default 150 KB–1.5 MB at every speed), and DCQCN
//     is rate-based: a Kmax below the BDP over-marks and costs throughput,
//     it does not lose packets (the HPCC paper, SIGCOMM 2019, measures
//     DCQCN's thresholds trading throughput against queueing delay).
//   - Kmin above 2 BDPs marks late at the default RTT, and later still at
//     the shorter RTT of an AI back-end fabric, so a warning stands; but
//     when the input shows where the priority group sends XOFF and Kmin is
//     below it, the queue marks before PFC pauses and late marking costs
//     only queueing delay (SONiC's AZURE_LOSSLESS, 1 MiB, is sized so
//     with its buffers): info.
func JudgeECN(p ECNProfile, healthy bool) []Finding {
	bdp := p.BDP()
	if bdp <= 0 {
		return nil
	}
	rtt := fmt.Sprintf("RTT %v", p.RTT)
	if p.RTTAssumed {
		rtt = fmt.Sprintf("an assumed RTT of %v", p.RTT)
	}
	at := fmt.Sprintf("%v at %v, %s", bdp, p.Rate, rtt)
	rateNote := "Line rate: " + p.RateHow + "."
	if p.RateAssumed {
		at = fmt.Sprintf("%v at an assumed %v, %s", bdp, p.Rate, rtt)
	}
	if p.RTTAssumed {
		rateNote += fmt.Sprintf(" RTT: %v assumed (Huawei's AI fabric guide); the input states none.", p.RTT)
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
		holds := ""
		if p.RateAssumed || p.RTTAssumed && p.Kmax >= p.bdpAt(ECNMinRTT) {
			f.Severity = Warn
		}
		switch {
		case p.RTTAssumed && f.Severity == Error:
			holds = fmt.Sprintf(": %s drains in %v, less than any fabric's round trip (%v at least)", kmax, p.drain(p.Kmax), ECNMinRTT)
		case p.RTTAssumed:
			holds = fmt.Sprintf(": %s drains in %v, one BDP only where the fabric's RTT is %v or less", kmax, p.drain(p.Kmax), p.drain(p.Kmax))
		}
		f.Title = fmt.Sprintf("%s: %s below one BDP (%s)%s%s", p.Subject, below, at, pmax, holds)
		f.Mechanism = fmt.Sprintf("Above Kmax every packet is marked. A queue of one bandwidth-delay product is what a port holds while senders learn of congestion, so with Kmax below it nearly every packet of a busy queue carries CE, receivers send a CNP per flow every few microseconds, and DCQCN keeps cutting rates that were never too high: bandwidth collapses without any loss. "+
			"Thresholds are %s here; numbers meant as buffer cells (96–256 B each) are far smaller as bytes. Huawei sizes Kmax at 2–3 BDP (%v–%v here). %s", p.Units, 2*bdp, 3*bdp, rateNote)
		f.Fix = fmt.Sprintf("Raise %s to 2–3×BDP (%v–%v) and %s to at least BDP/7 (%v); `rocelab calc ecn --speed %v --rtt %v` shows the rules and published profiles.", kmax, 2*bdp, 3*bdp, kmin, unit.Bytes(math.Ceil(float64(bdp)/7)), p.Rate, p.RTT)
		if p.RTTAssumed && f.Severity == Warn {
			f.Fix = fmt.Sprintf("Raise %s to 2–3×BDP (%v–%v) and %s to at least BDP/7 (%v) at the assumed %v RTT. If the fabric's RTT is %v or less (one leaf, short back-end links), %s %v holds one BDP: keep it. `rocelab calc ecn --speed %v --rtt <your RTT>` gives the bounds at the RTT you measure; lint judges at it when a description beside the config writes switch.ecn.rtt.",
				kmax, 2*bdp, 3*bdp, kmin, unit.Bytes(math.Ceil(float64(bdp)/7)), p.RTT, p.drain(p.Kmax), kmax, p.Kmax, p.Rate)
		}
	case p.Kmin > ECNKminMaxBDP*bdp && p.RateAssumed && !healthy:
		// Late marking is a matter of degree that rests on the line rate;
		// lint does not judge it at a rate nobody stated.
		return nil
	case p.Kmin > ECNKminMaxBDP*bdp:
		f.Severity = Warn
		late := "under an incast the ingress ports can reach PFC XOFF before DCQCN slows anyone, so congestion spreads by pause instead of being controlled at the senders"
		if p.XoffAt > 0 && p.Kmin < p.XoffAt {
			f.Severity = Info
			late = fmt.Sprintf("PFC is judged at the ingress, marking at this egress queue: RoCE's ingress priority group sends XOFF at %v when its port alone feeds the queue in an otherwise empty pool (the queue then holds what the group holds; with more ports feeding it, the queue is deeper when their groups pause), so the queue marks before its priority group sends XOFF unless other traffic fills the pool, and what late marking costs is delay: a standing queue of up to Kmin in front of every packet before senders slow down", p.XoffAt)
		}
		if p.RateAssumed {
			f.Severity = Info
		}
		f.Title = fmt.Sprintf("%s: %s %v is %.1f BDPs (%s): marking starts late", p.Subject, kmin, p.Kmin, float64(p.Kmin)/float64(bdp), at)
		if p.RTTAssumed {
			f.Title += fmt.Sprintf(" unless the fabric's RTT is %v or more", p.drain(p.Kmin/ECNKminMaxBDP))
		}
		f.Mechanism = fmt.Sprintf("No packet is marked until the queue holds Kmin: %v is %.0f µs of line rate, during which senders keep full speed; %s. %s", p.Kmin, float64(p.Kmin)*8/p.Rate.Gbps()/1e3, late, rateNote)
		f.Fix = fmt.Sprintf("%s at most %d BDPs (%v here); published 100G values: NVIDIA 150 KB, HPCC ns-3 400 KB.", kmin, ECNKminMaxBDP, ECNKminMaxBDP*bdp)
		if p.RTTAssumed {
			f.Fix = fmt.Sprintf("%s at most %d BDPs (%v at the assumed %v RTT; `rocelab calc ecn --speed %v --rtt <your RTT>` at yours); published 100G values: NVIDIA 150 KB, HPCC ns-3 400 KB.", kmin, ECNKminMaxBDP, ECNKminMaxBDP*bdp, p.RTT, p.Rate)
		}
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
