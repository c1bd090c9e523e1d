package ingest

import (
	"testing"

	"rocelab/internal/unit"
)

func TestDmesgPCIeLimited(t *testing.T) {
	d := nicArtifact[*Dmesg](t, nicReadCorpus(t, "ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"))
	if len(d.PCIe) != 1 {
		t.Fatalf("%d PCIe lines", len(d.PCIe))
	}
	l := d.PCIe[0]
	if l.Driver != "mlx5_core" || l.Device != "0001:43:00.0" || !l.Limited() || l.LimitedAt != "0001:42:01.0" ||
		l.Available != unit.BitRate(63.008e9) || l.Capable != unit.BitRate(126.016e9) || l.Width != 8 || l.CapableWidth != 16 || l.GTs != 8.0 {
		t.Errorf("%+v", l)
	}
	if len(d.Links) != 0 {
		t.Errorf("links %+v", d.Links)
	}
}

// synthetic: an unlimited PCIe line, link lines of three drivers, syslog
// and dmesg -T prefixes.
const syntheticDmesg = `[Mon Jun  3 10:00:00 2024] mlx5_core 0000:3b:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)
Jun  3 10:00:01 gpu01 kernel: [   12.5] mlx5_core 0000:3b:00.0 ens1f0np0: Link up
[   13.000001] bnxt_en 0000:41:00.0 eth0: NIC Link is Up, 100000 Mbps full duplex, Flow control: ON - receive & transmit
[   14.000001] ice 0000:17:00.0 ens5: NIC Link is up 100 Gbps Full Duplex, Requested FEC: RS-FEC
[   15.000001] mlx5_core 0000:3b:00.0 ens1f0np0: Link down
[   16.000001] mlx5_core 0000:3b:00.0: mlx5_pcie_event:334:(pid 11): PCIe slot advertised sufficient power (27W).
`

func TestDmesgLinks(t *testing.T) {
	d := nicArtifact[*Dmesg](t, nicReadText(t, "synthetic-dmesg", syntheticDmesg))
	if len(d.PCIe) != 1 || d.PCIe[0].Limited() || d.PCIe[0].Width != 16 || d.PCIe[0].Available != unit.BitRate(252.048e9) {
		t.Errorf("PCIe %+v", d.PCIe)
	}
	if len(d.Links) != 4 {
		t.Fatalf("%d links", len(d.Links))
	}
	if l := d.Links[0]; !l.Up || l.Device != "ens1f0np0" || l.Rate != 0 {
		t.Errorf("mlx5 up %+v", l)
	}
	if l := d.Links[1]; l.Rate != 100*unit.Gbps || l.Driver != "bnxt_en" {
		t.Errorf("bnxt %+v", l)
	}
	if l := d.Links[2]; l.Rate != 100*unit.Gbps || l.Device != "ens5" {
		t.Errorf("ice %+v", l)
	}
	if d.Links[3].Up {
		t.Error("link down read as up")
	}
	if ls := d.LinkSpeeds(); len(ls) != 2 {
		t.Errorf("speeds %+v", ls)
	}
}

// A dmesg pasted from a viewer that numbers its lines (NVIDIA/gpu-operator
// #2511: "1701 [   22.325345] mlx5_core ...", "1700[ ...") is read as
// dmesg; before, the numbers hid the timestamps and the input was unknown.
func TestDmesgLineNumbers(t *testing.T) {
	d := nicArtifact[*Dmesg](t, nicReadCorpus(t, "ethtool/dmesg-line-numbers-mlx5-gen4-x16-252gbps-gpuoperator2511.txt"))
	if len(d.PCIe) != 3 || d.Lines() != 6 {
		t.Fatalf("%d PCIe lines, %d lines read", len(d.PCIe), d.Lines())
	}
	want := []struct {
		dev  string
		gbps float64
		gts  float64
	}{{"0000:63:00.0", 504.112, 32}, {"0000:75:00.0", 252.048, 16}, {"0000:75:00.1", 252.048, 16}}
	for i, w := range want {
		l := d.PCIe[i]
		if l.Device != w.dev || l.Available != unit.BitRate(w.gbps*1e9) || l.GTs != w.gts || l.Width != 16 || l.Limited() {
			t.Errorf("line %d: %+v", i, l)
		}
	}
	if l := d.PCIe[1].Evidence.Line; l != 6 {
		t.Errorf("evidence line %d", l)
	}
	for in, want := range map[string]string{
		"1701:[   22.3] mlx5_core x":                  "[   22.3] mlx5_core x",                  // grep -n
		"1701\t[22.3] mlx5_core x":                    "[22.3] mlx5_core x",                     // cat -n
		"65536 [B] x":                                 "65536 [B] x",                            // not a timestamp
		"1701:[Mon Jan  1 10:00:00 2024] mlx5_core x": "[Mon Jan  1 10:00:00 2024] mlx5_core x", // dmesg -T | grep -n
		"1701 [Dec  3 21:40] mlx5_core x":             "[Dec  3 21:40] mlx5_core x",             // dmesg -e
		"3 [Note: see 10:00] x":                       "3 [Note: see 10:00] x",                  // not a timestamp
		"12 mlx5_core":                                "12 mlx5_core",
	} {
		if got := cutLineNumber(in); got != want {
			t.Errorf("cutLineNumber(%q) = %q, want %q", in, got, want)
		}
	}
}
