package doctor

import (
	"fmt"
	"strings"
	"time"

	"rocelab/internal/counters"
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
		{IDs: []string{"counters.rnr_nak"}, Check: checkRNR},
		{IDs: []string{"counters.ecn.heavy_marking", "counters.ecn.marking"}, Check: checkECN},
		{IDs: []string{"counters.ecn.host_marking"}, Check: checkHostECN},
		{IDs: []string{"counters.roce.absent"}, Check: checkNoRoCE},
		{IDs: []string{"input.partial"}, Check: checkCounterCaps},
		{IDs: []string{"counters.unreadable"}, Check: checkUnreadable},
		{IDs: []string{"counters.unjudged"}, Check: checkUnjudgedHW},
		{IDs: []string{"input.garbled"}, Check: checkRdmaJSONGarbled},
		{IDs: []string{"counters.efa.errors", "counters.efa.ok"}, Check: checkEFA},
	}
}

// Discard ratios (discarded / received packets at the port).
const (
	discardErrorFraction = 0.001 // during a test, 0.1% loss already costs RC go-back-N much of the bandwidth
	discardHeavyFraction = 0.01  // a cumulative ratio this high cannot be a one-off at link-up
)

// ctrSamples returns every counter sample of the incident, dumps of the
// same port joined across inputs, and how many dumps or counters the
// memory caps dropped.
func ctrSamples(inc *Incident) ([]ingest.CounterSample, int) {
	var all []ingest.CounterSample
	omitted := 0
	add := func(ss []ingest.CounterSample, sc ingest.Scope) {
		for _, s := range ss {
			s.Scope = sc
			if s.Host == "" {
				// A dump that names no host belongs to its input's.
				s.Host = sc.Host.Name
			}
			all = append(all, s)
		}
	}
	for _, e := range All[*ingest.EthtoolStats](inc) {
		add(e.Samples, e.Scope())
		omitted += e.Omitted
	}
	for _, h := range All[*ingest.HWCounters](inc) {
		add(h.Samples, h.Scope())
		omitted += h.Omitted
	}
	for _, q := range All[*ingest.Perfquery](inc) {
		add(q.Samples, q.Scope())
		omitted += q.Omitted
	}
	for _, p := range All[*ingest.IPLink](inc) {
		add(p.Samples, p.Scope())
		omitted += p.Omitted
	}
	out, dropped := ingest.MergeSamples(all)
	for i := range out {
		if out[i].IsDelta() {
			out[i].Given = inc.Options.Interval
			if out[i].Given == 0 {
				out[i].Given, out[i].GivenHow = mtimeWindow(inc, &out[i])
			}
		}
	}
	return out, omitted + dropped
}

// mtimeWindow times a before/after pair whose dumps carry no times and
// come from two files by the files' modification times, and says so.
func mtimeWindow(inc *Incident, s *ingest.CounterSample) (time.Duration, string) {
	if d, _ := s.Span(); d > 0 {
		return 0, ""
	}
	a, b := s.Before.File(), s.After.File()
	ta, okA := inc.MTimes[a]
	tb, okB := inc.MTimes[b]
	if a == b || !okA || !okB || !tb.After(ta) {
		return 0, ""
	}
	d := tb.Sub(ta)
	return d, fmt.Sprintf("the %s between the files' modification times (%s %s, %s %s; pass --interval if the files were copied or touched since)",
		ingest.FormatDuration(d), a, ta.UTC().Format("15:04:05.000"), b, tb.UTC().Format("15:04:05.000"))
}

// perSample runs check over every joined counter sample of the incident of
// the given kind ("" for all) and collects the findings.
func perSample(inc *Incident, kind ingest.Kind, check func(s *ingest.CounterSample) []Finding) []Finding {
	samples, _ := ctrSamples(inc)
	var fs []Finding
	for i := range samples {
		if kind == "" || samples[i].Kind == kind {
			fs = append(fs, check(&samples[i])...)
		}
	}
	return fs
}

// counterBits is the width of InfiniBand port counter name in s's last
// dump: the one its input printed (perfquery's), else the legacy
// PortCounters field's, which the kernel's sysfs counters read.
func counterBits(s *ingest.CounterSample, name string) uint {
	if c, _ := s.After.Get(name); c.Bits != 0 {
		return uint(c.Bits)
	}
	return ingest.PMABits(name)
}

// perPort marks f as one of a set of per-port findings titled group: the
// port's device name in the mechanism and fix stands for any port.
func perPort(f Finding, s *ingest.CounterSample, group string) Finding {
	ph := "<if>"
	if s.Kind == ingest.KindHWCounters {
		ph = "<dev>"
	}
	return f.per(s.Name(), "port", group, s.Device, ph)
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
	if _, how := s.Span(); how != "" {
		return "during " + how
	}
	if s.IsDelta() {
		return "during the window between the two dumps (they carry no times: put `date +%s.%N` before each, or pass --interval, to judge rates)"
	}
	if s.Object != "" {
		return "since the counter was bound to the QP (one dump of a per-QP counter; take a before/after pair around the test to see what the test itself did)"
	}
	return "since driver load (one dump; take a before/after pair around the test to see what the test itself did)"
}

// pfcConfig is what the incident says about the priorities PFC protects
// on a port.
type pfcConfig struct {
	prios []int // enabled priorities; empty when PFC is off on every one
	known bool  // false when no artifact says: prios is then the usual [3]
	// from says where the configuration was read, for a mechanism; short
	// says it in a few words, for a title.
	from, short string
	ev          []Evidence
}

// target is the priority to make lossless: the first PFC priority, else
// the priority the traffic rides unless that is 0, else 3.
func (c pfcConfig) target(top int) int {
	switch {
	case len(c.prios) > 0:
		return c.prios[0]
	case top != 0:
		return top
	}
	return 3
}

// losslessPrios returns the priorities PFC protects for this sample: from
// the mlx5 counters themselves, else from mlnx_qos of the same interface in
// an input that may come from the same host, else the usual 3 (not known).
func losslessPrios(inc *Incident, s *ingest.CounterSample) pfcConfig {
	if ps, ok := s.PFCEnabledByCounters(); ok {
		return pfcConfig{prios: ps, known: true, from: "per the mlx5 counters, which list pause counters only for PFC priorities", short: "no rx_prioN_pause counters"}
	}
	for _, m := range All[*ingest.MlnxQoS](inc) {
		if reachOf(s.Scope, m.Scope()) == otherHost {
			continue // eth0's mlnx_qos on another host
		}
		for _, c := range m.Configs {
			if c.PFCKnown && (s.Device == "" || c.Interface == "" || c.Interface == s.Device) {
				return pfcConfig{prios: c.PFCPrios(), known: true, from: "per mlnx_qos", short: "mlnx_qos", ev: []Evidence{c.Evidence["pfc"]}}
			}
		}
	}
	return pfcConfig{prios: []int{3}}
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
		if rs := s.NonzeroConcepts(counters.RxWriteRequests, counters.RxReadRequests, counters.CNPSent, counters.CNPHandled); len(rs) > 0 {
			return true, rs[0].Evidence
		}
	}
	for _, p := range All[*ingest.Perftest](inc) {
		for _, r := range p.Runs {
			if r.RoCE() {
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

// checkRoCEPriority finds ports whose traffic all rides a priority PFC does
// not protect: the classic "switch has PFC on 3, NIC sends RoCE on 0", or
// PFC off altogether. A port that moves at least 1% of its bytes on the
// lossless priority is taken to carry RoCE there (TCP beside it on priority
// 0 is normal).
func checkRoCEPriority(inc *Incident) []Finding {
	samples, _ := ctrSamples(inc)
	roce, roceEv := roceInUse(inc, samples)
	peers, _ := lldpPeers(inc)
	return perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		t, ok := s.PrioTraffic()
		if !ok {
			return nil
		}
		pfc := losslessPrios(inc, s)
		share := percentOf(t.On(pfc.prios), t.Total)
		if share >= 1 {
			if !pfc.known {
				return nil
			}
			return []Finding{pfcOK(s, t, pfc, share)}
		}
		portRoCE, known := s.CarriesRoCE()
		if !portRoCE && known {
			return nil // a full dump without RoCE traffic: not a RoCE port
		}
		var rEv []Evidence
		for _, d := range []ingest.Dir{ingest.RX, ingest.TX} {
			if r, ok := s.RoCEPackets(d); ok && r.Value > 0 {
				rEv = append(rEv, r.Evidence...)
			}
		}
		hasRoCE := portRoCE || roce
		if !portRoCE && roce {
			rEv = roceEv
		}
		_, sw := switchPeer(peers, s)
		f := notOnRoCEPriority(s, t, pfc, share, hasRoCE, rEv, sw)
		if h, ok := hostOnPFC(inc, samples, peers, s); ok {
			switchClassifies(&f, s, t, pfc, h)
		}
		return []Finding{f}
	})
}

// switchPeer returns the LLDP neighbour that a switch names at sample s's
// port, when s is one of that switch's ports (the twin's --out holds them).
func switchPeer(peers map[string]ingest.LLDPNeighbor, s *ingest.CounterSample) (ingest.LLDPNeighbor, bool) {
	n, ok := peers[s.Device]
	return n, ok && s.Device != ""
}

// hostOnPFC returns the counters of the host NIC that LLDP puts at the
// far end of switch port s, when that NIC's own traffic rides a priority
// PFC protects there.
func hostOnPFC(inc *Incident, samples []ingest.CounterSample, peers map[string]ingest.LLDPNeighbor, s *ingest.CounterSample) (*ingest.CounterSample, bool) {
	n, ok := switchPeer(peers, s)
	if !ok {
		return nil, false
	}
	for i := range samples {
		h := &samples[i]
		if h.Kind != ingest.KindEthtool || !ingest.SameHostName(h.Host, n.Device) || h.Device != n.PortID {
			continue
		}
		t, ok := h.PrioTraffic()
		if pfc := losslessPrios(inc, h); ok && pfc.known && percentOf(t.On(pfc.prios), t.Total) >= 1 {
			return h, true
		}
	}
	return nil, false
}

// switchClassifies turns f, RoCE off the PFC priority on switch port s,
// into what it is when the host at the far end sends on the PFC priority:
// the same packets, marked alike, land on another priority at the switch,
// so the switch's DSCP-to-priority map (or its trust mode) is what differs,
// and the host's QoS is right as it is.
func switchClassifies(f *Finding, s *ingest.CounterSample, t ingest.PrioTraffic, pfc pfcConfig, h *ingest.CounterSample) {
	want := pfc.target(t.Top)
	ht, _ := h.PrioTraffic()
	f.Title += fmt.Sprintf(", while %s at its far end sends on priority %d: the switch classifies RoCE onto priority %d", h.Name(), ht.Top, t.Top)
	f.Evidence = evidenceInOrder(append(f.Evidence, readingsEvidence(ht.Of(ht.Top)...)...))
	f.Mechanism = fmt.Sprintf("The host NIC (LLDP: %s) counts its RoCE on priority %d, which PFC protects, and the switch counts the same packets on priority %d: the switch derives the priority from the packet's DSCP (trust dscp) through its own DSCP-to-priority map, and that map sends RoCE's DSCP elsewhere, or the port trusts PCP that untagged RoCE does not carry. ", h.Name(), ht.Top, t.Top) + f.Mechanism
	// Grouped over ports, each port's host stands for any.
	f.group = "The switch classifies RoCE off the PFC priority its hosts send on"
	f.generic = append(f.generic, h.Name(), "the host NIC")
	f.Fix = fmt.Sprintf("Fix the switch, not the host: map RoCE's DSCP (26 for NCCL_IB_TC=106) to priority %d on the switch's ports toward hosts and toward other switches (SONiC: DSCP_TO_TC_MAP \"26\": \"%d\" and TC_TO_PRIORITY_GROUP_MAP \"%d\": \"%d\" bound in PORT_QOS_MAP, shown by `show qos map dscp-to-tc`; EOS: qos map dscp 26 to traffic-class %d; Cumulus: nv set qos mapping default-global dscp 26 switch-priority %d), with trust dscp on the port; `rocelab lint` on the switch's config finds the map that differs from the NIC. Check afterwards that the switch port's rx_prio%d_bytes grows during the test.", want, want, want, want, want, want, want)
}

func pfcOK(s *ingest.CounterSample, t ingest.PrioTraffic, pfc pfcConfig, share float64) Finding {
	var pause []ingest.Reading
	for _, p := range pfc.prios {
		for _, d := range []ingest.Dir{ingest.RX, ingest.TX} {
			if r, ok := s.PFCFrames(d, p); ok {
				pause = append(pause, r)
			}
		}
	}
	counted := "none counted"
	if len(pause) > 0 {
		counted = ingest.ReadingsText(pause)
	}
	ev := append(readingsEvidence(append(t.Of(t.Top), append(t.Of(pfc.prios...), pause...)...)...), pfc.ev...)
	return perPort(Finding{
		ID: "counters.pfc.ok", Severity: Info, Layer: LayerFabric,
		Title:    fmt.Sprintf("%s: %.0f%% of bytes on PFC priority %s; PFC pause frames: %s", s.Name(), share, prioList(pfc.prios), counted),
		Evidence: evidenceInOrder(ev),
		Mechanism: fmt.Sprintf("Traffic on the port rides the priority PFC protects (%s), so congestion pauses the sender instead of dropping. ", pfc.from) +
			"Pause frames in the thousands per second are normal under incast; pauses that last (rx/tx_prioN_pause_duration) point at a slow receiver.",
	}, s, "Traffic rides the PFC priority")
}

func notOnRoCEPriority(s *ingest.CounterSample, t ingest.PrioTraffic, pfc pfcConfig, share float64, hasRoCE bool, rEv []Evidence, switchPort bool) Finding {
	dev := nameOr(s.Device, "<if>")
	top := t.Top
	protects := "PFC protects no priority on this port (" + pfc.from + ")"
	onLossless := ", and PFC is off on every priority (" + pfc.short + ")"
	if len(pfc.prios) > 0 {
		protects = fmt.Sprintf("PFC protects only priority %s", prioList(pfc.prios))
		onLossless = fmt.Sprintf("; %.1f%% on lossless priority %s", share, prioList(pfc.prios))
	}
	sev := weaken(Error, s.IsDelta())
	title := fmt.Sprintf("%s: RoCE traffic rides priority %d (%.1f%% of bytes)%s", s.Name(), top, percentOf(t.Bytes[top], t.Total), onLossless)
	if !hasRoCE {
		sev = Warn
		title = fmt.Sprintf("%s: all traffic on priority %d%s: if this port carries RoCE, RoCE is lossy", s.Name(), top, onLossless)
	}
	ev := append(readingsEvidence(append(t.Of(top), t.Of(pfc.prios...)...)...), rEv...)
	ev = append(ev, pfc.ev...)
	mech := fmt.Sprintf("%s, so RoCE on priority %d is lossy: under congestion the switch or NIC drops, and RC recovers by go-back-N and ACK timeouts, which costs far more bandwidth than the drops themselves. ", protects, top)
	if top == 0 {
		mech = "The NIC picks a packet's priority from its marking: with trust pcp, untagged RoCE carries no PCP and lands on priority 0; with trust dscp, RoCE sent with the default traffic class (DSCP 0) lands on priority 0 too. " + mech
	}
	if !pfc.known {
		mech += "This dump does not say which priority PFC protects; priority 3 is the common choice. "
	}
	mech += "Counted " + window(s) + "."
	want := pfc.target(top)
	fix := pfcSetting(s, dev, want) + ", with PFC on the same priority on the switch ports"
	if switchPort {
		fix = switchPFCSetting(dev, want) + ", with the hosts' NICs on the same priority (" + pfcSetting(s, "<netdev>", want) + ")"
	}
	if top != want {
		fix += "; then " + markInto(want)
	}
	fix += fmt.Sprintf(". Check afterwards that tx_prio%d_bytes grows during the test and rx/tx_prio%d_pause appear.", want, want)
	return perPort(Finding{
		ID: "counters.pfc.not_on_roce_priority", Severity: sev, Layer: LayerFabric,
		Title:     title,
		Evidence:  evidenceInOrder(ev),
		Mechanism: mech,
		Fix:       fix,
	}, s, "RoCE traffic outside the PFC priority")
}

// counterName is the name mlx5's ethtool -S gives a concept.
func counterName(c counters.Concept, d counters.Dir) string {
	return counters.Default().Name(counters.MLX5, counters.Ethtool, c, d, 0)
}

// checkGlobalPause reports IEEE 802.3x link-level pause in place of PFC.
func checkGlobalPause(inc *Incident) []Finding {
	fs := perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		gp := s.GlobalPauseFrames()
		if len(gp) == 0 {
			return nil
		}
		disc := s.Nonzero(counterName(counters.PhyDiscards, counters.RX), counterName(counters.OutOfBufferHost, counters.RX))
		mech := "IEEE 802.3x PAUSE stops every priority on the link, not just RoCE: one congested receiver freezes all traffic, CNPs and TCP included, and the back-pressure spreads upstream as head-of-line blocking. "
		if ps, ok := s.PFCEnabledByCounters(); ok && len(ps) == 0 {
			mech += "mlx5 prints per-priority pause counters only for priorities with PFC enabled, and none appear here: PFC is not configured on this port. "
		}
		if len(disc) > 0 {
			var names []string
			for _, r := range disc {
				names = append(names, r.Name)
			}
			mech += "The NIC sent pause because its own receive buffer filled (" + strings.Join(names, " and ") + " count drops too): the host did not drain the port fast enough. "
		}
		mech += "Counted " + window(s) + "."
		return []Finding{perPort(Finding{
			ID: "counters.pause.global", Severity: Warn, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: 802.3x global pause instead of PFC: %s", s.Name(), ingest.ReadingsText(gp)),
			Evidence:  readingsEvidence(append(gp, disc...)...),
			Mechanism: mech,
			Fix:       globalPauseFix(nameOr(s.Device, "<if>"), losslessPrios(inc, s)),
		}, s, "802.3x global pause instead of PFC")}
	})
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
				Mechanism: "With link-level pause on, a full receive buffer pauses every priority on the link rather than only the RoCE class: the NIC runs global pause instead of PFC (mlx5 cannot run both).",
				Fix:       globalPauseFix(dev, pfcConfig{prios: []int{3}}),
			}.per(dev, "interface", "802.3x pause enabled", p.Device, "<if>"))
		}
	}
	return fs
}

// globalPauseFix turns 802.3x pause off and PFC on for the RoCE priority.
func globalPauseFix(dev string, pfc pfcConfig) string {
	want := pfc.target(3)
	return fmt.Sprintf("ethtool -A %s rx off tx off; mlnx_qos -i %s --trust dscp --pfc %s with PFC on priority %d on the switch port, so only the RoCE class is paused.", dev, dev, pfcVector([]int{want}), want)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
