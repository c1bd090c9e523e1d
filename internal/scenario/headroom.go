package scenario

import (
	"math"

	"rocelab/internal/fabric"
	"rocelab/internal/unit"
)

// fibreSpeed is the signal speed SONiC's headroom formula assumes, in m/s.
const fibreSpeed = 1.98e8

// ComputeHeadroom returns the per-PG XOFF headroom of a port by SONiC's
// dynamic-buffer formula (sonic-swss cfgmgr/buffer_headroom_mellanox.lua):
// the bytes that can still arrive after XOFF is generated — the port MTU,
// the round trip on the cable, the switch's MAC/PHY pipeline, and the
// peer's response (the IEEE 802.3 Annex 31B.3.7 budget for the speed, or
// ResponseTime at line rate when it is set) — plus one lossless MTU
// (LosslessMTU, or the port MTU when unset), scaled by cell occupancy and
// rounded up to 1 KB.
func ComputeHeadroom(rate unit.BitRate, cable unit.Length, p PFCSpec) unit.Bytes {
	peer := float64(fabric.PeerResponseQuanta(rate)) * 512 / 8
	if p.ResponseTime > 0 {
		peer = float64(rate) * p.ResponseTime.Seconds() / 8
	}
	lossless := p.LosslessMTU
	if lossless == 0 {
		lossless = p.MTU
	}
	onCable := 2 * cable.Metres() * float64(rate) / fibreSpeed / 8
	prop := float64(p.MTU) + onCable + float64(p.MACPHYDelay) + peer
	xoff := float64(lossless) + prop*p.CellOccupancy
	return unit.Bytes(math.Ceil(xoff/1024) * 1024)
}

// headroomOf returns the headroom a switch port gets: the configured one,
// or the computed one for the port's speed and cable.
func (s *Scenario) headroomOf(rate unit.BitRate, cable unit.Length) unit.Bytes {
	if s.Switch.PFC.Headroom > 0 {
		return s.Switch.PFC.Headroom
	}
	return ComputeHeadroom(rate, cable, s.Switch.PFC)
}
