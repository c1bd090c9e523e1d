package doctor

import (
	"fmt"

	"rocelab/internal/headroom"
	"rocelab/internal/ingest"
)

// checkProfileHeadroom compares the xoff of each lossless buffer profile a
// switch prints (`mmuconfig -l`, `show buffer profile`) with the headroom
// package's floor for the speed and cable its buffermgrd name encodes
// (pg_lossless_<speed>_<cable>_profile): the Mellanox lua with SONiC's
// default lossless pattern and no cell overhead, which every ASIC of
// SONiC's table needs at least. lint's pfc.headroom.short and the twin's
// headroom: auto call the same function.
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
			in := headroom.Floor(pn.Speed, pn.Cable, mtu)
			if pn.Lanes8 {
				in.Lanes = 8
			}
			need := headroom.Compute(in).Xoff
			if p.Xoff >= int64(need) {
				continue
			}
			name := p.Name
			if s.Switch != "" {
				name = s.Switch + " " + p.Name
			}
			fs = append(fs, Finding{
				ID: "switch.headroom.short", Severity: Warn, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: xoff %d B is below the %d B any SONiC ASIC needs for %v on %v", name, p.Xoff, int64(need), pn.Speed, pn.Cable),
				Evidence: evidenceInOrder(p.Evidence),
				Mechanism: "After a port sends XOFF, the frame in progress, the cable's round trip, the switch's MAC/PHY pipeline and the peer's IEEE response time (394 quanta = 25216 B at 100G) still arrive, and xoff must hold them (sonic-swss buffer_headroom_mellanox.lua). " +
					fmt.Sprintf("The speed and cable are the profile name's; assumed, as the output does not say: port MTU %d, SONiC's default lossless pattern (mtu 1024, 50 %% small packets), MAC/PHY delay 0.8 KiB and no cell overhead, so the real ASIC needs more, not less.", mtu),
				Fix: fmt.Sprintf("Let SONiC's dynamic buffer model size the profile, or raise xoff to at least %d B; `rocelab calc headroom --speed %v --cable %v --asic <ASIC>` gives the ASIC's own figure.", int64(need), pn.Speed, pn.Cable),
			}.per(name, "buffer profile", "Switch PFC headroom below the formula"))
		}
	}
	return fs
}
