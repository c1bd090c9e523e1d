package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
)

// A switch config can be lossy on purpose: NVIDIA's Spectrum-X AI SKUs
// (sonic-buildimage's SN5600 C256S1, SN5640 C512S2 and their kin) write
// pfc_enable empty on every port, send every class to priority group 0
// and keep no PFC headroom. Read rule by rule, such a config is "PFC off
// on every priority" and "ECN never marks RoCE"; read as a whole it is one
// decision, right or wrong depending on the NICs, and is reported once.

// A switch OS's configuration that names PFC nowhere is lossy on purpose
// only where ECN marks RoCE's queue: NVIDIA's Resilient RoCE (RoCE over a
// network without flow control, ConnectX-4 Lx on) asks of the switches that
// they mark ECN, and DCQCN is then the only brake (Mellanox community,
// "Introduction to Resilient RoCE - FAQ", community.mellanox.com/docs/DOC-2499).
// With neither PFC nor ECN on RoCE's queue nothing was chosen: PFC was
// forgotten, and qos.pfc.disabled says so. A config_db whose PORT_QOS_MAP
// rows write no pfc_enable is lossy by design where it sends every class
// to one priority group or no buffer profile keeps xoff (Nexthop NH-4010,
// Dell S5232F-P: lossy pools and profiles only); it forgot the field only
// where a profile keeps PFC headroom (xoff) that nothing pauses into.

// lossyDesigns returns the configs that are lossy by design.
func (m *Model) lossyDesigns() map[*sonic.ConfigDB]sonic.LossyDesign {
	out := map[*sonic.ConfigDB]sonic.LossyDesign{}
	for _, db := range m.Sonic {
		if d, ok := db.LossyByDesign(); ok && (!d.NoPFCWritten || m.marksRoCE(db)) {
			out[db] = d
		}
	}
	return out
}

// roceKnownIn reports whether some side of db knows RoCE's class.
func (m *Model) roceKnownIn(db *sonic.ConfigDB) bool {
	for _, s := range m.sws {
		if s.DB == db && s.TC >= 0 {
			return true
		}
	}
	return false
}

// marksRoCE reports whether, on every side of db whose RoCE class is known
// (one at least), RoCE's queue marks ECN within a switch's buffer.
func (m *Model) marksRoCE(db *sonic.ConfigDB) bool {
	n := 0
	for _, s := range m.sws {
		if s.DB != db || s.TC < 0 {
			continue
		}
		if !m.lossyECN(db, s.TC).marks {
			return false
		}
		n++
	}
	return n > 0
}

// lossyByDesign is the one finding for a config lossy on purpose: warn,
// error when the NICs run PFC (they expect a lossless class the switch
// does not keep), info when they run none either.
func (m *Model) lossyByDesign(db *sonic.ConfigDB, d sonic.LossyDesign, s switchSide) doctor.Finding {
	r := m.roce
	ev := []Evidence{sonicEv(db, d.PFCEnableAt)}
	var how []string
	if d.OnePG.Line > 0 {
		ev = append(ev, sonicEv(db, d.OnePG))
		how = append(how, "every traffic class shares one priority group (TC_TO_PRIORITY_GROUP_MAP)")
	}
	if d.OneClass.Line > 0 {
		ev = append(ev, sonicEv(db, d.OneClass))
		how = append(how, "every DSCP lands in one traffic class (DSCP_TO_TC_MAP), so no class can be kept lossless apart from the rest")
	}
	if d.NoXoffAt.Line > 0 {
		ev = append(ev, sonicEv(db, d.NoXoffAt))
		how = append(how, "no buffer profile keeps PFC headroom (xoff)")
	}
	pfc := "pfc_enable is empty on every port"
	switch {
	case d.PFCEnableAbsent:
		pfc = "no PORT_QOS_MAP row writes pfc_enable (PFC on no priority)"
	case d.PFCEnableMixed:
		pfc = "pfc_enable is empty or not written on every port (PFC on no priority)"
	}
	title := fmt.Sprintf("%s: lossy by design: %s and %s", db.File, pfc, strings.Join(how, ", and "))
	if d.NoPFCWritten {
		title = fmt.Sprintf("%s: lossy by design: no line turns PFC on or declares a class lossless (%s)", db.File, noPFCWords(db))
	}
	if d.RoCEMode.Line > 0 {
		title = fmt.Sprintf("%s: lossy by design: qos roce mode %s (NVUE), with no PFC", db.File, d.RoCEMode.Text)
	}
	if s.TC >= 0 {
		title += "; " + r.lands(s)
		ev = append(ev, s.TCEv)
	}
	ecn := m.lossyECN(db, s.TC)
	if ecn.text != "" {
		title += ", " + ecn.text
		ev = append(ev, ecn.ev...)
	}
	f := doctor.Finding{
		ID: "qos.lossy.by_design", Severity: doctor.Warn, Layer: doctor.LayerFabric,
		Title:   title,
		Subject: db.File,
		Mechanism: "The switch never sends a pause and drops when a queue fills: no class is lossless. This is a choice, as NVIDIA's Spectrum-X AI SKUs ship (SN5600 C256S1, SN5640 C512S2): RoCE then relies on the NICs, not on PFC, to avoid and recover loss — " +
			"adaptive routing or packet spraying across the fabric, end-to-end congestion control that reacts before queues overflow, and out-of-order placement with selective retransmission (Spectrum-X SuperNICs: BlueField-3, ConnectX-8). " +
			"With NICs that expect PFC (a lossless priority in mlnx_qos, go-back-N recovery, DCQCN waiting for ECN marks) every overflow becomes a go-back-N retransmission and, for a lost tail, an ACK timeout: bandwidth collapses under incast.",
		Fix: "If the NICs are Spectrum-X SuperNICs with their congestion control and adaptive routing on, keep it and run the NICs without PFC (mlnx_qos -i <if> --pfc 0,0,0,0,0,0,0,0). " +
			fmt.Sprintf("If they are ordinary RoCE NICs, give RoCE a lossless class end to end instead: the platform's default SKU or pfc_enable with class %d on every port, a priority group with lossless headroom for it, ECN marking on its queue, and PFC on the same priority on the NICs.", max(s.TC, 3)),
		Evidence: evs(ev...),
	}
	if isNVUE(db) {
		f.Fix = "If the NICs are Spectrum-X SuperNICs with their congestion control and adaptive routing on, keep it and run the NICs without PFC (mlnx_qos -i <if> --pfc 0,0,0,0,0,0,0,0). " +
			"If they are ordinary RoCE NICs, give RoCE a lossless class end to end instead: " + losslessFix(m, db, s)
	}
	if ecn.marks {
		if d.NoPFCWritten {
			// A switch OS's config naming PFC nowhere, with ECN on RoCE's
			// queue as the design's brake: with NICs not known, it is a
			// choice to state, not a fault.
			f.Severity = doctor.Info
			f.Mechanism = "No priority is paused and no class is lossless: the switch drops when RoCE's queue overflows, and ECN marking on that queue is what slows senders first. " +
				"That is RoCE over a lossy network by design (NVIDIA's Resilient RoCE, ConnectX-4 Lx and later; Spectrum-X; the lossy RoCE mode NVIDIA's switches set with `roce lossy` on Onyx and `nv set qos roce mode lossy` on Cumulus Linux), and it holds only while: DCQCN runs on every NIC for RoCE's priority (the NICs answer marks with CNPs and slow down); the queue marks early enough that senders slow before it overflows; and the NICs recover a drop fast (ConnectX adaptive retransmission and slow restart, mlxreg ROCE_ACCL roce_adp_retrans_en / roce_slow_restart_en, tuned to the fabric's round trip). " +
				"Each drop still costs a go-back-N retransmission on NICs without selective repeat, so incast beyond what the marks absorb shows as retransmissions and lower bandwidth than a lossless class gives."
			f.Fix = fmt.Sprintf("Nothing if lossy is the design: check DCQCN on RoCE's priority on every NIC (/sys/class/net/<if>/ecn/roce_rp/enable/%d and roce_np = 1) and PFC off there too (mlnx_qos -i <if> --pfc 0,0,0,0,0,0,0,0), and watch out-of-sequence and retransmission counters. "+
				"If RoCE was meant lossless: %s", max(s.TC, 0), losslessFix(m, db, s))
		}
		// The design's brake is DCQCN: a NIC that does not run it on
		// RoCE's priority leaves nothing to slow senders.
		p := m.rocePriority()
		var off []string
		for _, c := range m.masks {
			if c.Mask&(1<<p) == 0 {
				off = append(off, c.Name)
				f.Evidence = evs(append(f.Evidence, c.Evidence)...)
			}
		}
		if len(off) > 0 {
			f.Severity = doctor.Error
			f.Title += fmt.Sprintf("; but DCQCN is off on priority %d on %s: with neither PFC nor congestion control, nothing slows senders before the queue drops", p, list(off, 3))
			f.Fix = fmt.Sprintf("Turn DCQCN on for RoCE's priority on those NICs (echo 1 > /sys/class/net/<if>/ecn/roce_rp/enable/%d and roce_np/enable/%d, or mlxconfig ROCE_CC_PRIO_MASK_P1=%#x), or give RoCE a lossless class: %s", p, p, 1<<p, losslessFix(m, db, s))
			return f
		}
	}
	var pfcNICs, lossyNICs []string
	for _, n := range m.nics {
		if !n.PFCKnown {
			continue
		}
		if len(n.PFC) > 0 {
			pfcNICs = append(pfcNICs, n.Name)
			f.Evidence = evs(append(f.Evidence, n.PFCEv)...)
		} else {
			lossyNICs = append(lossyNICs, n.Name)
		}
	}
	switch {
	case len(pfcNICs) > 0:
		f.Severity = doctor.Error
		f.Title += fmt.Sprintf("; but %s run PFC, expecting a lossless class this switch does not keep", list(pfcNICs, 3))
	case len(lossyNICs) > 0:
		f.Severity = doctor.Info
		f.Title += fmt.Sprintf("; %s run no PFC either", list(lossyNICs, 3))
	}
	return f
}

// lossyECN says whether the queue of class tc marks ECN in a lossy
// config: what, with no PFC, slows senders before the queue drops.
type lossyECNState struct {
	text string
	ev   []Evidence
	// marks: the queue marks ECN below what it can hold (neverMarks).
	marks bool
}

// lossyECNBeyond is a marking threshold past which a queue never marks in
// practice where the config does not say which pool the queue draws on:
// more than a whole switch ASIC's buffer (64 MiB).
const lossyECNBeyond = 64 << 20

// neverMarks says why a queue whose marking starts at kmin bytes never
// marks in practice ("" when it may): kmin is at least the size of the
// egress BUFFER_POOL the queue's BUFFER_QUEUE profile draws on, which
// bounds the queue; or, where the config does not hold that pool,
// lossyECNBeyond. A pool the config sizes below kmin is the bound whatever
// lossyECNBeyond says: Spectrum-4 and Tomahawk 5 pools exceed 100 MB, so a
// threshold of 136 MB is beyond a 108 MB pool, not beyond "a switch's
// buffer". An egress pool written without a size (the dynamic buffer
// model, where buffermgrd sizes it) bounds the queue by what is not
// written: unjudged names it, and the queue is not judged never to mark.
func neverMarks(db *sonic.ConfigDB, port string, queue int, kmin int64) (why string, at []Evidence, unjudged string) {
	if prof, ok := db.QueueProfile(port, queue); ok {
		if pr, ok := db.Profile(strings.TrimSpace(prof.Text)); ok {
			name := strings.TrimSpace(pr.Pool.Text)
			if typ, ok := db.Field("BUFFER_POOL", name, "type"); ok && strings.EqualFold(strings.TrimSpace(typ.Text), "egress") {
				size, at, sized := db.PoolSize(name)
				switch {
				case !sized:
					return "", nil, fmt.Sprintf("%s, the pool queue %d draws on, has no size (sized at run time): whether it reaches %d bytes is not judged", name, queue, kmin)
				case kmin < size:
					return "", nil, ""
				}
				return fmt.Sprintf("beyond the %d bytes of %s, the pool queue %d draws on (BUFFER_QUEUE profile %s)", size, name, queue, pr.Name), []Evidence{sonicEv(db, prof), sonicEv(db, at)}, ""
			}
		}
	}
	if kmin >= lossyECNBeyond {
		return "more than a switch's buffer", nil, ""
	}
	return "", nil, ""
}

func (m *Model) lossyECN(db *sonic.ConfigDB, tc int) lossyECNState {
	if tc < 0 {
		return lossyECNState{}
	}
	for _, q := range db.Queues() {
		if !slices.Contains(q.Queues, tc) {
			continue
		}
		queue, none := fmt.Sprintf("queue %d", tc), "WRED/ECN profile"
		if isNVUE(db) {
			// The switch priority is in the title; its traffic class is
			// what NVUE's congestion-control configures.
			queue, none = "traffic class", "congestion-control entry"
		}
		if q.WREDProfile.Text == "" {
			return lossyECNState{text: fmt.Sprintf("whose %s has no %s: nothing marks ECN for it", queue, none), ev: []Evidence{sonicEv(db, q.Scheduler)}}
		}
		w, ok := db.WREDProfile(q.WREDProfile.Text)
		if !ok {
			return lossyECNState{}
		}
		marks := marksGreen(w)
		unmarked, known := greenUnmarked(db, w)
		if marks && db.Vendor == "" && unmarked && known {
			platform, _ := db.Field("DEVICE_METADATA", "localhost", "platform")
			if platform.Text == "" {
				platform, _ = db.Field("DEVICE_METADATA", "localhost", "hwsku")
			}
			green, at := fmt.Sprintf("wred_green_enable %q", w.GreenEnable.Text), w.GreenEnable
			if at.Line == 0 {
				green, at = "no wred_green_enable (SAI's default, false)", w.ECN
			}
			return lossyECNState{text: fmt.Sprintf("whose %s marks nothing: %s has ecn %s with %s, which on %s (not NVIDIA Spectrum, whose SAI alone marks without it) leaves green packets, RoCE's, out of ECN", queue, ecnName(db, w.Name), w.ECN.Text, green, platform.Text), ev: []Evidence{sonicEv(db, q.WREDProfile), sonicEv(db, at), sonicEv(db, platform)}}
		}
		if !w.OK {
			if !marks {
				return lossyECNState{}
			}
			if w.MinAt.Text == "" || w.MaxAt.Text == "" {
				// SAI's default green thresholds, 0, are the maximum
				// buffer size.
				return lossyECNState{text: fmt.Sprintf("whose %s marks ECN only at the maximum buffer size (%s sets no green thresholds: SAI's default): in practice never", queue, ecnName(db, w.Name)), ev: []Evidence{sonicEv(db, q.WREDProfile), sonicEv(db, w.ECN)}}
			}
			// Thresholds not in bytes (Junos's fill levels): it marks,
			// where is not judged.
			return lossyECNState{text: fmt.Sprintf("whose %s marks ECN (%s, thresholds in %s: not judged)", queue, ecnName(db, w.Name), w.MinAt.Text), ev: []Evidence{sonicEv(db, q.WREDProfile), sonicEv(db, w.ECN)}, marks: true}
		}
		ev := []Evidence{sonicEv(db, q.WREDProfile), sonicEv(db, w.MinAt)}
		why, at, unjudged := neverMarks(db, q.Ports[0], tc, w.Min)
		if why != "" {
			return lossyECNState{text: fmt.Sprintf("whose %s marks ECN only above %d bytes (%s), %s: in practice never", queue, w.Min, ecnName(db, w.Name), why), ev: append(ev, at...)}
		}
		if unjudged != "" {
			unjudged = "; " + unjudged
		}
		mode := w.ECN.Text
		if isNVUE(db) {
			mode = "ecn enable"
			if w.ECN.Text != "ecn_all" {
				mode = "ecn disable"
			}
		}
		if marks && unmarked && !known {
			// As sonicECNMode reads it: on an ASIC the config does not
			// name, whether green packets, RoCE's, are marked is not
			// judged, and the queue is not counted as marking.
			return lossyECNState{text: fmt.Sprintf("whose %s marks ECN from %d to %d bytes only if the ASIC marks green packets without wred_green_enable (%s, %s; DEVICE_METADATA names no platform: not judged)", queue, w.Min, w.Max, ecnName(db, w.Name), mode), ev: append(ev, sonicEv(db, w.ECN))}
		}
		return lossyECNState{text: fmt.Sprintf("whose %s marks ECN from %d to %d bytes (%s, %s%s)", queue, w.Min, w.Max, ecnName(db, w.Name), mode, unjudged), ev: ev, marks: marks}
	}
	return lossyECNState{}
}

// noPFCWords names, in the words of a switch OS, what its configuration
// would hold to make a class lossless.
func noPFCWords(db *sonic.ConfigDB) string {
	switch db.Vendor {
	case sonic.VendorJunos:
		return "no no-loss forwarding class, no congestion-notification-profile input that pauses"
	case sonic.VendorEOS:
		return "no `priority-flow-control on`, no `priority N no-drop`"
	case sonic.VendorNXOS:
		return "no network-qos class with `pause pfc-cos`, no `priority-flow-control mode`"
	case sonic.VendorOS10:
		return "no network-qos class with `pause` and `pfc-cos`, no `priority-flow-control mode on`"
	case sonic.VendorAOSCX:
		return "no `flow-control priority`, no lossless `qos pool`"
	case sonic.VendorFTOS:
		return "no `dcb-map` with `pfc on`, no `dcb-input`"
	case sonic.VendorOnyx:
		return "no `dcb priority-flow-control`, no `roce` or `roce lossless`"
	}
	return "no PFC line"
}

// losslessFix is how a config lossy by design would give RoCE a lossless
// class instead, in its switch OS's words.
func losslessFix(m *Model, db *sonic.ConfigDB, s switchSide) string {
	tc := max(s.TC, 3)
	switch db.Vendor {
	case sonic.VendorJunos:
		return m.junosPFCFix(m.roce.DSCP, s)
	}
	if isNVUE(db) {
		return "nv set qos roce mode lossless (PFC on switch priority 3 and ECN marking on its traffic class), and PFC on the same priority on the NICs."
	}
	if cmd := pfcOnCommand(db, tc); cmd != "" {
		// The switch OS's own commands (EOS, NX-OS, OS10, AOS-CX, FTOS).
		return fmt.Sprintf("%s, ECN kept on its queue, and PFC on the NICs' priority %d.", cmd, tc)
	}
	return fmt.Sprintf("PFC on class %d on every port (a priority the NICs put RoCE on, with headroom for it), ECN kept on its queue, and PFC on the same priority on the NICs.", tc)
}
