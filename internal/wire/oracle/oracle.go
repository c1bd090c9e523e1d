// Package oracle compares rocelab's RoCEv2 and PFC decoding with
// Wireshark's: it lays the header fields both decoders see out in the same
// columns, so that a test can hold tshark -T fields against Frame.Decode
// and gopacket for every packet of a capture.
package oracle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"rocelab/internal/roce"
	"rocelab/internal/wire"
	"rocelab/internal/wire/tshark"
)

// Fields are the tshark fields the decoders must agree on: BTH opcode,
// PSN, destination QP, ack-request and P_Key; AETH syndrome and MSN; RETH
// DMA length; the MAC control opcode, PFC class-enable vector and eight
// quanta, and the 802.3x pause time.
var Fields = []string{
	"infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.bth.destqp", "infiniband.bth.a",
	"infiniband.bth.p_key", "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.reth.dmalen",
	"macc.opcode", "macc.cbfc.enbv",
	"macc.cbfc.pause_time.c0", "macc.cbfc.pause_time.c1", "macc.cbfc.pause_time.c2", "macc.cbfc.pause_time.c3",
	"macc.cbfc.pause_time.c4", "macc.cbfc.pause_time.c5", "macc.cbfc.pause_time.c6", "macc.cbfc.pause_time.c7",
	"macc.pause_time",
}

// Absent marks a field the packet does not carry.
const Absent = ^uint64(0)

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Columns lays decoded headers out in the order of Fields; a nil header's
// fields are Absent.
func Columns(bth *wire.BTH, aeth *wire.AETH, reth *wire.RETH, m *wire.MACControl) []uint64 {
	out := make([]uint64, len(Fields))
	for i := range out {
		out[i] = Absent
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

// Decode decodes frame with Frame.Decode into columns.
func Decode(f *wire.Frame, frame []byte) ([]uint64, error) {
	if err := f.Decode(frame); err != nil {
		return Columns(nil, nil, nil, nil), err
	}
	switch f.Kind {
	case wire.FrameRoCE:
		var aeth *wire.AETH
		var reth *wire.RETH
		if f.Decoded&roce.HasAETH != 0 {
			aeth = &f.AETH
		}
		if f.Decoded&roce.HasRETH != 0 {
			reth = &f.RETH
		}
		return Columns(&f.BTH, aeth, reth, nil), nil
	case wire.FrameMACControl:
		return Columns(nil, nil, nil, &f.MACControl), nil
	}
	return Columns(nil, nil, nil, nil), nil
}

// ViaGopacket decodes frame through gopacket.NewPacket and the registered
// layers into columns.
func ViaGopacket(frame []byte) []uint64 {
	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	bth, _ := p.Layer(wire.LayerTypeBTH).(*wire.BTH)
	aeth, _ := p.Layer(wire.LayerTypeAETH).(*wire.AETH)
	reth, _ := p.Layer(wire.LayerTypeRETH).(*wire.RETH)
	m, _ := p.Layer(wire.LayerTypeMACControl).(*wire.MACControl)
	return Columns(bth, aeth, reth, m)
}

// Parse turns a tshark row into columns ("" is Absent).
func Parse(row []string) ([]uint64, error) {
	out := make([]uint64, len(Fields))
	for i := range out {
		out[i] = Absent
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
			return out, fmt.Errorf("field %s: %q: %w", Fields[i], row[i], err)
		}
		out[i] = v
	}
	return out, nil
}

// Show formats a column value.
func Show(v uint64) string {
	if v == Absent {
		return "absent"
	}
	return fmt.Sprint(v)
}

// ReadFrames returns every frame of a pcap (or, by its .pcapng extension,
// pcapng) file.
func ReadFrames(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var src gopacket.PacketDataSource
	if filepath.Ext(path) == ".pcapng" {
		r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return nil, err
		}
		src = r
	} else {
		r, err := pcapgo.NewReader(f)
		if err != nil {
			return nil, err
		}
		src = r
	}
	var out [][]byte
	for {
		data, _, err := src.ReadPacketData()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, append([]byte(nil), data...))
	}
}

// Result is the outcome of Check.
type Result struct {
	Packets, Agree int
	// Mismatches describes up to 20 disagreeing fields.
	Mismatches []string
}

// Check decodes every packet of the capture at path with tshark, with
// Frame.Decode and with gopacket, and counts the packets on which all three
// agree on every field.
func Check(path string) (Result, error) {
	var res Result
	rows, err := tshark.Fields(path, Fields...)
	if err != nil {
		return res, err
	}
	frames, err := ReadFrames(path)
	if err != nil {
		return res, err
	}
	if len(rows) != len(frames) {
		return res, fmt.Errorf("tshark printed %d rows for %d packets", len(rows), len(frames))
	}
	var f wire.Frame
	res.Packets = len(frames)
	for i, frame := range frames {
		ts, err := Parse(rows[i])
		if err != nil {
			return res, fmt.Errorf("packet %d: %w", i+1, err)
		}
		ours, err := Decode(&f, frame)
		if err != nil {
			return res, fmt.Errorf("packet %d: %w", i+1, err)
		}
		gp := ViaGopacket(frame)
		ok := true
		for j := range ts {
			if ts[j] != ours[j] || ts[j] != gp[j] {
				ok = false
				if len(res.Mismatches) < 20 {
					res.Mismatches = append(res.Mismatches, fmt.Sprintf("packet %d %s: tshark %s, Frame.Decode %s, gopacket %s",
						i+1, Fields[j], Show(ts[j]), Show(ours[j]), Show(gp[j])))
				}
			}
		}
		if ok {
			res.Agree++
		}
	}
	return res, nil
}
