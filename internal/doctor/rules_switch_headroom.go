package doctor

import (
	"fmt"

	"rocelab/internal/headroom"
	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// checkProfileHeadroom compares the xoff of each lossless buffer profile a
// switch prints (`mmuconfig -l`, `show buffer profile`) with the headroom
// package's floors for the speed and cable its buffermgrd name encodes
// (pg_lossless_<speed>_<cable>_profile): the Mellanox lua with SONiC's
// default lossless pattern and no cell overhead, with the IEEE response
// budget (headroom.Floor, which every ASIC of SONiC's table needs at
// least) and with the static tables' fixed peer response
// (headroom.StaticFloor, which vendors' shipped profiles mostly meet).
// Below the first but not the second is information, as lint's
// pfc.headroom.short has it; below both a warning.
func checkProfileHeadroom(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, p := range s.Profiles {
			pn, ok := headroom.ParseProfileName(p.Name)
			if !ok || p.Xoff <= 0 {
				continue
			}
			mtu := pn.MTU
			if mtu == 0 {
				mtu = 9100
			}
			need, staticNeed := pn.Floors()
			sev, short := HeadroomShort(unit.Bytes(p.Xoff), need, staticNeed)
			if !short {
				continue
			}
			name := p.Name
			if s.Switch != "" {
				name = s.Switch + " " + p.Name
			}
			assumed := fmt.Sprintf("The speed and cable are the profile name's; assumed, as the output does not say: port MTU %d, SONiC's default lossless pattern (mtu 1024, 50 %% small packets), MAC/PHY delay 0.8 KiB and no cell overhead, so the real ASIC needs more, not less.", mtu)
			f := Finding{
				ID: "switch.headroom.short", Severity: Warn, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: xoff %d B is below the %d B even a peer that pauses within %.1f KiB needs (the vendors' static tables), and the %d B of SONiC's formula with the IEEE budget, for %v on %v", name, p.Xoff, int64(staticNeed), headroom.StaticPeerResponse/1024, int64(need), pn.Speed, pn.Cable),
				Evidence: evidenceInOrder(p.Evidence),
				Mechanism: "After a port sends XOFF, the frame in progress, the cable's round trip, the switch's MAC/PHY pipeline and the peer's IEEE response time (394 quanta = 25216 B at 100G) still arrive, and xoff must hold them (sonic-swss buffer_headroom_mellanox.lua). " +
					assumed,
				Fix: fmt.Sprintf("Let SONiC's dynamic buffer model size the profile, or raise xoff to at least %d B; `rocelab calc headroom --speed %v --cable %v --asic <ASIC>` gives the ASIC's own figure.", int64(need), pn.Speed, pn.Cable),
			}
			if sev == Info {
				f.Severity = Info
				f.Title = fmt.Sprintf("%s: xoff %d B covers the %d B of a peer that pauses within %.1f KiB (the vendors' static tables), not the %d B of the IEEE budget SONiC's formula uses, for %v on %v", name, p.Xoff, int64(staticNeed), headroom.StaticPeerResponse/1024, int64(need), pn.Speed, pn.Cable)
				f.Mechanism = "Vendors' static pg_profile_lookup.ini tables were computed with a fixed peer response (NVIDIA's 3.8 KiB); sonic-swss #1930 (2021) made buffer_headroom_mellanox.lua use IEEE 802.3 31B.3.7's budget instead (394 quanta = 25216 B at 100G), and the dynamic buffer model sizes ports by it. " +
					"This xoff holds while the peer (a Spectrum switch, a ConnectX NIC) pauses within that; a peer that takes the IEEE budget can overrun it and drop lossless packets. " + assumed
				f.Fix = fmt.Sprintf("Nothing for a fabric of peers that answer a pause within %.1f KiB; otherwise the dynamic buffer model (DEVICE_METADATA buffer_model dynamic), or xoff at least %d B; `rocelab calc headroom --speed %v --cable %v --asic <ASIC>` gives the ASIC's own figure.", headroom.StaticPeerResponse/1024, int64(need), pn.Speed, pn.Cable)
			}
			fs = append(fs, f.per(name, "buffer profile", "Switch PFC headroom below the formula"))
		}
	}
	return fs
}
