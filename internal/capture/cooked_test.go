package capture

import (
	"bytes"
	"encoding/binary"
	"testing"

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
	s := gbnScenario()
	for _, p := range pfcScenario(0).pkts {
		p.t += 300 * unit.Microsecond
		s.pkts = append(s.pkts, p)
	}
	eth := analyze(t, s.pcap(), Options{LinkSpeed: 100 * unit.Gbps})
	for _, sll2 := range []bool{false, true} {
		data := cookedPcap(s, sll2)
		a := analyze(t, data, Options{LinkSpeed: 100 * unit.Gbps})
		if a.Packets != eth.Packets || a.RoCEPackets != eth.RoCEPackets || a.MACControlPackets != eth.MACControlPackets || a.DecodeErrors != 0 || a.Bytes != eth.Bytes {
			t.Errorf("sll2=%v: packets %d/%d roce %d/%d macc %d/%d errors %d bytes %d/%d", sll2, a.Packets, eth.Packets,
				a.RoCEPackets, eth.RoCEPackets, a.MACControlPackets, eth.MACControlPackets, a.DecodeErrors, a.Bytes, eth.Bytes)
		}
		if len(a.Flows) != len(eth.Flows) || len(a.Pause) != len(eth.Pause) {
			t.Fatalf("sll2=%v: %d flows %d pause rows, want %d %d", sll2, len(a.Flows), len(a.Pause), len(eth.Flows), len(eth.Pause))
		}
		for i, f := range a.Flows {
			e := eth.Flows[i]
			if f.Key != e.Key || f.Packets != e.Packets || f.Bytes != e.Bytes || f.SrcMAC != e.SrcMAC || f.PCP != e.PCP ||
				f.Requester.RetransPackets != e.Requester.RetransPackets || f.Requester.EpisodeCount != e.Requester.EpisodeCount || len(f.NAKs) != len(e.NAKs) {
				t.Errorf("sll2=%v flow %s: %+v\nwant %+v", sll2, f.Key, f, e)
			}
		}
		for i, p := range a.Pause {
			if *p.Effective != *eth.Pause[i].Effective || p.SrcMAC != eth.Pause[i].SrcMAC {
				t.Errorf("sll2=%v pause %d: %+v, want %+v", sll2, i, p, eth.Pause[i])
			}
		}
		if _, err := tshark.Path(); err != nil {
			continue
		}
		rows, err := tshark.Fields(writeTemp(t, "cooked.pcap", data), "infiniband.bth.destqp", "infiniband.bth.psn")
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
			t.Errorf("sll2=%v: tshark finds %d RoCE packets, we %d", sll2, roce, a.RoCEPackets)
		}
	}
}

// A real cooked capture from the tcpdump test suite reads cleanly.
func TestRealCookedCapture(t *testing.T) {
	a := analyzeCorpus(t, "pcap-sll/tcp-handshake-nano.pcap")
	if a.Packets != 3 || a.DecodeErrors != 0 || a.Other["IPv4"] != 3 || a.Bytes != 76+76+68-3*2 {
		t.Errorf("packets %d, errors %d, other %v, bytes %d", a.Packets, a.DecodeErrors, a.Other, a.Bytes)
	}
}
