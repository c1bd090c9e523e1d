package fluid

import (
	"rocelab/internal/cc"
	"rocelab/internal/ecmp"
	"rocelab/internal/qos"
	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// Config is what the fluid engine needs of a scenario, as plain data: the
// scenario package fills it (see scenario.BuildFluid), so this package
// knows nothing of the packet fabric or the RDMA NIC.
type Config struct {
	// Seed is the scenario's seed: the ECMP seeds, the UDP source ports,
	// the PHY clock offsets and the loss draws are streams split off it
	// under the names the packet engine uses, so both put each queue pair
	// on the same path.
	Seed     uint64
	Topo     *topo.Topology
	Duration unit.Time

	// MTU is the RoCE path MTU, TCPMSS the payload of a TCP segment.
	MTU, TCPMSS int32
	VLAN        bool
	// DSCP is the traffic class of connections that set none.
	DSCP uint8
	// NIC classifies a connection's traffic class at the host; NICPriority
	// (0..7) overrides it for every data connection, -1 leaves it.
	NIC         qos.Classifier
	NICPriority int
	// NICStrict and NICWeights are the NIC's ETS scheduler; SwitchStrict
	// and SwitchWeights every switch's.
	NICStrict     uint8
	NICWeights    [8]int
	Switch        qos.Classifier
	SwitchStrict  uint8
	SwitchWeights [8]int
	// SwitchLatency is each switch's forwarding latency, which a frame
	// takes on top of the propagation of the link it arrives on.
	SwitchLatency unit.Time
	// Hash is the fields the switches hash; PerSwitchSeed gives each
	// switch a seed of its own.
	Hash          ecmp.Field
	PerSwitchSeed bool
	// NS3, when set, replaces that hash with the HPCC ns-3 model's
	// (ecmp.NS3), over its order of the candidates (topo.NS3Routes).
	NS3 *ecmp.NS3
	// ClockPPM bounds each port's clock offset; Jitter returns the bound
	// of the FEC arrival jitter of a link at a rate (zero for none).
	ClockPPM float64
	Jitter   func(unit.BitRate) unit.Time

	// Timeout is the hosts' local ACK timeout exponent, RetryCnt their
	// retry count (a connection may set its own).
	Timeout  uint8
	RetryCnt int
	// TCPRTO is the retransmission timeout of TCP-class connections.
	TCPRTO unit.Time
	// AckCoalesce is how many packets a responder receives before it
	// ACKs (the last packet of a message is ACKed at once).
	AckCoalesce int
	// CompletionDelay is how long after the NIC writes a completion the
	// workload sees it (the CQE's DMA and the poll), as in the packet NIC.
	CompletionDelay unit.Time

	// Lossless is the set of priorities PFC protects (zero when PFC is
	// off); PFCQuanta and PFCRefresh shape the pause frames.
	Lossless   uint8
	PFCQuanta  uint16
	PFCRefresh unit.Time
	// Buffer, Alpha and Reserve are each switch's shared buffer, the
	// lossless dynamic threshold and the per-PG minimum; Headroom is a
	// port's lossless headroom. They size the standing queue of a
	// congested lossless port.
	Buffer   int64
	Alpha    float64
	Reserve  int64
	Headroom func(unit.BitRate, unit.Length) int64
	// ECN is each priority's RED profile at the switches, ECNByRate the
	// profiles of ports of the rates it lists; ECT says the NICs send
	// RoCE data ECN-capable.
	ECN       [8]RED
	ECNByRate []RateRED
	ECT       bool
	// DCQCN is the NICs' congestion control, nil for none.
	DCQCN *cc.DCQCNConfig

	// Losses are the loss faults.
	Losses []Loss
	// Unsupported lists what the scenario asks for that this engine does
	// not model (faults other than loss, host drain limits, ...): the
	// Observation carries it.
	Unsupported []string
}

// RateRED is the marking profiles of the switch ports of one rate.
type RateRED struct {
	Rate unit.BitRate
	ECN  [8]RED
}

// red returns the profile of priority p's queue at a port of the rate.
func (c *Config) red(rate unit.BitRate, p int) RED {
	for i := range c.ECNByRate {
		if rate.Nominal(c.ECNByRate[i].Rate) {
			return c.ECNByRate[i].ECN[p]
		}
	}
	return c.ECN[p]
}

// RED is a switch queue's ECN marking profile; a zero Kmax disables it.
type RED struct {
	Kmin, Kmax int64
	Pmax       float64
}

// Loss is a loss fault on a topology link (both directions): Rate is the
// mean loss probability of a frame, Burst the mean length of a run of
// losses (1 for independent losses), between Start and End.
type Loss struct {
	Link       int
	Rate       float64
	Burst      float64
	Start, End unit.Time
}
