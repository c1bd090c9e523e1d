package doctor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Rules over the switch side (SONiC CLI; the PFC watchdog's are in
// rules_switch_pfcwd.go): ports that keep sending pause, queue drops split
// into lossy and lossless, PFC headroom, and ECN thresholds against the
// bandwidth-delay product.

func switchRules() []Rule {
	return []Rule{
		{IDs: []string{"switch.pfcwd.storm"}, Check: checkWatchdog},
		{IDs: []string{"switch.pfcwd.stopped"}, Check: checkWatchdogStopped},
		{IDs: []string{"switch.counters.mismatch"}, Check: checkCounterMismatch},
		{IDs: []string{"pfc.watchdog.range", "pfc.watchdog.big_red_switch"}, Check: checkWatchdogConfig},
		{IDs: []string{"switch.pfc.tx_pause"}, Check: checkSwitchTxPause},
		{IDs: []string{"switch.pfc.unplaced"}, Check: checkUnplacedPFC},
		{IDs: []string{"switch.pfc.rx_paused"}, Check: checkPFCHistory},
		{IDs: []string{"switch.queue.watermark"}, Check: checkQueueWatermarks},
		{IDs: []string{"switch.queue.drops"}, Check: checkQueueDrops},
		{IDs: []string{"switch.link.errors"}, Check: checkSwitchLinkErrors},
		{IDs: []string{"switch.fec.histogram"}, Check: checkFECHistogram},
		{IDs: []string{"switch.queue.trimmed"}, Check: checkQueueTrims},
		{IDs: []string{"switch.hw.drops"}, Check: checkHWDrops},
		{IDs: []string{"switch.queue.lossy_traffic"}, Check: checkQueueShare},
		{IDs: []string{"switch.queue.drops", "switch.ecn.marks"}, Check: checkPGDropsAndWRED},
		{IDs: []string{"switch.headroom.exhausted"}, Check: checkHeadroom},
		{IDs: []string{"switch.headroom.short"}, Check: checkProfileHeadroom},
		{IDs: []string{"switch.ecn.thresholds"}, Check: checkECNThresholds},
		{IDs: []string{"ecn.disabled"}, Check: checkECNOff},
		{IDs: []string{"switch.pfc.port_off"}, Check: checkEOSPFCOff},
		{IDs: []string{"switch.pfc.port_off"}, Check: checkNXOSPFCOff},
		{IDs: []string{"input.garbled"}, Check: checkSwitchGarbled},
		{IDs: []string{"input.garbled"}, Check: checkSwitchCutRows},
	}
}

// checkSwitchCutRows reports rows of switch counter tables (SONiC's,
// NX-OS's, Junos's, Dell OS10's) that end short of their columns or hold
// what the table cannot, so that no rule judged them. The fix names the
// command of the tables cut: OS10's rows say `show queuing statistics`.
func checkSwitchCutRows(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		var cmds []string
		for _, g := range s.CutRows {
			cmd := "run it into a file on the switch (`show queue counters > q.txt`) and copy the file"
			if strings.Contains(g.Expected, "`show queuing statistics`") {
				cmd = "on Dell OS10, run `terminal length 0`, then `show queuing statistics interface ethernet 1/1/1` (the port's), and copy all it prints"
			}
			if !slices.Contains(cmds, cmd) {
				cmds = append(cmds, cmd)
			}
		}
		if f, ok := garbledLines(s.Source(), "switch counters", s.CutRows,
			"These lines begin as rows of the switch table above them (a port, a queue or a priority, then its counters) but do not go on as the switch prints them: short of the table's columns, or a cell that is no count; the paste was cut or edited there or a long line wrapped, so their counters were judged by no rule.",
			"Pass the command's whole output, unwrapped: "+strings.Join(cmds, "; ")+"."); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// checkSwitchGarbled says which switch tables began as their tool prints
// them and could not be read (`nv show qos roce`, `nv show interface <swp>
// qos roce counters`), so that no rule judged them.
func checkSwitchGarbled(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, g := range s.Garbled {
			fs = append(fs, Finding{
				ID: "input.garbled", Severity: Warn, Layer: LayerInput,
				Title:     fmt.Sprintf("%s: a switch table could not be read: %s", s.Source(), g.Error(s.Source())),
				Evidence:  []Evidence{{File: s.Source(), Line: g.Line, Text: g.Text}},
				Mechanism: "The table begins as the switch prints it (an NVUE `nv show` table's \"operational  applied\" header: `nv show qos roce` or `nv show interface <swp> qos roce counters`) but does not go on as it does (edited, cut, wrapped in transit, or longer than one such table), so its PFC priorities, ECN thresholds or RoCE counters were judged by no rule.",
				Fix:       "Pass each command's unedited output once (`nv show qos roce > roce.txt`, `nv show interface <swp> qos roce counters > counters.txt` on the switch); for the RoCE configuration, `nv config show -o yaml` to `rocelab lint`.",
			}.per(s.Source(), "input", "Inputs with tables that could not be read"))
		}
	}
	return fs
}

// sonicLossless are SONiC's default lossless queues and priorities
// (sonic-buildimage files/build_templates/qos_config.j2: pfc_enable 3,4).
var sonicLossless = []int{3, 4}

// switchLossless returns the lossless queues: those the PFC watchdog
// watches, else the traffic classes `nv show qos roce` maps its PFC
// priorities to (none in a lossy mode), else those PFC is enabled on per
// the switch, else
// SONiC's default 3 and 4, and says where it came from.
func switchLossless(inc *Incident) ([]int, string) {
	seen := map[int]bool{}
	var qs []int
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, w := range s.WD {
			if w.Running() && !seen[w.Queue] {
				seen[w.Queue] = true
				qs = append(qs, w.Queue)
			}
		}
	}
	if len(qs) > 0 {
		sort.Ints(qs)
		return qs, "the queues the PFC watchdog watches"
	}
	for _, s := range All[*ingest.SwitchCounters](inc) {
		if r := s.NVUERoCE; r != nil {
			if len(r.Lossless) == 0 {
				return nil, "`nv show qos roce`: RoCE mode " + r.Mode + ", no lossless traffic class"
			}
			return slices.Clone(r.Lossless), "the traffic classes `nv show qos roce` maps its PFC priorities to"
		}
	}
	for _, s := range All[*ingest.SwitchCounters](inc) {
		if prios, _ := s.LosslessPrios(); len(prios) > 0 {
			return distinctInts(prios), "the priorities the switch enables PFC on"
		}
	}
	if cumulusOnly(inc) {
		return cumulusLossless, "Cumulus Linux's RoCE default: PFC on switch priority 3, which leaves by traffic class 3"
	}
	return sonicLossless, "SONiC's default lossless queues"
}

// os10NoLossless says why no queue of Dell OS10's is taken as lossless:
// none of switchLossless's sources speaks of them (the SONiC watchdog's
// queues, a switch's PFC priorities, which are no OS10 queue numbers, the
// defaults of SONiC and Cumulus Linux).
const os10NoLossless = "no input says which queue is lossless, and Dell OS10 keeps none lossless unless a network-qos policy pauses its qos-group (`pause`, `pfc-cos`) and the port runs `priority-flow-control mode on`"

// vrpNoLossless says why no queue of Huawei CloudEngine's is taken as
// lossless: the CloudEngine 6800 V300R023C00 command reference's `dcb pfc
// enable` ("By default, no PFC profile is applied to an interface") and
// `priority` (DCB PFC view: "By default, PFC is enabled for priority
// queue 3").
const vrpNoLossless = "no input says which queue is lossless, and Huawei CloudEngine runs PFC on a port only where `dcb pfc enable` applies a PFC profile to it (none by default), on the queues the profile's `priority` names (3 by default)"

// cumulusLossless is the lossless traffic class of Cumulus Linux's RoCE
// mode (`nv set qos roce`: PFC and ECN on switch priority 3, mapped to
// traffic class 3); traffic class 4 is lossy there.
var cumulusLossless = []int{3}

// cumulusOnly reports whether the switch queues of the incident are all
// NVIDIA Cumulus Linux's (swpN ports, as NVUE names them).
func cumulusOnly(inc *Incident) bool {
	seen := false
	for _, s := range All[*ingest.SwitchCounters](inc) {
		ports := make([]string, 0, len(s.Queues)+len(s.PGDrops))
		for _, q := range s.Queues {
			ports = append(ports, q.Port)
		}
		for _, d := range s.PGDrops {
			ports = append(ports, d.Port)
		}
		for _, port := range ports {
			if !strings.HasPrefix(port, "swp") {
				return false
			}
			seen = true
		}
	}
	return seen
}

// swName names a switch port, with the host NIC its LLDP neighbour names;
// a port the paste does not name (`show interfaces counters detailed`
// pasted without its command line prints none) is an unnamed port.
func swName(s *ingest.SwitchCounters, port string) string {
	if port == "" {
		port = unnamedPort
	}
	name := port
	if s.Switch != "" {
		name = s.Switch + " " + port
	}
	for _, n := range s.Neighbors {
		if n.Port == port {
			if nd := n.Netdev(); nd != "" {
				return name + " (to " + n.Device + " " + nd + ")"
			}
		}
	}
	return name
}

// unnamedPort stands for the port of counters that name none.
const unnamedPort = "unnamed port"

// sonicOnPort is a SONiC show command on port, or on every port when
// the counters named none.
func sonicOnPort(cmd, port string) string {
	if port == "" {
		return "`" + cmd + "`"
	}
	return "`" + cmd + " " + port + "`"
}

// linkPauseNote says what a `show interface(s)` pause counter cannot
// tell: which priority, and whether PFC or 802.3x global pause.
const linkPauseNote = " The count is the interface's pause counter of `show interface`, which does not split frames by priority (nor, on some platforms, PFC from 802.3x pause): the per-priority table (NX-OS `show interface priority-flow-control detail`, EOS `show priority-flow-control counters detail`) says whether it is the RoCE priority."

// aoscxPauseNote says what AOS-CX `show interface`'s Pause Frames cannot
// tell, and the commands of its manuals that do.
func aoscxPauseNote(port string) string {
	return " The count is AOS-CX `show interface`'s Pause Frames: one count of PFC and 802.3x pause frames together, over every priority. The port's configuration says which it can be (`flow-control priority N` is PFC on priority N, `flow-control rx` 802.3x), and `show dcbx interface " + port + "` which priorities run PFC on it and on its peer."
}

// globalPauseNote says what a Junos "MAC pause frames" count is: 802.3x
// pause only, since Junos counts PFC frames apart.
const globalPauseNote = " The count is the MAC statistics' \"MAC pause frames\": 802.3x global pause only, since Junos counts PFC frames apart under \"MAC Priority Flow Control Statistics\". A RoCE fabric runs PFC, so 802.3x pause here means flow control is on for this port (`show interfaces <port> extensive`: \"Flow control: Enabled\"), and it stops lossy traffic with the lossless."

// checkSwitchTxPause reports switch ports that send PFC pause on a
// priority: the port's ingress was congested, so it paused its upstream.
func checkSwitchTxPause(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		type key struct {
			port string
			prio int
			link bool
		}
		rx := map[key]uint64{}
		aoscx := map[string]bool{} // ports of AOS-CX `show interface`
		for _, p := range s.Ports {
			aoscx[p.Port] = aoscx[p.Port] || p.AOSCX
		}
		for _, p := range s.PFC {
			if p.Dir == ingest.RX {
				rx[key{p.Port, p.Prio, p.Link}] = p.Frames
			}
		}
		// A port whose per-priority table is in the same input counts the
		// same PFC frames again in its interface pause counter: that
		// counter is told only when it holds more than their sum (802.3x
		// pause, which no priority counts).
		perPrio := map[string]uint64{}
		hasPrios := map[string]bool{}
		for _, p := range s.PFC {
			if !p.Link && p.Dir == ingest.TX {
				perPrio[p.Port] += p.Frames
				hasPrios[p.Port] = true
			}
		}
		for _, h := range s.PFCHist {
			// Without RX counters, the history's pause transitions say
			// whether the port was paused on this priority itself.
			if k := (key{h.Port, h.Prio, false}); rx[k] == 0 && h.Transitions > 0 {
				rx[k] = uint64(h.Transitions)
			}
		}
		for _, p := range s.PFC {
			if p.Dir != ingest.TX || p.Frames == 0 || p.Link && !p.Global && hasPrios[p.Port] && p.Frames <= perPrio[p.Port] {
				continue
			}
			sev := Info
			if p.Frames >= 1000 {
				sev = Warn
			}
			in := rx[key{p.Port, p.Prio, p.Link}]
			role := "It also received pause on this priority: it sits in the path of congestion that started further downstream."
			if in == 0 {
				role = "It received no pause on this priority itself: the congestion starts at this port (its egress toward the receivers is the bottleneck) or at a receiver that does not drain."
			}
			name := swName(s, p.Port)
			what, on, subject := "PFC pause", fmt.Sprintf("on priority %d", p.Prio), fmt.Sprintf(" prio %d", p.Prio)
			switch {
			case p.Global:
				what, on, subject = "802.3x pause", "(global pause, which stops every priority of the link)", " pause"
				role = strings.ReplaceAll(role, "this priority", "any priority") + globalPauseNote
			case p.Link:
				what, on, subject = "pause", "(the interface's pause counter: 802.3x pause and PFC frames are not told apart, nor priorities)", " pause"
				note := linkPauseNote
				if aoscx[p.Port] {
					note = aoscxPauseNote(p.Port)
				}
				if c, ok := platformOf(p.Platform); ok && c.linkPause != "" {
					note = onPort(c.linkPause, p.Port)
				}
				role = strings.ReplaceAll(role, "this priority", "any priority") + note
				if hasPrios[p.Port] {
					role += fmt.Sprintf(" Its per-priority PFC counters sent %d frames in all: the other %d are 802.3x pause (or frames sent between the two reads).", perPrio[p.Port], p.Frames-perPrio[p.Port])
				}
			case p.Prio == ingest.AllPrios:
				on, subject = "over all priorities (the output counts them together)", ""
				role = strings.ReplaceAll(role, "this priority", "any priority")
			}
			fix := "Follow the pause to its root: the port that sends pause without receiving it is the congestion point (incast toward one receiver, an oversubscribed uplink, or a slow host). Make ECN mark there before PFC triggers (Kmin below the XOFF threshold) and check `show queue counters` on the egress toward the receiver."
			if aoscx[p.Port] {
				fix = "Follow the pause to its root: the port that sends pause without receiving it is the congestion point (incast toward one receiver, an oversubscribed uplink, or a slow host). Make ECN mark there before PFC triggers and check the egress queues toward the receiver (`show interface PORT queues`: Tx Errors are each queue's drops)."
			}
			if c, ok := platformOf(p.Platform); ok {
				fix = "Follow the pause to its root: the port that sends pause without receiving it is the congestion point (incast toward one receiver, an oversubscribed uplink, or a slow host). Make ECN mark there before PFC triggers and check the egress queues toward the receiver (" + onPort(c.queues, p.Port) + ") and the PFC frames per priority on each hop (" + onPort(c.pfc, p.Port) + ")."
			}
			cause := "A switch port sends PFC pause on a priority when the ingress buffer of that priority group crosses its XOFF threshold: traffic arrives faster than it can leave. "
			switch {
			case p.Global:
				cause = "A switch port sends 802.3x pause when its ingress buffer crosses its XOFF threshold, pausing every priority of the link: traffic arrives faster than it can leave. "
			case p.Link:
				// one count of PFC and 802.3x pause: not told to be PFC
				cause = "A switch port sends pause when an ingress buffer crosses its XOFF threshold (PFC: a priority group's, pausing that priority; 802.3x: the port's, pausing every priority): traffic arrives faster than it can leave. "
			}
			fs = append(fs, Finding{
				ID: "switch.pfc.tx_pause", Severity: sev, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: sent %d %s frames %s (received %d)", name, p.Frames, what, on, in),
				Evidence: []Evidence{p.Evidence},
				Mechanism: cause + role +
					" Counted since the counters were last cleared; take two dumps with `date` lines to see a rate.",
				Fix: fix,
			}.per(name+subject, "port", "Switch ports sending PFC pause"))
		}
	}
	return fs
}

// checkQueueDrops reports queue drops (egress, and a VOQ chassis' virtual
// output queues), lossless ones as errors, and ingress drops of the port
// counters.
func checkQueueDrops(inc *Incident) []Finding {
	lossOf := losslessOf(inc)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, q := range s.Queues {
			if q.DropPkts <= 0 {
				continue
			}
			qLossless, qFrom, known := lossOf(s, q)
			isLossless := q.Type != "MC" && known && hasPrio(qLossless, q.Queue)
			sev, class := Warn, "lossy"
			mech := "A lossy queue drops when its share of the buffer fills: TCP and other lossy traffic recovers, but RoCE carried here is lossy too."
			fix := "For RoCE on a lossless queue: check PFC on the priority end to end (`show pfc counters`, the peer NIC's mlnx_qos), the PG headroom (`show priority-group watermark headroom`, `mmuconfig -l`) against the cable length, and `show pfcwd stats`. For RoCE on a lossy queue: map its DSCP (26 by default) to a lossless queue."
			if q.EOS {
				fix = "For RoCE on a lossless queue: check PFC on the priority end to end (`show priority-flow-control counters`, the peer NIC's mlnx_qos), the headroom the port reserves (`show qos interfaces " + q.Port + "`, `show hardware counter drop`) against the cable length, and the watchdog (`show priority-flow-control counters watchdog`). For RoCE on a lossy queue: map its DSCP (26 by default) to a lossless traffic class (`qos map dscp 26 to traffic-class 3`)."
			}
			if q.QoSGroup {
				fs = append(fs, qosGroupEgressDrop(s, q))
				continue
			}
			switch {
			case isLossless:
				sev, class = Error, "lossless"
				mech = fmt.Sprintf("Queue %d is lossless (%s): PFC should pause the sender before the buffer fills, so any drop means PFC did not act in time (headroom too small for the cable and MTU), is off on the peer, or the watchdog dropped a stormed queue.", q.Queue, qFrom)
				if q.Type == "VOQ" {
					mech += " On a VOQ chassis this queue is the ingress ASIC's virtual output queue toward that system port: its packets wait there for the egress port's credits, so drops here are the ingress side running out (PFC toward the sender too late), or a stalled egress (paused by its own peer) whose credits never came."
				}
			case q.EOS && !known && q.Type != "MC":
				class = "" // titled by the share dropped
				mech = "A queue drops when its share of the buffer fills, and " + eosNoLossless + ". If PFC was meant to protect this queue's traffic (RoCE), it did not; if the queue is lossy, RoCE carried here is dropped instead of paused and recovers by go-back-N and timeouts."
				if q.Type == "VOQ" {
					mech += " EOS's VoQ counters are the ingress side's virtual output queues toward this port and traffic class: a packet waits there for the egress port's credits and is dropped when its share fills, so these drops are the egress port (or its paused peer) not draining as fast as traffic arrives for it."
				}
				fix = "See whether this traffic class is lossless: `show priority-flow-control`, `show qos interfaces " + q.Port + "` (or pass the running-config to `rocelab lint`). For RoCE: PFC on its priority end to end (`priority-flow-control priority 3 no-drop` on the switch, the same priority on the NICs) with ECN marking on its transmit queue (`random-detect ecn`)."
			case q.Type == "MC":
				sev, class = Info, "multicast"
				mech = "A multicast queue carries flooded, broadcast and multicast frames (ARP, unknown unicast in a VLAN, routing protocols); RoCE's connected queue pairs send unicast, which the unicast queues (UC) count, so these drops are not RoCE's."
				fix = "Nothing for RoCE. If they matter: what floods (unknown unicast while MAC tables age out, an ARP or broadcast storm) and the multicast queue's buffer share."
			}
			port := q.Port
			if q.Type == "VOQ" && q.Namespace != "" {
				port = q.Namespace + " " + port // each ASIC of a linecard has its own VOQ toward the port
			}
			name := fmt.Sprintf("%s %s%d", queueSwName(s, q, port), q.Type, q.Queue)
			count := plural(int(q.DropPkts), "packet", "packets")
			if q.DropsApprox {
				count = "about " + count
				mech += " NVUE prints tx-uc-buffer-discards, a frame count, with a byte unit (76993 frames as \"75.19 KB\"): the count is read back from it to the digits shown; `nv show interface " + q.Port + " counters qos -o json` gives it exact."
			}
			title := fmt.Sprintf("%s: %s dropped on %s queue %d (%s)", name, count, class, q.Queue, queueSent(q))
			if class == "" {
				title = unjudgedDropTitle(name, count, q, "sent")
			}
			if q.OS10 {
				// Dell OS10's queues: no input says which is lossless.
				// A paste may hold a second switch's tables: each row
				// names the switch of its own prompt.
				sw := queueSwName(s, q, port)
				name = fmt.Sprintf("%s queue %d", sw, q.Queue)
				title = unjudgedDropTitle(name, count, q, "sent, which OS10's Packets counts, and the drops")
				mech = "A queue drops when its share of the buffer fills, and " + os10NoLossless + ". If PFC was meant to protect this queue's traffic (RoCE), it did not (PFC off on the port or its priority, or headroom short); if the queue is lossy, RoCE carried here is dropped instead of paused and recovers by go-back-N and timeouts, and TCP by its own congestion control (an ECN-marking WRED profile on the queue keeps drops down for ECN-capable senders)."
				fix = "See whether this queue's qos-group is paused: `show running-configuration policy-map`, `show qos interface " + q.Port + "` (its network-qos policy with `pause` and `pfc-cos`, `priority-flow-control mode on`), or pass the running-configuration to `rocelab lint`. For RoCE: a lossless class end to end (pause on its qos-group, PFC on the NICs' priority) with ECN marking on its queue."
			}
			if q.Platform == ingest.HuaweiVRP {
				name = fmt.Sprintf("%s queue %d", queueSwName(s, q, port), q.Queue)
				title = unjudgedDropTitle(name, count, q, "passed")
				mech = "A queue drops when its share of the buffer fills, and " + vrpNoLossless + ". If PFC was meant to protect this queue's traffic (RoCE), it did not (no PFC profile on the port, its priority not in the profile, or headroom short); if the queue is lossy, RoCE carried here is dropped instead of paused and recovers by go-back-N and timeouts."
				fix = "See whether the port runs PFC on this queue: `display dcb pfc interface " + q.Port + "` (the PFC frames per queue) and the port's `dcb pfc enable` with its profile's `priority` (`display dcb pfc-profile`), or pass the running configuration to `rocelab lint`. For RoCE: PFC on its queue end to end (the same priority on the NICs) with ECN marking on the queue (`display qos ecn statistics interface " + q.Port + "` counts the packets marked)."
			}
			if few := fewDrops(q.DropPkts, queueSentCount(q)); sev == Warn && few != "" {
				sev, mech = Info, mech+few
			}
			fs = append(fs, Finding{
				ID: "switch.queue.drops", Severity: sev, Layer: LayerFabric,
				Title:     title,
				Evidence:  []Evidence{q.Evidence},
				Mechanism: mech + " Counted since the counters were last cleared.",
				Fix:       fix,
			}.per(name, "queue", "Switch queue drops"))
		}
		for _, p := range s.Ports {
			if p.TxDrop > 0 {
				fs = append(fs, txDropFinding(s, p))
			}
			if p.RxDrop > 0 {
				fs = append(fs, rxDropFinding(s, p))
			}
		}
	}
	return fs
}

// queueSent says what a queue sent: its count, or that the switch
// printed N/A there (a queue it does not count, not an idle one).
func queueSent(q ingest.QueueCount) string {
	if q.PacketsNA {
		return "packets sent N/A"
	}
	return fmt.Sprintf("of %d sent", q.Packets)
}

// queueSentCount is a queue's packets sent, -1 when printed N/A.
func queueSentCount(q ingest.QueueCount) int64 {
	if q.PacketsNA {
		return -1
	}
	return int64(q.Packets)
}

// unjudgedDropTitle titles drops on a queue no input says is lossless or
// not, by the share of what the queue took (its sent packets and its
// drops); sent says what the sent figure is.
func unjudgedDropTitle(name, count string, q ingest.QueueCount, sent string) string {
	took := q.Packets + uint64(q.DropPkts)
	return fmt.Sprintf("%s: %s dropped, %.1f%% of the %d it took (%d %s); lossless or not, no input says", name, count, 100*float64(q.DropPkts)/float64(took), took, q.Packets, sent)
}

// checkHeadroom reports lossless priority groups whose headroom was used,
// as exhausted when the same port dropped at ingress (RX_DRP, or a lossless
// PG's drop counter) or on a lossless queue.
func checkHeadroom(inc *Incident) []Finding {
	lossless, from := switchLossless(inc)
	lossOf := losslessOf(inc)
	var fs []Finding
	sws := All[*ingest.SwitchCounters](inc)
	dropped := map[string]Evidence{} // by switch and port, across inputs
	for _, s := range sws {
		for _, p := range s.Ports {
			if p.RxDrop > 0 {
				dropped[swName(s, p.Port)] = p.Evidence
			}
		}
		for _, q := range s.Queues {
			if qLossless, _, known := lossOf(s, q); q.DropPkts > 0 && known && hasPrio(qLossless, q.Queue) {
				dropped[swName(s, q.Port)] = q.Evidence
			}
		}
		for _, d := range s.PGDrops {
			if d.Packets > 0 && hasPrio(lossless, d.PG) {
				dropped[swName(s, d.Port)] = d.Evidence
			}
		}
	}
	const (
		mech = "Headroom holds what is still in flight after the port sends XOFF: the cable's round trip, the peer's response time and one MTU (SONiC's formula in sonic-swss buffer_headroom_mellanox.lua: xoff = MTU + 2·cable·rate/c + peer response). Used headroom means PFC fired; drops on the same port mean the in-flight data exceeded it: the headroom was sized for a shorter cable, a smaller MTU or a lower speed."
		fix  = "Compare the headroom profile (`mmuconfig -l`, `show buffer profile`) with the cable length and speed of this port (`config interface cable-length`, or SONiC's dynamic buffer model); raise xoff or shorten the cable assumption no further than the real cable."
	)
	for _, s := range sws {
		for _, g := range s.PGs {
			if !g.Headroom && !g.Untitled || g.Bytes == 0 || !hasPrio(lossless, g.PG) {
				continue
			}
			name := fmt.Sprintf("%s PG%d", swName(s, g.Port), g.PG)
			ev := []Evidence{g.Evidence}
			d, drop := dropped[swName(s, g.Port)]
			if drop {
				ev = append(ev, d)
			}
			peak := unit.Bytes(int64(g.Bytes)).Human()
			f := Finding{
				ID: "switch.headroom.exhausted", Severity: Info, Layer: LayerFabric,
				Title:     fmt.Sprintf("%s: PFC headroom used, peak %s (lossless per %s)", name, peak, from),
				Evidence:  evidenceInOrder(ev),
				Mechanism: mech,
				Fix:       fix,
			}
			switch {
			case g.Untitled:
				// `show priority-group watermark shared` and `headroom`
				// print the same header; only the title line tells them
				// apart. A shared peak is normal under load, a headroom
				// peak is PFC at work: the finding says both, and a drop
				// on the port is a warning, as headroom would be exhausted.
				f.Title = fmt.Sprintf("%s: peak %s in a priority-group watermark table without its title: headroom (PFC fired) or shared buffer, the output does not say (lossless per %s)", name, peak, from)
				if drop {
					f.Severity = Warn
					f.Title = fmt.Sprintf("%s: peak %s in a priority-group watermark table without its title, and the port dropped: if it is the headroom watermark, the headroom was exhausted (lossless per %s)", name, peak, from)
				}
				f.Mechanism = "The table has the header and rows of `show priority-group watermark` (or `persistent-watermark`) but not the title line that says which buffer it measures (\"Ingress headroom per PG:\" or \"Ingress shared pool occupancy per PG:\"), as pasted in sonic-utilities#2568; the two tables print the same header, and their JSON (-j) has no title at all, only the command echoed above it tells. Read as the shared watermark, the peak is the PG's use of the shared pool, normal under load. Read as the headroom watermark: " + mech
				f.Fix = "Run `show priority-group watermark headroom` and keep its title line (watermarkstat -t pg_headroom), or with -j the command line above the JSON, to know which it is. If it is headroom: " + fix
			case drop:
				f.Severity = Error
				f.Title = fmt.Sprintf("%s: PFC headroom exhausted: peak %s and the port dropped (lossless per %s)", name, peak, from)
			}
			fs = append(fs, f.per(name, "priority group", "Switch PFC headroom"))
		}
	}
	return fs
}

// Assumptions for the ECN check when nothing says otherwise.
const (
	// ecnRTTUS is the base RTT thresholds are judged against: 20 µs, the
	// one Huawei's AI Fabric guidance assumes (EDOC1100155250). It is the
	// same as scenario.DefaultECNRTT, which lint and calc use, so the
	// doctor and lint judge one profile alike (the doctor imports nothing
	// of the twin, hence the copy).
	ecnRTTUS       = 20
	ecnDefaultGbps = 100 // line rate when no artifact states one
)

// checkECNThresholds judges `ecnconfig -l` profiles against the
// bandwidth-delay product (JudgeECN, shared with lint).
func checkECNThresholds(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		rate, how, assumed := unit.BitRate(ecnDefaultGbps)*unit.Gbps, fmt.Sprintf("%d Gb/s assumed: no input states a line rate (%s)", ecnDefaultGbps, inc.Options.rateHint()), true
		if sp, ok := speedOf(inc, s.Scope()); ok {
			rate, how, assumed = sp.rate, "the hosts' NIC line rate, "+sp.rate.String()+" ("+sp.how+")", false
		} else if o := inc.Options; o.SwitchRate > 0 {
			rate, how, assumed = o.SwitchRate, o.SwitchRateHow, false
		}
		rtt, rttAssumed := ecnRTTUS*unit.Microsecond, true
		if o := inc.Options; o.SwitchRTT > 0 {
			rtt, rttAssumed = o.SwitchRTT, false
		}
		for _, p := range s.ECN {
			if p.GreenMin < 0 || p.GreenMax < 0 || p.ECN != "" && !strings.Contains(p.ECN, "ecn") || p.ECN == "ecn_none" {
				continue
			}
			note := ""
			if p.ECN == "" {
				// Some platforms print the thresholds without the mode row:
				// they are judged as marking thresholds, and the finding
				// says so.
				note = "The output shows no `ecn` mode row: the green thresholds are judged as ECN marking thresholds (if the profile only drops, `ecnconfig -p " + nameOr(p.Name, "<profile>") + " -m ecn_all` makes them mark)."
			}
			pmax := -1.0
			if p.GreenDropProbability >= 0 {
				pmax = float64(p.GreenDropProbability) / 100
			}
			subject := nameOr(p.Name, "WRED profile")
			if s.Switch != "" {
				subject = s.Switch + " " + subject // profiles of one name on several switches
			}
			units := p.Units
			if units == "" {
				units = "bytes (ecnconfig prints bytes)"
			}
			ev := p.Evidence
			if !rttAssumed && inc.Options.SwitchRTTAt.File != "" {
				ev = append(slices.Clip(ev), inc.Options.SwitchRTTAt)
			}
			mf, mnote, own := multiTCProfile(p, subject, ev)
			if own {
				fs = append(fs, mf)
				continue
			}
			if mnote != "" {
				note = strings.TrimSpace(note + " " + mnote)
			}
			fs = append(fs, JudgeECN(ECNProfile{
				Subject: subject, Kmin: unit.Bytes(p.GreenMin), Kmax: unit.Bytes(p.GreenMax), Pmax: pmax,
				Rate: rate, RateHow: how, RateAssumed: assumed, RTT: rtt, RTTAssumed: rttAssumed, XoffAt: inc.Options.SwitchXoff,
				Units: units, Evidence: ev, Note: note, KminName: p.MinName, KmaxName: p.MaxName, PmaxName: p.ProbName,
			}, true)...)
		}
	}
	return fs
}

// checkCounterMismatch reports a priority on which the CLI's PFC counters
// (`show pfc counters`, pfcstat) are zero on every port while the ASIC's
// own counter dump in the same input counts PFC frames.
func checkCounterMismatch(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		type key struct {
			dir  ingest.Dir
			prio int
		}
		asic := map[key]uint64{}
		asicEv := map[key]Evidence{}
		for _, a := range s.ASICPFC {
			k := key{a.Dir, a.Prio}
			asic[k] += a.Frames
			if _, ok := asicEv[k]; !ok && a.Frames > 0 {
				asicEv[k] = a.Evidence
			}
		}
		cli := map[key]uint64{}
		cliEv := map[key]Evidence{}
		shown := map[ingest.Dir]bool{}
		for _, p := range s.PFC {
			k := key{p.Dir, p.Prio}
			shown[p.Dir] = true
			cli[k] += p.Frames
			if _, ok := cliEv[k]; !ok {
				cliEv[k] = p.Evidence
			}
		}
		var keys []key
		for k := range asic {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i].dir < keys[j].dir || keys[i].dir == keys[j].dir && keys[i].prio < keys[j].prio
		})
		for _, k := range keys {
			if asic[k] == 0 || !shown[k.dir] || cli[k] != 0 {
				continue
			}
			dir := "received"
			if k.dir == ingest.TX {
				dir = "sent"
			}
			name := nameOr(s.Switch, s.Source())
			fs = append(fs, Finding{
				ID: "switch.counters.mismatch", Severity: Warn, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: the ASIC counts %d PFC frames %s on priority %d, the CLI's PFC counters show 0 on every port", name, asic[k], dir, k.prio),
				Evidence: []Evidence{asicEv[k], cliEv[k]},
				Mechanism: "The CLI's counters are read from the switch's counter database, which the flex-counter poller fills from the ASIC through SAI: they show 0 while the ASIC counts when PFC counter polling is off or stale (`counterpoll show`), when pfcstat subtracts a snapshot a `sonic-clear pfccounters` saved (its \"Last cached time\" line), or when the SAI maps the priority's counter wrongly. " +
					"Pause is then invisible to `show pfc counters`, the PFC watchdog and any alert built on them, while it throttles the port.",
				Fix: "Compare with the counter database (`redis-cli -n 2 hgetall COUNTERS:<port oid>`, SAI_PORT_STAT_PFC_" + fmt.Sprint(k.prio) + "_RX_PKTS; the oid from COUNTERS_PORT_NAME_MAP), check `counterpoll show` (PFCWD and PORT polling enabled), and `sonic-clear pfccounters` to reset the cached snapshot; report a SAI mismatch to the platform vendor.",
			}.per(fmt.Sprintf("%s prio %d %s", name, k.prio, dir), "priority", "CLI and ASIC PFC counters disagree"))
		}
	}
	return fs
}
