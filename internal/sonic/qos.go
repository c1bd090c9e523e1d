package sonic

import (
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/swcfg"
)

// PortKey splits a "PORTS|IDS" key such as "Ethernet0|3-4",
// "Ethernet0,Ethernet4|3" or "Ethernet0|0-2" into ports and numbers.
func PortKey(key string) (ports []string, ids []int, ok bool) {
	pp, ii, found := strings.Cut(key, "|")
	if !found || pp == "" {
		return nil, nil, false
	}
	ports = strings.Split(pp, ",")
	ids, ok = Range(ii)
	return ports, ids, ok
}

// Range reads "3", "3-4" or "3,4" into numbers from 0 to 15; SONiC
// writes its lists of priorities and queues as NVUE writes its own.
func Range(s string) ([]int, bool) { return swcfg.IDs(s, 15) }

// PFCList reads a pfc_enable value as orchagent does (sonic-swss qosorch.cpp
// handlePortQosMapTable): the parts between commas (swss tokenize: a
// trailing comma ends the list), each part's leading integer as std::stoi
// reads it (blanks, a sign, digits: "3-4" and "3 4" are 3), setting bit
// 1 << p of an 8-bit mask (a priority of 8 or more sets none; a part with
// no leading digits, on which stoi throws, sets none). yang is whether the
// text is what sonic-port-qos-map.yang takes, ([0-7](,[0-7])*)?.
func PFCList(s string) (prios []int, yang bool) {
	yang = true
	parts := strings.Split(s, ",")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
		yang = false
	}
	if s == "" {
		return nil, true
	}
	var mask uint8
	for _, p := range parts {
		if len(p) != 1 || p[0] < '0' || p[0] > '7' {
			yang = false
		}
		t := strings.TrimLeft(p, " \t\n\v\f\r")
		neg := strings.HasPrefix(t, "-")
		t = strings.TrimLeft(t, "+-")
		d := 0
		for d < len(t) && t[d] >= '0' && t[d] <= '9' {
			d++
		}
		v, err := strconv.Atoi(t[:d])
		if d == 0 || err != nil || v > 7 || neg && v != 0 {
			continue // no bit of the 8-bit mask
		}
		mask |= 1 << v
	}
	for p := range 8 {
		if mask&(1<<p) != 0 {
			prios = append(prios, p)
		}
	}
	return prios, yang
}

// A Map is a numbered map such as DSCP_TO_TC_MAP: from → to, with each
// entry's position; absent entries are -1.
type Map struct {
	Name string
	To   [64]int
	At   [64]Value
}

// NumMap returns the map named name of table (DSCP_TO_TC_MAP,
// TC_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP), and whether it exists.
func (db *ConfigDB) NumMap(table, name string) (*Map, bool) {
	row, ok := db.Tables[table][name]
	if !ok {
		return nil, false
	}
	m := &Map{Name: name}
	for i := range m.To {
		m.To[i] = -1
	}
	for k, v := range row {
		from, err1 := strconv.Atoi(k)
		to, err2 := strconv.Atoi(v.Text)
		if err1 == nil && err2 == nil && from >= 0 && from < 64 && to >= 0 && to < 16 {
			m.To[from], m.At[from] = to, v
		}
	}
	return m, true
}

// PortQoS is one PORT_QOS_MAP row.
type PortQoS struct {
	// Port is a port name, or "global".
	Port                        string
	DSCPToTC, TCToPG, TCToQueue Value
	PFCEnable                   []int
	PFCEnableAt                 Value
	HasPFCEnable                bool
	// PFCEnableOdd: pfc_enable is not the comma list of priorities 0-7
	// SONiC's YANG model takes ("3-4", "3;4", "3,4,"); PFCEnable is
	// what orchagent reads of it (PFCList).
	PFCEnableOdd bool
	// PFCWDSWEnable are the priorities pfcwd_sw_enable names: since
	// SONiC 202205 (sonic-swss #2171) the PFC watchdog watches these
	// alone, and none on a row without the field.
	PFCWDSWEnable []int
	PFCWDSWAt     Value
	HasPFCWDSW    bool
	Trust         Value // "trust" field where present
	// DOT1PToTC is dot1p_to_tc_map: the port classifies by the frame's
	// PCP where it names one.
	DOT1PToTC                    Value
	Scheduler, PFCToQueueMapName Value
	// PFCToPGMapName is pfc_to_pg_map: which priority group's fill sends
	// a pause of each priority.
	PFCToPGMapName Value
}

// PortQoSMaps returns the PORT_QOS_MAP rows, one per port (a row keyed by
// several ports gives one per port), in key order. A port channel a key
// names is left out: orchagent binds a row's maps and PFC to ports alone
// (lint's qos.ports.unbound judges such keys).
func (db *ConfigDB) PortQoSMaps() []PortQoS {
	t := db.Tables["PORT_QOS_MAP"]
	var out []PortQoS
	for _, k := range t.Keys() {
		row := t[k]
		base := PortQoS{DSCPToTC: row["dscp_to_tc_map"], TCToPG: row["tc_to_pg_map"], TCToQueue: row["tc_to_queue_map"],
			Trust: row["trust"], DOT1PToTC: row["dot1p_to_tc_map"], Scheduler: row["scheduler"], PFCToQueueMapName: row["pfc_to_queue_map"], PFCToPGMapName: row["pfc_to_pg_map"]}
		if v, ok := row["pfc_enable"]; ok {
			base.HasPFCEnable, base.PFCEnableAt = true, v
			var yang bool
			base.PFCEnable, yang = PFCList(v.Text)
			base.PFCEnableOdd = !yang
		}
		if v, ok := row["pfcwd_sw_enable"]; ok {
			base.HasPFCWDSW, base.PFCWDSWAt = true, v
			if v.Text != "" {
				base.PFCWDSWEnable, _ = Range(v.Text)
			}
		}
		for _, port := range strings.Split(k, ",") {
			if db.PortChannel(port) {
				continue
			}
			pq := base
			pq.Port = port
			out = append(out, pq)
		}
	}
	return out
}

// WRED is one WRED_PROFILE's green (ECN) thresholds.
type WRED struct {
	Name                 string
	MinAt, MaxAt, ProbAt Value
	ECN                  Value
	GreenEnable          Value
	// Min and Max are the green thresholds in bytes; Prob the green drop
	// (mark) probability in percent, SAI's default 100 when the row gives
	// none (orchagent then leaves SAI_WRED_ATTR_GREEN_DROP_PROBABILITY
	// unset), and Defaulted says so. OK is false when a threshold is
	// missing or a number malformed.
	Min, Max  int64
	Prob      int64
	Defaulted bool
	OK        bool
}

// WREDProfile returns the named WRED profile.
func (db *ConfigDB) WREDProfile(name string) (*WRED, bool) {
	row, ok := db.Tables["WRED_PROFILE"][name]
	if !ok {
		return nil, false
	}
	w := &WRED{Name: name, MinAt: row["green_min_threshold"], MaxAt: row["green_max_threshold"],
		ProbAt: row["green_drop_probability"], ECN: row["ecn"], GreenEnable: row["wred_green_enable"]}
	var e1, e2, e3 error
	w.Min, e1 = strconv.ParseInt(w.MinAt.Text, 10, 64)
	w.Max, e2 = strconv.ParseInt(w.MaxAt.Text, 10, 64)
	if w.ProbAt.Text == "" {
		w.Prob, w.Defaulted = 100, true
	} else {
		w.Prob, e3 = strconv.ParseInt(w.ProbAt.Text, 10, 64)
	}
	w.OK = e1 == nil && e2 == nil && e3 == nil
	return w, true
}

// A QueueRow is one QUEUE row: ports, queue numbers and what is attached.
type QueueRow struct {
	Key                    string
	Ports                  []string
	Queues                 []int
	WREDProfile, Scheduler Value
}

// Queues returns the QUEUE rows whose keys parse. On a VOQ chassis the
// keys name system ports, "HOST|ASIC|PORT|IDS", for every port of the
// chassis: the rows of this linecard's ASIC (DEVICE_METADATA|localhost
// hostname and asic_name) are its ports by their names; other linecards'
// rows are theirs to check and are left out. When the file does not say
// which ASIC it is (a rendered qos.json), each row keeps its system port
// name ("lc3|Asic0|Ethernet0"), which no other table of the file names.
func (db *ConfigDB) Queues() []QueueRow {
	t := db.Tables["QUEUE"]
	var out []QueueRow
	for _, k := range t.Keys() {
		if ports, ids, ok := db.rowKey(k); ok {
			out = append(out, QueueRow{Key: k, Ports: ports, Queues: ids, WREDProfile: t[k]["wred_profile"], Scheduler: t[k]["scheduler"]})
		}
	}
	return out
}

// rowKey splits a per-port key, "PORTS|IDS" or on a VOQ chassis
// "HOST|ASIC|PORT|IDS" (see Queues), into this config's ports and the ids;
// false for a key that does not parse or names another linecard's port.
func (db *ConfigDB) rowKey(k string) ([]string, []int, bool) {
	if ports, ids, ok := PortKey(k); ok {
		return ports, ids, true
	}
	sysPort, list := cutLast(k)
	h, a, port, isSys := systemPort(sysPort)
	ids, ok := Range(list)
	if !isSys || !ok {
		return nil, nil, false
	}
	host, hostOK := db.Field("DEVICE_METADATA", "localhost", "hostname")
	asic, _ := db.Field("DEVICE_METADATA", "localhost", "asic_name")
	switch {
	case !hostOK:
		return []string{sysPort}, ids, true
	case strings.EqualFold(h, host.Text) && (asic.Text == "" || strings.EqualFold(a, asic.Text)):
		return []string{port}, ids, true
	}
	return nil, nil, false
}

// cutLast splits s at its last '|'.
func cutLast(s string) (string, string) {
	i := strings.LastIndexByte(s, '|')
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

// systemPort splits a VOQ system port name, "HOST|ASIC|PORT".
func systemPort(s string) (host, asic, port string, ok bool) {
	parts := strings.Split(s, "|")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// BufferProfile is one BUFFER_PROFILE row; numbers are -1 when absent.
type BufferProfile struct {
	Name                               string
	Pool                               Value
	Size, Xon, Xoff, DynamicTh, Static int64
	SizeAt, XoffAt, DynamicThAt        Value
	// HeadroomType is "dynamic" for a lossless profile of the dynamic
	// buffer model whose headroom buffermgrd computes (no xoff written:
	// `config buffer profile add NAME --dynamic_th N`).
	HeadroomType Value
}

// KeepsHeadroom reports whether the profile reserves PFC headroom: an
// xoff, or headroom the dynamic buffer model computes.
func (p *BufferProfile) KeepsHeadroom() bool {
	return p.Xoff > 0 || strings.EqualFold(strings.TrimSpace(p.HeadroomType.Text), "dynamic")
}

// Profile returns the named BUFFER_PROFILE.
func (db *ConfigDB) Profile(name string) (*BufferProfile, bool) {
	row, ok := db.Tables["BUFFER_PROFILE"][name]
	if !ok {
		return nil, false
	}
	num := func(f string) int64 {
		v, ok := row[f]
		if !ok {
			return -1
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	return &BufferProfile{Name: name, Pool: row["pool"], Size: num("size"), Xon: num("xon"), Xoff: num("xoff"),
		DynamicTh: num("dynamic_th"), Static: num("static_th"), SizeAt: row["size"], XoffAt: row["xoff"], DynamicThAt: row["dynamic_th"], HeadroomType: row["headroom_type"]}, true
}

// A PGRow is one BUFFER_PG row.
type PGRow struct {
	Key     string
	Ports   []string
	PGs     []int
	Profile Value
}

// PGs returns the BUFFER_PG rows whose keys parse (system port keys as
// Queues reads them).
func (db *ConfigDB) PGs() []PGRow {
	t := db.Tables["BUFFER_PG"]
	var out []PGRow
	for _, k := range t.Keys() {
		if ports, ids, ok := db.rowKey(k); ok {
			out = append(out, PGRow{Key: k, Ports: ports, PGs: ids, Profile: t[k]["profile"]})
		}
	}
	return out
}

// QueueProfile returns the profile field of the BUFFER_QUEUE row that
// holds the port's queue (the last in key order, as rows are applied).
func (db *ConfigDB) QueueProfile(port string, queue int) (Value, bool) {
	t := db.Tables["BUFFER_QUEUE"]
	var at Value
	found := false
	for _, k := range t.Keys() {
		if ports, ids, ok := db.rowKey(k); ok && slices.Contains(ports, port) && slices.Contains(ids, queue) {
			at, found = t[k]["profile"], true
		}
	}
	return at, found
}

// PoolSize returns a BUFFER_POOL's size in bytes (spaces around the
// number, as a hand edit leaves them, are not part of it).
func (db *ConfigDB) PoolSize(name string) (int64, Value, bool) {
	v, ok := db.Tables["BUFFER_POOL"][name]["size"]
	if !ok {
		return 0, v, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64)
	return n, v, err == nil
}

// Watchdog is one PFC_WD row.
type Watchdog struct {
	Port                                 string
	Detection, Restoration               int64 // ms; -1 when absent
	DetectionAt, RestorationAt, ActionAt Value
}

// Watchdogs returns the PFC_WD rows other than GLOBAL, one per port.
func (db *ConfigDB) Watchdogs() []Watchdog {
	t := db.Tables["PFC_WD"]
	var out []Watchdog
	for _, k := range t.Keys() {
		if k == "GLOBAL" {
			continue
		}
		row := t[k]
		ms := func(f string) int64 {
			n, err := strconv.ParseInt(row[f].Text, 10, 64)
			if err != nil {
				return -1
			}
			return n
		}
		for _, port := range strings.Split(k, ",") {
			out = append(out, Watchdog{Port: port, Detection: ms("detection_time"), Restoration: ms("restoration_time"),
				DetectionAt: row["detection_time"], RestorationAt: row["restoration_time"], ActionAt: row["action"]})
		}
	}
	return out
}

// Field returns a row's field.
func (db *ConfigDB) Field(table, key, field string) (Value, bool) {
	v, ok := db.Tables[table][key][field]
	return v, ok
}

// CableEntry returns a port's CABLE_LENGTH entry, parsable or not.
func (db *ConfigDB) CableEntry(port string) (Value, bool) {
	for _, k := range db.Tables["CABLE_LENGTH"].Keys() {
		if v, ok := db.Tables["CABLE_LENGTH"][k][port]; ok {
			return v, true
		}
	}
	return Value{}, false
}

// CableLength returns the CABLE_LENGTH of a port in metres. ok is false
// when the port has no entry (CableEntry tells that apart) or one that is
// not a number of metres written as SONiC's YANG model wants it, "40m":
// buffermgrd looks the length up as written among pg_profile_lookup.ini's
// rows ("40m"), so "40" or "300 m" match none and get no profile.
func (db *ConfigDB) CableLength(port string) (float64, Value, bool) {
	v, ok := db.CableEntry(port)
	num, metres := strings.CutSuffix(v.Text, "m")
	m, err := strconv.ParseFloat(num, 64)
	return m, v, ok && metres && err == nil
}

// LossyDesign is what makes a config lossy on purpose rather than by a
// missing field: no port's pfc_enable names a priority, and no priority
// group set apart for lossless traffic.
type LossyDesign struct {
	// PFCEnableAt is the first port's empty pfc_enable, or, where no row
	// writes the field (PFCEnableAbsent), the first row's key.
	PFCEnableAt     Value
	PFCEnableAbsent bool
	// PFCEnableMixed: some rows write pfc_enable empty, others omit it.
	PFCEnableMixed bool
	// OnePG is the TC_TO_PRIORITY_GROUP_MAP entry of a map that sends
	// every class to one priority group, when that is the evidence.
	OnePG Value
	// OneClass is the DSCP_TO_TC_MAP entry of a map that sends all 64
	// DSCP values to one class, when that is the evidence.
	OneClass Value
	// NoXoffAt is the BUFFER_PROFILE table, none of whose profiles has
	// xoff (PFC headroom), when that is the evidence.
	NoXoffAt Value
	// RoCEMode is an NVUE configuration's lossy `qos roce mode`, when
	// that is the evidence.
	RoCEMode Value
	// NoPFCWritten is a switch OS's configuration (EOS, NX-OS, OS10,
	// FTOS, AOS-CX, Onyx, Junos) none of whose lines turns PFC on or
	// declares a class lossless, when that is the evidence: a design
	// only where ECN marks RoCE's queue, which lint judges.
	NoPFCWritten bool
}

// OnePG reports whether TC_TO_PRIORITY_GROUP_MAP name sends every class
// it maps (two at least) to one priority group, with its first entry.
func (db *ConfigDB) OnePG(name string) (Value, bool) {
	return db.allToOne("TC_TO_PRIORITY_GROUP_MAP", name, 8, 2)
}

// OneClass reports whether DSCP_TO_TC_MAP name maps all 64 DSCP values,
// each to the same class, with its first entry: no DSCP can be told from
// another, so no class can be kept lossless apart from the rest (Marvell
// Teralynx SKUs' qos_defaults_def_lossy.j2 write all 64 to class 0).
func (db *ConfigDB) OneClass(name string) (Value, bool) {
	return db.allToOne("DSCP_TO_TC_MAP", name, 64, 64)
}

// allToOne reports whether the numbered map name of table sends every
// entry among its first n, and at least least of them, to one value, with
// its first entry.
func (db *ConfigDB) allToOne(table, name string, n, least int) (Value, bool) {
	m, ok := db.NumMap(table, name)
	if !ok {
		return Value{}, false
	}
	to, count := -1, 0
	var at Value
	for from := range n {
		if m.To[from] < 0 {
			continue
		}
		if to >= 0 && m.To[from] != to {
			return Value{}, false
		}
		if count == 0 {
			at = m.At[from]
		}
		to, count = m.To[from], count+1
	}
	return at, count >= least
}

// firstIfEvery returns what one says of the first of a table's maps when
// it says it of every one of them (each sends all to one priority group,
// or to one class), else nothing.
func firstIfEvery(names []string, one func(string) (Value, bool)) Value {
	var first Value
	for i, name := range names {
		at, ok := one(name)
		if !ok {
			return Value{}
		}
		if i == 0 {
			first = at
		}
	}
	return first
}

// LossyByDesign reports a config that runs every class lossy on purpose,
// as NVIDIA's Spectrum-X AI SKUs ship (sonic-buildimage's SN5600 C256S1,
// SN5640 C512S2: pfc_enable present and empty on every port) and SKUs
// whose qos.json.j2 writes no pfc_enable at all (Nexthop NH-4010, Dell
// S5232F-P: orchagent then enables PFC on no priority), with either a
// TC_TO_PRIORITY_GROUP_MAP that sends every class to one priority group,
// a DSCP_TO_TC_MAP that sends every DSCP to one class (Marvell Teralynx
// qos_defaults_def_lossy.j2), or buffer profiles none of which has xoff (rows without pfc_enable
// beside a profile with xoff forgot the field: lint's qos.pfc.disabled);
// or, for a switch OS's configuration read whole, no line naming PFC or a
// lossless class.
func (db *ConfigDB) LossyByDesign() (LossyDesign, bool) {
	var d LossyDesign
	if db.lossyMode.Line > 0 {
		return LossyDesign{PFCEnableAt: db.lossyMode, RoCEMode: db.lossyMode}, true
	}
	ports, written := 0, false
	for _, k := range db.Tables["PORT_QOS_MAP"].Keys() {
		if k == "global" {
			continue
		}
		v, has := db.Tables["PORT_QOS_MAP"][k]["pfc_enable"]
		if has && strings.TrimSpace(v.Text) != "" || !has && db.Vendor != "" {
			// Another OS's reader writes pfc_enable where it read PFC.
			return LossyDesign{}, false
		}
		if !has {
			v, _ = db.KeyPos("PORT_QOS_MAP|" + k)
		}
		if has && !written || ports == 0 {
			d.PFCEnableAt = v
		}
		d.PFCEnableMixed = d.PFCEnableMixed || ports > 0 && has != written
		written = written || has
		ports++
	}
	if ports == 0 {
		return LossyDesign{}, false
	}
	d.PFCEnableAbsent = !written
	if db.noPFC && !db.excerpt.Given() {
		d.NoPFCWritten = true
		return d, true
	}
	d.OnePG = firstIfEvery(db.Tables["TC_TO_PRIORITY_GROUP_MAP"].Keys(), db.OnePG)
	// A one-class DSCP map is evidence in SONiC's own config only (another
	// OS's reader writes the map from that OS's defaults), and only where
	// no profile keeps xoff: headroom kept says a lossless class was meant.
	if db.Vendor == "" && !db.keepsXoff() {
		d.OneClass = firstIfEvery(db.Tables["DSCP_TO_TC_MAP"].Keys(), db.OneClass)
	}
	if profiles := db.Tables["BUFFER_PROFILE"]; len(profiles) > 0 {
		if !db.keepsXoff() {
			d.NoXoffAt, _ = db.TablePos("BUFFER_PROFILE")
		}
	} else if at, written := db.TablePos("BUFFER_PROFILE"); written && !db.runtimeProfiles() {
		// A BUFFER_PROFILE table written empty (Dell Z9432F's
		// buffers.json.j2 writes BUFFER_POOL, BUFFER_PROFILE and BUFFER_PG
		// as {}) keeps no headroom either, unless buffermgrd computes the
		// lossless profiles at run time (the dynamic buffer model or a
		// BUFFER_PG row naming profile NULL) and never writes them to
		// config_db; an absent table (qos.json alone) says nothing.
		d.NoXoffAt = at
	}
	return d, d.OnePG.Line > 0 || d.OneClass.Line > 0 || d.NoXoffAt.Line > 0
}

// keepsXoff reports whether some BUFFER_PROFILE keeps PFC headroom.
func (db *ConfigDB) keepsXoff() bool {
	return slices.ContainsFunc(db.Tables["BUFFER_PROFILE"].Keys(), func(name string) bool {
		p, ok := db.Profile(name)
		return ok && p.KeepsHeadroom()
	})
}

// runtimeProfiles reports whether buffermgrd computes lossless profiles
// that config_db never holds: DEVICE_METADATA|localhost buffer_model
// dynamic, or a BUFFER_PG row naming profile NULL (buffermgrdyn.cpp).
func (db *ConfigDB) runtimeProfiles() bool {
	if _, _, dynamic := db.dynamicModel(); dynamic {
		return true
	}
	return slices.ContainsFunc(db.PGs(), func(r PGRow) bool { return strings.EqualFold(strings.TrimSpace(r.Profile.Text), "NULL") })
}

// dynamicModel returns DEVICE_METADATA|localhost's buffer_model field,
// whether the config writes it, and whether it names the dynamic buffer
// model.
func (db *ConfigDB) dynamicModel() (model Value, stated, dynamic bool) {
	model, stated = db.Field("DEVICE_METADATA", "localhost", "buffer_model")
	return model, stated, strings.EqualFold(strings.TrimSpace(model.Text), "dynamic")
}

// Spectrum reports whether DEVICE_METADATA names an NVIDIA
// Spectrum platform (x86_64-mlnx_msn2700-r0, x86_64-nvidia_sn5600-r0, or a
// Mellanox or ACS hwsku), whose SAI marks ECN-capable packets under the
// WRED profile's ECN mode whether or not WRED drops are enabled for their
// colour: Mellanox's SAI change "allow enabling of ECN without WRED"
// (opencomputeproject/SAI#112), as NVIDIA's Spectrum-X SKUs use it
// (wred_*_enable false, ecn ecn_all).
func (db *ConfigDB) Spectrum() bool {
	if db.Vendor == VendorCumulus {
		// Cumulus Linux 5 runs on NVIDIA Spectrum switches only.
		return true
	}
	if p, ok := db.Field("DEVICE_METADATA", "localhost", "platform"); ok {
		t := strings.ToLower(p.Text)
		if strings.Contains(t, "mlnx_") || strings.Contains(t, "nvidia_sn") {
			return true
		}
	}
	if h, ok := db.Field("DEVICE_METADATA", "localhost", "hwsku"); ok {
		t := strings.ToLower(h.Text)
		return strings.HasPrefix(t, "mellanox-") || strings.HasPrefix(t, "acs-msn") || strings.HasPrefix(t, "acs-sn")
	}
	return false
}

// Tofino reports whether DEVICE_METADATA names a Barefoot Tofino platform
// (sonic-buildimage's device/barefoot and the Arista 7170), by its platform
// or its hwsku (montara and mavericks, the Wedge 100BF-32X and -65X;
// newport, the AS9516-32D; Arista-7170-*), whose stock lossless
// priority-group profiles run dynamic_th 7.
func (db *ConfigDB) Tofino() bool {
	if p, ok := db.Field("DEVICE_METADATA", "localhost", "platform"); ok {
		t := strings.ToLower(p.Text)
		for _, s := range []string{"as9516", "wedge100bf", "arista_7170"} {
			if strings.Contains(t, s) {
				return true
			}
		}
	}
	if h, ok := db.Field("DEVICE_METADATA", "localhost", "hwsku"); ok {
		t := strings.ToLower(strings.TrimSpace(h.Text))
		for _, s := range []string{"montara", "mavericks", "newport"} {
			if t == s || strings.HasPrefix(t, s+"-") || strings.HasPrefix(t, s+"_") {
				return true
			}
		}
		return strings.HasPrefix(t, "arista-7170")
	}
	return false
}
