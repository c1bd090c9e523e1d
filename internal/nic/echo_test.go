package nic_test

import (
	"maps"
	"slices"
	"testing"

	"rocelab/internal/cc"
	"rocelab/internal/fabric"
	"rocelab/internal/nic"
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

// pausedAcks counts the ACKs a port sends while its priority prio is
// paused, and all it sends.
type pausedAcks struct {
	prio         int
	paused, acks int
}

func (a *pausedAcks) Frame(_ unit.Time, pt *fabric.Port, dir fabric.Direction, p *packet.Packet) {
	if dir != fabric.Tx || p.Kind != packet.Ack {
		return
	}
	a.acks++
	if pt.Paused(a.prio) {
		a.paused++
	}
}

// With acks_first the NIC sends its ACKs even while their priority is
// paused, as the HPCC ns-3 model's NIC does under ACK_HIGH_PRIO 1; without
// it they wait out the pause with the data. h0 drains what it receives at
// 10 Gb/s, so h1's WRITE to it has h0 pause h1's priority 3, where h1's
// ACKs for h0's own WRITE also go.
func TestAcksFirst(t *testing.T) {
	for _, first := range []bool{false, true} {
		cfg := testConfig()
		cfg.DrainRate, cfg.RxBuffer, cfg.RxXOFF, cfg.RxXON, cfg.RxPFC = 10*unit.Gbps, 256*1024, 64*1024, 32*1024, 1<<3
		cfg.AcksFirst = first
		p := newPair(t, cfg)
		for _, n := range []*nic.NIC{p.a, p.b} {
			n.Port().SetPFC(fabric.PFCConfig{Quanta: 0xffff, XON: true})
		}
		tap := &pausedAcks{prio: 3}
		p.b.Port().SetTap(tap)
		toB := p.tr.Connect(0, 1, workload.QPOptions{}, p)
		toA := p.tr.Connect(1, 0, workload.QPOptions{}, p)
		p.tr.Post(toB, workload.Message{Op: workload.Write, Bytes: 512 * 1024})
		p.tr.Post(toA, workload.Message{Op: workload.Write, Bytes: 2 << 20})
		p.runUntil(5 * unit.Millisecond)
		switch {
		case tap.acks == 0:
			t.Fatalf("acks_first %v: h1 sent no ACK", first)
		case first && tap.paused == 0:
			t.Errorf("acks_first: none of h1's %d ACKs left while its priority 3 was paused", tap.acks)
		case !first && tap.paused != 0:
			t.Errorf("without acks_first, %d of h1's %d ACKs left while its priority 3 was paused", tap.paused, tap.acks)
		}
	}
}
