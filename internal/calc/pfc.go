package calc

import (
	"fmt"
	"math"

	"rocelab/internal/fabric"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// HeadroomInput is what the headroom of one lossless priority group depends
// on.
type HeadroomInput struct {
	Rate  unit.BitRate
	Cable unit.Length
	// PortMTU is the switch port MTU; LosslessMTU the largest lossless
	// frame (SONiC LOSSLESS_TRAFFIC_PATTERN mtu), 0 meaning PortMTU.
	PortMTU, LosslessMTU unit.Bytes
	MACPHYDelay          unit.Bytes
	// CellOccupancy scales the in-flight bytes for small packets filling
	// whole cells; 0 means computed from CellSize and SmallPacketPercent
	// when CellSize is set, else 1.
	CellOccupancy      float64
	CellSize           int
	SmallPacketPercent float64
	// ResponseTime overrides the IEEE response budget of the speed.
	ResponseTime unit.Time
}

// CellOccupancy is SONiC's worst-case factor for a buffer of cellSize-byte
// cells when smallPct percent of lossless packets are 64-byte packets and
// the rest are losslessMTU bytes (buffer_headroom_mellanox.lua).
func CellOccupancy(cellSize int, smallPct float64, losslessMTU unit.Bytes) float64 {
	const minPkt = 64
	var worst float64
	if cellSize > 2*minPkt {
		worst = float64(cellSize) / minPkt
	} else {
		worst = 2 * float64(cellSize) / (1 + float64(cellSize))
	}
	worst = math.Ceil(worst)
	byBytes := 100 * minPkt / ((smallPct*minPkt + (100-smallPct)*float64(losslessMTU)) / 100)
	return (100 - byBytes + byBytes*worst) / 100
}

// Headroom computes the XOFF headroom of one lossless PG by SONiC's formula.
// The arithmetic is scenario.ComputeHeadroom, the twin's one source; this
// shows its terms.
func Headroom(in HeadroomInput) *Result {
	r := &Result{Name: "PFC headroom (XOFF) of one lossless priority group"}
	lossless := in.LosslessMTU
	if lossless == 0 {
		lossless = in.PortMTU
	}
	occ, occSrc := in.CellOccupancy, "given"
	switch {
	case occ == 0 && in.CellSize > 0:
		occ = CellOccupancy(in.CellSize, in.SmallPacketPercent, lossless)
		occSrc = fmt.Sprintf("from cell %d B, %g%% small packets (lua worst_case_factor)", in.CellSize, in.SmallPacketPercent)
	case occ == 0:
		occ, occSrc = 1, "default: bytes, not cells, are counted"
	}
	quanta := fabric.PeerResponseQuanta(in.Rate)
	peer := float64(quanta) * 512 / 8
	peerSrc := fmt.Sprintf("%d quanta × 64 B (%s)", quanta, srcIEEEQuanta)
	if in.ResponseTime > 0 {
		peer = float64(in.Rate) * in.ResponseTime.Seconds() / 8
		peerSrc = fmt.Sprintf("response time %v at line rate", in.ResponseTime)
	}
	onCable := 2 * in.Cable.Metres() * float64(in.Rate) / 1.98e8 / 8
	prop := float64(in.PortMTU) + onCable + float64(in.MACPHYDelay) + peer
	xoff := scenario.ComputeHeadroom(in.Rate, in.Cable, scenario.PFCSpec{
		MTU: in.PortMTU, LosslessMTU: in.LosslessMTU, MACPHYDelay: in.MACPHYDelay,
		CellOccupancy: occ, ResponseTime: in.ResponseTime,
	})
	r.Formula = []string{
		"peer_response = pause_quanta(speed) × 512 / 8",
		"bytes_on_cable = 2 × cable × speed / 1.98e8 m/s / 8",
		"propagation = port_mtu + bytes_on_cable + mac_phy_delay + peer_response",
		"xoff = ceil((lossless_mtu + propagation × cell_occupancy) / 1024) × 1024",
	}
	r.Inputs = []Quantity{
		q("speed", in.Rate.Gbps(), "Gbps", "given"),
		q("cable", in.Cable.Metres(), "m", "given"),
		bytesQ("port_mtu", float64(in.PortMTU), "given"),
		bytesQ("lossless_mtu", float64(lossless), "given, or port_mtu"),
		bytesQ("mac_phy_delay", float64(in.MACPHYDelay), "given (an ASIC table value; SPC-1 0.8 KiB)"),
		q("cell_occupancy", occ, "", occSrc),
	}
	r.Outputs = []Quantity{
		bytesQ("peer_response", peer, peerSrc),
		bytesQ("bytes_on_cable", onCable, "signal at 1.98e8 m/s, both directions"),
		bytesQ("propagation", prop, "sum of the terms above"),
		bytesQ("xoff", float64(xoff), "the headroom each lossless PG needs on this port"),
	}
	r.Notes = []string{
		"xon (pipeline latency) and the shared headroom pool are left out: with SHP on, SONiC reserves only xon per PG and pools xoff.",
		"Sizing xoff as a percentage of the port buffer (the 60–70 % rule of thumb) is folklore: what must fit is the data in flight after XOFF, which this formula counts.",
	}
	r.Sources = []string{srcSONiCHeadroom, srcIEEEQuanta}
	return r
}

// PauseInput is a PFC pause: a port speed and a pause value in quanta.
type PauseInput struct {
	Rate   unit.BitRate
	Quanta int
}

// Pause converts PFC quanta to time at a port speed.
func Pause(in PauseInput) *Result {
	quantum := 512 / float64(in.Rate) // seconds
	pause := float64(in.Quanta) * quantum
	return &Result{
		Name:    "PFC pause time",
		Formula: []string{"quantum = 512 bit / speed", "pause = quanta × quantum"},
		Inputs: []Quantity{
			q("speed", in.Rate.Gbps(), "Gbps", "given"),
			q("quanta", float64(in.Quanta), "", "given (0xFFFF = 65535 is the largest)"),
		},
		Outputs: []Quantity{
			q("quantum", roundTo(quantum*1e9, 4), "ns", "512 bit times"),
			q("pause", roundTo(pause*1e6, 3), "us", "how long one frame pauses the priority"),
		},
		Notes: []string{
			"A pause is in bit times, so the same quanta pause a 400G port 4× shorter than a 100G port; switches refresh a pause before it runs out while the queue stays above XON.",
		},
		Sources: []string{srcPFCQuantum},
	}
}

// roundTo rounds f to d decimals.
func roundTo(f float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(f*p) / p
}
