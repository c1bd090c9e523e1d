package doctor

import (
	"fmt"
	"time"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// pauseLong is the pause length `show pfc counters --history` must show
// to be more than polling noise: the history is estimated at the PFC
// watchdog's poll interval (200 ms by default, 1000 ms at most: sonic-
// utilities pfcwd/main.py), so every pause it sees lasts at least one
// poll; a pause longer than the largest interval spans several polls and
// is far beyond the watchdog's default 200 ms detection time.
const pauseLong = time.Second

// checkQueueWatermarks reports lossless unicast queues whose egress
// watermark (`show queue watermark` / `persistent-watermark`) is above
// zero: evidence that the queue buffered, so its egress was congested at
// some point. N/A cells (no counter on the platform) and multicast queues,
// which RoCE never uses, say nothing.
func checkQueueWatermarks(inc *Incident) []Finding {
	lossless, from := switchLossless(inc)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, w := range s.QueueWMs {
			if w.Bytes <= 0 || w.Type == "MC" || !hasPrio(lossless, w.Queue) {
				continue
			}
			name := fmt.Sprintf("%s %s%d", swName(s, w.Port), w.Type, w.Queue)
			fs = append(fs, Finding{
				ID: "switch.queue.watermark", Severity: Info, Layer: LayerFabric,
				Title:     fmt.Sprintf("%s: lossless queue %d buffered, peak %s of shared buffer (lossless per %s)", name, w.Queue, unit.Bytes(w.Bytes).Human(), from),
				Evidence:  []Evidence{w.Evidence},
				Mechanism: "The watermark is the most the queue held in the egress shared pool since it was last read or cleared (persistent-watermark: since cleared): a lossless queue holds packets when its port cannot send as fast as they arrive (incast toward the port's peer, or the peer pausing it), and as it fills the ingress PGs feeding it reach XOFF and pause upstream.",
				Fix:       "If it comes with pause or drops: `show pfc counters` on this port and its feeders, ECN marking on this queue (`show queue wredcounters`, Kmin below the XOFF point).",
			}.per(name, "queue", "Switch lossless queues that buffered"))
		}
	}
	return fs
}

// checkPFCHistory reports lossless priorities a switch port was paused on
// per `show pfc counters --history`: how long, in how many pauses; a
// warning when the latest or the mean pause lasted longer than pauseLong.
// The history gives no elapsed time, so no share of time is computed.
func checkPFCHistory(inc *Incident) []Finding {
	lossless, from := switchLossless(inc)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, h := range s.PFCHist {
			if h.TotalUS <= 0 || !hasPrio(lossless, h.Prio) {
				continue
			}
			total := time.Duration(h.TotalUS) * time.Microsecond
			recent := time.Duration(max(h.RecentUS, 0)) * time.Microsecond
			var mean time.Duration
			if h.Transitions > 0 {
				mean = total / time.Duration(h.Transitions)
			}
			sev := Info
			if recent > pauseLong || mean > pauseLong {
				sev = Warn
			}
			name := swName(s, h.Port)
			fs = append(fs, Finding{
				ID: "switch.pfc.rx_paused", Severity: sev, Layer: LayerFabric,
				Title: fmt.Sprintf("%s: paused %s on lossless priority %d in %d pauses (mean %s, latest %s)", name, total.Round(time.Millisecond), h.Prio, h.Transitions,
					mean.Round(time.Millisecond), recent.Round(time.Millisecond)),
				Evidence:  []Evidence{h.Evidence},
				Mechanism: fmt.Sprintf("Priority %d is lossless (%s). The port's peer paused it: the peer's ingress buffer for this priority crossed XOFF, so the peer (a NIC that cannot drain, or the next switch's congested egress) holds this port's traffic. The watchdog estimates these times by polling (every 200 ms by default), so each pause counts at least one poll; a pause longer than %s spans several polls and far exceeds the watchdog's 200 ms detection time (a storm, or a peer that drains too slowly), while many short ones are ordinary congestion. Totals count since the counters were last cleared.", h.Prio, from, pauseLong),
				Fix:       "Find the device on this port (`show lldp table`) and check it: a host NIC's rx buffer and tx_pause counters (ethtool -S), a switch's `show pfc counters` and queue watermarks toward its receivers; keep the PFC watchdog running on this priority (`show pfcwd stats`).",
			}.per(name+fmt.Sprintf(" prio %d", h.Prio), "port", "Switch ports paused by their peer"))
		}
	}
	return fs
}
