package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
	"rocelab/internal/textout"
)

// classPathRules follows RoCE's class past a port's DSCP map (SONiC's, or
// the rows another switch OS's configuration but NVUE's was read as): the priority
// group its packets are counted in must keep PFC headroom and send pauses
// of its priority, a pause on its priority must stop the queue it leaves
// by, and that queue must carry a WRED profile that marks. Ports
// configured alike give one finding.
func classPathRules(m *Model) []doctor.Finding {
	lossy := m.lossyDesigns()
	var fs []doctor.Finding
	for _, db := range m.Sonic {
		// NVUE's rows are keyed by switch priority, each carrying the
		// ECN of the traffic class it drains into: its own rules judge it.
		if _, ok := lossy[db]; ok || isNVUE(db) {
			continue
		}
		fs = append(fs, m.classPaths(db)...)
		fs = append(fs, m.sharedQueues(db)...)
	}
	return fs
}

// portPath is one port's path of RoCE's class.
type portPath struct {
	pq   sonic.PortQoS
	path sonic.ClassPath
	dscp *sonic.Map // the port's DSCP_TO_TC_MAP, else the global one's; nil when neither is in the config
}

// rocePaths returns the path of RoCE's class on each port whose PFC
// protects it: the class of RoCE's DSCP in the port's map (or the
// global one's), else RoCE's priority when the port names no map.
func (m *Model) rocePaths(db *sonic.ConfigDB) []portPath {
	var global sonic.PortQoS
	pqs := db.PortQoSMaps()
	for _, pq := range pqs {
		if pq.Port == "global" {
			global = pq
		}
	}
	var out []portPath
	for _, pq := range pqs {
		if pq.Port == "global" {
			continue
		}
		tc := m.rocePriority()
		name := pq.DSCPToTC.Text
		if name == "" {
			name = global.DSCPToTC.Text
		}
		mp, ok := db.NumMap("DSCP_TO_TC_MAP", name)
		if !ok {
			mp = nil
		}
		if mp != nil && m.roce.DSCP >= 0 && m.roce.DSCP < 64 {
			tc = max(mp.To[m.roce.DSCP], 0)
		}
		if slices.Contains(pq.PFCEnable, tc) {
			out = append(out, portPath{pq, db.ClassPath(pq, tc), mp})
		}
	}
	return out
}

// roceQueue returns, for a QUEUE row's port, the queue RoCE's class leaves
// by: its tc_to_queue_map's entry on a port with PFC on the class, else
// the class's own number.
func (m *Model) roceQueue(db *sonic.ConfigDB) func(port string) int {
	queues := map[string]int{}
	for _, p := range m.rocePaths(db) {
		queues[p.pq.Port] = p.path.Queue
	}
	roce := m.rocePriority()
	return func(port string) int {
		if q, ok := queues[port]; ok {
			return q
		}
		return roce
	}
}

// pathGroup gathers the ports one finding is about.
type pathGroup struct {
	ports []string
	first portPath
	extra Evidence
	other string
	// pgs are the port's lossless priority groups (pfc.pg.lossy).
	pgs map[int]sonic.Value
	// unstated: whether buffermgrd rewrites the row is not known.
	unstated bool
	// extra2 is a second line the finding quotes.
	extra2 Evidence
	// shows are, for an unsized dynamic priority group, each port's line
	// that shows why (its PORT row without a speed, or the CABLE_LENGTH
	// table or its 0m length): quoted for every port, not only the last.
	shows []Evidence
	// profile is the BUFFER_PG row's profile (pfc.pg.lossy, unsized).
	profile string
}

func (m *Model) classPaths(db *sonic.ConfigDB) []doctor.Finding {
	paths := m.rocePaths(db)
	var keys []string
	groups := map[string]*pathGroup{}
	add := func(key string, p portPath, extra Evidence, other string, pgs map[int]sonic.Value) {
		g, ok := groups[key]
		if !ok {
			g = &pathGroup{first: p, extra: extra, other: other, pgs: pgs}
			groups[key] = g
			keys = append(keys, key)
		}
		g.ports = append(g.ports, p.pq.Port)
	}
	for _, p := range paths {
		if p.path.PausedKnown && p.path.Paused != p.path.Queue {
			add(fmt.Sprintf("queue\x00%d\x00%d\x00%d\x00%s\x00%s", p.path.TC, p.path.Queue, p.path.Paused, p.pq.PFCToQueueMapName.Text, p.pq.TCToQueue.Text), p, Evidence{}, "", nil)
		}
		if row, why, at, ok := unsizedNullPG(db, p); ok {
			key := fmt.Sprintf("nullpg\x00%d\x00%s\x00%s", p.path.TC, why, row.Text)
			add(key, p, atEv(db, row), why, nil)
			groups[key].shows = append(groups[key].shows, atEv(db, at))
			groups[key].profile = strings.TrimSpace(row.Text)
		}
		if why, at, ok := db.StandInUnwritten(p.pq, rocePG(p)); ok {
			key := fmt.Sprintf("unwritten\x00%d\x00%d\x00%s", p.path.TC, rocePG(p), why)
			add(key, p, Evidence{}, why, nil)
			groups[key].shows = append(groups[key].shows, atEv(db, at))
		}
		if p.path.PGKnown {
			lossless, lossyPGs, known := db.LosslessPGs(p.pq)
			if _, ok := lossless[p.path.PG]; known && !ok {
				rewritten, stated := rewritesPG(db, p)
				var ev Evidence
				if v, ok := lossyPGs[p.path.PG]; ok {
					ev = atEv(db, v)
				}
				if !rewritten {
					key := fmt.Sprintf("pg\x00%d\x00%d\x00%s\x00%s\x00%t", p.path.TC, p.path.PG, p.pq.TCToPG.Text, pgList(lossless), stated)
					add(key, p, ev, pgList(lossless), lossless)
					groups[key].unstated = !stated
				}
			} else if pauses, ok := pgPausesOther(db, p.path); ok {
				add(fmt.Sprintf("pause\x00%d\x00%d\x00%s\x00%s\x00%s", p.path.TC, p.path.PG, pauses, p.pq.PFCToPGMapName.Text, p.pq.TCToPG.Text), p, Evidence{}, pauses, lossless)
			}
		} else if row, rewritten, stated, ok := db.OwnPGLossy(p.pq, p.path.TC); ok && !rewritten {
			key := fmt.Sprintf("ownpg\x00%d\x00%s\x00%t", p.path.TC, row.Text, stated)
			add(key, p, atEv(db, row), strings.TrimSpace(row.Text), nil)
			groups[key].unstated = !stated
		}
		if prof, pool, ok := egressLossy(db, p); ok {
			key := fmt.Sprintf("egress\x00%d\x00%s", p.path.Queue, prof.Text)
			add(key, p, atEv(db, prof), pool.Text, nil)
			groups[key].extra2 = atEv(db, pool)
		}
		if !m.noCC() {
			if q, other, ok := m.unmarkedQueue(db, p); ok {
				add(fmt.Sprintf("ecn\x00%d\x00%s", p.path.Queue, other), p, q, other, nil)
			}
		}
	}
	var fs []doctor.Finding
	for _, k := range keys {
		g := groups[k]
		switch {
		case strings.HasPrefix(k, "queue\x00"):
			fs = append(fs, unpausedQueue(db, g))
		case strings.HasPrefix(k, "pg\x00"):
			fs = append(fs, lossyPG(db, g))
		case strings.HasPrefix(k, "pause\x00"):
			fs = append(fs, unpausedPG(db, g))
		case strings.HasPrefix(k, "ownpg\x00"):
			fs = append(fs, ownPGLossy(db, g))
		case strings.HasPrefix(k, "nullpg\x00"):
			fs = append(fs, unsizedNullPGFinding(db, g))
		case strings.HasPrefix(k, "unwritten\x00"):
			fs = append(fs, unwrittenPGFinding(db, g))
		case strings.HasPrefix(k, "egress\x00"):
			fs = append(fs, egressLossyFinding(db, g))
		default:
			fs = append(fs, unmarkedQueueFinding(db, g))
		}
	}
	return fs
}

// noCC reports a description that runs no congestion control: ECN is not
// wanted then.
func (m *Model) noCC() bool { return m.Desc != nil && m.Desc.Host.NIC.CC == "none" }

// pgList names a set of priority groups, "3-4" style, or "none".
func pgList(pgs map[int]sonic.Value) string {
	if len(pgs) == 0 {
		return "none"
	}
	var xs []int
	for g := range pgs {
		xs = append(xs, g)
	}
	sort.Ints(xs)
	return textout.Ints(xs)
}

func unpausedQueue(db *sonic.ConfigDB, g *pathGroup) doctor.Finding {
	p := g.first.path
	pq := g.first.pq
	return doctor.Finding{
		ID: "pfc.queue.unpaused", Severity: doctor.Error, Layer: doctor.LayerFabric,
		Title: fmt.Sprintf("%s %s: a PFC pause of priority %d stops queue %d (pfc_to_queue_map %s), but RoCE's class %d leaves by queue %d",
			db.File, portList(g.ports), p.TC, p.Paused, pq.PFCToQueueMapName.Text, p.TC, p.Queue),
		Subject:  db.File + " " + portList(g.ports),
		Evidence: evs(atEv(db, pq.PFCEnableAt), atEv(db, p.PausedAt), atEv(db, p.QueueAt), atEv(db, pq.PFCToQueueMapName)),
		Mechanism: fmt.Sprintf("When the next hop's lossless buffer for priority %d fills, it pauses that priority; the switch stops the queue MAP_PFC_PRIORITY_TO_QUEUE names (%d) and keeps sending RoCE from queue %d into a receiver whose headroom is used up, which drops what was meant to be lossless, while queue %d's traffic is held for nothing.",
			p.TC, p.Paused, p.Queue, p.Paused),
		Fix: fmt.Sprintf("MAP_PFC_PRIORITY_TO_QUEUE|%s \"%d\": \"%d\", the queue TC_TO_QUEUE_MAP gives class %d (SONiC's AZURE maps are the identity).", pq.PFCToQueueMapName.Text, p.TC, p.Queue, p.TC),
	}
}

// unlessRewritten qualifies pfc.pg.lossy when the config does not say
// whether buffermgrd's traditional model rewrites the row.
const unlessRewritten = " (unless the switch runs the traditional buffer model with a cable length for these ports, which this config does not say: buffermgrd then writes its own lossless profile over the row)"

// rewritesPG says whether buffermgrd's traditional model writes its own
// lossless profile over the BUFFER_PG row of the priority group RoCE's
// class is counted in, as ownPGLossy weighs it: it does for a group that
// is a pfc_enable priority of a port with a cable length, and whether the
// switch runs that model is stated by DEVICE_METADATA.
func rewritesPG(db *sonic.ConfigDB, p portPath) (rewritten, stated bool) {
	if !slices.Contains(p.pq.PFCEnable, p.path.PG) {
		return false, true
	}
	if _, rw, st, ok := db.OwnPGLossy(p.pq, p.path.PG); ok {
		return rw, st
	}
	return false, true
}

// severity is pfc.pg.lossy's level for the group: an error, or a warning
// qualified by unlessRewritten when the config does not say whether
// buffermgrd's traditional model rewrites the row.
func (g *pathGroup) severity() (doctor.Severity, string) {
	if g.unstated {
		return doctor.Warn, unlessRewritten
	}
	return doctor.Error, ""
}

func lossyPG(db *sonic.ConfigDB, g *pathGroup) doctor.Finding {
	p := g.first.path
	pq := g.first.pq
	sev, unless := g.severity()
	fix := fmt.Sprintf("TC_TO_PRIORITY_GROUP_MAP|%s \"%d\": \"%d\", a priority group with PFC headroom (BUFFER_PG <port>|%d with a lossless profile, or \"NULL\" under the dynamic buffer model).", pq.TCToPG.Text, p.TC, p.TC, p.TC)
	if _, ok := g.pgs[p.TC]; !ok && len(g.pgs) > 0 {
		fix = fmt.Sprintf("TC_TO_PRIORITY_GROUP_MAP|%s \"%d\" to one of the lossless priority groups (%s), or a lossless BUFFER_PG row for priority group %d on these ports.", pq.TCToPG.Text, p.TC, g.other, p.PG)
	}
	return doctor.Finding{
		ID: "pfc.pg.lossy", Severity: sev, Layer: doctor.LayerFabric,
		Title: fmt.Sprintf("%s %s: RoCE's class %d is counted in priority group %d (tc_to_pg_map %s), which keeps no PFC headroom; the lossless priority groups are %s%s",
			db.File, portList(g.ports), p.TC, p.PG, pq.TCToPG.Text, g.other, unless),
		Subject:   db.File + " " + portList(g.ports),
		Evidence:  evs(atEv(db, pq.PFCEnableAt), atEv(db, p.PGAt), g.extra),
		Mechanism: fmt.Sprintf("The switch counts each arriving packet in the priority group its traffic class maps to, and sends a PFC pause when a lossless group (one with xoff headroom; buffermgrd makes one per pfc_enable priority) crosses its threshold. RoCE's packets fill priority group %d instead: no pause is sent for them, the lossless group stays empty, and when the ingress buffer is full RoCE is dropped like lossy traffic.", p.PG),
		Fix:       fix,
	}
}

// pgPausesOther reports a port whose pfc_to_pg_map does not tie a pause
// of the class's priority to the priority group the class is counted in,
// and names the priorities that group's fill pauses instead ("none" when
// it pauses none). Broadcom sets the map as the priority group that
// triggers each PFC priority (bcm_cosq_priority_group_pfc_priority_
// mapping_profile_set), so a class's own entry naming another group is
// wrong there; NVIDIA's SAI (mlnx_port_qos_map_assign_pfc_to_pg) gives
// the switch priorities of a group the PFC priority of each entry naming
// that group and leaves them alone otherwise, so on a Spectrum platform
// only other priorities naming the class's group are.
func pgPausesOther(db *sonic.ConfigDB, p sonic.ClassPath) (string, bool) {
	if !p.PFCToPGKnown || slices.Contains(p.PGPauses, p.TC) {
		return "", false
	}
	if len(p.PGPauses) > 0 {
		return textout.Ints(p.PGPauses), true
	}
	if p.PausePGKnown && !db.Spectrum() {
		return "none", true
	}
	return "", false
}

func unpausedPG(db *sonic.ConfigDB, g *pathGroup) doctor.Finding {
	p := g.first.path
	pq := g.first.pq
	title := fmt.Sprintf("%s %s: RoCE's class %d is counted in priority group %d (tc_to_pg_map %s), whose fill sends a PFC pause of priority %s, not %d (pfc_to_pg_map %s)",
		db.File, portList(g.ports), p.TC, p.PG, pq.TCToPG.Text, g.other, p.TC, pq.PFCToPGMapName.Text)
	if g.other == "none" {
		title = fmt.Sprintf("%s %s: RoCE's class %d is counted in priority group %d (tc_to_pg_map %s), but pfc_to_pg_map %s sends a PFC pause of priority %d when priority group %d fills",
			db.File, portList(g.ports), p.TC, p.PG, pq.TCToPG.Text, pq.PFCToPGMapName.Text, p.TC, p.PausePG)
	}
	ev := []Evidence{atEv(db, pq.PFCEnableAt), atEv(db, p.PGAt), atEv(db, p.PausePGAt)}
	for _, v := range p.PGPausesAt {
		ev = append(ev, atEv(db, v))
	}
	// Move the pause to RoCE's group, unless the group the pause follows
	// is itself lossless (then RoCE's class can be counted there).
	fix := fmt.Sprintf("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|%s \"%d\": \"%d\", the priority group TC_TO_PRIORITY_GROUP_MAP|%s gives class %d, and no other priority to that group (SONiC's AZURE maps: each lossless class in a group of its own, 3 → 3 and 4 → 4 in both).",
		pq.PFCToPGMapName.Text, p.TC, p.PG, pq.TCToPG.Text, p.TC)
	if db.Vendor == sonic.VendorKLISH {
		fix = fmt.Sprintf("`pfc-priority %d pg %d` in `qos map pfc-priority-pg %s`, the priority group `qos map tc-pg %s` gives traffic class %d, and no other priority to that group.", p.TC, p.PG, pq.PFCToPGMapName.Text, pq.TCToPG.Text, p.TC)
	}
	if _, ok := g.pgs[p.PausePG]; ok && p.PausePGKnown {
		fix = fmt.Sprintf("TC_TO_PRIORITY_GROUP_MAP|%s \"%d\": \"%d\", the lossless priority group whose fill pfc_to_pg_map %s ties to priority %d (SONiC's AZURE maps: each lossless class in a group of its own, 3 → 3 and 4 → 4 in both).",
			pq.TCToPG.Text, p.TC, p.PausePG, pq.PFCToPGMapName.Text, p.TC)
		if db.Vendor == sonic.VendorKLISH {
			fix = fmt.Sprintf("`traffic-class %d priority-group %d` in `qos map tc-pg %s`, the lossless priority group whose fill `qos map pfc-priority-pg %s` ties to priority %d.", p.TC, p.PausePG, pq.TCToPG.Text, pq.PFCToPGMapName.Text, p.TC)
		}
	}
	return doctor.Finding{
		ID: "pfc.pg.unpaused", Severity: doctor.Error, Layer: doctor.LayerFabric,
		Title:    title,
		Subject:  db.File + " " + portList(g.ports),
		Evidence: evs(ev...),
		Mechanism: fmt.Sprintf("A switch sends a pause of priority p when the priority group PFC_PRIORITY_TO_PRIORITY_GROUP_MAP gives p crosses XOFF (SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP; NVIDIA's SAI gives a group's switch priorities the PFC priority of the entry naming it). RoCE's packets fill priority group %d, and its pauses carry another priority than %d, or none: the upstream port keeps sending RoCE on priority %d until priority group %d's headroom is used up, and what arrives after is dropped.",
			p.PG, p.TC, p.TC, p.PG),
		Fix: fix,
	}
}

// atEv is sonicEv for a value the config writes; a default (no line) gives
// no evidence.
func atEv(db *sonic.ConfigDB, v sonic.Value) Evidence {
	if v.Line == 0 {
		return Evidence{}
	}
	return sonicEv(db, v)
}

// ownPGLossy is the finding for ports whose class's priority group is not
// written (no tc_to_pg_map) while the BUFFER_PG row of the group SONiC
// keeps lossless for that pfc_enable priority names a profile (g.other)
// without PFC headroom; a warning when the config does not say whether
// buffermgrd's traditional model rewrites the row.
func ownPGLossy(db *sonic.ConfigDB, g *pathGroup) doctor.Finding {
	p := g.first.path
	pq := g.first.pq
	sev, unless := g.severity()
	ev := []Evidence{atEv(db, pq.PFCEnableAt), g.extra}
	if prof, ok := db.Profile(g.other); ok {
		ev = append(ev, atEv(db, prof.SizeAt), atEv(db, prof.DynamicThAt))
	}
	return doctor.Finding{
		ID: "pfc.pg.lossy", Severity: sev, Layer: doctor.LayerFabric,
		Title: fmt.Sprintf("%s %s: pfc_enable has priority %d, but BUFFER_PG puts priority group %d, the one SONiC keeps lossless for it, on profile %s, which keeps no PFC headroom (no xoff, no headroom_type dynamic)%s",
			db.File, portList(g.ports), p.TC, p.TC, g.other, unless),
		Subject:   db.File + " " + portList(g.ports),
		Evidence:  evs(ev...),
		Mechanism: fmt.Sprintf("A pause takes the cable's round trip and the sender's response time to stop the link; what arrives meanwhile needs headroom (xoff) reserved above the priority group's threshold. A profile with a size and a threshold but no xoff reserves none, and buffermgrd takes it as lossy (buffermgrdyn.cpp: only xoff or headroom_type dynamic make a profile lossless): priority group %d pauses with nothing left to hold the data in flight, which is dropped. The ports also name no tc_to_pg_map, so which group class %d is counted in is the ASIC's default, not this row's.", p.TC, p.TC),
		Fix:       fmt.Sprintf("BUFFER_PROFILE|%s xon and xoff (`rocelab calc headroom --speed S --cable L` gives them), or under the dynamic buffer model BUFFER_PG <port>|%d profile \"NULL\" (buffermgrd sizes the headroom from the port's speed and cable length); and \"tc_to_pg_map\": \"AZURE\" on these ports, with TC_TO_PRIORITY_GROUP_MAP|AZURE \"%d\": \"%d\".", g.other, p.TC, p.TC, p.TC),
	}
}

// unsizedNullPG reports a port whose BUFFER_PG row for RoCE's priority
// group is "NULL" or a headroom_type dynamic profile (the dynamic buffer
// model: buffermgrd computes the lossless profile) while the port lacks what buffermgrd computes it from
// (sonic.DynamicPGUnsized): the row, why, and where that shows.
func unsizedNullPG(db *sonic.ConfigDB, p portPath) (row sonic.Value, why string, at sonic.Value, ok bool) {
	row, ok = dynamicRocePG(db, p)
	if !ok {
		return sonic.Value{}, "", sonic.Value{}, false
	}
	why, at, ok = db.DynamicPGUnsized(p.pq.Port)
	return row, why, at, ok
}

// dynamicRocePG returns the BUFFER_PG row of port p's RoCE priority group
// (the path's PG when its tc_to_pg_map is known, else the class's own
// number) when that row is one of the port's lossless groups, is a row of
// its own (not the pfc_enable line standing in for it) and puts the group
// on headroom buffermgrd computes (DynamicPG: the dynamic buffer model).
func dynamicRocePG(db *sonic.ConfigDB, p portPath) (sonic.Value, bool) {
	pg := rocePG(p)
	lossless, _, known := db.LosslessPGs(p.pq)
	row, ok := lossless[pg]
	if !known || !ok || row == p.pq.PFCEnableAt || !db.DynamicPG(row.Text) {
		return sonic.Value{}, false
	}
	return row, true
}

// unsizedNullPGFinding is pfc.pg.lossy for ports whose dynamically sized
// RoCE priority group buffermgrd never sizes.
func unsizedNullPGFinding(db *sonic.ConfigDB, g *pathGroup) doctor.Finding {
	p := g.first.path
	pg := p.TC
	if p.PGKnown {
		pg = p.PG
	}
	fix := "CABLE_LENGTH|AZURE \"<port>\": \"<length>m\" for these ports, the length of the cable to the peer (SONiC's templates write 5m towards servers and 40m or 300m towards the spines), so buffermgrd sizes their headroom."
	switch g.other {
	case "cable length 0m":
		fix = "The cable's real length in CABLE_LENGTH for these ports (0m is for ports that carry no lossless traffic: buffermgrd removes their lossless priority groups)."
	case "no speed":
		fix = "The port's speed in its PORT row (`config interface speed <port> <Mb/s>`), so buffermgrd sizes the headroom."
	}
	return doctor.Finding{
		ID: "pfc.pg.lossy", Severity: doctor.Error, Layer: doctor.LayerFabric,
		Title: fmt.Sprintf("%s %s: RoCE's priority group %d (class %d, pfc_enable) is on %q, whose headroom buffermgrd computes (the dynamic buffer model), but the port has %s: buffermgrd computes no profile for it, so the group keeps no PFC headroom",
			db.File, portList(g.ports), pg, p.TC, g.profile, g.other),
		Subject:   db.File + " " + portList(g.ports),
		Evidence:  evs(append([]Evidence{atEv(db, g.first.pq.PFCEnableAt), g.extra}, g.shows...)...),
		Mechanism: "Under the dynamic buffer model a BUFFER_PG row with profile \"NULL\" (or a profile with headroom_type dynamic) asks buffermgrd to compute the group's lossless profile (pg_lossless_<speed>_<cable>_profile, its xoff from buffer_headroom_<vendor>.lua) from the port's speed and cable length. Without both it leaves the port initializing and skips the group, and with a cable length of 0m it removes the port's lossless groups (sonic-swss cfgmgr/buffermgrdyn.cpp doUpdatePgTask, refreshPgsForPort). The group then has no headroom above its threshold: a pause leaves nothing to hold what the cable and the sender still deliver, and RoCE's packets are dropped on the class meant to be lossless.",
		Fix:       fix,
	}
}

// egressLossy reports a port whose RoCE queue takes its egress buffer from
// a lossy pool (BUFFER_QUEUE's profile draws on a pool named lossy) while
// the config keeps an egress pool for lossless queues: it returns the
// BUFFER_QUEUE row's profile field and the profile's pool field.
func egressLossy(db *sonic.ConfigDB, p portPath) (prof, pool sonic.Value, ok bool) {
	if db.Vendor != "" {
		return prof, pool, false
	}
	prof, ok = db.QueueProfile(p.pq.Port, p.path.Queue)
	if !ok {
		return prof, pool, false
	}
	pr, ok := db.Profile(strings.TrimSpace(prof.Text))
	if !ok || !strings.Contains(strings.ToLower(pr.Pool.Text), "lossy") {
		return prof, pool, false
	}
	for _, name := range db.Tables["BUFFER_POOL"].Keys() {
		typ, _ := db.Field("BUFFER_POOL", name, "type")
		if strings.Contains(strings.ToLower(name), "lossless") && strings.EqualFold(strings.TrimSpace(typ.Text), "egress") {
			return prof, pr.Pool, true
		}
	}
	return prof, pool, false
}

func egressLossyFinding(db *sonic.ConfigDB, g *pathGroup) doctor.Finding {
	p := g.first.path
	pq := g.first.pq
	prof, _ := db.QueueProfile(pq.Port, p.Queue)
	return doctor.Finding{
		ID: "pfc.queue.egress_lossy", Severity: doctor.Error, Layer: doctor.LayerFabric,
		Title: fmt.Sprintf("%s %s: RoCE's queue %d takes its egress buffer from %s (BUFFER_QUEUE profile %s), a lossy pool, while the config keeps an egress pool for lossless queues",
			db.File, portList(g.ports), p.Queue, g.other, strings.TrimSpace(prof.Text)),
		Subject:   db.File + " " + portList(g.ports),
		Evidence:  evs(atEv(db, pq.PFCEnableAt), g.extra, g.extra2),
		Mechanism: fmt.Sprintf("PFC keeps a class lossless at ingress; at egress the queue must not drop what ingress admitted. A queue on a lossy pool's profile has a dynamic share of that pool: under an incast queue %d reaches its limit and the switch discards RoCE packets it has already accepted, which no pause prevents, and RC recovers by go-back-N and timeouts. SONiC's buffer templates put the lossless queues (3-4) on egress_lossless_profile, whose pool is egress_lossless_pool.", p.Queue),
		Fix:       fmt.Sprintf("BUFFER_QUEUE <port>|%d profile egress_lossless_profile (a profile of the egress lossless pool), as SONiC's buffers templates write for queues 3-4.", p.Queue),
	}
}
