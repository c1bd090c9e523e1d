package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// tunnelHeads are the headers a switch's mirror session or an overlay puts
// before a frame, from the outer IPv4 protocol (or UDP) on: GRE bridging
// Ethernet, ERSPAN types I, II and III (III with its platform subheader),
// VXLAN. Each is a SYNTHETIC header built to RFC 7637 / the ERSPAN draft /
// RFC 7348, not a captured one.
var tunnelHeads = []struct {
	name   string
	tunnel string
	proto  byte   // IPv4 protocol: 47 GRE, 17 UDP
	head   string // hex, after the outer IPv4 header
}{
	{"gre-teb", "GRE (Ethernet)", 47, "00006558"},
	{"erspan1", "ERSPAN type I", 47, "000088be"},
	{"erspan2", "ERSPAN type II", 47, "100088be0000002a" + "1001000000000001"},
	{"erspan3", "ERSPAN type III", 47, "100022eb00000007" + "2001000012345678" + "00000001" + "0000000000000000"},
	{"vxlan", "VXLAN", 17, "c00012b50000" + "0000" + "0800000000006400"},
}

// wrap puts frame inside the tunnel: an outer Ethernet and IPv4 header,
// then head (a UDP header's length filled in for VXLAN).
func wrap(t *testing.T, proto byte, head string, frame []byte) []byte {
	t.Helper()
	h, err := hex.DecodeString(head)
	if err != nil {
		t.Fatal(err)
	}
	if proto == 17 {
		binary.BigEndian.PutUint16(h[4:6], uint16(len(h)+len(frame)))
	}
	ip := make([]byte, 20)
	ip[0], ip[8], ip[9] = 0x45, 64, proto
	binary.BigEndian.PutUint16(ip[2:4], uint16(20+len(h)+len(frame)))
	copy(ip[12:16], []byte{192, 0, 2, 1})
	copy(ip[16:20], []byte{192, 0, 2, 2})
	eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
	return bytes.Join([][]byte{eth, ip, h, frame}, nil)
}

// wrapCapture rewrites a corpus capture with each frame inside the tunnel;
// with dup > 0 every frame comes a second time dup later, as a mirror
// session copying it at two points sends it.
func wrapCapture(t *testing.T, rel string, proto byte, head string, dup time.Duration) []byte {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/corpus/" + rel)
	if err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	type rec struct {
		at time.Time
		d  []byte
	}
	var recs []rec
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		d := wrap(t, proto, head, data)
		recs = append(recs, rec{ci.Timestamp, d})
		if dup > 0 {
			recs = append(recs, rec{ci.Timestamp.Add(dup), d})
		}
	}
	if dup > 0 {
		sort.SliceStable(recs, func(i, j int) bool { return recs[i].at.Before(recs[j].at) })
	}
	for _, rc := range recs {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: rc.at, CaptureLength: len(rc.d), Length: len(rc.d)}, rc.d); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// onePacket is a classic pcap of the one frame d.
func onePacket(d []byte) *bytes.Buffer {
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	_ = w.WriteFileHeader(65535, layers.LinkTypeEthernet)
	_ = w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(0, 0), CaptureLength: len(d), Length: len(d)}, d)
	return &out
}

// A capture taken at a mirror session's collector or on an overlay's
// underlay holds RoCE only inside ERSPAN, GRE or VXLAN: it read as "no
// RoCEv2 packets" (ethertype/IPv4 other). The real captures of the corpus,
// each frame wrapped in each tunnel, read as the unwrapped ones do, flow
// for flow, and a note names the tunnel.
func TestTunneledRoCE(t *testing.T) {
	for _, rel := range []string{"pcap-roce/rc-send-two-qps-oferby-proxy.pcap", "pcap-roce/cnp-cx4-lx-one-packet-scapy-hexcap.pcap"} {
		plain := analyzeCorpus(t, rel)
		for _, tc := range tunnelHeads {
			t.Run(tc.name, func(t *testing.T) {
				a, err := Analyze(tc.name, bytes.NewReader(wrapCapture(t, rel, tc.proto, tc.head, 0)), Options{})
				if err != nil {
					t.Fatal(err)
				}
				if a.RoCEPackets != plain.RoCEPackets || a.DecodeErrors != 0 || a.Tunneled[tc.tunnel] != plain.Packets {
					t.Fatalf("%s: roce %d (want %d) errors %d tunneled %v", rel, a.RoCEPackets, plain.RoCEPackets, a.DecodeErrors, a.Tunneled)
				}
				if !reflect.DeepEqual(a.Other, plain.Other) {
					t.Errorf("other %v, want %v", a.Other, plain.Other)
				}
				for i, fl := range a.Flows {
					p := plain.Flows[i]
					if fl.Key != p.Key || fl.Packets != p.Packets || fl.Bytes != p.Bytes || fl.CNPs != p.CNPs || fl.CE != p.CE || fl.DSCP != p.DSCP {
						t.Errorf("flow %d = %+v, want %+v", i, fl, p)
					}
				}
				if !strings.Contains(strings.Join(a.Notes, "\n"), "packets of "+tc.tunnel+" decoded from inside the tunnel") {
					t.Errorf("notes %q", a.Notes)
				}
			})
		}
	}
}

// GRE that carries no Ethernet (IP in GRE, version 1 PPTP, source routing)
// and UDP 4789 without VXLAN's I flag stay other traffic; an ERSPAN header
// cut short is a decode error, not a panic. SYNTHETIC frames.
func TestTunnelNotDecapsulated(t *testing.T) {
	inner := make([]byte, 60)
	for _, tc := range []struct {
		name   string
		proto  byte
		head   string
		errors int64
	}{
		{"ip-in-gre", 47, "00000800", 0},
		{"gre-v1", 47, "3001880b00000000", 0},
		{"gre-routing", 47, "40006558", 0},
		{"udp-4789-no-i-flag", 17, "c00012b50000" + "0000" + "0000000000006400", 0},
	} {
		a, err := Analyze(tc.name, onePacket(wrap(t, tc.proto, tc.head, inner)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a.RoCEPackets != 0 || a.DecodeErrors != tc.errors || len(a.Tunneled) != 0 {
			t.Errorf("%s: roce %d errors %d tunneled %v", tc.name, a.RoCEPackets, a.DecodeErrors, a.Tunneled)
		}
	}
	a, err := Analyze("erspan3-cut", onePacket(wrap(t, 47, "100022eb00000007"+"2001", nil)), Options{})
	if err != nil || a.DecodeErrors != 1 {
		t.Errorf("cut ERSPAN III: err %v errors %d", err, a.DecodeErrors)
	}
}

// A mirror session that copies each packet at two points (a port's ingress
// and another's egress) delivers it twice, microseconds apart: every
// request read as a go-back-N retransmission. A request repeated sooner
// than the shortest ACK timeout (8.192 us) with the same PSN, opcode and
// ICRC is a copy, counted once; one repeated later is still a
// retransmission. The real capture's frames, each sent twice inside
// SYNTHETIC ERSPAN II.
func TestMirrorCopies(t *testing.T) {
	const rel = "pcap-roce/rc-send-two-qps-oferby-proxy.pcap"
	plain := analyzeCorpus(t, rel)
	var requests int64
	for _, fl := range plain.Flows {
		requests += fl.Requests
	}
	erspan2 := tunnelHeads[2]
	a, err := Analyze("copies", bytes.NewReader(wrapCapture(t, rel, erspan2.proto, erspan2.head, time.Microsecond)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.MirrorCopies != requests {
		t.Fatalf("mirror copies %d, want the %d requests", a.MirrorCopies, requests)
	}
	for i, fl := range a.Flows {
		p := plain.Flows[i]
		if fl.Requests != p.Requests || fl.Requester.RetransPackets != 0 || fl.Requester.Gaps != 0 || fl.Requester.NAKEpisodes+fl.Requester.TimeoutEpisodes != 0 {
			t.Errorf("flow %d: requests %d (want %d), requester %+v", i, fl.Requests, p.Requests, fl.Requester)
		}
	}
	if !strings.Contains(strings.Join(a.Notes, "\n"), "counted once") {
		t.Errorf("notes %q", a.Notes)
	}
	a, err = Analyze("late", bytes.NewReader(wrapCapture(t, rel, erspan2.proto, erspan2.head, 10*time.Microsecond)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var retx int64
	for _, fl := range a.Flows {
		retx += fl.Requester.RetransPackets
	}
	if a.MirrorCopies != 0 || retx == 0 {
		t.Errorf("a repeat 10 us later: copies %d, retransmitted %d", a.MirrorCopies, retx)
	}
}
