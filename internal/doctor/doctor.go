package doctor

import (
	"time"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Options tune a diagnosis.
type Options struct {
	// NICSpeed is the NIC line rate to judge bandwidth against when the
	// artifacts do not say it. Zero means unknown.
	NICSpeed unit.BitRate
	// NICsPerNode is the number of RDMA NICs of one node that carry the
	// job (diagnose --nics-per-node); zero means read it from the
	// artifacts.
	NICsPerNode int
	// Interval is the time between two dumps of a port when the dumps
	// carry no time of their own (diagnose --interval); zero when not
	// given.
	Interval time.Duration
	// SwitchRate is a switch port line rate another input states (lint:
	// a config_db's PORT speed), SwitchRateHow where it is; a switch's ECN
	// profile is judged at it when no NIC rate is known.
	SwitchRate    unit.BitRate
	SwitchRateHow string
	// SwitchRTT is the fabric's round trip another input states (lint: a
	// description's switch.ecn.rtt), SwitchRTTAt the line that states it;
	// a switch's ECN profile is judged at it. Zero: 20 µs, assumed.
	SwitchRTT   unit.Time
	SwitchRTTAt ingest.Evidence
	// SwitchXoff is where RoCE's priority group sends XOFF when one port
	// alone feeds a queue, as another input shows it (lint: a config_db's
	// buffers, its lowest port); 0 when none does.
	SwitchXoff unit.Bytes
	// RateHint tells how to state a line rate, for findings that assume
	// one ("" is diagnose's: pass --nic-speed).
	RateHint string
}

// rateHint is o.RateHint or diagnose's.
func (o Options) rateHint() string {
	if o.RateHint != "" {
		return o.RateHint
	}
	return "pass --nic-speed"
}

// An Incident is everything read from one set of inputs: the artifacts of
// every file, joined so that rules can tell one story across files.
type Incident struct {
	Options   Options
	Artifacts []ingest.Artifact
	// MTimes are the modification times of the input files (archive
	// members: their header times), by input name; they time a
	// before/after pair split over two files when nothing else does.
	MTimes map[string]time.Time
}

// All returns the incident's artifacts of type T, in input order. T is a
// concrete artifact type or an interface some artifacts implement (such as
// ingest.LinkSpeeder).
func All[T any](inc *Incident) []T {
	var out []T
	for _, a := range inc.Artifacts {
		if t, ok := a.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// ncclEnv returns the values the incident gives the named NCCL variable:
// NCCL's own echo in its logs and the settings made in commands, scripts,
// env files and manifests, in input order (echoes first within an input).
func ncclEnv(inc *Incident, name string) []ingest.NCCLSetting {
	var out []ingest.NCCLSetting
	for _, a := range inc.Artifacts {
		switch a := a.(type) {
		case *ingest.NCCLLog:
			out = append(out, a.EnvValues(name)...)
		case *ingest.NCCLSettings:
			out = append(out, a.Values(name)...)
		}
	}
	return out
}

// A Rule inspects an incident and returns its findings. A rule may return
// findings under several ids; each id it can return is listed in IDs.
type Rule struct {
	IDs   []string
	Check func(inc *Incident) []Finding
}

// rules lists every rule. Add one line per rule file.
func rules() []Rule {
	var rs []Rule
	rs = append(rs, ncclRules()...)
	rs = append(rs, softRoCERules()...)
	rs = append(rs, ncclGDRRules()...)
	rs = append(rs, ncclIBRules()...)
	rs = append(rs, ncclFailureRules()...)
	rs = append(rs, ncclHostRules()...)
	rs = append(rs, ncclP2PRules()...)
	rs = append(rs, ncclMNNVLRules()...)
	rs = append(rs, ncclGraphSearchRules()...)
	rs = append(rs, ncclBootstrapRules()...)
	rs = append(rs, ncclSocketRules()...)
	rs = append(rs, ncclLinkLayerRules()...)
	rs = append(rs, ncclTimeoutRules()...)
	rs = append(rs, ncclInitTimeRules()...)
	rs = append(rs, ncclTestsRules()...)
	rs = append(rs, ncclTestsStallRules()...)
	rs = append(rs, ncclTestsLaunchRules()...)
	rs = append(rs, ncclTestsJSONRules()...)
	rs = append(rs, compareRules()...)

	rs = append(rs, counterRules()...)
	rs = append(rs, physicalRules()...)
	rs = append(rs, fecRules()...)
	rs = append(rs, ethtoolJSONRules()...)
	rs = append(rs, ibPortRules()...)
	rs = append(rs, devlinkRules()...)
	rs = append(rs, rdmaResRules()...)
	rs = append(rs, bondRules()...)
	rs = append(rs, moduleRules()...)
	rs = append(rs, dcqcnRules()...)
	rs = append(rs, windowRules()...)
	rs = append(rs, faultRules()...)
	rs = append(rs, switchRules()...)
	rs = append(rs, switchBufferRules()...)
	rs = append(rs, collectRules()...)
	rs = append(rs, perftestRules()...)
	rs = append(rs, gidRules()...)
	rs = append(rs, qosRules()...)
	rs = append(rs, ccRules()...)
	rs = append(rs, hostRules()...)
	rs = append(rs, portRules()...)
	rs = append(rs, vfGUIDRules()...)
	rs = append(rs, gpuTopoRules()...)
	rs = append(rs, ncclTopoRules()...)
	rs = append(rs, nvlinkRules()...)
	rs = append(rs, mlxlinkRules()...)
	rs = append(rs, opticsRules()...)
	rs = append(rs, rasRules()...)
	rs = append(rs, lspciRules()...)
	rs = append(rs, nvsmiRules()...)
	rs = append(rs, gpuModelRules()...)
	rs = append(rs, numaRules()...)
	rs = append(rs, atsRules()...)
	rs = append(rs, virtRules()...)
	rs = append(rs, captureRule())
	return rs
}

// Check runs every rule over the incident and returns the sorted findings.
func Check(inc *Incident) []Finding {
	inc = perftestOnce(inc)
	inc = testsOnce(inc)
	var fs []Finding
	for _, r := range rules() {
		fs = append(fs, r.Check(inc)...)
	}
	Conform(fs)
	SortFindings(fs)
	return fs
}
