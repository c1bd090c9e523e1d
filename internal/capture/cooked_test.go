package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/wire/tshark"
)

// cookedPcap rewrites a synthetic capture's Ethernet frames as Linux cooked
// frames (SLL, link type 113, or SLL2, 276), as tcpdump -i any writes them:
// the sender's MAC as address, the EtherType as protocol, the destination
// MAC dropped. The result is synthetic.
func cookedPcap(s *synth, sll2 bool) []byte {
	var w bytes.Buffer
	writePcapHeader(&w, 65535)
	lt := uint32(113)
	if sll2 {
		lt = 276
	}
	binary.LittleEndian.PutUint32(w.Bytes()[20:], lt)
	for i, p := range s.pkts {
		d := p.data
		var h []byte
		if sll2 {
			h = binary.BigEndian.AppendUint16(nil, binary.BigEndian.Uint16(d[12:])) // protocol
			h = append(h, 0, 0)                                                     // reserved
			h = binary.BigEndian.AppendUint32(h, 3)                                 // interface index
			h = binary.BigEndian.AppendUint16(h, 1)                                 // ARPHRD_ETHER
			h = append(h, byte(i%2*4), 6)                                           // packet type, address length
			h = append(append(h, d[6:12]...), 0, 0)
		} else {
			h = binary.BigEndian.AppendUint16(nil, uint16(i%2*4)) // packet type: to us, or outgoing
			h = binary.BigEndian.AppendUint16(h, 1)               // ARPHRD_ETHER
			h = binary.BigEndian.AppendUint16(h, 6)
			h = append(append(h, d[6:12]...), 0, 0)
			h = append(h, d[12:14]...)
		}
		frame := append(h, d[14:]...)
		writePcapRecord(&w, epoch+int64(p.t/unit.Nanosecond), frame, p.wireLen-14+len(h))
	}
	return w.Bytes()
}

// A capture made with tcpdump -i any (Linux cooked, SLL or SLL2) gives the
// same analysis as the Ethernet capture of the same frames, and tshark
// finds the same RoCE packets in it.
func TestCookedCaptures(t *testing.T) {
	s, eth := rewriteScenario(t)
	for _, sll2 := range []bool{false, true} {
		sameAnalysis(t, fmt.Sprintf("sll2=%v", sll2), cookedPcap(s, sll2), eth, true)
	}
}

// rewriteScenario returns a synthetic go-back-N and PFC scenario and its
// analysis as an Ethernet capture.
func rewriteScenario(t *testing.T) (*synth, *Analysis) {
	s := gbnScenario()
	for _, p := range pfcScenario(0).pkts {
		p.t += 300 * unit.Microsecond
		s.pkts = append(s.pkts, p)
	}
	return s, analyze(t, s.pcap(), Options{LinkSpeed: 100 * unit.Gbps})
}

// sameAnalysis checks that data, the scenario's frames under another link
// type, analyses as the Ethernet capture did (eth), MACs included when
// macs is set, and that tshark finds as many RoCE packets in it.
func sameAnalysis(t *testing.T, label string, data []byte, eth *Analysis, macs bool) {
	t.Helper()
	a := analyze(t, data, Options{LinkSpeed: 100 * unit.Gbps})
	if a.Packets != eth.Packets || a.RoCEPackets != eth.RoCEPackets || a.MACControlPackets != eth.MACControlPackets || a.DecodeErrors != 0 || a.Bytes != eth.Bytes {
		t.Errorf("%s: packets %d/%d roce %d/%d macc %d/%d errors %d bytes %d/%d", label, a.Packets, eth.Packets,
			a.RoCEPackets, eth.RoCEPackets, a.MACControlPackets, eth.MACControlPackets, a.DecodeErrors, a.Bytes, eth.Bytes)
	}
	if len(a.Flows) != len(eth.Flows) || len(a.Pause) != len(eth.Pause) {
		t.Fatalf("%s: %d flows %d pause rows, want %d %d", label, len(a.Flows), len(a.Pause), len(eth.Flows), len(eth.Pause))
	}
	for i, f := range a.Flows {
		e := eth.Flows[i]
		if f.Key != e.Key || f.Packets != e.Packets || f.Bytes != e.Bytes || macs && f.SrcMAC != e.SrcMAC || f.PCP != e.PCP ||
			f.Requester.RetransPackets != e.Requester.RetransPackets || f.Requester.EpisodeCount != e.Requester.EpisodeCount || len(f.NAKs) != len(e.NAKs) {
			t.Errorf("%s flow %s: %+v\nwant %+v", label, f.Key, f, e)
		}
	}
	for i, p := range a.Pause {
		if *p.Effective != *eth.Pause[i].Effective || p.SrcMAC != eth.Pause[i].SrcMAC {
			t.Errorf("%s pause %d: %+v, want %+v", label, i, p, eth.Pause[i])
		}
	}
	if _, err := tshark.Path(); err != nil {
		return
	}
	rows, err := tshark.Fields(writeTemp(t, "rewritten.pcap", data), "infiniband.bth.destqp", "infiniband.bth.psn")
	if err != nil {
		t.Fatal(err)
	}
	roce := 0
	for _, r := range rows {
		if r[0] != "" {
			roce++
		}
	}
	if int64(roce) != a.RoCEPackets {
		t.Errorf("%s: tshark finds %d RoCE packets, we %d", label, roce, a.RoCEPackets)
	}
}

// A real cooked capture from the tcpdump test suite reads cleanly.
func TestRealCookedCapture(t *testing.T) {
	a := analyzeCorpus(t, "pcap-sll/tcp-handshake-nano.pcap")
	if a.Packets != 3 || a.DecodeErrors != 0 || a.Other["IPv4"] != 3 || a.Bytes != 76+76+68-3*2 {
		t.Errorf("packets %d, errors %d, other %v, bytes %d", a.Packets, a.DecodeErrors, a.Other, a.Bytes)
	}
}

// rawPcaps rewrites a synthetic capture's IP frames as raw IP of link type
// lt (101, 228 or 229), as a tun device or a collector that strips the
// link layer writes them, and returns it with the same frames as untagged
// Ethernet to compare with. Both results are synthetic.
func rawPcaps(s *synth, lt uint32) (raw, eth []byte) {
	var w, e bytes.Buffer
	writePcapHeader(&w, 65535)
	writePcapHeader(&e, 65535)
	binary.LittleEndian.PutUint32(w.Bytes()[20:], lt)
	for _, p := range s.pkts {
		l2 := 14
		if binary.BigEndian.Uint16(p.data[12:]) == 0x8100 {
			l2 = 18
		}
		ns := epoch + int64(p.t/unit.Nanosecond)
		writePcapRecord(&w, ns, p.data[l2:], p.wireLen-l2)
		untagged := append(append([]byte(nil), p.data[:12]...), p.data[l2-2:]...)
		writePcapRecord(&e, ns, untagged, p.wireLen-l2+14)
	}
	return w.Bytes(), e.Bytes()
}

// A raw IP capture (LINKTYPE_RAW, _IPV4, _IPV6, and DLT_RAW as old files
// hold it, 12 or 14) of RoCE traffic gives the
// analysis of the same packets sent untagged on Ethernet (without MACs),
// and tshark finds the same RoCE packets in it.
func TestRawIPCaptures(t *testing.T) {
	for _, c := range []struct {
		v4 bool
		lt uint32
	}{{true, 101}, {false, 101}, {true, 228}, {false, 229}, {true, 12}, {false, 12}, {true, 14}, {false, 14}} {
		s := gbnScenario()
		if !c.v4 {
			s = &synth{}
			ab, ba := endpoints(false)
			s.roce(0, ab, write(0x11, 7, roce.OpWriteMiddle, 1024), 0)
			s.roce(unit.Microsecond, ab, write(0x11, 9, roce.OpWriteMiddle, 1024), 0)
			s.roce(2*unit.Microsecond, ba, aeth(0x22, 8, roce.OpAcknowledge, roce.SyndromePSNSequenceError, 0), 0)
			s.roce(3*unit.Microsecond, ab, write(0x11, 8, roce.OpWriteMiddle, 1024), 0)
		}
		raw, eth := rawPcaps(s, c.lt)
		sameAnalysis(t, fmt.Sprintf("link type %d v4=%v", c.lt, c.v4), raw, analyze(t, eth, Options{LinkSpeed: 100 * unit.Gbps}), false)
	}
}

// The tcpdump test suite's raw IP captures read as IP: one UDP packet
// each, its wire length the IP length plus the Ethernet header's 14 bytes,
// which a note states.
func TestRealRawIPCaptures(t *testing.T) {
	for _, c := range []struct {
		rel   string
		bytes int64
	}{
		{"pcap-raw/LINKTYPE_RAW_ipv4.pcap", 57 + 14},
		{"pcap-raw/LINKTYPE_IPV4.pcap", 57 + 14},
		{"pcap-raw/LINKTYPE_RAW_ipv6.pcap", 77 + 14},
		{"pcap-raw/LINKTYPE_IPV6.pcap", 77 + 14},
	} {
		a := analyzeCorpus(t, c.rel)
		if a.LinkHeaderAssumed != 1 || !slices.ContainsFunc(a.notes(), func(n string) bool { return strings.Contains(n, "count an untagged 14-byte Ethernet header") }) {
			t.Errorf("%s: link header assumed %d, notes %q", c.rel, a.LinkHeaderAssumed, a.notes())
		}
		if a.Packets != 1 || a.DecodeErrors != 0 || a.Bytes != c.bytes || len(a.Other) != 1 {
			t.Errorf("%s: packets %d, errors %d, other %v, bytes %d (want %d)", c.rel, a.Packets, a.DecodeErrors, a.Other, a.Bytes, c.bytes)
		}
		for k := range a.Other {
			if !strings.HasPrefix(k, "IPv") {
				t.Errorf("%s: other %v, want an IP row", c.rel, a.Other)
			}
		}
	}
}

// A capture taken on an IPoIB netdev (the tcpdump test suite's, link type
// 242) is refused with what it is: an InfiniBand fabric, no RoCE on it.
func TestIPoIBCaptureNamed(t *testing.T) {
	f, err := os.Open("../../testdata/corpus/pcap-ipoib/ipoib.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = NewReader(f)
	if err == nil || !strings.Contains(err.Error(), "link type 242 (IP over InfiniBand") || !strings.Contains(err.Error(), "carries no RoCE") {
		t.Errorf("err %v", err)
	}
}

// Link type 12 is DLT_LOOP on OpenBSD: a frame that starts with its
// 4-byte address family (AF_INET, SYNTHETIC) has no IP version nibble and
// is counted as a frame of that link type, not decoded as IP.
func TestDLTLoopNotRawIP(t *testing.T) {
	var w bytes.Buffer
	writePcapHeader(&w, 65535)
	binary.LittleEndian.PutUint32(w.Bytes()[20:], 12)
	frame := append([]byte{0, 0, 0, 2, 0x45, 0, 0, 20}, make([]byte, 16)...)
	writePcapRecord(&w, epoch, frame, len(frame))
	a := analyze(t, w.Bytes(), Options{})
	if a.Packets != 1 || a.Other["link type 12 (raw IP, DLT_RAW)"] != 1 || a.DecodeErrors != 0 {
		t.Errorf("packets %d, other %v, errors %d", a.Packets, a.Other, a.DecodeErrors)
	}
}

// A pcap of native InfiniBand packets (link type 247, SYNTHETIC header
// only) is refused with what it is and what to do instead.
func TestInfiniBandCaptureRemedy(t *testing.T) {
	var w bytes.Buffer
	writePcapHeader(&w, 65535)
	binary.LittleEndian.PutUint32(w.Bytes()[20:], 247)
	_, err := NewReader(&w)
	fe, ok := err.(*FormatError)
	if !ok {
		t.Fatalf("err %v", err)
	}
	what, why, fix := fe.Remedy()
	if !strings.Contains(what, "native InfiniBand capture (link type 247") || !strings.Contains(why, "not RoCE over Ethernet") || !strings.Contains(fix, "ibdump") {
		t.Errorf("what %q why %q fix %q", what, why, fix)
	}
}
