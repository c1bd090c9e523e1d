package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// hostRules lists the host-side rules.
func hostRules() []Rule {
	return []Rule{
		{IDs: []string{"host.pcie.degraded"}, Check: checkPCIe},
		{IDs: []string{"dmesg.cqe_error"}, Check: checkCQEErrors},
		{IDs: []string{"dmesg.iommu_fault", "dmesg.nic_health"}, Check: checkDeviceFaults},
	}
}

// checkPCIe reports NICs whose PCIe link caps them below the port.
func checkPCIe(inc *Incident) []Finding {
	var fs []Finding
	for _, d := range All[*ingest.Dmesg](inc) {
		for _, l := range d.PCIe {
			if lspciReadsLink(inc, d.Scope(), l.Device) {
				continue // the lspci's link is today's; dmesg's is the probe's
			}
			rate, rateEv, known := nicPortRate(inc, d.Scope(), "", l.Device)
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

// checkCQEErrors reports mlx5_ib's completion-with-error lines: an error
// for a syndrome that names a cause, a warning when every one is a flush
// (the queue pair was already in error; its first error is elsewhere).
func checkCQEErrors(inc *Incident) []Finding {
	var fs []Finding
	for _, d := range All[*ingest.Dmesg](inc) {
		if len(d.CQEErrors) == 0 {
			continue
		}
		var parts []string
		var ev []Evidence
		onlyFlush := true
		n := 0
		for _, e := range d.CQEErrors {
			name := ingest.CQESyndromeName(e.Syndrome)
			if name == "" {
				name = "unknown syndrome"
			}
			parts = append(parts, fmt.Sprintf("%s %s: %s (syndrome %#x, vendor %#x) ×%d", e.Device, strings.ToLower(e.Side), name, e.Syndrome, e.Vendor, e.Count))
			ev = append(ev, e.Evidence...)
			onlyFlush = onlyFlush && e.Syndrome == 0x5
			n += e.Count
		}
		sev, mech := Error, "mlx5_ib logs a completion with error when a work request fails: the queue pair enters the error state and every request behind it completes flushed (syndrome 0x5). The first non-flush syndrome is the cause: 0x15 transport retry exceeded (the path lost packets or the peer vanished, as NCCL's status 12), 0x16 RNR retry exceeded, 0x4 local protection (memory registration, GPUDirect/ACS), 0x13 remote access, 0x14 remote operation error."
		if onlyFlush {
			sev = Warn
			mech += " Here every completion is a flush: the queue pair was already in error, or was being torn down (an application closing a connection with work outstanding); the error that put it there is logged earlier, or by the peer."
		}
		fs = append(fs, Finding{
			ID: "dmesg.cqe_error", Severity: sev, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: %d completions with error in the kernel log: %s", d.Source(), n, list(parts, 4)),
			Evidence:  ev,
			Mechanism: mech,
			Fix:       "Find the first error of the connection: earlier dmesg lines, the application's own log (NCCL's 'Got completion from peer … status='), and the peer host's log at the same time; with only flushes, check whether the application was tearing the connection down (disconnects, timeouts) rather than the fabric.",
		})
	}
	return fs
}
