package fluid

import (
	"fmt"

	"rocelab/internal/ecmp"
	"rocelab/internal/sim"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// link is one direction of a topology link: what the port at its source
// transmits toward the peer.
type link struct {
	from, to int32 // topology nodes
	port     int32 // the port index at from
	rate     unit.BitRate
	// bps is the rate in bit/s as a float, the capacity rates share.
	bps   float64
	delay unit.Time // propagation
	cable unit.Length
	// jitter is the mean FEC arrival jitter (half its bound).
	jitter unit.Time
	// nicTx says the source is a host: the NIC's scheduler serves it.
	nicTx bool
	// loss is the probability a frame crossing the link is lost now.
	loss float64
	// burst is the mean run length of the losses (1: independent).
	burst float64

	// flows are the active flows crossing the link, each with the hop
	// of its path this link is (the flow keeps its index here, so it
	// leaves in O(1)).
	flows []flowHop

	st linkState
	// everPaused is the priorities its sender was ever paused on.
	everPaused uint8
}

// network is the topology as the fluid engine routes it.
type network struct {
	t     *topo.Topology
	links []link
	// portLink[node][port] is the directed link leaving node by port.
	portLink [][]int32
	// routes[n] is switch n's candidates toward each host (hosts': none),
	// each switch's row of topo.SwitchRoutes kept as it is gathered: a
	// table of every (switch, host) pair would take a slice header each,
	// 252 MB at k=32.
	routes []topo.RouteRow
	seeds  []uint64 // per switch node
	hash   ecmp.Field
	// ns3 is the HPCC ns-3 model's ECMP when taken (Config.NS3), node[n]
	// each switch's ns-3 node id.
	ns3  *ecmp.NS3
	node []uint32
}

// linkID returns the directed link of topology link i from its A end
// (dir 0) or its B end (dir 1).
func linkID(i, dir int) int32 { return int32(2*i + dir) }

// newNetwork lays out the directed links with the same PHY draws the
// packet engine makes: each port's clock offset from the stream
// "phy/<node>/p<port>", and each switch's ECMP seed from "ecmp/<switch>"
// (or the one "ecmp" stream).
func newNetwork(c *Config) (*network, error) {
	t := c.Topo
	n := &network{t: t, hash: c.Hash, routes: make([]topo.RouteRow, len(t.Nodes)), ns3: c.NS3}
	t.SwitchRoutes(nil, c.NS3 != nil, func(sw int, r [][]int16) { n.routes[sw] = topo.NewRouteRow(r) })
	if c.NS3 != nil {
		n.node = make([]uint32, len(t.Nodes))
		id := uint32(len(t.Hosts))
		for i, nd := range t.Nodes {
			if nd.Kind == topo.Switch {
				n.node[i] = id
				id++
			}
		}
	}
	streams := sim.NewStreams(c.Seed)
	n.portLink = make([][]int32, len(t.Nodes))
	for i, nd := range t.Nodes {
		n.portLink[i] = make([]int32, nd.Ports)
		for p := range n.portLink[i] {
			n.portLink[i][p] = -1
		}
	}
	n.links = make([]link, 2*len(t.Links))
	for i, l := range t.Links {
		for dir := 0; dir < 2; dir++ {
			from, fp, to := l.A, l.PA, l.B
			if dir == 1 {
				from, fp, to = l.B, l.PB, l.A
			}
			name := fmt.Sprintf("%s/p%d", t.Nodes[from].Name, fp)
			rng := streams.Stream("phy/" + name)
			ppm := (2*rng.Float64() - 1) * c.ClockPPM
			var jitter unit.Time
			if c.Jitter != nil {
				jitter = c.Jitter(l.Rate)
			}
			rate := unit.BitRate(float64(l.Rate) * (1 + ppm/1e6))
			delay := l.Cable.Delay()
			if t.Nodes[to].Kind == topo.Switch {
				delay += c.SwitchLatency
			}
			id := linkID(i, dir)
			n.links[id] = link{
				from: int32(from), to: int32(to), port: int32(fp), rate: rate, bps: float64(rate),
				delay: delay, cable: l.Cable, jitter: jitter / 2, nicTx: t.Nodes[from].Kind == topo.Host, burst: 1,
			}
			n.portLink[from][fp] = id
		}
	}
	n.seeds = make([]uint64, len(t.Nodes))
	for i, nd := range t.Nodes {
		if nd.Kind != topo.Switch {
			continue
		}
		name := "ecmp"
		if c.PerSwitchSeed {
			name = "ecmp/" + nd.Name
		}
		n.seeds[i] = streams.Stream(name).Uint64()
	}
	return n, nil
}

// path appends to out the directed links a packet with key k takes from
// host src to host dst, hashing at each switch as the packet fabric does.
// It returns nil when no route leads there.
func (n *network) path(src, dst int, k ecmp.Key, out []int32) []int32 {
	t := n.t
	node := t.Hosts[src]
	target := t.Hosts[dst]
	fh := ecmp.FieldsHash(n.hash, k)
	out = append(out, n.portLink[node][0])
	node = int(n.links[out[len(out)-1]].to)
	for hops := 0; node != target; hops++ {
		if t.Nodes[node].Kind != topo.Switch || hops > len(t.Nodes) {
			return nil
		}
		cand := n.routes[node].To(dst)
		var port int16
		switch len(cand) {
		case 0:
			return nil
		case 1:
			port = cand[0]
		default:
			if n.ns3 != nil {
				port = cand[n.ns3.Pick(n.node[node], k, len(cand))]
				break
			}
			port = cand[ecmp.Pick(ecmp.Seeded(n.seeds[node], fh), len(cand))]
		}
		l := n.portLink[node][port]
		out = append(out, l)
		node = int(n.links[l].to)
	}
	return out
}
