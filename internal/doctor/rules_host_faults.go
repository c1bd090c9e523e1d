package doctor

import (
	"fmt"
	"slices"

	"rocelab/internal/ingest"
)

// rdmaPathDrivers are the drivers of devices on an RDMA job's data path:
// the NICs' Ethernet and RDMA drivers and the GPUs'.
var rdmaPathDrivers = []string{"mlx5_core", "mlx4_core", "ice", "irdma", "bnxt_en", "bnxt_re", "nvidia"}

// checkDeviceFaults reports the kernel's word that a device broke: the
// IOMMU refused its DMA, or a NIC's firmware declared itself unhealthy.
func checkDeviceFaults(inc *Incident) []Finding {
	var fs []Finding
	for _, d := range All[*ingest.Dmesg](inc) {
		healthOf := map[string]int{} // a NIC's health finding in fs
		for _, f := range d.Faults {
			who := f.Device
			if f.Driver != "" {
				who = f.Driver + " " + f.Device
			}
			if who == "" {
				who = "a device"
			}
			times := ""
			if f.Count > 1 {
				times = fmt.Sprintf(" ×%d", f.Count)
			}
			switch f.Kind {
			case ingest.FaultIOMMU:
				sev := Warn
				if slices.Contains(rdmaPathDrivers, f.Driver) {
					sev = Error
				}
				fs = append(fs, Finding{
					ID: "dmesg.iommu_fault", Severity: sev, Layer: LayerRDMA,
					Title:    fmt.Sprintf("%s: the IOMMU refused a DMA of %s (%s)%s", d.Source(), who, f.Detail, times),
					Evidence: []Evidence{f.Evidence},
					Mechanism: "With the IOMMU translating, a device may reach only the addresses mapped for it; one it read or wrote outside them was refused, so the packet or the work request behind it was lost. " +
						"For a NIC that is a receive or send buffer the driver no longer mapped (a driver or firmware bug, a device reset under load); with GPUDirect RDMA, peer-to-peer reads and writes of GPU memory that go up to the root complex are translated too, and fault when the GPU's BAR is not mapped for the NIC.",
					Fix: "On hosts that run RDMA, put the IOMMU in passthrough (iommu=pt on the kernel command line, with amd_iommu=on or intel_iommu=on) so DMA is not translated, and turn ACS off on the PCIe switches between NIC and GPU (lspci -vvv | grep ACSCtl); if faults go on in passthrough, update the NIC's driver and firmware, and reset the device (devlink dev reload, or unbind and bind its driver) to clear a broken state.",
				}.per(who, "device", "IOMMU refused a DMA", f.Device, "<pci>"))
			case ingest.FaultHealth:
				if i, ok := healthOf[who]; ok {
					// the same NIC's other health lines: one finding
					fs[i].Title += " and " + f.Detail + times
					fs[i].Evidence = append(fs[i].Evidence, f.Evidence)
					continue
				}
				healthOf[who] = len(fs)
				fs = append(fs, Finding{
					ID: "dmesg.nic_health", Severity: Error, Layer: LayerRDMA,
					Title:    fmt.Sprintf("%s: %s firmware reports %s%s", d.Source(), who, f.Detail, times),
					Evidence: []Evidence{f.Evidence},
					Mechanism: "mlx5's health poller reads the firmware's health buffer and heartbeat every few seconds; an internal error, a missed heartbeat or a failed recovery means the NIC stopped processing: every queue pair on it goes to error, " +
						"so RDMA jobs through it fail (NCCL's completion errors, IBV_EVENT_DEVICE_FATAL) until the driver resets the device, and fail again if the fault recurs.",
					Fix: "Save the health report before the reset clears it (devlink health show; devlink health dump show pci/<pci> reporter fw_fatal), check the firmware against the release notes (mlxfwmanager --query) and update it, and reset the device (mlxfwreset -d <pci> reset, or reboot); a fault that recurs on one card is hardware: replace it.",
				}.per(who, "NIC", "NIC firmware health error", f.Device, "<pci>"))
			}
		}
	}
	return fs
}
