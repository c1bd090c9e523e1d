package wire_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"rocelab/internal/roce"
	"rocelab/internal/wire"
	"rocelab/internal/wire/oracle"
	"rocelab/internal/wire/tshark"
)

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
		b    wire.Builder
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
	for _, tr := range wire.OracleTransports() {
		for variant := 0; variant < 16; variant++ {
			v4, vlan, fcs, snap := variant&1 == 0, variant&2 != 0, variant&4 != 0, 0
			if variant&8 != 0 {
				snap = 100
			}
			b.FCS = fcs
			e := wire.VectorEndpoints(v4, vlan)
			frame, wireLen, err := b.RoCE(&e, &tr, snap)
			if err != nil {
				t.Fatal(err)
			}
			exp := make([]uint64, len(oracle.Fields))
			for i := range exp {
				exp[i] = none
			}
			hs := tr.BTH.Opcode.Headers()
			exp[0], exp[1], exp[2], exp[3], exp[4] = uint64(tr.BTH.Opcode), uint64(tr.BTH.PSN), uint64(tr.BTH.DestQP), b2u(tr.BTH.AckReq), uint64(tr.BTH.PKey)
			if hs&roce.HasAETH != 0 {
				exp[5], exp[6] = uint64(tr.AETH.Syndrome), uint64(tr.AETH.MSN)
			}
			if hs&roce.HasRETH != 0 {
				exp[7] = uint64(tr.RETH.DMALength)
			}
			emit(frame, wireLen, exp)
		}
	}
	b.FCS = false
	for i, c := range wire.OraclePFC() {
		for _, fcs := range []bool{false, true} {
			b.FCS = fcs
			src := [6]byte{2, 0, 0, 0, 1, byte(i)}
			exp := make([]uint64, len(oracle.Fields))
			for i := range exp {
				exp[i] = none
			}
			var frame []byte
			var wireLen int
			if c.Pause {
				frame, wireLen = b.Pause(src, c.PauseQ, 0)
				exp[8], exp[18] = uint64(wire.MACControlPause), uint64(c.PauseQ)
			} else {
				frame, wireLen = b.PFC(src, c.Enable, c.Quanta, 0)
				exp[8], exp[9] = uint64(wire.MACControlPFC), uint64(c.Enable)
				for p, q := range c.Quanta {
					exp[10+p] = uint64(q)
				}
			}
			emit(frame, wireLen, exp)
		}
	}
	return want
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
			rows, err := tshark.Fields(path, oracle.Fields...)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(want) {
				t.Fatalf("tshark printed %d rows for %d packets", len(rows), len(want))
			}
			frames, err := oracle.ReadFrames(path)
			if err != nil {
				t.Fatal(err)
			}
			var f wire.Frame
			agree := 0
			for i := range want {
				ts, ours := mustParse(t, rows[i]), mustDecode(t, &f, frames[i])
				viaGopacket := oracle.ViaGopacket(frames[i])
				ok := true
				for j := range want[i] {
					if ts[j] != want[i][j] || ours[j] != want[i][j] || viaGopacket[j] != want[i][j] {
						ok = false
						t.Errorf("packet %d field %s: built %s, tshark %s, wire.Frame.Decode %s, gopacket %s",
							i+1, oracle.Fields[j], oracle.Show(want[i][j]), oracle.Show(ts[j]), oracle.Show(ours[j]), oracle.Show(viaGopacket[j]))
					}
				}
				if ok {
					agree++
				}
			}
			t.Logf("%s: %d/%d packets agree on all %d fields (%.1f%%)", name, agree, len(want), len(oracle.Fields), 100*float64(agree)/float64(len(want)))
		})
	}
}

func mustParse(t *testing.T, row []string) []uint64 {
	v, err := oracle.Parse(row)
	if err != nil {
		t.Error(err)
	}
	return v
}

func mustDecode(t *testing.T, f *wire.Frame, frame []byte) []uint64 {
	v, err := oracle.Decode(f, frame)
	if err != nil {
		t.Errorf("decode: %v", err)
	}
	return v
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
