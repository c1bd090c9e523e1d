package calc

import (
	"fmt"
	"math"

	"rocelab/internal/headroom"
	"rocelab/internal/unit"
)

// HeadroomInput is what the headroom of one lossless priority group
// depends on: package headroom's input, the ASIC_TABLE row it was filled
// from, and which inputs the user gave.
type HeadroomInput struct {
	headroom.Input
	// ASIC is the ASIC_TABLE row whose terms fill the inputs not given
	// ("" when none was named).
	ASIC string
	// Given holds the names of the inputs the user gave; the others are
	// printed as defaults.
	Given map[string]bool
}

// Headroom computes xoff, xon and size of one lossless PG by the formula
// of in (package headroom, the one the twin, lint, the doctor and config
// gen use) and shows every term.
func Headroom(in HeadroomInput) *Result {
	f := in.Formula
	if f == "" {
		f = headroom.Mellanox
		in.Formula = f
	}
	h := headroom.Compute(in.Input)
	r := &Result{Name: "PFC headroom (xoff, xon, size) of one lossless priority group"}
	from := func(name, def string) string {
		switch {
		case in.Given[name]:
			return "given"
		case in.ASIC != "" && (name == "cell_size" || name == "mac_phy_delay" || name == "pipeline_latency"):
			return "ASIC_TABLE " + in.ASIC + " (sonic-buildimage platform/mellanox/asic_table.j2)"
		}
		return "default: " + def
	}
	lossless := in.LosslessMTU
	if lossless == 0 {
		lossless = in.PortMTU
	}
	r.Formula = []string{
		"peer_response = pause_quanta(speed) × 512 / 8   (or response_time × speed / 8)",
		"bytes_on_cable = 2 × cable × speed / 1.98e8 m/s / 8",
		"propagation = port_mtu + bytes_on_cable + bytes_on_gearbox + mac_phy_delay + peer_response" + map[bool]string{true: " + kb_on_tile"}[in.KBOnTile && f == headroom.Mellanox],
	}
	switch {
	case in.CellOccupancy > 0:
		r.Formula = append(r.Formula, "cell_occupancy as given")
	case in.CellSize <= 0:
		r.Formula = append(r.Formula, "cell_occupancy = 1 (no cell size: bytes, not cells, are counted)")
	case f == headroom.Generic:
		r.Formula = append(r.Formula,
			"worst_case = cell / 64 if cell > 128, else 2·cell / (1 + cell)",
			"cell_occupancy = (100 − small% + small% × worst_case) / 100   (small% of packets)")
	default:
		r.Formula = append(r.Formula,
			"worst_case = ceil(cell / 64 if cell > 128, else 2·cell / (1 + cell))",
			"small_by_bytes = 100 × 64 / ((small% × 64 + (100 − small%) × lossless_mtu) / 100)",
			"cell_occupancy = (100 − small_by_bytes + small_by_bytes × worst_case) / 100")
	}
	r.Formula = append(r.Formula, "xoff = ceil((lossless_mtu + propagation × cell_occupancy) / 1024) × 1024")
	if f == headroom.Mellanox {
		r.Formula = append(r.Formula, "  + 2 KiB when, without a shared headroom pool, xoff + 2 KiB < the all-small xoff (lua, sonic-swss #4757)")
		if in.Compensation > 0 {
			r.Formula = append(r.Formula, "  + the ASIC's compensation (Spectrum-6: 18 KiB)")
		}
	}
	r.Formula = append(r.Formula, "xon = ceil(pipeline_latency / 1024) × 1024", "size = xon with a shared headroom pool, else xoff + xon")

	r.Inputs = []Quantity{
		{Name: "formula", Text: string(f), Source: f.Source()},
		q("speed", in.Speed.Gbps(), "Gbps", from("speed", "100G")),
		q("cable", in.Cable.Metres(), "m", from("cable", "3m")),
		bytesQ("port_mtu", float64(in.PortMTU), from("mtu", "SONiC's 9100")),
		bytesQ("lossless_mtu", float64(lossless), from("lossless_mtu", "port_mtu")),
		bytesQ("mac_phy_delay", in.MACPHYDelay, from("mac_phy_delay", "1 KiB")),
	}
	if in.CellOccupancy > 0 {
		r.Inputs = append(r.Inputs, q("cell_occupancy", in.CellOccupancy, "", from("cell_occupancy", "")))
	} else {
		r.Inputs = append(r.Inputs, q("cell_size", float64(in.CellSize), "B", from("cell_size", "0, bytes are counted")))
		if in.CellSize > 0 {
			r.Inputs = append(r.Inputs, q("small_packet_percentage", in.SmallPacketPercent, "%", from("small_packet_percentage", "50, SONiC's LOSSLESS_TRAFFIC_PATTERN (files/build_templates/buffers_config.j2)")))
		}
	}
	if in.ResponseTime > 0 {
		r.Inputs = append(r.Inputs, q("response_time", roundTo(in.ResponseTime.Seconds()*1e6, 4), "us", from("response_time", "")))
	}
	if in.GearboxDelay > 0 {
		r.Inputs = append(r.Inputs, q("gearbox_delay", in.GearboxDelay, "ns", from("gearbox_delay", "0")))
	}
	r.Inputs = append(r.Inputs, bytesQ("pipeline_latency", in.PipelineLatency, from("pipeline_latency", "0")))
	shp := "no: each PG reserves xoff + xon"
	if in.SharedHeadroomPool {
		shp = "yes: xoff is a threshold in the shared headroom pool"
	}
	r.Inputs = append(r.Inputs, Quantity{Name: "shared_headroom_pool", Text: shp, Source: from("shared_headroom_pool", "off")})

	peerSrc := fmt.Sprintf("%d quanta × 64 B (%s)", h.PauseQuanta, srcIEEEQuanta)
	switch {
	case in.ResponseTime > 0:
		peerSrc = fmt.Sprintf("response time %v at line rate", in.ResponseTime)
	case h.PauseQuanta == 0:
		peerSrc = "the ASIC's peer_response_time: the speed has no IEEE budget"
	}
	r.Outputs = []Quantity{bytesQ("peer_response", h.PeerResponse, peerSrc),
		bytesQ("bytes_on_cable", h.OnCable, "signal at 1.98e8 m/s, both directions")}
	if h.OnGearbox > 0 {
		r.Outputs = append(r.Outputs, bytesQ("bytes_on_gearbox", h.OnGearbox, "both directions"))
	}
	if h.OnTile > 0 {
		r.Outputs = append(r.Outputs, bytesQ("kb_on_tile", h.OnTile, "speed(Gb/s) × 120 / 8 (Spectrum-4/5, lua)"))
	}
	r.Outputs = append(r.Outputs, bytesQ("propagation", h.Propagation, "sum of the terms above"))
	if h.WorstCase > 0 {
		share := "of packets"
		if f == headroom.Mellanox {
			share = "of bytes (lua)"
		}
		r.Outputs = append(r.Outputs, q("worst_case", roundTo(h.WorstCase, 4), "", fmt.Sprintf("cell %d B", in.CellSize)),
			q("small_share", roundTo(h.SmallShare, 4), "%", share))
	}
	r.Outputs = append(r.Outputs, q("cell_occupancy", roundTo(h.Occupancy, 6), "", "factor on propagation"))
	xoffSrc := "the headroom each lossless PG needs on this port"
	if h.SmallCompensated {
		xoffSrc += " (2 KiB small-packet compensation added)"
	}
	r.Outputs = append(r.Outputs, bytesQ("xoff", float64(h.Xoff), xoffSrc),
		bytesQ("xon", float64(h.Xon), "pipeline latency"),
		bytesQ("size", float64(h.Size), "what BUFFER_PROFILE size holds"))
	r.Notes = []string{
		"Tested against NVIDIA's published pg_profile_lookup.ini of Spectrum-3, -4, -5 and -6 SKUs, every row (internal/headroom).",
		"Sizing xoff as a percentage of the port buffer (the 60–70 % rule of thumb) is folklore: what must fit is the data in flight after XOFF, which this formula counts.",
	}
	if in.CellSize <= 0 && in.CellOccupancy <= 0 {
		r.Notes = append(r.Notes, "Without --cell-size (or --asic) bytes are counted, not cells: a lower bound. A real ASIC stores small packets in whole cells and needs more.")
	}
	r.Sources = []string{f.Source(), srcIEEEQuanta}
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
