package exporter

import (
	"bytes"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// netdevCollector reads the sysfs attributes of the netdevs behind the RDMA
// ports that tell link health: carrier_changes (link flaps), operstate,
// speed and mtu.
type netdevCollector struct{}

var (
	carrierChanges = newMetric("rocelab_nic_carrier_changes_total", "Times the netdev's carrier went up or down (sysfs carrier_changes): link flaps.", prometheus.CounterValue, "netdev", "device", "port")
	operUp         = newMetric("rocelab_nic_up", "1 when the netdev's operstate is up, else 0.", prometheus.GaugeValue, "netdev", "device", "port")
	speedMetric    = newMetric("rocelab_nic_speed_bytes_per_second", "The netdev's link speed (sysfs speed in Mb/s, as bytes per second), exported while the link is up.", prometheus.GaugeValue, "netdev", "device", "port")
	mtuMetric      = newMetric("rocelab_nic_mtu_bytes", "The netdev's MTU; the RoCE path MTU follows it (1500 gives 1024, 9000 gives 4096).", prometheus.GaugeValue, "netdev", "device", "port")
)

// Name implements Collector.
func (c *netdevCollector) Name() string { return "netdev" }

// Describe implements Collector.
func (c *netdevCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range []*metric{carrierChanges, operUp, speedMetric, mtuMetric} {
		ch <- m.desc()
	}
}

// Collect implements Collector.
func (c *netdevCollector) Collect(s *Scrape) {
	nds := s.Netdevs()
	s.Each(len(nds), func(s *Scrape, i int) {
		p := &nds[i]
		d, err := s.openDir(netDir(p.Netdev))
		if err != nil {
			s.Fail(p.Netdev, err)
			return
		}
		defer d.close()
		up := false
		if b, err := d.read("operstate"); err != nil {
			s.Fail(p.Netdev, err)
		} else {
			up = string(bytes.TrimSpace(b)) == "up"
			s.emit(operUp, b2f(up), p.Netdev, p.Device, p.Port)
		}
		c.number(s, d, p, "carrier_changes", carrierChanges, 1)
		c.number(s, d, p, "mtu", mtuMetric, 1)
		if up {
			c.number(s, d, p, "speed", speedMetric, 1e6/8)
		}
	})
}

// number exports one numeric attribute file.
func (c *netdevCollector) number(s *Scrape, d dir, p *Port, file string, m *metric, scale float64) {
	b, err := d.read(file)
	if err != nil {
		s.Fail(p.Netdev, err)
		return
	}
	v, err := ParseValue(b)
	if err != nil {
		s.Fail(p.Netdev, fmt.Errorf("%s/%s: %w", d.path, file, err))
		return
	}
	s.emit(m, float64(v)*scale, p.Netdev, p.Device, p.Port)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
