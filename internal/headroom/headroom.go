// Package headroom computes the PFC headroom of one lossless priority group
// — xoff, xon and the reserved size — by the switch vendors' published
// formulas, named for their sources:
//
//   - Generic is SONiC's "well-known formula" of the dynamic buffer design
//     (sonic-net/SONiC doc/qos/dynamically-headroom-calculation.md): the
//     small-packet share counted by packets and a fractional worst-case
//     cell factor.
//   - Mellanox is sonic-swss cfgmgr/buffer_headroom_mellanox.lua as of
//     sonic-swss e6b0c5b5: the small-packet share counted by bytes, the
//     worst-case factor rounded up to whole cells, kB on tile for
//     Spectrum-4/5, Spectrum-6's compensation, the small-packet
//     compensation without a shared headroom pool, and 8-lane ports.
//
// The twin's `headroom: auto`, `rocelab calc headroom`, lint's
// pfc.headroom.short, the doctor's headroom rule and `config gen` all call
// Compute, so the numbers they print agree. The package is pure: no
// scenario, no simulator, no I/O.
package headroom

import (
	"fmt"
	"math"

	"rocelab/internal/unit"
)

// Formula names a published headroom formula.
type Formula string

// The formulas.
const (
	Generic  Formula = "sonic"
	Mellanox Formula = "mellanox"
)

// Formulas lists the formula names, for flags and errors.
func Formulas() []string { return []string{string(Mellanox), string(Generic)} }

// ParseFormula reads a formula name; "" is Mellanox.
func ParseFormula(s string) (Formula, error) {
	switch Formula(s) {
	case "", Mellanox:
		return Mellanox, nil
	case Generic:
		return Generic, nil
	}
	return "", fmt.Errorf("unknown headroom formula %q (expected %s or %s)", s, Mellanox, Generic)
}

// Source is where each formula is published.
func (f Formula) Source() string {
	if f == Generic {
		return "SONiC dynamic buffer design, doc/qos/dynamically-headroom-calculation.md (the well-known formula)"
	}
	return "sonic-swss cfgmgr/buffer_headroom_mellanox.lua (e6b0c5b5)"
}

// SpeedOfLight is the signal speed in the cable both formulas assume, m/s.
const SpeedOfLight = 1.98e8

// minPacket is the smallest Ethernet frame, the small packet of the
// worst-case cell factor.
const minPacket = 64

// Input is what the headroom of one lossless PG depends on. Sizes that
// SONiC's ASIC_TABLE gives in KiB with a fraction (mac_phy_delay 0.8) are
// float64 bytes, so that 0.8 KiB is 819.2 B as in the lua.
type Input struct {
	Formula Formula
	Speed   unit.BitRate
	Cable   unit.Length
	// PortMTU is the port's MTU (PORT|mtu, 9100 by default in SONiC).
	PortMTU unit.Bytes
	// LosslessMTU is the largest lossless packet
	// (LOSSLESS_TRAFFIC_PATTERN|mtu); 0 means PortMTU.
	LosslessMTU unit.Bytes
	// SmallPacketPercent is LOSSLESS_TRAFFIC_PATTERN|small_packet_percentage.
	SmallPacketPercent float64
	// CellSize is the ASIC's buffer cell in bytes; 0 means the buffer
	// counts bytes, not cells (cell occupancy 1).
	CellSize int
	// CellOccupancy, when positive, replaces the occupancy the formula
	// derives from CellSize and SmallPacketPercent.
	CellOccupancy float64
	// MACPHYDelay is the bytes held in the switch's own pipeline and PHY
	// when it generates XOFF.
	MACPHYDelay float64
	// GearboxDelay is a gearbox's delay in nanoseconds (PERIPHERIAL_TABLE).
	GearboxDelay float64
	// ResponseTime, when positive, replaces the IEEE response budget of
	// the speed: the peer sends for this long at line rate.
	ResponseTime unit.Time
	// PeerResponse is the ASIC's default peer response in bytes, used
	// only for a speed the IEEE table does not list (or at every speed
	// with FixedPeer); 0 then takes the budget of the next listed speed
	// above.
	PeerResponse float64
	// FixedPeer is the lua as NVIDIA's static tables were made with it
	// before sonic-swss #1930 (2021): PeerResponse at every speed, not
	// the IEEE budget, and none of the later additions (#3235's 2 KiB
	// small-packet compensation, #4797's Compensation). Spectrum-1 to -3
	// pg_profile_lookup.ini tables give this xoff (TestFixedPeerTables).
	FixedPeer bool
	// PipelineLatency is xon, in bytes.
	PipelineLatency float64
	// KBOnTile adds speed·120/8 bytes (Spectrum-4 and -5).
	KBOnTile bool
	// Compensation is added to xoff after rounding (Spectrum-6: 18 KiB).
	Compensation float64
	// SharedHeadroomPool is on when the pool has an xoff or an
	// over-subscribe ratio: size is then xon alone.
	SharedHeadroomPool bool
	// Lanes is the port's lane count; 8 doubles the pipeline latency and
	// adds one port MTU to size (Mellanox only).
	Lanes int
}

// Result is the headroom and every term of the formula.
type Result struct {
	Xoff, Xon, Size unit.Bytes

	// PauseQuanta is the IEEE budget used (0 when ResponseTime or the
	// ASIC's PeerResponse set the peer response instead).
	PauseQuanta  int
	PeerResponse float64
	// OnCable is the round trip on the cable, both directions.
	OnCable     float64
	OnGearbox   float64 // both directions
	OnTile      float64
	Propagation float64
	// WorstCase is the worst-case cell factor, SmallShare the percentage
	// of small packets it applies to (by bytes for Mellanox, by packets
	// for Generic), Occupancy the resulting factor on Propagation.
	WorstCase, SmallShare, Occupancy float64
	// SmallCompensated is set when the lua added 2 KiB because a reduced
	// small-packet share left xoff more than 2 KiB below its worst case.
	SmallCompensated bool
}

// ieeeQuanta is the response budget per operating speed in Mb/s, in pause
// quanta (IEEE 802.3 Annex 31B.3.7, as the lua tabulates it).
var ieeeQuanta = [...]struct {
	mbps   int64
	quanta int
}{{100, 1}, {1000, 2}, {10000, 67}, {25000, 80}, {40000, 118}, {50000, 147}, {100000, 394}, {200000, 453}, {400000, 905}, {800000, 905}}

// PauseQuanta returns the IEEE response budget of speed in pause quanta,
// and whether the table lists the speed. A speed within 200 ppm of a
// listed one is that speed (IEEE 802.3 clocks run ±100 ppm off nominal,
// as the twin's do); another takes the budget of the next listed speed
// above it (the largest beyond 800G).
func PauseQuanta(speed unit.BitRate) (int, bool) {
	for _, q := range ieeeQuanta {
		nominal := float64(q.mbps) * float64(unit.Mbps)
		if math.Abs(float64(speed)-nominal) <= 200e-6*nominal {
			return q.quanta, true
		}
	}
	for _, q := range ieeeQuanta {
		if speed <= unit.BitRate(q.mbps)*unit.Mbps {
			return q.quanta, false
		}
	}
	return ieeeQuanta[len(ieeeQuanta)-1].quanta, false
}

// ceilKiB rounds up to a multiple of 1024, as every SONiC plugin does.
func ceilKiB(v float64) unit.Bytes { return unit.Bytes(math.Ceil(v/1024) * 1024) }

// Compute returns the headroom of in by its formula.
func Compute(in Input) Result {
	var r Result
	lossless := float64(in.LosslessMTU)
	if in.LosslessMTU == 0 {
		lossless = float64(in.PortMTU)
	}
	portMTU := float64(in.PortMTU)
	bps := float64(in.Speed)
	mbps := bps / 1e6

	// Peer response: what the peer still sends after the pause arrives.
	q, listed := PauseQuanta(in.Speed)
	switch {
	case in.ResponseTime > 0:
		r.PeerResponse = bps * in.ResponseTime.Seconds() / 8
	case (in.FixedPeer || !listed) && in.PeerResponse > 0:
		r.PeerResponse = in.PeerResponse
	default:
		r.PauseQuanta = q
		r.PeerResponse = float64(q) * 512 / 8
	}
	r.OnCable = 2 * in.Cable.Metres() * bps / SpeedOfLight / 8
	if in.GearboxDelay > 0 {
		// Both formulas: speed (Mb/s) × delay (ns) / 8 / 1024, each way.
		r.OnGearbox = 2 * mbps * in.GearboxDelay / (8 * 1024)
	}
	if in.KBOnTile && in.Formula != Generic {
		r.OnTile = mbps / 1000 * 120 / 8
	}
	r.Propagation = portMTU + r.OnCable + r.OnGearbox + in.MACPHYDelay + r.PeerResponse + r.OnTile

	// Cell occupancy: small packets fill whole cells.
	small := math.Max(0, math.Min(100, in.SmallPacketPercent))
	switch {
	case in.CellOccupancy > 0:
		r.Occupancy = in.CellOccupancy
	case in.CellSize <= 0:
		r.Occupancy = 1
	default:
		cell := float64(in.CellSize)
		if cell > 2*minPacket {
			r.WorstCase = cell / minPacket
		} else {
			r.WorstCase = 2 * cell / (1 + cell)
		}
		r.SmallShare = small
		if in.Formula != Generic {
			r.WorstCase = math.Ceil(r.WorstCase)
			r.SmallShare = 100 * minPacket / ((small*minPacket + (100-small)*lossless) / 100)
		}
		r.Occupancy = (100 - r.SmallShare + r.SmallShare*r.WorstCase) / 100
	}

	xoff := lossless + r.Propagation*r.Occupancy
	r.Xoff = ceilKiB(xoff)
	pipeline, overhead := in.PipelineLatency, 0.0
	if in.Formula != Generic && !in.FixedPeer {
		r.Xoff += unit.Bytes(in.Compensation)
		if !in.SharedHeadroomPool && small != 100 && r.WorstCase > 0 && in.CellOccupancy <= 0 {
			full := ceilKiB(lossless + r.Propagation*r.WorstCase)
			if r.Xoff+2048 < full {
				r.Xoff += 2048
				r.SmallCompensated = true
			}
		}
	}
	if in.Formula != Generic {
		if in.Lanes == 8 {
			pipeline *= 2
			overhead = portMTU
		}
	}
	r.Xon = ceilKiB(pipeline)
	if in.SharedHeadroomPool {
		r.Size = r.Xon
	} else {
		r.Size = ceilKiB(float64(r.Xoff+r.Xon) + overhead)
	}
	return r
}
