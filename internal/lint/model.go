package lint

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"rocelab/internal/doctor"
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
	// NoPFCField: a config_db's PORT_QOS_MAP rows of these ports write no
	// pfc_enable, which orchagent reads as empty (LosslessEv is the row).
	NoPFCField bool
	// DSCPToTC maps any DSCP (for CNPs); -1 unmapped.
	DSCPToTC func(d int) (int, Evidence, bool)
	// Strict reports whether a class is served strictly, when known.
	Strict func(tc int) (bool, Evidence, bool)
	// DB is the SONiC config the side comes from; nil for a description.
	DB *sonic.ConfigDB
	// TCMap is the DSCP_TO_TC_MAP the side's ports bind ("" when none).
	TCMap string
	// Port is the side's first port in DB.
	Port string
	// Unmapped is set when TC is 0 only because the DSCP map leaves
	// RoCE's DSCP out.
	Unmapped bool
	// Unbound names the DSCP_TO_TC_MAP the config defines when TC is 0
	// because the ports bind none (nor does PORT_QOS_MAP|global).
	Unbound string
}

// lands says which class RoCE's DSCP takes on a switch side, with how the
// DSCP is known when it is assumed and why the class is 0 when the map
// leaves the DSCP out: "RoCE (DSCP 26, assumed) lands in class 0 (DSCP 26
// is not in its DSCP_TO_TC_MAP: SONiC's default class)".
func (r roceClass) lands(s switchSide) string {
	dscp := fmt.Sprintf("DSCP %d", r.DSCP)
	if r.Assumed {
		dscp += ", assumed"
	}
	t := fmt.Sprintf("RoCE (%s) lands in %s %d", dscp, classWord(s.DB), s.TC)
	if s.Unmapped {
		t += fmt.Sprintf(" (DSCP %d is not in its DSCP_TO_TC_MAP: SONiC's default class)", r.DSCP)
	}
	if s.Unbound != "" {
		t += fmt.Sprintf(" (its PORT_QOS_MAP rows bind no dscp_to_tc_map, nor does a global row, though the config defines DSCP_TO_TC_MAP %s: the port's default class)", s.Unbound)
	}
	return t
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

// forcedTC returns the first traffic class an RDMA device forces on its
// port (sysfs tc/<port>/traffic_class) in the inputs.
func (m *Model) forcedTC() (ingest.TrafficClass, bool) {
	for _, a := range m.Artifacts {
		if d, ok := a.(*ingest.DCQCNSysfs); ok && len(d.TrafficClasses) > 0 {
			return d.TrafficClasses[0], true
		}
	}
	return ingest.TrafficClass{}, false
}

// roceDSCP finds the DSCP RoCE data carries: the traffic class a device
// forces on its port (overriding the queue pairs' own), NCCL_IB_TC when set, the
// description's host.dscp, NCCL's default 0 when an env file leaves
// NCCL_IB_TC unset; else it is inferred from a SONiC config's lossless
// map (the lowest DSCP mapped to a class with PFC on), and only without
// any of these assumed to be 26 (NCCL_IB_TC=106). From says which.
func (m *Model) roceDSCP() roceClass {
	if t, ok := m.forcedTC(); ok {
		return roceClass{DSCP: t.DSCP(), From: fmt.Sprintf("%s port %d traffic_class %d, which MLNX_OFED applies to every RoCE queue pair of the port", t.Device, t.Port, t.TClass), Evidence: []Evidence{t.Evidence}}
	}
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
	// not is reported; a switch config alone gives its own lossless DSCP
	// (26 when it is one).
	nicDSCPs, nicEv := m.nicLosslessDSCPs()
	if len(nicDSCPs) > 0 {
		for _, db := range m.Sonic {
			if r, ok := losslessDSCP(db, nicDSCPs, lowestDSCP); ok {
				return r
			}
		}
		d := nicDSCPs[0]
		if slices.Contains(nicDSCPs, ingest.RoCEDSCP) {
			d = ingest.RoCEDSCP
		}
		return roceClass{DSCP: d, Evidence: nicEv, From: fmt.Sprintf("inferred from the NICs' mlnx_qos: a DSCP they keep lossless (%d–%d)", nicDSCPs[0], nicDSCPs[len(nicDSCPs)-1])}
	}
	// DSCP 26 (NCCL_IB_TC=106, the usual marking) when a switch keeps it
	// lossless, else the lowest DSCP one does.
	for _, pick := range []struct {
		among []int
		which string
	}{{[]int{ingest.RoCEDSCP}, "DSCP 26, the usual RoCE marking (NCCL_IB_TC=106), which"}, {nil, lowestDSCP}} {
		for _, db := range m.Sonic {
			if r, ok := losslessDSCP(db, pick.among, pick.which); ok {
				return r
			}
		}
	}
	return roceClass{DSCP: ingest.RoCEDSCP, From: "assumed DSCP 26 (NCCL_IB_TC=106, the usual marking; nothing given states RoCE's DSCP)", Assumed: true}
}

// lowestDSCP is how losslessDSCP's From names a DSCP picked among all.
const lowestDSCP = "the lowest DSCP"

// losslessDSCP infers RoCE's DSCP from a SONiC config: the lowest DSCP
// that every port with PFC maps to a class PFC protects on it (SONiC's
// stock maps put DSCP 3 and 4 in the lossless classes 3 and 4), else the
// one that does so on the most ports. which names the pick in the
// roceClass's From.
func losslessDSCP(db *sonic.ConfigDB, among []int, which string) (roceClass, bool) {
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
			if mp.To[d] < 0 || !slices.Contains(pq.PFCEnable, mp.To[d]) || among != nil && !slices.Contains(among, d) {
				continue
			}
			if ports[d] == 0 {
				first[d] = roceClass{DSCP: d, Evidence: []Evidence{sonicEv(db, mp.At[d]), sonicEv(db, pq.PFCEnableAt)},
					From: fmt.Sprintf("inferred from %s: %s its map %s sends to a lossless class (TC %d, pfc_enable %s)", db.File, which, mapName.Text, mp.To[d], pq.PFCEnableAt.Text)}
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
			if slices.Contains(pfc, p) && !slices.Contains(out, d) {
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

// A rule checks the joined model.
type rule func(m *Model) []doctor.Finding

// rules lists lint's rules. Add one line per rule file.
func rules() []rule {
	return []rule{qosRules, classPathRules, ecnRules, pfcRules, mtuRules, ncclRules, hcaRules, firmwareRules, configRules, refRules, unboundPorts, lagQoSRows}
}
