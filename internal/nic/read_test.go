package nic_test

import (
	"testing"

	"rocelab/internal/packet"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// wireTime is the time a frame of this length takes on a 100G link,
// preamble and inter-frame gap included.
func wireTime(frame int32) unit.Time {
	return (100 * unit.Gbps).TxTime(unit.Bytes(frame + packet.PreambleIFG))
}

// A READ of four MTUs is one request and four responses (FIRST, MIDDLE,
// MIDDLE, LAST, the first and last with an AETH): it completes at the
// requester when the last response arrives, one request time, the four
// responses back to back and two propagation delays after the post;
// the responder counts one rx_read_requests and completes nothing.
func TestReadCompletes(t *testing.T) {
	p := newPair(t, testConfig())
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.Read, Bytes: 4096, ID: 3})
	p.run()
	prop := 10 * unit.Nanosecond // 2 m
	resp := func(ext int32) unit.Time { return wireTime(packet.DataFrame(1024, ext, false)) }
	want := wireTime(packet.DataFrame(0, packet.RETH, false)) + prop + 2*resp(packet.AETH) + 2*resp(0) + prop
	if len(p.got) != 1 || p.got[0].Op != workload.Read || p.got[0].Status != workload.Success || p.got[0].Bytes != 4096 || p.got[0].At != want {
		t.Fatalf("completions %+v, want one READ of 4096 B at %v", p.got, want)
	}
	if p.b.HW.RxReadRequests != 1 || p.a.HW.RxReadRequests != 0 {
		t.Errorf("rx_read_requests: requester %d, responder %d; want 0, 1", p.a.HW.RxReadRequests, p.b.HW.RxReadRequests)
	}
	if d, _ := p.tr.Progress(qp); d != 4096 || p.net.Totals().Sent.Packets != 5 || p.net.Totals().Delivered.Bytes != 4096 {
		t.Errorf("progress %d, %d packets sent, %d bytes delivered", d, p.net.Totals().Sent.Packets, p.net.Totals().Delivered.Bytes)
	}
	conservation(t, p.net)
}

// A READ response lost in the middle: the next response arrives past the
// one expected, the requester counts implied_nak_seq_err once and asks
// again from the missing PSN; the responder takes the request as a
// duplicate and answers the rest again. Going back N, the requester also
// resends the WRITE posted after the READ: two more duplicates. The
// WRITE's ACK waits behind the READ's responses, so it cannot complete
// the READ early. Every byte arrives, once in order.
func TestReadLostResponse(t *testing.T) {
	p := newPair(t, testConfig())
	// Data packets arriving at h0 are the responses: lose the second.
	p.a.Port().SetLoss(&dropNth{drop: map[int]bool{2: true}})
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.Read, Bytes: 8 * 1024, ID: 1})
	p.tr.Post(qp, workload.Message{Op: workload.WriteImm, Bytes: 2048, ID: 2})
	p.run()
	if len(p.side(workload.Requester)) != 2 || p.side(workload.Requester)[0].Status != workload.Success {
		t.Fatalf("completions %+v", p.got)
	}
	a, b := p.a.HW, p.b.HW
	if a.ImpliedNakSeqErr != 1 || b.RxReadRequests != 2 || b.DuplicateRequest != 3 || a.LocalAckTimeoutErr != 0 {
		t.Errorf("implied_nak_seq_err %d, rx_read_requests %d, duplicate_request %d, timeouts %d; want 1, 2, 3, 0",
			a.ImpliedNakSeqErr, b.RxReadRequests, b.DuplicateRequest, a.LocalAckTimeoutErr)
	}
	if d, _ := p.tr.Progress(qp); d != 10*1024 {
		t.Errorf("delivered %d, want the READ and the WRITE, %d", d, 10*1024)
	}
	conservation(t, p.net)
}

// A lost READ request (no response ever comes) is recovered by the local
// ACK timeout.
func TestReadLostRequest(t *testing.T) {
	cfg := testConfig()
	cfg.Timeout = 4 // 65.5 us
	p := newPair(t, cfg)
	p.b.Port().SetLoss(&dropNth{drop: map[int]bool{1: true}})
	qp := p.tr.Connect(0, 1, workload.QPOptions{}, p)
	p.tr.Post(qp, workload.Message{Op: workload.Read, Bytes: 3000})
	p.run()
	if len(p.got) != 1 || p.got[0].Status != workload.Success || p.got[0].At < cfg.ACKTimeout() {
		t.Fatalf("completions %+v", p.got)
	}
	if p.a.HW.LocalAckTimeoutErr != 1 || p.b.HW.RxReadRequests != 1 {
		t.Errorf("local_ack_timeout_err %d, rx_read_requests %d", p.a.HW.LocalAckTimeoutErr, p.b.HW.RxReadRequests)
	}
}
