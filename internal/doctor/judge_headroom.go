package doctor

import (
	"fmt"

	"rocelab/internal/headroom"
	"rocelab/internal/unit"
)

// HeadroomShort judges the xoff of a lossless buffer profile for both
// front ends (the doctor's switch.headroom.short on `mmuconfig -l` and
// `show buffer profile`, lint's pfc.headroom.short on BUFFER_PROFILE)
// against two floors for its port: need, SONiC's formula with the IEEE
// response budget (headroom.Floor or the ASIC's row), and static, the
// same with the vendors' static tables' fixed peer response
// (headroom.StaticFloor; 0 when not known). An xoff that holds need is
// not short (ok false); one that holds static but not need is Info (it
// holds while the peer answers a pause as fast as NVIDIA's tables
// assume); below both, or below need with no static floor known, Warn.
func HeadroomShort(xoff, need, static unit.Bytes) (sev Severity, ok bool) {
	switch {
	case xoff >= need:
		return Info, false
	case static > 0 && xoff >= static:
		return Info, true
	}
	return Warn, true
}

// NamedProfileShort is the finding id on a lossless buffer profile whose
// xoff is short of the floors its buffermgrd name
// (pg_lossless_<speed>_<cable>_profile) gives (Profile.Floors), judged by
// HeadroomShort; ok is false when xoff holds them. name is the profile as
// the finding names it; source ends the sentence that says the speed and
// cable are the name's, with why and what else is assumed. The caller adds
// the evidence.
func NamedProfileShort(id, name string, xoff int64, pn headroom.Profile, source string) (f Finding, ok bool) {
	need, static := pn.Floors()
	sev, short := HeadroomShort(unit.Bytes(xoff), need, static)
	if !short {
		return Finding{}, false
	}
	assumed := fmt.Sprintf("The speed and cable are the profile name's%s: port MTU %d, SONiC's default lossless pattern (mtu 1024, 50 %% small packets), MAC/PHY delay 0.8 KiB and no cell overhead, so the real ASIC needs more, not less.", source, pn.PortMTU())
	calc := fmt.Sprintf("`rocelab calc headroom --speed %v --cable %v --asic <ASIC>` gives the ASIC's own figure.", pn.Speed, pn.Cable)
	peer := headroom.StaticPeerResponse / 1024
	if sev == Info {
		return Finding{
			ID: id, Severity: Info, Layer: LayerFabric,
			Title: fmt.Sprintf("%s: xoff %d B covers the %d B of a peer that pauses within %.1f KiB (the vendors' static tables), not the %d B of the IEEE budget SONiC's formula uses, for %v on %v", name, xoff, int64(static), peer, int64(need), pn.Speed, pn.Cable),
			Mechanism: "Vendors' static pg_profile_lookup.ini tables were computed with a fixed peer response (NVIDIA's 3.8 KiB); sonic-swss #1930 (2021) made buffer_headroom_mellanox.lua use IEEE 802.3 31B.3.7's budget instead (394 quanta = 25216 B at 100G), and the dynamic buffer model sizes ports by it. " +
				"This xoff holds while the peer (a Spectrum switch, a ConnectX NIC) pauses within that; a peer that takes the IEEE budget can overrun it and drop lossless packets. " + assumed,
			Fix: fmt.Sprintf("Nothing for a fabric of peers that answer a pause within %.1f KiB; otherwise the dynamic buffer model (DEVICE_METADATA buffer_model dynamic), or xoff at least %d B; ", peer, int64(need)) + calc,
		}, true
	}
	return Finding{
		ID: id, Severity: Warn, Layer: LayerFabric,
		Title: fmt.Sprintf("%s: xoff %d B is below the %d B even a peer that pauses within %.1f KiB needs (the vendors' static tables), and the %d B of SONiC's formula with the IEEE budget, for %v on %v", name, xoff, int64(static), peer, int64(need), pn.Speed, pn.Cable),
		Mechanism: "After a port sends XOFF, the frame in progress, the cable's round trip, the switch's MAC/PHY pipeline and the peer's IEEE response time (394 quanta = 25216 B at 100G) still arrive, and xoff must hold them (sonic-swss buffer_headroom_mellanox.lua). " +
			assumed,
		Fix: fmt.Sprintf("Let SONiC's dynamic buffer model size the profile, or raise xoff to at least %d B; ", int64(need)) + calc,
	}, true
}
