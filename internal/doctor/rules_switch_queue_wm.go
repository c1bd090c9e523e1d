package doctor

import (
	"fmt"
	"time"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// pauseStorm is the PFC watchdog's default detection time (SONiC pfcwd,
// 200 ms): a single pause as long as this is what the watchdog would call
// a storm.
const pauseStorm = 200 * time.Millisecond

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
				Title:     fmt.Sprintf("%s: lossless queue %d buffered, peak %s of shared buffer (lossless per %s)", name, w.Queue, unit.Bytes(w.Bytes), from),
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
// warning when one pause lasted as long as the watchdog's detection time.
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
			if recent >= pauseStorm || mean >= pauseStorm {
				sev = Warn
			}
			name := swName(s, h.Port)
			fs = append(fs, Finding{
				ID: "switch.pfc.rx_paused", Severity: sev, Layer: LayerFabric,
				Title: fmt.Sprintf("%s: paused %s on lossless priority %d in %d pauses (mean %s, latest %s)", name, total.Round(time.Millisecond), h.Prio, h.Transitions,
					mean.Round(time.Millisecond), recent.Round(time.Millisecond)),
				Evidence:  []Evidence{h.Evidence},
				Mechanism: fmt.Sprintf("Priority %d is lossless (%s). The port's peer paused it: the peer's ingress buffer for this priority crossed XOFF, so the peer (a NIC that cannot drain, or the next switch's congested egress) holds this port's traffic. Pauses of %s or longer are what the PFC watchdog's default detection time calls a storm; many short ones are ordinary congestion. Totals count since the counters were last cleared.", h.Prio, from, pauseStorm),
				Fix:       "Find the device on this port (`show lldp table`) and check it: a host NIC's rx buffer and tx_pause counters (ethtool -S), a switch's `show pfc counters` and queue watermarks toward its receivers; keep the PFC watchdog running on this priority (`show pfcwd stats`).",
			}.per(name+fmt.Sprintf(" prio %d", h.Prio), "port", "Switch ports paused by their peer"))
		}
	}
	return fs
}
