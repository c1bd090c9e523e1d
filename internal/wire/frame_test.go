package wire

import (
	"errors"
	"net/netip"
	"testing"

	"rocelab/internal/roce"
)

func testEndpoints(v4, vlan bool) Endpoints {
	e := Endpoints{
		SrcMAC: [6]byte{0x02, 0, 0, 0, 0, 0x01}, DstMAC: [6]byte{0x02, 0, 0, 0, 0, 0x02},
		SrcIP: netip.MustParseAddr("192.168.1.1"), DstIP: netip.MustParseAddr("192.168.1.2"),
		SrcPort: 0xc000, DSCP: 26, ECN: ECT0,
	}
	if !v4 {
		e.SrcIP, e.DstIP = netip.MustParseAddr("fd00::1"), netip.MustParseAddr("fd00::2")
		e.FlowLabel = 0x12345
	}
	if vlan {
		e.VLAN, e.VLANID, e.PCP = true, 100, 3
	}
	return e
}

func TestFrameDecodeBuilt(t *testing.T) {
	var b Builder
	var f Frame
	for _, v4 := range []bool{true, false} {
		for _, vlan := range []bool{false, true} {
			for _, fcs := range []bool{false, true} {
				b.FCS = fcs
				e := testEndpoints(v4, vlan)
				e.ECN = CE
				tr := Transport{BTH: BTH{Opcode: roce.OpWriteFirst, PKey: 0xffff, DestQP: 0xabc, PSN: 0xfffffe, AckReq: true},
					ExtHeaders: ExtHeaders{RETH: RETH{VA: 0x10, RKey: 0x20, DMALength: 4096}}, PayloadLen: 1021}
				frame, wireLen, err := b.RoCE(&e, &tr, 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(frame) != wireLen {
					t.Fatalf("captured %d of %d", len(frame), wireLen)
				}
				if err := f.Decode(frame); err != nil {
					t.Fatal(err)
				}
				l2 := 14
				if vlan {
					l2 = 18
				}
				ip := 20
				if !v4 {
					ip = 40
				}
				wantWire := l2 + ip + 8 + 12 + 16 + 1021 + 3 + 4
				if f.Kind != FrameRoCE || f.WireLen() != wantWire || f.PayloadLen != 1021 || f.BTH.PadCount != 3 {
					t.Fatalf("v4=%v vlan=%v fcs=%v: kind %v wire %d (want %d) payload %d pad %d", v4, vlan, fcs, f.Kind, f.WireLen(), wantWire, f.PayloadLen, f.BTH.PadCount)
				}
				if fcs && wireLen != wantWire+4 {
					t.Errorf("builder wire length %d, want %d with FCS", wireLen, wantWire+4)
				}
				if f.ECN() != CE || f.DSCP() != 26 || f.VLAN != vlan || (vlan && f.PCP != 3) || f.SrcIP != e.SrcIP || f.DstIP != e.DstIP {
					t.Errorf("IP fields: ecn %v dscp %d vlan %v pcp %d %v>%v", f.ECN(), f.DSCP(), f.VLAN, f.PCP, f.SrcIP, f.DstIP)
				}
				if f.Decoded != roce.HasRETH || f.RETH.DMALength != 4096 || f.BTH.PSN != 0xfffffe || f.BTH.NoTrailer {
					t.Errorf("RoCE fields: %+v %+v", f.BTH, f.RETH)
				}
				if got := ICRC(frame, l2); got != f.BTH.ICRC {
					t.Errorf("ICRC %08x, trailer %08x", got, f.BTH.ICRC)
				}
			}
		}
	}
}

// TestFrameDecodeSnaplen checks a header-only capture (tcpdump -s 100):
// lengths come from the IP and UDP headers, not from the captured bytes.
func TestFrameDecodeSnaplen(t *testing.T) {
	var b Builder
	var f Frame
	e := testEndpoints(false, true)
	tr := Transport{BTH: BTH{Opcode: roce.OpWriteOnlyImm, PSN: 1}, ExtHeaders: ExtHeaders{RETH: RETH{DMALength: 4096}, ImmDt: ImmDt{Data: 0x77}}, PayloadLen: 4096}
	frame, wireLen, err := b.RoCE(&e, &tr, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(frame) != 100 || wireLen != 18+40+8+12+16+4+4096+4 {
		t.Fatalf("captured %d, wire %d", len(frame), wireLen)
	}
	if err := f.Decode(frame); err != nil {
		t.Fatal(err)
	}
	if !f.Truncated || !f.BTH.NoTrailer || f.WireLen() != wireLen || f.PayloadLen != 4096 {
		t.Fatalf("truncated %v icrc %v wire %d payload %d", f.Truncated, !f.BTH.NoTrailer, f.WireLen(), f.PayloadLen)
	}
	if f.Decoded != roce.HasRETH|roce.HasImmDt || f.ImmDt.Data != 0x77 {
		t.Errorf("decoded %b imm %x", f.Decoded, f.ImmDt.Data)
	}
	// Cut inside the RETH: the BTH still decodes, the RETH is not claimed.
	if err := f.Decode(frame[:18+40+8+12+8]); err != nil {
		t.Fatal(err)
	}
	if f.Decoded != 0 || f.BTH.PSN != 1 {
		t.Errorf("decoded %b", f.Decoded)
	}
}

func TestFrameDecodeErrors(t *testing.T) {
	var b Builder
	var f Frame
	e := testEndpoints(true, false)
	tr := Transport{BTH: BTH{Opcode: roce.OpAcknowledge}, ExtHeaders: ExtHeaders{AETH: AETH{Syndrome: roce.SyndromeACKUnlimited}}}
	frame, _, _ := b.RoCE(&e, &tr, 0)
	good := append([]byte(nil), frame...)
	cases := map[string]func(p []byte) []byte{
		"short ethernet": func(p []byte) []byte { return p[:10] },
		"short IPv4":     func(p []byte) []byte { return p[:20] },
		"bad version":    func(p []byte) []byte { p[14] = 0x55; return p },
		"UDP too long":   func(p []byte) []byte { p[14+20+4], p[14+20+5] = 0x10, 0; return p },
		"UDP too short for opcode": func(p []byte) []byte {
			p[14+20+5] = 8 + 12 + 4 // no room for the AETH
			return p
		},
		"short BTH": func(p []byte) []byte { return p[:14+20+8+6] },
	}
	for name, mangle := range cases {
		p := mangle(append([]byte(nil), good...))
		err := f.Decode(p)
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: err %v, want *DecodeError", name, err)
		}
	}
	if err := f.Decode(good); err != nil || f.AETH.Syndrome != roce.SyndromeACKUnlimited {
		t.Fatalf("good frame: %v", err)
	}
}

func TestFrameNotRoCE(t *testing.T) {
	var b Builder
	var f Frame
	e := testEndpoints(true, false)
	frame, _, _ := b.RoCE(&e, &Transport{BTH: BTH{Opcode: roce.OpSendOnly}, PayloadLen: 8}, 0)
	frame[14+20+3] = 0xb8 // destination port 4792
	if err := f.Decode(frame); err != nil || f.Kind != FrameOther || f.IPVersion != 4 {
		t.Fatalf("kind %v err %v", f.Kind, err)
	}
}

func TestPauseDuration(t *testing.T) {
	if got := PauseDuration(1, 100e9); got != 5120 {
		t.Errorf("one quantum at 100G = %d ps, want 5120 (5.12 ns)", got)
	}
	if got := PauseDuration(0xffff, 100e9); got != 335539200 {
		t.Errorf("0xFFFF quanta at 100G = %d ps, want 335539200 (335.5 us)", got)
	}
	if got := PauseDuration(0xffff, 400e9); got != 83884800 {
		t.Errorf("0xFFFF quanta at 400G = %d ps, want 83884800 (83.9 us)", got)
	}
}

func TestBuilderAllocs(t *testing.T) {
	var b Builder
	var f Frame
	e := testEndpoints(false, true)
	tr := Transport{BTH: BTH{Opcode: roce.OpWriteOnly}, PayloadLen: 4096}
	if n := testing.AllocsPerRun(100, func() {
		frame, _, _ := b.RoCE(&e, &tr, 0)
		_ = f.Decode(frame)
		frame, _ = b.PFC(e.SrcMAC, 8, [8]uint16{3: 100}, 0)
		_ = f.Decode(frame)
	}); n != 0 {
		t.Errorf("%v allocations per build+decode, want 0", n)
	}
}

func BenchmarkFrameDecode(b *testing.B) {
	var bl Builder
	var f Frame
	e := testEndpoints(true, false)
	for _, c := range []struct {
		name string
		tr   Transport
		snap int
	}{
		{"write-4096", Transport{BTH: BTH{Opcode: roce.OpWriteMiddle}, PayloadLen: 4096}, 0},
		{"write-snap100", Transport{BTH: BTH{Opcode: roce.OpWriteFirst}, PayloadLen: 4096}, 100},
		{"ack", Transport{BTH: BTH{Opcode: roce.OpAcknowledge}}, 0},
	} {
		frame, _, _ := bl.RoCE(&e, &c.tr, c.snap)
		frame = append([]byte(nil), frame...)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f.Decode(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBuild(b *testing.B) {
	var bl Builder
	e := testEndpoints(true, true)
	tr := Transport{BTH: BTH{Opcode: roce.OpWriteMiddle}, PayloadLen: 4096}
	b.Run("roce-4096-icrc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tr.BTH.PSN++
			if _, _, err := bl.RoCE(&e, &tr, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("roce-4096-snap100-noicrc", func(b *testing.B) {
		bl.NoICRC = true
		defer func() { bl.NoICRC = false }()
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := bl.RoCE(&e, &tr, 100); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pfc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bl.PFC(e.SrcMAC, 8, [8]uint16{3: 0xffff}, 0)
		}
	})
}
