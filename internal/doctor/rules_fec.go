package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Rules over `ethtool --show-fec`: the forward error correction a host
// port's link runs and, with -I, the codewords it could not repair. FEC
// turns a raw bit error ratio into a far lower one; a block it cannot
// repair, or a link that runs none at a rate that needs it, loses frames
// that RoCE recovers only by retransmission.

func fecRules() []Rule {
	return []Rule{{IDs: []string{"counters.phy.fec_uncorrectable", "counters.phy.fec_off"}, Check: checkFEC}}
}

// fecRequiredRate is the port rate from which 802.3 requires RS-FEC on
// every medium: 50 Gb/s and up (a PAM4 lane's RS(544,514), 100GBASE-SR4
// and -CR4's RS(528,514)); only short 25 Gb/s copper may run without.
const fecRequiredRate = 50 * unit.Gbps

// checkFEC judges each port `ethtool --show-fec` reported.
func checkFEC(inc *Incident) []Finding {
	var fs []Finding
	for _, e := range All[*ingest.EthtoolStats](inc) {
		for _, f := range e.FEC {
			name := nameOr(f.Device, "<if>")
			if h := e.Scope().Host.Name; h != "" {
				name = h + " " + name
			}
			if f.Uncorrectable > 0 {
				fs = append(fs, fecUncorrectable(name, f))
			}
			if off := strings.ToLower(f.Active); off == "off" || off == "none" {
				rate, ev, known := nicPortRate(inc, e.Scope(), f.Device)
				if x, ok := fecOff(name, f, rate, ev, known); ok {
					fs = append(fs, x)
				}
			}
		}
	}
	return fs
}

// fecUncorrectable reports the codewords FEC could not repair.
func fecUncorrectable(name string, f ingest.FECSetting) Finding {
	title := fmt.Sprintf("%s: %d FEC blocks uncorrectable", name, f.Uncorrectable)
	if f.Corrected > 0 {
		title += fmt.Sprintf(" beside %d corrected", f.Corrected)
	}
	if l, share, ok := worstLane(f.UncorrectableLanes); ok {
		title += fmt.Sprintf("; lane %d holds %.0f%% of them", l, 100*share)
	}
	if f.Active != "" {
		title += " (" + f.Active + " FEC)"
	}
	dev := nameOr(f.Device, "<if>")
	return Finding{
		ID: "counters.phy.fec_uncorrectable", Severity: Warn, Layer: LayerFabric, Subject: name,
		Title:     title,
		Evidence:  fecEvidence(f, "active", "corrected", "uncorrectable"),
		Mechanism: "Reed-Solomon FEC repairs a fixed number of symbol errors per codeword (7 in RS(528,514), 15 in RS(544,514)); a codeword with more is passed on uncorrected, and the frames in it arrive with a bad FCS and are dropped at this port. Each is a RoCE packet lost after PFC has done its part: RC resends it and everything after it (go-back-N), and a lost message tail waits for the ACK timeout. Corrected blocks alone are FEC doing its job; uncorrectable ones mean the raw error ratio at times exceeds what it can repair, most often one lane of a dirty, damaged or failing optic or cable. Counted since the driver started counting (link up or driver load): two readings around a test show whether it still moves.",
		Fix:       fmt.Sprintf("Check the link: `ethtool -m %s` (each lane's rx power against its alarm thresholds), the switch port's FEC counters at the other end (SONiC `show interfaces counters fec-stats`, EOS `show interfaces phy detail`) and the FCS errors of both; clean and reseat the connectors, then replace the optic or cable (the worst lane's first); shut the link meanwhile so ECMP routes around it. Read `ethtool -I --show-fec %s` again after the test.", dev, dev),
	}
}

// fecOff reports a link that runs without FEC at a rate that needs it
// (warn), or at a rate the inputs do not give (info).
func fecOff(name string, f ingest.FECSetting, rate unit.BitRate, rateEv Evidence, known bool) (Finding, bool) {
	sev := Info
	title := fmt.Sprintf("%s: the link runs without FEC (Active FEC encoding: %s)", name, f.Active)
	ev := fecEvidence(f, "configured", "active")
	switch {
	case known && rate < 25*unit.Gbps:
		return Finding{}, false
	case known && rate >= fecRequiredRate:
		sev = Warn
		title += " at " + rate.String()
		ev = evidenceInOrder(append(ev, rateEv))
	case known:
		title += " at " + rate.String()
		ev = evidenceInOrder(append(ev, rateEv))
	}
	dev := nameOr(f.Device, "<if>")
	return Finding{
		ID: "counters.phy.fec_off", Severity: sev, Layer: LayerFabric, Subject: name,
		Title:     title,
		Evidence:  ev,
		Mechanism: "Without FEC every bit error on the wire lands in a frame, which arrives with a bad FCS and is dropped: a RoCE packet RC recovers only by go-back-N retransmission. 802.3 requires RS-FEC from 50 Gb/s per port (RS(544,514) on every PAM4 lane, RS(528,514) for 100GBASE-SR4 and -CR4, and 25GBASE-SR); only short 25 Gb/s copper may run without it. Both ends must run the same FEC: a mismatch keeps the link down, or up with errors when auto-negotiation is off.",
		Fix:       fmt.Sprintf("Run RS-FEC on both ends: `ethtool --set-fec %s encoding rs` (or auto where the switch negotiates it) and the same FEC on the switch port (SONiC `config interface fec <port> rs`, EOS `error-correction encoding reed-solomon`), then check `ethtool --show-fec %s` and the FCS counters.", dev, dev),
	}, true
}

// worstLane returns the lane with the most of the counts and its share,
// when there are at least two lanes and one holds half or more.
func worstLane(lanes []uint64) (int, float64, bool) {
	var sum, top uint64
	at := 0
	for i, n := range lanes {
		sum += n
		if n > top {
			top, at = n, i
		}
	}
	if len(lanes) < 2 || sum == 0 || 2*top < sum {
		return 0, 0, false
	}
	return at, float64(top) / float64(sum), true
}

// fecEvidence returns the lines of f read under the keys, in input order.
func fecEvidence(f ingest.FECSetting, keys ...string) []Evidence {
	var out []Evidence
	for _, k := range keys {
		if e, ok := f.Evidence[k]; ok {
			out = append(out, e)
		}
	}
	return evidenceInOrder(out)
}
