package doctor

import (
	"fmt"
	"sort"
	"strings"

	"rocelab/internal/ingest"
)

// Counter rules read ethtool -S and RDMA hw_counters dumps.
//
// How cumulative counters and deltas are weighed: a single dump holds
// counts since the driver loaded, which may date from a different workload,
// a link flap or last month; a before/after pair (two dumps of the same port
// in one input, or in two inputs joined by ingest.MergeSamples) holds what
// happened during the test. So:
//   - an absolute count (discards, retransmissions, pause frames) found only
//     in a cumulative dump is reported one severity level lower than the same
//     count moving in a delta, and the finding says "since driver load" and
//     asks for a before/after pair;
//   - a ratio (discards per received packet, ECN marks per RoCE packet) is an
//     average either way and is judged the same, except that a cumulative
//     ratio below the error threshold is also weakened.

// counterRules lists the counter rules.
func counterRules() []Rule {
	return []Rule{
		{IDs: []string{"counters.pfc.not_on_roce_priority", "counters.pfc.ok"}, Check: checkRoCEPriority},
		{IDs: []string{"counters.discards"}, Check: checkDiscards},
		{IDs: []string{"counters.pause.global"}, Check: checkGlobalPause},
		{IDs: []string{"counters.retransmission"}, Check: checkRetransmission},
		{IDs: []string{"counters.ecn.heavy_marking", "counters.ecn.marking"}, Check: checkECN},
		{IDs: []string{"counters.roce.absent"}, Check: checkNoRoCE},
		{IDs: []string{"input.partial"}, Check: checkCounterCaps},
	}
}

// Discard ratios (discarded / received packets at the port).
const (
	discardErrorFraction = 0.001 // during a test, 0.1% loss already costs RC go-back-N much of the bandwidth
	discardHeavyFraction = 0.01  // a cumulative ratio this high cannot be a one-off at link-up
)

// ctrSamples returns every counter sample of the incident, dumps of the
// same port joined across inputs.
func ctrSamples(inc *Incident) ([]ingest.CounterSample, int) {
	var all []ingest.CounterSample
	omitted := 0
	for _, e := range All[*ingest.EthtoolStats](inc) {
		all = append(all, e.Samples...)
		omitted += e.Omitted
	}
	for _, h := range All[*ingest.HWCounters](inc) {
		all = append(all, h.Samples...)
		omitted += h.Omitted
	}
	out, dropped := ingest.MergeSamples(all)
	return out, omitted + dropped
}

// weaken lowers a severity one level for cumulative counters.
func weaken(s Severity, delta bool) Severity {
	if delta || s == Info {
		return s
	}
	return s - 1
}

// window says over what period a sample's values were counted.
func window(s *ingest.CounterSample) string {
	if s.IsDelta() {
		return "during the window between the two dumps"
	}
	return "since driver load (one dump; take a before/after pair around the test to see what the test itself did)"
}

// readingsText formats "name N, name M".
func readingsText(rs []ingest.Reading) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s %d", r.Name, r.Value)
	}
	return strings.Join(parts, ", ")
}

func readingsEvidence(rs ...ingest.Reading) []Evidence {
	var ev []Evidence
	for _, r := range rs {
		ev = append(ev, r.Evidence...)
	}
	return evidenceInOrder(ev)
}

// evidenceInOrder orders evidence by file and line and drops repeats and
// empty entries.
func evidenceInOrder(ev []Evidence) []Evidence {
	sort.SliceStable(ev, func(i, j int) bool {
		if ev[i].File != ev[j].File {
			return ev[i].File < ev[j].File
		}
		return ev[i].Line < ev[j].Line
	})
	var out []Evidence
	for _, e := range ev {
		if e.File == "" && e.Text == "" || len(out) > 0 && e == out[len(out)-1] {
			continue
		}
		out = append(out, e)
	}
	return out
}

func percentOf(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// losslessPrios returns the priorities PFC protects for this sample: from
// the mlx5 counters themselves, else from mlnx_qos in the incident, else the
// usual 3. known says whether an artifact stated it.
func losslessPrios(inc *Incident, s *ingest.CounterSample) (prios []int, known bool, ev []Evidence) {
	if ps, ok := s.PFCEnabledByCounters(); ok && len(ps) > 0 {
		return ps, true, nil
	}
	for _, m := range All[*ingest.MlnxQoS](inc) {
		for _, c := range m.Configs {
			if c.PFCKnown && (s.Device == "" || c.Interface == "" || c.Interface == s.Device) {
				if ps := c.PFCPrios(); len(ps) > 0 {
					return ps, true, []Evidence{c.Evidence["pfc"]}
				}
			}
		}
	}
	return []int{3}, false, nil
}

// roceInUse reports whether any artifact shows RoCE traffic or a RoCE port,
// with the evidence.
func roceInUse(inc *Incident, samples []ingest.CounterSample) (bool, []Evidence) {
	for i := range samples {
		s := &samples[i]
		for _, d := range []ingest.Dir{ingest.RX, ingest.TX} {
			if r, ok := s.RoCEPackets(d); ok && r.Value > 0 {
				return true, r.Evidence
			}
		}
		for _, n := range []string{"rx_write_requests", "rx_read_requests", "np_cnp_sent", "rp_cnp_handled"} {
			if r, ok := s.Get(n); ok && r.Value > 0 {
				return true, r.Evidence
			}
		}
	}
	for _, p := range All[*ingest.Perftest](inc) {
		for _, r := range p.Runs {
			if r.LinkType == "Ethernet" {
				return true, []Evidence{r.Fields["Link type"]}
			}
		}
	}
	for _, d := range All[*ingest.Devinfo](inc) {
		for _, dev := range d.Devices {
			for _, p := range dev.Ports {
				if p.LinkLayer == "Ethernet" {
					return true, []Evidence{p.Evidence["link_layer"]}
				}
			}
		}
	}
	return false, nil
}

func prioList(ps []int) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, ",")
}

// pfcVector returns "0,0,0,1,0,0,0,0" for the given priorities.
func pfcVector(ps []int) string {
	v := []string{"0", "0", "0", "0", "0", "0", "0", "0"}
	for _, p := range ps {
		if p >= 0 && p < 8 {
			v[p] = "1"
		}
	}
	return strings.Join(v, ",")
}

func nameOr(name, placeholder string) string {
	if name == "" {
		return placeholder
	}
	return name
}

// checkRoCEPriority finds ports whose traffic all rides a priority PFC does
// not protect: the classic "switch has PFC on 3, NIC sends RoCE on 0". A
// port that moves at least 1% of its bytes on the lossless priority is taken
// to carry RoCE there (TCP beside it on priority 0 is normal).
func checkRoCEPriority(inc *Incident) []Finding {
	samples, _ := ctrSamples(inc)
	roce, roceEv := roceInUse(inc, samples)
	var fs []Finding
	for i := range samples {
		s := &samples[i]
		if s.Kind != ingest.KindEthtool {
			continue
		}
		var bytes [8]uint64
		var total uint64
		var lines []ingest.Reading
		seen := false
		for p := 0; p < 8; p++ {
			for _, d := range []ingest.Dir{ingest.RX, ingest.TX} {
				if r, ok := s.PrioBytes(d, p); ok {
					seen = true
					bytes[p] += r.Value
					total += r.Value
					lines = append(lines, r)
				}
			}
		}
		if !seen || total == 0 {
			continue
		}
		lossless, known, qosEv := losslessPrios(inc, s)
		var onLossless uint64
		for _, p := range lossless {
			onLossless += bytes[p]
		}
		top := 0
		for p := range bytes {
			if bytes[p] > bytes[top] {
				top = p
			}
		}
		var ev []ingest.Reading
		for _, r := range lines {
			if strings.Contains(r.Name, fmt.Sprintf("prio%d", top)) || strings.HasSuffix(r.Name, fmt.Sprintf("pri%d", top)) {
				ev = append(ev, r)
			}
			for _, p := range lossless {
				if strings.Contains(r.Name, fmt.Sprintf("prio%d", p)) || strings.HasSuffix(r.Name, fmt.Sprintf("pri%d", p)) {
					ev = append(ev, r)
				}
			}
		}
		dev := nameOr(s.Device, "<if>")
		share := percentOf(onLossless, total)
		if share >= 1 {
			// RoCE on the lossless priority, possibly beside TCP on others.
			if !known {
				continue
			}
			var pause []ingest.Reading
			for _, p := range lossless {
				for _, d := range []ingest.Dir{ingest.RX, ingest.TX} {
					if r, ok := s.PFCFrames(d, p); ok {
						pause = append(pause, r)
					}
				}
			}
			fs = append(fs, Finding{
				ID: "counters.pfc.ok", Severity: Info, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: %.0f%% of bytes on PFC priority %s; PFC pause frames: %s", s.Name(), share, prioList(lossless), orNone(readingsText(pause))),
				Evidence: readingsEvidence(append(ev, pause...)...),
				Mechanism: "Traffic on the port rides the priority PFC protects, so congestion pauses the sender instead of dropping. " +
					"Pause frames in the thousands per second are normal under incast; pauses that last (rx/tx_prioN_pause_duration) point at a slow receiver.",
			})
			continue
		}
		hasRoCE, ok := false, false
		var rEv []Evidence
		for _, d := range []ingest.Dir{ingest.RX, ingest.TX} {
			if r, found := s.RoCEPackets(d); found {
				ok = true
				if r.Value > 0 {
					hasRoCE = true
					rEv = append(rEv, r.Evidence...)
				}
			}
		}
		if !hasRoCE && (ok || s.HasVportCounters()) {
			continue // a full dump without RoCE traffic: not a RoCE port
		}
		if !hasRoCE && roce {
			hasRoCE, rEv = true, roceEv
		}
		sev := weaken(Error, s.IsDelta())
		title := fmt.Sprintf("%s: RoCE traffic rides priority %d (%.1f%% of bytes); %.1f%% on lossless priority %s",
			s.Name(), top, percentOf(bytes[top], total), share, prioList(lossless))
		if !hasRoCE {
			sev = Warn
			title = fmt.Sprintf("%s: all traffic on priority %d, none on lossless priority %s (if this port carries RoCE, RoCE is lossy)",
				s.Name(), top, prioList(lossless))
		}
		evidence := readingsEvidence(ev...)
		evidence = append(evidence, rEv...)
		evidence = append(evidence, qosEv...)
		mech := "The NIC picks a packet's priority from its marking: with trust pcp, untagged RoCE carries no PCP and lands on priority 0; with trust dscp, RoCE sent with the default traffic class (DSCP 0) lands on priority 0 too. " +
			fmt.Sprintf("PFC protects only priority %s, so RoCE on priority %d is lossy: under congestion the switch drops, and RC recovers by go-back-N and ACK timeouts, which costs far more bandwidth than the drops themselves. ", prioList(lossless), top)
		if !known {
			mech += "This dump does not say which priority PFC protects; priority 3 is the common choice. "
		}
		mech += "Counted " + window(s) + "."
		fs = append(fs, Finding{
			ID: "counters.pfc.not_on_roce_priority", Severity: sev, Layer: LayerFabric,
			Title:     title,
			Evidence:  evidenceInOrder(evidence),
			Mechanism: mech,
			Fix: fmt.Sprintf("mlnx_qos -i %s --trust dscp --pfc %s (PFC on the same priority on the switch), then mark RoCE into it: DSCP 26 → priority 3 is TOS 106, so NCCL_IB_TC=106, "+
				"and for rdma_cm tools cma_roce_tos -d <dev> -t 106. Check afterwards that %s_prio%d_bytes grows during the test.", dev, pfcVector(lossless), "tx", lossless[0]),
		})
	}
	return fs
}

func orNone(s string) string {
	if s == "" {
		return "none counted"
	}
	return s
}

// checkDiscards reports packets the NIC dropped for want of buffer.
func checkDiscards(inc *Incident) []Finding {
	samples, _ := ctrSamples(inc)
	var fs []Finding
	for i := range samples {
		s := &samples[i]
		var phy, host, rdma, prio []ingest.Reading
		for _, n := range ingest.DiscardNames {
			r, ok := s.Get(n)
			if !ok || r.Value == 0 {
				continue
			}
			switch n {
			case "rx_out_of_buffer":
				host = append(host, r)
			case "out_of_buffer":
				rdma = append(rdma, r)
			default:
				phy = append(phy, r)
			}
		}
		lossless, _, _ := losslessPrios(inc, s)
		onLossless := false
		for p := 0; p < 8; p++ {
			if r, ok := s.PrioDiscards(p); ok && r.Value > 0 {
				prio = append(prio, r)
				for _, q := range lossless {
					onLossless = onLossless || q == p
				}
			}
		}
		all := append(append(append(append([]ingest.Reading{}, phy...), prio...), host...), rdma...)
		if len(all) == 0 {
			continue
		}
		var dropped uint64
		for _, r := range phy {
			if r.Name != "tx_discards_phy" {
				dropped += r.Value
			}
		}
		rx, haveRx := s.PortRxPackets()
		ratio := 0.0
		if haveRx && rx.Value > 0 && dropped > 0 {
			ratio = float64(dropped) / float64(rx.Value)
		}
		sev := Warn
		if ratio >= discardErrorFraction || onLossless {
			sev = Error
		}
		if !s.IsDelta() && ratio < discardHeavyFraction {
			sev = weaken(sev, false)
		}
		title := fmt.Sprintf("%s: NIC dropped packets: %s", s.Name(), readingsText(all))
		if ratio > 0 {
			title += fmt.Sprintf(" (%.3g%% of %s)", 100*ratio, rx.Name)
		}
		var mech []string
		if len(phy) > 0 || len(prio) > 0 {
			mech = append(mech, "rx_discards_phy and rx_prioN_discards count packets the port dropped because its receive buffer was full: traffic arrived faster than the NIC could move it to the host, on a priority that PFC does not protect (or whose pause the sender ignored).")
		}
		if onLossless {
			mech = append(mech, fmt.Sprintf("Drops on PFC priority %s mean the lossless class is not lossless: PFC is off on the peer, or the buffer headroom for the cable length is too small.", prioList(lossless)))
		}
		if len(host) > 0 {
			mech = append(mech, "rx_out_of_buffer counts packets for the kernel's receive rings that found no free descriptor (the host's CPU/NAPI fell behind); RoCE bypasses these rings, so this hurts TCP/XDP traffic, not RDMA.")
		}
		if len(rdma) > 0 {
			mech = append(mech, "hw_counters out_of_buffer counts RDMA packets that found no posted receive WQE (the application did not repost receives in time).")
		}
		mech = append(mech, "Counted "+window(s)+".")
		fix := fmt.Sprintf("For RoCE, carry it on a PFC priority so the NIC pauses the sender instead of dropping: mlnx_qos -i %s --trust dscp --pfc 0,0,0,1,0,0,0,0 and NCCL_IB_TC=106; check the switch has PFC on the same priority.", nameOr(s.Device, "<if>"))
		if len(host) > 0 {
			fix += fmt.Sprintf(" For the kernel rings: ethtool -G %s rx 8192, more channels (ethtool -L), IRQ affinity on the NIC's NUMA node.", nameOr(s.Device, "<if>"))
		}
		fs = append(fs, Finding{
			ID: "counters.discards", Severity: sev, Layer: LayerFabric,
			Title: title, Evidence: readingsEvidence(append(all, rx)...),
			Mechanism: strings.Join(mech, " "), Fix: fix,
		})
	}
	return fs
}

// checkGlobalPause reports IEEE 802.3x link-level pause in place of PFC.
func checkGlobalPause(inc *Incident) []Finding {
	samples, _ := ctrSamples(inc)
	var fs []Finding
	for i := range samples {
		s := &samples[i]
		if s.Kind != ingest.KindEthtool {
			continue
		}
		pfcMoving := false
		for p := 0; p < 8; p++ {
			for _, d := range []ingest.Dir{ingest.RX, ingest.TX} {
				if r, ok := s.PFCFrames(d, p); ok && r.Value > 0 {
					pfcMoving = true
				}
			}
		}
		var gp []ingest.Reading
		for _, d := range []ingest.Dir{ingest.TX, ingest.RX} {
			r, ok := s.GlobalPause(d)
			if !ok || r.Value == 0 {
				continue
			}
			if strings.HasSuffix(r.Name, "_pause_ctrl_phy") && pfcMoving {
				continue // may count PFC frames too
			}
			gp = append(gp, r)
		}
		if len(gp) == 0 {
			continue
		}
		var disc []ingest.Reading
		for _, n := range []string{"rx_discards_phy", "rx_out_of_buffer"} {
			if r, ok := s.Get(n); ok && r.Value > 0 {
				disc = append(disc, r)
			}
		}
		mech := "IEEE 802.3x PAUSE stops every priority on the link, not just RoCE: one congested receiver freezes all traffic, CNPs and TCP included, and the back-pressure spreads upstream as head-of-line blocking. "
		if _, ok := s.PFCEnabledByCounters(); ok && !pfcMoving {
			mech += "mlx5 prints per-priority pause counters only for priorities with PFC enabled, and none appear here: PFC is not configured on this port. "
		}
		if len(disc) > 0 {
			mech += "The NIC sent pause because its own receive buffer filled (" + readingsText(disc) + "): the host did not drain the port fast enough. "
		}
		mech += "Counted " + window(s) + "."
		dev := nameOr(s.Device, "<if>")
		fs = append(fs, Finding{
			ID: "counters.pause.global", Severity: Warn, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: 802.3x global pause instead of PFC: %s", s.Name(), readingsText(gp)),
			Evidence:  readingsEvidence(append(gp, disc...)...),
			Mechanism: mech,
			Fix:       fmt.Sprintf("ethtool -A %s rx off tx off; mlnx_qos -i %s --trust dscp --pfc 0,0,0,1,0,0,0,0 with PFC on priority 3 on the switch port, so only the RoCE class is paused.", dev, dev),
		})
	}
	for _, e := range All[*ingest.EthtoolStats](inc) {
		for _, p := range e.Pause {
			if !p.RX && !p.TX {
				continue
			}
			dev := nameOr(p.Device, "<if>")
			fs = append(fs, Finding{
				ID: "counters.pause.global", Severity: Warn, Layer: LayerFabric,
				Title:     fmt.Sprintf("%s: 802.3x pause is enabled (ethtool -a: RX %s, TX %s)", dev, onOff(p.RX), onOff(p.TX)),
				Evidence:  p.Evidence,
				Mechanism: "With link-level pause on, a full receive buffer pauses every priority on the link rather than only the RoCE class, and the NIC runs global pause instead of PFC.",
				Fix:       fmt.Sprintf("ethtool -A %s rx off tx off; mlnx_qos -i %s --pfc 0,0,0,1,0,0,0,0", dev, dev),
			})
		}
	}
	return fs
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
