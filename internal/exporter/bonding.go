package exporter

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// bondCollector reads the bonds the RDMA netdevs are (RoCE LAG:
// mlx5_bond_0's netdev is bond0) or are ports of, from the bonding
// driver's sysfs: the bond's bonding/mode, bonding/slaves and, in 802.3ad,
// bonding/ad_aggregator; each port's bonding_slave/mii_status, state,
// link_failure_count and ad_aggregator_id, and its speed. These are the
// fields of /proc/net/bonding/<bond> that `rocelab diagnose` judges
// (host.bond.*), one file each. A host without bonds exports nothing.
type bondCollector struct{}

var (
	bondInfo         = newMetric("rocelab_nic_bond_info", "1 for each bond an RDMA netdev is or is a port of, with its mode as bonding/mode names it (802.3ad, active-backup, balance-rr, ...): RoCE LAG offloads 802.3ad and active-backup only.", prometheus.GaugeValue, "bond", "mode")
	bondSlaveUp      = newMetric("rocelab_nic_bond_slave_up", "1 when the bond's port has link as the bonding driver sees it (bonding_slave/mii_status up), else 0.", prometheus.GaugeValue, "bond", "slave")
	bondSlaveActive  = newMetric("rocelab_nic_bond_slave_active", "1 when the bond sends on the port (bonding_slave/state active: active-backup's active port, a port of 802.3ad's active aggregator), 0 for a backup.", prometheus.GaugeValue, "bond", "slave")
	bondSlaveInAgg   = newMetric("rocelab_nic_bond_slave_in_active_aggregator", "802.3ad only: 1 when the port's aggregator (bonding_slave/ad_aggregator_id) is the bond's active one (bonding/ad_aggregator), else 0: a port in another aggregator carries nothing (its switch port is outside the port-channel).", prometheus.GaugeValue, "bond", "slave")
	bondSlaveFailure = newMetric("rocelab_nic_bond_slave_link_failures_total", "Times the bonding driver saw the port's link fail (bonding_slave/link_failure_count).", prometheus.CounterValue, "bond", "slave")
	bondSlaveSpeed   = newMetric("rocelab_nic_bond_slave_speed_bytes_per_second", "The bond port's link speed (sysfs speed in Mb/s, as bytes per second), exported while the bonding driver sees its link up: ports of one bond at different speeds share its flows unevenly.", prometheus.GaugeValue, "bond", "slave")
)

// Name implements Collector.
func (c *bondCollector) Name() string { return "bonding" }

// Describe implements Collector.
func (c *bondCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range []*metric{bondInfo, bondSlaveUp, bondSlaveActive, bondSlaveInAgg, bondSlaveFailure, bondSlaveSpeed} {
		ch <- m.desc()
	}
}

// Collect implements Collector.
func (c *bondCollector) Collect(s *Scrape) {
	bonds := c.bonds(s)
	s.Each(len(bonds), func(s *Scrape, i int) { c.bond(s, bonds[i]) })
}

// bonds returns the bonds of the RDMA netdevs, sorted: a netdev with a
// bonding/ directory is one; a netdev with bonding_slave/ is a port of the
// bond its upper_<bond> link names.
func (c *bondCollector) bonds(s *Scrape) []string {
	var out []string
	for _, p := range s.Netdevs() {
		if isDir(s, netDir(p.Netdev)+"/bonding") {
			out = append(out, p.Netdev)
			continue
		}
		if !isDir(s, netDir(p.Netdev)+"/bonding_slave") {
			continue
		}
		ents, err := fs.ReadDir(s.Host.Sys, netDir(p.Netdev))
		if err != nil {
			s.Fail(p.Netdev, err)
			continue
		}
		for _, e := range ents {
			if b, ok := strings.CutPrefix(e.Name(), "upper_"); ok && validName(b) && isDir(s, netDir(b)+"/bonding") {
				out = append(out, b)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isDir(s *Scrape, p string) bool {
	st, err := fs.Stat(s.Host.Sys, p)
	return err == nil && st.IsDir()
}

// bond exports one bond and its ports.
func (c *bondCollector) bond(s *Scrape, bond string) {
	base := netDir(bond) + "/bonding/"
	mode, err := c.word(s, base+"mode")
	if err != nil {
		s.Fail(bond, err)
		return
	}
	s.emit(bondInfo, 1, bond, mode)
	b, err := s.readFile(base + "slaves")
	if err != nil {
		s.Fail(bond, err)
		return
	}
	slaves := strings.Fields(string(b))
	agg, lacp := "", mode == "802.3ad"
	if lacp {
		// Empty while the bond has no active aggregator. Unread, no
		// port can be said to be in it or out of it.
		if agg, err = c.word(s, base+"ad_aggregator"); err != nil {
			s.Fail(bond, err)
			lacp = false
		}
	}
	for _, sl := range slaves {
		if !validName(sl) {
			s.Fail(bond, &ParseError{Msg: fmt.Sprintf("%sslaves: %q is no interface name", base, sl)})
			continue
		}
		c.slave(s, bond, sl, agg, lacp)
	}
}

// slave exports one port of a bond; agg is the bond's active aggregator
// ("" for none) when lacp says the bond is 802.3ad and its aggregator was
// read.
func (c *bondCollector) slave(s *Scrape, bond, sl, agg string, lacp bool) {
	base := netDir(sl) + "/bonding_slave/"
	up := false
	if mii, err := c.word(s, base+"mii_status"); err != nil {
		s.Fail(sl, err)
	} else {
		up = mii == "up"
		s.emit(bondSlaveUp, b2f(up), bond, sl)
	}
	if st, err := c.word(s, base+"state"); err != nil {
		s.Fail(sl, err)
	} else {
		s.emit(bondSlaveActive, b2f(st == "active"), bond, sl)
	}
	if n, err := c.number(s, base+"link_failure_count"); err != nil {
		s.Fail(sl, err)
	} else {
		s.emit(bondSlaveFailure, n, bond, sl)
	}
	if lacp {
		if id, err := c.word(s, base+"ad_aggregator_id"); err != nil {
			s.Fail(sl, err)
		} else {
			s.emit(bondSlaveInAgg, b2f(agg != "" && id == agg), bond, sl)
		}
	}
	if up {
		if n, err := c.number(s, netDir(sl)+"/speed"); err != nil {
			s.Fail(sl, err)
		} else {
			s.emit(bondSlaveSpeed, n*1e6/8, bond, sl)
		}
	}
}

// word reads a file's first word ("802.3ad" of "802.3ad 4"; "" for an
// empty file).
func (c *bondCollector) word(s *Scrape, file string) (string, error) {
	b, err := s.readFile(file)
	if err != nil {
		return "", err
	}
	if f := bytes.Fields(b); len(f) > 0 {
		return string(f[0]), nil
	}
	return "", nil
}

// number reads a numeric file.
func (c *bondCollector) number(s *Scrape, file string) (float64, error) {
	b, err := s.readFile(file)
	if err != nil {
		return 0, err
	}
	v, err := ParseValue(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	return float64(v), nil
}

// moduleCollector says whether the kernel modules GPUDirect RDMA rests on
// are loaded: the GPU driver (nvidia) and the peer-memory modules that let
// the NIC pin GPU memory (nvidia_peermem, or MLNX_OFED's older
// nv_peer_mem), from sysfs module/<name>/initstate, which a loadable
// module has while it is in the kernel. `rocelab diagnose` judges the
// same fact from lsmod (host.gdr.module). Exported on hosts with an RDMA
// device.
type moduleCollector struct{}

// gdrModules are the modules the collector reports.
var gdrModules = []string{"nvidia", "nvidia_peermem", "nv_peer_mem"}

var gpuDriverOpen = newMetric("rocelab_host_gpu_driver_open", "1 when the loaded GPU driver (nvidia) is NVIDIA's open kernel module (Dual MIT/GPL: sysfs module/nvidia/taint without P), 0 when proprietary: the open module (535 on) with kernel 5.12+ and NCCL 2.19+ registers GPU memory through DMA-BUF, without a peer-memory module.", prometheus.GaugeValue)

var moduleLoaded = newMetric("rocelab_host_module_loaded", "1 when the kernel module is loaded (sysfs module/<module>/initstate live), else 0: the GPU driver (nvidia) and the peer-memory modules GPUDirect RDMA needs without DMA-BUF (nvidia_peermem, nv_peer_mem).", prometheus.GaugeValue, "module")

// Name implements Collector.
func (c *moduleCollector) Name() string { return "modules" }

// Describe implements Collector.
func (c *moduleCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- moduleLoaded.desc()
	ch <- gpuDriverOpen.desc()
}

// Collect implements Collector.
func (c *moduleCollector) Collect(s *Scrape) {
	if len(s.Ports()) == 0 || !isDir(s, "module") {
		return // no RDMA device, or a tree without sysfs's module/ (the twin's hosts of one NIC)
	}
	for _, m := range gdrModules {
		b, err := s.readFile("module/" + m + "/initstate")
		switch {
		case errors.Is(err, fs.ErrNotExist):
			s.emit(moduleLoaded, 0, m)
		case err != nil:
			s.Fail(m, err)
		default:
			live := string(bytes.TrimSpace(b)) == "live"
			s.emit(moduleLoaded, b2f(live), m)
			if live && m == "nvidia" {
				c.driverLicense(s)
			}
		}
	}
}

// driverLicense exports whether the GPU driver is the open kernel module:
// the kernel taints the module's taint flags with P (proprietary) for a
// module whose license is not GPL-compatible, as the closed driver's is.
func (c *moduleCollector) driverLicense(s *Scrape) {
	b, err := s.readFile("module/nvidia/taint")
	if errors.Is(err, fs.ErrNotExist) {
		return // a tree without it
	}
	if err != nil {
		s.Fail("nvidia", err)
		return
	}
	s.emit(gpuDriverOpen, b2f(!bytes.ContainsRune(b, 'P')))
}
