package lint

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/scenario"
	"rocelab/internal/sonic"
	"rocelab/internal/textout"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// ecnProfile is one set of RED/ECN thresholds on the RoCE queue, at the
// fastest port speed it applies to.
type ecnProfile struct {
	Subject    string
	Kmin, Kmax unit.Bytes
	Pmax       float64
	Rate       unit.BitRate
	RTT        unit.Time
	// RTTAssumed says nothing gave the RTT: a SONiC profile with no
	// description beside it. (A description's switch.ecn.rtt defaults to
	// the same 20 µs; its evidence line says so, and it is the fabric's
	// model, as its other switch defaults are.)
	RTTAssumed     bool
	KminEv, KmaxEv Evidence
	PmaxEv, RateEv Evidence
	RTTEv          Evidence
	Buffer         unit.Bytes
	Alpha          float64
	StaticTh       unit.Bytes // in Alpha's place when positive
	BufferEv       Evidence
	// Xoff is where a config_db's RoCE priority group sends XOFF, from
	// its profile and pool, when the config holds them (Buffer is 0).
	Xoff             *pgXoff
	Units            string // how the source writes thresholds
	PmaxWrittenAsPct bool
	// KminName, KmaxName and PmaxName are the source's names for them
	// (NVUE's min-threshold, max-threshold, probability); NVPath is the
	// NVUE path of a profile made from NVUE, for `nv set` fixes.
	KminName, KmaxName, PmaxName string
	NVPath                       string
	// RateHow says where Rate comes from; RateAssumed that nothing
	// stated it.
	RateHow     string
	RateAssumed bool
	// Common says a description's profile applies to every link rate
	// switch.ecn.by_rate does not list; Rates counts those rates.
	Common bool
	Rates  int
}

// ecnRules checks ECN thresholds against one BDP, the buffer and the PFC
// threshold, and Pmax's range.
func ecnRules(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	for _, p := range m.ecnProfiles() {
		found := p.check()
		if p.Common && p.Rates > 1 {
			for i := range found {
				if found[i].ID == "switch.ecn.thresholds" {
					found[i].Fix += " Its links run at several speeds: switch.ecn.by_rate gives the ports of each its own profile (config gen writes a WRED profile per speed)."
				}
			}
		}
		fs = append(fs, found...)
	}
	if s := m.Desc; s != nil && s.Switch.ECN.Enabled && s.Switch.ECN.Priorities != 0 {
		roce := m.rocePriority()
		if s.Switch.ECN.Priorities&(1<<roce) == 0 {
			fs = append(fs, doctor.Finding{
				ID: "ecn.disabled", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("switches (%s): ECN marks priority %s but not %d, where RoCE rides", s.File, textout.Ints(maskList(s.Switch.ECN.Priorities)), roce),
				Subject:   "switches (" + s.File + ")",
				Evidence:  evs(m.at("switch.ecn.priorities", "[3]")),
				Mechanism: "DCQCN slows a sender only when its packets come back marked: without ECN on the RoCE queue no CNP is ever sent, congestion is left to PFC alone, and pauses spread it upstream.",
				Fix:       fmt.Sprintf("switch.ecn.priorities: [%d] (SONiC: wred_profile on QUEUE <port>|%d).", roce, roce),
			})
		}
	}
	lossy := m.lossyDesigns()
	for _, db := range m.Sonic {
		if _, ok := lossy[db]; ok {
			continue // qos.lossy.by_design says what its RoCE queue marks
		}
		fs = append(fs, m.sonicECNMode(db)...)
	}
	return fs
}

// sonicECNMode checks that the WRED profile on RoCE's queue marks green
// packets, the colour SONiC gives all traffic unless a policer recolours it.
// SONiC's model (sonic-wred-profile.yang) defaults ecn to ecn_none and
// wred_green_enable to false; SAI then drops instead of marking (ecn_none),
// or leaves green packets out of WRED and ECN altogether (green not
// enabled, sonic-buildimage#4545).
func (m *Model) sonicECNMode(db *sonic.ConfigDB) []doctor.Finding {
	roce, roceQueue := m.rocePriority(), m.roceQueue(db)
	noCC := m.Desc != nil && m.Desc.Host.NIC.CC == "none"
	ports, queue := map[string][]string{}, map[string]int{}
	var names []string
	for _, q := range db.Queues() {
		if q.WREDProfile.Text == "" || !slices.Contains(q.Queues, roceQueue(q.Ports[0])) {
			continue
		}
		if _, ok := ports[q.WREDProfile.Text]; !ok {
			names = append(names, q.WREDProfile.Text)
			queue[q.WREDProfile.Text] = roceQueue(q.Ports[0])
		}
		ports[q.WREDProfile.Text] = append(ports[q.WREDProfile.Text], q.Ports...)
	}
	sort.Strings(names)
	var fs []doctor.Finding
	for _, name := range names {
		w, ok := db.WREDProfile(name)
		if !ok {
			continue
		}
		mode := strings.ToLower(strings.TrimSpace(w.ECN.Text))
		if mode == "" {
			mode = "ecn_none"
		}
		marks := marksGreen(w)
		green := strings.EqualFold(strings.TrimSpace(w.GreenEnable.Text), "true")
		unmarked, known := greenUnmarked(db, w)
		modeText := "ecn " + mode
		if w.ECN.Text == "" {
			modeText = "no ecn field (ecn_none, the default)"
		}
		subject := fmt.Sprintf("%s %s (on %s, queue %d)", db.File, ecnName(db, name), portList(ports[name]), queue[name])
		withGreen, andGreen := modeText+" with wred_green_enable true: WRED", fmt.Sprintf("%s and wred_green_enable %q", modeText, w.GreenEnable.Text)
		if isNVUE(db) {
			// NVUE's ecn and red settings are what made ecn and
			// wred_green_enable; RoCE's switch priority is the queue key.
			subject = fmt.Sprintf("%s %s (on %s, switch priority %d)", db.File, ecnName(db, name), portList(ports[name]), roce)
			withGreen, andGreen = "ecn disable with red enable: RED", "ecn disable and red disable"
		}
		switch db.Vendor {
		case sonic.VendorEOS:
			// The profile is a transmit queue's random-detect line.
			withGreen = "random-detect drop without random-detect ecn: WRED"
		case sonic.VendorNXOS:
			withGreen = "random-detect without the ecn keyword: WRED"
		case sonic.VendorOS10:
			withGreen = "a wred profile without random-detect ecn: WRED"
		case sonic.VendorTrafficConf:
			withGreen = "red_enable true with ecn_enable false: RED"
		case sonic.VendorOnyx:
			withGreen = "congestion-control red: RED"
		case sonic.VendorFTOS:
			withGreen = "wred green without wred ecn in its qos-policy-output: WRED"
		}
		var at []Evidence
		for _, v := range []sonic.Value{w.ECN, w.GreenEnable} {
			if v.Line > 0 {
				at = append(at, sonicEv(db, v))
			}
		}
		if tab, ok := db.TablePos("WRED_PROFILE"); ok && len(at) == 0 {
			at = append(at, sonicEv(db, tab))
		}
		ev := evs(at...)
		switch {
		case green && !marks:
			fs = append(fs, doctor.Finding{
				ID: "ecn.disabled", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s: %s drops RoCE's packets instead of marking them", subject, withGreen),
				Subject:   subject,
				Evidence:  ev,
				Mechanism: "Without a marking mode that covers green, a WRED profile is a drop profile: between its thresholds the switch discards RoCE packets on a queue meant to be lossless, each loss costs a go-back-N retransmission, and no CNP ever reaches the senders.",
				Fix:       ecnFix(db, name, fmt.Sprintf("WRED_PROFILE|%s ecn ecn_all (SONiC's AZURE_LOSSLESS), or remove wred_profile from RoCE's queue.", name)),
			})
		case marks && (green || db.Spectrum()) && (w.MinAt.Text == "" || w.MaxAt.Text == ""):
			fs = append(fs, unsetGreenThresholds(db, subject, name, w, ev))
		case !green && marks && !unmarked:
			// NVIDIA's SAI marks under the ECN mode with WRED's dropping off
			// (its own SKUs ship so): nothing to say.
		case !green && !noCC:
			what := "RoCE's packets are green, and on ASICs that follow SAI's per-colour enable (sonic-buildimage#4545) WRED and ECN do not act on green packets unless wred_green_enable is true (SAI's default is off); NVIDIA Spectrum marks under the ECN mode without it, but DEVICE_METADATA names another platform here"
			if !known {
				what = strings.Replace(what, "names another platform here", "names no platform here: it may never mark", 1)
			}
			if !marks {
				what = "the profile neither marks nor drops green packets"
			}
			fs = append(fs, doctor.Finding{
				ID: "ecn.disabled", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s: %s: ECN never marks RoCE", subject, andGreen),
				Subject:   subject,
				Evidence:  ev,
				Mechanism: what + ". DCQCN slows a sender only when its packets come back marked: congestion is left to PFC alone, and pauses spread it upstream.",
				Fix:       ecnFix(db, name, fmt.Sprintf("WRED_PROFILE|%s wred_green_enable true, ecn ecn_all (SONiC's AZURE_LOSSLESS).", name)),
			})
		}
	}
	return fs
}

// greenUnmarked reports whether a profile leaves green packets, RoCE's,
// out of WRED and ECN on this switch: wred_green_enable not true on an ASIC
// that follows SAI's per-colour enable (sonic-buildimage#4545), that is,
// any but NVIDIA Spectrum, whose SAI marks under the ECN mode alone. A
// config_db whose DEVICE_METADATA names neither platform nor hwsku (a
// fragment) gives no ASIC: known is false, and it is not judged.
func greenUnmarked(db *sonic.ConfigDB, w *sonic.WRED) (unmarked, known bool) {
	if strings.EqualFold(strings.TrimSpace(w.GreenEnable.Text), "true") || db.Spectrum() {
		return false, true
	}
	if db.Vendor != "" {
		return true, true
	}
	_, platform := db.Field("DEVICE_METADATA", "localhost", "platform")
	_, hwsku := db.Field("DEVICE_METADATA", "localhost", "hwsku")
	return true, platform || hwsku
}

// ecnFix is the fix that makes a profile mark: SONiC's, or for a Cumulus
// switch the NVUE commands (its profile is named by its NVUE path).
func ecnFix(db *sonic.ConfigDB, name, sonicFix string) string {
	if db.Vendor == sonic.VendorNXOS {
		return fmt.Sprintf("End the random-detect line of %s with `ecn` (NX-OS then marks ECN-capable packets and drops only the rest).", strings.TrimSuffix(name, " random-detect"))
	}
	if db.Vendor == sonic.VendorOnyx {
		return "`interface ethernet <ports> traffic-class <tc> congestion-control ecn minimum-absolute <KB> maximum-absolute <KB>` in place of `red`: Onyx then marks ECN-capable packets."
	}
	if db.Vendor == sonic.VendorTrafficConf {
		return fmt.Sprintf("%s.ecn_enable = true (and red_enable = false, as NCLU's storage-optimized writes it), then `echo 1 > /cumulus/switchd/config/traffic/reload`.", name)
	}
	if db.Vendor == sonic.VendorFTOS {
		return fmt.Sprintf("Add `wred ecn` to the qos-policy-output whose `wred green` names %s: FTOS then marks ECN-capable packets and drops only the rest.", strings.TrimPrefix(name, "wred-profile "))
	}
	if db.Vendor == sonic.VendorOS10 {
		return fmt.Sprintf("Add `random-detect ecn` to the profile (%s): OS10 then marks ECN-capable packets and drops only the rest.", name)
	}
	if db.Vendor == sonic.VendorEOS {
		return fmt.Sprintf("In %s, `random-detect ecn minimum-threshold … maximum-threshold … max-mark-probability …` in place of (or beside) the drop line: EOS marks ECN-capable packets and drops only the rest.", strings.TrimSuffix(name, " random-detect drop"))
	}
	if db.Vendor != sonic.VendorCumulus {
		return sonicFix
	}
	return fmt.Sprintf("nv set qos %s ecn enable; nv set qos %s red disable (NVUE's RoCE default: mark, do not drop).", name, name)
}

func (m *Model) ecnProfiles() []ecnProfile {
	var out []ecnProfile
	if s := m.Desc; s != nil && s.Switch.ECN.Enabled && s.Host.NIC.CC != "none" {
		e := s.Switch.ECN
		p := ecnProfile{
			Subject: "switches (" + s.File + ")", Kmin: e.Kmin, Kmax: e.Kmax, Pmax: e.Pmax, RTT: e.RTT,
			KminEv: m.at("switch.ecn.kmin", scenario.DefaultKmin.String()), KmaxEv: m.at("switch.ecn.kmax", scenario.DefaultKmax.String()),
			PmaxEv: m.at("switch.ecn.pmax", "0.2"), RTTEv: m.at("switch.ecn.rtt", scenario.DefaultECNRTT.String()),
			Buffer: s.Switch.Buffer, Alpha: s.Switch.Alpha, StaticTh: s.Switch.StaticTh, BufferEv: m.at("switch.buffer", scenario.DefaultBuffer.String()),
			Units: "bytes (a bare number in the description is bytes)",
		}
		// The common profile is judged at the fastest link it marks on,
		// each switch.ecn.by_rate profile at its own rate.
		if rate, rateEv, rates := fastestLink(m, e.ByRate); rates > 0 {
			p.Rate, p.RateEv, p.Common, p.Rates, p.Alpha = rate, rateEv, true, rates, s.Switch.AlphaAt(rate)
			p.RateHow = fmt.Sprintf("%v, the fastest link of the description's topology", rate)
			if len(e.ByRate) > 0 {
				p.RateHow = fmt.Sprintf("%v, the fastest link switch.ecn.by_rate does not list", rate)
			}
			out = append(out, p)
		}
		for _, r := range e.ByRate {
			key := "switch.ecn.by_rate." + r.Key
			q := p
			q.Common = false
			q.Subject = fmt.Sprintf("switches' %v ports (%s)", r.Rate, s.File)
			q.Kmin, q.Kmax, q.Pmax, q.Rate, q.Alpha = r.Kmin, r.Kmax, r.Pmax, r.Rate, s.Switch.AlphaAt(r.Rate)
			q.KminEv, q.KmaxEv, q.PmaxEv = m.at(key+".kmin", "switch.ecn.kmin's"), m.at(key+".kmax", "switch.ecn.kmax's"), m.at(key+".pmax", "switch.ecn.pmax's")
			q.RateEv, q.RateHow = m.at(key, ""), fmt.Sprintf("%v, the rate of switch.ecn.by_rate's entry", r.Rate)
			out = append(out, q)
		}
	}
	for _, db := range m.Sonic {
		out = append(out, m.sonicECN(db)...)
	}
	return out
}

// fastestLink returns the fastest link rate of the description's topology
// other than the rates listed apart, and how many such rates its links
// run at (0 when every link's is listed): a queue needs its BDP at the
// speed it drains at.
func fastestLink(m *Model, apart []scenario.RateECN) (unit.BitRate, Evidence, int) {
	var rates []unit.BitRate
	for _, l := range m.Desc.Topo.Links {
		if !slices.ContainsFunc(apart, func(r scenario.RateECN) bool { return r.Rate == l.Rate }) && !slices.Contains(rates, l.Rate) {
			rates = append(rates, l.Rate)
		}
	}
	if len(rates) == 0 {
		return 0, Evidence{}, 0
	}
	best := slices.Max(rates)
	fabric := false
	for _, l := range m.Desc.Topo.Links {
		t := m.Desc.Topo
		fabric = fabric || l.Rate == best && t.Nodes[l.A].Kind == topo.Switch && t.Nodes[l.B].Kind == topo.Switch
	}
	if fabric && m.given("topology.fabric_link.rate") {
		return best, m.at("topology.fabric_link.rate", ""), len(rates)
	}
	return best, m.at("topology.host_link.rate", scenario.DefaultHostRate.String()), len(rates)
}

// sonicECN returns the WRED profiles attached to the RoCE queue, once per
// profile, at the fastest port that uses it.
func (m *Model) sonicECN(db *sonic.ConfigDB) []ecnProfile {
	roceQueue := m.roceQueue(db)
	lossless := map[string][]int{}
	for _, pq := range db.PortQoSMaps() {
		lossless[pq.Port] = pq.PFCEnable
	}
	type use struct {
		rate   unit.BitRate
		rateEv Evidence
		ports  []string
	}
	uses := map[string]*use{}
	var names []string
	for _, q := range db.Queues() {
		if q.WREDProfile.Text == "" || !slices.Contains(q.Queues, roceQueue(q.Ports[0])) && !anyIn(q.Queues, lossless[q.Ports[0]]) {
			continue
		}
		u, ok := uses[q.WREDProfile.Text]
		if !ok {
			u = &use{}
			uses[q.WREDProfile.Text] = u
			names = append(names, q.WREDProfile.Text)
		}
		for _, p := range q.Ports {
			u.ports = append(u.ports, p)
			if r, v, ok := portSpeed(db, p); ok && r > u.rate {
				u.rate, u.rateEv = r, sonicEv(db, v)
			}
		}
	}
	sort.Strings(names)
	_, lossy := m.lossyDesigns()[db]
	var out []ecnProfile
	for _, name := range names {
		// A profile that does not mark green packets, RoCE's, has no
		// marking thresholds to judge (ecn.disabled names it).
		w, ok := db.WREDProfile(name)
		if !ok || !w.OK || !marksGreen(w) {
			continue
		}
		u := uses[name]
		if lossy && !m.lossyECN(db, roceQueue(u.ports[0])).marks {
			continue // qos.lossy.by_design says RoCE's queue marks nothing
		}
		defaulted := ""
		if w.Defaulted {
			defaulted = " (Pmax 100 %, SAI's default)"
		}
		p := ecnProfile{
			Subject: fmt.Sprintf("%s %s (on %s)%s", db.File, ecnName(db, name), portList(u.ports), defaulted),
			Kmin:    unit.Bytes(w.Min), Kmax: unit.Bytes(w.Max), Pmax: float64(w.Prob) / 100,
			Rate: u.rate, RateEv: u.rateEv, RTT: scenario.DefaultECNRTT, RTTAssumed: true,
			KminEv: sonicEv(db, w.MinAt), KmaxEv: sonicEv(db, w.MaxAt), PmaxEv: sonicEv(db, w.ProbAt),
			Units: "bytes (SONiC WRED thresholds)", PmaxWrittenAsPct: true,
		}
		speed := "PORT speed"
		if isNVUE(db) {
			speed = "link speed"
			p.Units, p.KminName, p.KmaxName, p.PmaxName, p.NVPath = "bytes (NVUE's min-threshold and max-threshold)", "min-threshold", "max-threshold", "probability", "qos "+name
		}
		if p.Rate == 0 {
			p.Rate, p.RateAssumed = scenario.DefaultHostRate, true
			p.RateHow = fmt.Sprintf("%v assumed: %s has no %s for %s", p.Rate, db.File, speed, portList(u.ports))
		} else {
			p.RateHow = fmt.Sprintf("%v, the fastest %s of the ports that use it", p.Rate, speed)
		}
		if rtt, ev, ok := m.statedRTT(); ok {
			p.RTT, p.RTTEv, p.RTTAssumed = rtt, ev, false
		}
		if x, ok := m.roceXoff(db, u.ports); ok {
			p.Xoff = &x
		}
		if w.Prob > 100 || w.Prob < 0 {
			p.Pmax = float64(w.Prob) / 100
		}
		out = append(out, p)
	}
	return out
}

func (p ecnProfile) check() []doctor.Finding {
	pct := func(f float64) string { return strconv.FormatFloat(f*100, 'f', -1, 64) + "%" }
	prof := doctor.ECNProfile{
		Subject: p.Subject, Kmin: p.Kmin, Kmax: p.Kmax, Pmax: p.Pmax, Rate: p.Rate, RateHow: p.RateHow, RateAssumed: p.RateAssumed,
		RTT: p.RTT, RTTAssumed: p.RTTAssumed, Units: p.Units, Evidence: evs(p.KminEv, p.KmaxEv, p.RateEv, p.RTTEv), KminName: p.KminName, KmaxName: p.KmaxName, PmaxName: p.PmaxName,
	}
	if p.Xoff != nil {
		prof.XoffAt = p.Xoff.At()
	}
	fs := doctor.JudgeECN(prof, false)
	kmin, kmax, pmaxName := prof.Names()
	if p.Kmin > p.Kmax {
		fix := "Swap them."
		if p.NVPath != "" {
			fix = fmt.Sprintf("Swap them: nv set %s min-threshold %d; nv set %s max-threshold %d.", p.NVPath, int64(p.Kmax), p.NVPath, int64(p.Kmin))
		}
		fs = append(fs, doctor.Finding{
			ID: "ecn.pmax.range", Severity: doctor.Error, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("%s: %s %v is above %s %v", p.Subject, kmin, p.Kmin, kmax, p.Kmax),
			Subject:   p.Subject,
			Evidence:  evs(p.KminEv, p.KmaxEv),
			Mechanism: "RED marks with a probability rising from 0 at Kmin to Pmax at Kmax; with the two swapped the ramp is empty and the switch either rejects the profile or marks everything above Kmax.",
			Fix:       fix,
		})
	}
	pmaxFix := "Pmax 1–30 %"
	if p.NVPath != "" {
		pmaxFix = fmt.Sprintf("nv set %s probability 5, within 1–30 %%", p.NVPath)
	}
	switch {
	case p.Pmax <= 0 && p.Kmin < p.Kmax:
		fs = append(fs, doctor.Finding{
			ID: "ecn.pmax.range", Severity: doctor.Error, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("%s: %s is 0", p.Subject, pmaxName),
			Subject:   p.Subject,
			Evidence:  evs(p.PmaxEv),
			Mechanism: "With Pmax 0 nothing is marked between Kmin and Kmax: ECN acts only once the queue is above Kmax, as a cliff. A fraction written into a percent field (0.05 into green_drop_probability) becomes 0.",
			Fix:       pmaxFix + " (1 % DCQCN paper, 5 % SONiC, 10–30 % Huawei, 20 % HPCC ns-3).",
		})
	case p.Pmax > 1:
		fs = append(fs, doctor.Finding{
			ID: "ecn.pmax.range", Severity: doctor.Error, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("%s: %s %s is above 100%%", p.Subject, pmaxName, pct(p.Pmax)),
			Subject:   p.Subject,
			Evidence:  evs(p.PmaxEv),
			Mechanism: "A probability cannot exceed 100 %; the switch rejects the profile or clamps it.",
			Fix:       pmaxFix + ".",
		})
	}
	if x := p.Xoff; x != nil && p.Kmin >= x.At() {
		fs = append(fs, doctor.Finding{
			ID: "ecn.kmin.above_pfc", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:    fmt.Sprintf("%s: Kmin %v is at or above where RoCE's priority group sends XOFF when one ingress port fills the queue (%v: %s): PFC can pause before ECN marks a single packet", p.Subject, p.Kmin, x.At(), x.How()),
			Subject:  p.Subject,
			Evidence: evs(append([]Evidence{p.KminEv}, x.Evidence...)...),
			Mechanism: "A queue fed by one ingress port holds what that port's priority group holds; SAI's dynamic threshold lets the group take 2^dynamic_th of the pool's free space (saibuffer.h SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH), so alone in an empty pool it reaches XOFF at α/(1+α) of the pool above its reserved size, and earlier whenever other traffic uses the pool. " +
				"ECN must mark below that point, so that senders slow down before PFC pauses the link and spreads congestion upstream; with the WRED minimum above it, an incast from one port is handled by pauses alone.",
			Fix: fmt.Sprintf("green_min_threshold below %v; size thresholds from the BDP (`rocelab calc ecn`), not from the buffer.", x.At()),
		})
	}
	if p.Buffer > 0 {
		alpha := p.Alpha
		if alpha <= 0 {
			alpha = 1
		}
		pfcAt := unit.Bytes(alphaShareOf(alpha) * float64(p.Buffer))
		threshold, how := fmt.Sprintf("α=%g", alpha), "at α/(1+α) of the shared buffer"
		if p.StaticTh > 0 {
			pfcAt = min(p.StaticTh, p.Buffer)
			threshold, how = fmt.Sprintf("static_th %v", p.StaticTh), "at its static threshold"
		}
		if p.Kmax > p.Buffer {
			fs = append(fs, doctor.Finding{
				ID: "ecn.kmax.above_buffer", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s: Kmax %v is above the whole %v buffer", p.Subject, p.Kmax, p.Buffer),
				Subject:   p.Subject,
				Evidence:  evs(p.KmaxEv, p.BufferEv),
				Mechanism: "No queue can grow to Kmax, so the marking probability never reaches Pmax: the RED ramp the profile describes is cut short, and under heavy congestion marking stays too weak while PFC and drops take over.",
				Fix:       "Kmax about 2–3×BDP (`rocelab calc ecn`), well inside the buffer.",
			})
		}
		if p.Kmin >= pfcAt {
			sev, what := doctor.Warn, "PFC can pause before ECN marks a single packet"
			if p.Kmin >= p.Buffer {
				sev, what = doctor.Error, "ECN never marks"
			}
			fs = append(fs, doctor.Finding{
				ID: "ecn.kmin.above_pfc", Severity: sev, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("%s: Kmin %v is at or above where one ingress port's PFC threshold stops the queue (%v of %v, %s): %s", p.Subject, p.Kmin, pfcAt, p.Buffer, threshold, what),
				Subject:  p.Subject,
				Evidence: evs(p.KminEv, p.BufferEv),
				Mechanism: "A queue fed by one ingress port reaches that port's XOFF threshold " + how + ". ECN must mark below it, so that senders slow down before PFC pauses the link and spreads congestion upstream. " +
					"The seed's \"50000 cells (about 25 MB)\" is such a threshold on a 100G switch.",
				Fix: fmt.Sprintf("Kmin below %v; size thresholds from the BDP (`rocelab calc ecn`), not from the buffer.", pfcAt),
			})
		}
	}
	return fs
}

// anyIn reports whether any of xs is in ys.
func anyIn(xs, ys []int) bool {
	for _, x := range xs {
		if slices.Contains(ys, x) {
			return true
		}
	}
	return false
}

// statedRTT returns the fabric's RTT where a description given beside the
// switch configs writes switch.ecn.rtt, and its line: CONFIG_DB and
// `ecnconfig -l` state none, so their profiles are judged at it, else at
// the 20 µs default, assumed.
func (m *Model) statedRTT() (unit.Time, Evidence, bool) {
	if !m.given("switch.ecn.rtt") {
		return 0, Evidence{}, false
	}
	return m.Desc.Switch.ECN.RTT, m.at("switch.ecn.rtt", ""), true
}

// fastestPort returns the fastest PORT speed of the config_dbs given and
// where it is written, or 0: the rate a switch's `ecnconfig -l` profile,
// given beside them, is judged at.
func (m *Model) fastestPort() (unit.BitRate, string) {
	var best unit.BitRate
	how := ""
	for _, db := range m.Sonic {
		for _, p := range db.Tables["PORT"].Keys() {
			if r, v, ok := portSpeed(db, p); ok && r > best {
				best, how = r, fmt.Sprintf("%v, the fastest PORT speed of %s (%s:%d)", r, db.File, db.Source(), v.Line)
			}
		}
	}
	return best, how
}

// portSpeed returns a port's PORT speed (megabits in CONFIG_DB) and the
// field, when the config writes a positive one.
func portSpeed(db *sonic.ConfigDB, port string) (unit.BitRate, sonic.Value, bool) {
	v, ok := db.Field("PORT", port, "speed")
	mbps, err := strconv.ParseInt(v.Text, 10, 64)
	if !ok || err != nil || mbps <= 0 {
		return 0, v, false
	}
	return unit.BitRate(mbps) * unit.Mbps, v, true
}

// unsetGreenThresholds reports a WRED profile that marks RoCE's queue
// (green packets) without a green threshold: orchagent passes SAI only the
// fields CONFIG_DB gives, so the ASIC keeps its own (SAI's default for
// SAI_WRED_ATTR_GREEN_MIN_THRESHOLD and _MAX_THRESHOLD is 0, which
// saiwred.h defines as the maximum buffer size: marks come only with a
// full buffer, after PFC has paused). Red and yellow thresholds apply to
// other colours; RoCE's packets are green.
func unsetGreenThresholds(db *sonic.ConfigDB, subject, name string, w *sonic.WRED, ev []doctor.Evidence) doctor.Finding {
	var unset, other []string
	for _, f := range []struct {
		field string
		at    sonic.Value
	}{{"green_min_threshold", w.MinAt}, {"green_max_threshold", w.MaxAt}} {
		if f.at.Text == "" {
			unset = append(unset, f.field)
		}
	}
	row := db.Tables["WRED_PROFILE"][name]
	for _, c := range []string{"yellow", "red"} {
		if row[c+"_min_threshold"].Text != "" || row[c+"_max_threshold"].Text != "" {
			other = append(other, c)
		}
	}
	also := ""
	if len(other) > 0 {
		also = fmt.Sprintf(" (it sets %s thresholds, which act on other colours)", strings.Join(other, " and "))
	}
	return doctor.Finding{
		ID: "switch.ecn.thresholds", Severity: doctor.Warn, Layer: doctor.LayerFabric,
		Title:     fmt.Sprintf("%s: marks RoCE's green packets but sets no %s%s: the ASIC keeps SAI's default 0, which marks only at the maximum buffer size, after PFC has paused: ECN is effectively off for RoCE", subject, strings.Join(unset, " or "), also),
		Subject:   subject,
		Evidence:  ev,
		Mechanism: "orchagent programs a WRED profile with the fields its row gives; a green threshold left out keeps the ASIC's value (SAI's default for SAI_WRED_ATTR_GREEN_MIN_THRESHOLD and GREEN_MAX_THRESHOLD is 0, which saiwred.h defines as the maximum buffer size: the queue marks only at the maximum buffer size, after PFC has paused, so DCQCN never gets a mark in time and ECN is effectively off for RoCE; sonic-swss qosorch passes SAI only the fields the row gives). RoCE's packets are green: red_* and yellow_* thresholds do not apply to them.",
		Fix:       fmt.Sprintf("WRED_PROFILE|%s green_min_threshold and green_max_threshold in bytes, sized from the BDP (`rocelab calc ecn`; SONiC's AZURE_LOSSLESS writes 1048576 and 2097152), with green_drop_probability.", name),
	}
}
