package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over `mlxlink`: the physical link of an NVIDIA NIC port as its
// firmware reports it. A port that is not up carries nothing; one whose
// firmware recommends an action, or whose FEC lets errors through, drops
// packets that RoCE recovers only by retransmission (and InfiniBand by
// its link-level retry), which shows as lost bandwidth long before it
// shows as a failed job.

func mlxlinkRules() []Rule {
	return []Rule{{IDs: []string{"mlxlink.down", "mlxlink.issue", "mlxlink.errors", "mlxlink.ok"}, Check: checkMlxlink}}
}

// mlxlinkClean is how mlxlink begins the recommendation of a healthy link.
const mlxlinkClean = "no issue was observed"

// checkMlxlink judges each port mlxlink reported.
func checkMlxlink(inc *Incident) []Finding {
	var fs []Finding
	for _, m := range All[*ingest.Mlxlink](inc) {
		for i, p := range m.Ports {
			name := p.Device
			if name == "" {
				name = fmt.Sprintf("port %d of %s", i+1, m.Source())
			}
			if h := m.Scope().Host.Name; h != "" {
				name = h + " " + name
			}
			fs = append(fs, judgeMlxlinkPort(name, p)...)
		}
	}
	return fs
}

// judgeMlxlinkPort returns one port's findings.
func judgeMlxlinkPort(name string, p ingest.MlxlinkPort) []Finding {
	ev := func(keys ...string) []Evidence {
		var out []Evidence
		for _, k := range keys {
			if e, ok := p.Evidence[k]; ok {
				out = append(out, e)
			}
		}
		return evidenceInOrder(out)
	}
	var fs []Finding
	up := p.State == "" || strings.EqualFold(p.State, "Active")
	phys := p.PhysState == "" || p.PhysState == "N/A" || strings.EqualFold(p.PhysState, "LinkUp") || strings.HasPrefix(p.PhysState, "ETH_AN_FSM_ENABLE")
	if !up || !phys {
		fs = append(fs, Finding{
			ID: "mlxlink.down", Severity: Error, Layer: LayerRDMA, Subject: name,
			Title:     fmt.Sprintf("%s: link not up (State %s, Physical state %s)", name, orDash(p.State), orDash(p.PhysState)),
			Evidence:  ev("State", "Physical state", "Recommendation"),
			Mechanism: "mlxlink reads the port's state from the NIC firmware: a port that is not Active/LinkUp passes no traffic, and a job told to use it (NCCL_IB_HCA, perftest -d) fails to connect or, with several NICs, runs on fewer. Polling means the PHY is still trying to train with the far end (cable, module or the switch port).",
			Fix:       "Read the Troubleshooting Info's recommendation; check the cable and module (`mlxlink -d <dev> -m`), the switch port's state and speed, and that both ends agree on speed and FEC.",
		})
	}
	if r := p.Recommendation; r != "" && !strings.HasPrefix(strings.ToLower(r), mlxlinkClean) {
		op := ""
		if p.StatusOpcode >= 0 {
			op = fmt.Sprintf(", status opcode %d", p.StatusOpcode)
		}
		fs = append(fs, Finding{
			ID: "mlxlink.issue", Severity: Warn, Layer: LayerRDMA, Subject: name,
			Title:     fmt.Sprintf("%s: the NIC firmware reports a link problem: %q%s", name, r, op),
			Evidence:  ev("Status Opcode", "Recommendation"),
			Mechanism: "mlxlink's Troubleshooting Info is the firmware's own diagnosis of the physical link (its status opcode names the cause: signal integrity, a module, the far end); anything but \"No issue was observed\" is a link the firmware itself distrusts.",
			Fix:       "Follow the recommendation: reseat or replace the cable or module, compare with the far end (`mlxlink` on the switch port), and read `mlxlink -d <dev> -c` for errors FEC did not correct.",
		})
	}
	var bad []string
	sev := Warn
	if p.EffectiveErrors > 0 {
		bad = append(bad, fmt.Sprintf("%d errors FEC did not correct (effective BER %s)", p.EffectiveErrors, orDash(p.EffectiveBER)))
		sev = Error
	}
	if p.LinkDowns > 0 {
		bad = append(bad, fmt.Sprintf("link went down %d times", p.LinkDowns))
	}
	if p.ErrorRecoveries > 0 {
		bad = append(bad, fmt.Sprintf("%d link error recoveries", p.ErrorRecoveries))
	}
	if len(bad) > 0 {
		fs = append(fs, Finding{
			ID: "mlxlink.errors", Severity: sev, Layer: LayerRDMA, Subject: name,
			Title:     fmt.Sprintf("%s: %s since the counters were cleared", name, strings.Join(bad, ", ")),
			Evidence:  ev("Effective Physical Errors", "Effective Physical BER", "Link Down Counter", "Link Error Recovery Counter"),
			Mechanism: "Raw bit errors are normal at 50G-per-lane signalling and FEC corrects them; effective errors are those FEC could not, each a corrupted frame the receiver drops. RoCE recovers a dropped packet only by go-back-N retransmission after a NAK or an ACK timeout, so a link that drops frames costs bandwidth far beyond its error rate; a link that went down or retrained stalled every queue pair on it meanwhile.",
			Fix:       "Replace or reseat the cable or module (`mlxlink -d <dev> -m` for its temperature and receive power), check the switch port's FEC and error counters, and clear and watch the counters (`mlxlink -d <dev> -c --pc`) to see whether they still grow.",
		})
	}
	if len(fs) == 0 && p.State != "" {
		rate := ""
		if p.Rate > 0 {
			rate = fmt.Sprintf(" at %s", p.Rate)
		}
		fs = append(fs, Finding{
			ID: "mlxlink.ok", Severity: Info, Layer: LayerRDMA, Subject: name,
			Title:     fmt.Sprintf("%s: link %s/%s%s (%s %s), no issue observed", name, p.State, orDash(p.PhysState), rate, orDash(p.Speed), orDash(p.Width)),
			Evidence:  ev("State", "Speed", "Width", "Recommendation", "Effective Physical Errors"),
			Mechanism: "The NIC firmware reports the link up at this speed, without a recommendation or errors FEC could not correct; the line rate is used to judge the bandwidth measured over this port.",
		})
	}
	return fs
}

// orDash returns s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
