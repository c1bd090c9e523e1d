package doctor

import (
	"strings"
	"testing"
)

// An E810 whose IOMMU refused its DMA four times after a packet flood
// (intel-wired-lan): an error naming ice 0000:c7:00.0 and the count, with
// passthrough as the fix. Before, the log gave no finding (only lspci's
// unread link).
func TestIOMMUFaultOnNIC(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/dmesg-ice-e810-amd-vi-io-page-fault-rx-dropped-in-kernel-iwl.txt")
	f := nicMustFind(t, fs, "dmesg.iommu_fault", Error, "ice 0000:c7:00.0", "IO_PAGE_FAULT", "×4")
	if f.Layer != LayerRDMA || !strings.Contains(f.Fix, "iommu=pt") || f.Evidence[0].Line != 3 {
		t.Errorf("%+v", f)
	}
	// A device no NIC or GPU driver names is a warning (SYNTHETIC line).
	fs = synthFindings(t, Options{}, "[  11.2] DMAR: [DMA Write NO_PASID] Request device [00:14.0] fault addr 0x1000 [fault reason 0x05] PTE Write access is not set")
	nicMustFind(t, fs, "dmesg.iommu_fault", Warn, "00:14.0", "PTE Write access is not set")
}

// A ConnectX-6 Dx's firmware internal error and missed heartbeats
// (qemu-devel): one error per PCI function, both reports of a function in
// its one finding. Before, mlx5_core's health lines were skipped as
// "other NIC driver lines".
func TestNICFirmwareHealth(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/dmesg-mlx5-cx6dx-fw-22.44-health-internal-error-miss-count-qemu.txt")
	var health []Finding
	for _, f := range fs {
		if f.ID == "dmesg.nic_health" {
			health = append(health, f)
		}
	}
	if len(health) != 6 {
		t.Fatalf("%d health findings, want 6 (functions .0-.5):\n%s", len(health), nicTitles(fs))
	}
	f := nicMustFind(t, fs, "dmesg.nic_health", Error, "mlx5_core 0000:0d:00.0", "a missed heartbeat", "and firmware internal error")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 3 || f.Evidence[1].Line != 4 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}
