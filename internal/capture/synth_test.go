package capture

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"sort"
	"testing"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/wire"
)

// A synthetic capture: frames built with wire.Builder at chosen times,
// written as pcap (nanosecond) or as pcapng with if_speed and if_tsresol.
// Everything built here is labelled synthetic.

type synthPkt struct {
	t       unit.Time
	data    []byte
	wireLen int
	iface   int
}

type synth struct {
	b    wire.Builder
	pkts []synthPkt
}

var (
	macA = [6]byte{0x02, 0, 0, 0, 0, 0x0a}
	macB = [6]byte{0x02, 0, 0, 0, 0, 0x0b}
	macX = [6]byte{0x02, 0, 0, 0, 0, 0x77}
)

func endpoints(v4 bool) (ab, ba wire.Endpoints) {
	ab = wire.Endpoints{SrcMAC: macA, DstMAC: macB, SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"),
		SrcPort: 0xc001, DSCP: 26, ECN: wire.ECT0, VLAN: true, VLANID: 10, PCP: 3}
	if !v4 {
		ab.SrcIP, ab.DstIP = netip.MustParseAddr("fd00::1"), netip.MustParseAddr("fd00::2")
	}
	return ab, ab.Reversed()
}

// roce adds a RoCE frame; it returns the packet number it will have.
func (s *synth) roce(t unit.Time, e wire.Endpoints, tr wire.Transport, snap int) int {
	frame, n, err := s.b.RoCE(&e, &tr, snap)
	if err != nil {
		panic(err)
	}
	s.pkts = append(s.pkts, synthPkt{t: t, data: append([]byte(nil), frame...), wireLen: n})
	return len(s.pkts)
}

func (s *synth) pfc(t unit.Time, src [6]byte, enable uint16, q [8]uint16, iface int) int {
	frame, n := s.b.PFC(src, enable, q, 0)
	s.pkts = append(s.pkts, synthPkt{t: t, data: append([]byte(nil), frame...), wireLen: n, iface: iface})
	return len(s.pkts)
}

func (s *synth) pause(t unit.Time, src [6]byte, q uint16, iface int) int {
	frame, n := s.b.Pause(src, q, 0)
	s.pkts = append(s.pkts, synthPkt{t: t, data: append([]byte(nil), frame...), wireLen: n, iface: iface})
	return len(s.pkts)
}

// epoch is the synthetic captures' first timestamp.
const epoch = int64(1_700_000_000_000_000_000)

// pcap returns a nanosecond pcap of the packets.
func (s *synth) pcap() []byte {
	var w bytes.Buffer
	writePcapHeader(&w, 65535)
	for _, p := range s.pkts {
		writePcapRecord(&w, epoch+int64(p.t/unit.Nanosecond), p.data, p.wireLen)
	}
	return w.Bytes()
}

func writePcapHeader(w io.Writer, snaplen uint32) {
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], magicPcapNs)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], snaplen)
	binary.LittleEndian.PutUint32(h[20:], 1)
	w.Write(h[:])
}

func writePcapRecord(w io.Writer, ns int64, data []byte, wireLen int) {
	var h [16]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(ns/1e9))
	binary.LittleEndian.PutUint32(h[4:], uint32(ns%1e9))
	binary.LittleEndian.PutUint32(h[8:], uint32(len(data)))
	binary.LittleEndian.PutUint32(h[12:], uint32(wireLen))
	w.Write(h[:])
	w.Write(data)
}

// pcapng returns a pcapng with one interface per speed (if_speed in bit/s,
// 0 = option absent) and if_tsresol 10^-9, in big-endian byte order when
// be is set.
func (s *synth) pcapng(speeds []uint64, be bool) []byte {
	var bo binary.AppendByteOrder = binary.LittleEndian
	if be {
		bo = binary.BigEndian
	}
	var w bytes.Buffer
	block := func(typ uint32, body []byte) {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		n := uint32(12 + len(body))
		w.Write(bo.AppendUint32(bo.AppendUint32(nil, typ), n))
		w.Write(body)
		w.Write(bo.AppendUint32(nil, n))
	}
	shb := bo.AppendUint32(nil, 0x1a2b3c4d)
	shb = bo.AppendUint16(bo.AppendUint16(shb, 1), 0)
	shb = bo.AppendUint64(shb, ^uint64(0))
	block(magicPcapNG, shb)
	for _, sp := range speeds {
		idb := bo.AppendUint16(nil, 1)
		idb = bo.AppendUint16(idb, 0)
		idb = bo.AppendUint32(idb, 65535)
		idb = append(bo.AppendUint16(bo.AppendUint16(idb, 9), 1), 9, 0, 0, 0) // if_tsresol = 10^-9
		if sp > 0 {
			idb = bo.AppendUint64(bo.AppendUint16(bo.AppendUint16(idb, 8), 8), sp)
		}
		idb = append(idb, 0, 0, 0, 0) // opt_endofopt
		block(1, idb)
	}
	for _, p := range s.pkts {
		ts := uint64(epoch + int64(p.t/unit.Nanosecond))
		epb := bo.AppendUint32(nil, uint32(p.iface))
		epb = bo.AppendUint32(epb, uint32(ts>>32))
		epb = bo.AppendUint32(epb, uint32(ts))
		epb = bo.AppendUint32(epb, uint32(len(p.data)))
		epb = bo.AppendUint32(epb, uint32(p.wireLen))
		epb = append(epb, p.data...)
		block(6, epb)
	}
	return w.Bytes()
}

func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func analyze(t testing.TB, data []byte, opts Options) *Analysis {
	t.Helper()
	a, err := Analyze("synthetic.pcap", bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// mixScenario is a synthetic, realistic mix of n packets: 8 QPs writing
// 4 KiB packets at about 100G, an ACK per 16 packets, CE marks answered by
// CNPs, rare NAKs with go-back-N of 8 packets, and PFC frames. Captured
// with tcpdump -s 100, as the seed article does.
func mixScenario(n int, seed uint64) *synth {
	s := &synth{}
	s.b.NoICRC = true
	rng := rand.New(rand.NewPCG(seed, 1))
	type qp struct {
		ab, ba wire.Endpoints
		qpn    uint32
		psn    uint32
		sent   int
	}
	var qps []*qp
	for i := range 8 {
		ab, _ := endpoints(i%2 == 0)
		ab.SrcPort = uint16(0xc000 + i)
		ab.SrcIP = ab.SrcIP.Next()
		for range i / 2 {
			ab.DstIP = ab.DstIP.Next()
		}
		qps = append(qps, &qp{ab: ab, ba: ab.Reversed(), qpn: uint32(0x100 + i), psn: rng.Uint32() & 0xffffff})
	}
	var t unit.Time
	for len(s.pkts) < n {
		q := qps[rng.IntN(len(qps))]
		t += 330 * unit.Nanosecond
		e := q.ab
		ce := rng.IntN(200) == 0
		if ce {
			e.ECN = wire.CE
		}
		s.roce(t, e, write(q.qpn, q.psn, roce.OpWriteMiddle, 4096), 100)
		q.psn = roce.PSNAdd(q.psn, 1)
		q.sent++
		if ce {
			s.roce(t+2*unit.Microsecond, q.ba, write(q.qpn+0x1000, 0, roce.OpCNP, 0), 100)
		}
		if q.sent%16 == 0 {
			s.roce(t+3*unit.Microsecond, q.ba, aeth(q.qpn+0x1000, roce.PSNAdd(q.psn, -1), roce.OpAcknowledge, roce.SyndromeACKUnlimited, 0), 100)
		}
		if rng.IntN(1000) == 0 {
			s.roce(t+3*unit.Microsecond, q.ba, aeth(q.qpn+0x1000, roce.PSNAdd(q.psn, -8), roce.OpAcknowledge, roce.SyndromePSNSequenceError, 0), 100)
			for k := 8; k > 0; k-- {
				t += 330 * unit.Nanosecond
				s.roce(t+4*unit.Microsecond, q.ab, write(q.qpn, roce.PSNAdd(q.psn, -k), roce.OpWriteMiddle, 4096), 100)
			}
		}
		if rng.IntN(5000) == 0 {
			s.pfc(t, macX, 0x08, [8]uint16{3: uint16(rng.IntN(0x10000))}, 0)
		}
	}
	s.pkts = s.pkts[:n]
	sort.SliceStable(s.pkts, func(i, j int) bool { return s.pkts[i].t < s.pkts[j].t })
	return s
}
