package doctor

import (
	"cmp"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Context across files. All inputs form one incident, but a fact holds
// where it was stated: a line rate, an NCCL version, a GPU–NIC distance or
// a GID table belongs to one host (and file), and mlx5_0 exists on every
// host. A rule that needs a fact about a subject looks for it in the
// subject's own file first, then in inputs known to come from the same
// host, then in inputs that say nothing of their host — and there only
// when they agree — and never in inputs known to come from another host.

// A reach grades how a fact stated in one input applies to a subject in
// another.
type reach int

const (
	// otherHost: the inputs are known to come from different hosts.
	otherHost reach = iota
	// unknownHost: neither input tells, or only one does.
	unknownHost
	// sameHost: both come from one host (a shared GUID or address, the
	// same host name, or one `rocelab collect` archive).
	sameHost
	// sameFile: the fact and the subject are in one input and no host
	// name tells them apart.
	sameFile
)

// reachOf grades how a fact stated in input fact applies to a subject in
// input subj.
func reachOf(subj, fact ingest.Scope) reach {
	same, known := subj.Host.Same(fact.Host)
	switch {
	case known && !same:
		return otherHost
	case subj.Source == fact.Source:
		return sameFile
	case known:
		return sameHost
	}
	return unknownHost
}

// scopedSpeed is a line rate an input states, with that input's scope.
type scopedSpeed struct {
	ingest.LinkSpeed
	scope ingest.Scope
}

// speedsFor returns the line rates stated in the incident that may apply
// to a subject in scope at on host (the subject's own, when its input
// names several; else its input's): those of its own file and host when
// there are any, else those of inputs that do not say their host. Rates
// known to be of another host are never returned, whether the input or
// the line (a pdsh paste's) says so; nor a rate above what the subject's
// NIC model can run (see modelRate).
func speedsFor(inc *Incident, at ingest.Scope, host string) (near, far []scopedSpeed) {
	limit, _ := modelRate(inc, at)
	for _, a := range All[ingest.LinkSpeeder](inc) {
		art, ok := a.(ingest.Artifact)
		if !ok {
			continue
		}
		sc := art.Scope()
		r := reachOf(at, sc)
		for _, s := range a.LinkSpeeds() {
			if s.Rate <= 0 || limit > 0 && s.Rate > limit || !hostsAgree(s.Host, host) {
				continue
			}
			switch r {
			case sameFile, sameHost:
				near = append(near, scopedSpeed{s, sc})
			case unknownHost:
				far = append(far, scopedSpeed{s, sc})
			}
		}
	}
	return near, far
}

// nicPortRate returns the NIC line rate to judge a subject of host (""
// for its input's) in scope at against: --nic-speed; else the rate its
// own file or host states for device, or the one rate they state; else
// the one rate the inputs that do not say their host agree on. ok is
// false when unknown or ambiguous.
func nicPortRate(inc *Incident, at ingest.Scope, host, device string) (unit.BitRate, Evidence, bool) {
	if inc.Options.NICSpeed > 0 {
		return inc.Options.NICSpeed, Evidence{File: "--nic-speed", Text: inc.Options.NICSpeed.String()}, true
	}
	near, far := speedsFor(inc, at, cmp.Or(host, at.Host.Name))
	if device != "" {
		for _, s := range near {
			if s.Device == device {
				return s.Rate, s.Evidence, true
			}
		}
	}
	if s, ok := oneRate(near); ok {
		return s.Rate, s.Evidence, true
	}
	if len(near) > 0 {
		return 0, Evidence{}, false
	}
	if s, ok := oneRate(far); ok {
		return s.Rate, s.Evidence, true
	}
	return 0, Evidence{}, false
}

// oneRate returns the first speed when all of ss state the same rate.
func oneRate(ss []scopedSpeed) (scopedSpeed, bool) {
	if len(ss) == 0 {
		return scopedSpeed{}, false
	}
	for _, s := range ss[1:] {
		if s.Rate != ss[0].Rate {
			return scopedSpeed{}, false
		}
	}
	return ss[0], true
}

// mlx5Models maps the firmware major version of an NVIDIA (Mellanox)
// adapter to its family and fastest port: the major number names the
// family in every mlx5 firmware release (ConnectX-5 runs 16.x, ConnectX-7
// 28.x), as `ibv_devinfo` fw_ver and the driver's "firmware version" line
// print it.
var mlx5Models = map[int]struct {
	name string
	max  unit.BitRate
}{
	12: {"ConnectX-4", 100 * unit.Gbps},
	14: {"ConnectX-4 Lx", 50 * unit.Gbps},
	16: {"ConnectX-5", 100 * unit.Gbps},
	20: {"ConnectX-6", 200 * unit.Gbps},
	22: {"ConnectX-6 Dx", 200 * unit.Gbps},
	24: {"BlueField-2", 200 * unit.Gbps},
	26: {"ConnectX-6 Lx", 50 * unit.Gbps},
	28: {"ConnectX-7", 400 * unit.Gbps},
	32: {"BlueField-3", 400 * unit.Gbps},
	40: {"ConnectX-8", 800 * unit.Gbps},
}

// modelRate is the fastest port of the NIC model the subject's own file or
// host states (ibv_devinfo fw_ver), 0 when none or several models are
// stated.
func modelRate(inc *Incident, at ingest.Scope) (unit.BitRate, string) {
	var rate unit.BitRate
	name := ""
	for _, d := range All[*ingest.Devinfo](inc) {
		if r := reachOf(at, d.Scope()); r != sameFile && r != sameHost {
			continue
		}
		for _, dev := range d.Devices {
			major, _, _ := strings.Cut(dev.FWVer, ".")
			n, err := strconv.Atoi(major)
			if err != nil {
				continue
			}
			m, ok := mlx5Models[n]
			if !ok {
				continue
			}
			if name != "" && name != m.name {
				return 0, ""
			}
			rate, name = m.max, m.name
		}
	}
	return rate, name
}
