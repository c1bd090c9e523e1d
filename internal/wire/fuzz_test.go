package wire

import (
	"reflect"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"rocelab/internal/roce"
)

// fuzzLayer checks that a decoder never panics, and that whatever it
// accepts serializes to bytes that decode to the same fields.
func fuzzLayer(f *testing.F, name string, newLayer func() gopacket.DecodingLayer) {
	for _, c := range layerCases {
		if c.name == name {
			f.Add(unhex(f, c.hex))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := newLayer()
		if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return
		}
		buf := gopacket.NewSerializeBuffer()
		if err := l.(gopacket.SerializableLayer).SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
			t.Fatal(err)
		}
		again := newLayer()
		if err := again.DecodeFromBytes(buf.Bytes(), gopacket.NilDecodeFeedback); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if a, b := fields(l), fields(again); !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed fields:\n%v\n%v", a, b)
		}
	})
}

func FuzzBTH(f *testing.F) {
	fuzzLayer(f, "BTH", func() gopacket.DecodingLayer { return &BTH{} })
}

func FuzzRETH(f *testing.F) {
	fuzzLayer(f, "RETH", func() gopacket.DecodingLayer { return &RETH{} })
}

func FuzzAETH(f *testing.F) {
	fuzzLayer(f, "AETH", func() gopacket.DecodingLayer { return &AETH{} })
}

func FuzzImmDt(f *testing.F) {
	fuzzLayer(f, "ImmDt", func() gopacket.DecodingLayer { return &ImmDt{} })
}

func FuzzIETH(f *testing.F) {
	fuzzLayer(f, "IETH", func() gopacket.DecodingLayer { return &IETH{} })
}

func FuzzDETH(f *testing.F) {
	fuzzLayer(f, "DETH", func() gopacket.DecodingLayer { return &DETH{} })
}

func FuzzAtomicETH(f *testing.F) {
	fuzzLayer(f, "AtomicETH", func() gopacket.DecodingLayer { return &AtomicETH{} })
}

func FuzzAtomicAckETH(f *testing.F) {
	fuzzLayer(f, "AtomicAckETH", func() gopacket.DecodingLayer { return &AtomicAckETH{} })
}

func FuzzCNP(f *testing.F) {
	fuzzLayer(f, "CNP", func() gopacket.DecodingLayer { return &CNP{} })
}

func FuzzMACControl(f *testing.F) {
	fuzzLayer(f, "PFC", func() gopacket.DecodingLayer { return &MACControl{} })
}

// FuzzFrame feeds whole frames to Frame.Decode and to gopacket.NewPacket
// with the registered layers. Invariants: no panic; a RoCE frame's
// payload length plus its headers equals the UDP length; the captured
// extension headers are a subset of those the opcode calls for; a frame
// outside a tunnel has no tap.
func FuzzFrame(f *testing.F) {
	var b Builder
	for i, tr := range OracleTransports() {
		e := testEndpoints(i%2 == 0, i%3 == 0)
		frame, _, _ := b.RoCE(&e, &tr, 0)
		f.Add(append([]byte(nil), frame...))
	}
	frame, _ := b.PFC([6]byte{2}, 8, [8]uint16{3: 9}, 0)
	f.Add(append([]byte(nil), frame...))
	for _, tc := range tunnelCases {
		for _, inner := range tunnelInners(f) {
			frame, _ := tunneled(f, tc.outer6, tc.head, inner)
			f.Add(frame)
		}
	}
	for _, tc := range overlayCases {
		inner := tunnelInners(f)[0]
		if tc.ip {
			inner = inner[EthernetLen:]
		}
		f.Add(udpTunneled(f, tc.port, tc.head, inner))
	}
	var fr Frame
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
		err := fr.Decode(data)
		if fr.Tunnel == TunnelNone && (fr.Tap != Tap{} || fr.MirrorTruncated) {
			t.Fatalf("tap %+v, mirror-truncated %v without a tunnel", fr.Tap, fr.MirrorTruncated)
		}
		if err != nil || fr.Kind != FrameRoCE {
			return
		}
		hs := fr.BTH.Opcode.Headers()
		if fr.Decoded&^hs != 0 {
			t.Fatalf("decoded headers %b not in opcode's %b", fr.Decoded, hs)
		}
		if hs&roce.Known != 0 && UDPLen+roce.BTHLen+hs.Len()+fr.PayloadLen+int(fr.BTH.PadCount)+ICRCLen != fr.UDPLength {
			t.Fatalf("lengths do not add up: payload %d, UDP %d", fr.PayloadLen, fr.UDPLength)
		}
		if fr.WireLen() < fr.L2Len+fr.UDPLength {
			t.Fatalf("wire length %d shorter than L2 %d + UDP %d", fr.WireLen(), fr.L2Len, fr.UDPLength)
		}
	})
}
