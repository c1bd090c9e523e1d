package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// checkSwitchLinkErrors reports switch ports that received corrupted
// frames (RX_ERR of `show interfaces counters [errors]`) or whose RS-FEC
// met codewords it could not correct (FEC_UNCORR of `show interfaces
// counters fec-stats`). Each is a frame lost on the link after PFC has
// done its part: RoCE's RC resends it and everything after it.
func checkSwitchLinkErrors(inc *Incident) []Finding {
	const (
		mech = "Bits changed on the wire between this port and its peer. The switch discards such a frame, and when it carried RoCE, PFC cannot have prevented the loss: RC resends the lost packet and everything after it (go-back-N), and a lost message tail waits for the local ACK timeout, so a few errors per million frames already cut a flow's throughput. A link at its specified error ratio shows none; these come from the link itself: a dirty or damaged connector, an optic or cable failing or out of its power budget, or FEC off or mismatched between the ends."
		when = " Counted since the counters were last cleared (`sonic-clear counters`); a count from the link's bring-up stays until then."
	)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, p := range s.Ports {
			if p.RxErr <= 0 {
				continue
			}
			name := swName(s, p.Port)
			title := fmt.Sprintf("%s: %d frames received with errors (RX_ERR)", name, p.RxErr)
			if p.RxOK >= 0 {
				title += fmt.Sprintf(", %.3g%% of the %d received (RX_OK + RX_ERR)", 100*float64(p.RxErr)/float64(p.RxOK+p.RxErr), p.RxOK+p.RxErr)
			}
			fs = append(fs, Finding{
				ID: "switch.link.errors", Severity: Warn, Layer: LayerFabric,
				Title:     title,
				Evidence:  []Evidence{p.Evidence},
				Mechanism: "RX_ERR counts frames the port received and could not accept: a bad FCS above all, and runts or oversize frames. " + mech + downNote(p.State) + when,
				Fix:       fmt.Sprintf("Watch whether it grows (`show interfaces counters -i %s -p 10`); check the link's FEC (`show interfaces counters fec-stats`: FEC_UNCORR rising, FEC_PRE_BER near the FEC's limit), the optic's power (`show interfaces transceiver eeprom --dom %s`) and the FCS counters of the peer's end (on a host, `ethtool -S <if> | grep -E 'crc|symbol|fcs'`). Clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it.", p.Port, p.Port),
			}.per(name+" RX_ERR", "port", "Switch ports receiving corrupted frames"))
		}
		for _, r := range s.FEC {
			if r.Uncorrectable <= 0 {
				continue
			}
			name := swName(s, r.Port)
			title := fmt.Sprintf("%s: RS-FEC met %d codewords it could not correct (FEC_UNCORR; %d corrected, %d symbol errors)", name, r.Uncorrectable, max(r.Corrected, 0), max(r.SymbolErrors, 0))
			if r.PostBER > 0 {
				title += fmt.Sprintf(", post-FEC BER %.3g", r.PostBER)
			}
			fs = append(fs, Finding{
				ID: "switch.link.errors", Severity: Warn, Layer: LayerFabric,
				Title:     title,
				Evidence:  []Evidence{r.Evidence},
				Mechanism: "RS-FEC corrects up to a fixed number of corrupted symbols per codeword (7 for RS(528,514), 15 for RS(544,514)); corrected codewords are normal on a PAM4 link and cost nothing. An uncorrectable codeword is a frame received with a bad FCS and dropped. " + mech + downNote(r.State) + when,
				Fix:       fmt.Sprintf("Clear the counters and watch whether FEC_UNCORR grows under traffic (`sonic-clear counters; show interfaces counters fec-stats -p 10`); if it does, check the optic's power and its peer's (`show interfaces transceiver eeprom --dom %s`), both ends' FEC mode (`show interfaces fec status %s`; on a host, `ethtool --show-fec <if>`), clean and reseat the connectors, then replace the optic or cable; shut the port meanwhile so ECMP routes around it.", r.Port, r.Port),
			}.per(name+" FEC", "port", "Switch ports with uncorrectable FEC codewords"))
		}
	}
	return fs
}

// downNote says what a port's link errors mean when it is down now.
func downNote(state string) string {
	if state == "D" {
		return " The port is down now (STATE D): the errors may be what took it down, or were counted as it went down."
	}
	return ""
}
