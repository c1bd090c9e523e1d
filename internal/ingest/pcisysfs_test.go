package ingest

import (
	"strings"
	"testing"
)

func pciSysfs(t *testing.T, rel string) *PCISysfs {
	t.Helper()
	return corpusAs[*PCISysfs](t, rel, KindPCISysfs)
}

// nokyan/resources#512: tail -v of two devices' link files, the first at
// 16.0 GT/s x8 of 32.0 GT/s x16. The link model is lspci's: 16 GT/s x8 is
// 126.0 Gb/s after 128b/130b coding, a quarter of 32 GT/s x16.
func TestPCISysfsTailV(t *testing.T) {
	rel := "pci-sysfs/tail-v-link-16gts-x8-of-32gts-x16-resources512.txt"
	if res := readFile(t, corpusDir+"/"+rel, rel); res.Type() != string(KindPCISysfs) {
		t.Fatalf("type %s, want %s", res.Type(), KindPCISysfs)
	}
	p := pciSysfs(t, rel)
	if len(p.Devices) != 2 || len(p.Garbled) != 0 {
		t.Fatalf("devices %+v, garbled %+v", p.Devices, p.Garbled)
	}
	d := p.Devices[0]
	if d.BDF != "0000:01:00.0" || d.Role != RoleOther || d.Sta.GTs != 16 || d.Sta.Width != 8 || d.Cap.GTs != 32 || d.Cap.Width != 16 || !d.Downgraded() {
		t.Fatalf("device 0 %+v", d)
	}
	if d.Sta.Evidence.Line != 2 || d.Cap.Evidence.Line != 8 {
		t.Errorf("evidence lines %d, %d, want the speed lines 2 and 8", d.Sta.Evidence.Line, d.Cap.Evidence.Line)
	}
	if got := d.Sta.Rate().Gbps() / d.Cap.Rate().Gbps(); !near(got, 0.25) {
		t.Errorf("rate ratio %v, want 1/4", got)
	}
	if e := p.Devices[1]; e.BDF != "0000:03:00.0" || e.Downgraded() || e.Sta.String() != "32GT/s x16" {
		t.Errorf("device 1 %+v", e)
	}
}

// LACT#334: grep . over a DRM card's link files, not downgraded.
func TestPCISysfsGrepDRM(t *testing.T) {
	p := pciSysfs(t, "pci-sysfs/grep-drm-card-link-16gts-x16-ok-lact334.txt")
	if len(p.Devices) != 1 {
		t.Fatalf("devices %+v", p.Devices)
	}
	d := p.Devices[0]
	if d.Name != "card0" || d.Role != RoleGPU || d.Label() != "card0" || d.Sta.String() != "16GT/s x16" || d.Cap.String() != "16GT/s x16" || d.Downgraded() {
		t.Errorf("device %+v", d)
	}
}

// netutils-linux#13: a cat of numa_node printing -1 names no node.
func TestPCISysfsCatNUMANone(t *testing.T) {
	p := pciSysfs(t, "pci-sysfs/cat-net-numa-node-minus1-netutils13.txt")
	if len(p.Devices) != 1 || p.Devices[0].Name != "eth0" || p.Devices[0].Role != RoleNIC || p.Devices[0].NUMA != "" || len(p.Garbled) != 0 {
		t.Errorf("devices %+v, garbled %+v", p.Devices, p.Garbled)
	}
}

// The other forms, on a synthetic paste: echo-and-cat loops over an RDMA
// device's files with older kernels' speed strings ("8 GT/s"), "Unknown speed",
// a /sys/devices path, and a width that is not a number.
func TestPCISysfsSyntheticForms(t *testing.T) {
	rel := "../synthetic/pci-sysfs-forms-old-kernel-ib-net-garbled-synthetic.txt"
	p := pciSysfs(t, rel)
	if len(p.Devices) != 3 {
		t.Fatalf("devices %+v", p.Devices)
	}
	ib := p.Devices[0]
	if ib.Label() != "gpu07 mlx5_0" || !ib.RDMA() || ib.Sta.GTs != 8 || ib.Cap.GTs != 16 || ib.Sta.Width != 16 || ib.NUMA != "1" || ib.NUMAEvidence.Line != 11 || !ib.Downgraded() {
		t.Errorf("mlx5_0 %+v", ib)
	}
	if eno := p.Devices[1]; eno.Name != "eno1" || eno.RDMA() || eno.Sta.GTs != 0 || eno.Cap.GTs != 5 || eno.Downgraded() {
		t.Errorf("eno1 %+v", eno)
	}
	if fn := p.Devices[2]; fn.BDF != "0000:17:00.1" || fn.NUMA != "" || fn.Sta.Set() {
		t.Errorf("0000:17:00.1 %+v", fn)
	}
	if len(p.Garbled) != 1 {
		t.Fatalf("garbled %+v", p.Garbled)
	}
	msg := p.Garbled[0].Error("f")
	if want := `f:18:70: expected a lane count from 0 to 32, or 255 for none, got "x8"`; msg != want {
		t.Errorf("garble %q, want %q", msg, want)
	}
	if lb := p.Bottlenecks(); len(lb) != 1 || !strings.Contains(lb[0].What, "mlx5_0") || !near(lb[0].Cap.Gbps(), 8*16*128.0/130) {
		t.Errorf("bottlenecks %+v, want mlx5_0 capped at 8 GT/s x16", lb)
	}
}

// Paths that are not a PCI device's link or NUMA file are not read.
func TestPCISysfsPathsNotRead(t *testing.T) {
	for _, p := range []string{
		"/sys/class/net/eth0/ecn/roce_np/enable/3",
		"/sys/class/net/eth0/speed",
		"/sys/class/infiniband/mlx5_0/ports/1/rate",
		"/sys/bus/pci/devices/0000:01:00.0/device/current_link_speed",
		"/sys/bus/pci/devices/01:00.0/current_link_speed",
		"/sys/class/net/eth0/current_link_speed",
	} {
		if f, ok := parsePCISysfsPath(p); ok {
			t.Errorf("%s read as %+v", p, f)
		}
	}
}

// Synthetic, in the kernel's forms: a link that trained no lanes prints
// current_link_width 0 and current_link_speed "Unknown" (pci_speed_string
// of a LnkSta speed of 0); a device whose LnkCap reads 0 (a VF, AWS's ENA
// in a real udevadm dump) prints max_link_width 255, PCIE_LNK_WIDTH_UNKNOWN.
// The first is a link down below a known max; the second states no link
// and is not garbled.
func TestPCISysfsLinkDownAndWidthUnknown(t *testing.T) {
	p := NewPCISysfsParser("f")
	for i, s := range []string{
		"/sys/bus/pci/devices/0000:17:00.0/current_link_speed:Unknown",
		"/sys/bus/pci/devices/0000:17:00.0/current_link_width:0",
		"/sys/bus/pci/devices/0000:17:00.0/max_link_speed:16.0 GT/s PCIe",
		"/sys/bus/pci/devices/0000:17:00.0/max_link_width:16",
		"/sys/bus/pci/devices/0000:17:00.2/current_link_speed:Unknown speed",
		"/sys/bus/pci/devices/0000:17:00.2/current_link_width:0",
		"/sys/bus/pci/devices/0000:17:00.2/max_link_speed:Unknown speed",
		"/sys/bus/pci/devices/0000:17:00.2/max_link_width:255",
	} {
		p.Feed(Line{Num: i + 1, Text: s})
	}
	s := p.Result().(*PCISysfs)
	if len(s.Devices) != 2 || len(s.Garbled) != 0 {
		t.Fatalf("devices %+v, garbled %+v", s.Devices, s.Garbled)
	}
	if d := s.Devices[0]; !d.Sta.Down || !d.Downgraded() || d.Sta.String() != "no lanes (x0: the link is down)" {
		t.Errorf("0000:17:00.0 %+v: want its link down below 16GT/s x16", d)
	}
	if vf := s.Devices[1]; vf.Cap.Set() || vf.Cap.Width != 0 || vf.Downgraded() {
		t.Errorf("0000:17:00.2 %+v: want no link capability and nothing downgraded", vf)
	}
}

// The class and vendor files (pci-sysfs.c: "0x%06x" and "0x%04x", in
// synthetic lines of those forms) say what a device known only by its
// address is: a class of 0x0200 is an Ethernet controller, a NIC, named by
// its vendor (0x15b3, Mellanox, an RDMA family); 0x0604 a PCI bridge, a
// port; 0x0302 a 3D controller, a GPU; a class of none of them (0x010802,
// an NVMe drive) is kept as its code. A class that is not "0x" and six
// hex digits is a garble at its column.
func TestPCISysfsClassVendor(t *testing.T) {
	p := readOne[*PCISysfs](t, "class.txt", strings.Join([]string{
		"/sys/bus/pci/devices/0000:17:00.0/class:0x020000",
		"/sys/bus/pci/devices/0000:17:00.0/vendor:0x15b3",
		"/sys/bus/pci/devices/0000:00:01.1/class:0x060400",
		"/sys/bus/pci/devices/0000:c1:00.0/class:0x030200",
		"/sys/bus/pci/devices/0000:c1:00.0/vendor:0x10de",
		"/sys/bus/pci/devices/0000:c2:00.0/class:0x2000",
		"/sys/bus/pci/devices/0000:01:00.0/class:0x010802",
	}, "\n")+"\n")
	if len(p.Devices) != 5 {
		t.Fatalf("%d devices: %+v", len(p.Devices), p.Devices)
	}
	nic, port, gpu := p.Devices[0], p.Devices[1], p.Devices[2]
	if nic.Class != "Ethernet controller" || nic.Role != RoleNIC || nic.Name != "Mellanox Technologies" || !nic.RDMA() {
		t.Errorf("nic %+v", nic)
	}
	if port.Class != "PCI bridge" || port.Role != RoleOther || port.Name != "" {
		t.Errorf("port %+v", port)
	}
	if gpu.Class != "3D controller" || gpu.Role != RoleGPU || gpu.Name != "NVIDIA Corporation" {
		t.Errorf("gpu %+v", gpu)
	}
	if other := p.Devices[4]; other.Class != "PCI class 0x010802" || other.Role != RoleOther {
		t.Errorf("an NVMe drive's class %+v", other)
	}
	if len(p.Garbled) != 1 || p.Garbled[0].Line != 6 || p.Garbled[0].Col != 41 || !strings.Contains(p.Garbled[0].Expected, "class code") {
		t.Errorf("garbled %+v", p.Garbled)
	}
}

// AWS's EFA and Azure's MANA were not in the device table: a sysfs dump
// named them by vendor alone ("PCI vendor" nothing for Amazon) and the EFA,
// the RDMA NIC of an AWS GPU instance, was no RDMA NIC to the NUMA and link
// rules. The IDs are pci.ids' (1d0f:efa1) and Linux's gdma.h (1414:00ba);
// the lines are synthetic, in the grep form of a real sysfs dump.
func TestPCISysfsEFAAndMANA(t *testing.T) {
	p := readOne[*PCISysfs](t, "efa-mana.txt", strings.Join([]string{
		"/sys/bus/pci/devices/0000:10:1c.0/class:0x020000",
		"/sys/bus/pci/devices/0000:10:1c.0/vendor:0x1d0f",
		"/sys/bus/pci/devices/0000:10:1c.0/device:0xefa1",
		"/sys/bus/pci/devices/7870:00:00.0/class:0x020000",
		"/sys/bus/pci/devices/7870:00:00.0/vendor:0x1414",
		"/sys/bus/pci/devices/7870:00:00.0/device:0x00ba",
	}, "\n")+"\n")
	if len(p.Devices) != 2 {
		t.Fatalf("%d devices: %+v", len(p.Devices), p.Devices)
	}
	efa, mana := p.Devices[0], p.Devices[1]
	if efa.Name != "Amazon.com, Inc. Elastic Fabric Adapter (EFA)" || !efa.RDMA() {
		t.Errorf("efa %+v (RDMA %v)", efa, efa.RDMA())
	}
	if mana.Name != "Microsoft Corporation Device 00ba" || mana.RDMA() {
		t.Errorf("mana %+v (RDMA %v)", mana, mana.RDMA())
	}
}
