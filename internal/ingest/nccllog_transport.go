package ingest

import (
	"slices"
	"strings"
)

// HostTransport is what one host's lines say about the network NCCL moves
// inter-node data with.
type HostTransport struct {
	// Host is the host that printed the lines; "" for lines without a
	// host prefix.
	Host string
	// RDMA is set when NCCL's IB verbs transport (or the HPC-X plugin that
	// wraps it, IBext*) is in use: IB devices listed, "Using network IB",
	// connections via NET/IB, its queue pairs' lines (IBQPLines).
	RDMA bool
	// Socket is set when the TCP socket transport carries data: "Using
	// network Socket", connections via NET/Socket, NET/IB finding no
	// device or libibverbs missing, or a "NET/Socket : Using" line where
	// this NCCL prints it only for the data transport (see
	// SocketLinesBootstrap).
	Socket bool
	// Plugin is another net plugin the host uses ("AWS Libfabric"): its
	// "Using network" line, its own device list (PluginDevices), or
	// connections via NET/<plugin>.
	Plugin string
	// RDMAEvidence and SocketEvidence are the first line of each.
	RDMAEvidence, SocketEvidence Evidence
}

// IBNet reports whether a network name (of a "Using network" line, or the
// NET/<name>/ of a channel) is NCCL's IB verbs transport: IB, IBext and its
// versions, or the name a host uses whose net plugin announced itself as
// the IBext transport (IBextHosts). A job's hosts load one plugin, so one
// host's announcement names it for all.
func (l *NCCLLog) IBNet(name string) bool {
	return strings.HasPrefix(name, "IB") || slices.Contains(l.ibextNets, name)
}

// finishIBext names the networks of the hosts in IBextHosts, once the whole
// log is read.
func (l *NCCLLog) finishIBext() {
	for _, c := range l.Networks {
		if c.Name != "Socket" && slices.Contains(l.IBextHosts.Hosts, c.Host) && !slices.Contains(l.ibextNets, c.Name) {
			l.ibextNets = append(l.ibextNets, c.Name)
		}
	}
}

// SocketLinesBootstrap reports whether this log's "NET/Socket : Using"
// lines say nothing about the data transport: NCCL 2.4 to 2.7 initialise
// the socket transport on every rank for bootstrap and print the line even
// when the IB transport carries the data. That is so when the version is
// known to be older than 2.8, unless the log shows the IB transport off
// (no device listed, and NCCL_IB_DISABLE=1, no device found or no
// libibverbs: the listed interfaces then carry the data, NVIDIA/nccl#529),
// or when a host prints the line beside its IB devices.
func (l *NCCLLog) SocketLinesBootstrap() bool {
	if atLeast, known := l.VersionAtLeast(2, 8); known && !atLeast {
		return len(l.IBDevices) > 0 || !l.ibOff()
	}
	ib := map[string]bool{}
	for _, d := range l.IBDevices {
		ib[d.Host] = true
	}
	for _, d := range l.SocketDevices {
		if ib[d.Host] {
			return true
		}
	}
	return false
}

// ibOff reports whether the log shows NCCL's IB transport not started:
// NCCL_IB_DISABLE in effect (IBDisabled), NET/IB finding no device, or libibverbs missing.
func (l *NCCLLog) ibOff() bool {
	if _, off := IBDisabled(l.EnvValues("NCCL_IB_DISABLE"), l.IBShown()); off {
		return true
	}
	return l.NoIBDevice.Count+l.VerbsMissing.Count > 0
}

// Transports returns, per host in first-seen order, the transports the
// host's lines show.
func (l *NCCLLog) Transports() []HostTransport {
	var out []HostTransport
	idx := map[string]int{}
	at := func(h string) *HostTransport {
		i, ok := idx[h]
		if !ok {
			i = len(out)
			idx[h] = i
			out = append(out, HostTransport{Host: h})
		}
		return &out[i]
	}
	rdma := func(h string, ev Evidence) {
		if t := at(h); !t.RDMA {
			t.RDMA, t.RDMAEvidence = true, ev
		}
	}
	sock := func(h string, ev Evidence) {
		if t := at(h); !t.Socket {
			t.Socket, t.SocketEvidence = true, ev
		}
	}
	for _, c := range l.Networks {
		switch {
		case c.Name == "Socket":
			sock(c.Host, c.Evidence)
		case l.IBNet(c.Name):
			rdma(c.Host, c.Evidence)
		default:
			if t := at(c.Host); t.Plugin == "" {
				t.Plugin = c.Name
			}
		}
	}
	for _, d := range l.IBDevices {
		rdma(d.Host, d.Evidence)
	}
	for _, c := range l.PluginDevices {
		if t := at(c.Host); t.Plugin == "" {
			t.Plugin = c.Name
		}
	}
	for _, c := range l.Channels {
		if c.Kind != "NET" {
			continue
		}
		switch {
		case c.Net == "Socket":
			sock(c.Host, c.First)
		case l.IBNet(c.Net):
			rdma(c.Host, c.First)
		default:
			// A connection via another net plugin ("via NET/AWS
			// Libfabric/0"): that plugin carries the host's data.
			if t := at(c.Host); t.Plugin == "" {
				t.Plugin = c.Net
			}
		}
	}
	for i, h := range l.IBQPLines.Hosts {
		rdma(h, l.IBQPLines.First[i])
	}
	if !l.SocketLinesBootstrap() {
		for _, d := range l.SocketDevices {
			sock(d.Host, d.Evidence)
		}
	}
	// NET/IB finding no device, or no libibverbs, means sockets unless the
	// host's IB transport works anyway or another plugin carries the data.
	for _, h := range []HostLines{l.NoIBDevice, l.VerbsMissing} {
		for i, host := range h.Hosts {
			if t := at(host); !t.RDMA && t.Plugin == "" {
				sock(host, h.First[i])
			}
		}
	}
	return out
}

// SocketEvidence returns up to n lines that show NCCL moving data over its
// TCP socket transport: "Using network Socket", connections via
// NET/Socket, and "NET/Socket : Using" unless those are bootstrap lines
// (SocketLinesBootstrap).
func (l *NCCLLog) SocketEvidence(n int) []Evidence {
	var out []Evidence
	add := func(e Evidence) {
		if len(out) < n {
			out = append(out, e)
		}
	}
	for _, c := range l.Networks {
		if c.Name == "Socket" {
			add(c.Evidence)
		}
	}
	if !l.SocketLinesBootstrap() {
		for _, d := range l.SocketDevices {
			add(d.Evidence)
		}
	}
	for _, c := range l.Channels {
		if c.Kind == "NET" && c.Net == "Socket" {
			add(c.First)
		}
	}
	return out
}
