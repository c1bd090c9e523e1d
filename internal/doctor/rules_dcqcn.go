package doctor

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Congestion control judged by what sets a DCQCN sender's throughput: how
// often each queue pair is cut (CNPs it handles per second) against how
// long it takes to climb back (the reaction point's increase timer). A
// CNP cuts a QP's rate by up to half (α/2); the rate rises again only on
// increase events, every rpg_time_reset (or every rpg_byte_reset bytes
// when the byte counter is on), each halving the gap to the target, so a
// QP needs about four events to regain 94% of a cut. A QP that gets a CNP
// more often than that spends the run below line rate, whatever share of
// its packets is marked. Where the incident has the switch ports' counters
// the rule names the ports where the marks arise (the congestion root)
// and whether they were full: a full port is a hot spot DCQCN divides
// among its senders; a port that marks without being full marks too early.

// dcqcnRules lists the congestion-control rules.
func dcqcnRules() []Rule {
	return []Rule{{IDs: []string{"counters.dcqcn.slowed", "counters.dcqcn.hotspot", "counters.dcqcn.active"}, Check: checkDCQCN}}
}

const (
	// recoverySteps is how many increase events regain 15/16 of a cut.
	recoverySteps = 4
	// fullPort is the share of line rate from which a port is full over
	// the window.
	fullPort = 0.90
	// slackPort is the share of line rate under which a marking port was
	// clearly not full, when its ECN thresholds are not known.
	slackPort = 0.50
	// incastFanIn is the number of held senders per full host-facing port
	// from which the hot spot is an incast rather than a shared link.
	incastFanIn = 4
)

// dcqcnTiming is the reaction point's increase timing in force.
type dcqcnTiming struct {
	timeReset time.Duration // rpg_time_reset
	byteReset int64         // rpg_byte_reset, 0 = byte counter off
	how       string
	ev        []Evidence
}

// mlx5 defaults (docs/cc.md): the increase timer at 300 µs, the byte
// counter off as in the HPCC ns-3 model of ConnectX DCQCN.
const mlx5TimeResetUS = 300

// timingOf reads the reaction point's timers from the incident's DCQCN
// sysfs dumps when every interface agrees, else assumes mlx5's defaults.
func timingOf(inc *Incident) dcqcnTiming {
	t := dcqcnTiming{timeReset: mlx5TimeResetUS * time.Microsecond, how: "rpg_time_reset 300 µs and the byte counter off, mlx5's defaults (assumed: no DCQCN settings in the incident)"}
	vals := map[string]map[int64]Evidence{}
	for _, d := range All[*ingest.DCQCNSysfs](inc) {
		for _, i := range d.Interfaces {
			for _, k := range []string{"rpg_time_reset", "rpg_byte_reset"} {
				if v, ok := i.Params[k]; ok {
					if n, ok := v.Int(); ok {
						if vals[k] == nil {
							vals[k] = map[int64]Evidence{}
						}
						vals[k][n] = v.Evidence
					}
				}
			}
		}
	}
	tr, br := vals["rpg_time_reset"], vals["rpg_byte_reset"]
	if len(tr) != 1 || len(br) > 1 {
		return t
	}
	for v, ev := range tr {
		t.timeReset, t.ev = time.Duration(v)*time.Microsecond, append(t.ev, ev)
	}
	for v, ev := range br {
		t.byteReset, t.ev = v, append(t.ev, ev)
	}
	counter := "the byte counter off"
	if t.byteReset > 0 {
		counter = fmt.Sprintf("rpg_byte_reset %d B", t.byteReset)
	}
	t.how = fmt.Sprintf("rpg_time_reset %s and %s (DCQCN sysfs)", ingest.FormatDuration(t.timeReset), counter)
	return t
}

// recovery is the time a QP cut to half of line rate needs to regain
// 15/16 of the cut.
func (t dcqcnTiming) recovery(line unit.BitRate) time.Duration {
	step := t.timeReset
	if t.byteReset > 0 && line > 0 {
		step = min(step, time.Duration(float64(t.byteReset)*8/(float64(line)/2)*1e9))
	}
	return recoverySteps * step
}

// qpCount is how many QPs a NIC's CNPs are spread over.
type qpCount struct {
	n     int
	known bool
	how   string
	ev    []Evidence
}

// qpsPerNIC counts the QPs each NIC sends on from the NCCL logs: NCCL
// spreads its ring channels over a host's NICs, one connection per channel
// crossing the host, NCCL_IB_QPS_PER_CONNECTION QPs each. Without a log
// one QP per NIC is assumed, the most a single QP could be cut.
func qpsPerNIC(inc *Incident) qpCount {
	channels, nics := 0, 0
	var ev []Evidence
	for _, l := range All[*ingest.NCCLLog](inc) {
		channels = max(channels, l.NChannels)
		per := map[string]int{}
		for _, d := range l.IBDevices {
			per[d.Host]++
			if len(ev) == 0 {
				ev = append(ev, d.Evidence)
			}
		}
		for _, n := range per {
			nics = max(nics, n)
		}
	}
	if channels == 0 || nics == 0 {
		return qpCount{n: 1, how: "one QP per NIC assumed (no NCCL log to count them; with more QPs each is cut less often)"}
	}
	per := 1
	how := "NCCL_IB_QPS_PER_CONNECTION 1, the default"
	if vs := ncclEnv(inc, "NCCL_IB_QPS_PER_CONNECTION"); len(vs) > 0 {
		if n := atoiOrZero(vs[0].Value); n > 0 {
			per, how = n, "NCCL_IB_QPS_PER_CONNECTION "+vs[0].Value
			ev = append(ev, vs[0].Evidence)
		}
	}
	n := (channels + nics - 1) / nics * per
	return qpCount{n: n, known: true, ev: ev,
		how: fmt.Sprintf("about %s per NIC: NCCL's %d ring channels over %s per host, %s (NCCL log)", plural(n, "QP", "QPs"), channels, plural(nics, "NIC", "NICs"), how)}
}

func atoiOrZero(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' || n > 1<<20 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// ccNIC is one NIC's congestion-control activity over a window.
type ccNIC struct {
	name    string
	span    time.Duration
	handled float64 // rp_cnp_handled per second
	marked  float64 // np_ecn_marked_roce_packets per second
	ev      []Evidence
}

// ccRoot is a switch port that marked ECN over a window.
type ccRoot struct {
	name   string
	marks  uint64
	util   float64 // tx bytes over line rate × window; -1 when unknown
	fabric int     // 1 when its LLDP neighbour is a switch, 0 a host, -1 unknown
	peer   string
	// ecn is the WRED/ECN profile of the port's switch, when the incident
	// shows it (`ecnconfig -l` beside an LLDP table naming the port).
	ecn *ingest.ECNProfile
	ev  []Evidence
}

func checkDCQCN(inc *Incident) []Finding {
	samples, _ := ctrSamples(inc)
	var nics []ccNIC
	var roots []ccRoot
	speeds := deviceSpeeds(inc)
	peers, profiles := lldpPeers(inc)
	switches := map[string]bool{}
	for _, sw := range All[*ingest.SwitchCounters](inc) {
		if sw.Switch != "" {
			switches[sw.Switch] = true
		}
	}
	for i := range samples {
		s := &samples[i]
		span, _ := s.Span()
		if span <= 0 {
			continue
		}
		if s.Kind == ingest.KindHWCounters {
			h, hok := s.Concept(counters.CNPHandled, counters.RX, 0)
			m, _ := s.Concept(counters.ECNMarkedRoCE, counters.RX, 0)
			if !hok || h.Value == 0 && m.Value == 0 {
				continue
			}
			n := ccNIC{name: s.Name(), span: span, handled: float64(h.Value) / span.Seconds(), marked: float64(m.Value) / span.Seconds()}
			n.ev = readingsEvidence(h)
			nics = append(nics, n)
			continue
		}
		var marks uint64
		var mev []ingest.Reading
		for p := 0; p < 8; p++ {
			if r, ok := s.Concept(counters.ECNMarkedPrio, counters.NoDir, p); ok && r.Value > 0 {
				marks += r.Value
				mev = append(mev, r)
			}
		}
		if marks == 0 {
			continue
		}
		rt := ccRoot{name: nameOr(s.Device, s.Name()), marks: marks, util: -1, fabric: -1, ev: readingsEvidence(mev...)}
		if tx, ok := s.Concept(counters.PhyBytes, counters.TX, 0); ok {
			if sp, ok := deviceSpeedOf(speeds, s.Host, s.Device); ok && sp.Rate > 0 {
				rt.util = float64(tx.Value) * 8 / span.Seconds() / float64(sp.Rate)
				rt.ev = append(rt.ev, readingsEvidence(tx)...)
				rt.ev = append(rt.ev, sp.Evidence)
			}
		}
		if p, ok := peers[s.Device]; ok {
			rt.peer = p.Device
			switch {
			case switches[p.Device]:
				rt.fabric = 1
			case p.Netdev() != "":
				rt.fabric = 0
			}
			rt.ev = append(rt.ev, p.Evidence)
		}
		if e, ok := profiles[s.Device]; ok {
			rt.ecn = e
		}
		roots = append(roots, rt)
	}
	var senders []ccNIC
	for _, n := range nics {
		if n.handled > 0 {
			senders = append(senders, n)
		}
	}
	if len(senders) == 0 {
		return nil
	}
	return []Finding{judgeDCQCN(inc, senders, roots)}
}

// cnpRatesKnown reports whether some NIC handled CNPs over a timed window:
// checkDCQCN judges those by rate, and the share of marked packets adds
// nothing.
func cnpRatesKnown(inc *Incident) bool {
	samples, _ := ctrSamples(inc)
	for i := range samples {
		s := &samples[i]
		if span, _ := s.Span(); span > 0 && s.Kind == ingest.KindHWCounters {
			if h, ok := s.Concept(counters.CNPHandled, counters.RX, 0); ok && h.Value > 0 {
				return true
			}
		}
	}
	return false
}

// deviceSpeeds maps a device, with the host a line names it on (a pdsh
// paste's), to the one line rate the artifacts state for it.
func deviceSpeeds(inc *Incident) map[string]ingest.LinkSpeed {
	out := map[string]ingest.LinkSpeed{}
	clash := map[string]bool{}
	for _, a := range All[ingest.LinkSpeeder](inc) {
		for _, s := range a.LinkSpeeds() {
			if s.Device == "" || s.Rate <= 0 {
				continue
			}
			k := s.Host + "\x00" + s.Device
			if o, ok := out[k]; ok && o.Rate != s.Rate {
				clash[k] = true
			}
			out[k] = s
		}
	}
	for d := range clash {
		delete(out, d)
	}
	return out
}

// deviceSpeedOf returns the rate deviceSpeeds states for device on host, else
// for device on no named host.
func deviceSpeedOf(speeds map[string]ingest.LinkSpeed, host, device string) (ingest.LinkSpeed, bool) {
	if s, ok := speeds[host+"\x00"+device]; ok {
		return s, true
	}
	s, ok := speeds["\x00"+device]
	return s, ok
}

// lldpPeers maps a switch port to its LLDP neighbour and, when the same
// output of the switch shows one ECN profile, to that profile.
func lldpPeers(inc *Incident) (map[string]ingest.LLDPNeighbor, map[string]*ingest.ECNProfile) {
	peers := map[string]ingest.LLDPNeighbor{}
	profiles := map[string]*ingest.ECNProfile{}
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, n := range s.Neighbors {
			peers[n.Port] = n
			if len(s.ECN) == 1 {
				profiles[n.Port] = &s.ECN[0]
			}
		}
	}
	return peers, profiles
}

// earlyMarking returns the profile of the marking ports whose Kmax is
// below one bandwidth-delay product (switch.ecn.thresholds' rule): such a
// port marks before a queue the link needs has built.
func earlyMarking(roots []ccRoot, line unit.BitRate) (*ingest.ECNProfile, int64) {
	bdp := int64(line.Gbps() * 1e9 / 8 * ecnRTTUS * 1e-6)
	for _, r := range roots {
		if e := r.ecn; e != nil && e.GreenMax >= 0 && e.GreenMax < bdp {
			return e, bdp
		}
	}
	return nil, bdp
}

// nicLine is the line rate to recover toward: --nic-speed, else the
// artifacts' one NIC rate, else 100G.
func nicLine(inc *Incident) unit.BitRate {
	if sp, ok := speedOf(inc, ingest.Scope{}); ok {
		return sp.rate
	}
	return 100 * unit.Gbps
}

func judgeDCQCN(inc *Incident, senders []ccNIC, roots []ccRoot) Finding {
	tm := timingOf(inc)
	qps := qpsPerNIC(inc)
	rec := tm.recovery(nicLine(inc))
	sort.SliceStable(senders, func(i, j int) bool { return senders[i].handled > senders[j].handled })
	var held []ccNIC
	var rates []float64
	for _, n := range senders {
		perQP := n.handled / float64(qps.n)
		rates = append(rates, perQP)
		if perQP > 0 && time.Duration(float64(time.Second)/perQP) < rec {
			held = append(held, n)
		}
	}
	med := median(rates)
	interval := time.Duration(float64(time.Second) / med)
	var ev evidence
	for _, n := range senders[:min(3, len(senders))] {
		ev.add(n.ev...)
	}
	ev.add(tm.ev...)
	ev.add(qps.ev...)
	sort.SliceStable(roots, func(i, j int) bool { return roots[i].marks > roots[j].marks })
	var names []string
	for _, r := range roots {
		names = append(names, r.name)
	}
	for _, r := range roots[:min(3, len(roots))] {
		ev.add(r.ev...)
	}
	rate := fmt.Sprintf("a median %s CNPs/s per QP, one every %s (%s)", fmtRate(med), ingest.FormatDuration(interval), qps.how)
	timing := fmt.Sprintf("DCQCN needs about %s to regain a cut (%d increase events; %s)", ingest.FormatDuration(rec), recoverySteps, tm.how)
	mech := "A CNP cuts a QP's rate by up to half; the rate climbs back only on the reaction point's increase events, each halving the gap to its target, so a QP needs about four of them to regain a cut. A QP that gets CNPs faster than that never returns to line rate: the CNP rate per QP, not the share of packets marked, sets its throughput. "
	mech += fmt.Sprintf("Here %s get %s; %s. ", plural(len(senders), "NIC", "NICs"), rate, timing)
	f := Finding{Layer: LayerFabric, Evidence: nil}
	if len(held) == 0 {
		f.ID, f.Severity = "counters.dcqcn.active", Info
		f.Title = fmt.Sprintf("DCQCN at work: %s handle CNPs, %s, slower than the %s a QP needs to recover", plural(len(senders), "NIC", "NICs"), rate, ingest.FormatDuration(rec))
		f.Mechanism = mech + "Each cut is recovered before the next: congestion control is acting without holding the senders down." + windowNote(senders)
		f.Evidence = ev.sorted()
		return f
	}
	full, slack, fabric := splitRoots(roots)
	if len(held) < len(senders) {
		var hr []float64
		for _, n := range held {
			hr = append(hr, n.handled/float64(qps.n))
		}
		interval = time.Duration(float64(time.Second) / median(hr))
	}
	where := rootText(roots)
	early, bdp := earlyMarking(roots, nicLine(inc))
	fanIn := float64(len(held)) / float64(max(1, len(roots)))
	lead := fmt.Sprintf("%s get a CNP every %s per QP, faster than the %s DCQCN needs to recover", countHeld(held, senders), ingest.FormatDuration(interval), ingest.FormatDuration(rec))
	switch {
	case early != nil || !ecnKnown(roots) && len(full) == 0 && len(slack) > 0 && len(fabric) == 0 && fanIn < incastFanIn:
		f.ID, f.Severity = "counters.dcqcn.slowed", Warn
		f.Title = fmt.Sprintf("DCQCN slowed by marking: %s; the marks arise at %s", lead, where)
		why := fmt.Sprintf("The ports that mark (%s) carry %s of their line rate: no queue needs to build there, so the marks come from short bursts crossing an ECN threshold set below what a burst needs, and each mark throttles a sender the link could have carried.", list(names, 4), utilRange(slack))
		if early != nil {
			f.Title += fmt.Sprintf(", whose ECN profile marks from %s to %s, below one BDP (%s)", unit.Bytes(early.GreenMin), unit.Bytes(early.GreenMax), unit.Bytes(bdp))
			why = fmt.Sprintf("The marking ports' ECN profile (%s) marks from Kmin %s to Kmax %s, below one bandwidth-delay product (%s at %s and %d µs RTT): every packet that finds a queue of a frame or two is marked, so bursts a link absorbs in microseconds cut the senders as if the link were congested.", nameOr(early.Name, "WRED profile"), unit.Bytes(early.GreenMin), unit.Bytes(early.GreenMax), unit.Bytes(bdp), nicLine(inc), ecnRTTUS)
			if len(slack) > 0 {
				why += fmt.Sprintf(" The marking ports carry %s of their line rate.", utilRange(slack))
			}
			ev.add(early.Evidence...)
		}
		f.Mechanism = mech + why
		f.Fix = fmt.Sprintf("Raise the ECN thresholds of the RoCE queue on the marking ports toward 1–3 × BDP (Kmin about %s, Kmax about %s, e.g. SONiC `ecnconfig -p %s -gmin %d -gmax %d`), keep ROCE_CC_PRIO_MASK on the RoCE priority only, then check that each QP gets fewer than one CNP per %s.",
			unit.Bytes(bdp*6/10), unit.Bytes(bdp*6), nameOr(profileName(early), "AZURE_LOSSLESS"), bdp*6/10, bdp*6, ingest.FormatDuration(rec))
	case len(roots) > 0 && fanIn >= incastFanIn:
		f.ID, f.Severity = "counters.dcqcn.hotspot", Warn
		f.Title = fmt.Sprintf("Hot spot, an incast: %s; the marks arise at %s, about %.0f senders per marking port", lead, where, fanIn)
		f.Mechanism = mech + fmt.Sprintf("Many senders converge on few ports (about %.0f held senders per marking port): together they ask more than the port carries, and DCQCN divides it among them, so each runs at a fraction of its line rate, the queue and its latency grow with the fan-in, and traffic that shares the path is slowed with it.", fanIn)
		f.Fix = "Reduce the fan-in toward the receiver (stagger or schedule the senders, shard the data across receivers); keep PFC as the safety net and watch flows through the same switch for head-of-line blocking."
	case len(fabric) > 0:
		f.ID, f.Severity = "counters.dcqcn.hotspot", Warn
		f.Title = fmt.Sprintf("Congestion on fabric links: %s; the marks arise at %s, toward other switches", lead, where)
		f.Mechanism = mech + "The marking ports face other switches: more traffic hashed onto these links than they carry (an ECMP collision: RoCE's only entropy is each QP's UDP source port, so a few large flows land on the same uplink) or the tier is oversubscribed, while other links may idle."
		f.Fix = "Spread each connection over more QPs (NCCL_IB_QPS_PER_CONNECTION=4) so that a collision lasts one message, hash on the UDP source port, or place the ranks rail-optimised; compare the load of the switch's uplinks."
	case len(roots) > 0:
		f.ID, f.Severity = "counters.dcqcn.hotspot", Info
		f.Title = fmt.Sprintf("A shared bottleneck: the marks arise at %s, and DCQCN divides it among %s (a CNP every %s per QP)", where, countHeld(held, senders), ingest.FormatDuration(interval))
		f.Mechanism = mech + "A few senders share a port toward one receiver; congestion control divides it, as it should. The ECN thresholds are not below a bandwidth-delay product, so the marks come from a real queue."
	default:
		f.ID, f.Severity = "counters.dcqcn.slowed", Warn
		f.Title = fmt.Sprintf("DCQCN holds the senders down: %s", lead)
		f.Mechanism = mech + "The switch ports' counters are not in the incident, so it cannot tell whether the marks come from a full link (a hot spot) or from ECN thresholds that mark before a queue needs to build."
		f.Fix = "Add the switches' ECN-marked counters and ECN profile (SONiC `show queue wredcounters`, `ecnconfig -l`) or the queue depth toward the receivers; if the receivers' links are not full, raise the ECN thresholds toward 1–3 × BDP."
	}
	f.Mechanism += windowNote(senders)
	f.Evidence = ev.sorted()
	return f
}

// ecnKnown reports whether the incident shows the ECN profile of a
// marking port.
func ecnKnown(roots []ccRoot) bool {
	for _, r := range roots {
		if r.ecn != nil {
			return true
		}
	}
	return false
}

// splitRoots sorts the marking ports by load (full; clearly not full,
// under half their line rate) and picks those that face other switches.
func splitRoots(roots []ccRoot) (full, slack, fabric []ccRoot) {
	for _, r := range roots {
		switch {
		case r.util >= fullPort:
			full = append(full, r)
		case r.util >= 0 && r.util < slackPort:
			slack = append(slack, r)
		}
		if r.fabric == 1 {
			fabric = append(fabric, r)
		}
	}
	return full, slack, fabric
}

func profileName(e *ingest.ECNProfile) string {
	if e == nil {
		return ""
	}
	return e.Name
}

// rootText names the marking ports, most marks first, with their load.
func rootText(roots []ccRoot) string {
	var parts []string
	for _, r := range roots[:min(3, len(roots))] {
		s := r.name
		if r.peer != "" {
			s += " toward " + r.peer
		}
		parts = append(parts, s)
	}
	text := strings.Join(parts, ", ")
	if len(roots) > 3 {
		text = fmt.Sprintf("%d ports (%s and %d more)", len(roots), text, len(roots)-3)
	}
	var known []ccRoot
	for _, r := range roots {
		if r.util >= 0 {
			known = append(known, r)
		}
	}
	if len(known) > 0 {
		text += " at " + utilRange(known) + " of line rate"
	}
	return text
}

func utilRange(rs []ccRoot) string {
	lo, hi := math.Inf(1), 0.0
	for _, r := range rs {
		lo, hi = math.Min(lo, r.util), math.Max(hi, r.util)
	}
	if hi-lo < 0.01 {
		return fmt.Sprintf("%.0f%%", 100*hi)
	}
	return fmt.Sprintf("%.0f–%.0f%%", 100*lo, 100*hi)
}

func countHeld(held, all []ccNIC) string {
	if len(held) == len(all) {
		return fmt.Sprintf("the QPs of all %s that handle CNPs", plural(len(all), "NIC", "NICs"))
	}
	return fmt.Sprintf("the QPs of %d of the %d NICs that handle CNPs", len(held), len(all))
}

// windowNote says over what the rates were counted.
func windowNote(ns []ccNIC) string {
	return fmt.Sprintf(" Rates are over the %s window between the counter dumps.", ingest.FormatDuration(ns[0].span))
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// fmtRate prints a rate with thousands separators: 2,505.
func fmtRate(v float64) string {
	n := int64(math.Round(v))
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
