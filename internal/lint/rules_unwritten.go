package lint

import (
	"fmt"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
)

// rocePG is the priority group RoCE's class is counted in on the port of
// p: its tc_to_pg_map's entry when known, else the class's own number.
func rocePG(p portPath) int {
	if p.path.PGKnown {
		return p.path.PG
	}
	return p.path.TC
}

// unwrittenPGFinding is pfc.pg.lossy for ports whose RoCE priority group,
// a pfc_enable priority without a BUFFER_PG row, buffermgrd never writes
// (sonic.StandInUnwritten): g.other says why.
func unwrittenPGFinding(db *sonic.ConfigDB, g *pathGroup) doctor.Finding {
	p := g.first.path
	pg := rocePG(g.first)
	const lossy = "PFC still pauses the priority, but what the cable and the sender deliver after the pause has nowhere to go, and RoCE's packets are dropped on the class meant to be lossless."
	sev := doctor.Error
	title := fmt.Sprintf("%s %s: RoCE's priority group %d (class %d, pfc_enable) has no BUFFER_PG row, which the traditional buffer model leaves to buffermgrd, but the port has %s: buffermgrd writes no lossless profile for it, so the group keeps no PFC headroom",
		db.File, portList(g.ports), pg, p.TC, g.other)
	mechanism := "Under the traditional buffer model buffermgrd writes each port's lossless priority groups itself: it looks the port's speed and cable length, as written (\"40m\"), up in pg_profile_lookup.ini and writes pg_lossless_<speed>_<cable>_profile to BUFFER_PG for the port's pfc_enable groups, as one row (e.g. <port>|3-4, sonic-swss #2281; it reads pfc_enable since SONiC 202205, sonic-swss #2171, and wrote 3-4 whatever pfc_enable said before) (sonic-swss cfgmgr/buffermgr.cpp doSpeedUpdateTask). A port without a cable length (\"Cable length is not set\"), with 0m, with a length no row matches (\"No PG profile configured for speed … and cable length …\": \"40\" or \"300 m\" for \"40m\") or without a speed gets no row, and the config writes none: the group stays on the ASIC's default, with no headroom above its threshold. " + lossy
	fix := fmt.Sprintf("CABLE_LENGTH|AZURE \"<port>\": \"<length>m\" for these ports, the length of the cable to the peer (SONiC's buffers templates write 5m towards servers and 40m or 300m towards the spines), so buffermgrd writes the port's pfc_enable groups (e.g. BUFFER_PG <port>|3-4) from pg_profile_lookup.ini; or a BUFFER_PG <port>|%d row with a lossless profile (xon and xoff: `rocelab calc headroom --speed S --cable L`).", pg)
	switch g.other {
	case "cable length 0m":
		fix = fmt.Sprintf("The cable's real length in CABLE_LENGTH for these ports (0m is for ports that carry no lossless traffic: buffermgrd writes no lossless priority group for them), or a BUFFER_PG <port>|%d row with a lossless profile.", pg)
	case "unparseable cable length":
		fix = fmt.Sprintf("The cable length as SONiC's YANG model and pg_profile_lookup.ini write it, a whole number of metres with its unit (\"40m\"), or a BUFFER_PG <port>|%d row with a lossless profile.", pg)
	case "no speed":
		fix = "The port's speed in its PORT row (`config interface speed <port> <Mb/s>`), so buffermgrd looks its lossless profile up."
	case "no ingress_lossless_pool":
		sev = doctor.Warn
		title = fmt.Sprintf("%s %s: RoCE's priority group %d (class %d, pfc_enable) has no BUFFER_PG row, and the config holds no BUFFER_PG or BUFFER_PROFILE row and no BUFFER_POOL ingress_lossless_pool: buffermgrd writes no lossless profile until the pool exists, so as written the group keeps no PFC headroom",
			db.File, portList(g.ports), pg, p.TC)
		mechanism = "buffermgrd creates the lossless profile it writes to a pfc_enable group's BUFFER_PG row in BUFFER_POOL ingress_lossless_pool, and while that pool is absent it retries (\"PG lossless pool is not yet created\", sonic-swss cfgmgr/buffermgr.cpp doSpeedUpdateTask) and writes nothing: a whole CONFIG_DB without BUFFER_POOL, BUFFER_PROFILE and BUFFER_PG leaves every lossless group on the ASIC's default, with no headroom above its threshold, until the buffers are loaded (`config qos reload`, or a config_db.json generated with buffers.json). " + lossy
		fix = "The switch's buffer tables (BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE): `config qos reload` renders them from the SKU's buffers.json.j2; or lint the CONFIG_DB the switch runs (`show runningconfiguration all`), which holds them if it did."
	case "the dynamic buffer model":
		title = fmt.Sprintf("%s %s: RoCE's priority group %d (class %d, pfc_enable) has no BUFFER_PG row, and under the dynamic buffer model buffermgrd adds none from pfc_enable, so the group keeps no PFC headroom",
			db.File, portList(g.ports), pg, p.TC)
		mechanism = "Under the dynamic buffer model buffermgrd sizes the lossless priority groups BUFFER_PG names (profile \"NULL\", or a headroom_type dynamic profile) from each port's speed and cable length; unlike the traditional model it reads no pfc_enable (sonic-swss cfgmgr/buffermgrdyn.cpp) and adds no group for it. A pfc_enable priority without a row stays on the ASIC's default, with no headroom above its threshold: " + lossy
		fix = fmt.Sprintf("BUFFER_PG <port>|%d profile \"NULL\" on these ports (`config interface buffer priority-group lossless add <port> %d`): buffermgrd then computes the group's headroom from the port's speed and cable length.", pg, pg)
	}
	return doctor.Finding{
		ID: "pfc.pg.lossy", Severity: sev, Layer: doctor.LayerFabric,
		Title:     title,
		Subject:   db.File + " " + portList(g.ports),
		Evidence:  evs(append([]Evidence{atEv(db, g.first.pq.PFCEnableAt)}, g.shows...)...),
		Mechanism: mechanism,
		Fix:       fix,
	}
}
