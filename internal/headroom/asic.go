package headroom

import (
	"sort"
	"strings"

	"rocelab/internal/unit"
)

// ASIC is one row of SONiC's ASIC_TABLE: the parameters of a switch chip
// the headroom formula needs.
type ASIC struct {
	// Name is the ASIC_TABLE key, e.g. "MELLANOX-SPECTRUM-3".
	Name     string
	CellSize int
	// PipelineLatency, MACPHYDelay and PeerResponse are in bytes (the
	// table gives KiB: 19, 0.8, 3.8).
	PipelineLatency float64
	MACPHYDelay     float64
	PeerResponse    float64
	// KBOnTile and Compensation are the lua's per-generation terms.
	KBOnTile     bool
	Compensation float64
}

// Apply sets in's ASIC terms from a.
func (a ASIC) Apply(in *Input) {
	in.CellSize = a.CellSize
	in.PipelineLatency = a.PipelineLatency
	in.MACPHYDelay = a.MACPHYDelay
	in.PeerResponse = a.PeerResponse
	in.KBOnTile = a.KBOnTile
	in.Compensation = a.Compensation
}

// asics is sonic-buildimage platform/mellanox/asic_table.j2 (086b03bd):
// every Spectrum generation has mac_phy_delay 0.8 KiB and
// peer_response_time 3.8 KiB; cells are 96 B (Spectrum-1), 144 B (-2, -3),
// 192 B (-4, -5) and 256 B (-6); pipeline latency is 19 KiB, 42 KiB on
// Spectrum-6. kB on tile (Spectrum-4, -5) and the 18 KiB compensation
// (Spectrum-6) are buffer_headroom_mellanox.lua's.
var asics = func() []ASIC {
	const kib = 1024
	spc := func(gen string, cell int, pipeline float64) ASIC {
		name := "MELLANOX-SPECTRUM"
		if gen != "1" {
			name += "-" + gen
		}
		return ASIC{Name: name, CellSize: cell, PipelineLatency: pipeline * kib, MACPHYDelay: 0.8 * kib, PeerResponse: StaticPeerResponse}
	}
	out := []ASIC{spc("1", 96, 19), spc("2", 144, 19), spc("3", 144, 19), spc("4", 192, 19), spc("5", 192, 19), spc("6", 256, 42)}
	out[3].KBOnTile, out[4].KBOnTile = true, true
	out[5].Compensation = 18 * kib
	return out
}()

// LookupASIC returns the ASIC_TABLE row of name (case-insensitive).
func LookupASIC(name string) (ASIC, bool) {
	for _, a := range asics {
		if strings.EqualFold(a.Name, name) {
			return a, true
		}
	}
	return ASIC{}, false
}

// ASICNames lists the known ASIC_TABLE keys.
func ASICNames() []string {
	out := make([]string, len(asics))
	for i, a := range asics {
		out[i] = a.Name
	}
	return out
}

// platformASIC is asic_table.j2's platform2asic map (086b03bd).
var platformASIC = map[string]string{
	"x86_64-mlnx_lssn2700-r0": "1", "x86_64-mlnx_msn2010-r0": "1", "x86_64-mlnx_msn2100-r0": "1",
	"x86_64-mlnx_msn2410-r0": "1", "x86_64-mlnx_msn2700-r0": "1", "x86_64-mlnx_msn2700a1-r0": "1",
	"x86_64-mlnx_msn2700_simx-r0": "1", "x86_64-mlnx_msn2740-r0": "1", "x86_64-nvidia_sn2201-r0": "1",
	"x86_64-mlnx_msn3420-r0": "2", "x86_64-mlnx_msn3700c-r0": "2", "x86_64-mlnx_msn3700-r0": "2",
	"x86_64-mlnx_msn3700_simx-r0": "2", "x86_64-mlnx_msn3800-r0": "2",
	"x86_64-mlnx_msn4410-r0": "3", "x86_64-mlnx_msn4700_simx-r0": "3", "x86_64-mlnx_msn4700-r0": "3",
	"x86_64-mlnx_msn4600c-r0": "3", "x86_64-mlnx_msn4600-r0": "3", "x86_64-nvidia_sn4280_simx-r0": "3",
	"x86_64-nvidia_sn4800-r0": "3", "x86_64-nvidia_sn4800_simx-r0": "3", "x86_64-nvidia_sn4280-r0": "3",
	"x86_64-nvidia_sn5400-r0": "4", "x86_64-nvidia_sn5600-r0": "4", "x86_64-nvidia_sn5610n-r0": "4",
	"x86_64-nvidia_sn5400_simx-r0": "4", "x86_64-nvidia_sn5600_simx-r0": "4",
	"x86_64-nvidia_sn5640-r0": "5", "x86_64-nvidia_sn5640_simx-r0": "5",
	"x86_64-nvidia_sn6600_simx-r0": "6", "x86_64-nvidia_sn6600_ld-r0": "6", "x86_64-nvidia_sn6810_ld-r0": "6",
	"x86_64-nvidia_sn6810_ld_simx-r0": "6",
}

// PlatformASIC returns the ASIC of a SONiC platform string
// (DEVICE_METADATA|localhost|platform).
func PlatformASIC(platform string) (ASIC, bool) {
	gen, ok := platformASIC[platform]
	if !ok {
		return ASIC{}, false
	}
	name := "MELLANOX-SPECTRUM"
	if gen != "1" {
		name += "-" + gen
	}
	return LookupASIC(name)
}

// Platforms lists the platforms PlatformASIC knows, sorted.
func Platforms() []string {
	out := make([]string, 0, len(platformASIC))
	for p := range platformASIC {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// StaticPeerResponse is the peer response, in bytes, that NVIDIA's static
// pg_profile_lookup.ini tables were computed with (3.8 KiB on every
// Spectrum, at every speed), where the lua has used IEEE 802.3's budget
// per speed since sonic-swss #1930.
const StaticPeerResponse = 3.8 * 1024

// Floor is the input for a port whose ASIC is not known: the Mellanox
// formula with SONiC's default lossless pattern (mtu 1024, 50 % small
// packets, files/build_templates/buffers_config.j2), the MAC/PHY delay
// every ASIC_TABLE row has (0.8 KiB), and bytes rather than cells. Under
// the lua's IEEE response budget every ASIC of the table needs at least
// the xoff it gives; vendors' static tables ship less (StaticFloor).
func Floor(speed unit.BitRate, cable unit.Length, portMTU unit.Bytes) Input {
	return Input{Formula: Mellanox, Speed: speed, Cable: cable, PortMTU: portMTU, LosslessMTU: 1024, SmallPacketPercent: 50, MACPHYDelay: 0.8 * 1024}
}

// StaticFloor is Floor as the static tables were computed: a peer that
// answers within StaticPeerResponse. Of the 3607 rows of the 285
// pg_profile_lookup.ini files in sonic-buildimage (2026), 301 give less
// xoff than Floor and 54 less than StaticFloor, most of those for 2000 m
// cables.
func StaticFloor(speed unit.BitRate, cable unit.Length, portMTU unit.Bytes) Input {
	in := Floor(speed, cable, portMTU)
	in.FixedPeer, in.PeerResponse = true, StaticPeerResponse
	return in
}
