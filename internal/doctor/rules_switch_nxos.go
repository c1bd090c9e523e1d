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
