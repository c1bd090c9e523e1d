package ingest

import "strings"

// A DeviceFault is a kernel report that a device broke: the IOMMU refused
// one of its DMAs, or its firmware declared itself unhealthy.
//
//	ice 0000:c7:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x002b address=0x4000180000 flags=0x0020]
//	AMD-Vi: Event logged [IO_PAGE_FAULT device=41:00.0 domain=0x0000 address=0x1000 flags=0x0000]
//	DMAR: [DMA Read NO_PASID] Request device [5e:00.0] fault addr 0xd5a00000 [fault reason 0x06] PTE Read access is not set
//	mlx5_core 0000:0d:00.0: print_health_info:431:(pid 0): Health issue observed, firmware internal error, severity(3) ERROR:
//
// Repeats of one device's fault of one kind are counted in one
// DeviceFault.
type DeviceFault struct {
	Kind FaultKind
	// Driver is the driver that printed the line ("ice", "mlx5_core"),
	// "" when the IOMMU's own line names the device.
	Driver string
	// Device is the PCI address as printed ("0000:c7:00.0", "5e:00.0"),
	// "" when the line names none.
	Device string
	// Detail is what the line says of the fault: the IOMMU's fault type
	// or reason ("IO_PAGE_FAULT", "PTE Read access is not set"), the
	// health message ("firmware internal error").
	Detail string
	Count  int
	// Evidence is the first occurrence's line.
	Evidence Evidence
}

// FaultKind says which part of the host reported a DeviceFault.
type FaultKind string

// Fault kinds.
const (
	// FaultIOMMU is an IOMMU (AMD-Vi, Intel VT-d DMAR) refusing a
	// device's DMA.
	FaultIOMMU FaultKind = "iommu"
	// FaultHealth is a NIC's firmware health report (mlx5's health
	// poller: an internal error, a missed heartbeat, a failed recovery).
	FaultHealth FaultKind = "health"
)

// maxDeviceFaults bounds the distinct faults one artifact keeps.
const maxDeviceFaults = 256

// parseDeviceFault reads a kernel message (its prefix stripped) that
// reports a DeviceFault; it is the dmesg reader's only test of such a line,
// so it turns other lines away cheaply.
func parseDeviceFault(msg string) (DeviceFault, bool) {
	switch {
	case strings.Contains(msg, "AMD-Vi: Event logged [IO_PAGE_FAULT"):
		f := DeviceFault{Kind: FaultIOMMU, Detail: "IO_PAGE_FAULT"}
		if drv, dev, _ := driverDevice(msg); dev != "" && !strings.HasPrefix(drv, "AMD-Vi") {
			f.Driver, f.Device = drv, dev
		}
		if f.Device == "" {
			f.Device = fieldValue(msg, "device=")
		}
		return f, true
	case strings.Contains(msg, "DMAR: [DMA ") && strings.Contains(msg, "Request device ["):
		f := DeviceFault{Kind: FaultIOMMU}
		_, after, _ := strings.Cut(msg, "Request device [")
		f.Device, _, _ = strings.Cut(after, "]")
		f.Detail = "DMA fault"
		if _, reason, ok := strings.Cut(after, "[fault reason "); ok {
			if _, text, ok := strings.Cut(reason, "] "); ok && text != "" {
				f.Detail = strings.TrimSpace(text)
			}
		}
		return f, true
	}
	if !strings.HasPrefix(msg, "mlx5_core ") {
		return DeviceFault{}, false
	}
	drv, dev, rest := driverDevice(msg)
	if drv != "mlx5_core" || dev == "" {
		return DeviceFault{}, false
	}
	f := DeviceFault{Kind: FaultHealth, Driver: drv, Device: dev}
	switch {
	case strings.Contains(rest, "Health issue observed, "):
		// "Health issue observed, firmware internal error, severity(3)
		// ERROR:"; the syndrome's own line repeats it and is not counted.
		_, f.Detail, _ = strings.Cut(rest, "Health issue observed, ")
		f.Detail, _, _ = strings.Cut(f.Detail, ", severity")
		if f.Detail = strings.TrimSpace(f.Detail); f.Detail == "" {
			f.Detail = "a health issue"
		}
	case strings.Contains(rest, "health compromised"):
		f.Detail = "a missed heartbeat (health compromised)"
	case strings.Contains(rest, "health recovery flow aborted"):
		f.Detail = "a failed recovery"
	default:
		return DeviceFault{}, false
	}
	return f, true
}

// fieldValue returns the value of "key=value" in s, up to the next space
// or bracket; "" when s has no such field.
func fieldValue(s, key string) string {
	_, v, ok := strings.Cut(s, key)
	if !ok {
		return ""
	}
	if i := strings.IndexAny(v, " ]"); i >= 0 {
		v = v[:i]
	}
	return v
}

// addFault records a DeviceFault, counting a repeat of one device's fault
// of one kind and detail in the first.
func (d *Dmesg) addFault(f DeviceFault) {
	for i := range d.Faults {
		c := &d.Faults[i]
		if c.Kind == f.Kind && c.Device == f.Device && c.Detail == f.Detail {
			c.Count++
			return
		}
	}
	if len(d.Faults) >= maxDeviceFaults {
		d.Omitted++
		return
	}
	f.Count = 1
	d.Faults = append(d.Faults, f)
}
