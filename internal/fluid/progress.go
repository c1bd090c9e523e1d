package fluid

import (
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// resolve recomputes the rates of the flows the changed links can move
// (near; their whole component when classes share one of its links) and
// moves each flow whose rate changed.
func (e *Engine) resolve(now unit.Time) {
	e.near(e.dirty)
	if len(e.sol.flows) > 0 && !e.solve() {
		e.component(e.dirty)
		e.solve()
	}
	e.dirty = e.dirty[:0]
	e.solves++
	e.flowsIn += int64(len(e.sol.flows))
	for _, f := range e.sol.flows {
		if r := e.sol.rate[f]; r != e.flows[f].rate {
			e.setRate(f, r, now)
		}
	}
	e.congestion(now)
}

// setRate moves flow f to rate r from now on.
func (e *Engine) setRate(f int32, r float64, now unit.Time) {
	fl := &e.flows[f]
	e.settle(f, now)
	fl.sent = fl.progress(now)
	fl.upd = now
	for _, l := range fl.path {
		e.net.links[l].addLoad(now, r-fl.rate)
	}
	fl.rate = r
	fl.eff = e.efficiency(f)
	if fl.active {
		e.setTimer(&fl.idleT, fl.timeTo(fl.total), tagIdle|uint64(f)<<8)
	}
	e.armResp(f)
}

// settle books the messages of f whose last byte has left by now.
func (e *Engine) settle(f int32, now unit.Time) {
	fl := &e.flows[f]
	for fl.send < fl.msgs.len() {
		m := fl.msgs.at(fl.send)
		t := fl.timeTo(m.end)
		if t > now {
			break
		}
		e.settled(f, m, max(t, m.posted))
		fl.send++
	}
}

// idle is flow f's last queued byte leaving: it stops sending.
func (e *Engine) idle(f int32, now unit.Time) {
	fl := &e.flows[f]
	e.settle(f, now)
	for fl.send < fl.msgs.len() { // rounding: what is left is sent now
		e.settled(f, fl.msgs.at(fl.send), now)
		fl.send++
	}
	fl.sent = fl.total
	fl.upd = now
	for _, l := range fl.path {
		e.net.links[l].addLoad(now, -fl.rate)
	}
	fl.rate = 0
	fl.miceFree = now
	e.deactivate(f)
	e.armResp(f)
}

// armResp sets f's responder timer for its next message: when its last
// byte arrives, or, while it is still being sent, when it would at the
// current rate.
func (e *Engine) armResp(f int32) {
	fl := &e.flows[f]
	if fl.stalled || fl.resp >= fl.msgs.len() {
		fl.respT.stop()
		return
	}
	m := fl.msgs.at(fl.resp)
	var t unit.Time
	if fl.resp < fl.send {
		t = m.done
	} else if t = fl.timeTo(m.end); t == unit.MaxTime {
		fl.respT.stop()
		return
	}
	e.setTimer(&fl.respT, t+e.latOf(f, m.lastWire)+e.delay, tagResp|uint64(f)<<8)
}

// respond delivers the responder completions whose last byte arrived by
// now (the NIC's time).
func (e *Engine) respond(f int32, now unit.Time) {
	fl := &e.flows[f]
	if fl.active {
		e.settle(f, e.sched.Now())
	}
	for fl.resp < fl.send && !fl.stalled {
		m := fl.msgs.at(fl.resp)
		if m.done+e.latOf(f, m.lastWire) > now {
			break
		}
		if e.tailLost(f, m, now) {
			break
		}
		e.delivered(f, m, now)
		fl = &e.flows[f]
	}
	e.armResp(f)
}

// delivered is the responder receiving message m whole: its completion,
// then the ACK on its way back.
func (e *Engine) delivered(f int32, m *msg, now unit.Time) {
	fl := &e.flows[f]
	fl.resp++
	fl.delivered += m.bytes
	fl.deliveredPkts += int64(m.pkts)
	fl.lastDeliv = now
	m.reqAt = now + fl.ackLat
	if fl.pAck > 0 && fl.resp == fl.msgs.len() && e.lossR.Float64() < fl.pAck {
		// The ACK of the last packet is lost and nothing follows to
		// acknowledge it: the requester's timer runs out, it resends the
		// last packet, the responder ACKs the duplicate.
		m.ackLost = true
		m.reqAt = m.done + fl.timeout + e.latOf(f, m.lastWire) + fl.ackLat
	}
	// A later ACK acknowledges what came before it.
	for i := fl.resp - 2; i >= 0; i-- {
		p := fl.msgs.at(i)
		if !p.ackLost || p.reqAt <= m.reqAt {
			break
		}
		p.reqAt, p.ackLost = m.reqAt, false
	}
	e.armReq(f, now)
	if m.op != workload.Write {
		e.complete(workload.QP(f), workload.Responder, m.op, 0, m.bytes, workload.Success, now)
	}
}

// acked delivers the requester completions whose ACK arrived by now (the
// NIC's time); an unsignaled message leaves without one.
func (e *Engine) acked(f int32, now unit.Time) {
	fl := &e.flows[f]
	for fl.resp > 0 {
		m := fl.msgs.front()
		if m.reqAt > now {
			break
		}
		if m.ackLost {
			e.nics[fl.src].LocalAckTimeoutErr++
			fl.retxPkts++
			fl.retxBytes += float64(m.lastWire)
		}
		op, id, bytes, at, unsig := m.op, m.id, m.bytes, m.reqAt, m.unsig
		fl.msgs.popFront()
		fl.resp--
		fl.send--
		if !unsig {
			e.complete(workload.QP(f), workload.Requester, op, id, bytes, workload.Success, at)
			fl = &e.flows[f]
		}
	}
	e.armReq(f, now)
}

// retire drops the unsignaled messages at the front of f's queue whose
// ACK has come back by now: nothing waits for them, so no event does.
func (e *Engine) retire(f int32, now unit.Time) {
	fl := &e.flows[f]
	for fl.resp > 0 {
		m := fl.msgs.front()
		if !m.unsig || m.ackLost || m.reqAt > now {
			return
		}
		fl.msgs.popFront()
		fl.resp--
		fl.send--
	}
}

// armReq retires what it can and sets f's requester timer for the first
// delivered message that needs an event at its ACK: a signaled one, or
// one whose last ACK was lost (the requester's timer runs out). The
// unsignaled ones before it leave with it, or with a later post.
func (e *Engine) armReq(f int32, now unit.Time) {
	e.retire(f, now)
	fl := &e.flows[f]
	for i := 0; i < fl.resp; i++ {
		if m := fl.msgs.at(i); !m.unsig || m.ackLost {
			e.setTimer(&fl.reqT, m.reqAt+e.delay, tagReq|uint64(f)<<8)
			return
		}
	}
	fl.reqT.stop()
}
