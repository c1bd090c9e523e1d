package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// physicalRules judge the link itself: frames that arrive corrupted, a
// link that goes down.
func physicalRules() []Rule {
	return []Rule{
		{IDs: []string{"counters.phy.fcs"}, Check: checkFCS},
		{IDs: []string{"counters.phy.link_down"}, Check: checkLinkDown},
		{IDs: []string{"counters.phy.symbol_errors"}, Check: checkSymbolErrors},
		{IDs: []string{"input.garbled"}, Check: checkIPLinkGarbled},
	}
}

// fcsErrorFraction is the share of received frames with a bad FCS that is
// an error during a test: RC's go-back-N resends everything after each
// loss, so the cost of a loss grows with the window it throws away, and
// 0.01% of frames is already far above any healthy link's.
const fcsErrorFraction = 1e-4

// checkFCS reports ports that received frames with a bad FCS. A healthy
// link at its specified bit error ratio (1e-12 after FEC) shows none over
// a test: any are a dirty connector, a failing optic or cable, or FEC off
// or mismatched, and each is a RoCE packet lost after PFC has done its
// part, which RC recovers by go-back-N and, at a message's tail, the ACK
// timeout.
func checkFCS(inc *Incident) []Finding {
	return perSample(inc, "", func(s *ingest.CounterSample) []Finding {
		if !s.Netdev() {
			return nil
		}
		r, ok := s.Concept(counters.PhyCRCErrors, counters.RX, 0)
		what := "frames received with a bad FCS"
		if !ok {
			// `ip -s link` without the second -s prints the frames
			// received bad only as a whole: rx_errors.
			r, ok = s.Concept(counters.PhyRxErrors, counters.RX, 0)
			what = "frames received bad (a bad FCS, a wrong length or alignment; `ip -s -s link` tells them apart)"
		}
		if !ok || r.Value == 0 || s.Device != "" && weakOpticOn(inc, s.Host, readingFile(r), s.Device) {
			// A weak receiver's finding carries its port's errors.
			return nil
		}
		if besideDriver(inc, s, r, counters.PhyCRCErrors) {
			// `ethtool -S IF` and `--groups eth-mac` or `ip -s link`
			// count the same frames: the driver's dump reports them.
			return nil
		}
		sev := Warn
		title := fmt.Sprintf("%s: %d %s (%s)", s.Name(), r.Value, what, r.Name)
		ev := []ingest.Reading{r}
		if rx, ok := s.PortRxPackets(); ok && rx.Value > 0 {
			f := float64(r.Value) / float64(rx.Value)
			title += fmt.Sprintf(", %.3g%% of %s", 100*f, rx.Name)
			ev = append(ev, rx)
			if f >= fcsErrorFraction && s.IsDelta() {
				sev = Error
			}
		}
		title += rate(r.Value, s)
		dev := nameOr(s.Device, "<if>")
		lanes, perLane := laneErrors(s)
		causes := "a dirty or damaged connector, an optic or cable failing or out of its power budget, or FEC off or mismatched between the ends"
		if perLane {
			// Bits FEC corrected per lane show it on.
			causes = "a dirty or damaged connector, or an optic or cable failing or out of its power budget"
		}
		mech := "The port received frames whose checksum did not match: bits changed on the wire. A link at its specified error ratio (1e-12 after FEC) shows none over a test, so these come from the link itself: " + causes + ". Each is a RoCE packet lost after PFC has done its part; RC resends it and everything after it (go-back-N), and a lost message tail waits for the local ACK timeout."
		if sym, ok := s.Concept(counters.PhySymbolErrors, counters.RX, 0); ok && sym.Value > 0 {
			ev = append(ev, sym)
			mech += fmt.Sprintf(" The PHY counted %d symbol errors during carrier as well (%s): the bits changed below the frame, on the link, not in a sender that built a bad frame.", sym.Value, sym.Name)
		}
		if perLane {
			ev = append(ev, lanes.readings...)
			mech += " " + lanes.text
		}
		laneFix := ""
		if lanes.fix != "" {
			laneFix = " " + lanes.fix
		}
		return []Finding{perPort(Finding{
			ID: "counters.phy.fcs", Severity: sev, Layer: LayerFabric,
			Title:     title,
			Evidence:  readingsEvidence(ev...),
			Mechanism: mech + " Counted " + window(s) + ".",
			Fix:       fmt.Sprintf("Check the link: `ethtool -m %s` (module DOM: rx/tx power against its alarm thresholds), `ethtool --show-fec %s` on both ends, the errors FEC corrected (mlx5 rx_corrected_bits_phy: rising toward the FEC limit) and those it could not (rx_pcs_symbol_err_phy), and the FCS counters of the port at the other end.%s Clean and reseat the connectors, then replace the optic or cable; shut the link meanwhile so ECMP routes around it.", dev, dev, laneFix),
		}, s, "Frames received with a bad FCS")}
	})
}

// mlx5LaneErrors is the name mlx5's ethtool -S gives the bits one receive
// lane had in error before FEC corrected them (en_stats.c's physical
// layer statistical group; counters.rst: "raw errors before FEC"): the
// lanes' counts sum to rx_corrected_bits_phy. mlx5 prints lanes 0-3 only.
const mlx5LaneErrors = "rx_err_lane_%d_phy"

// mlx5PrintedLanes is how many receive lanes mlx5 prints; an 8-lane port's
// lanes 4-7 are not shown.
const mlx5PrintedLanes = 4

// laneSplit is how a port's receive errors fall on its lanes.
type laneSplit struct {
	readings []ingest.Reading
	text     string
	fix      string // where to look when one lane holds most of them
}

// laneErrors reads the bits each receive lane had in error before FEC
// (mlx5 rx_err_lane_N_phy), when two or more lanes are printed and any
// moved. A working fast link with FEC on counts some on every lane, so
// they show FEC is at work, never that it is at fault. A lane holding at
// least half of them (as counters.phy.fec_uncorrectable reads its lanes)
// is the weakest receive path; errors spread over the lanes point at what
// they share.
func laneErrors(s *ingest.CounterSample) (laneSplit, bool) {
	var bad []ingest.Reading
	var perLane []uint64
	for l := 0; l < mlx5PrintedLanes; l++ {
		r, ok := s.Get(fmt.Sprintf(mlx5LaneErrors, l))
		if !ok {
			continue
		}
		for len(perLane) < l {
			perLane = append(perLane, 0)
		}
		perLane = append(perLane, r.Value)
		if r.Value > 0 {
			bad = append(bad, r)
		}
	}
	if len(perLane) < 2 || len(bad) == 0 {
		return laneSplit{}, false
	}
	const shared = "the module, the duplex connector, the host's electrical lanes to the module, the far end's transmitter"
	text := fmt.Sprintf("The receive lanes counted bits in error before FEC corrected them (%s; mlx5 prints lanes 0-%d only, not an 8-lane port's others): raw errors a working link with FEC on shows on every lane, FEC at work, not at fault.", ingest.ReadingsText(bad), mlx5PrintedLanes-1)
	if l, share, ok := worstLane(perLane); ok {
		text += fmt.Sprintf(" Lane %d holds %.3g%% of them, so its receive path is the weakest: what all lanes share (%s) would spread the errors over them.", l, 100*share, shared)
		fix := fmt.Sprintf("Look at lane %d's receive path: on optics that carry the lanes as wavelengths on one fibre pair (LR4, CWDM4, FR4), one wavelength's receiver in this module or the far end's laser for it, not a fibre; on parallel optics or copper (SR4, DAC), that lane's own fibre or pair.", l)
		return laneSplit{bad, text, fix}, true
	}
	text += fmt.Sprintf(" No lane holds half of them: look at what the lanes share (%s).", shared)
	return laneSplit{bad, text, ""}, true
}

// besideDriver reports whether r, a reading of concept c in s (or of the
// frames received bad, which hold c's), is a second view of counts a
// driver's own dump of the same port gives, in the same input or on the
// same named host: one of the standard statistics (`ethtool -S IF
// --groups eth-mac`) or the kernel's (`ip -s link`), while the driver's
// `ethtool -S IF` has a counter of c. The driver's dump reports them. A
// second name of c (counters.Desc.Also) counts something else (mlx5's
// rx_pcs_symbol_err_phy, the symbol errors FEC left, is not
// SymbolErrorDuringCarrier): a dump holding only it reports nothing of r.
func besideDriver(inc *Incident, s *ingest.CounterSample, r ingest.Reading, c counters.Concept) bool {
	if s.Device == "" || !standardCounter(r.Name) && s.Kind != ingest.KindIPLink {
		return false
	}
	return driverHas(inc, s, readingFile(r), func(o *ingest.CounterSample) bool {
		d, ok := o.Concept(c, counters.RX, 0)
		if !ok || standardCounter(d.Name) {
			return false
		}
		desc, _, known := counters.Default().LookupIn(counters.Ethtool, d.Name)
		return !known || !desc.Also
	})
}

// driverDumpOf reports whether the incident holds a driver's ethtool -S
// dump of s's port, in s's input or on its named host.
func driverDumpOf(inc *Incident, s *ingest.CounterSample) bool {
	return s.Device != "" && driverHas(inc, s, s.After.File(), func(o *ingest.CounterSample) bool {
		return slices.ContainsFunc(o.After.Counters, func(c ingest.Counter) bool { return !standardCounter(c.Name) })
	})
}

// driverHas reports whether an ethtool -S dump of s's port other than s,
// on s's named host or (when s names none) in the input file, is one
// that has.
func driverHas(inc *Incident, s *ingest.CounterSample, file string, has func(*ingest.CounterSample) bool) bool {
	samples, _ := ctrSamples(inc)
	for i := range samples {
		o := &samples[i]
		if o.Kind != ingest.KindEthtool || o.Device != s.Device || o.Host != s.Host || o.After == s.After {
			continue
		}
		if s.Host == "" && o.After.File() != file {
			continue
		}
		if has(o) {
			return true
		}
	}
	return false
}

// checkIPLinkGarbled reports `ip -s link` rows no rule could judge.
func checkIPLinkGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "ip -s link output", func(a *ingest.IPLink) []ingest.Garble { return a.Garbled },
		"These lines sit under a row of `ip -s link` column names (`RX: bytes packets errors ...`) but do not hold one count per column, or are an `ip -j` array that does not parse or is cut: the paste was edited, wrapped or cut, so the interface's counters were judged by no rule.",
		"Paste the unedited output of `ip -s -s link show <if>` (or `ip -j -s -s link show <if>`), without -h: its rounded values (6.04T) are no counts.")
}

// standardCounter reports whether name is one of the IEEE 802.3 standard
// statistics every driver may report (eth-mac-FrameCheckSequenceErrors).
func standardCounter(name string) bool {
	d, _, ok := counters.Default().LookupIn(counters.Ethtool, name)
	return ok && d.Vendor == counters.Standard
}

// checkSymbolErrors reports ports whose PHY decoded invalid symbols while
// it had carrier (the standard eth-phy-SymbolErrorDuringCarrier of
// `ethtool -S IF --groups eth-phy`): bits changed on the wire, the same
// faults as FCS errors, seen below the frame. A weak receiver's finding
// carries them, as it does the port's FCS errors.
func checkSymbolErrors(inc *Incident) []Finding {
	return perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		r, ok := s.Concept(counters.PhySymbolErrors, counters.RX, 0)
		if !ok || r.Value == 0 || s.Device != "" && weakOpticOn(inc, s.Host, readingFile(r), s.Device) {
			return nil
		}
		if besideDriver(inc, s, r, counters.PhySymbolErrors) {
			// eth-phy-SymbolErrorDuringCarrier is mlx5's
			// rx_symbol_err_phy, bnxt_en's rx_pcs_symbol_err: the
			// driver's dump reports them.
			return nil
		}
		if c, ok := s.Concept(counters.PhyCRCErrors, counters.RX, 0); ok && c.Value > 0 && !besideDriver(inc, s, c, counters.PhyCRCErrors) {
			// The port's FCS finding carries its symbol errors.
			return nil
		}
		dev := nameOr(s.Device, "<if>")
		return []Finding{perPort(Finding{
			ID: "counters.phy.symbol_errors", Severity: Warn, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: %d symbol errors during carrier (%s)%s", s.Name(), r.Value, r.Name, rate(r.Value, s)),
			Evidence:  readingsEvidence(r),
			Mechanism: "The port's PHY received symbols it could not decode while the link was up (IEEE 802.3 30.3.2.1.5, SymbolErrorDuringCarrier): bits changed on the wire. A link at its specified error ratio shows none over a test; these come from a dirty or damaged connector, an optic or cable failing or out of its power budget, or FEC off or mismatched, and the frames they fall in arrive with a bad FCS and are lost, each a RoCE retransmission. Counted " + window(s) + ".",
			Fix:       fmt.Sprintf("Check the link: `ethtool -m %s` (module DOM), `ethtool -I --show-fec %s` on both ends, eth-mac-FrameCheckSequenceErrors beside it and the switch port's error counters; clean and reseat the connectors, then replace the optic or cable.", dev, dev),
		}, s, "Symbol errors during carrier")}
	})
}

// checkLinkDown reports ports whose link went down during the window (a
// before/after pair) or ever (a single dump, a warn: it may be the boot's
// link-up). Everything on the wire is lost while it is down; RC resends it
// once the link, or the fabric's rerouting, brings a path back, and a QP
// without one spends its retries and fails (IBV_WC_RETRY_EXC_ERR).
func checkLinkDown(inc *Incident) []Finding {
	fs := perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		r, ok := s.Concept(counters.PhyLinkDown, counters.RX, 0)
		if !ok || r.Value == 0 {
			return nil
		}
		return linkDownFinding(s, r, "")
	})
	// An InfiniBand port's link_downed (.../ports/N/counters), an 8-bit
	// counter that stops at 255.
	return append(fs, perSample(inc, ingest.KindHWCounters, func(s *ingest.CounterSample) []Finding {
		r, ok := s.Concept(counters.LinkDowned, counters.NoDir, 0)
		if !ok || r.Value == 0 {
			return nil
		}
		return linkDownFinding(s, r, saturated(r.Value, counterBits(s, r.Name)))
	})...)
}

// saturated says that a value is its bits-wide counter's maximum, where
// the counter stops: the true count is at least that; "" otherwise.
func saturated(v uint64, bits uint) string {
	if bits >= 64 || v != 1<<bits-1 {
		return ""
	}
	return fmt.Sprintf("%d is the %d-bit counter's maximum, where it stops: at least that many, likely more", v, bits)
}

// linkDownFinding is a port's link-down count; sat says the counter is
// saturated. A single dump counts since the counters were cleared: a
// boot's link-up, or a flapping link when it is more than two.
func linkDownFinding(s *ingest.CounterSample, r ingest.Reading, sat string) []Finding {
	sev := Info
	when := "since the counters were last cleared"
	if s.IsDelta() {
		sev, when = Warn, window(s)
		if r.Value > 1 {
			sev = Error
		}
	} else if sat != "" || s.Kind == ingest.KindHWCounters && r.Value > 2 {
		sev = Warn
	}
	title := fmt.Sprintf("%s: the link went down %s (%s %d)", s.Name(), plural(int(r.Value), "time", "times"), r.Name, r.Value)
	mech := "The port lost its link " + when + ". Everything on the wire and in the port's queues toward it is lost while it is down; RC resends it by go-back-N or, at a message's tail, after the local ACK timeout, once the link comes back or routing moves the flows to another path (ECMP converges in milliseconds to seconds). A QP whose only path stays down spends its retries and fails with IBV_WC_RETRY_EXC_ERR (status 12), and NCCL aborts the job. More than one event is a flapping link."
	if sat != "" {
		title = fmt.Sprintf("%s: the link went down at least %d times (%s %d, the counter's maximum)", s.Name(), r.Value, r.Name, r.Value)
		mech += " " + sat + ": clear the port's counters (perfquery -R) and read them again to see whether it still flaps."
	}
	dev := nameOr(s.Device, "<if>")
	if strings.Contains(dev, " ") {
		dev = "<if>" // a port perfquery names by its LID or GUID
	}
	return []Finding{perPort(Finding{
		ID: "counters.phy.link_down", Severity: sev, Layer: LayerFabric,
		Title:     title,
		Evidence:  readingsEvidence(r),
		Mechanism: mech,
		Fix:       fmt.Sprintf("Find why it dropped: `dmesg | grep -i 'link down'` on the host, the switch's log for the port's oper status, `ethtool -m %s` or `mlxlink -d <dev> -m` (module DOM: power near its alarms), FEC and the FCS or symbol-error counters of both ends. Replace a flapping optic or cable; until then shut the port so the fabric routes around it, and keep NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT at their defaults (a QP rides out 7 × 4.3 s).", dev),
	}, s, "Links that went down")}
}
