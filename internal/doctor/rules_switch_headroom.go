package doctor

import (
	"strings"

	"rocelab/internal/headroom"
	"rocelab/internal/ingest"
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
			name := strings.Join(strings.Fields(s.Switch+" "+p.Namespace+" "+p.Name), " ")
			f, short := NamedProfileShort("switch.headroom.short", name, p.Xoff, pn, "; assumed, as the output does not say")
			if !short {
				continue
			}
			f.Evidence = evidenceInOrder(p.Evidence)
			fs = append(fs, f.per(name, "buffer profile", "Switch PFC headroom below the formula"))
		}
	}
	return fs
}
