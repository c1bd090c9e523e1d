package wire

import (
	"encoding/hex"
	"reflect"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"rocelab/internal/roce"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// layerCase is a hand-assembled header (from the diagrams in the IBTA
// spec and IEEE 802.1Qbb) and the fields it must decode to.
type layerCase struct {
	name string
	hex  string
	new  func() gopacket.DecodingLayer
	want gopacket.DecodingLayer // compared field by field, BaseLayer and bth ignored
}

var layerCases = []layerCase{
	{"BTH", "0a a0 ffff 80 000123 80 00004d  aabbccdd 0000 78563412", func() gopacket.DecodingLayer { return &BTH{} },
		&BTH{Opcode: roce.OpWriteOnly, SolicitedEvent: true, PadCount: 2, PKey: 0xffff, FECN: true, DestQP: 0x123, AckReq: true, PSN: 0x4d, ICRC: 0x12345678}},
	{"RETH", "0000 7f00 dead b000 1234 5678 0010 0000", func() gopacket.DecodingLayer { return &RETH{} },
		&RETH{VA: 0x00007f00deadb000, RKey: 0x12345678, DMALength: 1 << 20}},
	{"AETH", "60 00002a", func() gopacket.DecodingLayer { return &AETH{} }, &AETH{Syndrome: roce.SyndromePSNSequenceError, MSN: 42}},
	{"ImmDt", "cafe f00d", func() gopacket.DecodingLayer { return &ImmDt{} }, &ImmDt{Data: 0xcafef00d}},
	{"IETH", "0000 1234", func() gopacket.DecodingLayer { return &IETH{} }, &IETH{RKey: 0x1234}},
	{"DETH", "8001 0000 00 000001", func() gopacket.DecodingLayer { return &DETH{} }, &DETH{QKey: 0x80010000, SrcQP: 1}},
	{"AtomicETH", "0000 0000 0000 1000 0000 0007 0000 0000 0000 0001 ffff ffff ffff ffff", func() gopacket.DecodingLayer { return &AtomicETH{} },
		&AtomicETH{VA: 0x1000, RKey: 7, SwapAddData: 1, CompareData: ^uint64(0)}},
	{"AtomicAckETH", "0000 0000 0000 0005", func() gopacket.DecodingLayer { return &AtomicAckETH{} }, &AtomicAckETH{OrigRemoteData: 5}},
	{"CNP", "0000 0000 0000 0000 0000 0000 0000 0000", func() gopacket.DecodingLayer { return &CNP{} }, &CNP{}},
	{"PFC", "0101 0088 0000 0000 0000 ffff 0000 0000 0000 0010", func() gopacket.DecodingLayer { return &MACControl{} },
		&MACControl{Opcode: MACControlPFC, ClassEnable: 0x88, Quanta: [8]uint16{3: 0xffff, 7: 0x10}}},
	{"PAUSE", "0001 0200", func() gopacket.DecodingLayer { return &MACControl{} }, &MACControl{Opcode: MACControlPause, PauseQuanta: 0x200}},
}

// fields returns the struct without its BaseLayer and BTH link, for
// comparison.
func fields(l gopacket.DecodingLayer) map[string]any {
	v := reflect.ValueOf(l).Elem()
	m := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		if f := v.Type().Field(i); f.IsExported() && f.Name != "BaseLayer" {
			m[f.Name] = v.Field(i).Interface()
		}
	}
	return m
}

func TestLayerHexVectors(t *testing.T) {
	for _, c := range layerCases {
		t.Run(c.name, func(t *testing.T) {
			data := unhex(t, c.hex)
			l := c.new()
			if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
				t.Fatal(err)
			}
			if got, want := fields(l), fields(c.want); !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded\n got %+v\nwant %+v", got, want)
			}
			if l.CanDecode() != l.(gopacket.Layer).LayerType() {
				t.Errorf("CanDecode %v != LayerType", l.CanDecode())
			}
			// Every header except the BTH (which owns pad and ICRC) and
			// MAC control (which pads) serializes back to the same bytes.
			buf := gopacket.NewSerializeBuffer()
			if err := l.(gopacket.SerializableLayer).SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
				t.Fatal(err)
			}
			out := buf.Bytes()
			if c.name == "PFC" || c.name == "PAUSE" {
				if len(out) != MACControlMinLen {
					t.Errorf("MAC control body %d bytes, want %d", len(out), MACControlMinLen)
				}
				out = out[:len(data)]
			}
			if c.name != "BTH" && hex.EncodeToString(out) != hex.EncodeToString(data) {
				t.Errorf("serialized %x, want %x", out, data)
			}
		})
	}
}

func TestLayerTruncated(t *testing.T) {
	for _, c := range layerCases {
		data := unhex(t, c.hex)
		min := len(data)
		switch c.name {
		case "BTH":
			min = roce.BTHLen
		case "PFC":
			min = PFCLen
		}
		l := c.new()
		if err := l.DecodeFromBytes(data[:min-1], gopacket.NilDecodeFeedback); err == nil {
			t.Errorf("%s: decoded %d of %d bytes without error", c.name, min-1, min)
		}
	}
}

func TestBTHSerializeRoundTrip(t *testing.T) {
	b := &BTH{Opcode: roce.OpSendOnly, PKey: 0xffff, DestQP: 0xabcdef, AckReq: true, PSN: 0xffffff, MigReq: true}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true}
	if err := gopacket.SerializeLayers(buf, opts, b, gopacket.Payload([]byte{1, 2, 3, 4, 5})); err != nil {
		t.Fatal(err)
	}
	if got := len(buf.Bytes()); got != roce.BTHLen+5+3+ICRCLen {
		t.Fatalf("length %d, want BTH+5+pad 3+ICRC", got)
	}
	var d BTH
	if err := d.DecodeFromBytes(buf.Bytes(), gopacket.NilDecodeFeedback); err != nil {
		t.Fatal(err)
	}
	if d.PadCount != 3 || string(d.Payload) != "\x01\x02\x03\x04\x05" || d.PSN != 0xffffff || d.DestQP != 0xabcdef || !d.MigReq {
		t.Fatalf("round trip: %+v payload %x", d, d.Payload)
	}
}

// roundTrip serializes a whole RoCE stack through gopacket, decodes it with
// gopacket.NewPacket (UDP port registration) and returns the packet.
func roundTrip(t *testing.T, ls ...gopacket.SerializableLayer) gopacket.Packet {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: []byte{2, 0, 0, 0, 0, 1}, DstMAC: []byte{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{10, 0, 0, 2}, TOS: TOS(26, ECT0)}
	udp := &layers.UDP{SrcPort: 50000, DstPort: UDPPort}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	all := append([]gopacket.SerializableLayer{eth, ip, udp}, ls...)
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, all...); err != nil {
		t.Fatal(err)
	}
	p := gopacket.NewPacket(buf.Bytes(), layers.LayerTypeEthernet, gopacket.Default)
	if el := p.ErrorLayer(); el != nil {
		t.Fatalf("decode error: %v", el.Error())
	}
	return p
}

func TestNewPacketRoundTrip(t *testing.T) {
	t.Run("WRITE ONLY with immediate", func(t *testing.T) {
		p := roundTrip(t, &BTH{Opcode: roce.OpWriteOnlyImm, PSN: 9, DestQP: 7}, &RETH{VA: 1, RKey: 2, DMALength: 6},
			&ImmDt{Data: 0xabcd}, gopacket.Payload("abcdef"))
		want := []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP,
			LayerTypeBTH, LayerTypeRETH, LayerTypeImmDt, gopacket.LayerTypePayload}
		assertLayers(t, p, want)
		if r := p.Layer(LayerTypeRETH).(*RETH); r.DMALength != 6 || r.RKey != 2 {
			t.Errorf("RETH %+v", r)
		}
		if i := p.Layer(LayerTypeImmDt).(*ImmDt); i.Data != 0xabcd {
			t.Errorf("ImmDt %+v", i)
		}
		if pl := p.ApplicationLayer(); pl == nil || string(pl.Payload()) != "abcdef" {
			t.Errorf("payload %v (pad and ICRC must be stripped)", pl)
		}
	})
	t.Run("ATOMIC ACKNOWLEDGE", func(t *testing.T) {
		p := roundTrip(t, &BTH{Opcode: roce.OpAtomicAcknowledge, PSN: 3}, &AETH{Syndrome: roce.SyndromeACKUnlimited, MSN: 4},
			&AtomicAckETH{OrigRemoteData: 99})
		assertLayers(t, p, []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP,
			LayerTypeBTH, LayerTypeAETH, LayerTypeAtomicAckETH})
		if a := p.Layer(LayerTypeAtomicAckETH).(*AtomicAckETH); a.OrigRemoteData != 99 {
			t.Errorf("AtomicAckETH %+v", a)
		}
	})
	t.Run("UD SEND ONLY with immediate", func(t *testing.T) {
		p := roundTrip(t, &BTH{Opcode: roce.OpUDSendOnlyImm, DestQP: 1}, &DETH{QKey: 0x80010000, SrcQP: 0x55}, &ImmDt{Data: 1}, gopacket.Payload("x"))
		assertLayers(t, p, []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP,
			LayerTypeBTH, LayerTypeDETH, LayerTypeImmDt, gopacket.LayerTypePayload})
	})
	t.Run("CNP", func(t *testing.T) {
		p := roundTrip(t, &BTH{Opcode: roce.OpCNP, DestQP: 0x11, BECN: true}, &CNP{})
		assertLayers(t, p, []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, LayerTypeBTH, LayerTypeCNP})
	})
	t.Run("PFC", func(t *testing.T) {
		eth := &layers.Ethernet{SrcMAC: []byte{2, 0, 0, 0, 0, 1}, DstMAC: MACControlDst[:], EthernetType: EtherTypeMACControl}
		buf := gopacket.NewSerializeBuffer()
		m := &MACControl{Opcode: MACControlPFC, ClassEnable: 0x08, Quanta: [8]uint16{3: 0xffff}}
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, eth, m); err != nil {
			t.Fatal(err)
		}
		p := gopacket.NewPacket(buf.Bytes(), layers.LayerTypeEthernet, gopacket.Default)
		assertLayers(t, p, []gopacket.LayerType{layers.LayerTypeEthernet, LayerTypeMACControl})
		if got := p.Layer(LayerTypeMACControl).(*MACControl); got.Quanta != m.Quanta || got.ClassEnable != 8 {
			t.Errorf("PFC %+v", got)
		}
	})
}

func assertLayers(t *testing.T, p gopacket.Packet, want []gopacket.LayerType) {
	t.Helper()
	var got []gopacket.LayerType
	for _, l := range p.Layers() {
		got = append(got, l.LayerType())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("layers %v, want %v", got, want)
	}
}

func TestDecodingLayerParser(t *testing.T) {
	var b Builder
	e := testEndpoints(true, false)
	tr := Transport{BTH: BTH{Opcode: roce.OpWriteOnlyImm, PSN: 5, DestQP: 9}, ExtHeaders: ExtHeaders{RETH: RETH{DMALength: 100}, ImmDt: ImmDt{Data: 7}}, PayloadLen: 100}
	frame, _, err := b.RoCE(&e, &tr, 0)
	if err != nil {
		t.Fatal(err)
	}
	var (
		eth  layers.Ethernet
		ip4  layers.IPv4
		ip6  layers.IPv6
		udp  layers.UDP
		dotq layers.Dot1Q
	)
	bth, roce := NewDecodingLayers()
	p := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, append([]gopacket.DecodingLayer{&eth, &dotq, &ip4, &ip6, &udp}, roce...)...)
	p.IgnoreUnsupported = true
	var decoded []gopacket.LayerType
	if err := p.DecodeLayers(frame, &decoded); err != nil {
		t.Fatal(err)
	}
	want := []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, LayerTypeBTH, LayerTypeRETH, LayerTypeImmDt}
	if !reflect.DeepEqual(decoded, want) {
		t.Fatalf("decoded %v, want %v", decoded, want)
	}
	if bth.PSN != 5 || bth.DestQP != 9 {
		t.Errorf("BTH %+v", bth)
	}
	for _, l := range roce {
		if i, ok := l.(*ImmDt); ok && i.Data != 7 {
			t.Errorf("ImmDt %+v", i)
		}
	}
	if got := ICRC(frame, EthernetLen); got != bth.ICRC {
		t.Errorf("ICRC %08x, trailer %08x", got, bth.ICRC)
	}
}

func BenchmarkDecodeLayer(b *testing.B) {
	for _, c := range layerCases {
		data := unhex(b, c.hex)
		l := c.new()
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSerializeLayer(b *testing.B) {
	buf := gopacket.NewSerializeBuffer()
	for _, c := range layerCases {
		s := c.want.(gopacket.SerializableLayer)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = buf.Clear()
				if err := s.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
