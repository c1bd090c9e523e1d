package nic_test

import (
	"maps"
	"slices"
	"testing"

	"rocelab/internal/cc"
	"rocelab/internal/fabric"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// markNth marks CE the data packets whose ordinal (1-based, as they
// arrive at the port) is in mark, as a switch would, and records their
// PSNs.
type markNth struct {
	n      int
	mark   map[int]bool
	marked map[uint32]bool
}

func (m *markNth) Lose(_ unit.Time, p *packet.Packet) bool {
	if p.Kind == packet.Data {
		if m.n++; m.mark[m.n] {
			p.ECN = packet.CE
			m.marked[p.PSN] = true
		}
	}
	return false
}

// ackTap records the PSNs of the ACKs a port receives and of those that
// echo a CE mark.
type ackTap struct{ acks, echoes []uint32 }

func (a *ackTap) Frame(_ unit.Time, _ *fabric.Port, dir fabric.Direction, p *packet.Packet) {
	if dir != fabric.Rx || p.Kind != packet.Ack {
		return
	}
	a.acks = append(a.acks, p.PSN)
	if p.ECNEcho {
		a.echoes = append(a.echoes, p.PSN)
	}
}

// Under DCTCP the responder ACKs every data packet, and an ACK echoes CE
// exactly when the packet that triggered it arrived marked. Without an
// echo-reading controller at the requester no ACK echoes a mark.
func TestDCTCPEchoesCE(t *testing.T) {
	for _, withDCTCP := range []bool{true, false} {
		cfg := testConfig()
		if withDCTCP {
			d, err := cc.DCTCPPreset("ns3")
			if err != nil {
				t.Fatal(err)
			}
			cfg.DCTCP, cfg.CCPrio = &d, 0xff
		}
		p := newPair(t, cfg)
		m := &markNth{mark: map[int]bool{1: true, 4: true, 5: true, 17: true, 40: true}, marked: map[uint32]bool{}}
		p.b.Port().SetLoss(m)
		tap := &ackTap{}
		p.a.Port().SetTap(tap)
		qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
		p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 40 * 1024})
		p.run()
		if len(m.marked) != 5 {
			t.Fatalf("dctcp %v: marked %d packets, want 5", withDCTCP, len(m.marked))
		}
		if !withDCTCP {
			if len(tap.echoes) != 0 {
				t.Errorf("no DCTCP: ACKs at PSNs %v echo CE", tap.echoes)
			}
			continue
		}
		if len(tap.acks) != 40 {
			t.Errorf("%d ACKs for 40 packets, want one each", len(tap.acks))
		}
		want := slices.Sorted(maps.Keys(m.marked))
		if got := slices.Sorted(slices.Values(tap.echoes)); !slices.Equal(got, want) {
			t.Errorf("ACKs echoing CE at PSNs %v, want the marked packets' %v", got, want)
		}
	}
}

// frameTap records the frame lengths of the data packets and ACKs a port
// receives.
type frameTap struct{ data, acks map[int32]int }

func (f *frameTap) Frame(_ unit.Time, _ *fabric.Port, dir fabric.Direction, p *packet.Packet) {
	switch {
	case dir != fabric.Rx:
	case p.Kind == packet.Data:
		f.data[p.Frame]++
	case p.Kind == packet.Ack:
		f.acks[p.Frame]++
	}
}

// Under HPCC every data packet carries int_bytes of INT and asks for an
// ACK, and each ACK hands the INT back, int_bytes on the wire too.
func TestHPCCINTOnTheWire(t *testing.T) {
	for _, n := range []int64{42, 0} {
		cfg := testConfig()
		h, err := cc.HPCCPreset("ns3")
		if err != nil {
			t.Fatal(err)
		}
		h.INTBytes = n
		cfg.HPCC, cfg.CCPrio = &h, 0xff
		p := newPair(t, cfg)
		data, acks := &frameTap{data: map[int32]int{}}, &frameTap{acks: map[int32]int{}}
		p.b.Port().SetTap(data)
		p.a.Port().SetTap(acks)
		qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
		p.tr.Post(qp, workload.Message{Op: workload.Write, Bytes: 20 * 1024})
		p.run()
		// A WRITE's first packet carries the RETH.
		wantData := map[int32]int{
			packet.DataFrame(1024, packet.RETH+int32(n), false): 1,
			packet.DataFrame(1024, int32(n), false):             19,
		}
		if !maps.Equal(data.data, wantData) {
			t.Errorf("int_bytes %d: data frames %v, want %v", n, data.data, wantData)
		}
		if want := map[int32]int{packet.DataFrame(0, packet.AETH, false) + int32(n): 20}; !maps.Equal(acks.acks, want) {
			t.Errorf("int_bytes %d: ACK frames %v, want %v", n, acks.acks, want)
		}
	}
}
