package capture

import (
	"strconv"

	"rocelab/internal/unit"
	"rocelab/internal/wire"
)

// addMACControl accounts a PFC or PAUSE frame (see the package doc).
func (a *Analysis) addMACControl(p *Packet, t unit.Time, f *wire.Frame, ifSpeed unit.BitRate) {
	m := &f.MACControl
	rate := a.opts.LinkSpeed
	if rate == 0 && ifSpeed > 0 {
		rate = ifSpeed
		if a.LinkSpeed == 0 {
			a.LinkSpeed = ifSpeed
		}
	}
	switch {
	case m.IsPFC():
		for prio := range 8 {
			if m.ClassEnable&(1<<prio) != 0 {
				ps := a.pauseStats(f.SrcMAC, int8(prio), p.Num)
				ps.add(t, m.Quanta[prio], rate)
				if m.Quanta[prio] > 0 {
					a.addPauseBin(ps, t)
				}
			}
		}
	case m.IsPause():
		ps := a.pauseStats(f.SrcMAC, -1, p.Num)
		ps.add(t, m.PauseQuanta, rate)
		if m.PauseQuanta > 0 {
			a.addPauseBin(ps, t)
		}
	default:
		a.Other["MAC control opcode 0x"+strconv.FormatUint(uint64(m.Opcode), 16)]++
	}
}

func (a *Analysis) pauseStats(mac [6]byte, prio int8, num int) *PauseStats {
	k := pauseKey{mac, prio}
	ps, ok := a.pauses[k]
	if !ok {
		name := "all"
		if prio >= 0 {
			name = strconv.Itoa(int(prio))
		}
		ps = &PauseStats{SrcMAC: macString(mac), Priority: name, FirstPacket: num, start: -1}
		a.pauses[k] = ps
	}
	return ps
}

// add applies one frame with quanta q at time t, at link rate (0 unknown).
func (ps *PauseStats) add(t unit.Time, q uint16, rate unit.BitRate) {
	ps.Frames++
	ps.Quanta += int64(q)
	if q == 0 {
		ps.XON++
	} else {
		ps.XOFF++
	}
	if rate <= 0 {
		ps.unknown = true
		return
	}
	ps.LinkSpeed = rate
	d := wire.PauseDuration(q, rate)
	if ps.Requested == nil {
		ps.Requested, ps.Effective = new(unit.Time), new(unit.Time)
	}
	*ps.Requested += d
	if ps.start >= 0 {
		*ps.Effective += min(t, ps.until) - ps.start
	}
	ps.start, ps.until = t, t+d
}

// close ends the last interval at its deadline.
func (ps *PauseStats) close() {
	if ps.unknown {
		ps.Requested, ps.Effective = nil, nil
		return
	}
	if ps.start >= 0 && ps.Effective != nil {
		*ps.Effective += ps.until - ps.start
	}
}
