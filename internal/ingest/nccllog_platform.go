package ingest

import (
	"strings"

	"rocelab/internal/unit"
)

// The EC2 instance type aws-ofi-nccl names at init: it fixes the EFA
// bandwidth behind each NET device NCCL is given, which no port line
// states for EFA. The plugin names it in its platform line, printed when
// it sets NCCL_TOPO_FILE from a topology file it ships (p4d, p4de,
// g5.48xlarge; p5.48xlarge up to 1.14) or finds it set (src/platform-aws
// .cpp: "Running on %s platform, Setting NCCL_TOPO_FILE environment
// variable to %s" through 1.15, "..., topology file %s" from 1.16, "...,
// NCCL_TOPO_FILE environment variable is already set to %s"; 1.1.1-1.2.0
// printed "Running on P4d platform", the only type they knew), and in
// its tuner's choice ("Region base Tuner is chosen for platform: %s",
// "Model base ...", src/tuner/nccl_ofi_tuner.cpp), which names p5-p6 types
// whose platform line is no longer printed.
var platformPrefixes = []string{
	"NET/OFI Running on ",
	"NET/OFI Region base Tuner is chosen for platform: ",
	"NET/OFI Model base Tuner is chosen for platform: ",
}

// efaDeviceRate is the EFA bandwidth behind one NCCL NET device of the
// instance types aws-ofi-nccl names. The plugin gives NCCL one device per
// EFA with its SENDRECV protocol, the default on p4d/p4de (4 × 100 Gbps
// EFA, 8 A100s: 4 devices of 100 Gbps); with its RDMA protocol, the
// default from p5 on, one device per GPU over the EFAs beside it, speed
// the first rail's times the rails (src/nccl_ofi_rdma.cpp
// get_properties: port_speed *= max_group_size, 1.9.2: *= num_rails):
// 8 devices of 400 Gbps on p5/p5e (32 × 100 Gbps, EC2 docs efa-acc-inst-
// types: "up to 32 network cards ... 3200 Gbps"; the tuner's model:
// 12.5 GiB/s × 4 rails), p5en (16 × 200 Gbps: the plugin overrides the
// link speed to 200 Gbps, src/nccl_ofi_net.cpp; the tuner: 25 GiB/s × 2
// rails) and p6-b200 (one 400 Gbps EFA per GPU, two GPUs and two devices
// per PCIe switch as on p5en, platform-aws.cpp). Commit 2daf7d30 of
// github.com/aws/aws-ofi-nccl, tags v1.2.0-aws, v1.9.2-aws, v1.21.1.
var efaDeviceRate = map[string]unit.BitRate{
	"P4d":              100 * unit.Gbps,
	"p4d.24xlarge":     100 * unit.Gbps,
	"p4de.24xlarge":    100 * unit.Gbps,
	"p5.48xlarge":      400 * unit.Gbps,
	"p5e.48xlarge":     400 * unit.Gbps,
	"p5en.48xlarge":    400 * unit.Gbps,
	"p6-b200.48xlarge": 400 * unit.Gbps,
}

// platformLine reads the instance type of an aws-ofi-nccl platform or
// tuner line into PlatformSpeeds, once per host, when it is one whose
// EFA bandwidth efaDeviceRate knows.
func (l *NCCLLog) platformLine(host, msg string, ev Evidence) {
	name, ok := platformName(msg)
	rate := efaDeviceRate[name]
	if !ok || rate == 0 {
		return
	}
	for _, s := range l.PlatformSpeeds {
		if s.Host == host {
			return
		}
	}
	l.PlatformSpeeds = append(l.PlatformSpeeds, LinkSpeed{Host: host, Rate: rate, Evidence: ev, Basis: "the EFA behind each NET device of " + name + ", by aws-ofi-nccl's instance type"})
}

// platformName is the instance type a platform or tuner line names.
func platformName(msg string) (string, bool) {
	for _, p := range platformPrefixes {
		rest, ok := strings.CutPrefix(msg, p)
		if !ok {
			continue
		}
		if p == platformPrefixes[0] {
			name, _, ok := strings.Cut(rest, " platform")
			return name, ok
		}
		return strings.TrimSpace(rest), true
	}
	return "", false
}
