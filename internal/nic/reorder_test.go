package nic_test

import (
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// oooConfig is testConfig with an out-of-order responder.
func oooConfig(sr bool, nakThreshold int) *nic.Config {
	c := testConfig()
	c.Receive, c.ReorderWindow, c.NAKThreshold, c.SelectiveRepeat = nic.PlaceOutOfOrder, 256, nakThreshold, sr
	return c
}

// lossyWrite posts one 100-packet WRITE over a pair whose responder loses
// the data packets in drop, and runs it.
func lossyWrite(t *testing.T, cfg *nic.Config, drop ...int) *pair {
	t.Helper()
	p := newPair(t, cfg)
	d := &dropNth{drop: map[int]bool{}}
	for _, k := range drop {
		d.drop[k] = true
	}
	p.b.Port().SetLoss(d)
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 100 * 1024})
	p.run()
	if got, _ := p.tr.Progress(qp); got != 100*1024 || len(p.side(workload.Requester)) != 1 {
		t.Fatalf("delivered %d, completions %+v", got, p.got)
	}
	conservation(t, p.net)
	return p
}

// Selective repeat: two losses, each NAKed once with its own range, and
// only the two lost packets sent again; the packets after each gap are
// placed, not dropped, and nothing is a duplicate.
func TestSelectiveRepeat(t *testing.T) {
	p := lossyWrite(t, oooConfig(true, 0), 10, 40)
	a, b := p.a.HW, p.b.HW
	if a.PacketSeqErr != 2 || a.Retransmitted != 2 || a.LocalAckTimeoutErr != 0 {
		t.Errorf("packet_seq_err %d, retransmitted %d, timeouts %d; want 2, 2, 0", a.PacketSeqErr, a.Retransmitted, a.LocalAckTimeoutErr)
	}
	if b.PlacedOutOfOrder == 0 || b.OutOfSequence != 0 || b.DuplicateRequest != 0 {
		t.Errorf("placed %d, out_of_sequence %d, duplicate_request %d", b.PlacedOutOfOrder, b.OutOfSequence, b.DuplicateRequest)
	}
	if d := p.net.Totals().Discarded.Packets; d != 0 {
		t.Errorf("%d packets discarded: an out-of-order responder keeps them", d)
	}
}

// An out-of-order responder with a go-back-N requester: the packets after
// the gap are placed, yet the requester resends them all, and the
// responder takes the resends as duplicates.
func TestOutOfOrderGoBackN(t *testing.T) {
	p := lossyWrite(t, oooConfig(false, 0), 10)
	a, b := p.a.HW, p.b.HW
	if a.PacketSeqErr != 1 || a.Retransmitted < 2 || b.DuplicateRequest != a.Retransmitted-1 {
		t.Errorf("packet_seq_err %d, retransmitted %d, duplicate_request %d: go-back-N resends what was placed", a.PacketSeqErr, a.Retransmitted, b.DuplicateRequest)
	}
}

// nakTap records when a port first sends a NAK.
type nakTap struct{ at unit.Time }

func (n *nakTap) Frame(now unit.Time, _ *fabric.Port, dir fabric.Direction, p *packet.Packet) {
	if dir == fabric.Tx && p.Kind == packet.Ack && p.Syndrome == roce.SyndromePSNSequenceError && n.at == 0 {
		n.at = now
	}
}

// The NAK threshold: with 3, the hole is NAKed only once a packet more
// than 3 PSNs past it arrives, so the NAK leaves three packet times later
// than with 0; with a threshold longer than the message no NAK comes at
// all and the local ACK timeout recovers the loss.
func TestNAKThreshold(t *testing.T) {
	naks := map[int]unit.Time{}
	for _, k := range []int{0, 3} {
		p := newPair(t, oooConfig(true, k))
		p.b.Port().SetLoss(&dropNth{drop: map[int]bool{10: true}})
		tap := &nakTap{}
		p.b.Port().SetTap(tap)
		qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
		p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 100 * 1024})
		p.run()
		if p.a.HW.PacketSeqErr != 1 {
			t.Fatalf("threshold %d: %d NAKs, want 1", k, p.a.HW.PacketSeqErr)
		}
		naks[k] = tap.at
	}
	if d, want := naks[3]-naks[0], 3*wireTime(packet.DataFrame(1024, 0, false)); d != want {
		t.Errorf("the NAK came %v later with threshold 3, want three packet times, %v", d, want)
	}
	cfg := oooConfig(true, 1000)
	cfg.Timeout = 4
	never := lossyWrite(t, cfg, 10)
	if never.a.HW.PacketSeqErr != 0 || never.a.HW.LocalAckTimeoutErr != 1 {
		t.Errorf("threshold 1000: packet_seq_err %d, local_ack_timeout_err %d; want 0, 1", never.a.HW.PacketSeqErr, never.a.HW.LocalAckTimeoutErr)
	}
}
