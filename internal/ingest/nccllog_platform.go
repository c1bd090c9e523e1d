package ingest

import (
	"strings"

	"rocelab/internal/unit"
)

// The EC2 instance type aws-ofi-nccl names at init ("NET/OFI Running on
// p5.48xlarge platform, Setting NCCL_TOPO_FILE ..."): it fixes the EFA
// bandwidth behind each NET device NCCL is given, which no port line
// states for EFA.

// efaDeviceRate is the EFA bandwidth behind one NCCL NET device of the
// instance types aws-ofi-nccl names: the instance's EFA bandwidth (EC2's
// accelerated computing specifications) over the NET devices the plugin
// exposes, one per GPU pair on p4d/p4de (4 x 100 Gbps EFA for 8 GPUs) and
// one per GPU from p5 on (8 x 400 Gbps: four 100 Gbps EFA on p5 and p5e,
// two 200 Gbps on p5en, one 400 Gbps on p6-b200, 3200 Gbps in all).
var efaDeviceRate = map[string]unit.BitRate{
	"p4d.24xlarge":     100 * unit.Gbps,
	"p4de.24xlarge":    100 * unit.Gbps,
	"p5.48xlarge":      400 * unit.Gbps,
	"p5e.48xlarge":     400 * unit.Gbps,
	"p5en.48xlarge":    400 * unit.Gbps,
	"p6-b200.48xlarge": 400 * unit.Gbps,
}

// platformLine reads the instance type of a "NET/OFI Running on <type>
// platform" line into PlatformSpeeds, once per host, when it is one whose
// EFA bandwidth efaDeviceRate knows.
func (l *NCCLLog) platformLine(host, msg string, ev Evidence) {
	rest, ok := strings.CutPrefix(msg, "NET/OFI Running on ")
	if !ok {
		return
	}
	name, _, ok := strings.Cut(rest, " platform")
	rate := efaDeviceRate[name]
	if !ok || rate == 0 {
		return
	}
	for _, s := range l.PlatformSpeeds {
		if s.Host == host {
			return
		}
	}
	l.PlatformSpeeds = append(l.PlatformSpeeds, LinkSpeed{Host: host, Device: "", Rate: rate, Evidence: ev})
}
