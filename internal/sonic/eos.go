package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/eos"
	"rocelab/internal/textout"
)

// VendorEOS marks a ConfigDB made from an Arista EOS configuration.
const VendorEOS = "arista-eos"

// FromEOS writes what an EOS configuration says of QoS as the CONFIG_DB
// rows lint judges a SONiC switch by, each value at its place in the EOS
// text (EOS's defaults at none):
//
//   - Only interfaces that set QoS (trust, PFC, a transmit queue, a
//     service-profile) get rows: a running-config lists every port, and
//     one left at EOS's defaults runs no PFC by design, not by mistake.
//   - A port's settings are its own, else its service-profile's; a port
//     whose service-profile the input does not hold is not judged, but a
//     Port-Channel member that takes it from its Port-Channel is judged on
//     its own lines (the profile named).
//   - DSCP_TO_TC_MAP is EOS's DSCP map (eos.DefaultDSCPTC with the `qos
//     map dscp` lines) on a port that trusts DSCP (`qos trust dscp`, or a
//     routed port without a trust line). A port that trusts CoS has no
//     DSCP map: its class is the 802.1p priority of the frame, which the
//     rules judge by the NICs' priority, as for a PORT_QOS_MAP without a
//     map. An untrusted port (`no qos trust`) puts every DSCP in the class
//     of its `qos cos` (0 when not written).
//   - pfc_enable is the no-drop priorities under `priority-flow-control
//     on`, and empty without it (EOS pauses no priority then, and a port
//     that mentions no PFC runs none), written at the no-drop line: EOS
//     pauses priority p for traffic class p. A global `priority-flow-control
//     all off` turns PFC off on every port: pfc_enable is empty, at it.
//   - A transmit queue's `random-detect ecn` is a WRED_PROFILE with ecn
//     ecn_all; `random-detect drop` alone, ecn_none (it drops RoCE).
//   - PORT speed and mtu come from the interface.
//   - A Port-Channel's members take what it writes (eos reads so) and are
//     judged; the Port-Channel itself is not a port of its own.
func FromEOS(c *eos.Config) *ConfigDB {
	db := newDB(c.File, "")
	db.lines, db.Vendor, db.pfcAllOff = c.Lines, VendorEOS, c.PFCAllOff
	var tcQueue string
	if len(c.TCQueue) > 0 {
		tcQueue = "qos map traffic-class"
		m := map[string]Value{}
		for tc := range 8 {
			v := Value{Text: strconv.Itoa(tc)}
			if q, ok := c.TCQueue[tc]; ok {
				v = q
			}
			m[strconv.Itoa(tc)] = v
		}
		db.table("TC_TO_QUEUE_MAP")[tcQueue] = m
	}
	e := eosDB{db: db, c: c, tcQueue: tcQueue, skipped: map[string]bool{}}
	taken := map[string]bool{}
	for _, it := range c.Interfaces {
		taken[it.Profile.Text] = true
	}
	orphan := orphanPFC(c, taken)
	// cut: a service-profile or Port-Channel the input does not hold may
	// set ECN (`tx-queue 3` `random-detect ecn` in the profile).
	cut := false
	for _, it := range c.Interfaces {
		cut = cut || it.ChannelMissing || it.Profile.Given() && c.Profiles[it.Profile.Text] == nil
	}
	for _, it := range c.Interfaces {
		if len(it.Members) > 0 {
			continue // judged on its members, which take what it writes
		}
		s := it.Settings
		if p, ok := c.Profiles[it.Profile.Text]; ok {
			s = merge(s, p.Settings)
		} else if it.Profile.Given() {
			// The profile is not in the input (a cut of the config): what
			// it sets is not known. A port is not judged; a member that
			// takes it from its Port-Channel is judged on its own lines
			// (EOS sets PFC on the member), with the profile named.
			missing := Value{Text: "service-profile " + it.Profile.Text + " (not in the input)", Line: it.Profile.Line, Col: it.Profile.Col}
			pc := it.PortChannel
			if pc == nil || pc.Profile != it.Profile || bare(s) {
				e.skip(missing)
				db.PortsSkipped = true
				continue
			}
			missing.Text = "service-profile " + it.Profile.Text + " of " + pc.Name + " (not in the input: what it sets is not known; its members' own lines are judged)"
			e.skip(missing)
		}
		if bare(s) && !it.Profile.Given() {
			if orphan != nil && (strings.HasPrefix(it.Name, "Ethernet") || strings.HasPrefix(it.Name, "Port-Channel")) {
				e.port(it, s)
				pfc := db.table("PORT_QOS_MAP")[it.Name]["pfc_enable"]
				pfc.Line, pfc.Col = orphan.At.Line, orphan.At.Col
				db.table("PORT_QOS_MAP")[it.Name]["pfc_enable"] = pfc
			}
			continue
		}
		e.port(it, s)
	}
	// A qos profile no interface takes: in a cut without interfaces it is
	// judged as a port that takes it; beside interfaces, it is on no port,
	// which is named first among the settings not judged.
	var unused []Value
	for _, n := range slices.Sorted(maps.Keys(c.Profiles)) {
		p := c.Profiles[n]
		switch {
		case taken[n]:
		case len(c.Interfaces) == 0:
			if bare(p.Settings) {
				continue
			}
			e.skip(Value{Text: "the interfaces that take qos profile " + n + " (not in the input; taken as applied)", Line: p.At.Line, Col: p.At.Col})
			e.port(&eos.Interface{Name: "qos profile " + n, At: p.At, Profile: p.At}, p.Settings)
		default:
			unused = append(unused, Value{Text: "qos profile " + n + " (no service-profile in the input takes it: on no port)", Line: p.At.Line, Col: p.At.Col})
		}
	}
	db.nosECN(cut, ecnWords...)
	db.nosPFC(false)
	db.nosDone(c.NotJudged)
	db.Skipped = append(unused, db.Skipped...)
	return db
}

// orphanPFC is the qos profile that turns PFC on for a priority when no
// interface takes it and no interface runs PFC by itself or through
// another profile: the configuration means a lossless class and puts it
// nowhere, so its Ethernet and Port-Channel interfaces left at EOS's
// defaults are judged (PFC off, at the profile's name) instead of taken
// as lossy by design. Nil otherwise.
func orphanPFC(c *eos.Config, taken map[string]bool) *eos.Profile {
	runs := func(s eos.Settings) bool { return s.PFC.Text == "on" && len(s.Prios) > 0 }
	for _, it := range c.Interfaces {
		s := it.Settings
		if p, ok := c.Profiles[it.Profile.Text]; ok {
			s = merge(s, p.Settings)
		}
		if runs(s) {
			return nil
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Profiles)) {
		if p := c.Profiles[n]; !taken[n] && runs(p.Settings) {
			return p
		}
	}
	return nil
}

// eosDB writes an EOS configuration's ports into db.
type eosDB struct {
	db      *ConfigDB
	c       *eos.Config
	tcQueue string
	skipped map[string]bool
}

// skip names v among the settings not judged, once.
func (e eosDB) skip(v Value) {
	if !e.skipped[v.Text] {
		e.skipped[v.Text] = true
		e.db.Skipped = append(e.db.Skipped, v)
	}
}

// cosTC is the traffic class of a CoS, at its `qos map cos` line (none:
// EOS's default).
func (e eosDB) cosTC(cos int) (int, Value) {
	if v, ok := e.c.CoS[cos]; ok {
		n, _ := strconv.Atoi(v.Text)
		return n, v
	}
	return eos.DefaultCoSTC(cos), Value{}
}

// EOSDSCPMap is the DSCP_TO_TC_MAP of EOS's `qos map dscp` lines over its
// default map: the classes of the ports that trust DSCP.
const EOSDSCPMap = "qos map dscp"

// dscpMap writes EOSDSCPMap once and returns its name.
func (e eosDB) dscpMap() string {
	if e.db.table("DSCP_TO_TC_MAP")[EOSDSCPMap] == nil {
		m := map[string]Value{}
		for d := range 64 {
			v := Value{Text: strconv.Itoa(eos.DefaultDSCPTC(d))}
			if w, ok := e.c.DSCP[d]; ok {
				v = w
			}
			m[strconv.Itoa(d)] = v
		}
		e.db.table("DSCP_TO_TC_MAP")[EOSDSCPMap] = m
	}
	return EOSDSCPMap
}

// port writes an interface's rows with the settings s it runs.
func (e eosDB) port(it *eos.Interface, s eos.Settings) {
	row := map[string]Value{}
	trust := s.Trust.Text
	if trust == "" {
		trust = "cos"
		if it.Routed {
			trust = "dscp"
		}
	}
	switch {
	case it.ChannelMissing:
		// A member of a Port-Channel the input does not hold: the trust
		// it takes is not known (named by eos), so no class is judged.
	case trust == "dscp":
		row["dscp_to_tc_map"] = Value{Text: e.dscpMap(), Line: s.Trust.Line, Col: s.Trust.Col}
	case trust == "none":
		if len(e.c.DSCP) > 0 {
			// The map the port would take trusting DSCP, for the fix
			// that says so.
			e.dscpMap()
		}
		cos, at := 0, s.Trust
		if s.DefaultCoS.Given() {
			cos, _ = strconv.Atoi(s.DefaultCoS.Text)
			at = s.DefaultCoS
		}
		tc, tcAt := e.cosTC(cos)
		if tcAt.Line == 0 {
			tcAt = at
		}
		tcAt.Text = strconv.Itoa(tc)
		name := fmt.Sprintf("no qos trust, qos cos %d", cos)
		m := map[string]Value{}
		for d := range 64 {
			m[strconv.Itoa(d)] = tcAt
		}
		e.db.table("DSCP_TO_TC_MAP")[name] = m
		row["dscp_to_tc_map"] = Value{Text: name, Line: s.Trust.Line, Col: s.Trust.Col}
	}
	// PFC: the no-drop priorities when it is on; else none, at the
	// line that leaves it off (the interface's head when nothing
	// mentions PFC).
	pfc := it.At
	if s.PFC.Given() {
		pfc = s.PFC
	}
	prios := slices.Sorted(maps.Keys(s.Prios))
	if len(prios) > 0 {
		pfc = s.Prios[prios[0]]
	}
	pfc.Text = ""
	switch {
	case s.PFC.Text == "on" && len(prios) > 0 && e.c.PFCAllOff.Given():
		pfc = e.c.PFCAllOff
		pfc.Text = ""
	case s.PFC.Text == "on":
		pfc.Text = textout.Ints(prios)
	}
	row["pfc_enable"] = pfc
	if e.tcQueue != "" {
		row["tc_to_queue_map"] = Value{Text: e.tcQueue}
	}
	e.db.table("PORT_QOS_MAP")[it.Name] = row
	for _, n := range slices.Sorted(maps.Keys(s.Queues)) {
		q := s.Queues[n]
		r := q.ECN
		if r == nil {
			r = q.WRED
		}
		if r == nil {
			continue
		}
		owner := "interface " + it.Name
		if _, own := it.Queues[n]; !own {
			owner = "qos profile " + it.Profile.Text
		}
		name := fmt.Sprintf("%s %s %d random-detect %s", owner, q.At.Text, n, r.At.Text)
		if r.Unit != "" {
			e.skip(Value{Text: fmt.Sprintf("%s (thresholds in %s)", name, r.Unit), Line: r.At.Line, Col: r.At.Col})
		}
		e.db.nosRED(it.Name, n, name, r)
	}
	e.db.nosPort(it.Name, it.Speed, it.MTU)
}

// bare reports whether s sets none of trust, PFC, PFC priorities and
// transmit queues: nothing a port is judged on.
func bare(s eos.Settings) bool {
	return !s.Trust.Given() && !s.PFC.Given() && len(s.Prios) == 0 && len(s.Queues) == 0
}

// merge is an interface's settings over its service-profile's: what the
// interface writes wins, setting by setting (a transmit queue as a whole).
func merge(own, profile eos.Settings) eos.Settings {
	out := profile
	if own.Trust.Given() {
		out.Trust = own.Trust
	}
	if own.DefaultCoS.Given() {
		out.DefaultCoS = own.DefaultCoS
	}
	if own.PFC.Given() {
		out.PFC = own.PFC
	}
	if len(own.Prios) > 0 {
		out.Prios = own.Prios
	}
	out.Queues = maps.Clone(profile.Queues)
	maps.Copy(out.Queues, own.Queues)
	return out
}
