package doctor

import (
	"strings"
	"testing"
)

// PCI link sysfs files feed the link model lspci's reader does: a device
// at 16.0 GT/s x8 of its 32.0 GT/s x16 (nokyan/resources#512, tail -v)
// keeps 126.0 Gb/s of 504.1 (8 and 16 lanes of 32 and 16 GT/s after
// 128b/130b: 1/4 of it, 75% lost); sysfs does not say what the device
// is, so the finding is an info. The device beside it at its max, and a
// DRM card at its max (LACT#334), raise nothing.
func TestPCISysfsCorpus(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/pci-sysfs/tail-v-link-16gts-x8-of-32gts-x16-resources512.txt")
	f := nicMustFind(t, fs, "host.pcie.degraded", Info, "Device 0000:01:00.0: PCIe link trained at 16GT/s x8 of its 32GT/s x16: 126.0 Gb/s of 504.1 Gb/s (75% lost) (the input does not say what the device is")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 2 || f.Evidence[1].Line != 8 || !strings.Contains(f.Mechanism, "max_link_speed and max_link_width LnkCap") {
		t.Errorf("evidence %v mechanism %s", f.Evidence, f.Mechanism)
	}
	if n := len(nicFind(fs, "host.pcie.degraded")); n != 1 {
		t.Errorf("%d host.pcie.degraded findings, want 1 (0000:03:00.0 is at its max)", n)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/pci-sysfs/grep-drm-card-link-16gts-x16-ok-lact334.txt")
	nicMustNot(t, fs, "host.pcie.degraded")
}

// Synthetic: an RDMA device's files (an echo-and-cat loop, older kernels' speed
// strings) at 8 GT/s of 16 warn as lspci's LnkSta below LnkCap does; a
// width that is not a number is input.garbled at its line and column.
func TestPCISysfsSynthetic(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/pci-sysfs-forms-old-kernel-ib-net-garbled-synthetic.txt")
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "NIC gpu07 mlx5_0: PCIe link trained at 8GT/s x16 of its 16GT/s x16: 126.0 Gb/s of 252.1 Gb/s (50% lost)")
	nicMustFind(t, fs, "input.garbled", Warn, `pci-sysfs-forms-old-kernel-ib-net-garbled-synthetic.txt:18:70: expected a lane count from 0 to 32, or 255 for none, got "x8"`)
	if n := len(nicFind(fs, "host.pcie.degraded")); n != 1 {
		t.Errorf("%d host.pcie.degraded findings, want 1 (eno1's speed is unknown)", n)
	}
}

// A DRM card's numa_node feeds host.numa.nic_far as lspci's "NUMA node:"
// does: beside mst status -v's whole NIC list (real, nodes 1 to 3), a
// synthetic card on node 0 has no NIC on its node; one on node 2 does.
func TestPCISysfsNUMA(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/pci-sysfs-grep-drm-numa-node0-node2-synthetic.txt", "corpus/mst/mst-status-v-cx7-ib-4-numa-blank-lines-cut-sriovdp601.txt")
	nicMustFind(t, fs, "host.numa.nic_far", Warn, "1 of 2 GPUs (GPU card1) sit on NUMA node 0, which has no RDMA NIC")
}

// Synthetic, in the kernel's forms: a device whose link trained no lanes
// (current_link_width 0, current_link_speed "Unknown") below its 16.0 GT/s
// x16 is reported down; a VF's files (widths 0 and 255, speeds "Unknown
// speed": no LnkCap) raise nothing, not even input.garbled; nor does an
// address-only device at x0 below its max (an empty slot's root port
// prints that, and sysfs does not say the device is a port).
func TestPCISysfsLinkDown(t *testing.T) {
	fs := synthFindings(t, Options{},
		"/sys/class/infiniband/mlx5_3/device/current_link_speed:Unknown",
		"/sys/class/infiniband/mlx5_3/device/current_link_width:0",
		"/sys/class/infiniband/mlx5_3/device/max_link_speed:16.0 GT/s PCIe",
		"/sys/class/infiniband/mlx5_3/device/max_link_width:16",
		"/sys/bus/pci/devices/0000:17:00.2/current_link_speed:Unknown speed",
		"/sys/bus/pci/devices/0000:17:00.2/current_link_width:0",
		"/sys/bus/pci/devices/0000:17:00.2/max_link_speed:Unknown speed",
		"/sys/bus/pci/devices/0000:17:00.2/max_link_width:255",
		"/sys/bus/pci/devices/0000:00:01.1/current_link_speed:Unknown",
		"/sys/bus/pci/devices/0000:00:01.1/current_link_width:0",
		"/sys/bus/pci/devices/0000:00:01.1/max_link_speed:32.0 GT/s PCIe",
		"/sys/bus/pci/devices/0000:00:01.1/max_link_width:16",
	)
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "mlx5_3: PCIe link trained at no lanes (x0: the link is down) of its 16GT/s x16")
	if n := len(nicFind(fs, "host.pcie.degraded")); n != 1 {
		t.Errorf("%d host.pcie.degraded findings, want 1 (the VF states no link; 0000:00:01.1 may be an empty slot's port)", n)
	}
	nicMustNot(t, fs, "input.garbled")
}

// Synthetic, in the kernel's forms (pci-sysfs.c's class "0x%06x" and
// vendor "0x%04x"): the class file says what an address-only device is. A
// Mellanox Ethernet controller at 16 GT/s x8 of x16 warns as lspci's NIC
// does (126.0 of 252.1 Gb/s); a 3D controller whose link trained no lanes
// is a GPU down, not an empty slot; a bridge at x0 raises nothing, and a
// bridge at x8 of x16 is an info naming it a port.
func TestPCISysfsClassNamesDevice(t *testing.T) {
	dev := func(bdf, class, vendor, cur, curW, max, maxW string) []string {
		p := "/sys/bus/pci/devices/" + bdf + "/"
		return []string{p + "class:" + class, p + "vendor:" + vendor, p + "current_link_speed:" + cur, p + "current_link_width:" + curW, p + "max_link_speed:" + max, p + "max_link_width:" + maxW}
	}
	var lines []string
	lines = append(lines, dev("0000:17:00.0", "0x020000", "0x15b3", "16.0 GT/s PCIe", "8", "16.0 GT/s PCIe", "16")...)
	lines = append(lines, dev("0000:c1:00.0", "0x030200", "0x10de", "Unknown", "0", "32.0 GT/s PCIe", "16")...)
	lines = append(lines, dev("0000:00:01.1", "0x060400", "0x1022", "Unknown", "0", "32.0 GT/s PCIe", "16")...)
	lines = append(lines, dev("0000:00:03.1", "0x060400", "0x1022", "16.0 GT/s PCIe", "8", "16.0 GT/s PCIe", "16")...)
	fs := synthFindings(t, Options{}, lines...)
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "NIC 0000:17:00.0 Mellanox Technologies: PCIe link trained at 16GT/s x8 of its 16GT/s x16: 126.0 Gb/s of 252.1 Gb/s (50% lost)")
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU 0000:c1:00.0 NVIDIA Corporation: PCIe link trained at no lanes (x0: the link is down) of its 32GT/s x16")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "Device 0000:00:03.1: PCIe link trained at 16GT/s x8 of its 16GT/s x16", "(a PCI bridge, its class file says")
	if n := len(nicFind(fs, "host.pcie.degraded")); n != 3 {
		t.Errorf("%d host.pcie.degraded findings, want 3 (0000:00:01.1 is a port at x0): %s", n, nicTitles(fs))
	}
	nicMustNot(t, fs, "input.garbled")
}

// Synthetic, in the kernel's forms: a device whose class file names it as
// none of a NIC, a GPU or a port (0x010802, an NVMe drive) is left alone,
// as lspci's named drives are, and is not said to be a device the input
// does not name; one without a class file still is.
func TestPCISysfsOtherClassNotJudged(t *testing.T) {
	lines := []string{
		"/sys/bus/pci/devices/0000:01:00.0/class:0x010802",
		"/sys/bus/pci/devices/0000:01:00.0/current_link_speed:8.0 GT/s PCIe",
		"/sys/bus/pci/devices/0000:01:00.0/current_link_width:2",
		"/sys/bus/pci/devices/0000:01:00.0/max_link_speed:16.0 GT/s PCIe",
		"/sys/bus/pci/devices/0000:01:00.0/max_link_width:4",
		"/sys/bus/pci/devices/0000:02:00.0/current_link_speed:8.0 GT/s PCIe",
		"/sys/bus/pci/devices/0000:02:00.0/current_link_width:2",
		"/sys/bus/pci/devices/0000:02:00.0/max_link_speed:16.0 GT/s PCIe",
		"/sys/bus/pci/devices/0000:02:00.0/max_link_width:4",
	}
	got := nicFind(synthFindings(t, Options{}, lines...), "host.pcie.degraded")
	if len(got) != 1 || !strings.Contains(got[0].Title, "Device 0000:02:00.0: PCIe link trained at 8GT/s x2 of its 16GT/s x4") {
		t.Errorf("want only 0000:02:00.0 judged: %s", nicTitles(got))
	}
}

// Synthetic, in the kernel's sysfs forms: a device's vendor and device
// files name it as pci.ids does, so an Intel E810 (8086:1592) or a
// Broadcom Thor 2 (14e4:1760) known only by its address is an RDMA NIC
// (a warning for its lost lanes) where its vendor alone ("Intel
// Corporation", a management port as likely) gave an info, and a Gaudi2
// (1da3:1020, a processing accelerator) is named; a device ID not in the
// table keeps its vendor's name.
func TestPCISysfsDeviceIDs(t *testing.T) {
	dev := func(bdf, class, vendor, device string) []string {
		p := "/sys/bus/pci/devices/" + bdf + "/"
		return []string{p + "class:" + class, p + "current_link_speed:16.0 GT/s PCIe", p + "current_link_width:8", p + "device:" + device, p + "max_link_speed:16.0 GT/s PCIe", p + "max_link_width:16", p + "vendor:" + vendor}
	}
	var lines []string
	lines = append(lines, dev("0000:17:00.0", "0x020000", "0x8086", "0x1592")...)
	lines = append(lines, dev("0000:18:00.0", "0x020000", "0x14e4", "0x1760")...)
	lines = append(lines, dev("0000:19:00.0", "0x120000", "0x1da3", "0x1020")...)
	lines = append(lines, dev("0000:1a:00.0", "0x020000", "0x8086", "0x1521")...)
	fs := synthFindings(t, Options{}, lines...)
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "NIC 0000:17:00.0 Intel Corporation Ethernet Controller E810-C for QSFP: PCIe link trained at 16GT/s x8")
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "NIC 0000:18:00.0 Broadcom Inc. and subsidiaries BCM57608 25Gb/50Gb/100Gb/200Gb/400Gb Ethernet: PCIe link trained at 16GT/s x8")
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU 0000:19:00.0 Habana Labs Ltd. Gaudi2 AI Training Accelerator: PCIe link trained at 16GT/s x8")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "NIC 0000:1a:00.0 Intel Corporation: PCIe link trained at 16GT/s x8", "not an RDMA NIC family rocelab knows")
	nicMustNot(t, fs, "input.garbled")
}
