package wire

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"rocelab/internal/wire/tshark"
)

// oracleFields are the tshark fields the decoders must agree on.
var oracleFields = []string{
	"infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.bth.destqp", "infiniband.bth.a",
	"infiniband.bth.p_key", "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.reth.dmalen",
	"macc.opcode", "macc.cbfc.enbv",
	"macc.cbfc.pause_time.c0", "macc.cbfc.pause_time.c1", "macc.cbfc.pause_time.c2", "macc.cbfc.pause_time.c3",
	"macc.cbfc.pause_time.c4", "macc.cbfc.pause_time.c5", "macc.cbfc.pause_time.c6", "macc.cbfc.pause_time.c7",
	"macc.pause_time",
}

// oracleTransports covers every opcode family: RC SEND/WRITE/READ/ACK/
// atomics/invalidate, UC SEND/WRITE, UD SEND ONLY, the CNP, and an ACK of
// every syndrome class.
func oracleTransports() []Transport {
	var ts []Transport
	add := func(op Opcode, syn uint8, payload int) {
		i := len(ts)
		t := Transport{
			BTH: BTH{Opcode: op, PKey: uint16(0xffff - i), DestQP: uint32(0xffffff - 977*i), AckReq: i%2 == 0,
				PSN: uint32(0xfffff0+i*131) & 0xffffff, SolicitedEvent: i%3 == 0},
			PayloadLen: payload,
		}
		t.ExtHeaders = ExtHeaders{
			RETH:         RETH{VA: 0x7f0000000000 + uint64(i)<<12, RKey: uint32(0x100 + i), DMALength: uint32(1 << (i % 24))},
			AETH:         AETH{Syndrome: syn, MSN: uint32(0xfffff0+i) & 0xffffff},
			AtomicETH:    AtomicETH{VA: uint64(i) << 3, RKey: 1, SwapAddData: uint64(i), CompareData: ^uint64(i)},
			AtomicAckETH: AtomicAckETH{OrigRemoteData: uint64(i)},
			ImmDt:        ImmDt{Data: uint32(i) * 0x01010101},
			IETH:         IETH{RKey: uint32(i)},
			DETH:         DETH{QKey: 0x80010000, SrcQP: uint32(i)},
		}
		if op == OpCNP {
			t.BTH.PKey, t.BTH.PSN, t.BTH.AckReq, t.BTH.BECN = 0xffff, 0, false, true
		}
		ts = append(ts, t)
	}
	for _, tr := range []Opcode{TransportRC, TransportUC} {
		for op := OpSendFirst; op <= OpWriteOnlyImm; op++ {
			add(tr|op, 0, 1+int(op)*97)
		}
	}
	add(OpReadRequest, 0, 0)
	add(OpReadResponseFirst, 0x1f, 1024)
	add(OpReadResponseMiddle, 0, 1024)
	add(OpReadResponseLast, 0x1f, 333)
	add(OpReadResponseOnly, 0x1f, 8)
	for _, syn := range []uint8{0x00, 0x0a, 0x1f, 0x20, 0x2e, 0x3f, 0x60, 0x61, 0x62, 0x63, 0x64} {
		add(OpAcknowledge, syn, 0)
	}
	add(OpAtomicAcknowledge, 0x1f, 0)
	add(OpCompareSwap, 0, 0)
	add(OpFetchAdd, 0, 0)
	add(OpSendLastInv, 0, 77)
	add(OpSendOnlyInv, 0, 4)
	add(OpUDSendOnly, 0, 256)
	add(OpUDSendOnlyImm, 0, 255)
	add(OpCNP, 0, 0)
	return ts
}

type pfcCase struct {
	pause  bool
	enable uint16
	quanta [8]uint16
	pauseQ uint16
}

func oraclePFC() []pfcCase {
	return []pfcCase{
		{enable: 0x08, quanta: [8]uint16{3: 0xffff}},
		{enable: 0x08, quanta: [8]uint16{3: 0}},
		{enable: 0x01, quanta: [8]uint16{0: 1}},
		{enable: 0x88, quanta: [8]uint16{3: 0x1234, 7: 0x10}},
		{enable: 0xff, quanta: [8]uint16{1, 2, 3, 4, 5, 6, 7, 0xffff}},
		{enable: 0x00},
		{enable: 0x10, quanta: [8]uint16{4: 394}},
		{pause: true, pauseQ: 0xffff},
		{pause: true, pauseQ: 0},
		{pause: true, pauseQ: 1},
	}
}

// oracleCapture writes every vector, over IPv4 and IPv6, with and without
// VLAN, with and without FCS, whole and cut to 100 bytes, and returns the
// expected field values per packet (as tshark prints them, numerically).
func oracleCapture(t *testing.T, path string, ng bool) [][]uint64 {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var write func(ci gopacket.CaptureInfo, data []byte) error
	if ng {
		w, err := pcapgo.NewNgWriter(f, layers.LinkTypeEthernet)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Flush()
		write = w.WritePacket
	} else {
		w := pcapgo.NewWriterNanos(f)
		if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
			t.Fatal(err)
		}
		write = w.WritePacket
	}
	var (
		b    Builder
		want [][]uint64
		ts   = time.Unix(1700000000, 0)
	)
	emit := func(frame []byte, wireLen int, exp []uint64) {
		ts = ts.Add(1234 * time.Nanosecond)
		if err := write(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(frame), Length: wireLen}, frame); err != nil {
			t.Fatal(err)
		}
		want = append(want, exp)
	}
	const none = ^uint64(0)
	for _, tr := range oracleTransports() {
		for variant := 0; variant < 16; variant++ {
			v4, vlan, fcs, snap := variant&1 == 0, variant&2 != 0, variant&4 != 0, 0
			if variant&8 != 0 {
				snap = 100
			}
			b.FCS = fcs
			e := testEndpoints(v4, vlan)
			frame, wireLen, err := b.RoCE(&e, &tr, snap)
			if err != nil {
				t.Fatal(err)
			}
			exp := make([]uint64, len(oracleFields))
			for i := range exp {
				exp[i] = none
			}
			hs := tr.BTH.Opcode.Headers()
			exp[0], exp[1], exp[2], exp[3], exp[4] = uint64(tr.BTH.Opcode), uint64(tr.BTH.PSN), uint64(tr.BTH.DestQP), b2u(tr.BTH.AckReq), uint64(tr.BTH.PKey)
			if hs&HasAETH != 0 {
				exp[5], exp[6] = uint64(tr.AETH.Syndrome), uint64(tr.AETH.MSN)
			}
			if hs&HasRETH != 0 {
				exp[7] = uint64(tr.RETH.DMALength)
			}
			emit(frame, wireLen, exp)
		}
	}
	b.FCS = false
	for i, c := range oraclePFC() {
		for _, fcs := range []bool{false, true} {
			b.FCS = fcs
			src := [6]byte{2, 0, 0, 0, 1, byte(i)}
			exp := make([]uint64, len(oracleFields))
			for i := range exp {
				exp[i] = none
			}
			var frame []byte
			var wireLen int
			if c.pause {
				frame, wireLen = b.Pause(src, c.pauseQ, 0)
				exp[8], exp[18] = uint64(MACControlPause), uint64(c.pauseQ)
			} else {
				frame, wireLen = b.PFC(src, c.enable, c.quanta, 0)
				exp[8], exp[9] = uint64(MACControlPFC), uint64(c.enable)
				for p, q := range c.quanta {
					exp[10+p] = uint64(q)
				}
			}
			emit(frame, wireLen, exp)
		}
	}
	return want
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// columns lays decoded headers out as the oracle's columns; nil means
// absent.
func columns(bth *BTH, aeth *AETH, reth *RETH, m *MACControl) []uint64 {
	out := make([]uint64, len(oracleFields))
	for i := range out {
		out[i] = ^uint64(0)
	}
	if bth != nil {
		out[0], out[1], out[2], out[3], out[4] = uint64(bth.Opcode), uint64(bth.PSN), uint64(bth.DestQP), b2u(bth.AckReq), uint64(bth.PKey)
	}
	if aeth != nil {
		out[5], out[6] = uint64(aeth.Syndrome), uint64(aeth.MSN)
	}
	if reth != nil {
		out[7] = uint64(reth.DMALength)
	}
	if m != nil {
		out[8] = uint64(m.Opcode)
		if m.IsPFC() {
			out[9] = uint64(m.ClassEnable)
			for p, q := range m.Quanta {
				out[10+p] = uint64(q)
			}
		}
		if m.IsPause() {
			out[18] = uint64(m.PauseQuanta)
		}
	}
	return out
}

// ourFields decodes frame with Frame.Decode into the oracle's columns.
func ourFields(t *testing.T, f *Frame, frame []byte) []uint64 {
	if err := f.Decode(frame); err != nil {
		t.Errorf("decode: %v", err)
		return columns(nil, nil, nil, nil)
	}
	switch f.Kind {
	case FrameRoCE:
		var aeth *AETH
		var reth *RETH
		if f.Decoded&HasAETH != 0 {
			aeth = &f.AETH
		}
		if f.Decoded&HasRETH != 0 {
			reth = &f.RETH
		}
		return columns(&f.BTH, aeth, reth, nil)
	case FrameMACControl:
		return columns(nil, nil, nil, &f.MACControl)
	}
	return columns(nil, nil, nil, nil)
}

// parseTshark turns a tshark row into numbers ("" = absent).
func parseTshark(t *testing.T, row []string) []uint64 {
	out := make([]uint64, len(oracleFields))
	for i := range out {
		out[i] = ^uint64(0)
		if i >= len(row) || row[i] == "" {
			continue
		}
		switch row[i] {
		case "True":
			out[i] = 1
			continue
		case "False":
			out[i] = 0
			continue
		}
		v, err := strconv.ParseUint(row[i], 0, 64)
		if err != nil {
			t.Errorf("field %s: %q: %v", oracleFields[i], row[i], err)
		}
		out[i] = v
	}
	return out
}

// TestTsharkOracle writes every vector to a pcap and a pcapng and checks
// that tshark, Frame.Decode and gopacket.NewPacket agree with what was
// built on every field of every packet.
func TestTsharkOracle(t *testing.T) {
	tshark.Require(t)
	for _, ng := range []bool{false, true} {
		name := "vectors.pcap"
		if ng {
			name = "vectors.pcapng"
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			want := oracleCapture(t, path, ng)
			rows, err := tshark.Fields(path, oracleFields...)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(want) {
				t.Fatalf("tshark printed %d rows for %d packets", len(rows), len(want))
			}
			frames := readFrames(t, path)
			var f Frame
			agree := 0
			for i := range want {
				ts, ours := parseTshark(t, rows[i]), ourFields(t, &f, frames[i])
				viaGopacket := gopacketFields(frames[i])
				ok := true
				for j := range want[i] {
					if ts[j] != want[i][j] || ours[j] != want[i][j] || viaGopacket[j] != want[i][j] {
						ok = false
						t.Errorf("packet %d field %s: built %s, tshark %s, Frame.Decode %s, gopacket %s",
							i+1, oracleFields[j], show(want[i][j]), show(ts[j]), show(ours[j]), show(viaGopacket[j]))
					}
				}
				if ok {
					agree++
				}
			}
			t.Logf("%s: %d/%d packets agree on all %d fields (%.1f%%)", name, agree, len(want), len(oracleFields), 100*float64(agree)/float64(len(want)))
		})
	}
}

func show(v uint64) string {
	if v == ^uint64(0) {
		return "absent"
	}
	return fmt.Sprint(v)
}

func readFrames(t *testing.T, path string) [][]byte {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var src gopacket.PacketDataSource
	if filepath.Ext(path) == ".pcapng" {
		r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			t.Fatal(err)
		}
		src = r
	} else {
		r, err := pcapgo.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		src = r
	}
	var out [][]byte
	for {
		data, _, err := src.ReadPacketData()
		if err != nil {
			break
		}
		out = append(out, data)
	}
	return out
}

// gopacketFields decodes frame through gopacket.NewPacket and the
// registered layers. Truncated frames are cut inside the payload or after
// the ICRC position, so only the headers are compared there.
func gopacketFields(frame []byte) []uint64 {
	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	bth, _ := p.Layer(LayerTypeBTH).(*BTH)
	aeth, _ := p.Layer(LayerTypeAETH).(*AETH)
	reth, _ := p.Layer(LayerTypeRETH).(*RETH)
	m, _ := p.Layer(LayerTypeMACControl).(*MACControl)
	return columns(bth, aeth, reth, m)
}
