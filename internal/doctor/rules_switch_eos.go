package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// checkEOSPFCOff reports the ports Arista EOS's `show
// priority-flow-control` lists with PFC disabled (status D).
func checkEOSPFCOff(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		var off, on []string
		var ev []Evidence
		for _, p := range s.EOSPFC {
			if p.Enabled {
				on = append(on, p.Port)
				continue
			}
			off = append(off, p.Port)
			if len(ev) < 8 {
				ev = append(ev, p.Evidence)
			}
		}
		if len(off) == 0 {
			continue
		}
		lossless, _ := s.LosslessPrios()
		prios := distinctInts(lossless)
		title := fmt.Sprintf("%s: PFC is disabled on %s", nameOr(s.Switch, s.Source()), list(off, 8))
		if len(on) > 0 {
			title += fmt.Sprintf(" while %s it on priority %s", plural(len(on), "port runs", "ports run"), ingest.PrioList(prios))
		}
		prio := sonicLossless[0]
		if len(prios) > 0 {
			prio = prios[0]
		}
		fs = append(fs, Finding{
			ID: "switch.pfc.port_off", Severity: Warn, Layer: LayerFabric,
			Title:    title,
			Evidence: ev,
			Mechanism: "PFC works per port and priority: a port with PFC disabled neither sends PAUSE when its ingress buffer for the RoCE priority fills nor stops when its link partner pauses it. " +
				"RoCE traffic through it is lossy: congestion drops packets, and RoCE's go-back-N recovery resends everything after each loss, which collapses throughput. " +
				"EOS enables PFC per interface even with 'Global PFC : Enabled'.",
			Fix: fmt.Sprintf("If these ports carry RoCE, enable PFC on them with the lossless priority the hosts use: `interface %s` / `priority-flow-control on` / `priority-flow-control priority %d no-drop` (one line per lossless priority); check that `show priority-flow-control` then shows E for them and that the hosts' mlnx_qos has PFC on the same priority.", off[0], prio),
		}.per(nameOr(s.Switch, s.Source()), "switch", "Switch ports with PFC disabled"))
	}
	return fs
}
