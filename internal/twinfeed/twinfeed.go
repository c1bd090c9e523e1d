// Package twinfeed is all the glue between the twin and the exporter: it
// advances a twin to a simulated time and returns each simulated host as
// an RDMA device port with its counters by name, and writes such a host as
// the sysfs-shaped tree the exporter reads from a real host.
//
// The one function the exporter side calls is Feed.Advance. The counters
// come from the run's twin.Observation only: each host NIC's port counters
// (mlx5 ethtool -S names, pauses still in effect counted up to the
// snapshot), its IB port counters and its hw_counters (np_cnp_sent,
// out_of_sequence, ...); its QoS and DCQCN settings come from the
// scenario.
package twinfeed

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// A Counter is one named counter value.
type Counter = twin.Counter

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
	// the interface behind it (eth0), as twin.NIC names them.
	Name   string
	Port   int
	Netdev string
	// Rate is the nominal line rate, as the kernel reports it; MTU the
	// RoCE MTU (ibv_devinfo's active_mtu).
	Rate unit.BitRate
	MTU  int
	GIDs []GID
	QoS  QoS
	// Ethtool holds the ethtool -S counters, in mlx5 names.
	Ethtool []Counter
	// HWCounters holds the RDMA hw_counters.
	HWCounters []Counter
	// PortCounters holds the IB port counters (counters/), in their units
	// (port_*_data in 4-byte words).
	PortCounters []Counter
	// DCQCN holds the DCQCN settings as mlx5 exposes them under
	// /sys/class/net/<netdev>/ecn.
	DCQCN DCQCN
}

// DCQCN is a NIC's DCQCN settings.
type DCQCN struct {
	// Enabled is the set of priorities congestion control acts on, for
	// both the notification and the reaction point (bit p = priority p).
	Enabled uint8
	// Params are the knobs by role ("np", "rp") and mlx5 name.
	Params []Param
}

// A Param is one DCQCN knob.
type Param struct {
	Role, Name string
	Value      int64
}

// A Host is one simulated machine: a GPU server with its NICs, or a host
// of one NIC.
type Host struct {
	Name    string
	Devices []Device
	// PCIe is set on a GPU server of a job: how its PCIe is built, and
	// Server its index (the model of a job mixing GPU models).
	PCIe   *twin.ServerPCIe
	Server int
	// Modules are the kernel modules a GPU server of a job has loaded:
	// the GPU driver (nvidia) and, when its scenario has GPUDirect RDMA's
	// peer memory (topology.servers.peermem), nvidia_peermem.
	Modules []string
	// Bond is the ports of each of the server's RoCE LAG bonds
	// (topology.servers.nic_bond; 0 or 1: no bonds): its devices in
	// order, Bond at a time.
	Bond int
}

// A Feed is one run of a scenario's twin, advanced step by step.
type Feed struct {
	s *scenario.Scenario
	e twin.Engine
}

// New builds the twin of s through the pipeline (estimate, limits,
// build).
func New(s *scenario.Scenario, c twin.Config) (*Feed, error) {
	j := s.Job()
	e, _, err := twin.Start(&j, &c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.Label(), err)
	}
	return &Feed{s: s, e: e}, nil
}

// Duration is the scenario's simulated duration.
func (f *Feed) Duration() unit.Time { return f.s.Duration }

// Advance runs the twin up to simulated time t (a t in the past runs
// nothing) and returns every host with its counters at that time.
// Observing changes nothing: a run advanced in steps ends as one run does.
func (f *Feed) Advance(t unit.Time) []Host {
	if t > f.e.Now() {
		f.e.RunUntil(t)
	}
	o := f.e.Observe()
	return Hosts(&o)
}

// Hosts returns every machine of an observation with its NICs' counters
// and configuration: a GPU server with its NICs, or a host of one NIC
// (twin.NIC's Machine, Device and Netdev), in order of first appearance.
func Hosts(o *twin.Observation) []Host {
	c := &o.Config
	qos := QoS{Trust: c.Trust, PFC: c.PFC, DSCP: c.DSCP}
	dcqcn := DCQCN{Enabled: c.CCEnabled}
	for _, p := range c.DCQCN {
		dcqcn.Params = append(dcqcn.Params, Param{p.Role, p.Name, p.Value})
	}
	var hosts []Host
	at := map[string]int{}
	for _, n := range o.NICs {
		ip, _ := netip.ParseAddr(n.IP)
		d := Device{Name: n.Device, Port: 1, Netdev: n.Netdev, Rate: o.Ports[n.Port].LineRate, MTU: n.MTU, QoS: qos, DCQCN: dcqcn,
			GIDs:       gids(scenario.MAC(n.Port), ip),
			Ethtool:    append([]Counter(nil), o.Ports[n.Port].Counters...),
			HWCounters: append([]Counter(nil), n.HW...), PortCounters: append([]Counter(nil), n.IB...)}
		k, ok := at[n.Machine]
		if !ok {
			k = len(hosts)
			at[n.Machine] = k
			hosts = append(hosts, Host{Name: n.Machine})
			if sv := o.Scenario.Servers; sv != nil && sv.PCIe != nil {
				if i, err := strconv.Atoi(strings.TrimPrefix(n.Machine, "node")); err == nil && scenario.ServerName(i) == n.Machine && i < sv.Count {
					hosts[k].PCIe, hosts[k].Server, hosts[k].Bond = sv.PCIe, i, sv.Bond
					hosts[k].Modules = []string{"nvidia"}
					if sv.PeerMem {
						hosts[k].Modules = append(hosts[k].Modules, "nvidia_peermem")
					}
				}
			}
		}
		hosts[k].Devices = append(hosts[k].Devices, d)
	}
	return hosts
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
