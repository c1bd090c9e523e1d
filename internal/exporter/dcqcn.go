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
type dcqcnCollector struct{}

var (
	dcqcnEnabledDesc = prometheus.NewDesc("rocelab_dcqcn_enabled", "1 when DCQCN is enabled for the priority in the role (np: notification point, rp: reaction point), else 0.", []string{"netdev", "device", "port", "role", "priority"}, nil)
	dcqcnParamDesc   = prometheus.NewDesc("rocelab_dcqcn_parameter", "A DCQCN parameter of the role as the driver reports it (e.g. np min_time_between_cnps, rp rpg_min_rate), in the driver's unit.", []string{"netdev", "device", "port", "role", "parameter"}, nil)
)

// Name implements Collector.
func (c *dcqcnCollector) Name() string { return "dcqcn" }

// Describe implements Collector.
func (c *dcqcnCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- dcqcnEnabledDesc
	ch <- dcqcnParamDesc
}

// Collect implements Collector.
func (c *dcqcnCollector) Collect(s *Scrape) {
	nds := s.Netdevs()
	s.Each(len(nds), func(s *Scrape, i int) {
		p := &nds[i]
		base := netDir(p.Netdev) + "/ecn"
		if _, err := fs.Stat(s.Host.Sys, base); errors.Is(err, fs.ErrNotExist) {
			return
		} else if err != nil {
			s.Fail(p.Netdev, err)
			return
		}
		for _, role := range []string{"roce_np", "roce_rp"} {
			c.role(s, p, base+"/"+role, role[len("roce_"):])
		}
	})
}

// role exports one role directory.
func (c *dcqcnCollector) role(s *Scrape, p *Port, dir, role string) {
	files, err := fs.ReadDir(s.Host.Sys, dir)
	if err != nil {
		s.Fail(p.Netdev, err)
		return
	}
	for _, f := range files {
		name := f.Name()
		if name == "enable" {
			c.enable(s, p, dir+"/enable", role)
			continue
		}
		b, err := s.readFile(dir + "/" + name)
		if err != nil {
			s.Fail(p.Netdev, err)
			continue
		}
		v, err := ParseValue(b)
		if err != nil {
			s.Fail(p.Netdev, fmt.Errorf("%s/%s: %w", dir, name, err))
			continue
		}
		s.emit(dcqcnParamDesc, prometheus.GaugeValue, float64(v), p.Netdev, p.Device, p.Port, role, name)
	}
}

// enable exports enable/0..7.
func (c *dcqcnCollector) enable(s *Scrape, p *Port, dir, role string) {
	for prio := 0; prio < 8; prio++ {
		ps := strconv.Itoa(prio)
		b, err := s.readFile(dir + "/" + ps)
		if err != nil {
			s.Fail(p.Netdev, err)
			continue
		}
		v, err := ParseValue(b)
		if err == nil && v > 1 {
			err = &ValueError{Msg: "expected 0 or 1"}
		}
		if err != nil {
			s.Fail(p.Netdev, fmt.Errorf("%s/%s: %w", dir, ps, err))
			continue
		}
		s.emit(dcqcnEnabledDesc, prometheus.GaugeValue, float64(v), p.Netdev, p.Device, p.Port, role, ps)
	}
}
