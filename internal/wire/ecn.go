package wire

import "github.com/gopacket/gopacket/layers"

// ECN is the two-bit Explicit Congestion Notification field of the IP
// header (RFC 3168). RoCEv2 senders mark ECT; switches set CE under
// congestion; the receiver answers CE with a CNP.
type ECN uint8

// ECN codepoints.
const (
	NotECT ECN = 0
	ECT1   ECN = 1
	ECT0   ECN = 2
	CE     ECN = 3
)

// String returns "Not-ECT", "ECT(1)", "ECT(0)" or "CE".
func (e ECN) String() string {
	return [...]string{"Not-ECT", "ECT(1)", "ECT(0)", "CE"}[e&3]
}

// SplitTOS splits an IPv4 TOS or IPv6 Traffic Class byte into DSCP and ECN.
func SplitTOS(tos uint8) (dscp uint8, ecn ECN) { return tos >> 2, ECN(tos & 3) }

// TOS joins DSCP and ECN into a TOS / Traffic Class byte.
func TOS(dscp uint8, ecn ECN) uint8 { return dscp<<2 | uint8(ecn&3) }

// IPv4ECN returns the ECN field of a decoded gopacket IPv4 header.
func IPv4ECN(ip *layers.IPv4) ECN { return ECN(ip.TOS & 3) }

// IPv6ECN returns the ECN field of a decoded gopacket IPv6 header.
func IPv6ECN(ip *layers.IPv6) ECN { return ECN(ip.TrafficClass & 3) }

// IPv4DSCP returns the DSCP of a decoded gopacket IPv4 header.
func IPv4DSCP(ip *layers.IPv4) uint8 { return ip.TOS >> 2 }

// IPv6DSCP returns the DSCP of a decoded gopacket IPv6 header.
func IPv6DSCP(ip *layers.IPv6) uint8 { return ip.TrafficClass >> 2 }
