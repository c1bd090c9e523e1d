package exporter

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net/netip"
	"sort"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"rocelab/internal/counters"
)

// rdmaCollector reads /sys/class/infiniband/*/ports/*: the hw_counters
// (over netlink where the host has it, RDMA_NLDEV_CMD_STAT_GET, one
// message per port; else every file under hw_counters/), every file under
// counters/, the port's state, rate and link layer, and its GID table.
type rdmaCollector struct {
	gids refresher[[]gid] // by port directory

	mu    sync.Mutex
	names map[string]*nameCache // by port directory
}

// nameCache maps the counter names a port prints to their families, so
// that a steady port's names are looked up without allocating. One
// goroutine reads a port at a time.
type nameCache struct {
	hw, pc map[string]*Mapped
}

var (
	portState     = newMetric("rocelab_rdma_port_state", "Logical port state as the kernel numbers it (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER).", prometheus.GaugeValue, "device", "port")
	portPhysState = newMetric("rocelab_rdma_port_phys_state", "Physical port state as the kernel numbers it (2 Polling, 3 Disabled, 5 LinkUp, 6 LinkErrorRecovery, ...).", prometheus.GaugeValue, "device", "port")
	portRate      = newMetric("rocelab_rdma_port_rate_bytes_per_second", "Port rate (sysfs rate, e.g. \"100 Gb/sec (4X EDR)\", as bytes per second).", prometheus.GaugeValue, "device", "port")
	portInfo      = newMetric("rocelab_rdma_port_info", "The port's link layer and netdev; always 1.", prometheus.GaugeValue, "device", "port", "link_layer", "netdev")
	gidInfo       = newMetric("rocelab_rdma_gid_info", "One non-empty GID table entry: its index, GID, type (RoCE v2, IB/RoCE v1), netdev and the IPv4 address it maps, if any; always 1.", prometheus.GaugeValue, "device", "port", "index", "gid", "type", "netdev", "ipv4")
	gidHash       = newMetric("rocelab_rdma_gid_table_hash", "A 32-bit FNV-1a hash of the port's non-empty GID entries (index, GID, type, netdev): it changes when the table does, e.g. when the RoCE v2 IPv4 GID moves to another index.", prometheus.GaugeValue, "device", "port")
	gidCount      = newMetric("rocelab_rdma_gid_entries", "Non-empty GID table entries of the port, by type.", prometheus.GaugeValue, "device", "port", "type")
)

// Name implements Collector.
func (c *rdmaCollector) Name() string { return "rdma" }

// Describe implements Collector.
func (c *rdmaCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range []*metric{portState, portPhysState, portRate, portInfo, gidInfo, gidHash, gidCount} {
		ch <- m.desc()
	}
	for _, f := range Families() {
		if f.Source != counters.Ethtool {
			ch <- f.metric.desc()
		}
	}
}

// Collect implements Collector.
func (c *rdmaCollector) Collect(s *Scrape) {
	ports := s.Ports()
	for _, e := range s.disc.errs {
		s.Fail(e.device, e.err)
	}
	s.Each(len(ports), func(s *Scrape, i int) {
		p := &ports[i]
		nc := c.cacheOf(p)
		c.portAttrs(s, p)
		c.hwCounters(s, p, nc)
		c.counterDir(s, p, "counters", counters.PortCounters, nc.pc)
		c.gidTable(s, p)
	})
}

// cacheOf returns the name cache of a port.
func (c *rdmaCollector) cacheOf(p *Port) *nameCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil {
		c.names = map[string]*nameCache{}
	}
	k := p.Device + "/" + p.Port
	nc := c.names[k]
	if nc == nil {
		nc = &nameCache{hw: map[string]*Mapped{}, pc: map[string]*Mapped{}}
		c.names[k] = nc
	}
	return nc
}

// mapped returns the family of a counter name, from the cache; its Name
// is the name as a string, made once.
func mapped(cache map[string]*Mapped, src counters.Source, name []byte) *Mapped {
	if m, ok := cache[string(name)]; ok {
		return m
	}
	m := MapName(src, string(name))
	cache[m.Name] = &m
	return &m
}

// portAttrs exports state, phys_state, rate and link_layer.
func (c *rdmaCollector) portAttrs(s *Scrape, p *Port) {
	d, err := s.openDir(p.dir())
	if err != nil {
		s.Fail(p.Device, err)
		return
	}
	defer d.close()
	for _, a := range []struct {
		file string
		m    *metric
	}{{"state", portState}, {"phys_state", portPhysState}} {
		b, err := d.read(a.file)
		if err != nil {
			s.Fail(p.Device, err)
			continue
		}
		v, err := parseNumbered(b)
		if err != nil {
			s.Fail(p.Device, fmt.Errorf("%s/%s: %w", d.path, a.file, err))
			continue
		}
		s.emit(a.m, v, p.Device, p.Port)
	}
	if b, err := d.read("rate"); err != nil {
		s.Fail(p.Device, err)
	} else if v, err := parseRate(b); err != nil {
		s.Fail(p.Device, fmt.Errorf("%s/rate: %w", d.path, err))
	} else {
		s.emit(portRate, v, p.Device, p.Port)
	}
	ll := ""
	if b, err := d.read("link_layer"); err != nil {
		s.Fail(p.Device, err)
	} else {
		ll = linkLayer(bytes.TrimSpace(b))
	}
	s.emit(portInfo, 1, p.Device, p.Port, ll, p.Netdev)
}

// linkLayer returns the link layer without allocating for the two the
// kernel prints.
func linkLayer(b []byte) string {
	switch string(b) {
	case "Ethernet":
		return "Ethernet"
	case "InfiniBand":
		return "InfiniBand"
	}
	return string(b)
}

// hwCounters exports the port's hw_counters: over netlink when the host
// reads RDMA statistics that way, else (or when netlink fails for this
// device) from the files under hw_counters/.
func (c *rdmaCollector) hwCounters(s *Scrape, p *Port, nc *nameCache) {
	if st := s.Host.RDMA; st != nil {
		err := st.HWCounters(p.Device, p.Port, func(name []byte, v uint64) {
			s.emitMapped(mapped(nc.hw, counters.HWCounters, name), v, p.Device, p.Port)
		})
		if err == nil {
			return
		}
		if !errors.Is(err, ErrUnsupported) {
			s.e.logger.Debug("netlink RDMA statistics failed; reading sysfs", "device", p.Device, "port", p.Port, "err", err)
		}
	}
	c.counterDir(s, p, "hw_counters", counters.HWCounters, nc.hw)
}

// counterDir exports every regular file of one counter directory: known
// names in their families, unknown ones generically. "N/A" values are
// skipped, and so is a directory the port does not have (hw_counters/ is
// the driver's option; an i40iw or a software device has none): absent is
// not broken. A FIFO or anything else that is not a regular file is
// skipped unread.
func (c *rdmaCollector) counterDir(s *Scrape, p *Port, sub string, src counters.Source, cache map[string]*Mapped) {
	d, err := s.openDir(p.dir() + "/" + sub)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		s.Fail(p.Device, err)
		return
	}
	defer d.close()
	err = d.each(func(name []byte, file bool) {
		if !file {
			return
		}
		m := mapped(cache, src, name)
		b, err := d.read(m.Name)
		if err != nil {
			s.Fail(p.Device, err)
			return
		}
		v, err := ParseValue(b)
		if errors.Is(err, ErrNotAvailable) {
			return
		}
		if err != nil {
			s.Fail(p.Device, fmt.Errorf("%s/%s: %w", d.path, m.Name, err))
			return
		}
		s.emitMapped(m, v, p.Device, p.Port)
	})
	if err != nil {
		s.Fail(p.Device, err)
	}
}

// gid is one non-empty GID table entry.
type gid struct {
	index                             int
	indexText, gid, typ, netdev, ipv4 string
}

// gids exports the port's non-empty GID entries, their hash and counts.
// Empty entries (all zeros) are skipped without reading their attributes,
// which the kernel refuses for them.
func (c *rdmaCollector) gidTable(s *Scrape, p *Port) {
	table, ok := c.gids.get(p.dir(), func() ([]gid, bool, bool) {
		t, clean := c.readGIDs(s, p)
		return t, t != nil, clean
	})
	if !ok {
		return // the table could not be listed; the error is counted
	}
	h := fnv.New32a()
	count := map[string]int{}
	for _, e := range table {
		s.emit(gidInfo, 1, p.Device, p.Port, e.indexText, e.gid, e.typ, e.netdev, e.ipv4)
		fmt.Fprintf(h, "%d %s %s %s\n", e.index, e.gid, e.typ, e.netdev)
		count[e.typ]++
	}
	s.emit(gidHash, float64(h.Sum32()), p.Device, p.Port)
	types := make([]string, 0, len(count))
	for t := range count {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		s.emit(gidCount, float64(count[t]), p.Device, p.Port, t)
	}
}

// readGIDs reads the port's non-empty GID entries, sorted by index, and
// says whether every file read cleanly.
func (c *rdmaCollector) readGIDs(s *Scrape, p *Port) ([]gid, bool) {
	dir := p.dir()
	files, err := fs.ReadDir(s.Host.Sys, dir+"/gids")
	if err != nil {
		s.Fail(p.Device, err)
		return nil, false
	}
	clean := true
	table := []gid{}
	for _, f := range files {
		idx, err := strconv.Atoi(f.Name())
		if err != nil || idx < 0 {
			continue
		}
		b, err := s.readFile(dir + "/gids/" + f.Name())
		if err != nil {
			s.Fail(p.Device, err)
			clean = false
			continue
		}
		g := string(bytes.TrimSpace(b))
		addr, ok := parseGID(g)
		if !ok {
			clean = false
			s.Fail(p.Device, &ParseError{File: dir + "/gids/" + f.Name(), Line: 1, Msg: "expected a GID of eight 4-digit hex groups, got " + strconv.Quote(g)})
			continue
		}
		if addr.IsUnspecified() {
			continue
		}
		e := gid{index: idx, indexText: f.Name(), gid: g}
		if addr.Is4In6() {
			e.ipv4 = addr.Unmap().String()
		}
		if b, err := s.readFile(dir + "/gid_attrs/types/" + f.Name()); err == nil {
			e.typ = string(bytes.TrimSpace(b))
		} else {
			s.Fail(p.Device, err)
			clean = false
		}
		if b, err := s.readFile(dir + "/gid_attrs/ndevs/" + f.Name()); err == nil {
			e.netdev = string(bytes.TrimSpace(b))
		} else if !errors.Is(err, fs.ErrNotExist) {
			s.Fail(p.Device, err)
			clean = false
		}
		table = append(table, e)
	}
	sort.Slice(table, func(i, j int) bool { return table[i].index < table[j].index })
	return table, clean
}

// parseGID reads a GID as sysfs prints it (eight groups of four hex
// digits).
func parseGID(g string) (netip.Addr, bool) {
	if len(g) != 39 {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(g)
	return a, err == nil && a.Is6()
}

// parseNumbered reads "4: ACTIVE" as 4.
func parseNumbered(b []byte) (float64, error) {
	b = bytes.TrimSpace(b)
	i := bytes.IndexByte(b, ':')
	if i < 0 {
		i = len(b)
	}
	v, err := ParseValue(b[:i])
	if err != nil {
		return 0, fmt.Errorf("expected \"N: NAME\", got %q", b)
	}
	return float64(v), nil
}

// parseRate reads "100 Gb/sec (4X EDR)" as 12.5e9 bytes per second.
func parseRate(b []byte) (float64, error) {
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, fmt.Errorf("expected a rate such as \"100 Gb/sec (4X EDR)\", got %q", bytes.TrimSpace(b))
	}
	v, err := strconv.ParseFloat(string(f[0]), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("expected a number before the unit, got %q", f[0])
	}
	switch string(f[1]) {
	case "Gb/sec":
		return v * 1e9 / 8, nil
	case "Mb/sec":
		return v * 1e6 / 8, nil
	}
	return 0, fmt.Errorf("unknown rate unit %q", f[1])
}
