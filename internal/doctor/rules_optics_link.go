package doctor

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// A module that receives too little light and the switch port it sits in
// counting corrupted frames are one fault seen twice: the weak receiver
// is the cause, the CRC errors and uncorrectable FEC codewords its
// effect. The optics finding carries both; the port's link-errors finding
// is not reported on its own.

// portKey is a port's name as both a transceiver table and a counter
// table write it: lower case, EOS's "Et", NX-OS's "Eth" and the long
// "Ethernet" alike, and Cisco IOS's short names (`show interfaces
// transceiver`'s "Gi0/0/0", "Te1/1/1") as its long ones (`show
// interfaces`'s "GigabitEthernet0/0/0", "TenGigabitEthernet1/1/1").
func portKey(name string) string {
	k := strings.ToLower(name)
	for _, t := range portTypes {
		if rest, ok := strings.CutPrefix(k, t.long); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return t.short + rest
		}
	}
	return k
}

// portTypes are the long interface types and the short ones the same
// CLIs print ("eth" after "ethernet", which it begins).
var portTypes = []struct{ long, short string }{
	{"ethernet", "et"}, {"eth", "et"},
	{"fastethernet", "fa"}, {"gigabitethernet", "gi"}, {"twogigabitethernet", "tw"},
	{"tengigabitethernet", "te"}, {"twentyfivegige", "twe"}, {"fortygigabitethernet", "fo"},
	{"hundredgige", "hu"},
}

// onModule reports whether the counters' port is the module's: the same
// name, or one of its lanes (EOS's Ethernet3/17/1 of the module in
// Et3/17).
func onModule(port, module string) bool {
	_, sub := subport(port, module)
	return sub || portKey(module) != "" && portKey(port) == portKey(module)
}

// subport returns the number of a breakout port of the module (1 for
// Ethernet3/17/1 of the module in Et3/17), which EOS and NX-OS number by
// the first lane it carries.
func subport(port, module string) (int, bool) {
	m := portKey(module)
	if m == "" {
		return 0, false
	}
	lane, ok := strings.CutPrefix(portKey(port), m+"/")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(lane)
	return n, err == nil
}

// weakOn reports whether a port is on the module and a receiver of the
// lanes it carries is weak or dark: that receiver's finding then carries
// the port's link errors. A breakout port carries the lanes from its
// number up to the next breakout port of the module that the switch's
// counters name (all of them when it is the module's own port): a weak
// lane 1 does not corrupt the frames of the port on lane 2.
func weakOn(inc *Incident, host, port string, m ingest.Module) bool {
	if !onModule(port, m.Port) {
		return false
	}
	if n, ok := subport(port, m.Port); ok {
		end := math.MaxInt
		for _, s := range All[*ingest.SwitchCounters](inc) {
			if !hostsAgree(s.Switch, host) {
				continue
			}
			for _, p := range s.Ports {
				if k, ok := subport(p.Port, m.Port); ok && k > n {
					end = min(end, k)
				}
			}
			for _, r := range s.FEC {
				if k, ok := subport(r.Port, m.Port); ok && k > n {
					end = min(end, k)
				}
			}
		}
		var lanes []ingest.OpticLane
		var others []int
		for _, ln := range m.Lanes {
			if ln.Lane >= n && ln.Lane < end {
				lanes = append(lanes, ln)
			} else {
				others = append(others, ln.Lane)
			}
		}
		if len(lanes) == 0 {
			return false
		}
		m = withoutLanes(m, others)
		m.Lanes = lanes
	}
	return slices.ContainsFunc(judgeModule(m.Port, m), rxFault)
}

// hostsAgree reports whether counters and a module were read on one
// switch or host: their hosts agree, or either is unnamed.
func hostsAgree(a, b string) bool {
	return a == "" || b == "" || a == b
}

// rxFault reports whether a module's finding is one of its receiver's
// that explains errors on its link.
func rxFault(f Finding) bool {
	return (f.ID == "optics.rx.power" || f.ID == "optics.rx.dark") && f.Severity >= Warn
}

// linkErrorsOn returns the link errors the incident's counters count on
// the module's port, a switch's or a host NIC's (`ethtool -S`): what each
// says and its line. grave is set when a host's errors are an error of their own: over
// fcsErrorFraction of the frames received during a test (checkFCS).
func linkErrorsOn(inc *Incident, host string, m ingest.Module) (texts []string, evs []Evidence, grave bool) {
	samples, _ := ctrSamples(inc)
	for i := range samples {
		s := &samples[i]
		if s.Kind != ingest.KindEthtool || s.Device == "" || !hostsAgree(s.Host, host) || !weakOn(inc, host, s.Device, m) {
			continue
		}
		if r, ok := s.Concept(counters.PhyCRCErrors, counters.RX, 0); ok && r.Value > 0 {
			texts = append(texts, fmt.Sprintf("%s counts %s with a bad FCS (%s)", s.Device, plural(int(r.Value), "frame", "frames"), r.Name))
			evs = append(evs, readingsEvidence(r)...)
			if rx, ok := s.PortRxPackets(); ok && rx.Value > 0 && s.IsDelta() && float64(r.Value)/float64(rx.Value) >= fcsErrorFraction {
				grave = true
			}
		}
	}
	for _, s := range All[*ingest.SwitchCounters](inc) {
		if !hostsAgree(s.Switch, host) {
			continue
		}
		for _, p := range s.Ports {
			if !weakOn(inc, host, p.Port, m) {
				continue
			}
			switch {
			case p.CRC > 0:
				texts = append(texts, fmt.Sprintf("%s counts %s with a bad CRC", p.Port, plural(int(p.CRC), "frame", "frames")))
			case p.RxErr > 0 && !p.IOS:
				texts = append(texts, fmt.Sprintf("%s counts %s received with errors", p.Port, plural(int(p.RxErr), "frame", "frames")))
			default:
				continue
			}
			evs = append(evs, p.ErrEvidence)
		}
		for _, r := range s.FEC {
			if r.Uncorrectable > 0 && weakOn(inc, host, r.Port, m) {
				texts = append(texts, fmt.Sprintf("%s counts %d FEC codewords it could not correct", r.Port, r.Uncorrectable))
				evs = append(evs, r.Evidence)
			}
		}
	}
	return texts, evs, grave
}

// withLinkErrors folds the port's link errors into the module's receiver
// finding.
func withLinkErrors(inc *Incident, host string, m ingest.Module, fs []Finding) []Finding {
	if m.Port == "" {
		return fs
	}
	// The weak lanes' finding before the dark ones': weak light is
	// what corrupts frames, a dark lane what leaves the link without it.
	at := -1
	for i, f := range fs {
		if rxFault(f) && (at < 0 || f.ID == "optics.rx.power") {
			at = i
		}
	}
	if at < 0 {
		return fs
	}
	texts, evs, grave := linkErrorsOn(inc, host, m)
	if len(texts) == 0 {
		return fs
	}
	f := &fs[at]
	if grave {
		f.Severity = Error
	}
	f.Title += "; " + strings.Join(texts, ", ") + ", the errors this receiver causes"
	f.Evidence = append(f.Evidence, evs...)
	f.Mechanism += " The port's own counters show it: the frames it received corrupted are those this receiver decoded wrong, so the optic, not the switch or RoCE's settings, is what loses them."
	return fs
}

// weakOpticOn reports whether the incident holds a module on the host's
// or switch's port whose receiver is judged weak or dark: that finding
// then carries the port's link errors.
func weakOpticOn(inc *Incident, host, port string) bool {
	for _, t := range All[*ingest.Transceiver](inc) {
		for _, m := range t.Modules {
			if m.Port != "" && hostsAgree(host, moduleHost(t, m)) && weakOn(inc, host, port, m) {
				return true
			}
		}
	}
	return false
}

// moduleHost is the host a module was read on: its prompt's, else the
// input's.
func moduleHost(t *ingest.Transceiver, m ingest.Module) string {
	if m.Host != "" {
		return m.Host
	}
	return t.Scope().Host.Name
}
