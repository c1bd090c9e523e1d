package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// checkPGDropsAndWRED reports the ingress drops of priority groups (`show
// priority-group drop counters`) and what WRED did on each queue (`show
// queue wredcounters`): drops on a lossless PG or WRED drops on a lossless
// queue as errors, ECN marks as the evidence that marking is in effect.
func checkPGDropsAndWRED(inc *Incident) []Finding {
	lossless, from := switchLossless(inc)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, d := range s.PGDrops {
			if d.Packets == 0 {
				continue
			}
			if d.QoSGroup {
				fs = append(fs, qosGroupDrop(s, d))
				continue
			}
			sev, class := Warn, "lossy "
			mech := "A lossy priority group drops at ingress when its share of the shared buffer is used up; RoCE carried on it is lossy too."
			numbering, fix := "SONiC maps lossless priority N to PG N", "Check the PG's headroom against the cable and speed (`show priority-group watermark headroom`, `mmuconfig -l`, `config interface cable-length`), PFC on the peer NIC for this priority (mlnx_qos), and `show pfcwd stats` for a stormed queue."
			// NVUE maps switch priorities to PGs of its own numbering
			// (NVIDIA's example shows PGs 0 and 9): a PG's number is no
			// traffic class unless the counter is RoCE's own.
			guessed := strings.HasPrefix(d.Port, "swp") && !d.RoCE
			if strings.HasPrefix(d.Port, "swp") {
				numbering, fix = "the counter is RoCE's own (rx-roce-stats), so its PG is RoCE's", "Check the PG's headroom against the cable and speed (`nv show interface <swp> qos buffer ingress-priority-group`: XOFF Th and HR), PFC on the peer NIC for this priority (mlnx_qos), and `nv show interface <swp> counters qos pfc-stats` for the pause it sent."
			}
			switch {
			case guessed && hasPrio(lossless, d.PG):
				class = "possibly lossless "
				mech = fmt.Sprintf("Traffic class %d is lossless (%s), but NVUE numbers priority groups by its own map of switch priorities (`nv show qos priority-group`; NVIDIA's example uses PGs 0 and 9) and this output does not say which PG the lossless priorities use: if PG %d is theirs, an ingress drop means its headroom overflowed or the peer ignored the pause; if not, a lossy PG ran out of shared buffer.", d.PG, from, d.PG)
			case guessed:
				// No lossless class is known to be this PG, nor is any
				// known not to be: NVUE's PG numbers are its own.
				class = ""
				mech = fmt.Sprintf("NVUE numbers priority groups by its own map of switch priorities (`nv show qos priority-group`; NVIDIA's example uses PGs 0 and 9), and this output says neither which priorities PG %d holds nor whether it is lossless: on a lossless PG an ingress drop means its headroom overflowed or the peer ignored the pause; on a lossy one, that its share of the shared buffer was used up.", d.PG)
			case hasPrio(lossless, d.PG):
				sev, class = Error, "lossless "
				mech = fmt.Sprintf("PG %d is lossless (%s; %s): the port sends XOFF when the PG reaches its threshold and the headroom holds what is still in flight, so an ingress drop means the headroom overflowed (sized for a shorter cable, a smaller MTU or a lower speed), the peer ignored the pause (PFC off on the NIC or on this priority), or the PFC watchdog's drop action ran.", d.PG, from, numbering)
			}
			count := fmt.Sprintf("%d packets", d.Packets)
			if d.Approx {
				count = "about " + count
				mech += " NVUE prints the buffer discards, a frame count, with a byte unit (\"75.19 KB\"): the count is read back from it to the digits shown; `nv show interface " + d.Port + " counters qos ingress-buffer-stats -o json` gives it exact."
			}
			pg := fmt.Sprintf("%spriority group %d", class, d.PG)
			if class == "" {
				pg += " (NVUE's own numbering; whether it is lossless the output does not say)"
			}
			name := fmt.Sprintf("%s PG%d", swName(s, d.Port), d.PG)
			fs = append(fs, Finding{
				ID: "switch.queue.drops", Severity: sev, Layer: LayerFabric,
				Title:     fmt.Sprintf("%s: %s dropped at ingress on %s", name, count, pg),
				Evidence:  []Evidence{d.Evidence},
				Mechanism: mech + " Counted since the counters were last cleared.",
				Fix:       fix,
			}.per(name, "priority group", "Switch ingress drops per priority group"))
		}
		parts := summaryParts(s)
		for _, w := range s.WRED {
			port, summed := w.Port, ""
			if w.AllPorts {
				port, summed = "all ports", wredSummed
				if parts > 1 {
					port = fmt.Sprintf("all ports (ASIC table %d)", w.Part)
					summed += fmt.Sprintf(" On a multi-ASIC switch wredstat prints one summary per ASIC, untitled, in namespace order: this is table %d of the %d the command printed (`-n asicN` names one).", w.Part, parts)
				}
			}
			name := fmt.Sprintf("%s %s%d", swName(s, port), w.Type, w.Queue)
			if w.WREDDrop > 0 && w.Type != "MC" && hasPrio(lossless, w.Queue) {
				fs = append(fs, Finding{
					ID: "switch.queue.drops", Severity: Error, Layer: LayerFabric,
					Title:     fmt.Sprintf("%s: WRED dropped %d packets on lossless queue %d", name, w.WREDDrop, w.Queue),
					Evidence:  []Evidence{w.Evidence},
					Mechanism: fmt.Sprintf("Queue %d is lossless (%s). Its WRED profile drops the packets it would mark when they are not ECN-capable (ECT 0: a NIC with ECN off for RoCE, or traffic remarked on the way), or drops even ECN-capable ones when the profile's ecn mode leaves their colour out (ecn_none): a lossless class then loses packets before PFC acts. Counted since the counters were last cleared.", w.Queue, from) + summed + lossyIn(w),
					Fix:       "Make the RoCE senders ECN-capable (mlx5: /sys/class/net/<if>/ecn/roce_np/enable/<prio> and roce_rp, or the NIC's DCQCN switch) and set the profile's ecn mode to mark (`ecnconfig -p <profile> -m ecn_all`).",
				}.per(name, "queue", "Switch WRED drops on lossless queues"))
			}
			if w.ECNMarks > 0 {
				fs = append(fs, Finding{
					ID: "switch.ecn.marks", Severity: Info, Layer: LayerFabric,
					Title:     fmt.Sprintf("%s: %d packets marked CE", name, w.ECNMarks),
					Evidence:  []Evidence{w.Evidence},
					Mechanism: "The queue's WRED profile marked these packets Congestion Experienced instead of dropping them: ECN is in effect on it, and DCQCN senders whose traffic crossed it were told to slow down. Counted since the counters were last cleared." + summed,
				}.per(name, "queue", "Switch queues marking ECN"))
			}
		}
	}
	return fs
}

// wredSummed says what a row of `show queue wredcounters --summary` is
// and where wredstat's sum can fall short: after `sonic-clear queue
// wredcounters` each port's count is the difference ns_diff prints,
// comma-grouped from 1,000 on, which the summary's _to_int reads as 0.
const wredSummed = " `show queue wredcounters --summary` sums each queue over every port: `show queue wredcounters` without it names the ports that count. After `sonic-clear queue wredcounters` wredstat adds a port whose count since the clear reached 1,000 as 0 (it reads the comma-grouped difference as no number), so the sum can fall short."

// lossyIn is the caveat of a WRED drop summed over every port: which
// queues are lossless is each port's own setting.
func lossyIn(w ingest.QueueWRED) string {
	if !w.AllPorts {
		return ""
	}
	return fmt.Sprintf(" Whether queue %d is lossless is each port's setting (PORT_QOS_MAP's pfc_enable, `show pfc priority`): drops the sum holds from a port that does not pause it are WRED's by design there.", w.Queue)
}

// summaryParts is the number of summaries of `show queue wredcounters
// --summary` one command printed in s (one per ASIC).
func summaryParts(s *ingest.SwitchCounters) int {
	n := 0
	for _, w := range s.WRED {
		if w.AllPorts {
			n = max(n, w.Part)
		}
	}
	return n
}
