package scenario

import (
	"io"
	"net/netip"
	"strconv"

	"rocelab/internal/collective"
	"rocelab/internal/unit"
)

// A Machine names a twin host as a real machine shows it, the same in
// every artifact the twin writes (--out, --out-sysfs, the exporter's twin
// feed, NCCL logs): the NIC of a GPU server is NIC n of server s, on
// machine "node<s>" (the name nccl-tests' device list gives it) with RDMA
// device mlx5_<n> and netdev eth<n>; any other host is a machine of one
// NIC named after the host, with mlx5_0 and eth0.
type Machine struct {
	// Host is the machine's hostname.
	Host string
	// Server and NIC place the NIC: the server index (-1 for a plain
	// host) and the NIC's index on its machine.
	Server, NIC int
	// Device is the RDMA device, Netdev the interface behind it.
	Device, Netdev string
	// IP is the NIC's IPv4 address (HostIP).
	IP netip.Addr
	// Rate is the NIC's nominal line rate (its link's, without the PHY's
	// clock offset).
	Rate unit.BitRate
}

// ServerName is the hostname of GPU server s.
func ServerName(s int) string { return "node" + strconv.Itoa(s) }

// Machine returns how host h (a NIC index, as the twin's hosts are
// numbered) appears on its machine.
func (s *Scenario) Machine(h int) Machine {
	t := s.Topo
	m := s.machineNames(h)
	for _, l := range t.Links {
		if l.A == t.Hosts[h] || l.B == t.Hosts[h] {
			m.Rate = l.Rate
			break
		}
	}
	return m
}

// machineNames is Machine without the link's rate, which takes a walk
// over the fabric's links.
func (s *Scenario) machineNames(h int) Machine {
	t := s.Topo
	nd := t.Nodes[t.Hosts[h]]
	m := Machine{Host: nd.Name, Server: -1, IP: HostIP(int32(h))}
	if t.Servers > 0 && nd.Server >= 0 {
		m.Host, m.Server, m.NIC = ServerName(nd.Server), nd.Server, nd.NIC
	}
	m.Device, m.Netdev = collective.RDMADevice(m.NIC), collective.Netdev(m.NIC)
	return m
}

// Machines groups the hosts by machine, in order of first appearance:
// each entry lists the hosts (NIC indices) of one machine, by NIC.
func (s *Scenario) Machines() [][]int {
	var out [][]int
	at := map[string]int{}
	for h := range s.Topo.Hosts {
		m := s.Machine(h)
		i, ok := at[m.Host]
		if !ok {
			i = len(out)
			at[m.Host] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], h)
	}
	for _, hs := range out {
		for i := 1; i < len(hs); i++ {
			for j := i; j > 0 && s.Machine(hs[j]).NIC < s.Machine(hs[j-1]).NIC; j-- {
				hs[j], hs[j-1] = hs[j-1], hs[j]
			}
		}
	}
	return out
}

// LogHosts names the servers of an NCCL job for its log: hostnames, and
// per NIC the netdev and address.
func (s *Scenario) LogHosts(servers [][]int) []collective.LogHost {
	out := make([]collective.LogHost, len(servers))
	for i, nics := range servers {
		out[i].Name = ServerName(i)
		for _, h := range nics {
			m := s.Machine(h)
			out[i].Name = m.Host
			out[i].Netdevs = append(out[i].Netdevs, m.Netdev)
			out[i].IPs = append(out[i].IPs, m.IP)
		}
	}
	return out
}

// WriteNCCLLog writes the NCCL_DEBUG=INFO log of the communicators of the
// workloads' NCCL job (the nccl-tests communicator, or a training run's
// data-parallel groups); it reports false when the twin has no NCCL job.
func (wl *Workloads) WriteNCCLLog(w io.Writer) (bool, error) {
	j := wl.Jobs
	var comms []*collective.Comm
	var calls []collective.Call
	switch {
	case j == nil:
	case j.Sweep != nil:
		comms = append(comms, j.Sweep.Comm)
		calls = j.Sweep.Calls()
	case j.Training != nil:
		comms = j.Training.Comms()
	}
	for _, c := range comms {
		servers := make([][]int, c.NNodes())
		for i, s := range c.Servers {
			servers[i] = c.Sys.Hosts[s]
		}
		if err := c.WriteInfoLog(w, wl.scenario.LogHosts(servers), calls...); err != nil {
			return true, err
		}
	}
	return len(comms) > 0, nil
}
