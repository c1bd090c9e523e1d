package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// The RTT is judged by kind: a profile below one BDP at the default RTT is
// an error only when the RTT is stated or Kmax drains faster than any
// fabric's round trip; otherwise a warning that names the RTT it suits.
// Late marking below the priority group's XOFF point costs delay, not
// pauses: info.
func TestJudgeECNByRTT(t *testing.T) {
	th5 := ECNProfile{Subject: "WRED_LOSSLESS_Q3", Kmin: 128 * unit.KiB, Kmax: 256 * unit.KiB, Pmax: 0.05,
		Rate: 400 * unit.Gbps, RateHow: "400G", RTT: 20 * unit.Microsecond, Units: "bytes"}
	for _, c := range []struct {
		name    string
		p       ECNProfile
		sev     Severity
		want    string
		wantNot string
	}{
		{"stated RTT", th5, Error, "below one BDP (1MB at 400Gbps, RTT 20us)", "drains"},
		{"assumed RTT, Arista 7060X6 stock", ecnWith(th5, func(p *ECNProfile) { p.RTTAssumed = true }), Warn,
			"an assumed RTT of 20us) (Pmax 5%): Kmax drains in 5.2us, one BDP only where the fabric's RTT is 5.2us or less", ""},
		{"assumed RTT, Kmax below any fabric's round trip", ecnWith(th5, func(p *ECNProfile) { p.RTTAssumed, p.Kmin, p.Kmax = true, 20000, 40000 }), Error,
			"Kmax drains in 800ns, less than any fabric's round trip (2us at least)", ""},
		{"late, XOFF not shown", ECNProfile{Subject: "AZURE_LOSSLESS", Kmin: unit.MiB, Kmax: 2 * unit.MiB, Pmax: 0.05,
			Rate: 100 * unit.Gbps, RTT: 20 * unit.Microsecond, RTTAssumed: true}, Warn,
			"Kmin 1MiB is 4.2 BDPs (250KB at 100Gbps, an assumed RTT of 20us): marking starts late unless the fabric's RTT is 41.9us or more", ""},
		{"late, below XOFF", ECNProfile{Subject: "AZURE_LOSSLESS", Kmin: unit.MiB, Kmax: 2 * unit.MiB, Pmax: 0.05,
			Rate: 100 * unit.Gbps, RTT: 20 * unit.Microsecond, RTTAssumed: true, XoffAt: 6 * unit.MiB}, Info,
			"marking starts late", ""},
	} {
		fs := JudgeECN(c.p, false)
		if len(fs) != 1 || fs[0].Severity != c.sev || !strings.Contains(fs[0].Title, c.want) || c.wantNot != "" && strings.Contains(fs[0].Title, c.wantNot) {
			t.Errorf("%s: got %v, want one %v finding with %q", c.name, fs, c.sev, c.want)
			continue
		}
		// XOFF is an ingress priority group's, marking an egress queue's:
		// the finding says which point it compares and when it fails.
		if c.p.XoffAt > 0 && (!strings.Contains(fs[0].Mechanism, "marks before its priority group sends XOFF") ||
			!strings.Contains(fs[0].Mechanism, "ingress priority group sends XOFF at 6MiB when its port alone feeds the queue") || !strings.Contains(fs[0].Mechanism, "unless other traffic fills the pool")) {
			t.Errorf("%s: mechanism %q does not say where XOFF is judged and when the queue marks before it", c.name, fs[0].Mechanism)
		}
		// At an assumed RTT the fix gives the numbers at it and the RTT the
		// profile suits, and how to judge it at the fabric's own.
		if c.p.RTTAssumed && c.sev == Warn && fs[0].Title != "" && strings.Contains(fs[0].Title, "below one BDP") &&
			(!strings.Contains(fs[0].Fix, "Raise Kmax to 2–3×BDP (2MB–3MB) and Kmin to at least BDP/7 (142858B) at the assumed 20us RTT") || !strings.Contains(fs[0].Fix, "If the fabric's RTT is 5.2us or less") || !strings.Contains(fs[0].Fix, "rocelab calc ecn --speed 400Gbps --rtt <your RTT>")) {
			t.Errorf("%s: fix %q does not give the numbers at the assumed RTT and the RTT the profile suits", c.name, fs[0].Fix)
		}
		if c.p.RTTAssumed && strings.Contains(fs[0].Title, "marking starts late") && !strings.Contains(fs[0].Fix, "500KB at the assumed 20us RTT; `rocelab calc ecn --speed 100Gbps --rtt <your RTT>`") {
			t.Errorf("%s: fix %q does not say the bound rests on the assumed RTT", c.name, fs[0].Fix)
		}
	}
}

func ecnWith(p ECNProfile, f func(*ECNProfile)) ECNProfile {
	f(&p)
	return p
}
