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
	netdevLabels       = []string{"netdev", "device", "port"}
	carrierChangesDesc = prometheus.NewDesc("rocelab_nic_carrier_changes_total", "Times the netdev's carrier went up or down (sysfs carrier_changes): link flaps.", netdevLabels, nil)
	operUpDesc         = prometheus.NewDesc("rocelab_nic_up", "1 when the netdev's operstate is up, else 0.", netdevLabels, nil)
	speedDesc          = prometheus.NewDesc("rocelab_nic_speed_bytes_per_second", "The netdev's link speed (sysfs speed in Mb/s, as bytes per second), exported while the link is up.", netdevLabels, nil)
	mtuDesc            = prometheus.NewDesc("rocelab_nic_mtu_bytes", "The netdev's MTU; the RoCE path MTU follows it (1500 gives 1024, 9000 gives 4096).", netdevLabels, nil)
)

// Name implements Collector.
func (c *netdevCollector) Name() string { return "netdev" }

// Describe implements Collector.
func (c *netdevCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- carrierChangesDesc
	ch <- operUpDesc
	ch <- speedDesc
	ch <- mtuDesc
}

// Collect implements Collector.
func (c *netdevCollector) Collect(s *Scrape) {
	nds := s.Netdevs()
	s.Each(len(nds), func(s *Scrape, i int) {
		p := nds[i]
		dir := netDir(p.Netdev)
		lv := []string{p.Netdev, p.Device, p.Port}
		up := false
		if b, err := s.readFile(dir + "/operstate"); err != nil {
			s.Fail(p.Netdev, err)
		} else {
			up = string(bytes.TrimSpace(b)) == "up"
			s.emit(operUpDesc, prometheus.GaugeValue, b2f(up), lv...)
		}
		c.number(s, p.Netdev, dir+"/carrier_changes", carrierChangesDesc, prometheus.CounterValue, 1, lv)
		c.number(s, p.Netdev, dir+"/mtu", mtuDesc, prometheus.GaugeValue, 1, lv)
		if up {
			c.number(s, p.Netdev, dir+"/speed", speedDesc, prometheus.GaugeValue, 1e6/8, lv)
		}
	})
}

// number exports one numeric attribute file.
func (c *netdevCollector) number(s *Scrape, netdev, file string, d *prometheus.Desc, t prometheus.ValueType, scale float64, lv []string) {
	b, err := s.readFile(file)
	if err != nil {
		s.Fail(netdev, err)
		return
	}
	v, err := ParseValue(b)
	if err != nil {
		s.Fail(netdev, fmt.Errorf("%s: %w", file, err))
		return
	}
	s.emit(d, t, float64(v)*scale, lv...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
