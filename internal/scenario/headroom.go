package scenario

import (
	"strings"

	"rocelab/internal/headroom"
	"rocelab/internal/unit"
)

// HeadroomInput is what package headroom needs for a port of rate and
// cable under this PFC configuration: the ASIC's terms when one is named,
// then the values the description gives.
func (p PFCSpec) HeadroomInput(rate unit.BitRate, cable unit.Length) headroom.Input {
	in := headroom.Input{Formula: p.Formula, Speed: rate, Cable: cable, PortMTU: p.MTU, LosslessMTU: p.LosslessMTU,
		SmallPacketPercent: p.SmallPacketPercent, ResponseTime: p.ResponseTime}
	if a, ok := headroom.LookupASIC(p.ASIC); ok {
		a.Apply(&in)
	}
	if p.CellSize > 0 {
		in.CellSize = p.CellSize
	}
	if p.MACPHYDelay > 0 {
		in.MACPHYDelay = float64(p.MACPHYDelay)
	}
	in.CellOccupancy = p.CellOccupancy
	return in
}

// ComputeHeadroom returns the per-PG xoff of a port by the configured
// formula (package headroom: SONiC's generic formula or the Mellanox lua),
// with no shared headroom pool: each PG holds its own.
func ComputeHeadroom(rate unit.BitRate, cable unit.Length, p PFCSpec) unit.Bytes {
	return headroom.Compute(p.HeadroomInput(rate, cable)).Xoff
}

// headroomOf returns the headroom a switch port gets: the configured one,
// or the computed one for the port's speed and cable.
func (s *Scenario) headroomOf(rate unit.BitRate, cable unit.Length) unit.Bytes {
	if s.Switch.PFC.Headroom > 0 {
		return s.Switch.PFC.Headroom
	}
	return ComputeHeadroom(rate, cable, s.Switch.PFC)
}

// headroomModel reads the keys of the headroom formula. Naming an ASIC or
// a cell size makes the formula derive the cell occupancy (unless
// cell_occupancy is given), and an ASIC supplies the MAC/PHY delay (unless
// mac_phy_delay is given).
func (c *conv) headroomModel(p *rawPFC, s *PFCSpec) {
	const path = "switch.pfc"
	f, err := headroom.ParseFormula(c.choice(p.Formula, path+".formula", string(headroom.Mellanox), headroom.Formulas()...))
	if err == nil {
		s.Formula = f
	}
	if name, ok := c.scalar(p.ASIC, path+".asic"); ok {
		if a, ok := headroom.LookupASIC(name); ok {
			s.ASIC = a.Name
		} else {
			c.fail(p.ASIC, path+".asic", "expected an ASIC_TABLE name (%s)", strings.Join(headroom.ASICNames(), ", "))
		}
	}
	s.CellSize = int(c.integer(p.CellSize, path+".cell_size", 0, 0, 4096))
	s.SmallPacketPercent = c.float(p.SmallPackets, path+".small_packet_percentage", 0, 0, 100)
	s.LosslessMTU = c.bytes(p.LosslessMTU, path+".lossless_mtu", 0)
	if s.LosslessMTU > 9216 {
		c.fail(p.LosslessMTU, path+".lossless_mtu", "expected at most 9216 bytes (SONiC's LOSSLESS_TRAFFIC_PATTERN mtu range)")
	}
	cells := s.ASIC != "" || s.CellSize > 0
	if s.ASIC != "" && p.MACPHYDelay == nil {
		s.MACPHYDelay = 0
	} else {
		s.MACPHYDelay = c.bytes(p.MACPHYDelay, path+".mac_phy_delay", s.MACPHYDelay)
	}
	if cells && p.CellOccupancy == nil {
		s.CellOccupancy = 0
	} else {
		s.CellOccupancy = c.float(p.CellOccupancy, path+".cell_occupancy", s.CellOccupancy, 1, 100)
	}
}
