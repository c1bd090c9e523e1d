package fabric

import (
	"rocelab/internal/packet"
	"rocelab/internal/sim"
	"rocelab/internal/unit"
)

// PFCConfig says how a port sends PFC frames for its node.
type PFCConfig struct {
	// Quanta is the pause time an XOFF frame asks for, in 512-bit-time
	// quanta (0xFFFF, the usual switch setting, is 335.5 us at 100G).
	Quanta uint16
	// Refresh is how often an XOFF is re-sent while the priority stays
	// congested. Zero means half the pause time.
	Refresh unit.Time
	// XON says whether a zero-quanta frame is sent when congestion clears;
	// without it the upstream waits out the pause.
	XON bool
}

// pfcSender is the PFC transmit state of one port: which priorities it
// currently holds off at its peer.
type pfcSender struct {
	cfg       PFCConfig
	since     [8]unit.Time
	refreshID [8]sim.EventID
}

// SetPFC sets how the port sends PFC frames.
func (pt *Port) SetPFC(c PFCConfig) {
	if c.Refresh == 0 {
		c.Refresh = pt.QuantaTime(c.Quanta) / 2
	}
	pt.pfc.cfg = c
}

// XOFF reports whether the port currently holds off priority prio at its
// peer.
func (pt *Port) XOFF(prio int) bool { return pt.rxPrio[prio].pg.xoff }

// SendXOFF asks the peer to stop sending priority prio, and keeps asking
// until SendXON. It does nothing if the priority is already held off.
func (pt *Port) SendXOFF(prio int) {
	s := &pt.pfc
	if pt.XOFF(prio) {
		return
	}
	now := pt.dom.Sched.Now()
	pt.rxPrio[prio].pg.xoff = true
	s.since[prio] = now
	pt.sendPFC(prio, s.cfg.Quanta)
	s.refreshID[prio] = pt.dom.Sched.At(now+s.cfg.Refresh, pt.key, pt, tagPFCRefresh|uint64(prio)<<8)
}

// SendXON releases priority prio at the peer.
func (pt *Port) SendXON(prio int) {
	s := &pt.pfc
	if !pt.XOFF(prio) {
		return
	}
	now := pt.dom.Sched.Now()
	pt.rxPrio[prio].pg.xoff = false
	pt.ctr.TxPauseDuration[prio] += now - s.since[prio]
	pt.dom.Sched.Cancel(s.refreshID[prio])
	s.refreshID[prio] = 0
	if s.cfg.XON {
		pt.sendPFC(prio, 0)
	}
}

// refresh re-sends an XOFF that is still wanted.
func (s *pfcSender) refresh(pt *Port, now unit.Time, prio int) {
	s.refreshID[prio] = 0
	if !pt.XOFF(prio) {
		return
	}
	pt.sendPFC(prio, s.cfg.Quanta)
	s.refreshID[prio] = pt.dom.Sched.At(now+s.cfg.Refresh, pt.key, pt, tagPFCRefresh|uint64(prio)<<8)
}

// sendPFC queues a PFC frame for one priority ahead of any data.
func (pt *Port) sendPFC(prio int, quanta uint16) {
	f := pt.dom.Pool.Get()
	f.Kind = packet.Pause
	f.Src, f.Dst = -1, -1
	f.Frame = packet.PauseFrame
	f.ClassVector = 1 << prio
	f.Quanta[prio] = quanta
	f.Prio = uint8(prio)
	pt.ctr.TxPause[prio]++
	pt.dom.Totals.PauseFrames++
	pt.dom.Totals.Frames[packet.Pause]++
	pt.pushCtrl(f)
	pt.Kick()
}

// WatchdogConfig is a PFC watchdog in the SONiC style: a queue paused
// without a break for Detect is declared stormed, its packets and new
// arrivals are dropped and further pauses ignored, until no pause has been
// received for Restore.
type WatchdogConfig struct {
	Detect, Restore unit.Time
}

// watchdog is the PFC watchdog state of one port's egress queues.
type watchdog struct {
	cfg       WatchdogConfig
	lastRx    [8]unit.Time
	restoreID [8]sim.EventID
}

// A Flusher is an egress that can drop a queue's contents, as the PFC
// watchdog does when it declares a storm.
type Flusher interface {
	Flush(pt *Port, prio int, reason DropReason)
}

// SetWatchdog enables the PFC watchdog on the port (zero Detect disables).
func (pt *Port) SetWatchdog(c WatchdogConfig) { pt.watchdog.cfg = c }

// Stormed reports whether the watchdog holds priority prio in its storm
// state.
func (pt *Port) Stormed(prio int) bool { return pt.stormed(prio) }

func (pt *Port) stormed(prio int) bool { return pt.storm&(1<<prio) != 0 }

// onPause is told of every received pause for prio, after it took effect.
func (w *watchdog) onPause(pt *Port, now unit.Time, prio int, quanta uint16) {
	if w.cfg.Detect == 0 {
		return
	}
	w.lastRx[prio] = now
	if pt.stormed(prio) || quanta == 0 {
		return
	}
	ps := &pt.pause[prio]
	if ps.active && now-ps.since >= w.cfg.Detect {
		pt.storm |= 1 << prio
		pt.ctr.WatchdogStorms[prio]++
		if f, ok := pt.egress.(Flusher); ok {
			f.Flush(pt, prio, DropWatchdog)
		}
		pt.closePause(prio, now)
		w.restoreID[prio] = pt.dom.Sched.At(now+w.cfg.Restore, pt.key, pt, tagWatchdog|uint64(prio)<<8)
	}
}

// check restores a stormed queue once no pause has arrived for Restore.
func (w *watchdog) check(pt *Port, now unit.Time, prio int) {
	w.restoreID[prio] = 0
	if !pt.stormed(prio) {
		return
	}
	if quiet := now - w.lastRx[prio]; quiet < w.cfg.Restore {
		w.restoreID[prio] = pt.dom.Sched.At(w.lastRx[prio]+w.cfg.Restore, pt.key, pt, tagWatchdog|uint64(prio)<<8)
		return
	}
	pt.storm &^= 1 << prio
	pt.ctr.WatchdogRestores[prio]++
	pt.Kick()
}
