package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// hostRules lists the host-side rules.
func hostRules() []Rule {
	return []Rule{
		{IDs: []string{"host.pcie.degraded"}, Check: checkPCIe},
	}
}

// checkPCIe reports NICs whose PCIe link caps them below the port.
func checkPCIe(inc *Incident) []Finding {
	var fs []Finding
	for _, d := range All[*ingest.Dmesg](inc) {
		for _, l := range d.PCIe {
			rate, rateEv, known := nicPortRate(inc, d.Scope(), l.Device)
			below := known && l.Available < rate
			if !l.Limited() && !below {
				continue
			}
			sev := Warn
			if below {
				sev = Error
			}
			ev := []Evidence{l.Evidence}
			title := fmt.Sprintf("%s %s: PCIe gives %s", l.Driver, l.Device, rateText(l.Available))
			if l.Limited() {
				title += fmt.Sprintf(", limited by a x%d %.1f GT/s link at %s (device capable of %s with x%d %.1f GT/s)",
					l.Width, l.GTs, l.LimitedAt, rateText(l.Capable), l.CapableWidth, l.CapableGTs)
			}
			if below {
				title += fmt.Sprintf(": below the %s port", rateText(rate))
				if rateEv.File != "" {
					ev = append(ev, rateEv)
				}
			} else if !known && l.Available < 100*unit.Gbps {
				title += fmt.Sprintf(": caps any port faster than that (a 100G port would lose %.0f%%)", 100-l.Available.Gbps())
			}
			fs = append(fs, Finding{
				ID: "host.pcie.degraded", Severity: sev, Layer: LayerNCCL,
				Title:    title,
				Evidence: ev,
				Mechanism: fmt.Sprintf("The kernel prints the PCIe bandwidth the NIC negotiated at probe time: %.1f GT/s per lane × %d lanes after 128b/130b coding. ", l.GTs, l.Width) +
					"Every RDMA byte crosses PCIe, so the NIC cannot move more than that (less after TLP/DLLP overhead, typically 80–90% of it) whatever its port speed. " +
					"'Limited by ... at <port>' means the slot, riser or bifurcation upstream is narrower or slower than the card.",
				Fix: fmt.Sprintf("Move the NIC to a x%d slot of its generation or fix the riser/BIOS bifurcation; confirm with lspci -vv -s %s | grep -E 'LnkCap|LnkSta' (LnkSta must match LnkCap).", max(l.CapableWidth, l.Width), l.Device),
			}.per(l.Driver+" "+l.Device, "NIC", "PCIe link narrower or slower than the NIC", l.Device, "<pci>"))
		}
	}
	return fs
}
