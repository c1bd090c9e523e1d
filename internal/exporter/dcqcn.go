package exporter

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// dcqcnCollector exports the DCQCN settings mlx5 exposes under
// /sys/class/net/<netdev>/ecn/: roce_np (notification point, the receiver
// that sends CNPs) and roce_rp (reaction point, the sender that slows
// down), each with enable/<priority> and its parameters. A netdev without
// the ecn directory (drivers and kernels that do not expose it) is skipped
// without an error.
type dcqcnCollector struct {
	settings refresher[[]dcqcnValue] // by netdev
}

// dcqcnValue is one setting: enable/<prio> (key is the priority) or a
// parameter (key is its name).
type dcqcnValue struct {
	role, key string
	enable    bool
	v         float64
}

var (
	dcqcnEnabled = newMetric("rocelab_dcqcn_enabled", "1 when DCQCN is enabled for the priority in the role (np: notification point, rp: reaction point), else 0.", prometheus.GaugeValue, "netdev", "device", "port", "role", "priority")
	dcqcnParam   = newMetric("rocelab_dcqcn_parameter", "A DCQCN parameter of the role as the driver reports it (e.g. np min_time_between_cnps, rp rpg_min_rate), in the driver's unit.", prometheus.GaugeValue, "netdev", "device", "port", "role", "parameter")
)

// Name implements Collector.
func (c *dcqcnCollector) Name() string { return "dcqcn" }

// Describe implements Collector.
func (c *dcqcnCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- dcqcnEnabled.desc()
	ch <- dcqcnParam.desc()
}

// Collect implements Collector.
func (c *dcqcnCollector) Collect(s *Scrape) {
	nds := s.Netdevs()
	s.Each(len(nds), func(s *Scrape, i int) {
		p := &nds[i]
		vals, _ := c.settings.get(p.Netdev, func() ([]dcqcnValue, bool, bool) { return c.read(s, p) })
		for _, v := range vals {
			if v.enable {
				s.emit(dcqcnEnabled, v.v, p.Netdev, p.Device, p.Port, v.role, v.key)
			} else {
				s.emit(dcqcnParam, v.v, p.Netdev, p.Device, p.Port, v.role, v.key)
			}
		}
	})
}

// read reads a netdev's settings; ok is false when it has none.
func (c *dcqcnCollector) read(s *Scrape, p *Port) (vals []dcqcnValue, ok, clean bool) {
	base := netDir(p.Netdev) + "/ecn"
	if _, err := fs.Stat(s.Host.Sys, base); errors.Is(err, fs.ErrNotExist) {
		return nil, false, true
	} else if err != nil {
		s.Fail(p.Netdev, err)
		return nil, false, false
	}
	clean = true
	fail := func(err error) {
		s.Fail(p.Netdev, err)
		clean = false
	}
	for _, dir := range []string{"roce_np", "roce_rp"} {
		role := dir[len("roce_"):]
		dir = base + "/" + dir
		files, err := fs.ReadDir(s.Host.Sys, dir)
		if err != nil {
			fail(err)
			continue
		}
		for _, f := range files {
			name := f.Name()
			if name == "enable" {
				for prio := 0; prio < 8; prio++ {
					v, err := c.number(s, dir+"/enable/"+strconv.Itoa(prio), 1)
					if err != nil {
						fail(err)
						continue
					}
					vals = append(vals, dcqcnValue{role, strconv.Itoa(prio), true, v})
				}
				continue
			}
			v, err := c.number(s, dir+"/"+name, 1<<64-1)
			if err != nil {
				fail(err)
				continue
			}
			vals = append(vals, dcqcnValue{role, name, false, v})
		}
	}
	return vals, true, clean
}

// number reads one numeric file, at most max.
func (c *dcqcnCollector) number(s *Scrape, file string, max uint64) (float64, error) {
	b, err := s.readFile(file)
	if err != nil {
		return 0, err
	}
	v, err := ParseValue(b)
	if err == nil && v > max {
		err = &ValueError{Msg: fmt.Sprintf("expected at most %d", max)}
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	return float64(v), nil
}
