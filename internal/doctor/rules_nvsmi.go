package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over `nvidia-smi -q`: each GPU's PCIe link, current against
// maximum, judged as lspci's LnkSta against LnkCap is, with what lspci
// cannot say: whether the GPU was idle when it was read (an idle GPU
// lowers its link speed to save power, and in P8 and deeper some GPUs
// their width).

func nvsmiRules() []Rule {
	return []Rule{
		{IDs: []string{"host.pcie.degraded", "host.pcie.ok"}, Check: checkNVSMILinks},
		{IDs: []string{"host.pcie.replays"}, Check: checkNVSMIReplays},
		{IDs: []string{"input.garbled"}, Check: checkNVSMIGarbled},
	}
}

// checkNVSMILinks reports GPUs whose current link is narrower outside P8
// and deeper, or slower in a busy performance state, than their maximum
// (warn), those below it only while idle or in no state the input shows
// (info, one finding per input), and an input whose GPUs all run at their
// maximum (host.pcie.ok).
func checkNVSMILinks(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.NVSMI](inc) {
		var idle, links []string
		var idleEv, fullEv []Evidence
		full, read := 0, 0
		for _, g := range s.GPUs {
			if !g.Cap.Set() || !g.Sta.Set() {
				continue
			}
			read++
			narrow := g.Sta.Width < g.Cap.Width
			slow := g.Sta.GTs > 0 && g.Cap.GTs > 0 && g.Sta.GTs < g.Cap.GTs
			switch {
			case narrow && !g.Parked() || slow && g.PState != "" && !g.Idle:
				fs = append(fs, nvsmiLinkFinding(inc, s, g, narrow))
			case narrow || slow:
				idle = append(idle, fmt.Sprintf("%s at %s of %s (%s)", strings.TrimSpace(g.Host+" "+g.BusID), g.Sta, g.Cap, nameOr(g.PState, "state not shown")))
				idleEv = append(idleEv, g.Evidence, g.Sta.Evidence)
			default:
				full++
				fullEv = append(fullEv, g.Evidence, g.Sta.Evidence)
				if l := strings.TrimSpace(g.Model + " " + g.Sta.String()); !slices.Contains(links, l) {
					links = append(links, l)
				}
			}
		}
		if len(idle) > 0 {
			fs = append(fs, Finding{
				ID: "host.pcie.degraded", Severity: Info, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s: %s idle, or in no state the paste shows, below their maximum PCIe link (%s): read it again under load", s.Source(), plural(len(idle), "GPU", "GPUs"), list(idle, 3)),
				Evidence:  evidenceInOrder(idleEv),
				Mechanism: "NVIDIA GPUs lower their PCIe link speed when idle (performance state P8 and deeper, the clocks' Idle reason Active) and raise it again under load, and some (laptops' GeForce) also drop lanes in P8 and deeper, so an idle GPU's current link is no fault (`nvidia-smi -q -d PCIE` prints no performance state to tell).",
				Fix:       "Read `nvidia-smi -q -d PCIE,PERFORMANCE` while a job or `nvidia-smi -q -d PCIE` beside a running nccl-tests loads the GPU: Current must then equal Max.",
			}.per(s.Source(), "input", "GPUs idle at a lower PCIe speed"))
		}
		if full > 0 && full == read {
			fs = append(fs, Finding{
				ID: "host.pcie.ok", Severity: Info, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s: %s at its maximum PCIe link (%s)", s.Source(), plural(full, "GPU", "GPUs, each"), list(links, 3)),
				Evidence:  evidenceInOrder(fullEv),
				Mechanism: "nvidia-smi's current PCIe generation and width equal its maximum (the lesser of the GPU's and the host's) for every GPU, so their links do not hold collectives back.",
			})
		}
	}
	return fs
}

// nvsmiLinkFinding is the warning for a GPU whose link is narrower than
// its maximum, or slower while the GPU works.
func nvsmiLinkFinding(inc *Incident, s *ingest.NVSMI, g ingest.NVSMIGPU, narrow bool) Finding {
	got, could := g.Sta.Rate(), g.Cap.Rate()
	title := fmt.Sprintf("%s: GPU %s: PCIe link at %s of its %s: %s of %s (%.0f%% lost)",
		s.Source(), g.Label(), g.Sta, g.Cap, rateText(got), rateText(could), 100*(1-got.Gbps()/could.Gbps()))
	if !narrow {
		title += fmt.Sprintf(" while busy (%s)", g.PState)
	}
	ev := []Evidence{g.Evidence, g.Cap.Evidence, g.Sta.Evidence}
	bdf := g.BDF()
	if uses, uev := ncclUses(inc, s.Scope(), bdf); uses != "" {
		title += "; " + uses
		ev = append(ev, uev...)
	}
	return Finding{
		ID: "host.pcie.degraded", Severity: Warn, Layer: LayerNCCL,
		Title:    title,
		Evidence: evidenceInOrder(ev),
		Mechanism: "nvidia-smi's Max is the link the GPU and the slot above it can both train, Current the one it trained. Every byte between the GPU's memory and a NIC (GPUDirect RDMA) or the host (NCCL's staged copies) crosses it, so the GPU moves no more than Current allows. " +
			"A GPU short of P8 keeps its width: fewer lanes are a slot wired narrower, a riser or bifurcation split, or lanes that failed to train (a badly seated card); a lower speed under load a riser, retimer or BIOS setting of an older generation, or a link that fell back on signal errors.",
		Fix: fmt.Sprintf("Reseat the GPU or check its riser, retimer and the BIOS slot settings (link speed Auto or Gen%d, bifurcation x%d), then confirm under load with `nvidia-smi -q -d PCIE -i %s` (Current must equal Max) and `lspci -vvv -s %s | grep -E 'LnkCap|LnkSta'`.",
			pcieGen(g.Cap.GTs), g.Cap.Width, g.BusID, bdf),
	}.per(g.Label(), "device", "PCIe link narrower or slower than the device", g.BusID, "<bus-id>")
}

// checkNVSMIReplays reports, per input, the GPUs whose PCIe link layer
// replayed TLPs since the GPU was reset: info, warn when a replay number
// rolled over (the link retrained).
func checkNVSMIReplays(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.NVSMI](inc) {
		var gpus []string
		var ev []Evidence
		sev := Info
		for _, g := range s.GPUs {
			if g.Replays <= 0 {
				continue
			}
			what := fmt.Sprintf("%s %d", g.Label(), g.Replays)
			if g.Rollovers > 0 {
				what += fmt.Sprintf(" (%s)", plural(int(min(g.Rollovers, 1<<30)), "rollover", "rollovers"))
				sev = Warn
			}
			gpus = append(gpus, what)
			ev = append(ev, g.Replay)
		}
		if len(gpus) == 0 {
			continue
		}
		title := fmt.Sprintf("%s: PCIe replays since reset on %s: %s", s.Source(), plural(len(gpus), "GPU", "GPUs"), list(gpus, 3))
		if sev == Warn {
			title += ": a replay number rolled over, so the link retrained"
		}
		fs = append(fs, Finding{
			ID: "host.pcie.replays", Severity: sev, Layer: LayerNCCL,
			Title:    title,
			Evidence: evidenceInOrder(ev),
			Mechanism: "A PCIe link layer sends a TLP again when its receiver reports a bad LCRC or the ACK does not come back in time: each replay is a transfer corrupted on the link (signal integrity: a riser, retimer, connector or seating), paid for in latency and bandwidth while the link stays up. After four replays of the same TLP the replay number rolls over and the link retrains, stalling every transfer through it. " +
				"The counts run from the GPU's last reset, so one read does not say how fast they grow.",
			Fix: "Read `nvidia-smi -q -d PCIE` again after a job (or watch DCGM's PCIe replay health check) to see whether the count grows; if it does, reseat the GPU, check its riser or retimer and the slot, and look for AER correctable errors in dmesg for its bus id.",
		}.per(s.Source(), "input", "Inputs with GPUs replaying PCIe TLPs"))
	}
	return fs
}

func checkNVSMIGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "nvidia-smi -q output", func(a *ingest.NVSMI) []ingest.Garble { return a.Garbled },
		"These lines sit under nvidia-smi -q's PCIe Generation or Link Width titles but their value is no generation or width (edited, cut, or wrapped in transit), so the GPU's link was not judged on them.",
		"Pass nvidia-smi's unedited output: `nvidia-smi -q > nvidia-smi-q.txt`, or `nvidia-smi -q -d PCIE` for the links alone.")
}

// nvsmiModels are the GPU models nvidia-smi names.
func nvsmiModels(inc *Incident) []string {
	var models []string
	for _, s := range All[*ingest.NVSMI](inc) {
		for _, g := range s.GPUs {
			models = append(models, strings.TrimSpace(strings.TrimSuffix(g.Model, "...")))
		}
	}
	return models
}
