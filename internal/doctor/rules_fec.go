package doctor

import (
	"cmp"
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

// fecRequiredRate is the port rate from which every Ethernet PHY runs
// RS(544,514) FEC whatever its medium: 200 Gb/s and up, where each lane
// carries 50 Gb/s or more of PAM4 (or, in 400GBASE-SR16, the PCS
// requires it still). Below it the lane count decides: a 50 or 100 Gb/s
// port over 50 or 100 Gb/s PAM4 lanes needs RS(544,514), one over four
// 25 Gb/s NRZ lanes may run without (100GBASE-LR4 and -ER4 optics do), so
// the port rate alone leaves the need unknown.
const fecRequiredRate = 200 * unit.Gbps

// fecPort is one host port's `ethtool --show-fec` readings in input
// order.
type fecPort struct {
	name     string
	readings []ingest.FECSetting
	scope    ingest.Scope
}

// checkFEC judges each port `ethtool --show-fec` reported, once however
// many times it was read: the change in uncorrectable blocks between the
// first and last reading when there are two or more (an info of the count
// when none grew), the count since the driver started counting when there
// is one. Readings are of one port when they name its interface on one
// named host (the input's, or the one a pdsh or clush prefix gives the
// reading), or in one input that names none: eth0 in two inputs of
// unknown hosts may be two machines.
func checkFEC(inc *Incident) []Finding {
	var ports []*fecPort
	byKey := map[[2]string]*fecPort{}
	for _, e := range All[*ingest.EthtoolStats](inc) {
		for _, f := range e.FEC {
			// A pdsh or clush paste of several hosts is one input
			// naming none: each reading names its own.
			host := f.Host
			if host == "" {
				host = e.Scope().Host.Name
			}
			where := host
			if where == "" {
				where = "\x00" + e.Scope().Source
			}
			k := [2]string{where, f.Device}
			p := byKey[k]
			if p == nil {
				name := nameOr(f.Device, "<if>")
				if host != "" {
					name = host + " " + name
				}
				p = &fecPort{name: name, scope: e.Scope()}
				byKey[k] = p
				ports = append(ports, p)
			}
			p.readings = append(p.readings, f)
		}
	}
	var fs []Finding
	for _, p := range ports {
		var stats []ingest.FECSetting
		for _, f := range p.readings {
			if f.HasStats {
				stats = append(stats, f)
			}
		}
		switch {
		case len(stats) >= 2:
			if x, ok := fecUncorrectableGrowth(p.name, stats); ok {
				fs = append(fs, x)
			}
		case len(stats) == 1 && stats[0].Uncorrectable > 0:
			fs = append(fs, fecUncorrectable(p.name, stats[0]))
		}
		last := p.readings[len(p.readings)-1]
		if off := strings.ToLower(last.Active); off == "off" || off == "none" {
			rate, ev, known := fecPortRate(inc, p.scope, last.Host, last.Device)
			if x, ok := fecOff(p.name, last, rate, ev, known); ok {
				fs = append(fs, x)
			}
		}
	}
	return fs
}

// fecPortRate returns the rate to judge a port without FEC against:
// --nic-speed, else a speed its own file or host states for that very
// interface. A speed stated for another interface (the management port's
// 1000Mb/s) says nothing of this one; ok is false then.
func fecPortRate(inc *Incident, at ingest.Scope, host, device string) (unit.BitRate, Evidence, bool) {
	if inc.Options.NICSpeed > 0 {
		return inc.Options.NICSpeed, Evidence{File: "--nic-speed", Text: inc.Options.NICSpeed.String()}, true
	}
	if device == "" {
		return 0, Evidence{}, false
	}
	near, _ := speedsFor(inc, at, cmp.Or(host, at.Host.Name))
	for _, s := range near {
		if s.Device == device {
			return s.Rate, s.Evidence, true
		}
	}
	return 0, Evidence{}, false
}

const fecUncorrectableMechanism = "Reed-Solomon FEC repairs a fixed number of symbol errors per codeword (7 in RS(528,514), 15 in RS(544,514)); a codeword with more is passed on uncorrected, and the frames in it arrive with a bad FCS and are dropped at this port. Each is a RoCE packet lost after PFC has done its part: RC resends it and everything after it (go-back-N), and a lost message tail waits for the ACK timeout. Corrected blocks alone are FEC doing its job; uncorrectable ones mean the raw error ratio at times exceeds what it can repair, most often one lane of a dirty, damaged or failing optic or cable."

func fecUncorrectableFix(dev string) string {
	return fmt.Sprintf("Check the link: `ethtool -m %s` (each lane's rx power against its alarm thresholds), the switch port's FEC counters at the other end (SONiC `show interfaces counters fec-stats`, EOS `show interfaces phy detail`) and the FCS errors of both; clean and reseat the connectors, then replace the optic or cable (the worst lane's first); shut the link meanwhile so ECMP routes around it.", dev)
}

// fecUncorrectable reports the codewords one reading counts as not
// repaired: since the driver started counting, not necessarily now.
func fecUncorrectable(name string, f ingest.FECSetting) Finding {
	title := fmt.Sprintf("%s: %d FEC blocks uncorrectable", name, f.Uncorrectable)
	if f.Corrected > 0 {
		title += fmt.Sprintf(" beside %d corrected", f.Corrected)
	}
	title += " since link-up"
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
		Mechanism: fecUncorrectableMechanism + " One reading counts since the driver started counting (link up or driver load), so the blocks may all be old: a second reading after a test shows whether the count still grows.",
		Fix:       fecUncorrectableFix(dev) + fmt.Sprintf(" Read `ethtool -I --show-fec %s` again after the test.", dev),
	}
}

// fecUncorrectableGrowth reports the uncorrectable blocks counted between
// a port's first and last readings; a count that fell (a counter reset)
// starts again from the lower reading. When none grew, the count the
// readings hold is an info (fecUncorrectableStill).
func fecUncorrectableGrowth(name string, rs []ingest.FECSetting) (Finding, bool) {
	var grew, corrected uint64
	lanes := make([]uint64, len(rs[len(rs)-1].UncorrectableLanes))
	for i := 1; i < len(rs); i++ {
		a, b := rs[i-1], rs[i]
		grew += fecDelta(a.Uncorrectable, b.Uncorrectable)
		corrected += fecDelta(a.Corrected, b.Corrected)
		if len(a.UncorrectableLanes) == len(b.UncorrectableLanes) && len(b.UncorrectableLanes) == len(lanes) {
			for l := range lanes {
				lanes[l] += fecDelta(a.UncorrectableLanes[l], b.UncorrectableLanes[l])
			}
		} else {
			lanes = nil
		}
	}
	first, last := rs[0], rs[len(rs)-1]
	if grew == 0 {
		return fecUncorrectableStill(name, rs)
	}
	title := fmt.Sprintf("%s: %d FEC blocks uncorrectable between %d readings", name, grew, len(rs))
	if corrected > 0 {
		title += fmt.Sprintf(" beside %d corrected", corrected)
	}
	if l, share, ok := worstLane(lanes); ok {
		title += fmt.Sprintf("; lane %d holds %.0f%% of them", l, 100*share)
	}
	if last.Active != "" {
		title += " (" + last.Active + " FEC)"
	}
	ev := fecEvidence(first, "uncorrectable")
	ev = evidenceInOrder(append(ev, fecEvidence(last, "active", "corrected", "uncorrectable")...))
	return Finding{
		ID: "counters.phy.fec_uncorrectable", Severity: Warn, Layer: LayerFabric, Subject: name,
		Title:     title,
		Evidence:  ev,
		Mechanism: fecUncorrectableMechanism + " The count grew between the readings, so the link still loses frames.",
		Fix:       fecUncorrectableFix(nameOr(last.Device, "<if>")),
	}, true
}

// fecUncorrectableStill reports the uncorrectable blocks two or more
// readings of a port hold when none were counted between them: old
// blocks, or one moment printed twice (text then JSON), which cannot be
// told from a test in which nothing moved. Info, since the count may all
// be from before; no finding when it is 0.
func fecUncorrectableStill(name string, rs []ingest.FECSetting) (Finding, bool) {
	last := rs[len(rs)-1]
	if last.Uncorrectable == 0 {
		return Finding{}, false
	}
	title := fmt.Sprintf("%s: %d FEC blocks uncorrectable since the driver started counting; none between the %d readings", name, last.Uncorrectable, len(rs))
	if last.Active != "" {
		title += " (" + last.Active + " FEC)"
	}
	ev := fecEvidence(rs[0], "uncorrectable")
	ev = evidenceInOrder(append(ev, fecEvidence(last, "active", "uncorrectable")...))
	return Finding{
		ID: "counters.phy.fec_uncorrectable", Severity: Info, Layer: LayerFabric, Subject: name,
		Title:     title,
		Evidence:  ev,
		Mechanism: fecUncorrectableMechanism + " The count did not grow between the readings: the blocks are from before the first (link up or driver load), or the readings are one moment printed twice, which looks the same. Readings before and after a test that still agree show the link repaired everything during it.",
		Fix:       fmt.Sprintf("Read `ethtool -I --show-fec %s` before and after a test under load: growth between them is a link losing frames now.", nameOr(last.Device, "<if>")),
	}, true
}

// fecDelta is what a counter read a then b counted in between: b-a, or b
// when it fell (the counter was reset between the readings).
func fecDelta(a, b uint64) uint64 {
	if b < a {
		return b
	}
	return b - a
}

// fecOff reports a link that runs without FEC at a rate whose every
// medium needs it (warn), or at a rate whose need hangs on the lanes and
// medium, or that the inputs do not give (info); nothing below 25 Gb/s.
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
	case known && rate >= 50*unit.Gbps:
		title += " at " + rate.String() + ", which needs RS-FEC unless its lanes are 25 Gb/s NRZ"
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
		Mechanism: "Without FEC every bit error on the wire lands in a frame, which arrives with a bad FCS and is dropped: a RoCE packet RC recovers only by go-back-N retransmission. Whether a link needs FEC follows from its lane rate and medium, not its port rate: every PAM4 lane of 50 Gb/s and up needs RS(544,514), so every 200 and 400 Gb/s port and any 50 or 100 Gb/s port over one or two PAM4 lanes must run it; 100 Gb/s over four 25 Gb/s NRZ lanes needs RS(528,514) on SR4 and CR4 but may run without on LR4 and ER4 optics, and 25 Gb/s short copper may run without. At 50 or 100 Gb/s, or at a rate no input gives, `ethtool <if>` (Lanes, Link modes) and `ethtool -m <if>` (the module) tell which. Both ends must run the same FEC: a mismatch keeps the link down, or up with errors when auto-negotiation is off.",
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
