// Package twinfeed is all the glue between the twin and the exporter: it
// advances a twin to a simulated time and returns each simulated host as
// an RDMA device port with its counters by name, and writes such a host as
// the sysfs-shaped tree the exporter reads from a real host.
//
// The one function the exporter side calls is Feed.Advance. Today the
// twin's hosts are stand-ins that have only port counters (the mlx5
// ethtool -S names of fabric.Counters.Ethtool, and the IB port counters
// derived from them); when the twin's RDMA NIC arrives its hw_counters
// (np_cnp_sent, out_of_sequence, ...) go into Device.HWCounters here, and
// nothing on the exporter side changes.
//
// Limit: a pause still in effect at the snapshot time is booked into the
// pause-duration counters only when it ends, as the twin books it, so a
// snapshot taken in the middle of a long pause under-reports it.
package twinfeed

import (
	"fmt"
	"net/netip"

	"rocelab/internal/counters"
	"rocelab/internal/fabric"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// A Counter is one named counter value.
type Counter struct {
	Name  string
	Value int64
}

// A GID is one GID table entry.
type GID struct {
	Index int
	GID   netip.Addr
	// Type is the kernel's spelling: "IB/RoCE v1" or "RoCE v2".
	Type string
}

// QoS is a host's QoS configuration as mlnx_qos would show it.
type QoS struct {
	// Trust is "dscp" or "pcp".
	Trust string
	// PFC is the set of priorities with PFC enabled (bit p = priority p).
	PFC uint8
	// DSCP maps each DSCP to its priority.
	DSCP [64]uint8
}

// A Device is one simulated RDMA device port and its netdev.
type Device struct {
	// Name is the RDMA device (mlx5_0), Port its port number (1), Netdev
	// the interface behind it (eth0).
	Name   string
	Port   int
	Netdev string
	Rate   unit.BitRate
	GIDs   []GID
	QoS    QoS
	// Ethtool holds the ethtool -S counters, in mlx5 names.
	Ethtool []Counter
	// HWCounters holds the RDMA hw_counters; empty until the twin has an
	// RDMA NIC.
	HWCounters []Counter
	// PortCounters holds the IB port counters (counters/), in their units
	// (port_*_data in 4-byte words).
	PortCounters []Counter
}

// A Host is one simulated host.
type Host struct {
	Name    string
	Devices []Device
}

// A Feed is one run of a scenario's twin, advanced step by step.
type Feed struct {
	tw *scenario.Twin
}

// New builds the twin of s.
func New(s *scenario.Scenario) (*Feed, error) {
	tw, err := scenario.Build(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	return &Feed{tw: tw}, nil
}

// Duration is the scenario's simulated duration.
func (f *Feed) Duration() unit.Time { return f.tw.Scenario.Duration }

// Now is the simulated time the twin has reached.
func (f *Feed) Now() unit.Time { return f.tw.Net.Sched.Now() }

// Advance runs the twin up to simulated time t (a t in the past runs
// nothing) and returns every host with its counters at that time. It
// observes the twin without closing pauses still in effect (see the
// package limit).
func (f *Feed) Advance(t unit.Time) []Host {
	if t > f.tw.Net.Sched.Now() {
		f.tw.Net.Sched.RunUntil(t)
	}
	return Snapshot(f.tw)
}

// Snapshot returns every host of tw with its counters as they stand.
func Snapshot(tw *scenario.Twin) []Host {
	net := tw.Net
	s := tw.Scenario
	qos := QoS{Trust: "dscp", PFC: net.PFCEnabled, DSCP: s.Host.DSCPToPrio}
	if s.Host.Trust == fabric.TrustPCP {
		qos.Trust = "pcp"
	}
	hosts := make([]Host, 0, len(tw.Hosts))
	for _, h := range tw.Hosts {
		pt := h.Port()
		d := Device{Name: "mlx5_0", Port: 1, Netdev: "eth0", Rate: pt.Rate(), QoS: qos,
			GIDs: gids(scenario.PortMAC(pt), scenario.HostIP(h.HostID()))}
		for _, c := range pt.Counters.Ethtool(net.PFCEnabled, false) {
			d.Ethtool = append(d.Ethtool, Counter{c.Name, c.Value})
		}
		d.PortCounters = portCounters(&pt.Counters)
		hosts = append(hosts, Host{Name: h.Name(), Devices: []Device{d}})
	}
	return hosts
}

// portCounters derives the IB port counters of a stand-in's port from its
// physical-port counters: all of the port's traffic is RoCE.
func portCounters(c *fabric.Counters) []Counter {
	t := counters.Default()
	name := func(cn counters.Concept, d counters.Dir) string {
		return t.Name(counters.MLX5, counters.PortCounters, cn, d, 0)
	}
	return []Counter{
		{name(counters.PortXmitData, counters.TX), c.TxPhyBytes / 4},
		{name(counters.PortRcvData, counters.RX), c.RxPhyBytes / 4},
		{name(counters.PortXmitPackets, counters.TX), c.TxPhyPackets},
		{name(counters.PortRcvPackets, counters.RX), c.RxPhyPackets},
	}
}

// gids is the standard bare-metal GID table: 0/1 the link-local address
// from the MAC (RoCE v1, v2), 2/3 the IPv4-mapped host address (v1, v2).
func gids(mac [6]byte, ip netip.Addr) []GID {
	ll := [16]byte{0: 0xfe, 1: 0x80, 8: mac[0] ^ 2, 9: mac[1], 10: mac[2], 11: 0xff, 12: 0xfe, 13: mac[3], 14: mac[4], 15: mac[5]}
	v4 := netip.AddrFrom16(ip.As16())
	return []GID{
		{0, netip.AddrFrom16(ll), "IB/RoCE v1"},
		{1, netip.AddrFrom16(ll), "RoCE v2"},
		{2, v4, "IB/RoCE v1"},
		{3, v4, "RoCE v2"},
	}
}
