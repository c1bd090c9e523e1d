package sonic

import (
	"slices"
	"strings"
)

// A ClassPath is where one port puts one traffic class: the egress queue
// it leaves by (tc_to_queue_map), the ingress priority group its buffer is
// counted in (tc_to_pg_map), the queue a PFC pause on the same priority
// stops (pfc_to_queue_map), and the priority group whose fill sends a
// pause of that priority (pfc_to_pg_map: SAI's
// PFC_PRIORITY_TO_PRIORITY_GROUP, "the priority for pause frame for
// congested priority group" as opencomputeproject/SAI#138 brought it in).
// A map the port does not name, or names but the config does not define
// or without an entry for the class, leaves SAI's default: the class's
// own queue, and no judged priority group (PGKnown, PausePGKnown false).
type ClassPath struct {
	TC, Queue, PG, Paused, PausePG int
	// QueueAt, PGAt, PausedAt and PausePGAt are the map entries (zero
	// Values for a default); PGKnown, PausedKnown and PausePGKnown say
	// whether tc_to_pg_map, pfc_to_queue_map and pfc_to_pg_map were read
	// from the config.
	QueueAt, PGAt, PausedAt, PausePGAt Value
	PGKnown, PausedKnown, PausePGKnown bool
	// PGPauses are the PFC priorities pfc_to_pg_map gives the class's
	// priority group (PG), in order, with their entries; PFCToPGKnown
	// says the port names a pfc_to_pg_map the config defines and PG is
	// known.
	PGPauses     []int
	PGPausesAt   []Value
	PFCToPGKnown bool
}

// ClassPath returns where the port of pq puts class tc. The maps are the
// port's own: orchagent applies only dscp_to_tc_map of PORT_QOS_MAP|global
// (to the switch) and skips its other fields ("Qos map type ... is not
// supported at global level", qosorch.cpp handleGlobalQosMap).
func (db *ConfigDB) ClassPath(pq PortQoS, tc int) ClassPath {
	p := ClassPath{TC: tc, Queue: tc, PG: -1, Paused: tc, PausePG: -1}
	entry := func(table string, name Value) (int, Value, bool) {
		m, ok := db.NumMap(table, name.Text)
		if !ok || tc < 0 || tc > 63 || m.To[tc] < 0 {
			return 0, Value{}, false
		}
		return m.To[tc], m.At[tc], true
	}
	if q, at, ok := entry("TC_TO_QUEUE_MAP", pq.TCToQueue); ok {
		p.Queue, p.QueueAt = q, at
	}
	if q, at, ok := entry("MAP_PFC_PRIORITY_TO_QUEUE", pq.PFCToQueueMapName); ok {
		p.Paused, p.PausedAt, p.PausedKnown = q, at, true
	}
	if g, at, ok := entry("TC_TO_PRIORITY_GROUP_MAP", pq.TCToPG); ok {
		p.PG, p.PGAt, p.PGKnown = g, at, true
	}
	if g, at, ok := entry("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", pq.PFCToPGMapName); ok {
		p.PausePG, p.PausePGAt, p.PausePGKnown = g, at, true
	}
	if m, ok := db.NumMap("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", pq.PFCToPGMapName.Text); ok && p.PGKnown {
		p.PFCToPGKnown = true
		for prio, g := range m.To[:8] {
			if g == p.PG {
				p.PGPauses = append(p.PGPauses, prio)
				p.PGPausesAt = append(p.PGPausesAt, m.At[prio])
			}
		}
	}
	return p
}

// LosslessPGs returns the priority groups of port that keep PFC headroom,
// with the BUFFER_PG row (its profile field) of each: rows whose profile
// keeps headroom (an xoff, or headroom_type dynamic), or is "NULL" (the
// dynamic buffer model's lossless PG, whose headroom buffermgrd computes). Lossy are the PGs of rows whose profile
// the config defines without xoff. A priority of pfc_enable that no row
// covers is lossless too: buffermgrd writes a lossless row for each (from
// the port's speed and cable length) when it starts, so a config_db saved
// before it ran (loaded from minigraph) holds only the lossy rows. known is
// false when a row names a profile the config does not hold (a fragment):
// then what is lossless is not known.
func (db *ConfigDB) LosslessPGs(pq PortQoS) (lossless, lossy map[int]Value, known bool) {
	lossless, lossy = map[int]Value{}, map[int]Value{}
	for _, r := range db.PGs() {
		if !slices.Contains(r.Ports, pq.Port) {
			continue
		}
		name := strings.TrimSpace(r.Profile.Text)
		into := lossless
		if !strings.EqualFold(name, "NULL") {
			p, ok := db.Profile(name)
			if !ok {
				return nil, nil, false
			}
			if !p.KeepsHeadroom() {
				into = lossy
			}
		}
		for _, g := range r.PGs {
			into[g] = r.Profile
		}
	}
	for _, g := range pq.PFCEnable {
		if _, ok := lossy[g]; !ok {
			if _, ok := lossless[g]; !ok {
				lossless[g] = pq.PFCEnableAt
			}
		}
	}
	return lossless, lossy, true
}

// OwnPGLossy returns the BUFFER_PG row that puts priority group pfc, the
// group SONiC keeps lossless for pfc_enable priority pfc (buffermgrd's
// and the templates' rows, "3-4" for pfc_enable 3,4), of the port of pq
// on a profile the config defines without PFC headroom. The traditional
// buffer model (DEVICE_METADATA|localhost without buffer_model dynamic)
// writes pg_lossless_<speed>_<cable>_profile over the pfc_enable
// priorities' row when the port has a cable length other than 0m
// (buffermgr.cpp doSpeedUpdateTask): rewritten says so. stated is false
// when the config says neither the buffer model nor the port's cable
// length (a fragment), so whether buffermgrd rewrites the row is not
// known.
func (db *ConfigDB) OwnPGLossy(pq PortQoS, pfc int) (row Value, rewritten, stated, ok bool) {
	_, lossy, known := db.LosslessPGs(pq)
	row, ok = lossy[pfc]
	if !known || !ok {
		return Value{}, false, false, false
	}
	_, meta := db.Tables["DEVICE_METADATA"]["localhost"]
	if _, _, dynamic := db.dynamicModel(); dynamic {
		return row, false, true, true
	}
	_, cable, cableOK := db.CableLength(pq.Port)
	long := cableOK && strings.TrimSpace(cable.Text) != "0m"
	if !long {
		return row, false, meta || len(db.Tables["CABLE_LENGTH"]) > 0, true
	}
	return row, meta, meta, true
}

// DynamicPG reports whether a BUFFER_PG row naming profile puts its
// priority group on headroom buffermgrd computes (the dynamic buffer
// model): "NULL", or a profile with headroom_type dynamic and no xoff
// (buffermgrdyn.cpp handleBufferPgTable: both are dynamically calculated).
func (db *ConfigDB) DynamicPG(profile string) bool {
	name := strings.TrimSpace(profile)
	if strings.EqualFold(name, "NULL") {
		return true
	}
	p, ok := db.Profile(name)
	return ok && p.Xoff <= 0 && p.KeepsHeadroom()
}

// DynamicPGUnsized says why buffermgrd computes no lossless profile for a
// BUFFER_PG row of port that DynamicPG takes (the dynamic buffer model's
// lossless priority group): it sizes one only when the port's speed and cable
// length are both known, and removes the port's lossless PGs when the
// cable length is 0m (sonic-swss cfgmgr/buffermgrdyn.cpp: a port without
// them stays initializing and its PGs are skipped; refreshPgsForPort on
// "0m"). why and the place that shows it are portSizingGap's. ok is false
// when the port is sized, or when the config states no cable length for
// any port (a fragment without CABLE_LENGTH, whose lengths another file
// may hold); the speed is judged only on a PORT row the config holds.
func (db *ConfigDB) DynamicPGUnsized(port string) (why string, at Value, ok bool) {
	if len(db.Tables["CABLE_LENGTH"]) == 0 {
		return "", Value{}, false
	}
	return db.portSizingGap(port)
}

// portSizingGap says what buffermgrd lacks to size port's lossless
// priority groups: "no cable length" (at the CABLE_LENGTH table, zero
// when there is none), "cable length 0m", "unparseable cable length" (an
// entry that is not "<n>m", which no pg_profile_lookup.ini row matches) or
// "no speed" (judged on a PORT row the config holds), at the place that
// shows it. ok is false when it lacks none of them.
func (db *ConfigDB) portSizingGap(port string) (why string, at Value, ok bool) {
	cable, found := db.CableEntry(port)
	_, _, parsed := db.CableLength(port)
	switch {
	case !found:
		at, _ := db.TablePos("CABLE_LENGTH")
		return "no cable length", at, true
	case strings.TrimSpace(cable.Text) == "0m":
		return "cable length 0m", cable, true
	case !parsed:
		return "unparseable cable length", cable, true
	}
	if row, held := db.Tables["PORT"][port]; held && strings.TrimSpace(row["speed"].Text) == "" {
		at, _ := db.KeyPos("PORT|" + port)
		return "no speed", at, true
	}
	return "", Value{}, false
}

// StandInUnwritten says why buffermgrd never writes the BUFFER_PG row of
// priority group pg of the port of pq, a pfc_enable priority the config
// gives no row of its own (LosslessPGs counts it lossless on the
// pfc_enable line, as the traditional model writes
// pg_lossless_<speed>_<cable>_profile there): buffermgr.cpp
// doSpeedUpdateTask writes none for a port without a cable length ("Cable
// length is not set"), with 0m, or without a speed, and the dynamic
// model's buffermgrdyn.cpp reads no pfc_enable: it sizes the lossless
// groups BUFFER_PG names and adds none; neither writes a lossless profile
// while BUFFER_POOL ingress_lossless_pool is absent ("PG lossless pool is
// not yet created"). why is portSizingGap's, "the dynamic buffer model" or,
// for a config without BUFFER_PG or BUFFER_PROFILE rows and without
// BUFFER_POOL ingress_lossless_pool (other pools may be there), "no
// ingress_lossless_pool", at the place that shows it. ok only for a whole config_db
// (DEVICE_METADATA|localhost) that holds the port's PORT row and BUFFER_PG
// rows of its own or no buffer table at all: a fragment's cable lengths,
// speeds, model and rows may be in another file.
func (db *ConfigDB) StandInUnwritten(pq PortQoS, pg int) (why string, at Value, ok bool) {
	lossless, _, known := db.LosslessPGs(pq)
	if row, in := lossless[pg]; !known || !in || row != pq.PFCEnableAt {
		return "", Value{}, false
	}
	if _, meta := db.Tables["DEVICE_METADATA"]["localhost"]; !meta {
		return "", Value{}, false
	}
	model, stated, dynamic := db.dynamicModel()
	_, held := db.Tables["PORT"][pq.Port]
	if !held {
		return "", Value{}, false
	}
	if len(db.PGs()) == 0 {
		_, pool := db.Tables["BUFFER_POOL"]["ingress_lossless_pool"]
		if pool || len(db.Tables["BUFFER_PROFILE"]) > 0 {
			return "", Value{}, false
		}
		at, _ := db.KeyPos("DEVICE_METADATA|localhost")
		return "no ingress_lossless_pool", at, true
	}
	if dynamic {
		return "the dynamic buffer model", model, true
	}
	why, at, ok = db.portSizingGap(pq.Port)
	if _, table := db.TablePos("CABLE_LENGTH"); ok && !table {
		// No CABLE_LENGTH table: the metadata that states the model
		// shows it, once for every port.
		if at = model; !stated {
			at, _ = db.KeyPos("DEVICE_METADATA|localhost")
		}
	}
	return why, at, ok
}
