package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// checkNXOSPFCOff reports the ports Cisco NX-OS's `show interface
// priority-flow-control` lists with PFC operationally off, the NX-OS side
// of switch.pfc.port_off (checkEOSPFCOff is the EOS side). A port whose
// mode is Auto runs PFC only when DCBX agrees with its peer, so Auto with
// Oper Off is a negotiation that failed, not a port left unconfigured.
func checkNXOSPFCOff(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		var auto, off []string
		var ev []Evidence
		for _, p := range s.NXOSPFC {
			if p.Enabled {
				continue
			}
			if p.Mode == "Auto" {
				auto = append(auto, p.Port)
			} else {
				off = append(off, p.Port)
			}
			if len(ev) < 8 {
				ev = append(ev, p.Evidence)
			}
		}
		if len(auto)+len(off) == 0 {
			continue
		}
		name := nameOr(s.Switch, s.Source())
		mech := "PFC works per port and priority: a port whose PFC is off neither sends pause when its ingress buffer for a no-drop class fills nor stops when its link partner pauses it, so the class is lossy on that link and congestion drops its packets (RoCE's go-back-N then resends everything after each loss). "
		var parts []string
		if len(auto) > 0 {
			parts = append(parts, fmt.Sprintf("%s in mode Auto", list(auto, 8)))
			mech += "In mode Auto NX-OS runs PFC only when DCBX finds the peer's PFC settings equal to its own (the no-drop classes of its network-qos policy against the peer's): Oper Off there means the two ends disagree or the peer sends no DCBX. "
		}
		if len(off) > 0 {
			parts = append(parts, fmt.Sprintf("%s configured off", list(off, 8)))
			mech += "A port in mode Off does not run PFC whatever its peer says. "
		}
		port := off
		if len(auto) > 0 {
			port = auto
		}
		fs = append(fs, Finding{
			ID: "switch.pfc.port_off", Severity: Warn, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: PFC is operationally off on %s", name, strings.Join(parts, " and ")),
			Evidence:  ev,
			Mechanism: mech + "The RxPPP and TxPPP counts beside Off are frames counted since the last clear (while PFC ran, or received and ignored).",
			Fix:       fmt.Sprintf("Make both ends agree on the no-drop classes: the switch's `policy-map type network-qos` (pause no-drop / pause pfc-cos on the RoCE class) and the peer's (the NIC's mlnx_qos --pfc, a UCS QoS system class, the neighbour switch); `show lldp dcbx interface %s` shows what the peer offers. Or set `priority-flow-control mode on` on the interface to run PFC without DCBX. Then `show interface priority-flow-control` should show Oper On with the bitmap of the RoCE priority.", port[0]),
		}.per(name, "switch", "Switch ports with PFC disabled"))
	}
	return fs
}

// qosGroupDrop reports the ingress discards of an NX-OS qos-group (`show
// queuing interface`): an error on a group the switch calls no-drop.
func qosGroupDrop(s *ingest.SwitchCounters, d ingest.PGDrop) Finding {
	if d.PG < 0 {
		return portIngressDrop(s, d)
	}
	name := fmt.Sprintf("%s qos-group %d", swName(s, d.Port), d.PG)
	sev, class := Warn, "qos-group"
	mech := "The qos-group dropped packets on arrival: its ingress buffer was full. The output does not say whether the group is no-drop; RoCE carried on a drop group is lossy."
	if d.NoDrop {
		sev, class = Error, "no-drop qos-group"
		mech = "The switch's own drop-type line says this group is no-drop: the port should pause its peer (PFC) before the group's buffer fills, with xoff headroom for what is in flight, so a discard means PFC did not act on the link (operationally off, as `show interface priority-flow-control` shows when DCBX disagrees), the peer ignored the pause, or the headroom is short for the cable and MTU."
	}
	return Finding{
		ID: "switch.queue.drops", Severity: sev, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: %d packets discarded at ingress on %s %d", name, d.Packets, class, d.PG),
		Evidence:  []Evidence{d.Evidence},
		Mechanism: mech + " Counted since the counters were last cleared.",
		Fix:       fmt.Sprintf("Check PFC on %s (`show interface priority-flow-control`: Oper On with this class's priority in the bitmap) and on its peer, and the group's xon/xoff against the cable length; `show queuing interface` again after `clear qos statistics` gives a rate.", d.Port),
	}.per(name, "priority group", "Switch ingress drops per priority group")
}

// portIngressDrop reports a Nexus 9000 port's ingress drops over all its
// qos-groups (`show queuing interface`'s Ingress Overflow or MMU Drop
// Pkts): the counter does not say which group dropped, so the finding
// names the no-drop groups and the PFC the same port sent, and says what
// it cannot tell.
func portIngressDrop(s *ingest.SwitchCounters, d ingest.PGDrop) Finding {
	name := swName(s, d.Port)
	mech := fmt.Sprintf("%s counts the packets the port dropped on arrival because its ingress buffer was full, over all its qos-groups together: it does not say which class dropped, so these may be lossy traffic (which drops by design) or a no-drop class whose headroom overflowed.", d.Counter)
	if groups := d.NoDropGroups(); len(groups) > 0 {
		mech += fmt.Sprintf(" The same output gives qos-group %s a pause buffer (no-drop).", prioList(groups))
	} else {
		mech += " The output shown gives no qos-group a pause buffer, so no class of this port is shown no-drop."
	}
	ev := []Evidence{d.Evidence}
	var paused []string
	for _, p := range s.PFC {
		if p.Port == d.Port && p.Dir == ingest.TX && p.Prio != ingest.AllPrios && p.Frames > 0 {
			paused = append(paused, fmt.Sprintf("%d on priority %d", p.Frames, p.Prio))
			ev = append(ev, p.Evidence)
		}
	}
	if len(paused) > 0 {
		mech += fmt.Sprintf(" The port sent PFC pause (%s): its no-drop class filled up to XOFF too, and when the drops are that class's, the pause came too late for what was in flight (headroom short for the cable and MTU) or the peer ignored it.", strings.Join(paused, ", "))
	}
	return Finding{
		ID: "switch.queue.drops", Severity: Warn, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: %s dropped at ingress (%s, all qos-groups together: the class is not shown)", name, plural(int(d.Packets), "packet", "packets"), d.Counter),
		Evidence:  evidenceInOrder(ev),
		Mechanism: mech + " Counted since the counters were last cleared.",
		Fix:       fmt.Sprintf("Clear the counters (`clear qos statistics interface %s`) and read `show queuing interface %s` again under the job: drops that grow while lossy traffic is idle, or beside TxPPP on the RoCE priority, are the no-drop class's; then check the pause buffer and thresholds of the no-drop group (`pause buffer-size`, `pause-threshold` in the ingress queuing policy) against the cable length, and PFC on the peer NIC (mlnx_qos).", d.Port, d.Port),
	}.per(name, "port", "Switch ingress drops")
}

// qosGroupEgressDrop reports a Nexus 9000 qos-group's egress drops (`show
// queuing interface`'s WRED/AFD & Tail Drop Pkts): an error on a group the
// same output gives a pause buffer, a warning on one it does not or that
// it does not show.
func qosGroupEgressDrop(s *ingest.SwitchCounters, q ingest.QueueCount) Finding {
	kind := map[string]string{"UC": "unicast", "MC": "multicast"}[q.Type]
	if kind == "" {
		kind = q.Type
	}
	name := fmt.Sprintf("%s qos-group %d %s", swName(s, q.Port), q.Queue, kind)
	sev, class := Warn, "qos-group"
	mech := "The qos-group's egress queue dropped packets: WRED or AFD dropped them or the queue was full (tail drop); the counter does not tell the two apart. The output shown does not say whether the group is no-drop (its ingress pause table does)."
	switch {
	case q.Type == "MC":
		sev, class = Info, "multicast"
		mech = "The qos-group's multicast queue dropped packets; RoCE's connected queue pairs send unicast, so these drops are not RoCE's."
	case q.DropType == "no-drop":
		sev, class = Error, "no-drop qos-group"
		mech = "The same output gives this group a pause buffer: it is no-drop, and PFC should hold its senders back before its queue overflows, so egress drops mean WRED dropped packets that are not ECN-capable (its random-detect without `ecn`, or senders with ECN off), or the queue filled while PFC did not reach the senders (off on the peer or on this priority)."
	case q.DropType == "drop":
		class = "drop qos-group"
		mech = "The same output gives this group no pause buffer: it is a drop class, and drops there are lossy traffic's, or RoCE's when its DSCP is mapped to this group."
	}
	return Finding{
		ID: "switch.queue.drops", Severity: sev, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: %s dropped on %s %d (of %d sent)", name, plural(int(q.DropPkts), "packet", "packets"), class, q.Queue, q.Packets),
		Evidence:  []Evidence{q.Evidence},
		Mechanism: mech + " Counted since the counters were last cleared.",
		Fix:       "Check the group's queuing policy (`show policy-map type queuing`): `random-detect ... ecn` on the RoCE class so it marks instead of dropping, and PFC on its CoS end to end (`show interface priority-flow-control`, the peer NIC's mlnx_qos).",
	}.per(name, "queue", "Switch queue drops")
}
