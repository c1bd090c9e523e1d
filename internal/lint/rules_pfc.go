package lint

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/headroom"
	"rocelab/internal/scenario"
	"rocelab/internal/sonic"
	"rocelab/internal/textout"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// pfcRules checks headroom against SONiC's formula, headroom sized as a
// share of the buffer, lossless profiles' dynamic thresholds, the number
// of lossless priorities, and the PFC watchdog.
func pfcRules(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	if m.Desc != nil {
		fs = append(fs, m.descHeadroom()...)
		fs = append(fs, m.descWatchdog()...)
	}
	for _, db := range m.Sonic {
		fs = append(fs, sonicHeadroom(db)...)
		fs = append(fs, sonicNamedProfiles(db)...)
		fs = append(fs, sonicSharedHeadroom(db)...)
		fs = append(fs, sonicAlpha(db)...)
		fs = append(fs, nvueHeadroom(db)...)
		fs = append(fs, sonicWatchdog(db)...)
		fs = append(fs, sonicWatchdogMask(db)...)
		fs = append(fs, sonicWatchdogAlert(db)...)
	}
	return fs
}

// linkKind is a distinct speed and cable length among a topology's links.
type linkKind struct {
	rate  unit.BitRate
	cable unit.Length
	n     int // switch ports with it
}

func (m *Model) linkKinds() []linkKind {
	var out []linkKind
	idx := map[[2]int64]int{}
	t := m.Desc.Topo
	for _, l := range t.Links {
		k := [2]int64{int64(l.Rate), int64(l.Cable)}
		ends := 0
		for _, n := range []int{l.A, l.B} {
			if t.Nodes[n].Kind == topo.Switch {
				ends++
			}
		}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, linkKind{rate: l.Rate, cable: l.Cable})
		}
		out[i].n += ends
	}
	return out
}

func (m *Model) descHeadroom() []doctor.Finding {
	s := m.Desc
	p := s.Switch.PFC
	if !p.Enabled {
		return nil
	}
	var fs []doctor.Finding
	kinds := m.linkKinds()
	hdrEv := m.at("switch.pfc.headroom", "auto")
	var reserved int64
	nprio := len(maskList(p.Priorities))
	for _, k := range kinds {
		need := scenario.ComputeHeadroom(k.rate, k.cable, p)
		have := need
		if p.Headroom > 0 {
			have = p.Headroom
		}
		reserved += int64(have) * int64(k.n) * int64(nprio)
		linkEv := m.at("topology.host_link", fmt.Sprintf("rate %v, cable %v", k.rate, k.cable))
		switch {
		case p.Headroom == 0:
		case have < need:
			fs = append(fs, doctor.Finding{
				ID: "pfc.headroom.short", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("switches (%s): headroom %v per lossless PG is below the %v SONiC's formula gives for %v on %v of cable", s.File, have, need, k.rate, k.cable),
				Subject:  fmt.Sprintf("switches (%s) %v %v ports", s.File, k.rate, k.cable),
				Evidence: evs(hdrEv, linkEv, m.at("switch.pfc.mtu", "9100")),
				Mechanism: "After a switch sends XOFF, data keeps arriving: the frame in progress, the cable's round trip, the switch's own pipeline and the peer's response time (394 quanta at 100G). Headroom must hold all of it, or the lossless class drops exactly when PFC is needed. " +
					"Longer cables need more: 300 m of fibre holds 37.9 KB in flight each way at 100G.",
				Fix: fmt.Sprintf("switch.pfc.headroom: auto (or at least %v); `rocelab calc headroom --speed %v --cable %v --mtu %d` shows the terms.", need, k.rate, k.cable, int64(p.MTU)),
			})
		case have >= 4*need && float64(have) >= 0.05*float64(s.Switch.Buffer):
			fs = append(fs, doctor.Finding{
				ID: "pfc.xoff.percent", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("switches (%s): headroom %v per lossless PG (%.0f%% of the %v buffer) is %.1f× what SONiC's formula needs (%v)", s.File, have, 100*float64(have)/float64(s.Switch.Buffer), s.Switch.Buffer, float64(have)/float64(need), need),
				Subject:   fmt.Sprintf("switches (%s) %v %v ports", s.File, k.rate, k.cable),
				Evidence:  evs(hdrEv, m.at("switch.buffer", scenario.DefaultBuffer.String())),
				Mechanism: "Headroom is reserved per port and lossless priority and held back from the shared pool. Sizing XOFF as a share of the buffer (the seed's \"60–70 % of the port buffer\") reserves far more than the data in flight after a pause, so the shared pool — what absorbs bursts before anything is paused — shrinks, and PFC fires sooner.",
				Fix:       fmt.Sprintf("switch.pfc.headroom: auto (%v here), the bytes in flight after XOFF.", need),
			})
		}
	}
	if nprio > 2 && float64(reserved) > 0.25*float64(s.Switch.Buffer) {
		fs = append(fs, doctor.Finding{
			ID: "pfc.priorities.too_many", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:    fmt.Sprintf("switches (%s): %d lossless priorities reserve %v of headroom, %.0f%% of the %v buffer", s.File, nprio, unit.Bytes(reserved), 100*float64(reserved)/float64(s.Switch.Buffer), s.Switch.Buffer),
			Subject:  "switches (" + s.File + ")",
			Evidence: evs(m.at("switch.pfc.priorities", "[3]"), m.at("switch.buffer", scenario.DefaultBuffer.String())),
			Mechanism: "Every lossless priority needs its own headroom on every port. On a shallow-buffer switch more than two lossless classes leave little shared buffer, so queues reach XOFF sooner and pauses spread. " +
				"SONiC defaults to two lossless classes (3 and 4).",
			Fix: "Keep one lossless class for RoCE (two at most: SONiC's 3 and 4) and run other traffic lossy.",
		})
	}
	return fs
}

func (m *Model) descWatchdog() []doctor.Finding {
	s := m.Desc
	if w := s.Switch.Watchdog; s.Switch.PFC.Enabled && w.Detect > 0 {
		d, r := int64(w.Detect/unit.Millisecond), int64(w.Restore/unit.Millisecond)
		if d < doctor.WatchdogDetectMin || d > doctor.WatchdogDetectMax || r < doctor.WatchdogRestoreMin || r > doctor.WatchdogRestoreMax {
			return []doctor.Finding{{
				ID: "pfc.watchdog.range", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("switches (%s): PFC watchdog detection %v / restoration %v outside SONiC's limits (%d–%d / %d–%d ms)", s.File, w.Detect, w.Restore, doctor.WatchdogDetectMin, doctor.WatchdogDetectMax, doctor.WatchdogRestoreMin, doctor.WatchdogRestoreMax),
				Subject:   "switches (" + s.File + ")",
				Evidence:  evs(m.at("switch.watchdog.detection", "200ms"), m.at("switch.watchdog.restoration", "200ms")),
				Mechanism: "SONiC's YANG model (sonic-pfcwd.yang) and orchagent refuse watchdog times outside these limits, so a switch given them runs without a watchdog. The twin can simulate shorter times, which fit a short run; `config gen --target sonic` clamps them into range and says so (or refuses with --strict).",
				Fix:       fmt.Sprintf("switch.watchdog: {detection: %dms, restoration: %dms} or longer for a deployed switch (SONiC's default is 200 ms each).", min(max(d, doctor.WatchdogDetectMin), doctor.WatchdogDetectMax), min(max(r, doctor.WatchdogRestoreMin), doctor.WatchdogRestoreMax)),
			}}
		}
	}
	if !s.Switch.PFC.Enabled || s.Switch.Watchdog.Detect > 0 {
		return nil
	}
	return []doctor.Finding{watchdogOff("switches ("+s.File+")", []Evidence{m.at("switch.watchdog.enabled", "false")},
		"switch.watchdog: {enabled: true, detection: 200ms, restoration: 200ms}")}
}

func watchdogOff(subject string, ev []Evidence, fix string) doctor.Finding {
	return doctor.Finding{
		ID: "pfc.watchdog.off", Severity: doctor.Warn, Layer: doctor.LayerFabric,
		Title:    subject + ": PFC is on without a PFC watchdog",
		Subject:  subject,
		Evidence: evs(ev...),
		Mechanism: "A NIC stuck sending pauses (a PFC storm) or a cyclic buffer dependency (a PFC deadlock, e.g. after a reroute around a failed link) freezes the lossless class on every link upstream of it, indefinitely. " +
			"The watchdog detects a queue paused for longer than its detection time and drops or forwards its traffic until the storm ends (SONiC default: 200 ms detection, 200 ms restoration, action drop).",
		Fix: fix,
	}
}

// sonicHeadroom checks lossless BUFFER_PG profiles against the formula.
func sonicHeadroom(db *sonic.ConfigDB) []doctor.Finding {
	var fs []doctor.Finding
	type hit struct {
		ports     []string
		need      unit.Bytes
		fixedPeer unit.Bytes // the need with the ASIC's fixed peer response (0 without an ASIC): HeadroomShort's static floor
		rate      unit.BitRate
		cable     float64
		profileEv Evidence
		cableEv   Evidence
		have      int64
		pool      int64
		asic      string
		assumed   []string
	}
	hits := map[string]*hit{}
	var keys []string
	for _, pg := range db.PGs() {
		prof, ok := db.Profile(pg.Profile.Text)
		if !ok || prof.Xoff <= 0 {
			continue
		}
		for _, port := range pg.Ports {
			ph, ok := db.PortHeadroom(port)
			named := ""
			if !ok {
				ph, ok = db.PortHeadroomNamed(port, pg.Profile)
				named = "|named" // the cable the profile's name gives: its assumption is told apart
			}
			if !ok {
				continue
			}
			mbps, metres, rate := int64(ph.Input.Speed/unit.Mbps), ph.Input.Cable.Metres(), ph.Input.Speed
			need := headroom.Compute(ph.Input).Xoff
			var fixedPeer unit.Bytes
			if ph.ASIC != "" {
				in := ph.Input
				in.FixedPeer = true
				fixedPeer = headroom.Compute(in).Xoff
			}
			cableV := ph.Cable
			poolSize, _, _ := db.PoolSize(prof.Pool.Text)
			k := fmt.Sprintf("%s|%d|%g%s", prof.Name, mbps, metres, named)
			h, ok := hits[k]
			if !ok {
				h = &hit{need: need, fixedPeer: fixedPeer, rate: rate, cable: metres, profileEv: sonicEv(db, prof.XoffAt), cableEv: sonicEv(db, cableV), have: prof.Xoff, pool: poolSize, asic: ph.ASIC, assumed: ph.Assumed}
				hits[k] = h
				keys = append(keys, k)
			}
			h.ports = append(h.ports, port)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		h := hits[k]
		name := strings.SplitN(k, "|", 2)[0]
		subject := fmt.Sprintf("%s BUFFER_PROFILE %s on %s", db.File, name, portList(h.ports))
		sev, short := doctor.HeadroomShort(unit.Bytes(h.have), h.need, h.fixedPeer)
		switch {
		case short && sev == doctor.Info:
			fs = append(fs, doctor.Finding{
				ID: "pfc.headroom.short", Severity: doctor.Info, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("%s: xoff %d B covers the %d B that %s's fixed 3.8 KiB peer response needs (NVIDIA's static tables), not the %d B of the IEEE budget the lua uses since 2021, for %v on %gm", subject, h.have, int64(h.fixedPeer), h.asic, int64(h.need), h.rate, h.cable),
				Subject:  subject,
				Evidence: evs(h.profileEv, h.cableEv),
				Mechanism: "NVIDIA's static Spectrum-1 to -3 tables (pg_profile_lookup.ini, 2018–2020) were computed with the ASIC's fixed peer_response_time of 3.8 KiB; sonic-swss #1930 (2021) made buffer_headroom_mellanox.lua use IEEE 802.3 31B.3.7's budget instead (394 quanta = 25216 B at 100G), and the dynamic buffer model sizes these ports by it. " +
					"This xoff is the vendor's and holds while the peer (a Spectrum switch, a ConnectX NIC) pauses within 3.8 KiB; a peer that takes the IEEE budget can overrun it and drop lossless packets. " + assumedText(h.assumed),
				Fix: fmt.Sprintf("Nothing for a fabric of NVIDIA peers; otherwise the dynamic buffer model (DEVICE_METADATA buffer_model dynamic), or xoff at least %d B; `rocelab calc headroom --speed %v --cable %gm --asic %s` shows the terms.", int64(h.need), h.rate, h.cable, h.asic),
			})
		case short:
			fs = append(fs, doctor.Finding{
				ID: "pfc.headroom.short", Severity: sev, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("%s: xoff %d B is below the %d B that %s gives for %v on %gm", subject, h.have, int64(h.need), formulaName(h.asic), h.rate, h.cable),
				Subject:  subject,
				Evidence: evs(h.profileEv, h.cableEv),
				Mechanism: "After a switch sends XOFF, the cable's round trip, the frame in progress and the peer's IEEE response time (394 quanta = 25216 B at 100G) still arrive; xoff must hold them. " +
					assumedText(h.assumed),
				Fix: fmt.Sprintf("Use SONiC's dynamic buffer model (headroom computed per port), or raise xoff to at least %d B; `rocelab calc headroom --speed %v --cable %gm%s` shows the terms.", int64(h.need), h.rate, h.cable, asicFlag(h.asic)),
			})
		case h.have >= 4*int64(h.need) && h.pool > 0 && float64(h.have) >= 0.05*float64(h.pool):
			fs = append(fs, doctor.Finding{
				ID: "pfc.xoff.percent", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s: xoff %d B (%.0f%% of the pool) is %.1f× what SONiC's formula needs (%v)", subject, h.have, 100*float64(h.have)/float64(h.pool), float64(h.have)/float64(h.need), h.need),
				Subject:   subject,
				Evidence:  evs(h.profileEv),
				Mechanism: "xoff is what must fit after a pause is sent, not a share of the buffer; an oversized xoff is held back from the shared pool on every lossless port, so bursts hit XOFF sooner.",
				Fix:       fmt.Sprintf("xoff %v (the bytes in flight after XOFF).", h.need),
			})
		}
	}
	fs = append(fs, sonicTooMany(db)...)
	return fs
}

// sonicNamedProfiles judges, by its name alone, each lossless
// BUFFER_PROFILE of a config without BUFFER_PG rows (a buffers fragment
// pasted without its PG table): buffermgrd names its profiles
// pg_lossless_<speed>_<cable>_profile, so the name gives the speed and
// cable sonicHeadroom would read from PORT and CABLE_LENGTH. Where
// BUFFER_PG rows are, sonicHeadroom judges the profiles they use, and one
// they do not use is a leftover (the static buffer model keeps a port's
// old profile after its speed or cable changes) that sets no headroom.
// The floors are the doctor's for `mmuconfig -l` (switch.headroom.short).
func sonicNamedProfiles(db *sonic.ConfigDB) []doctor.Finding {
	if len(db.PGs()) > 0 {
		return nil
	}
	var fs []doctor.Finding
	for _, name := range db.Tables["BUFFER_PROFILE"].Keys() {
		pn, named := headroom.ParseProfileName(name)
		prof, ok := db.Profile(name)
		if !named || !ok || prof.Xoff <= 0 {
			continue
		}
		subject := fmt.Sprintf("%s BUFFER_PROFILE %s", db.File, name)
		f, short := doctor.NamedProfileShort("pfc.headroom.short", subject, prof.Xoff, pn, ", as the config has no BUFFER_PG rows to put the profile on a port; assumed")
		if !short {
			continue
		}
		f.Subject, f.Evidence = subject, evs(sonicEv(db, prof.XoffAt))
		fs = append(fs, f)
	}
	return fs
}

// formulaName says which formula and ASIC a need comes from.
func formulaName(asic string) string {
	if asic == "" {
		return "buffer_headroom_mellanox.lua (cells not counted)"
	}
	return "buffer_headroom_mellanox.lua for " + asic
}

// asicFlag is the calc flag that names the ASIC, or "".
func asicFlag(asic string) string {
	if asic == "" {
		return ""
	}
	return " --asic " + asic
}

// assumedText lists what the need assumed.
func assumedText(assumed []string) string {
	if len(assumed) == 0 {
		return "Every input of the formula is in the file."
	}
	return "Assumed, as the file does not say: " + strings.Join(assumed, "; ") + "."
}

// sonicWatchdog checks PFC_WD against the ports with PFC on.
func sonicWatchdog(db *sonic.ConfigDB) []doctor.Finding {
	var fs []doctor.Finding
	wd := map[string]sonic.Watchdog{}
	for _, w := range db.Watchdogs() {
		wd[w.Port] = w
		fs = append(fs, doctor.JudgeWatchdogTimes(db.File+" PFC_WD "+w.Port, w.Detection, w.Restoration, []Evidence{sonicEv(db, w.DetectionAt), sonicEv(db, w.RestorationAt)})...)
	}
	if brs, ok := db.Field("PFC_WD", "GLOBAL", "BIG_RED_SWITCH"); ok && strings.EqualFold(brs.Text, "enable") {
		fs = append(fs, bigRedSwitch(db, brs))
	}
	// A fragment (qos.json, buffers.json) says nothing of the watchdog:
	// SONiC creates its rows at boot (`pfcwd start_default`) when
	// DEVICE_METADATA|localhost default_pfcwd_status is "enable". Only a
	// full config_db whose metadata does not enable it, and that has no
	// row for a port with PFC, runs that port without one.
	meta, full := db.Tables["DEVICE_METADATA"]["localhost"]
	if !full || !db.Has("PORT") {
		return fs
	}
	status, set := meta["default_pfcwd_status"]
	if set && strings.EqualFold(status.Text, "enable") {
		return fs
	}
	var missing []string
	for _, pq := range db.PortQoSMaps() {
		if len(pq.PFCEnable) == 0 || pq.Port == "global" {
			continue
		}
		if _, ok := wd[pq.Port]; !ok {
			missing = append(missing, pq.Port)
		}
	}
	if len(missing) > 0 {
		ev := sonicEv(db, status)
		why := fmt.Sprintf("default_pfcwd_status is %q", status.Text)
		if !set {
			pos, _ := db.TablePos("DEVICE_METADATA")
			ev, why = sonicEv(db, pos), "DEVICE_METADATA|localhost sets no default_pfcwd_status"
		}
		f := watchdogOff(fmt.Sprintf("%s %s", db.File, portList(missing)), []Evidence{ev},
			"`pfcwd start_default` after setting DEVICE_METADATA|localhost default_pfcwd_status to \"enable\" (or PFC_WD rows with detection_time 200, restoration_time 200, action drop).")
		f.Title = fmt.Sprintf("%s: PFC on %d ports without a PFC_WD entry, and %s, so none is created at boot", db.File, len(missing), why)
		fs = append(fs, f)
	}
	return fs
}

// sonicTooMany reports ports with more than two lossless priorities, one
// finding per file and set of priorities. SONiC's dual-ToR design (and
// T1s facing dual-ToR pairs) runs PFC on 2, 3, 4 and 6: traffic of the
// lossless classes 3 and 4 that crosses the IPinIP tunnel between the
// ToRs is remapped to priorities 2 and 6 (SONiC "Tunnel QoS remap"), so
// that its pauses do not block the untunnelled lossless traffic; the
// watchdog still watches 3 and 4 (pfcwd_sw_enable). That design is not
// flagged.
func sonicTooMany(db *sonic.ConfigDB) []doctor.Finding {
	type group struct {
		prios []int
		ports []string
		ev    Evidence
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, pq := range db.PortQoSMaps() {
		if len(pq.PFCEnable) <= 2 || pq.Port == "global" || tunnelRemap(db, pq) {
			continue
		}
		k := textout.Ints(pq.PFCEnable)
		g, ok := byKey[k]
		if !ok {
			g = &group{prios: pq.PFCEnable, ev: sonicEv(db, pq.PFCEnableAt)}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.ports = append(g.ports, pq.Port)
	}
	var fs []doctor.Finding
	for _, g := range groups {
		fix := "pfc_enable with one or two priorities (the RoCE class, and at most one more)."
		if isNVUE(db) {
			fix = fmt.Sprintf("PFC on one or two switch priorities (RoCE's, and at most one more): %s for each of the others.", nvUnset(db, g.ports[0], "pfc", "switch-priority <P>"))
		}
		fs = append(fs, doctor.Finding{
			ID: "pfc.priorities.too_many", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("%s %s: PFC on %d priorities (%s)", db.File, portList(g.ports), len(g.prios), textout.Ints(g.prios)),
			Subject:   db.File + " " + portList(g.ports),
			Evidence:  evs(g.ev),
			Mechanism: "Every lossless priority needs its own headroom on every port; on a shallow-buffer switch more than two lossless classes leave little shared buffer. SONiC defaults to two (3,4), and four only in its dual-ToR tunnel remap (2,3,4,6).",
			Fix:       fix,
		})
	}
	return fs
}

// sonicWatchdogMask reports ports whose lossless priorities the PFC
// watchdog does not watch. Since sonic-swss #2171 (SONiC 202205)
// orchagent arms the watchdog on the priorities of PORT_QOS_MAP's
// pfcwd_sw_enable alone, saving an empty mask for a row without it, and
// db_migrator (version_3_0_4) copies pfc_enable into it on upgrade. A row
// whose pfcwd_sw_enable leaves out a priority of its pfc_enable (SONiC's
// dual-ToR remap, which leaves 2 and 6 to the tunnel, aside), or a row
// without the field in a config of that era (VERSIONS|DATABASE
// version_3_0_5 or later, or other rows of the file that carry it), runs
// PFC there with no watchdog.
func sonicWatchdogMask(db *sonic.ConfigDB) []doctor.Finding {
	if db.Vendor != "" {
		return nil
	}
	era := false
	if v, ok := db.Field("VERSIONS", "DATABASE", "VERSION"); ok {
		era = dbVersionAtLeast(v.Text, 3, 0, 5)
	}
	pqs := db.PortQoSMaps()
	for _, pq := range pqs {
		era = era || pq.HasPFCWDSW
	}
	type group struct {
		ports []string
		ev    Evidence
	}
	groups := map[string]*group{}
	var order []string
	for _, pq := range pqs {
		if len(pq.PFCEnable) == 0 || pq.Port == "global" || tunnelRemap(db, pq) || !era {
			continue
		}
		var unwatched []int
		for _, p := range pq.PFCEnable {
			if !slices.Contains(pq.PFCWDSWEnable, p) {
				unwatched = append(unwatched, p)
			}
		}
		if len(unwatched) == 0 {
			continue
		}
		at, what := pq.PFCWDSWAt, fmt.Sprintf("pfcwd_sw_enable %q leaves out %s of pfc_enable %q", pq.PFCWDSWAt.Text, textout.Ints(unwatched), pq.PFCEnableAt.Text)
		if !pq.HasPFCWDSW {
			at, what = pq.PFCEnableAt, fmt.Sprintf("pfc_enable %q without pfcwd_sw_enable", pq.PFCEnableAt.Text)
		}
		g := groups[what]
		if g == nil {
			g = &group{ev: sonicEv(db, at)}
			groups[what] = g
			order = append(order, what)
		}
		g.ports = append(g.ports, pq.Port)
	}
	var fs []doctor.Finding
	for _, what := range order {
		g := groups[what]
		f := watchdogOff(fmt.Sprintf("%s %s", db.File, portList(g.ports)), []Evidence{g.ev},
			"Set PORT_QOS_MAP pfcwd_sw_enable to the port's pfc_enable (\"3,4\" as SONiC's templates and db_migrator write it), then `config qos reload` or `pfcwd start_default`.")
		f.Title = fmt.Sprintf("%s %s: %s: the PFC watchdog does not watch those priorities", db.File, portList(g.ports), what)
		f.Mechanism = "Since SONiC 202205 (sonic-swss #2171) orchagent arms the PFC watchdog only on the priorities of PORT_QOS_MAP's pfcwd_sw_enable; a lossless priority outside it has no storm detection, and a pause storm or deadlock on it freezes the class indefinitely."
		fs = append(fs, f)
	}
	return fs
}

// sonicWatchdogAlert reports the ports with pfc_enable whose PFC_WD row's
// action is "alert": orchagent (pfcwdsworch.cpp) gives a stormed queue of
// such a port the base action handler, which counts and logs the storm
// and leaves the queue as it is, paused.
func sonicWatchdogAlert(db *sonic.ConfigDB) []doctor.Finding {
	wd := map[string]sonic.Watchdog{}
	for _, w := range db.Watchdogs() {
		wd[w.Port] = w
	}
	var ports []string
	var ev []Evidence
	for _, pq := range db.PortQoSMaps() {
		w, ok := wd[pq.Port]
		if len(pq.PFCEnable) == 0 || !ok || !strings.EqualFold(strings.TrimSpace(w.ActionAt.Text), "alert") {
			continue
		}
		ports = append(ports, pq.Port)
		ev = append(ev, sonicEv(db, w.ActionAt))
	}
	if len(ports) == 0 {
		return nil
	}
	f := watchdogOff(fmt.Sprintf("%s PFC_WD %s", db.File, portList(ports)), ev,
		"PFC_WD rows with action \"drop\" (SONiC's default) or \"forward\" on these ports (`pfcwd start --action drop <ports> <detection-time>`).")
	f.Title = fmt.Sprintf("%s PFC_WD %s: action alert: the PFC watchdog reports a pause storm on these ports and leaves the queue paused", db.File, portList(ports))
	f.Mechanism = "A PFC watchdog breaks a pause storm or deadlock by acting on the stormed queue: drop discards its packets and the pauses it receives, forward sends them regardless of the pauses, and the lossless class upstream drains. With action alert orchagent (sonic-swss pfcwdsworch.cpp) only counts and logs the storm: the queue stays paused, its ingress fills, and the pauses spread upstream and freeze the lossless class as with no watchdog at all."
	return []doctor.Finding{f}
}

// dbVersionAtLeast compares SONiC's CONFIG_DB schema version
// ("version_3_0_5") with major.minor.patch. From 202305 db_migrator names
// the schema after its release ("version_202311_03", after version_4_0_3,
// 202211's last), so a version of that form is later than every numbered
// one.
func dbVersionAtLeast(v string, major, minor, patch int) bool {
	parts := strings.Split(strings.TrimPrefix(v, "version_"), "_")
	n := make([]int, len(parts))
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		n[i] = x
	}
	switch {
	case len(n) == 2 && n[0] >= 202305:
		return true
	case len(n) != 3:
		return false
	}
	return slices.Compare(n, []int{major, minor, patch}) >= 0
}

// tunnelRemap reports whether a port's lossless priorities are SONiC's
// dual-ToR set: 3 and 4, and 2 and 6 for their tunnelled copies, with the
// watchdog (when the row says) on 3 and 4 only.
func tunnelRemap(db *sonic.ConfigDB, pq sonic.PortQoS) bool {
	if textout.Ints(pq.PFCEnable) != "2,3,4,6" {
		return false
	}
	if len(pq.PFCWDSWEnable) > 0 && textout.Ints(pq.PFCWDSWEnable) != "3,4" {
		return false
	}
	return true
}

// bigRedSwitch reports PFC_WD|GLOBAL BIG_RED_SWITCH enable, naming the
// ports with pfc_enable it holds.
func bigRedSwitch(db *sonic.ConfigDB, brs sonic.Value) doctor.Finding {
	var lossless []string
	for _, pq := range db.PortQoSMaps() {
		if len(pq.PFCEnable) > 0 && pq.Port != "global" {
			lossless = append(lossless, pq.Port)
		}
	}
	on := "every port with PFC"
	if len(lossless) > 0 {
		on = fmt.Sprintf("the %d ports with pfc_enable here (%s)", len(lossless), portList(lossless))
	}
	return doctor.JudgeBigRedSwitch(db.File+" PFC_WD|GLOBAL", on, sonicEv(db, brs))
}
