package twinfeed

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing/fstest"

	"rocelab/internal/exporter"
)

// Files returns host h as the tree a real host gives the exporter, in the
// exporter's tree layout: sys/ (what is mounted at /sys), ethtool-stats/
// (ethtool -S text per netdev) and mlnx_qos/ (mlnx_qos -i text per netdev).
// It maps each path to the file's content.
func Files(h *Host) map[string]string {
	files := map[string]string{}
	for _, d := range h.Devices {
		port := path.Join(exporter.TreeSys, "class/infiniband", d.Name, "ports", strconv.Itoa(d.Port))
		files[port+"/state"] = "4: ACTIVE\n"
		files[port+"/phys_state"] = "5: LinkUp\n"
		files[port+"/rate"] = fmt.Sprintf("%d Gb/sec (4X)\n", int64(d.Rate.Gbps()))
		files[port+"/link_layer"] = "Ethernet\n"
		for i := 0; i < 8; i++ {
			files[fmt.Sprintf("%s/gids/%d", port, i)] = "0000:0000:0000:0000:0000:0000:0000:0000\n"
		}
		for _, g := range d.GIDs {
			files[fmt.Sprintf("%s/gids/%d", port, g.Index)] = gidString(g.GID.As16()) + "\n"
			files[fmt.Sprintf("%s/gid_attrs/types/%d", port, g.Index)] = g.Type + "\n"
			files[fmt.Sprintf("%s/gid_attrs/ndevs/%d", port, g.Index)] = d.Netdev + "\n"
		}
		// hw_counters/ exists on every mlx5 port, even without counters.
		files[port+"/hw_counters"] = ""
		for _, c := range d.HWCounters {
			files[port+"/hw_counters/"+c.Name] = strconv.FormatInt(c.Value, 10) + "\n"
		}
		for _, c := range d.PortCounters {
			files[port+"/counters/"+c.Name] = strconv.FormatInt(c.Value, 10) + "\n"
		}
		net := path.Join(exporter.TreeSys, "class/net", d.Netdev)
		files[net+"/operstate"] = "up\n"
		files[net+"/carrier_changes"] = "1\n"
		files[net+"/mtu"] = "9000\n"
		files[net+"/speed"] = strconv.FormatInt(int64(d.Rate.Gbps()*1000), 10) + "\n"
		for _, role := range []string{"np", "rp"} {
			for p := 0; p < 8; p++ {
				files[fmt.Sprintf("%s/ecn/roce_%s/enable/%d", net, role, p)] = strconv.Itoa(int(d.DCQCN.Enabled>>p&1)) + "\n"
			}
		}
		for _, k := range d.DCQCN.Params {
			files[fmt.Sprintf("%s/ecn/roce_%s/%s", net, k.Role, k.Name)] = strconv.FormatInt(k.Value, 10) + "\n"
		}
		files[path.Join(exporter.TreeEthtool, d.Netdev+".txt")] = ethtoolText(h.Name, &d)
		files[path.Join(exporter.TreeQoS, d.Netdev+".txt")] = mlnxQoSText(&d)
	}
	for _, m := range h.Modules {
		files[path.Join(exporter.TreeSys, "module", m, "initstate")] = "live\n"
		// Out of tree, unsigned and, for the GPU driver, proprietary: no
		// DMA-BUF, GPUDirect RDMA only through nvidia_peermem.
		files[path.Join(exporter.TreeSys, "module", m, "taint")] = "POE\n"
	}
	bondFiles(files, h)
	return files
}

// bondFiles adds the bonding driver's sysfs of the host's bonds: bond k
// joins devices k×Bond to (k+1)×Bond-1 in 802.3ad (RoCE LAG's mode), every
// port up and in the bond's one aggregator. Each port's netdev links to
// its bond (upper_bond<k>), as the kernel's do.
func bondFiles(files map[string]string, h *Host) {
	if h.Bond < 2 {
		return
	}
	for k := 0; k*h.Bond < len(h.Devices); k++ {
		bond := fmt.Sprintf("bond%d", k)
		net := path.Join(exporter.TreeSys, "class/net", bond)
		var ports []string
		for _, d := range h.Devices[k*h.Bond : min((k+1)*h.Bond, len(h.Devices))] {
			ports = append(ports, d.Netdev)
			sl := path.Join(exporter.TreeSys, "class/net", d.Netdev)
			files[sl+"/upper_"+bond] = "../" + bond
			files[sl+"/bonding_slave/mii_status"] = "up\n"
			files[sl+"/bonding_slave/state"] = "active\n"
			files[sl+"/bonding_slave/link_failure_count"] = "0\n"
			files[sl+"/bonding_slave/ad_aggregator_id"] = "1\n"
		}
		files[net+"/operstate"] = "up\n"
		files[net+"/mtu"] = "9000\n"
		files[net+"/bonding/mode"] = "802.3ad 4\n"
		files[net+"/bonding/slaves"] = strings.Join(ports, " ") + "\n"
		files[net+"/bonding/ad_aggregator"] = "1\n"
	}
}

// FS returns host h as an in-memory file system (see Files).
func FS(h *Host) fstest.MapFS {
	m := fstest.MapFS{}
	for name, content := range Files(h) {
		if isDirMarker(name) {
			m[name] = &fstest.MapFile{Mode: 0o555 | os.ModeDir}
			continue
		}
		if isLink(name) {
			m[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o777 | fs.ModeSymlink}
			continue
		}
		m[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o444}
	}
	return m
}

// isDirMarker reports whether name is an empty directory in Files.
func isDirMarker(name string) bool { return path.Base(name) == "hw_counters" }

// isLink reports whether name is a symbolic link in Files, its content
// the target: a bond port's upper_<bond>.
func isLink(name string) bool { return strings.HasPrefix(path.Base(name), "upper_") }

// WriteTree writes every host under dir/<host>/, as Files lays it out.
func WriteTree(dir string, hosts []Host) error {
	for i := range hosts {
		files := Files(&hosts[i])
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := filepath.Join(dir, hosts[i].Name, filepath.FromSlash(n))
			if isDirMarker(n) && files[n] == "" {
				if err := os.MkdirAll(p, 0o755); err != nil {
					return err
				}
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if isLink(n) {
				if err := os.Symlink(files[n], p); err != nil {
					return err
				}
				continue
			}
			if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// gidString prints a GID as sysfs does: eight groups of four hex digits.
func gidString(b [16]byte) string {
	var sb strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		fmt.Fprintf(&sb, "%02x%02x", b[i], b[i+1])
	}
	return sb.String()
}

// ethtoolText prints the device's counters as ethtool -S does.
func ethtoolText(host string, d *Device) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# source: rocelab twin, host %s (simulated, not a real host)\n", host)
	sb.WriteString("NIC statistics:\n")
	for _, c := range d.Ethtool {
		fmt.Fprintf(&sb, "     %s: %d\n", c.Name, c.Value)
	}
	return sb.String()
}

// mlnxQoSText prints the device's QoS configuration as mlnx_qos -i does.
func mlnxQoSText(d *Device) string {
	return fmt.Sprintf("# source: rocelab twin (simulated, not a real host)\n$ mlnx_qos -i %s\n", d.Netdev) + mlnxQoSBody(d)
}

// mlnxQoSBody is what mlnx_qos -i prints for the device.
func mlnxQoSBody(d *Device) string {
	var sb strings.Builder
	sb.WriteString("DCBX mode: OS controlled\n")
	fmt.Fprintf(&sb, "Priority trust state: %s\n", d.QoS.Trust)
	sb.WriteString("dscp2prio mapping:\n")
	for p := 0; p < 8; p++ {
		var ds []string
		for dscp := 63; dscp >= 0; dscp-- {
			if int(d.QoS.DSCP[dscp]) == p {
				ds = append(ds, fmt.Sprintf("%02d", dscp))
			}
		}
		if len(ds) > 0 {
			fmt.Fprintf(&sb, "        prio:%d dscp:%s,\n", p, strings.Join(ds, ","))
		}
	}
	sb.WriteString("PFC configuration:\n        priority    0   1   2   3   4   5   6   7\n        enabled     ")
	for p := 0; p < 8; p++ {
		fmt.Fprintf(&sb, "%d   ", d.QoS.PFC>>p&1)
	}
	sb.WriteString("\n")
	return sb.String()
}
