package lint

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/fabric"
	"rocelab/internal/ingest"
	"rocelab/internal/scenario"
	"rocelab/internal/sonic"
)

// Evidence is an input line a finding rests on.
type Evidence = ingest.Evidence

// Model is everything read, and the RoCE class joined across it.
type Model struct {
	// Desc is the cluster description, if one was given.
	Desc      *scenario.Scenario
	descLines []string
	// Sonic are the SONiC config_db files.
	Sonic []*sonic.ConfigDB
	// Artifacts are the NIC-side configs read as text.
	Artifacts []ingest.Artifact

	// Joined by join.
	roce  roceClass
	nccl  []ingest.NCCLSetting
	nics  []nicSide
	sws   []switchSide
	cnp   cnpMarking
	masks []ccMask
}

// roceClass is the DSCP RoCE data is marked with, and where that is said.
type roceClass struct {
	DSCP int
	// From names the source: "NCCL_IB_TC=106", "host.dscp", an
	// inference from a lossless map, or an assumption.
	From     string
	Evidence []Evidence
	// Assumed is set when nothing given states or implies it.
	Assumed bool
}

// nicSide is what one NIC-side source says about the RoCE class.
type nicSide struct {
	Name string
	// Prio is the priority RoCE of roce.DSCP is sent on; -1 unknown.
	Prio   int
	PrioEv []Evidence
	// PFC are the priorities PFC is on; nil with PFCKnown false when
	// the source does not say.
	PFC      []int
	PFCKnown bool
	PFCEv    Evidence
}

// switchSide is what one switch-side source says about the RoCE class.
type switchSide struct {
	Name string
	// TC is the class the switch puts roce.DSCP into; -1 unknown.
	TC   int
	TCEv Evidence
	// Lossless are the PFC priorities; LosslessKnown false when unsaid.
	Lossless      []int
	LosslessKnown bool
	LosslessEv    Evidence
	// DSCPToTC maps any DSCP (for CNPs); -1 unmapped.
	DSCPToTC func(d int) (int, Evidence, bool)
	// Strict reports whether a class is served strictly, when known.
	Strict func(tc int) (bool, Evidence, bool)
	// DB is the SONiC config the side comes from; nil for a description.
	DB *sonic.ConfigDB
	// Port is the side's first port in DB.
	Port string
}

// cnpMarking is how the NICs mark CNPs.
type cnpMarking struct {
	DSCP, Prio     int
	DSCPEv, PrioEv Evidence
	Given          bool
}

// ccMask is a set of priorities DCQCN acts on, from firmware or sysfs.
type ccMask struct {
	Name     string
	Mask     uint8
	Evidence Evidence
	What     string // "ROCE_CC_PRIO_MASK" or "roce_rp/enable"
	// Device is the mlxconfig device, when the mask comes from mlxconfig.
	Device string
}

// at returns the evidence for a description key path: its line, or a note
// that the default applies.
func (m *Model) at(path, def string) Evidence {
	if m.Desc == nil {
		return Evidence{}
	}
	p, ok := m.Desc.Where[path]
	if !ok {
		// A mapping (topology.host_link): its first key given.
		for k, q := range m.Desc.Where {
			if strings.HasPrefix(k, path+".") && (!ok || q.Line < p.Line) {
				p, ok = q, true
			}
		}
	}
	if ok && p.Line > 0 && p.Line <= len(m.descLines) {
		return Evidence{File: m.Desc.File, Line: p.Line, Text: strings.TrimSpace(m.descLines[p.Line-1])}
	}
	return Evidence{File: m.Desc.File, Text: fmt.Sprintf("%s not given: %s", path, def)}
}

// lineEv is the evidence for line n of the description.
func (m *Model) lineEv(n int) Evidence {
	if n < 1 || n > len(m.descLines) {
		return Evidence{File: m.Desc.File}
	}
	return Evidence{File: m.Desc.File, Line: n, Text: strings.TrimSpace(m.descLines[n-1])}
}

// setting returns the description's setting named name (host.firmware,
// host.dcqcn), with the evidence of its line.
func (m *Model) descSetting(list []scenario.Setting, names ...string) (scenario.Setting, Evidence, bool) {
	for _, x := range list {
		for _, n := range names {
			if x.Name == n {
				return x, m.lineEv(x.Line), true
			}
		}
	}
	return scenario.Setting{}, Evidence{}, false
}

// given reports whether the description sets path.
func (m *Model) given(path string) bool {
	if m.Desc == nil {
		return false
	}
	_, ok := m.Desc.Where[path]
	return ok
}

// sonicEv returns the evidence for a config_db value.
func sonicEv(db *sonic.ConfigDB, v sonic.Value) Evidence {
	if v.Line == 0 {
		return Evidence{File: db.Source()}
	}
	return Evidence{File: db.Source(), Line: v.Line, Text: db.LineText(v.Line)}
}

// join builds the RoCE class and the NIC and switch sides.
func (m *Model) join() {
	if d := m.Desc; d != nil {
		for _, x := range d.NCCL {
			m.nccl = append(m.nccl, ingest.NCCLSetting{Name: x.Name, Value: x.Value, Evidence: m.lineEv(x.Line)})
		}
	}
	for _, a := range m.Artifacts {
		if e, ok := a.(*ingest.NCCLSettings); ok {
			m.nccl = append(m.nccl, e.Settings...)
		}
	}
	m.roce = m.roceDSCP()
	m.nics = m.nicSides()
	m.sws = m.switchSides()
	m.cnp = m.cnpMarking()
	m.masks = m.ccMasks()
}

// setting returns the last value given to an NCCL variable.
func (m *Model) setting(name string) (ingest.NCCLSetting, bool) {
	var s ingest.NCCLSetting
	found := false
	for _, x := range m.nccl {
		if x.Name == name {
			s, found = x, true
		}
	}
	return s, found
}

// ncclInt returns an NCCL variable's value as a number (decimal or 0x).
func ncclInt(s ingest.NCCLSetting) (int64, bool) {
	n, err := strconv.ParseInt(s.Value, 0, 64)
	return n, err == nil
}

// roceDSCP finds the DSCP RoCE data carries: NCCL_IB_TC when set, the
// description's host.dscp, NCCL's default 0 when an env file leaves
// NCCL_IB_TC unset; else it is inferred from a SONiC config's lossless
// map (the lowest DSCP mapped to a class with PFC on), and only without
// any of these assumed to be 26 (NCCL_IB_TC=106). From says which.
func (m *Model) roceDSCP() roceClass {
	if s, ok := m.setting("NCCL_IB_TC"); ok {
		if tc, ok := ncclInt(s); ok && tc >= 0 && tc <= 255 {
			return roceClass{DSCP: int(tc) >> 2, From: "NCCL_IB_TC=" + s.Value, Evidence: []Evidence{s.Evidence}}
		}
	}
	if m.Desc != nil {
		return roceClass{DSCP: int(m.Desc.Host.DSCP), From: "host.dscp", Evidence: []Evidence{m.at("host.dscp", "26 (TOS 106)")}}
	}
	if len(m.nccl) > 0 {
		// NCCL's default traffic class is 0 when NCCL_IB_TC is unset.
		return roceClass{DSCP: 0, From: "NCCL_IB_TC unset (NCCL uses traffic class 0)"}
	}
	// Nothing states it: infer it from what the configs keep lossless. A
	// DSCP lossless on both the NICs and the switches is RoCE's; when the
	// NICs are given, one they keep lossless (26 when it is one of them:
	// NCCL_IB_TC=106 is the usual marking), so that a switch that does
	// not is reported; a switch config alone gives its own lossless DSCP.
	nicDSCPs, nicEv := m.nicLosslessDSCPs()
	for _, db := range m.Sonic {
		if r, ok := losslessDSCP(db, nicDSCPs); ok {
			return r
		}
	}
	if len(nicDSCPs) > 0 {
		d := nicDSCPs[0]
		if containsInt(nicDSCPs, ingest.RoCEDSCP) {
			d = ingest.RoCEDSCP
		}
		return roceClass{DSCP: d, Evidence: nicEv, From: fmt.Sprintf("inferred from the NICs' mlnx_qos: a DSCP they keep lossless (%d–%d)", nicDSCPs[0], nicDSCPs[len(nicDSCPs)-1])}
	}
	for _, db := range m.Sonic {
		if r, ok := losslessDSCP(db, nil); ok {
			return r
		}
	}
	return roceClass{DSCP: ingest.RoCEDSCP, From: "assumed DSCP 26 (NCCL_IB_TC=106, the usual marking; nothing given states RoCE's DSCP)", Assumed: true}
}

// losslessDSCP infers RoCE's DSCP from a SONiC config: the lowest DSCP
// that every port with PFC maps to a class PFC protects on it (SONiC's
// stock maps put DSCP 3 and 4 in the lossless classes 3 and 4), else the
// one that does so on the most ports.
func losslessDSCP(db *sonic.ConfigDB, among []int) (roceClass, bool) {
	var global sonic.PortQoS
	for _, pq := range db.PortQoSMaps() {
		if pq.Port == "global" {
			global = pq
		}
	}
	var ports [64]int
	var first [64]roceClass
	n := 0
	for _, pq := range db.PortQoSMaps() {
		if pq.Port == "global" || len(pq.PFCEnable) == 0 {
			continue
		}
		mapName := pq.DSCPToTC
		if mapName.Text == "" {
			mapName = global.DSCPToTC
		}
		mp, ok := db.NumMap("DSCP_TO_TC_MAP", mapName.Text)
		if !ok {
			continue
		}
		n++
		for d := range 64 {
			if mp.To[d] < 0 || !containsInt(pq.PFCEnable, mp.To[d]) || among != nil && !containsInt(among, d) {
				continue
			}
			if ports[d] == 0 {
				first[d] = roceClass{DSCP: d, Evidence: []Evidence{sonicEv(db, mp.At[d]), sonicEv(db, pq.PFCEnableAt)},
					From: fmt.Sprintf("inferred from %s: the lowest DSCP its map %s sends to a lossless class (TC %d, pfc_enable %s)", db.File, mapName.Text, mp.To[d], pq.PFCEnableAt.Text)}
			}
			ports[d]++
		}
	}
	best := -1
	for d := range 64 {
		if ports[d] > 0 && (best < 0 || ports[d] > ports[best]) {
			best = d
		}
	}
	if best < 0 {
		return roceClass{}, false
	}
	return first[best], true
}

// nicLosslessDSCPs returns the DSCPs the NICs' mlnx_qos configs (dumps or
// commands) put on a priority with PFC, ascending, and the lines that say
// so; nil when no NIC config states both trust dscp and PFC.
func (m *Model) nicLosslessDSCPs() ([]int, []Evidence) {
	var out []int
	var ev []Evidence
	add := func(c *ingest.QoSConfig) {
		if c.Trust != "dscp" || !c.PFCKnown {
			return
		}
		pfc := c.PFCPrios()
		for d := range 64 {
			p, ok := c.DSCPPrio(d)
			if !ok {
				p = d >> 3
			}
			if containsInt(pfc, p) && !containsInt(out, d) {
				out = append(out, d)
			}
		}
		ev = append(ev, c.Evidence["trust"], c.Evidence["pfc"])
	}
	for _, a := range m.Artifacts {
		switch v := a.(type) {
		case *ingest.MlnxQoS:
			for i := range v.Configs {
				add(&v.Configs[i])
			}
		case *ingest.MlnxQoSCommands:
			for i := range v.Configs {
				add(&v.Configs[i])
			}
		}
	}
	sort.Ints(out)
	return out, ev
}

func (m *Model) nicSides() []nicSide {
	var out []nicSide
	d := m.roce.DSCP
	if s := m.Desc; s != nil {
		n := nicSide{Name: "hosts (" + s.File + ")", Prio: -1}
		switch {
		case s.Host.Priority >= 0:
			n.Prio, n.PrioEv = s.Host.Priority, []Evidence{m.at("host.priority", "")}
		case s.Host.Trust == fabric.TrustDSCP:
			n.Prio = int(s.Host.DSCPToPrio[d])
			n.PrioEv = []Evidence{m.at("host.trust", "dscp"), m.at("host.dscp_to_priority", "default map (DSCP >> 3)")}
		}
		out = append(out, n)
	}
	qos := func(name string, c *ingest.QoSConfig) {
		n := nicSide{Name: name, Prio: -1, PFC: c.PFCPrios(), PFCKnown: c.PFCKnown, PFCEv: c.Evidence["pfc"]}
		if c.Trust == "dscp" {
			if p, ok := c.DSCPPrio(d); ok {
				n.Prio = p
				n.PrioEv = []Evidence{c.Evidence["trust"], c.Evidence["dscp2prio:"+strconv.Itoa(p)]}
			} else {
				// A script that does not set this DSCP leaves mlx5's
				// default map (DSCP >> 3).
				n.Prio, n.PrioEv = d>>3, []Evidence{c.Evidence["trust"]}
			}
		}
		out = append(out, n)
	}
	for _, a := range m.Artifacts {
		switch v := a.(type) {
		case *ingest.MlnxQoS:
			for i := range v.Configs {
				qos(v.Configs[i].Name()+" (mlnx_qos)", &v.Configs[i])
			}
		case *ingest.MlnxQoSCommands:
			for i := range v.Configs {
				qos(v.Configs[i].Name()+" (mlnx_qos commands)", &v.Configs[i])
			}
		}
	}
	return out
}

func (m *Model) switchSides() []switchSide {
	var out []switchSide
	d := m.roce.DSCP
	if s := m.Desc; s != nil {
		sw := &s.Switch
		sd := switchSide{Name: "switches (" + s.File + ")", TC: -1}
		if sw.Trust == fabric.TrustDSCP {
			sd.TC, sd.TCEv = int(sw.DSCPToPrio[d]), m.at("switch.dscp_to_priority", "default map (DSCP >> 3)")
		}
		sd.LosslessKnown, sd.LosslessEv = true, m.at("switch.pfc.priorities", "[3]")
		if sw.PFC.Enabled {
			sd.Lossless = maskList(sw.PFC.Priorities)
		} else {
			sd.LosslessEv = m.at("switch.pfc.enabled", "true")
		}
		sd.DSCPToTC = func(x int) (int, Evidence, bool) {
			if sw.Trust != fabric.TrustDSCP || x < 0 || x > 63 {
				return 0, Evidence{}, false
			}
			return int(sw.DSCPToPrio[x]), m.at("switch.dscp_to_priority", "default map (DSCP >> 3)"), true
		}
		sd.Strict = func(tc int) (bool, Evidence, bool) {
			return sw.Strict&(1<<tc) != 0, m.at("switch.scheduler.strict", "[6, 7]"), true
		}
		out = append(out, sd)
	}
	for _, db := range m.Sonic {
		out = append(out, sonicSides(db, d)...)
	}
	return out
}

// sonicSides groups a config_db's ports by their DSCP map and PFC set, so
// that 32 ports configured alike give one side.
func sonicSides(db *sonic.ConfigDB, d int) []switchSide {
	type group struct {
		ports []string
		pq    sonic.PortQoS
	}
	var global sonic.PortQoS
	var groups []*group
	byKey := map[string]*group{}
	for _, pq := range db.PortQoSMaps() {
		if pq.Port == "global" {
			global = pq
			continue
		}
		if pq.DSCPToTC.Text == "" {
			pq.DSCPToTC = global.DSCPToTC
		}
		key := pq.DSCPToTC.Text + "\x00" + pq.PFCEnableAt.Text + "\x00" + fmt.Sprint(pq.HasPFCEnable)
		g, ok := byKey[key]
		if !ok {
			g = &group{pq: pq}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.ports = append(g.ports, pq.Port)
	}
	var out []switchSide
	for _, g := range groups {
		sd := switchSide{Name: fmt.Sprintf("%s %s", db.File, portList(g.ports)), TC: -1, DB: db, Port: g.ports[0]}
		mp, ok := db.NumMap("DSCP_TO_TC_MAP", g.pq.DSCPToTC.Text)
		if ok {
			if mp.To[d] >= 0 {
				sd.TC, sd.TCEv = mp.To[d], sonicEv(db, mp.At[d])
			} else {
				// SONiC sends DSCPs missing from the map to TC 0.
				sd.TC, sd.TCEv = 0, sonicEv(db, g.pq.DSCPToTC)
			}
			sd.DSCPToTC = func(x int) (int, Evidence, bool) {
				if x < 0 || x > 63 {
					return 0, Evidence{}, false
				}
				if mp.To[x] < 0 {
					return 0, sonicEv(db, g.pq.DSCPToTC), true
				}
				return mp.To[x], sonicEv(db, mp.At[x]), true
			}
		}
		if g.pq.HasPFCEnable {
			sd.Lossless, sd.LosslessKnown, sd.LosslessEv = g.pq.PFCEnable, true, sonicEv(db, g.pq.PFCEnableAt)
		}
		port := g.ports[0]
		sd.Strict = func(tc int) (bool, Evidence, bool) { return queueStrict(db, port, tc) }
		out = append(out, sd)
	}
	return out
}

// queueStrict reports whether a port's queue is scheduled strictly.
func queueStrict(db *sonic.ConfigDB, port string, queue int) (bool, Evidence, bool) {
	for _, q := range db.Queues() {
		if !contains(q.Ports, port) || !containsInt(q.Queues, queue) || q.Scheduler.Text == "" {
			continue
		}
		typ, ok := db.Field("SCHEDULER", q.Scheduler.Text, "type")
		if !ok {
			return false, sonicEv(db, q.Scheduler), false
		}
		return strings.EqualFold(typ.Text, "STRICT"), sonicEv(db, typ), true
	}
	return false, Evidence{}, false
}

func (m *Model) cnpMarking() cnpMarking {
	c := cnpMarking{DSCP: 48, Prio: 6}
	if d := m.Desc; d != nil && d.Host.NIC.DCQCN.Config != nil {
		cfg := d.Host.NIC.DCQCN.Config
		c.DSCP, c.Prio = int(cfg.CnpDscp), int(cfg.Cnp802pPrio)
		knobs := d.Host.NIC.DCQCN.Knobs
		if _, ev, ok := m.descSetting(knobs, "cnp_dscp"); ok {
			c.DSCPEv, c.Given = ev, true
		}
		if _, ev, ok := m.descSetting(knobs, "cnp_802p_prio"); ok {
			c.PrioEv, c.Given = ev, true
		}
	}
	for _, a := range m.Artifacts {
		switch v := a.(type) {
		case *ingest.DCQCNSysfs:
			for _, f := range v.Interfaces {
				if x, ok := f.Params["cnp_dscp"]; ok {
					if n, ok := x.Int(); ok {
						c.DSCP, c.DSCPEv, c.Given = int(n), x.Evidence, true
					}
				}
				if x, ok := f.Params["cnp_802p_prio"]; ok {
					if n, ok := x.Int(); ok {
						c.Prio, c.PrioEv, c.Given = int(n), x.Evidence, true
					}
				}
			}
		case *ingest.MlxConfig:
			for i := range v.Devices {
				for _, p := range v.Devices[i].Params {
					n, ok := p.Int()
					switch {
					case !ok:
					case p.Name == "CNP_DSCP":
						c.DSCP, c.DSCPEv, c.Given = int(n), p.Evidence, true
					case p.Name == "CNP_802P_PRIO":
						c.Prio, c.PrioEv, c.Given = int(n), p.Evidence, true
					}
				}
			}
		}
	}
	return c
}

func (m *Model) ccMasks() []ccMask {
	var out []ccMask
	if d := m.Desc; d != nil && d.Host.NIC.CC == "dcqcn" {
		// Only a mask the description sets: left out, it models the
		// firmware default 0xFF, which real NICs may not have.
		nic := &d.Host.NIC
		_, ev, ok := m.descSetting(nic.Firmware, "ROCE_CC_PRIO_MASK", "ROCE_CC_PRIO_MASK_P1", "ROCE_CC_PRIO_MASK_P2")
		if !ok {
			_, ev, ok = m.descSetting(nic.DCQCN.Knobs, "roce_cc_prio_mask")
		}
		if ok {
			out = append(out, ccMask{Name: "hosts (" + d.File + ")", Mask: nic.CCPrioMask, Evidence: ev, What: "ROCE_CC_PRIO_MASK"})
		}
	}
	for _, a := range m.Artifacts {
		switch v := a.(type) {
		case *ingest.MlxConfig:
			for i := range v.Devices {
				dev := &v.Devices[i]
				for _, p := range dev.Params {
					if p.Name != "ROCE_CC_PRIO_MASK" {
						continue
					}
					if n, ok := p.Int(); ok && n >= 0 && n <= 255 {
						name := dev.Device
						if name == "" {
							name = "mlxconfig"
						}
						if p.Port > 0 {
							name += fmt.Sprintf(" port %d", p.Port)
						}
						out = append(out, ccMask{Name: name, Mask: uint8(n), Evidence: p.Evidence, What: "ROCE_CC_PRIO_MASK", Device: dev.Device})
					}
				}
			}
		case *ingest.DCQCNSysfs:
			for _, f := range v.Interfaces {
				if mask, ok := ingest.EnabledMask(f.RPEnable); ok {
					out = append(out, ccMask{Name: f.Name, Mask: mask, Evidence: firstEnableEvidence(f.RPEnable), What: "ecn/roce_rp/enable"})
				}
			}
		}
	}
	return out
}

func firstEnableEvidence(m map[int]ingest.SysfsValue) Evidence {
	best := Evidence{}
	for _, v := range m {
		if best.Line == 0 || v.Evidence.Line < best.Line {
			best = v.Evidence
		}
	}
	return best
}

// rocePriority is the priority the RoCE class should be lossless on: the
// switch's class for it when known, else the NICs', else 3.
func (m *Model) rocePriority() int {
	for _, s := range m.sws {
		if s.TC >= 0 {
			return s.TC
		}
	}
	for _, n := range m.nics {
		if n.Prio >= 0 {
			return n.Prio
		}
	}
	return 3
}

func maskList(m uint8) []int {
	var out []int
	for p := 0; p < 8; p++ {
		if m&(1<<p) != 0 {
			out = append(out, p)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// portList names ports compactly: up to four, then a count.
func portList(ps []string) string {
	var sorted []string
	for _, p := range ps {
		if !contains(sorted, p) {
			sorted = append(sorted, p)
		}
	}
	sort.Strings(sorted)
	if len(sorted) <= 4 {
		return strings.Join(sorted, ",")
	}
	return fmt.Sprintf("%s,... (%d ports)", strings.Join(sorted[:3], ","), len(sorted))
}

// prios formats priorities as "3,4" or "none".
func prios(ps []int) string {
	if len(ps) == 0 {
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

// evs drops empty evidence and keeps input order.
func evs(in ...Evidence) []Evidence {
	var out []Evidence
	seen := map[Evidence]bool{}
	for _, e := range in {
		if e.File == "" || seen[e] {
			continue
		}
		seen[e] = true
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return false
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// A rule checks the joined model.
type rule func(m *Model) []doctor.Finding

// rules lists lint's rules. Add one line per rule file.
func rules() []rule {
	return []rule{qosRules, ecnRules, pfcRules, mtuRules, ncclRules, firmwareRules, configRules}
}
