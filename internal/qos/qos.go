// Package qos is how a node of the twin classifies traffic into its eight
// priorities: by the IP DSCP or by the 802.1Q PCP. The packet fabric, the
// RDMA NIC and the fluid engine classify with it, and reports use it to
// say where a class of traffic lands.
package qos

import "rocelab/internal/packet"

// Trust says which header a node classifies priority from.
type Trust uint8

// Trust modes.
const (
	// TrustDSCP maps the IP DSCP to a priority: what survives routing on
	// an L3 RoCEv2 fabric.
	TrustDSCP Trust = iota
	// TrustPCP takes the 802.1Q PCP; untagged frames get priority 0.
	TrustPCP
)

// Classifier maps a packet's headers to the priority a node queues it on,
// by the DSCP (trust dscp) or the 802.1Q PCP (trust pcp; untagged frames
// get priority 0).
type Classifier struct {
	Trust      Trust
	DSCPToPrio [64]uint8
}

// Classify returns the priority of p.
func (c *Classifier) Classify(p *packet.Packet) uint8 {
	return c.Priority(p.DSCP, p.PCP, p.VLAN)
}

// Priority returns the priority of a frame with these header fields.
func (c *Classifier) Priority(dscp, pcp uint8, vlan bool) uint8 {
	if c.Trust == TrustPCP {
		if vlan {
			return pcp & 7
		}
		return 0
	}
	return c.DSCPToPrio[dscp&63]
}
