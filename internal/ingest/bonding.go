package ingest

import (
	"cmp"
	"strconv"
	"strings"
)

// KindBonding is the Linux bonding driver's report of a bond,
// `cat /proc/net/bonding/bond0`.
const KindBonding Kind = "bonding"

// Bonding holds the bonds /proc/net/bonding/<bond> describes (the
// kernel's drivers/net/bonding/bond_procfs.c): the bond's mode, transmit
// hash policy and MII status, for 802.3ad its active aggregator, then a
// block per port ("Slave Interface: eth1") with its MII status, speed,
// link failure count and, for 802.3ad, the aggregator it joined:
//
//	Bonding Mode: IEEE 802.3ad Dynamic link aggregation
//	Transmit Hash Policy: layer3+4 (1)
//	MII Status: up
//	...
//	Active Aggregator Info:
//	        Aggregator ID: 1
//	        Number of ports: 2
//	...
//	Slave Interface: reth0
//	MII Status: up
//	Speed: 400000 Mbps
//	Link Failure Count: 0
//	Aggregator ID: 1
//
// An 802.3ad bond that formed no aggregator says "bond bond0 has no
// active aggregator" instead, and its ports' Aggregator ID is N/A. The
// lines `grep PATTERN /proc/net/bonding/*` prints, each after its file's
// name, are read too.
type Bonding struct {
	Scoped
	artifactHead
	// Bonds are the bonds in input order.
	Bonds []Bond
}

// A Bond is one bond's report.
type Bond struct {
	Host string // pdsh prefix or prompt, else ""
	// Name is the bond's name as the command, a grep's file name or the
	// no-aggregator line gives it, "" when none does.
	Name string
	// Mode is the mode as printed, without fail_over_mac's note.
	Mode       string
	HashPolicy string // "layer3+4 (1)", "" when not printed
	MII        string // the bond's MII status, "" when not printed
	// Aggregator is the active aggregator's ID, 0 when none is printed;
	// NoAggregator is set when the bond says it has none.
	Aggregator, AggregatorPorts int
	NoAggregator                bool
	Slaves                      []BondSlave
	Evidence                    Evidence // the mode line, else the first line read
	AggregatorEvidence          Evidence // the active aggregator's ID, or the no-aggregator line
}

// A BondSlave is one port of a bond.
type BondSlave struct {
	Name string
	MII  string // "up", "down", "going back", ... as printed
	// SpeedMbps is the port's speed, 0 when Unknown or not printed.
	SpeedMbps int
	// Failures is the Link Failure Count; HasFailures is set when printed.
	Failures    uint64
	HasFailures bool
	// Aggregator is the 802.3ad aggregator the port joined, 0 for N/A or
	// not printed.
	Aggregator int
	Evidence   Evidence // the Slave Interface line
	// Lines are the port's MII, speed, failure count and aggregator
	// lines, as read.
	Lines []Evidence
}

// Kind returns KindBonding.
func (b *Bonding) Kind() Kind { return KindBonding }

// Bounds that keep memory bounded however large the input is.
const (
	maxBonds      = 1024
	maxBondSlaves = 64
)

type bondingParser struct {
	out    Bonding
	states originStates[bondingState]
}

// bondingState is what one origin's lines (a pdsh prefix's host, "" for
// none) have opened.
type bondingState struct {
	name   string // the bond the last command or grep file names
	bond   int    // index in Bonds of the bond being read, -1 for none
	inAgg  bool   // inside "Active Aggregator Info:"
	inPort bool   // past a "Slave Interface:" line
}

// NewBondingParser returns a parser for /proc/net/bonding reports in the
// input src.
func NewBondingParser(src string) Parser {
	return &bondingParser{out: Bonding{artifactHead: artifactHead{src: src}}, states: newOriginStates(func() *bondingState { return &bondingState{bond: -1} })}
}

// Feed implements Parser.
func (p *bondingParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	st := p.states.get(l.Origin)
	if st == nil {
		return
	}
	t := strings.TrimSpace(l.Text)
	if name, rest, ok := bondingFile(t); ok {
		// a grep's "/proc/net/bonding/bond0:Bonding Mode: ...": each
		// line names its bond
		if name != st.name {
			st.name, st.bond = name, -1
		}
		t = rest
	} else if strings.Contains(t, "/proc/net/bonding/") {
		st.name, st.bond = bondingPathName(t), -1
		return
	}
	key, val, ok := strings.Cut(t, ":")
	if !ok {
		if name, ok := noAggregator(t); ok {
			if b := p.bondFor(st, l); b != nil {
				b.Name = cmp.Or(b.Name, name)
				b.NoAggregator, b.AggregatorEvidence = true, At(p.out.src, l)
				p.out.lines.add(l)
			}
			st.inAgg = false
			return
		}
		if t == "" {
			st.inAgg = false
		}
		return
	}
	val = strings.TrimSpace(val)
	switch key {
	case "Ethernet Channel Bonding Driver":
		st.bond = -1
		if b := p.bondFor(st, l); b != nil {
			p.out.lines.add(l)
		}
		return
	case "Bonding Mode":
		b := p.bondAt(st, l)
		if b == nil {
			return
		}
		mode, _, _ := strings.Cut(val, " (fail_over_mac")
		b.Mode, b.Evidence = strings.Clone(mode), At(p.out.src, l)
		p.out.lines.add(l)
		return
	}
	if st.bond < 0 {
		return
	}
	b := &p.out.Bonds[st.bond]
	p.field(st, b, l, key, val)
}

// bondAt returns the bond a mode line opens: a new one unless the bond
// being read has no mode yet (its driver line opened it).
func (p *bondingParser) bondAt(st *bondingState, l Line) *Bond {
	if st.bond >= 0 && p.out.Bonds[st.bond].Mode == "" && !st.inPort {
		return &p.out.Bonds[st.bond]
	}
	st.bond = -1
	return p.bondFor(st, l)
}

// bondFor returns the bond being read, opening one at l when none is.
func (p *bondingParser) bondFor(st *bondingState, l Line) *Bond {
	if st.bond >= 0 {
		return &p.out.Bonds[st.bond]
	}
	if len(p.out.Bonds) >= maxBonds {
		return nil
	}
	p.out.Bonds = append(p.out.Bonds, Bond{Host: strings.Clone(cmp.Or(l.Origin, l.Host)), Name: st.name, Evidence: At(p.out.src, l)})
	st.bond, st.inAgg, st.inPort = len(p.out.Bonds)-1, false, false
	return &p.out.Bonds[st.bond]
}

// field reads one "Key: value" line of the bond st is reading.
func (p *bondingParser) field(st *bondingState, b *Bond, l Line, key, val string) {
	var s *BondSlave
	if st.inPort && len(b.Slaves) > 0 {
		s = &b.Slaves[len(b.Slaves)-1]
	}
	ev := At(p.out.src, l)
	switch {
	case key == "Active Aggregator Info":
		st.inAgg = true
	case key == "Slave Interface":
		st.inAgg, st.inPort = false, true
		if len(b.Slaves) < maxBondSlaves {
			b.Slaves = append(b.Slaves, BondSlave{Name: strings.Clone(val), Evidence: ev})
		}
	case key == "Aggregator ID" && st.inAgg:
		b.Aggregator, _ = strconv.Atoi(val)
		b.AggregatorEvidence = ev
	case key == "Number of ports" && st.inAgg:
		b.AggregatorPorts, _ = strconv.Atoi(val)
	case key == "Transmit Hash Policy" && s == nil:
		b.HashPolicy = strings.Clone(val)
	case key == "MII Status" && s == nil:
		b.MII = strings.Clone(val)
	case key == "MII Status":
		s.MII = strings.Clone(val)
		s.Lines = append(s.Lines, ev)
	case key == "Speed" && s != nil:
		if n, ok := strings.CutSuffix(val, " Mbps"); ok {
			s.SpeedMbps, _ = strconv.Atoi(n)
		}
		s.Lines = append(s.Lines, ev)
	case key == "Link Failure Count" && s != nil:
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return
		}
		s.Failures, s.HasFailures = n, true
		s.Lines = append(s.Lines, ev)
	case key == "Aggregator ID" && s != nil:
		s.Aggregator, _ = strconv.Atoi(val)
		s.Lines = append(s.Lines, ev)
	case bondingKeys[key]:
	default:
		return
	}
	p.out.lines.add(l)
}

// bondingKeys are the report's other keys: read as its lines, not kept.
var bondingKeys = map[string]bool{
	"Primary Slave": true, "Currently Active Slave": true, "MII Polling Interval (ms)": true,
	"Up Delay (ms)": true, "Down Delay (ms)": true, "Peer Notification Delay (ms)": true,
	"LACP rate": true, "LACP active": true, "Min links": true, "Aggregator selection policy (ad_select)": true,
	"System priority": true, "System MAC address": true, "Actor Key": true, "Partner Key": true,
	"Partner Mac Address": true, "Duplex": true, "Permanent HW addr": true, "Slave queue ID": true,
	"Actor Churn State": true, "Partner Churn State": true, "Actor Churned Count": true, "Partner Churned Count": true,
	"ARP Polling Interval (ms)": true, "ARP IP target/s (n.n.n.n form)": true, "802.3ad info": true,
}

// bondingFile splits a grep's "/proc/net/bonding/bond0:Key: value" into
// the bond's name and the line, trimmed: grep keeps the file's
// indentation ("bond0:\tAggregator ID: 1").
func bondingFile(t string) (name, rest string, ok bool) {
	const dir = "/proc/net/bonding/"
	if !strings.HasPrefix(t, dir) {
		return "", "", false
	}
	name, rest, ok = strings.Cut(t[len(dir):], ":")
	if !ok || name == "" || strings.ContainsAny(name, " \t*") {
		return "", "", false
	}
	return strings.Clone(name), strings.TrimSpace(rest), true
}

// bondingPathName is the bond a command line's /proc/net/bonding path
// names ("cat /proc/net/bonding/bond0"), "" for a glob or none.
func bondingPathName(t string) string {
	_, after, _ := strings.Cut(t, "/proc/net/bonding/")
	f := strings.Fields(after)
	if len(f) == 0 || strings.ContainsAny(f[0], "*?[") {
		return ""
	}
	return strings.Clone(strings.Trim(f[0], "`'\""))
}

// noAggregator reads "bond bond0 has no active aggregator".
func noAggregator(t string) (string, bool) {
	name, ok := strings.CutPrefix(t, "bond ")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, " has no active aggregator")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return "", false
	}
	return strings.Clone(name), true
}

// Result implements Parser.
func (p *bondingParser) Result() Artifact {
	bonds := p.out.Bonds[:0]
	for _, b := range p.out.Bonds {
		if b.Mode != "" || len(b.Slaves) > 0 {
			bonds = append(bonds, b)
		}
	}
	p.out.Bonds = bonds
	if len(bonds) == 0 {
		return nil
	}
	return &p.out
}
