package ingest

import (
	"fmt"
	"strconv"
	"strings"
)

// KindPCISysfs is a PCI device's link and NUMA node as sysfs shows them.
const KindPCISysfs Kind = "pci-sysfs"

// PCISysfs is what engineers paste when lspci is not at hand: the files
// the kernel keeps for each PCIe device's link (drivers/pci/pci-sysfs.c)
// and its NUMA node, under /sys/bus/pci/devices/<bdf>/, under the
// /sys/devices/pci<domain>:<bus>/... path of the device, or behind the
// device link of an RDMA device (/sys/class/infiniband/<dev>/device/), a
// netdev (/sys/class/net/<if>/device/) or a DRM card
// (/sys/class/drm/card<N>/device/), as `tail -v` prints them:
//
//	==> /sys/bus/pci/devices/0000:01:00.0/current_link_speed <==
//	16.0 GT/s PCIe
//
// as grep prints them for several files (`grep . PATH...`, `grep -H`):
//
//	/sys/class/drm/card0/device/max_link_width:16
//
// and as a `cat PATH` after a shell prompt, or a loop's `echo $f; cat $f`,
// prints the path and then the value. Speeds are pci_speed_string's
// (drivers/pci/probe.c): "2.5 GT/s PCIe", "5.0 GT/s PCIe" to "64.0 GT/s
// PCIe", "Unknown" for a rate the kernel does not know; kernels before
// linux-pci's 2020 speed-string rework (5.6 and earlier, as NCCL's topology
// code notes) print "2.5 GT/s", "5 GT/s" to "32 GT/s" and "Unknown speed".
// Widths are lane counts: current_link_width is 0 when the link trained no
// lanes, max_link_width 255 (PCIE_LNK_WIDTH_UNKNOWN) when the device
// states no link capability (a VF, a cloud's virtual NIC). numa_node is -1
// for none.
//
// Each device becomes a PCIDevice of the link model lspci's reader feeds:
// max_link_* is its capability (LnkCap), current_link_* its state (LnkSta).
type PCISysfs struct {
	Scoped
	artifactHead
	// Devices are in the order first seen.
	Devices []PCIDevice
	// Garbled are the values of link or NUMA files that did not read.
	Garbled []Garble
}

// Kind returns KindPCISysfs.
func (p *PCISysfs) Kind() Kind { return KindPCISysfs }

// Above is the port above a device: sysfs link files do not say.
func (p *PCISysfs) Above(PCIDevice) (PCIDevice, bool) { return PCIDevice{}, false }

// Bottlenecks reports the devices whose link caps them, as lspci's do.
func (p *PCISysfs) Bottlenecks() []Bottleneck { return linkBottlenecks(p.Devices) }

// pciSysfsAttrs are the files read, each a bit of what a device showed.
var pciSysfsAttrs = []string{"current_link_speed", "current_link_width", "max_link_speed", "max_link_width", "numa_node", "class", "vendor", "device"}

// pciClassNames name the class codes (the kernel's class file, "0x%06x":
// base class, subclass, programming interface) of the devices a collective
// runs on, as lspci names them; a class not here is kept as its code
// ("PCI class 0x010802"), a device that is none of them.
var pciClassNames = map[int]string{
	0x0200: "Ethernet controller", 0x0207: "Infiniband controller", 0x0280: "Network controller",
	0x0300: "VGA compatible controller", 0x0302: "3D controller", 0x0380: "Display controller",
	0x0604: "PCI bridge", 0x1200: "Processing accelerators",
}

// pciVendorNames name the vendor IDs (the kernel's vendor file,
// "0x%04x") of the RDMA NIC and GPU makers of GPU clusters as pci.ids
// spells them (pciutils/pciids, pci.ids as of August 2026).
var pciVendorNames = map[int]string{
	0x15b3: "Mellanox Technologies", 0x10de: "NVIDIA Corporation", 0x14e4: "Broadcom Inc. and subsidiaries",
	0x8086: "Intel Corporation", 0x1dd8: "AMD Pensando Systems", 0x1002: "Advanced Micro Devices, Inc. [AMD/ATI]",
	0x1077: "QLogic Corp.", 0x1da3: "Habana Labs Ltd.", 0x1d0f: "Amazon.com, Inc.", 0x1414: "Microsoft Corporation",
}

// pciDeviceNames name the device IDs (the kernel's device file) of the
// NICs and accelerators seen in GPU clusters, by vendor, each as pci.ids
// spells it (the same pci.ids): the name says the NIC's family, which is
// what tells an RDMA NIC from a host's management port (PCIDevice.RDMA).
var pciDeviceNames = map[[2]int]string{
	// NVIDIA (Mellanox) ConnectX and BlueField.
	{0x15b3, 0x101b}: "MT28908 Family [ConnectX-6]",
	{0x15b3, 0x101d}: "MT2892 Family [ConnectX-6 Dx]",
	{0x15b3, 0x1021}: "MT2910 Family [ConnectX-7]",
	{0x15b3, 0x1023}: "CX8 Family [ConnectX-8]",
	{0x15b3, 0xa2dc}: "MT43244 BlueField-3 integrated ConnectX-7 network controller",
	// Broadcom NetXtreme-E (bnxt_en, bnxt_re): Thor and Thor 2.
	{0x14e4, 0x16d7}: "BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller",
	{0x14e4, 0x1750}: "BCM57508 NetXtreme-E 10Gb/25Gb/40Gb/50Gb/100Gb/200Gb Ethernet",
	{0x14e4, 0x1760}: "BCM57608 25Gb/50Gb/100Gb/200Gb/400Gb Ethernet",
	// Intel E810 (ice, irdma).
	{0x8086, 0x1592}: "Ethernet Controller E810-C for QSFP",
	{0x8086, 0x1593}: "Ethernet Controller E810-C for SFP",
	{0x8086, 0x159b}: "Ethernet Controller E810-XXV for SFP",
	// AMD Pensando DSC (ionic).
	{0x1dd8, 0x1002}: "DSC Ethernet Controller",
	// Marvell (QLogic) FastLinQ (qede, qedr).
	{0x1077, 0x8070}: "FastLinQ QL41000 Series 10/25/40/50GbE Controller",
	{0x1077, 0x1644}: "FastLinQ QL45000 Series 100GbE Controller",
	// AWS EFA (efa0 to efa4 in pci.ids; the efa driver's device table).
	{0x1d0f, 0xefa0}: "Elastic Fabric Adapter (EFA)",
	{0x1d0f, 0xefa1}: "Elastic Fabric Adapter (EFA)",
	{0x1d0f, 0xefa2}: "Elastic Fabric Adapter (EFA)",
	{0x1d0f, 0xefa3}: "Elastic Fabric Adapter (EFA)",
	{0x1d0f, 0xefa4}: "Elastic Fabric Adapter (EFA)",
	// Azure MANA, the physical and the virtual function (MANA_PF_DEVICE_ID
	// and MANA_VF_DEVICE_ID of Linux's include/net/mana/gdma.h): pci.ids
	// names neither, so lspci prints the ID as pciutils' lib/names.c
	// formats an unknown device ("Device %s").
	{0x1414, 0x00b9}: "Device 00b9",
	{0x1414, 0x00ba}: "Device 00ba",
	// NVIDIA and AMD data-centre GPUs, Intel Gaudi (Habana).
	{0x10de, 0x20b0}: "GA100 [A100 SXM4 40GB]",
	{0x10de, 0x2330}: "GH100 [H100 SXM5 80GB]",
	{0x10de, 0x2335}: "GH100 [H200 SXM 141GB]",
	{0x1002, 0x740f}: "Aldebaran/MI200 [Instinct MI210]",
	{0x1002, 0x74a1}: "Aqua Vanjaram [Instinct MI300X]",
	{0x1da3, 0x1020}: "Gaudi2 AI Training Accelerator",
	{0x1da3, 0x1060}: "Gaudi3 AI Training Accelerator",
}

// pciName names a device by its vendor and device IDs as lspci does
// ("Intel Corporation Ethernet Controller E810-C for QSFP"), by its
// vendor alone when the device is not in the table, "" when neither is.
func pciName(vendor, device int) string {
	v, known := pciVendorNames[vendor]
	if !known {
		return ""
	}
	if d, known := pciDeviceNames[[2]int{vendor, device}]; known {
		return v + " " + d
	}
	return v
}

// A pciSysfsPath is a link or NUMA file of one device.
type pciSysfsPath struct {
	// bdf is the device's address, "" when the path names it by class.
	bdf string
	// name and role come from a class path (mlx5_0, a NIC).
	name, role string
	rdma       bool
	attr       string
}

// parsePCISysfsPath reads a sysfs path ending in a link or NUMA file.
func parsePCISysfsPath(path string) (pciSysfsPath, bool) {
	dir, attr, ok := cutLast(path, '/')
	if !ok || !isPCISysfsAttr(attr) {
		return pciSysfsPath{}, false
	}
	for _, c := range []struct {
		prefix, role string
		rdma         bool
	}{
		{"/sys/class/infiniband/", RoleNIC, true},
		{"/sys/class/net/", RoleNIC, false},
		{"/sys/class/drm/", RoleGPU, false},
	} {
		if rest, found := strings.CutPrefix(dir, c.prefix); found {
			name, dev, _ := strings.Cut(rest, "/")
			if dev != "device" || !isIdentName(name) {
				return pciSysfsPath{}, false
			}
			return pciSysfsPath{name: name, role: c.role, rdma: c.rdma, attr: attr}, true
		}
	}
	if !strings.HasPrefix(dir, "/sys/bus/pci/devices/") && !strings.HasPrefix(dir, "/sys/devices/pci") {
		return pciSysfsPath{}, false
	}
	_, bdf, _ := cutLast(dir, '/')
	if !isBDF(bdf) || strings.Count(bdf, ":") != 2 {
		return pciSysfsPath{}, false
	}
	bdf = strings.ToLower(bdf)
	return pciSysfsPath{bdf: bdf, attr: attr}, true
}

func isPCISysfsAttr(a string) bool {
	for _, x := range pciSysfsAttrs {
		if a == x {
			return true
		}
	}
	return false
}

// parseSysfsSpeed reads a link speed file: GTs is 0 for "Unknown".
func parseSysfsSpeed(v string) (gts float64, ok bool) {
	if v == "Unknown" || v == "Unknown speed" {
		return 0, true
	}
	num, found := strings.CutSuffix(strings.TrimSuffix(v, " PCIe"), " GT/s")
	if !found {
		return 0, false
	}
	gts, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" || num[0] < '0' || num[0] > '9' {
		return 0, false
	}
	for _, known := range []float64{2.5, 5, 8, 16, 32, 64} {
		if gts == known {
			return gts, true
		}
	}
	return 0, false
}

// sysfsHex reads "0x" and digits hex digits, as pci-sysfs.c prints a
// class ("0x%06x") or vendor ("0x%04x").
func sysfsHex(v string, digits int) (int, bool) {
	h, ok := strings.CutPrefix(v, "0x")
	if !ok || len(h) != digits || !isHex(h) {
		return 0, false
	}
	n, err := strconv.ParseInt(h, 16, 32)
	return int(n), err == nil
}

// pcieWidthUnknown is the kernel's PCIE_LNK_WIDTH_UNKNOWN, which
// max_link_width prints for a device whose LnkCap reads 0.
const pcieWidthUnknown = 255

type pciSysfsParser struct {
	out PCISysfs
	// pending is the file a header, echo or cat named, its value on the
	// next line while waiting is set.
	pending pciSysfsPath
	waiting bool
}

// NewPCISysfsParser returns a parser for PCI link and NUMA sysfs files in
// the input src.
func NewPCISysfsParser(src string) Parser {
	return &pciSysfsParser{out: PCISysfs{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *pciSysfsParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimRight(l.Text, " \t\r")
	if p.waiting {
		p.waiting = false
		if t != "" && !strings.Contains(t, "/sys/") {
			p.set(p.pending, l, len(t)-len(strings.TrimLeft(t, " \t")))
			return
		}
	}
	i := strings.Index(t, "/sys/")
	if i < 0 {
		return
	}
	head, rest := strings.TrimSpace(t[:i]), t[i:]
	switch {
	case head == "==>" && strings.HasSuffix(rest, " <=="):
		// tail -v's header.
		p.expect(strings.TrimSuffix(rest, " <=="), l)
	case head == "":
		// PATH:VALUE from grep, or a path echoed before its cat.
		for _, a := range pciSysfsAttrs {
			if k := strings.Index(rest, "/"+a+":"); k >= 0 {
				if path, ok := parsePCISysfsPath(rest[:k+1+len(a)]); ok {
					p.set(path, l, i+k+len(a)+2)
				}
				return
			}
		}
		if !strings.ContainsAny(rest, " \t") {
			p.expect(rest, l)
		}
	case strings.HasSuffix(head, "cat") && !strings.ContainsAny(rest, " \t"):
		// A prompt's `cat PATH`: the value is on the next line.
		p.expect(rest, l)
	}
}

// expect waits for the value of the file at path on the next line.
func (p *pciSysfsParser) expect(path string, l Line) {
	if f, ok := parsePCISysfsPath(path); ok {
		p.pending, p.waiting = f, true
		p.out.lines.add(l)
	}
}

// set records the value at byte at of line l for the file f.
func (p *pciSysfsParser) set(f pciSysfsPath, l Line, at int) {
	v := strings.TrimSpace(l.Text[at:])
	p.out.lines.add(l)
	d := p.device(f, l)
	if d == nil {
		return
	}
	ev := At(p.out.src, l)
	switch f.attr {
	case "current_link_speed", "max_link_speed":
		gts, ok := parseSysfsSpeed(v)
		if !ok {
			p.garble(l, at, `a link speed as the kernel prints it ("16.0 GT/s PCIe", "8 GT/s", "Unknown")`)
			return
		}
		s := &d.Cap
		if f.attr == "current_link_speed" {
			s = &d.Sta
		}
		s.GTs, s.Evidence = gts, ev
	case "current_link_width", "max_link_width":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 32 && n != pcieWidthUnknown {
			p.garble(l, at, "a lane count from 0 to 32, or 255 for none")
			return
		}
		s := &d.Cap
		if f.attr == "current_link_width" {
			s = &d.Sta
			s.Down = n == 0
		}
		if n == pcieWidthUnknown {
			n = 0
		}
		// The speed's line is the link's evidence when both are shown.
		s.Width = n
		if s.Evidence.Line == 0 {
			s.Evidence = ev
		}
	case "class":
		c, ok := sysfsHex(v, 6)
		if !ok {
			p.garble(l, at, `a class code as the kernel prints it ("0x020000")`)
			return
		}
		if d.Class != "" {
			break
		}
		name, known := pciClassNames[c>>8]
		if !known {
			d.Class = fmt.Sprintf("PCI class 0x%06x", c)
			break
		}
		d.Class = name
		if d.Role == RoleOther {
			d.Role = pciRole(name, d.Name)
		}
	case "vendor", "device":
		id, ok := sysfsHex(v, 4)
		if !ok {
			p.garble(l, at, fmt.Sprintf("a %s ID as the kernel prints it (\"0x%04x\")", f.attr, map[string]int{"vendor": 0x15b3, "device": 0x1021}[f.attr]))
			return
		}
		if f.attr == "vendor" {
			d.ids.vendor = id
		} else {
			d.ids.device = id
		}
		if name := pciName(d.ids.vendor, d.ids.device); name != "" && (d.Name == "" || d.ids.named) {
			d.Name, d.ids.named = name, true
		}
	case "numa_node":
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 {
			p.garble(l, at, "a NUMA node number, or -1 for none")
			return
		}
		if n >= 0 {
			d.NUMA, d.NUMAEvidence = strconv.Itoa(n), ev
		}
	}
}

// device returns the device the file belongs to, new if first seen, nil
// past the cap.
func (p *pciSysfsParser) device(f pciSysfsPath, l Line) *PCIDevice {
	for i := range p.out.Devices {
		d := &p.out.Devices[i]
		if d.Host == l.Host && (d.BDF != "" && d.BDF == f.bdf || d.BDF == "" && d.Name == f.name && d.Role == f.role) {
			return d
		}
	}
	if len(p.out.Devices) >= maxPCIDevices {
		return nil
	}
	p.out.Devices = append(p.out.Devices, PCIDevice{
		BDF: strings.Clone(f.bdf), Name: strings.Clone(f.name), Role: f.role, RDMADevice: f.rdma,
		Host: l.Host, Evidence: At(p.out.src, l),
	})
	return &p.out.Devices[len(p.out.Devices)-1]
}

func (p *pciSysfsParser) garble(l Line, at int, expected string) {
	if len(p.out.Garbled) < maxGarbled {
		p.out.Garbled = append(p.out.Garbled, garbleAt(l, at, expected))
	}
}

// Result implements Parser.
func (p *pciSysfsParser) Result() Artifact {
	if len(p.out.Devices) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
