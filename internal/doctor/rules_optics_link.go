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

// surelyOneDevice reports whether counters and a module that hostsAgree
// were read on one device for certain: both name it, or they are one
// input. Otherwise they are joined by port name alone, which two
// switches' outputs share (every SONiC switch has an Ethernet0). A
// factory hostname (SONiC's "sonic", EOS's "localhost", Cumulus's
// "cumulus") names no device.
func surelyOneDevice(hostA, srcA, hostB, srcB string) bool {
	return srcA == srcB || namesDevice(hostA) && namesDevice(hostB)
}

// namesDevice reports whether a prompt's host names one device: not
// blank and not a network OS's factory hostname.
func namesDevice(h string) bool {
	switch strings.ToLower(h) {
	case "", "sonic", "localhost", "cumulus", "switch", "ubuntu":
		return false
	}
	return true
}

// rxFault reports whether a module's finding is one of its receiver's
// that explains errors on its link.
func rxFault(f Finding) bool {
	return (f.ID == "optics.rx.power" || f.ID == "optics.rx.dark") && f.Severity >= Warn
}

// linkErrorsOn returns the link errors the incident's counters count on
// the module's port, a switch's or a host NIC's (`ethtool -S`): what each
// says and its line: bad-FCS frames and symbol errors during carrier,
// not the standard FCS counter beside the driver's. grave is set when a host's errors, surely on the
// module's device, are an error of their own: over fcsErrorFraction of
// the frames received during a test (checkFCS).
//
// guessed lists the inputs joined to the module by port name alone.
func linkErrorsOn(inc *Incident, host, src string, m ingest.Module) (texts []string, evs []Evidence, grave bool, guessed []string) {
	samples, _ := ctrSamples(inc)
	for i := range samples {
		s := &samples[i]
		if !s.Netdev() || s.Device == "" || !hostsAgree(s.Host, host) || !weakOn(inc, host, s.Device, m) {
			continue
		}
		if r, ok := s.Concept(counters.PhyCRCErrors, counters.RX, 0); ok && r.Value > 0 && !besideDriver(inc, s, r, counters.PhyCRCErrors) {
			texts = append(texts, fmt.Sprintf("%s counts %s with a bad FCS (%s)", s.Device, plural(int(r.Value), "frame", "frames"), r.Name))
			evs = append(evs, readingsEvidence(r)...)
			f := readingFile(r)
			sure := surelyOneDevice(s.Host, f, host, src)
			if !sure {
				guessed = appendNew(guessed, f)
			}
			if rx, ok := s.PortRxPackets(); ok && sure && rx.Value > 0 && s.IsDelta() && float64(r.Value)/float64(rx.Value) >= fcsErrorFraction {
				grave = true
			}
		}
		if r, ok := s.Concept(counters.PhySymbolErrors, counters.RX, 0); ok && r.Value > 0 {
			// checkSymbolErrors leaves a weak receiver's symbol errors
			// to its finding.
			texts = append(texts, fmt.Sprintf("%s counts %d symbol errors during carrier (%s)", s.Device, r.Value, r.Name))
			evs = append(evs, readingsEvidence(r)...)
			if f := readingFile(r); !surelyOneDevice(s.Host, f, host, src) {
				guessed = appendNew(guessed, f)
			}
		}
	}
	for _, s := range All[*ingest.SwitchCounters](inc) {
		if !hostsAgree(s.Switch, host) {
			continue
		}
		n := len(texts)
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
		if len(texts) > n && !surelyOneDevice(s.Switch, s.Source(), host, src) {
			guessed = appendNew(guessed, s.Source())
		}
	}
	return texts, evs, grave, guessed
}

// readingFile is the input a counter reading was read from.
func readingFile(r ingest.Reading) string {
	if len(r.Evidence) == 0 {
		return ""
	}
	return r.Evidence[0].File
}

// appendNew appends s unless list holds it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// withLinkErrors folds the port's link errors into the module's receiver
// finding.
func withLinkErrors(inc *Incident, host, src string, m ingest.Module, fs []Finding) []Finding {
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
	texts, evs, grave, guessed := linkErrorsOn(inc, host, src, m)
	if len(texts) == 0 {
		return fs
	}
	f := &fs[at]
	if grave {
		f.Severity = Error
	}
	f.Evidence = append(f.Evidence, evs...)
	if len(guessed) > 0 {
		f.Title += "; " + strings.Join(texts, ", ") + " in " + strings.Join(guessed, ", ") + ", which may be another device's port of that name"
		f.Mechanism += " " + strings.Join(guessed, ", ") + " and this module's input do not both name the device they were read on, so they are joined by port name alone: if they were read on one device, the frames the port received corrupted are those this receiver decoded wrong; port names repeat from switch to switch, so this is for the reader to confirm."
		return fs
	}
	f.Title += "; " + strings.Join(texts, ", ") + ", the errors this receiver causes"
	f.Mechanism += " The port's own counters show it: the frames it received corrupted are those this receiver decoded wrong, so the optic, not the switch or RoCE's settings, is what loses them."
	return fs
}

// weakOpticOn reports whether the incident holds a module on the host's
// or switch's port (read from src) whose receiver is judged weak or dark,
// surely on the same device: that finding then carries the port's link
// errors.
func weakOpticOn(inc *Incident, host, src, port string) bool {
	for _, t := range All[*ingest.Transceiver](inc) {
		for _, m := range t.Modules {
			mh := moduleHost(t, m)
			if m.Port != "" && hostsAgree(host, mh) && surelyOneDevice(host, src, mh, t.Source()) && weakOn(inc, host, port, m) {
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
