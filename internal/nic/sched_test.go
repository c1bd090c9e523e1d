package nic_test

import (
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// sendOrder records which of h0's QPs each data frame it sends comes
// from, as a letter: A for the NIC's first QP, B for its second, ...
type sendOrder struct{ qps []byte }

func (s *sendOrder) Frame(_ unit.Time, _ *fabric.Port, dir fabric.Direction, p *packet.Packet) {
	if dir == fabric.Tx && p.Kind == packet.Data {
		s.qps = append(s.qps, byte('A'+p.DstQP-nic.QPNBase))
	}
}

// order runs three QPs of h0 toward h1, five packets each, B posted at
// bAt and A and C at 0, and returns the order their frames left in.
func order(t *testing.T, byIndex bool, bAt unit.Time) string {
	t.Helper()
	cfg := testConfig()
	cfg.QPOrderByIndex = byIndex
	p := newPair(t, cfg)
	tap := &sendOrder{}
	p.a.Port().SetTap(tap)
	var qps [3]workload.QP
	for i := range qps {
		qps[i] = p.tr.Connect(0, 1, workload.QPOptions{}, p)
	}
	msg := workload.Message{Op: workload.Write, Bytes: 5 * 1024}
	p.tr.Post(qps[0], msg)
	p.tr.PostAfter(bAt, qps[1], msg)
	p.tr.Post(qps[2], msg)
	p.run()
	return string(tap.qps)
}

// Both orders serve one packet a turn. They differ in where a QP that
// becomes ready enters the cycle: the FIFO puts A, served as it became
// ready, back ahead of B and C posted during its first packet; the index
// order (the HPCC ns-3 model's GetNextQindex) goes A, B, C from the
// start, and takes B, posted later, right after A rather than after C.
func TestQPOrder(t *testing.T) {
	for _, c := range []struct {
		byIndex bool
		bAt     unit.Time
		want    string
	}{
		{false, 0, "AABCABCABCABCBC"},
		{true, 0, "ABCABCABCABCABC"},
		// One frame of 1024 B and its headers takes 88.5 ns at 100G: B
		// is posted during the third, C's first in the FIFO, A's second
		// by index. The FIFO puts it behind A and C, which wait there;
		// by index it goes after A, its index between the two.
		{false, 200 * unit.Nanosecond, "AACACBACBACBCBB"},
		{true, 200 * unit.Nanosecond, "ACABCABCABCABCB"},
	} {
		if got := order(t, c.byIndex, c.bAt); got != c.want {
			t.Errorf("by index %v, B posted at %v: sent %s, want %s", c.byIndex, c.bAt, got, c.want)
		}
	}
}
