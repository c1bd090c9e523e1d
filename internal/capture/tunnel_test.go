package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"rocelab/internal/roce"
	"rocelab/internal/wire"
	"rocelab/internal/wire/tshark"
)

// tunnelHeads are the headers a switch's mirror session or an overlay puts
// before a frame, from the outer IPv4 protocol (or UDP) on: GRE bridging
// Ethernet, ERSPAN types I, II and III (III with its platform subheader),
// VXLAN (on its IANA port and on Linux's 8472), Geneve with one option.
// Each is a SYNTHETIC header built to RFC 7637 / the ERSPAN draft / RFC
// 7348 / RFC 8926, not a captured one.
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
	{"vxlan-linux-port", "VXLAN", 17, "c00021180000" + "0000" + "0800000000006400"},
	{"geneve-option", "Geneve", 17, "c00017c10000" + "0000" + "01006558" + "00000a00" + "00010200"},
}

// wrap puts frame inside the tunnel: an outer Ethernet and IPv4 header
// from 192.0.2.src (1 when src is 0), then head (a UDP header's length
// filled in for VXLAN).
func wrap(t *testing.T, proto byte, head string, frame []byte, src byte) []byte {
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
	copy(ip[12:16], []byte{192, 0, 2, max(src, 1)})
	copy(ip[16:20], []byte{192, 0, 2, 200})
	eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
	return bytes.Join([][]byte{eth, ip, h, frame}, nil)
}

// tapCopy is one copy a mirror delivers of every frame: through the
// tunnel header head, from outer source 192.0.2.src, after the frame's
// own time, CE-marked or not; with ip4 set, only IPv4 frames, without
// their Ethernet header.
type tapCopy struct {
	head  string
	src   byte
	after time.Duration
	ce    bool
	ip4   bool
}

// wrapCapture rewrites a corpus capture with each frame inside the tunnel
// once per copy, in time order (in copy order after each frame when one
// comes before it: its timestamp steps back).
func wrapCapture(t *testing.T, rel string, proto byte, copies ...tapCopy) []byte {
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
	inOrder := true
	var f wire.Frame
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		for _, c := range copies {
			inner := data
			if c.ip4 {
				if f.Decode(data) != nil || f.IPVersion != 4 {
					continue
				}
				inner = data[f.L2Len:]
			}
			if c.ce && f.Decode(data) == nil && f.IPVersion == 4 {
				inner = append([]byte(nil), data...)
				inner[f.L2Len+1] |= byte(wire.CE)
			}
			recs = append(recs, rec{ci.Timestamp.Add(c.after), wrap(t, proto, c.head, inner, c.src)})
			inOrder = inOrder && c.after >= 0
		}
	}
	if inOrder {
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
				a, err := Analyze(tc.name, bytes.NewReader(wrapCapture(t, rel, tc.proto, tapCopy{head: tc.head})), Options{})
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
				want := fmt.Sprintf("%d packets of %s decoded from inside the tunnel", plain.Packets, tc.tunnel)
				if plain.Packets == 1 {
					want = "1 packet of " + tc.tunnel + " decoded"
				}
				if !strings.Contains(strings.Join(a.Notes, "\n"), want) {
					t.Errorf("notes %q", a.Notes)
				}
			})
		}
	}
}

// Cloud packet mirroring (GCP's, in Geneve) sends the mirrored IP packet
// without its Ethernet header: the real capture's IPv4 frames, so wrapped
// (SYNTHETIC Geneve headers, protocol 0x0800), read as the unwrapped ones,
// flow for flow, bytes counting the Ethernet header they had.
func TestGeneveIPRoCE(t *testing.T) {
	const rel = "pcap-roce/rc-send-two-qps-oferby-proxy.pcap"
	plain := analyzeCorpus(t, rel)
	a, err := Analyze("geneve-ip", bytes.NewReader(wrapCapture(t, rel, 17, tapCopy{head: "c00017c10000" + "0000" + "00000800" + "00000a00", ip4: true})), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ip := int64(0)
	for k, n := range plain.Other {
		if strings.HasPrefix(k, "IPv4") {
			ip += n
		}
	}
	ip += plain.RoCEPackets
	if a.RoCEPackets != plain.RoCEPackets || a.DecodeErrors != 0 || a.Tunneled["Geneve"] != ip || len(a.Flows) != len(plain.Flows) {
		t.Fatalf("roce %d (want %d) errors %d tunneled %v (want %d IPv4 packets) flows %d", a.RoCEPackets, plain.RoCEPackets, a.DecodeErrors, a.Tunneled, ip, len(a.Flows))
	}
	for i, fl := range a.Flows {
		p := plain.Flows[i]
		if fl.Key != p.Key || fl.Packets != p.Packets || fl.Bytes != p.Bytes || fl.DSCP != p.DSCP || fl.SrcMAC == p.SrcMAC {
			t.Errorf("flow %d = %+v, want %+v with no MAC", i, fl, p)
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
		a, err := Analyze(tc.name, onePacket(wrap(t, tc.proto, tc.head, inner, 0)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a.RoCEPackets != 0 || a.DecodeErrors != tc.errors || len(a.Tunneled) != 0 {
			t.Errorf("%s: roce %d errors %d tunneled %v", tc.name, a.RoCEPackets, a.DecodeErrors, a.Tunneled)
		}
	}
	a, err := Analyze("erspan3-cut", onePacket(wrap(t, 47, "100022eb00000007"+"2001", nil, 0)), Options{})
	if err != nil || a.DecodeErrors != 1 {
		t.Errorf("cut ERSPAN III: err %v errors %d", err, a.DecodeErrors)
	}
}

// ERSPAN heads for the mirror tests, SYNTHETIC as tunnelHeads: type II
// session 0 at index 1 and 2 and session 1 at index 1; type III session 0
// at ingress and egress.
const (
	erspan2Index1   = "100088be0000002a" + "1001000000000001"
	erspan2Index2   = "100088be0000002a" + "1001000000000002"
	erspan2Session1 = "100088be0000002a" + "1001000100000001"
	erspan3Ingress  = "100022eb00000007" + "2001000012345678" + "00000000"
	erspan3Egress   = "100022eb00000007" + "2001000012345678" + "00000008"
)

// mirrorCase analyses the corpus capture rel with each frame delivered as
// copies says, and the capture as captured.
func mirrorCase(t *testing.T, rel string, proto byte, copies ...tapCopy) (a, plain *Analysis) {
	t.Helper()
	a, err := Analyze("mirror", bytes.NewReader(wrapCapture(t, rel, proto, copies...)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a, analyzeCorpus(t, rel)
}

// retransmitted sums the request packets the flows retransmitted.
func retransmitted(a *Analysis) int64 {
	var n int64
	for _, fl := range a.Flows {
		n += fl.Requester.RetransPackets
	}
	return n
}

// A mirror that copies each packet at two taps (two ports, both directions
// of one, ingress and egress, two switches) delivers it twice, microseconds
// apart, and every request read as a go-back-N retransmission, ACKs twice
// over. A packet (QP, PSN, opcode, ICRC) that comes again from a tap that
// has not delivered it yet is a copy, counted once, whatever the delay
// (the copies here come 1, 3 and 5 us later: later than packets of the
// same flow that follow, and than a ConnectX adaptive retransmission).
// The real capture's frames (requests and ACKs), each sent at two taps in
// SYNTHETIC ERSPAN headers.
func TestMirrorCopies(t *testing.T) {
	const rel = "pcap-roce/rc-send-two-qps-oferby-proxy.pcap"
	for _, tc := range []struct {
		name  string
		proto byte
		a, b  tapCopy
	}{
		{"index-1us", 47, tapCopy{head: erspan2Index1}, tapCopy{head: erspan2Index2, after: time.Microsecond}},
		{"index-3us", 47, tapCopy{head: erspan2Index1}, tapCopy{head: erspan2Index2, after: 3 * time.Microsecond}},
		{"session-5us", 47, tapCopy{head: erspan2Index1}, tapCopy{head: erspan2Session1, after: 5 * time.Microsecond}},
		{"direction-3us", 47, tapCopy{head: erspan3Ingress}, tapCopy{head: erspan3Egress, after: 3 * time.Microsecond}},
		{"switch-type1-5us", 47, tapCopy{head: "000088be"}, tapCopy{head: "000088be", src: 2, after: 5 * time.Microsecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, plain := mirrorCase(t, rel, tc.proto, tc.a, tc.b)
			if a.MirrorCopies != plain.RoCEPackets || a.RoCEPackets != plain.RoCEPackets {
				t.Fatalf("mirror copies %d, RoCE %d: want %d each", a.MirrorCopies, a.RoCEPackets, plain.RoCEPackets)
			}
			for i, fl := range a.Flows {
				p := plain.Flows[i]
				if fl.Packets != p.Packets || fl.Requests != p.Requests || fl.ACKs != p.ACKs || fl.Requester.RetransPackets != 0 || fl.Requester.Gaps != 0 || fl.Requester.EpisodeCount != 0 {
					t.Errorf("flow %d: packets %d requests %d acks %d (want %d %d %d), requester %+v", i, fl.Packets, fl.Requests, fl.ACKs, p.Packets, p.Requests, p.ACKs, fl.Requester)
				}
			}
			if !strings.Contains(strings.Join(a.Notes, "\n"), "came again from another tap of the mirror") {
				t.Errorf("notes %q", a.Notes)
			}
		})
	}
}

// A requester can resend within 4 us (ConnectX adaptive retransmission):
// a packet a tap delivers again is sent again, however soon, even when
// another tap's copy of the first sending comes between or after. One
// tap alone tells no copies apart: its repeats are retransmissions, and a
// note says a session can copy a packet at two points. Copies whose
// timestamp steps back are not merged.
func TestMirrorResends(t *testing.T) {
	const rel = "pcap-roce/rc-send-two-qps-oferby-proxy.pcap"
	a1, b1 := tapCopy{head: erspan2Index1}, tapCopy{head: erspan2Index2}
	resend := func(c tapCopy, d time.Duration) tapCopy { c.after = d; return c }
	one, plain := mirrorCase(t, rel, 47, a1, resend(a1, 4*time.Microsecond))
	if one.MirrorCopies != 0 || one.RoCEPackets != 2*plain.RoCEPackets || retransmitted(one) == 0 {
		t.Fatalf("one tap, resent after 4 us: copies %d RoCE %d retransmitted %d", one.MirrorCopies, one.RoCEPackets, retransmitted(one))
	}
	if !strings.Contains(strings.Join(one.Notes, "\n"), "every ERSPAN packet came from one tap") {
		t.Errorf("notes %q", one.Notes)
	}
	for _, copies := range [][]tapCopy{
		{a1, resend(b1, 3*time.Microsecond), resend(a1, 4*time.Microsecond), resend(b1, 7*time.Microsecond)},
		{a1, resend(a1, 4*time.Microsecond), resend(b1, 5*time.Microsecond), resend(b1, 9*time.Microsecond)},
	} {
		a, _ := mirrorCase(t, rel, 47, copies...)
		if a.MirrorCopies != 2*plain.RoCEPackets || a.RoCEPackets != 2*plain.RoCEPackets || retransmitted(a) != retransmitted(one) {
			t.Errorf("%+v: copies %d RoCE %d retransmitted %d, want %d %d %d", copies, a.MirrorCopies, a.RoCEPackets, retransmitted(a), 2*plain.RoCEPackets, 2*plain.RoCEPackets, retransmitted(one))
		}
	}
	back, _ := mirrorCase(t, rel, 47, a1, resend(b1, -time.Microsecond))
	if back.MirrorCopies != 0 || back.RoCEPackets != 2*plain.RoCEPackets {
		t.Errorf("copies a step back: copies %d RoCE %d", back.MirrorCopies, back.RoCEPackets)
	}
}

// A switch marks CE at egress: the egress tap's copy can carry the only
// mark. Left out as a copy, its mark is still counted.
func TestMirrorCopyCE(t *testing.T) {
	const rel = "pcap-roce/rc-send-two-qps-oferby-proxy.pcap"
	a, plain := mirrorCase(t, rel, 47, tapCopy{head: erspan3Ingress}, tapCopy{head: erspan3Egress, after: 3 * time.Microsecond, ce: true})
	for i, fl := range a.Flows {
		if p := plain.Flows[i]; fl.CE != p.Packets || p.CE != 0 {
			t.Errorf("flow %d: CE %d, want its %d packets", i, fl.CE, p.Packets)
		}
	}
	if !strings.Contains(strings.Join(a.Notes, "\n"), "CE marks only on the copy were counted") {
		t.Errorf("notes %q", a.Notes)
	}
}

// GRE bridging Ethernet and VXLAN carry no mirror copies: a packet twice,
// even from two sources 1 us apart, is sent twice.
func TestNoMirrorCopiesOutsideERSPAN(t *testing.T) {
	const rel = "pcap-roce/rc-send-two-qps-oferby-proxy.pcap"
	for _, tc := range tunnelHeads {
		if strings.HasPrefix(tc.name, "erspan") {
			continue
		}
		a, plain := mirrorCase(t, rel, tc.proto, tapCopy{head: tc.head}, tapCopy{head: tc.head, src: 2, after: time.Microsecond})
		if a.MirrorCopies != 0 || a.RoCEPackets != 2*plain.RoCEPackets || retransmitted(a) == 0 {
			t.Errorf("%s: copies %d RoCE %d retransmitted %d", tc.name, a.MirrorCopies, a.RoCEPackets, retransmitted(a))
		}
	}
}

// An ERSPAN header's T bit says the mirror cut the frame (longer than the
// session's MTU or its set length), not the capture's snaplen: the note
// says which. A SYNTHETIC 1 KiB RDMA WRITE, cut to 200 bytes inside
// ERSPAN II with and without the T bit.
func TestMirrorTruncatedNote(t *testing.T) {
	var b wire.Builder
	e := wire.Endpoints{SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"), SrcPort: 0xc000}
	tr := wire.Transport{BTH: wire.BTH{Opcode: roce.OpWriteOnly, PKey: 0xffff, DestQP: 0x11},
		ExtHeaders: wire.ExtHeaders{RETH: wire.RETH{DMALength: 1024}}, PayloadLen: 1024}
	frame, _, err := b.RoCE(&e, &tr, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ head, want, not string }{
		{"100088be0000002a" + "1001" + "0400" + "00000001", "1 RoCE packet was cut short by the mirror session (ERSPAN T bit)", "snaplen"},
		{"100088be0000002a" + "1001" + "0000" + "00000001", "1 RoCE packet was cut short by the snaplen", "mirror session ("},
	} {
		a, err := Analyze("cut", onePacket(wrap(t, 47, tc.head, frame[:200], 0)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(a.Notes, "\n")
		if a.TruncatedPackets != 1 || !strings.Contains(notes, tc.want) || strings.Contains(notes, tc.not) {
			t.Errorf("%s: truncated %d, notes %q", tc.head, a.TruncatedPackets, a.Notes)
		}
	}
}

// Each new tap (outer source, session, ERSPAN II index, direction) is
// numbered and remembered: a crafted capture bringing a new index with
// every packet must not grow that memory without bound. Past maxTaps taps
// packets are counted as sent and a note says further taps were not told
// apart. SYNTHETIC frames.
func TestMirrorTapsBounded(t *testing.T) {
	var a Analysis
	f := wire.Frame{Tunnel: wire.TunnelERSPAN2}
	for i := range maxTaps + 100 {
		f.Tap.Index = uint32(i)
		f.BTH.PSN = uint32(i)
		if isCopy, _ := a.mirrorCopy(&f, false); isCopy {
			t.Fatalf("packet %d counted as a copy", i)
		}
	}
	if len(a.taps) != maxTaps || a.pastTaps != 100 {
		t.Errorf("taps %d past %d, want %d and 100", len(a.taps), a.pastTaps, maxTaps)
	}
	if !strings.Contains(strings.Join(a.notes(), "\n"), "further taps were not told apart") {
		t.Errorf("notes %q", a.notes())
	}
}

// Real overlay captures from the tcpdump test suite: Geneve carrying
// Ethernet (with options), Geneve as Google Cloud sends it (40 bytes of
// options, an IPv4 packet without Ethernet), VXLAN on Linux's port 8472.
// Every packet is read from inside its tunnel (they read as outer UDP
// before), and tshark finds as many Geneve packets; only the bare IP
// packet is counted as given an assumed Ethernet header.
func TestRealTunnelCaptures(t *testing.T) {
	for _, c := range []struct {
		rel, tunnel string
		other       map[string]int64
		bareIP      int64
	}{
		{"pcap-tunnel/geneve.pcap", "Geneve", map[string]int64{"IPv4": 39}, 0},
		{"pcap-tunnel/geneve-gcp.pcap", "Geneve", map[string]int64{"IPv4": 1}, 1},
		{"pcap-tunnel/vxlan_port_8472.pcap", "VXLAN", map[string]int64{"IPv4": 8, "ARP": 2}, 0},
	} {
		a := analyzeCorpus(t, c.rel)
		if a.DecodeErrors != 0 || a.Tunneled[c.tunnel] != a.Packets || !reflect.DeepEqual(a.Other, c.other) || a.LinkHeaderAssumed != c.bareIP {
			t.Errorf("%s: %d packets, errors %d, tunneled %v, other %v (want %v), link header assumed %d (want %d)",
				c.rel, a.Packets, a.DecodeErrors, a.Tunneled, a.Other, c.other, a.LinkHeaderAssumed, c.bareIP)
		}
		if _, err := tshark.Path(); err != nil || c.tunnel != "Geneve" {
			continue
		}
		rows, err := tshark.Fields("../../testdata/corpus/"+c.rel, "geneve.vni")
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(rows)) != a.Tunneled["Geneve"] {
			t.Errorf("%s: tshark finds %d Geneve packets, we %d", c.rel, len(rows), a.Tunneled["Geneve"])
		}
	}
}
