package ingest

import (
	"strconv"
	"strings"
)

// A FECSetting is one interface's forward error correction as `ethtool
// --show-fec <if>` prints it, with the block counts `ethtool -I
// --show-fec` adds where the driver reports them:
//
//	FEC parameters for eth0:
//	Supported/Configured FEC encodings: Auto RS
//	Active FEC encoding: RS
//	Statistics:
//	  corrected_blocks: 81234567
//	    Lane 0: 20112233
//	  uncorrectable_blocks: 4521
type FECSetting struct {
	Device string
	// Host is the host the reading is of when the input names one: a
	// pdsh or clush prefix, or the prompt of the command that printed
	// it; "" otherwise. One paste of several hosts holds each host's
	// readings of the same interface name.
	Host string
	// Configured is what the port was told to use ("Auto", "RS",
	// "BaseR", "Off"), Active what the link came up with ("RS",
	// "Off", "None"); "" when the output does not say.
	Configured []string
	Active     string
	// Corrected and Uncorrectable count FEC codewords (blocks) since the
	// driver started counting; HasStats is set when the output holds
	// either. UncorrectableLanes holds the per-lane counts of
	// uncorrectable blocks, when printed.
	Corrected, Uncorrectable uint64
	HasStats                 bool
	UncorrectableLanes       []uint64
	// Evidence holds the lines read, keyed "active", "configured",
	// "corrected" and "uncorrectable".
	Evidence map[string]Evidence
}

// fecLine reads one line of a --show-fec section; it reports whether the
// line was one.
func (p *ethtoolParser) fecLine(l Line, t string) bool {
	key, val, ok := strings.Cut(t, ":")
	if !ok {
		return false
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	at := At(p.out.src, l)
	if p.host == "" && l.Host != "" {
		p.host = l.Host
	}
	switch key {
	case "Supported/Configured FEC encodings", "Configured FEC encodings":
		f := p.fecSetting()
		f.Configured = strings.Fields(val)
		f.Evidence["configured"] = at
	case "Active FEC encoding":
		f := p.fecSetting()
		f.Active = val
		f.Evidence["active"] = at
	case "Statistics":
		return val == ""
	case "corrected_blocks", "uncorrectable_blocks":
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return false
		}
		f := p.fecSetting()
		f.HasStats = true
		p.fecLane = key == "uncorrectable_blocks"
		if p.fecLane {
			f.Uncorrectable = n
			f.Evidence["uncorrectable"] = at
		} else {
			f.Corrected = n
			f.Evidence["corrected"] = at
		}
	case "corrected_bits":
		// Bits, not blocks: kept as read, no rule weighs them yet.
		if _, err := strconv.ParseUint(val, 10, 64); err != nil {
			return false
		}
		p.fecLane = false
	default:
		lane, ok := strings.CutPrefix(key, "Lane ")
		if !ok || !isDigits(lane) {
			return false
		}
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return false
		}
		if f := p.fecSetting(); p.fecLane && len(f.UncorrectableLanes) < maxFECLanes {
			f.UncorrectableLanes = append(f.UncorrectableLanes, n)
		}
	}
	return true
}

// maxFECLanes bounds the per-lane counts kept for one interface: a port
// has at most eight lanes.
const maxFECLanes = 8

// fecSetting returns the interface's entry the current section fills,
// opening it on the section's first line; past MaxSamples entries a
// section fills one that is not kept, counted in Omitted.
func (p *ethtoolParser) fecSetting() *FECSetting {
	if p.fec != nil {
		return p.fec
	}
	host := p.host
	if p.origin != "" {
		host = p.origin
	}
	f := FECSetting{Device: p.dev, Host: host, Evidence: map[string]Evidence{}}
	if len(p.out.FEC) >= MaxSamples {
		p.out.Omitted++
		p.fec = &f
		return p.fec
	}
	p.out.FEC = append(p.out.FEC, f)
	p.fec = &p.out.FEC[len(p.out.FEC)-1]
	return p.fec
}
