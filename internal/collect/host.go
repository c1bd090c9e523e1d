package collect

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// hostState gathers the host's state around the RDMA ports that diagnose
// reads: the bonds (/proc/net/bonding), the loaded kernel modules
// (/proc/modules: the peer-memory module GPUDirect RDMA needs), each RDMA
// port's forced traffic class, the tools that describe a netdev, an RDMA
// device's firmware or the GPUs, and the host's layout: its NUMA nodes
// (numactl -H, lscpu), where each GPU and NIC sits on them (hwloc's XML,
// mst status -v) and whether it is a VM (systemd-detect-virt).
func (c *collector) hostState(ctx context.Context) {
	c.procFiles("bonding.txt", "/proc/net/bonding", "", c.rdmaBond)
	c.procFiles("modules.txt", "", "/proc/modules", nil)
	if len(c.meta.Devices) > 0 {
		c.trafficClasses()
	}
	c.command(ctx, "devlink_health.txt", "devlink health show", "devlink", "health", "show")
	for _, nd := range c.meta.Netdevs {
		f := "ethtool_info_" + nd + ".txt"
		c.command(ctx, f, "ethtool -i "+nd, "ethtool", "-i", nd)
		c.command(ctx, f, "ethtool "+nd, "ethtool", nd)
		c.command(ctx, f, "ethtool -a "+nd, "ethtool", "-a", nd)
		c.command(ctx, f, "ethtool --show-fec "+nd, "ethtool", "--show-fec", nd)
		c.command(ctx, "transceiver_"+nd+".txt", "ethtool -m "+nd, "ethtool", "-m", nd)
	}
	for _, dev := range c.meta.Devices {
		pci := c.pciAddress(dev)
		if pci == "" {
			continue
		}
		c.firstTool(ctx, "mlxconfig_"+dev+".txt", []string{"mlxconfig", "mstconfig"}, "-d", pci, "query")
		c.firstTool(ctx, "mlxlink_"+dev+".txt", []string{"mlxlink", "mstlink"}, "-d", pci, "-c")
	}
	c.command(ctx, "nvidia_smi_q.txt", "nvidia-smi -q -d PCIE,PERFORMANCE", "nvidia-smi", "-q", "-d", "PCIE,PERFORMANCE")
	c.command(ctx, "nvlink.txt", "nvidia-smi nvlink -s", "nvidia-smi", "nvlink", "-s")
	c.command(ctx, "gpus.txt", "nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv", "nvidia-smi", "--query-gpu=index,name,pci.bus_id", "--format=csv")
	c.layout(ctx)
}

// layout gathers where the GPUs and NICs sit: the NUMA nodes and their
// distances, hwloc's tree with the PCI devices under each package, MFT's
// table of adapters with their NUMA node, and the hypervisor if any.
func (c *collector) layout(ctx context.Context) {
	c.command(ctx, "numactl.txt", "numactl -H", "numactl", "-H")
	c.command(ctx, "lscpu.txt", "lscpu", "lscpu")
	c.firstTool(ctx, "lstopo.txt", []string{"lstopo-no-graphics", "lstopo"}, "--of", "xml")
	c.command(ctx, "mst_status.txt", "mst status -v", "mst", "status", "-v")
	// systemd-detect-virt exits 1 when it prints "none" (bare metal).
	out, err := c.run(ctx, "systemd-detect-virt")
	if v := strings.TrimSpace(string(out)); err != nil && v != "none" {
		c.missing("systemd-detect-virt", err.Error())
		return
	}
	b := c.file("virt.txt")
	b.WriteString("$ systemd-detect-virt\n")
	b.Write(out)
}

// rdmaBond reports whether the bond whose /proc/net/bonding file is data
// carries RDMA: it is an RDMA netdev (RoCE LAG's mlx5_bond_0 on bond0) or
// one of its ports ("Slave Interface:") is. A host whose RDMA netdevs are
// unknown keeps every bond, for diagnose to tell apart by speed and name.
// A management bond (1G eno1 and eno2) is none of the RDMA fabric's: its
// cable out or its balance-alb mode is no finding of it.
func (c *collector) rdmaBond(bond string, data []byte) bool {
	if len(c.meta.Netdevs) == 0 || slices.Contains(c.meta.Netdevs, bond) {
		return true
	}
	for line := range strings.Lines(string(data)) {
		if port, ok := strings.CutPrefix(strings.TrimSpace(line), "Slave Interface:"); ok && slices.Contains(c.meta.Netdevs, strings.TrimSpace(port)) {
			return true
		}
	}
	return false
}

// procFiles writes, after a `cat` line each, every file of dir (the bonds
// of /proc/net/bonding) that keep accepts (nil: every one) or the one
// file file. An absent directory is no gap: a host without bonds has none.
func (c *collector) procFiles(name, dir, file string, keep func(base string, data []byte) bool) {
	paths := []string{file}
	if dir != "" {
		paths = nil
		for _, f := range c.list(c.path(dir)) {
			paths = append(paths, filepath.Join(dir, f))
		}
	}
	for _, p := range paths {
		data, err := os.ReadFile(c.path(p))
		if err != nil {
			c.missing(p, errText(err))
			continue
		}
		if keep != nil && !keep(filepath.Base(p), data) {
			continue
		}
		b := c.file(name)
		b.WriteString("$ cat " + p + "\n")
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
}

// trafficClasses adds each RDMA port's forced traffic class (MLNX_OFED's
// /sys/class/infiniband/<dev>/tc/<port>/traffic_class) to the DCQCN
// settings, which decide together the priority RoCE lands on.
func (c *collector) trafficClasses() {
	for _, dev := range c.meta.Devices {
		rel := filepath.Join("/sys/class/infiniband", dev, "tc")
		for _, port := range c.list(c.path(rel)) {
			p := filepath.Join(rel, port, "traffic_class")
			if v, err := c.readTrim(p); err == nil && v != "" && !strings.Contains(v, "\n") {
				c.file("dcqcn_sysfs.txt").WriteString(p + ":" + v + "\n")
			}
		}
	}
}

// pciAddress is the PCI address of an RDMA device (the target of its
// device link, 0000:3b:00.0), or "" for a device on no PCI function
// (rxe, siw).
func (c *collector) pciAddress(dev string) string {
	t, err := os.Readlink(c.path(filepath.Join("/sys/class/infiniband", dev, "device")))
	if err != nil {
		return ""
	}
	a := filepath.Base(t)
	if strings.Count(a, ":") != 2 || !strings.Contains(a, ".") {
		return ""
	}
	return a
}

// firstTool runs the first of names the host has (NVIDIA's MFT tool, else
// mstflint's; lstopo-no-graphics, else lstopo), recording a gap only when
// it has none.
func (c *collector) firstTool(ctx context.Context, file string, names []string, args ...string) {
	source := names[0] + " " + strings.Join(args, " ")
	for _, n := range names {
		if _, err := c.lookPath(n); err == nil {
			c.command(ctx, file, n+" "+strings.Join(args, " "), n, args...)
			return
		}
	}
	c.missing(source, "neither "+strings.Join(names, " nor ")+" is installed")
}
