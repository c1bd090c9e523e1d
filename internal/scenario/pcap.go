package scenario

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"

	"rocelab/internal/capture"
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
	"rocelab/internal/wire"
)

// DefaultSnaplen keeps frames whole. Wireshark's InfiniBand dissector
// labels every RoCE frame whose payload is cut "Invalid Packet Length from
// LRH! [Malformed Packet]" (it checks the payload length against the
// captured bytes), so a cut capture looks broken in Wireshark although its
// headers are whole; rocelab capture reads either.
const DefaultSnaplen = 0

// MinSnaplen returns the shortest snaplen that keeps every header the twin
// writes whole: Ethernet 14, 802.1Q 4 when vlan, IPv4 20, UDP 8, BTH 12 and
// RETH 16 (an AETH, 4, is shorter; a PFC frame is 60).
func MinSnaplen(vlan bool) int {
	n := int(packet.Ethernet + packet.IPv4 + packet.UDP + packet.BTH + packet.RETH)
	if vlan {
		n += int(packet.VLANTag)
	}
	return max(n, 60)
}

// HostIP is the IPv4 address the twin gives host id: 10.0.0.1 for h0, and
// so on.
func HostIP(id int32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], 10<<24+uint32(id)+1)
	return netip.AddrFrom4(b)
}

// PortMAC is the locally administered MAC address the twin gives a port:
// 02:00 followed by the port's index in the network (MAC).
func PortMAC(pt *fabric.Port) [6]byte { return MAC(pt.ID()) }

// MAC is the MAC address of the port of index id in the network.
func MAC(id int) [6]byte {
	m := [6]byte{0x02, 0x00}
	binary.BigEndian.PutUint32(m[2:], uint32(id))
	return m
}

// A PcapTap writes every frame a port sends and receives into a pcapng
// capture, as real RoCEv2 and PFC frames: each hop's Ethernet addresses are
// the link's two ports (a routed fabric), IP addresses are HostIP, data
// packets are RDMA WRITEs whose RETH names the flow's length, and the
// payload is zeros cut at the snaplen. Sent frames are stamped when their
// first bit leaves, received ones when their last bit arrives.
type PcapTap struct {
	net     *fabric.Network
	port    *fabric.Port
	rate    unit.BitRate
	w       *capture.Writer
	b       wire.Builder
	snaplen int
	err     error
	// Frames counts the frames written.
	Frames int64
}

// Port finds a port by name. Ports are named NODE/pN ("leaf1/p3", "h0/p0")
// in every report; a file name cannot hold the "/", so per-port files are
// NODE-pN ("leaf1-p3.txt"), and both spellings are accepted here, as is the
// older NODE:N.
func (tw *Twin) Port(name string) (*fabric.Port, error) {
	node, idx, ok := "", "", false
	for _, sep := range []string{"/p", "-p", ":"} {
		if i := strings.LastIndex(name, sep); i > 0 {
			node, idx, ok = name[:i], name[i+len(sep):], true
			break
		}
	}
	i, err := strconv.Atoi(idx)
	if ok && err == nil {
		for _, pt := range tw.Net.Ports {
			if pt.Node().Name() == node && pt.Index() == i {
				return pt, nil
			}
		}
	}
	var some []string
	for _, n := range tw.Nodes {
		if len(some) == 4 {
			some = append(some, "…")
			break
		}
		some = append(some, n.Name()+"/p0")
	}
	return nil, fmt.Errorf("no port %q: expected NODE/pN (or NODE-pN, as the per-port files are named) with a node of this topology, e.g. %s", name, strings.Join(some, ", "))
}

// AttachPcap taps pt and writes its frames to w. Call Close after the run.
func (tw *Twin) AttachPcap(pt *fabric.Port, w io.Writer, snaplen int) (*PcapTap, error) {
	if snaplen != 0 && snaplen < MinSnaplen(tw.Scenario.Host.VLAN) {
		return nil, fmt.Errorf("snaplen %d cuts the RoCE headers: expected 0 (whole frames) or at least %d", snaplen, MinSnaplen(tw.Scenario.Host.VLAN))
	}
	rate := tw.nominalRate(pt)
	desc := fmt.Sprintf("rocelab twin: port %s (peer %s) at %v, scenario %s, seed %d", pt.Name(), pt.Peer().Name(), rate, tw.Scenario.Name, tw.Scenario.Seed)
	topo := tw.Scenario.Topo
	names := make([]capture.HostName, len(topo.Hosts))
	for i, n := range topo.Hosts {
		names[i] = capture.HostName{Addr: HostIP(int32(i)), Name: topo.Nodes[n].Name}
	}
	intf := capture.Interface{Name: pt.Name(), Description: desc, Speed: rate, Snaplen: snaplen}
	cw, err := capture.NewWriter(w, "simulated by the rocelab twin, not captured on hardware", intf, names)
	if err != nil {
		return nil, err
	}
	t := &PcapTap{net: tw.Net, port: pt, rate: rate, w: cw, snaplen: snaplen}
	pt.SetTap(t)
	return t, nil
}

// Frame implements fabric.Tap.
func (t *PcapTap) Frame(now unit.Time, pt *fabric.Port, dir fabric.Direction, p *packet.Packet) {
	if t.err != nil {
		return
	}
	from, to := pt, pt.Peer()
	if dir == fabric.Rx {
		from, to = to, from
	}
	var frame []byte
	var wireLen int
	switch p.Kind {
	case packet.Pause:
		frame, wireLen = t.b.PFC(PortMAC(from), uint16(p.ClassVector), p.Quanta, t.snaplen)
	case packet.Data, packet.Ack, packet.CNP:
		e := wire.Endpoints{
			SrcMAC: PortMAC(from), DstMAC: PortMAC(to),
			SrcIP: HostIP(p.Src), DstIP: HostIP(p.Dst),
			SrcPort: p.SrcPort, DSCP: p.DSCP, ECN: wire.ECN(p.ECN),
			VLAN: p.VLAN, PCP: p.PCP,
		}
		tr := wire.Transport{
			BTH:        wire.BTH{Opcode: p.Opcode, PKey: 0xffff, DestQP: p.DstQP, AckReq: p.AckReq, PSN: p.PSN},
			PayloadLen: int(p.Payload),
		}
		tr.RETH.DMALength = p.DMALen
		tr.AETH.Syndrome, tr.AETH.MSN = p.Syndrome, p.MSN
		if p.Class == packet.ClassTCP {
			return // kernel TCP segments are not RoCE frames: the capture leaves them out
		}
		frame, wireLen, t.err = t.b.RoCE(&e, &tr, t.snaplen)
	default:
		t.err = fmt.Errorf("pcap: no frame format for a %v packet", p.Kind)
	}
	if t.err == nil {
		t.err = t.w.WriteFrame(now, frame, wireLen, dir == fabric.Tx)
		t.Frames++
	}
}

// Rate returns the tapped port's line rate, which converts pause quanta to
// time when the capture is analysed.
func (t *PcapTap) Rate() unit.BitRate { return t.rate }

// nominalRate returns the rate the topology gives pt's link: the port's own
// rate is off by its clock's ppm when the scenario models the PHY.
func (tw *Twin) nominalRate(pt *fabric.Port) unit.BitRate {
	t := tw.Scenario.Topo
	name, i := pt.Node().Name(), pt.Index()
	for _, l := range t.Links {
		if t.Nodes[l.A].Name == name && l.PA == i || t.Nodes[l.B].Name == name && l.PB == i {
			return l.Rate
		}
	}
	return pt.Rate()
}

// Close flushes the capture and reports the first error met while writing.
func (t *PcapTap) Close() error {
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}
