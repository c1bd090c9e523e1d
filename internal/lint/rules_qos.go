package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/eos"
	"rocelab/internal/fabric"
	"rocelab/internal/ingest"
	"rocelab/internal/sonic"
	"rocelab/internal/textout"
)

// qosRules checks that NICs and switches agree on the RoCE class, that the
// switch keeps it lossless, that priorities survive routing, and that CNPs
// travel on their own strict class.
func qosRules(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	r := m.roce
	for _, n := range m.nics {
		for _, s := range m.sws {
			if n.Prio < 0 || s.TC < 0 || n.Prio == s.TC {
				continue
			}
			fs = append(fs, doctor.Finding{
				ID: "qos.priority.mismatch", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("RoCE (DSCP %d, from %s) rides priority %d on %s but %s %d on %s", r.DSCP, r.From, n.Prio, n.Name, classWord(s.DB), s.TC, s.Name),
				Subject:  n.Name + " / " + s.Name,
				Evidence: evs(append(append(append([]Evidence{}, r.Evidence...), n.PrioEv...), s.TCEv)...),
				Mechanism: fmt.Sprintf("The NIC queues RoCE on priority %d and stops only for pause frames of priority %d. The switch classifies DSCP %d into class %d and, when its buffer fills, pauses priority %d, which the NIC ignores: the switch's headroom overflows and it drops on what was meant to be the lossless class. "+
					"RC then recovers by NAK and go-back-N, and tail losses by ACK timeouts (4.3 s each at NCCL_IB_TIMEOUT=20).", n.Prio, n.Prio, r.DSCP, s.TC, s.TC),
				Fix: mismatchFix(r.DSCP, n, s),
			})
		}
	}
	roceTC := m.rocePriority()
	lossy := m.lossyDesigns()
	said := map[*sonic.ConfigDB]bool{}
	for _, s := range m.sws {
		if d, ok := lossy[s.DB]; ok && s.DB != nil {
			// Once per config, from its first side whose RoCE class is
			// known (lossyDesigns needs one): every other port is the
			// same choice, not PFC forgotten.
			if !said[s.DB] && (s.TC >= 0 || !m.roceKnownIn(s.DB)) {
				fs = append(fs, m.lossyByDesign(s.DB, d, s))
				said[s.DB] = true
			}
			continue
		}
		if s.TC < 0 && s.LosslessKnown && len(s.Lossless) == 0 && len(m.nics) == 0 {
			// Which class RoCE takes is not known, and does not matter: no
			// class is lossless on these ports. (With the NICs known,
			// unmappedPFC names their priority.)
			fix := noLosslessFix(s)
			fs = append(fs, doctor.Finding{
				ID: "qos.pfc.disabled", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s: PFC is off on every priority (the DSCP map is not given, so RoCE's class is not known, but none is lossless)", s.Name),
				Subject:   s.Name,
				Evidence:  evs(s.LosslessEv),
				Mechanism: "Without PFC the switch drops when a queue fills, and RoCE's RC transport recovers only by go-back-N and ACK timeouts. Unless the fabric is deliberately lossy (NICs with their own congestion control and selective retransmission), RoCE needs PFC on its class on every switch port and NIC.",
				Fix:       pfcAllOffFix(s.DB, fix),
			})
			continue
		}
		if s.TC < 0 || !s.LosslessKnown || slices.Contains(s.Lossless, s.TC) {
			continue
		}
		f := doctor.Finding{
			ID: "qos.pfc.disabled", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:    fmt.Sprintf("%s: %s, but PFC is on %s", s.Name, r.lands(s), textout.Ints(s.Lossless)),
			Subject:  s.Name,
			Evidence: evs(append(append([]Evidence{}, r.Evidence...), s.TCEv, s.LosslessEv)...),
			Mechanism: fmt.Sprintf("The switch puts DSCP %d into class %d, which PFC does not protect: under congestion it drops RoCE instead of pausing, and RC recovers by go-back-N and timeouts. ", r.DSCP, s.TC) +
				"Either RoCE is marked with a DSCP the switch does not treat as lossless, or the lossless class is configured on another priority." + assumedDSCP(r),
			Fix: pfcOffFix(r, s),
		}
		if s.DB != nil && s.DB.Vendor == sonic.VendorNXOS {
			if name := nxosUnappliedNQ(s.DB); name != "" {
				f.Fix = fmt.Sprintf("Apply the network-qos policy the configuration defines: `system qos` then `service-policy type network-qos %s` (NX-OS pauses only by the policy system qos applies; defined alone, it pauses nothing), and PFC on the NICs' priority %d.", name, s.TC)
			}
		}
		if s.DB != nil && s.DB.Vendor == sonic.VendorJunos {
			f.Fix = m.junosPFCFix(r.DSCP, s)
		}
		f.Fix = pfcAllOffFix(s.DB, f.Fix)
		if s.Unbound != "" {
			f.Mechanism = fmt.Sprintf("orchagent binds to a port only the maps its PORT_QOS_MAP row names (of the global row, dscp_to_tc_map alone); a port that names no dscp_to_tc_map keeps the ASIC's default traffic class, 0 (SAI_PORT_ATTR_QOS_DEFAULT_TC), for every packet whatever its DSCP. RoCE is then counted and queued as class 0, which PFC does not protect: under congestion the switch drops it instead of pausing, and RC recovers by go-back-N and timeouts.%s", assumedDSCP(r))
			f.Fix = fmt.Sprintf("\"dscp_to_tc_map\": \"%s\" in these ports' PORT_QOS_MAP rows, beside tc_to_pg_map and tc_to_queue_map (SONiC's qos.json binds them on every port).", strings.Split(s.Unbound, ",")[0])
		}
		if len(s.Lossless) == 0 {
			f.Severity = doctor.Error
			f.Title = fmt.Sprintf("%s: PFC is off on every priority", s.Name)
			f.Mechanism = "Without PFC the switch drops when a queue fills, and RoCE's RC transport recovers only by go-back-N and ACK timeouts. Unless the fabric is deliberately lossy (Resilient RoCE, selective repeat), RoCE needs PFC on its class on every switch port and NIC."
			if s.NoPFCField {
				f.Title = fmt.Sprintf("%s: PFC is off on every priority: the PORT_QOS_MAP rows write no pfc_enable", s.Name)
				f.Mechanism = "orchagent (qosorch.cpp handlePortQosMapTable) reads a PORT_QOS_MAP row without pfc_enable as an empty one, and buffermgrd writes no lossless priority group for the port: whatever the DSCP map, priority groups and lossless pools say, no priority is paused. " + f.Mechanism
				f.Fix = fmt.Sprintf("\"pfc_enable\": \"%s\" in every port's PORT_QOS_MAP row (SONiC's lossless classes, as its qos.json writes them), beside pfcwd_sw_enable, with PFC on the same priorities on the NICs.", pfcEnableFor(s.TC))
				if sharedClass(s) {
					// Pausing the class every DSCP lands in pauses all
					// traffic: RoCE's DSCP gets a class of its own first.
					f.Fix = fmt.Sprintf("Map DSCP %d to class 3 in DSCP_TO_TC_MAP %s first (every DSCP lands in class %d, and pausing it would pause all traffic); then \"pfc_enable\": \"3,4\" in every port's PORT_QOS_MAP row, beside pfcwd_sw_enable, with PFC on priority 3 on the NICs.", r.DSCP, s.TCMap, s.TC)
				}
				misplacedPFC(&f, s)
			}
		}
		fs = append(fs, f)
	}
	fs = append(fs, m.unmappedPFC()...)
	fs = append(fs, m.trustRules()...)
	// Where CNPs go depends on how the NICs mark them; without any NIC-side
	// input (a switch config alone) that is not known, and the mlx5
	// default is not assumed.
	if m.Desc != nil && m.Desc.Host.NIC.CC != "none" || m.Desc == nil && m.nicSideGiven() {
		fs = append(fs, m.cnpRules(roceTC)...)
	}
	return fs
}

// misplacedPFC names, on a side whose PORT_QOS_MAP rows write no
// pfc_enable, the pfc_enable its PORT row writes instead: PORT has no such
// field (sonic-buildimage sonic-port.yang at 0a0c2c2df455 defines only
// pfc_asym, the asymmetric mode), and qosorch takes the lossless
// priorities from PORT_QOS_MAP alone (sonic-mgmt #25442 found a
// pfc_enable written to PORT skipped by orchagent, PFC TX left off).
func misplacedPFC(f *doctor.Finding, s switchSide) {
	v, ok := s.DB.Field("PORT", s.Port, "pfc_enable")
	if !ok || strings.TrimSpace(v.Text) == "" {
		return
	}
	f.Title += fmt.Sprintf(" (PORT|%s writes \"pfc_enable\": %q, a field SONiC reads only in PORT_QOS_MAP)", s.Port, v.Text)
	f.Evidence = append(f.Evidence, sonicEv(s.DB, v))
	f.Fix = fmt.Sprintf("Move \"pfc_enable\": %q from the PORT rows to these ports' PORT_QOS_MAP rows (`config interface pfc priority <port> <p> on` writes it there), beside pfcwd_sw_enable, with PFC on the same priorities on the NICs.", v.Text)
}

// sharedClass reports whether every DSCP lands in RoCE's class on side s.
func sharedClass(s switchSide) bool {
	if s.DSCPToTC == nil {
		return false
	}
	for x := range 64 {
		if tc, _, _ := s.DSCPToTC(x); tc != s.TC {
			return false
		}
	}
	return true
}

// pfcEnableFor is the pfc_enable a fix writes: SONiC's lossless classes,
// 3 and 4, and RoCE's class where it is another.
func pfcEnableFor(tc int) string {
	if tc < 0 || tc == 3 || tc == 4 {
		return "3,4"
	}
	return fmt.Sprintf("3,4,%d", tc)
}

// pfcAllOffFix puts first in fix the removal of a global command that
// turns PFC off on every port (EOS `priority-flow-control all off`): while
// it stands, no interface's own PFC lines take effect.
func pfcAllOffFix(db *sonic.ConfigDB, fix string) string {
	if db == nil {
		return fix
	}
	v, ok := db.PFCAllOff()
	if !ok {
		return fix
	}
	return fmt.Sprintf("`no priority-flow-control all off` (line %d turns PFC off on every interface, whatever their own `priority-flow-control` lines say); then, if RoCE's class is still not lossless: %s", v.Line, fix)
}

// pfcOffFix is the fix for a port whose PFC leaves out RoCE's class: map
// RoCE's DSCP to the class PFC protects, or turn PFC on for RoCE's class,
// or mark RoCE into the protected class, in each OS's commands. With no
// class lossless on the port there is nothing to map or mark into: only
// turning PFC on is said.
func pfcOffFix(r roceClass, s switchSide) string {
	to := 3
	if len(s.Lossless) > 0 {
		to = s.Lossless[0]
	}
	d, tc := r.DSCP, s.TC
	mapTo := fmt.Sprintf("Map DSCP %d to a lossless class on the switch", d)
	pfcOn := fmt.Sprintf("enable PFC on class %d (and on the NICs' priority %d)", tc, tc)
	class := "class"
	switch {
	case isNVUE(s.DB):
		mapTo = fmt.Sprintf("Map DSCP %d to a switch priority with PFC (%s)", d, nvSet(s.DB, s.Port, "mapping", fmt.Sprintf("dscp %d switch-priority %d", d, to)))
		pfcOn = fmt.Sprintf("enable PFC on switch priority %d (%s; and on the NICs' priority %d)", tc, nvSet(s.DB, s.Port, "pfc", fmt.Sprintf("switch-priority %d", tc)), tc)
		class = "switch priority"
	case s.DB == nil:
	case s.DB.Vendor == sonic.VendorNXOS:
		mapTo = fmt.Sprintf("Match DSCP %d in the class-map of the class that sets the lossless qos-group (`match dscp %d` under `class-map type qos`)", d, d)
	case s.DB.Vendor == sonic.VendorOnyx:
		mapTo = ""
		pfcOn = fmt.Sprintf("trust DSCP on these ports (`qos trust L3`, whose default map puts DSCP %d in switch priority %d) and turn PFC on for that priority (`dcb priority-flow-control priority %d enable`) (and on the NICs' priority %d)", d, d>>3, d>>3, d>>3)
	case s.DB.Vendor == sonic.VendorTrafficConf:
		mapTo = fmt.Sprintf("Put DSCP %d in the lossless cos (traffic.cos_N.priority_source.dscp of a cos in a PFC group's cos_list)", d)
	case s.DB.Vendor == sonic.VendorOS10:
		mapTo = fmt.Sprintf("Put DSCP %d in the lossless qos-group (`qos-group %d dscp %d` in the `trust dscp-map` these ports trust)", d, to, d)
	case s.DB.Vendor == sonic.VendorAOSCX:
		mapTo = fmt.Sprintf("Map DSCP %d to the lossless local priority (`qos dscp-map %d local-priority %d`)", d, d, to)
	case eosUntrusted(s):
		// Untrusted, every packet takes the class of `qos cos`: PFC on
		// it would make all the port's traffic lossless. Trusting DSCP
		// gives RoCE its own class first.
		mapTo = ""
		own, by := eos.DefaultDSCPTC(d), "EOS's default map"
		if mp, ok := s.DB.NumMap("DSCP_TO_TC_MAP", sonic.EOSDSCPMap); ok && mp.To[d] >= 0 {
			own = mp.To[d]
			if mp.At[d].Line > 0 {
				by = fmt.Sprintf("the config's `qos map dscp` at line %d", mp.At[d].Line)
			}
		}
		pfcOn = fmt.Sprintf("trust DSCP on these ports (`qos trust dscp` in place of `no qos trust`, which puts every packet, RoCE's with the rest, in class %d) and turn PFC on for the class DSCP %d then takes (%d by %s: `priority-flow-control on`, `priority-flow-control priority %d no-drop`; and on the NICs' priority %d)", tc, d, own, by, own, own)
		if slices.Contains(s.Lossless, own) {
			pfcOn = fmt.Sprintf("trust DSCP on these ports (`qos trust dscp` in place of `no qos trust`, which puts every packet, RoCE's with the rest, in class %d): DSCP %d then takes class %d (by %s), already lossless", tc, d, own, by)
		}
	case s.DB.Vendor == sonic.VendorEOS:
		mapTo = fmt.Sprintf("Map DSCP %d to a class with PFC (`qos map dscp %d to traffic-class N`)", d, d)
	}
	if c := pfcOnCommand(s.DB, tc); c != "" && !eosUntrusted(s) {
		pfcOn = fmt.Sprintf("%s (and PFC on the NICs' priority %d)", c, tc)
	}
	var alts []string
	if mapTo != "" && len(s.Lossless) > 0 {
		alts = append(alts, mapTo)
	}
	alts = append(alts, pfcOn)
	if len(s.Lossless) > 0 && !eosUntrusted(s) {
		// A port that ignores DSCP puts no marking into another class.
		alts = append(alts, fmt.Sprintf("mark RoCE into the lossless %s (NCCL_IB_TC = DSCP×4 + 2)", class))
	}
	fix := strings.Join(alts, ", or ") + "."
	return strings.ToUpper(fix[:1]) + fix[1:]
}

// eosUntrusted reports whether RoCE's class on an EOS side comes from
// `no qos trust` (every packet in the class of `qos cos`): its ports bind
// the map sonic names after it, whichever line the class's evidence is.
func eosUntrusted(s switchSide) bool {
	return s.DB != nil && s.DB.Vendor == sonic.VendorEOS && strings.HasPrefix(s.TCMap, "no qos trust")
}

// noLosslessFix is the fix for ports whose RoCE class is not known and
// on which no class is lossless: PFC on RoCE's priority (3) in the
// switch's OS's commands, and on the NICs.
func noLosslessFix(s switchSide) string {
	const nic = "PFC on the NICs' priority (mlnx_qos -i <if> --pfc 0,0,0,1,0,0,0,0)"
	switch {
	case isNVUE(s.DB):
		return fmt.Sprintf("Enable PFC on RoCE's switch priority on these ports (%s) and %s.", nvSet(s.DB, s.Port, "pfc", "switch-priority 3"), nic)
	case s.DB != nil && s.DB.Vendor == sonic.VendorOnyx:
		return onyxPFCFix(s.DB)
	}
	if c := pfcOnCommand(s.DB, 3); c != "" {
		return fmt.Sprintf("%s%s, and %s; a link that carries no RoCE needs neither.", strings.ToUpper(c[:1]), c[1:], nic)
	}
	return "Enable PFC on RoCE's priority on these ports (SONiC: pfc_enable \"3,4\" in PORT_QOS_MAP) and on the NICs (mlnx_qos -i <if> --pfc 0,0,0,1,0,0,0,0)."
}

// pfcOnCommand is how the switch's OS turns PFC on for class tc on these
// ports, in its own commands: the one text both fixes that turn PFC on
// give; "" for SONiC, and for NVUE and Onyx, whose fixes say it their way.
func pfcOnCommand(db *sonic.ConfigDB, tc int) string {
	if db == nil {
		return ""
	}
	switch db.Vendor {
	case sonic.VendorNXOS:
		return fmt.Sprintf("`pause pfc-cos %d` in the network-qos class of qos-group %d, in the policy `system qos` applies (`service-policy type network-qos NAME`)", tc, tc)
	case sonic.VendorTrafficConf:
		return fmt.Sprintf("add cos %d to the cos_list of a PFC group pfc.port_group_list names whose port_set holds these ports (a new group: pfc.port_group_list = [ROCE_PFC], pfc.ROCE_PFC.cos_list = [%d], pfc.ROCE_PFC.port_set = swp1-swp32, tx_enable and rx_enable true)", tc, tc)
	case sonic.VendorOS10:
		return fmt.Sprintf("`pause` and `pfc-cos %d` in the network-qos class of qos-group %d, in the policy these interfaces apply (`service-policy input type network-qos NAME`) with `priority-flow-control mode on`", tc, tc)
	case sonic.VendorAOSCX:
		return fmt.Sprintf("`flow-control priority rxtx %d` on these interfaces, with local priority %d in a lossless pool (`qos pool 1 lossless … priorities %d`)", tc, tc, tc)
	case sonic.VendorFTOS:
		pgid := strings.Repeat("0 ", tc) + "1" + strings.Repeat(" 0", max(7-tc, 0))
		return fmt.Sprintf("in the `dcb-map` these interfaces apply, `priority-group 1 bandwidth … pfc on` for the group `priority-pgid` gives priority %d (`priority-pgid %s`)", tc, pgid)
	case sonic.VendorEOS:
		return fmt.Sprintf("`priority-flow-control on` and `priority-flow-control priority %d no-drop` on these interfaces or their qos profile", tc)
	}
	return ""
}

// onyxPFCFix is the fix for an Onyx configuration that pauses no
// priority: the commands it does not write, of the three Onyx needs (PFC
// on for the switch, a priority enabled, the port's mode not off).
func onyxPFCFix(db *sonic.ConfigDB) string {
	on, prios := db.OnyxPFCWritten()
	var cmds []string
	if !on {
		cmds = append(cmds, "`dcb priority-flow-control enable force`")
	}
	if !prios {
		cmds = append(cmds, "`dcb priority-flow-control priority 3 enable` (Onyx pauses only the priorities this list enables: `dcb priority-flow-control enable` and a port's `mode on` alone pause none)")
	}
	if on && prios {
		cmds = append(cmds, "`interface ethernet <ports> dcb priority-flow-control mode on force` (these ports' mode is off)")
	}
	return strings.Join(cmds, " and ") + ", and PFC on the NICs' priority (mlnx_qos -i <if> --pfc 0,0,0,1,0,0,0,0); a fabric lossy by design (ECN alone) needs neither."
}

// nxosUnappliedNQ is the network-qos policy an NX-OS configuration
// defines with pauses but does not apply under `system qos`, "" when none.
func nxosUnappliedNQ(db *sonic.ConfigDB) string {
	const head = "policy-map type network-qos "
	for _, v := range db.Skipped {
		if name, rest, ok := strings.Cut(strings.TrimPrefix(v.Text, head), sonic.NXOSUnapplied); ok && rest != "" && strings.HasPrefix(v.Text, head) {
			return name
		}
	}
	return ""
}

// unmappedPFC compares the NICs' RoCE priority with the PFC priorities of
// switch ports whose DSCP map is not given (a PORT_QOS_MAP fragment such as
// a pfc.json for `config load`): which class RoCE takes there is not known,
// but a PFC frame of the NICs' priority is ignored by a port that does not
// enable PFC on it, whatever the class.
func (m *Model) unmappedPFC() []doctor.Finding {
	var fs []doctor.Finding
	for _, s := range m.sws {
		if s.TC >= 0 || !s.LosslessKnown {
			continue
		}
		for _, n := range m.nics {
			if n.Prio < 0 || slices.Contains(s.Lossless, n.Prio) {
				continue
			}
			fix := fmt.Sprintf("pfc_enable with %d on the switch ports (PORT_QOS_MAP), with a DSCP_TO_TC_MAP that sends RoCE's DSCP to class %d; or move the NICs' RoCE priority into %s.", n.Prio, n.Prio, textout.Ints(s.Lossless))
			if isNVUE(s.DB) {
				fix = fmt.Sprintf("%s, with %s; or move the NICs' RoCE priority into %s.", nvSet(s.DB, s.Port, "pfc", fmt.Sprintf("switch-priority %d", n.Prio)),
					nvSet(s.DB, s.Port, "mapping", fmt.Sprintf("dscp %d switch-priority %d", m.roce.DSCP, n.Prio)), textout.Ints(s.Lossless))
			}
			fs = append(fs, doctor.Finding{
				ID: "qos.pfc.disabled", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("%s: PFC is on %s, but %s puts RoCE on priority %d", s.Name, textout.Ints(s.Lossless), n.Name, n.Prio),
				Subject:  n.Name + " / " + s.Name,
				Evidence: evs(append(append([]Evidence{}, n.PrioEv...), s.LosslessEv)...),
				Mechanism: fmt.Sprintf("The NIC pauses its peer with PFC frames of priority %d when its receive buffer fills, and stops only for frames of priority %d. The switch ports enable PFC on %s only: they ignore the NIC's pauses for %d, so the NIC's buffer overflows and drops, and they never pause %d themselves. "+
					"The switch's DSCP map is not given, so which class RoCE takes there is not known either.", n.Prio, n.Prio, textout.Ints(s.Lossless), n.Prio, n.Prio),
				Fix: fix,
			})
		}
	}
	return fs
}

// nicSideGiven reports whether any input describes the NICs: CNP
// marking, a congestion-control mask, mlnx_qos, or NCCL settings.
func (m *Model) nicSideGiven() bool {
	return m.cnp.Given || len(m.masks) > 0 || len(m.nics) > 0 || len(m.nccl) > 0
}

// trustRules reports trust pcp where RoCE is routed.
func (m *Model) trustRules() []doctor.Finding {
	var fs []doctor.Finding
	pcp := func(subject string, ev []Evidence, vlan bool) {
		f := doctor.Finding{
			ID: "qos.trust.pcp", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:    subject + ": priority trust is pcp",
			Subject:  subject,
			Evidence: evs(ev...),
			Mechanism: "With trust pcp the priority comes from the VLAN tag's PCP bits. RoCEv2 is IP/UDP: on a routed fabric frames are untagged or re-tagged at every hop, so PCP does not survive and RoCE falls to priority 0, outside PFC. " +
				"DSCP in the IP header is what survives routing.",
			Fix: "Trust DSCP on NICs and switches (mlnx_qos -i <if> --trust dscp; the switch's DSCP map) and mark RoCE with DSCP 26 (NCCL_IB_TC=106).",
		}
		if !vlan {
			f.Severity = doctor.Error
			f.Title = subject + ": priority trust is pcp, but frames carry no VLAN tag"
			f.Mechanism = "With trust pcp the priority comes from the VLAN tag's PCP bits, and these frames are untagged (host.vlan is false): every packet, RoCE included, is classified to priority 0, outside PFC."
		}
		fs = append(fs, f)
	}
	if s := m.Desc; s != nil {
		if s.Switch.Trust == fabric.TrustPCP {
			pcp("switches ("+s.File+")", []Evidence{m.at("switch.trust", ""), m.at("host.vlan", "false")}, s.Host.VLAN)
		}
		if s.Host.Trust == fabric.TrustPCP {
			pcp("hosts ("+s.File+")", []Evidence{m.at("host.trust", ""), m.at("host.vlan", "false")}, s.Host.VLAN)
		}
	}
	for _, a := range m.Artifacts {
		if c, ok := a.(*ingest.MlnxQoSCommands); ok {
			for i := range c.Configs {
				if c.Configs[i].Trust == "pcp" {
					pcp(c.Configs[i].Name()+" (mlnx_qos commands)", []Evidence{c.Configs[i].Evidence["trust"]}, true)
				}
			}
		}
	}
	return fs
}

// cnpRules checks that CNPs are mapped to a class of their own, served
// strictly, on every switch.
func (m *Model) cnpRules(roceTC int) []doctor.Finding {
	var fs []doctor.Finding
	c := m.cnp
	from := "the mlx5 default cnp_dscp 48"
	if c.Given {
		from = "cnp_dscp"
	}
	for _, s := range m.sws {
		if s.DSCPToTC == nil {
			continue
		}
		tc, ev, ok := s.DSCPToTC(c.DSCP)
		if !ok {
			continue
		}
		base := []Evidence{c.DSCPEv, ev}
		if tc == roceTC {
			fix := fmt.Sprintf("Map DSCP %d to its own class on the switches (SONiC: DSCP_TO_TC_MAP \"%d\": \"6\"; Cumulus: nv set qos mapping default-global dscp %d switch-priority 6) with a STRICT scheduler, or set cnp_dscp on the NICs to a DSCP that is.", c.DSCP, c.DSCP, c.DSCP)
			if isNVUE(s.DB) {
				fix = fmt.Sprintf("Map DSCP %d to its own switch priority (%s) whose traffic class is served strictly (nv set qos egress-scheduler <profile> traffic-class <its class> mode strict), or set cnp_dscp on the NICs to a DSCP that is.", c.DSCP, nvSet(s.DB, s.Port, "mapping", fmt.Sprintf("dscp %d switch-priority 6", c.DSCP)))
			}
			fs = append(fs, doctor.Finding{
				ID: "qos.cnp.not_mapped", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("%s: CNPs (DSCP %d, %s) share %s %d with RoCE data", s.Name, c.DSCP, from, classWord(s.DB), tc),
				Subject:   s.Name,
				Evidence:  evs(base...),
				Mechanism: "A CNP tells a sender to slow down; queued behind the data of the congestion it reports, it arrives late, DCQCN reacts late, and queues and pauses grow. CNPs need a class of their own, served strictly.",
				Fix:       fix,
			})
			continue
		}
		if s.Strict == nil {
			continue
		}
		strict, sev, known := s.Strict(tc)
		if !known || strict {
			continue
		}
		fix := fmt.Sprintf("Serve class %d strictly (SONiC: a SCHEDULER of type STRICT on QUEUE <port>|%d; Cumulus: nv set qos egress-scheduler default-global traffic-class <the class switch priority %d drains into> mode strict; the twin: switch.scheduler.strict).", tc, tc, tc)
		if isNVUE(s.DB) {
			fix = fmt.Sprintf("Serve switch priority %d's traffic class strictly: nv set qos %s mode strict.", tc, queueScheduler(s.DB, s.Port, tc))
		}
		fs = append(fs, doctor.Finding{
			ID: "qos.cnp.not_strict", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("%s: CNPs (DSCP %d, %s) go to %s %d, which is not served strictly", s.Name, c.DSCP, from, classWord(s.DB), tc),
			Subject:   s.Name,
			Evidence:  evs(append(base, sev)...),
			Mechanism: "CNPs are few and small but time-critical: under weighted scheduling they wait their turn behind bulk traffic of their class's weight, delaying every rate decrease DCQCN makes.",
			Fix:       fix,
		})
	}
	return fs
}

// mismatchFix proposes the change that makes NIC and switch agree on a
// lossless class: the switch's map, or RoCE's marking, or the NIC's map.
func mismatchFix(d int, n nicSide, s switchSide) string {
	lossless := func(c int) bool { return !s.LosslessKnown || slices.Contains(s.Lossless, c) }
	var fixes []string
	if lossless(n.Prio) {
		if isNVUE(s.DB) {
			fixes = append(fixes, fmt.Sprintf("map DSCP %d to switch priority %d on the switches (%s)", d, n.Prio, nvSet(s.DB, s.Port, "mapping", fmt.Sprintf("dscp %d switch-priority %d", d, n.Prio))))
		} else {
			fixes = append(fixes, fmt.Sprintf("map DSCP %d to class %d on the switches (SONiC: DSCP_TO_TC_MAP \"%d\": \"%d\")", d, n.Prio, d, n.Prio))
		}
		if s.DSCPToTC != nil {
			for x := 0; x < 64; x++ {
				if tc, _, ok := s.DSCPToTC(x); !ok || tc != n.Prio {
					continue
				}
				fix := fmt.Sprintf("mark RoCE with DSCP %d, which the switches map to %s %d: NCCL_IB_TC=%d", x, classWord(s.DB), n.Prio, x<<2|2)
				if x>>3 != n.Prio {
					fix += fmt.Sprintf(" and mlnx_qos -i <if> --dscp2prio set,%d,%d on the NICs", x, n.Prio)
				}
				fixes = append(fixes, fix)
				break
			}
		}
	}
	if lossless(s.TC) {
		fixes = append(fixes, fmt.Sprintf("put DSCP %d on priority %d on the NICs (mlnx_qos -i <if> --dscp2prio set,%d,%d, PFC on %d)", d, s.TC, d, s.TC, s.TC))
	}
	if len(fixes) == 0 && isNVUE(s.DB) {
		return fmt.Sprintf("Choose one lossless priority for RoCE and configure it on both sides: the NICs' DSCP map (mlnx_qos --dscp2prio set,%d,P) and PFC, and the switches' (%s, %s).", d,
			nvSet(s.DB, s.Port, "mapping", fmt.Sprintf("dscp %d switch-priority P", d)), nvSet(s.DB, s.Port, "pfc", "switch-priority P"))
	}
	if len(fixes) == 0 {
		return fmt.Sprintf("Choose one lossless priority for RoCE and configure it on both sides: the NICs' DSCP map (mlnx_qos --dscp2prio set,%d,P) and PFC, and the switches' DSCP map and pfc_enable.", d)
	}
	return "Make the two agree on a lossless class: " + strings.Join(fixes, "; or ") + "."
}

// assumedDSCP says, after a mechanism, that RoCE's DSCP was assumed and
// what would state it; "" when an input states or implies it.
func assumedDSCP(r roceClass) string {
	if !r.Assumed {
		return ""
	}
	return fmt.Sprintf(" DSCP %d is assumed (NCCL_IB_TC=106, the usual marking): no input states RoCE's DSCP, and no DSCP reaches a lossless class in the switch's map; give the NCCL settings (NCCL_IB_TC) or the NICs' mlnx_qos to judge the DSCP RoCE really carries.", r.DSCP)
}

// junosPFCFix is qos.pfc.disabled's fix on Junos interfaces. Where other
// interfaces of the configuration pause RoCE's class, these lack only
// the congestion-notification-profile those bind; else RoCE's DSCP needs
// a no-loss forwarding class, on the PFC priority other classes pause if
// there is one (a class past 7 is a lossy queue lint numbers apart from a
// no-loss class's priority, never a priority to pause).
func (m *Model) junosPFCFix(dscp int, s switchSide) string {
	prio := -1
	for _, o := range m.sws {
		if o.DB != s.DB {
			continue
		}
		if slices.Contains(o.Lossless, s.TC) {
			return fmt.Sprintf("Bind the congestion-notification-profile that pauses priority %d on %s (`congestion-notification-profile NAME` under `class-of-service interfaces IF`) on these interfaces too, and PFC on the NICs' priority %d; a link that carries no RoCE needs none.", s.TC, o.Port, s.TC)
		}
		if prio < 0 && len(o.Lossless) > 0 {
			prio = o.Lossless[0]
		}
	}
	switch {
	case prio < 0 && s.TC < 8:
		prio = s.TC
	case prio < 0:
		prio = 3
	}
	return fmt.Sprintf("Classify DSCP %d into a no-loss forwarding class (`class NAME queue-num Q no-loss pfc-priority %d` under forwarding-classes, its code point in the DSCP classifier) and bind a congestion-notification-profile that pauses it on these interfaces (and PFC on the NICs' priority %d), or mark RoCE into the lossless class (NCCL_IB_TC = DSCP×4 + 2).", dscp, prio, prio)
}
