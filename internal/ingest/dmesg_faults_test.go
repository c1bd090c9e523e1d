package ingest

import "testing"

// The kernel's word that a device broke: AMD-Vi and Intel DMAR refusing a
// device's DMA, and mlx5's health poller. The ice log is real
// (intel-wired-lan, an E810 after a packet flood), so is the mlx5 one
// (qemu-devel, a ConnectX-6 Dx's firmware internal error); before, both
// were read for nothing but their lspci and ethtool lines, or not at all.
func TestDmesgDeviceFaults(t *testing.T) {
	d := nicArtifact[*Dmesg](t, nicReadCorpus(t, "ethtool/dmesg-ice-e810-amd-vi-io-page-fault-rx-dropped-in-kernel-iwl.txt"))
	if len(d.Faults) != 1 {
		t.Fatalf("faults %+v", d.Faults)
	}
	if f := d.Faults[0]; f.Kind != FaultIOMMU || f.Driver != "ice" || f.Device != "0000:c7:00.0" || f.Detail != "IO_PAGE_FAULT" || f.Count != 4 || f.Evidence.Line != 3 {
		t.Errorf("ice %+v", f)
	}

	d = nicArtifact[*Dmesg](t, nicReadCorpus(t, "ethtool/dmesg-mlx5-cx6dx-fw-22.44-health-internal-error-miss-count-qemu.txt"))
	want := []struct{ dev, detail string }{
		{"0000:0d:00.0", "a missed heartbeat (health compromised)"}, {"0000:0d:00.0", "firmware internal error"},
		{"0000:0d:00.2", "a missed heartbeat (health compromised)"}, {"0000:0d:00.3", "a missed heartbeat (health compromised)"},
		{"0000:0d:00.4", "a missed heartbeat (health compromised)"}, {"0000:0d:00.1", "a missed heartbeat (health compromised)"},
		{"0000:0d:00.1", "firmware internal error"}, {"0000:0d:00.5", "a missed heartbeat (health compromised)"},
	}
	if len(d.Faults) != len(want) {
		t.Fatalf("faults %+v", d.Faults)
	}
	for i, w := range want {
		if f := d.Faults[i]; f.Kind != FaultHealth || f.Driver != "mlx5_core" || f.Device != w.dev || f.Detail != w.detail || f.Count != 1 {
			t.Errorf("fault %d: %+v, want %s %s", i, f, w.dev, w.detail)
		}
	}

	// SYNTHETIC: the AMD-Vi line of older kernels (the device inside the
	// brackets) and Intel VT-d's DMAR fault, two of one device.
	d = nicArtifact[*Dmesg](t, nicReadText(t, "synthetic-iommu", `[  10.1] AMD-Vi: Event logged [IO_PAGE_FAULT device=41:00.0 domain=0x0000 address=0x1000 flags=0x0000]
[  11.2] DMAR: [DMA Read NO_PASID] Request device [5e:00.0] fault addr 0xd5a00000 [fault reason 0x06] PTE Read access is not set
[  11.3] DMAR: [DMA Read NO_PASID] Request device [5e:00.0] fault addr 0xd5a01000 [fault reason 0x06] PTE Read access is not set
`))
	if len(d.Faults) != 2 {
		t.Fatalf("faults %+v", d.Faults)
	}
	if f := d.Faults[0]; f.Device != "41:00.0" || f.Driver != "" || f.Detail != "IO_PAGE_FAULT" {
		t.Errorf("AMD-Vi %+v", f)
	}
	if f := d.Faults[1]; f.Device != "5e:00.0" || f.Detail != "PTE Read access is not set" || f.Count != 2 {
		t.Errorf("DMAR %+v", f)
	}
}
