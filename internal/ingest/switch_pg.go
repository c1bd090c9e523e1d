package ingest

import (
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/sonic"
)

// PGDrop is the packets one ingress priority group dropped (`show
// priority-group drop counters`).
type PGDrop struct {
	Port    string
	PG      int
	Packets uint64
	// QoSGroup is set when PG is an NX-OS qos-group, NoDrop when the
	// output says the group is no-drop (its drop-type line).
	QoSGroup, NoDrop bool
	// Counter names a Nexus 9000 port's ingress drops over all its
	// qos-groups (PG -1: "Ingress Overflow Drop Pkts"), NoDropMask the
	// groups the same output gives a pause buffer, bit N for group N
	// (switch_nxos_cloudscale.go).
	Counter    string
	NoDropMask uint8
	// Approx is set when Packets was read back from a count NVUE printed
	// with a byte unit ("75.19 KB"); RoCE when the counter is RoCE's own
	// (NVUE rx-roce-stats), so the PG is RoCE's whatever its number.
	Approx, RoCE bool
	Evidence     Evidence
}

// NoDropGroups returns the qos-groups of NoDropMask.
func (d PGDrop) NoDropGroups() []int { return bitmapPrios(uint64(d.NoDropMask)) }

// QueueWRED is one egress queue of `show queue wredcounters`: packets WRED
// dropped and packets it marked CE instead; -1 when printed N/A.
type QueueWRED struct {
	Port               string
	Queue              int
	Type               string // "UC", "MC", "ALL" or "VOQ"
	WREDDrop, ECNMarks int64
	// AllPorts marks a queue of `show queue wredcounters --summary`
	// (switch_wredsum.go): its counts are summed over every port, and Port
	// is "". Part numbers the summaries one command printed (1, 2, ...):
	// wredstat prints one, untitled, per ASIC of a multi-ASIC switch.
	AllPorts bool
	Part     int
	// Namespace is the ASIC of a multi-ASIC switch, as the echoed
	// command's -n names it (wredstat prints no namespace title); "" when
	// nothing names it.
	Namespace string
	Evidence  Evidence
}

// swTitle classifies a table title, with or without the namespace a
// multi-ASIC switch appends ("... per PG: (Namespace asic0)").
func swTitle(t string) swTable {
	if i := strings.Index(t, ": (Namespace "); i > 0 && strings.HasSuffix(t, ")") {
		t = t[:i+1]
	}
	return swTitles[t]
}

// titleNamespace returns the namespace a title ends in, "" for none.
func titleNamespace(t string) string {
	i := strings.Index(t, ": (Namespace ")
	if i <= 0 || !strings.HasSuffix(t, ")") {
		return ""
	}
	return strings.Clone(strings.TrimSpace(t[i+len(": (Namespace ") : len(t)-1]))
}

// pgColumn returns N of a "PGN" column header, -1 for anything else.
func pgColumn(c string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(c, "PG"))
	if !strings.HasPrefix(c, "PG") || err != nil || n < 0 || n > 15 {
		return -1
	}
	return n
}

// pgColumns reports whether every column is a "PGN".
func pgColumns(cols []string) bool {
	for _, c := range cols {
		if pgColumn(c) < 0 {
			return false
		}
	}
	return len(cols) > 0
}

// pgRow reads a row of a per-PG table (watermarks, drops): one cell per
// header column, the PG its column names; the port by its name or its
// alias ("fortyGigE0/0").
func (p *switchParser) pgRow(f []string, ev Evidence) bool {
	if len(f) < 2 || len(f) != len(p.cols)+1 || !slashedName(f[0]) {
		return false
	}
	port := strings.Clone(f[0])
	k, na := naPGWM, true
	if p.table == swPGDrop {
		k = naPGDrop
	}
	defer func() { p.noteNA(k, na, ev) }()
	for i, c := range f[1:] {
		pg := pgColumn(p.cols[i])
		na = na && c == "N/A"
		v, ok := switchNum(c)
		if pg < 0 || !ok {
			continue
		}
		if p.table == swPGDrop {
			p.out.PGDrops = appendCapped(p.out.PGDrops, PGDrop{Port: port, PG: pg, Packets: v, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
			continue
		}
		p.out.PGs = appendCapped(p.out.PGs, PGWatermark{Port: port, PG: pg, Headroom: p.table == swPGHeadroom, Untitled: p.table == swPGUntitled, Bytes: v, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	}
	return true
}

// wredRow reads a `show queue wredcounters` row (with --voq, a row of a
// system port, "lc1|asic0|Ethernet0").
func (p *switchParser) wredRow(f []string, ev Evidence) bool {
	if len(f) != 6 || !queuePortName(f[0]) {
		return false
	}
	typ, num := splitQueueName(f[1])
	if typ == "" {
		return false
	}
	p.out.WRED = appendCapped(p.out.WRED, QueueWRED{Port: strings.Clone(f[0]), Queue: num, Type: typ, WREDDrop: numOr(f[2]), ECNMarks: numOr(f[4]), Namespace: p.titleNS, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// pfcPrioRow reads a `show pfc priority` row with package sonic's reader
// of it (the one lint uses): its priorities join the switch's PFC
// priorities.
func (p *switchParser) pfcPrioRow(raw string, ev Evidence) bool {
	_, v, ok := sonic.PFCPriorityRow(raw)
	if !ok {
		return false
	}
	prios, _ := sonic.Range(v.Text)
	for _, n := range prios {
		if !slices.Contains(p.out.PFCPrios, n) {
			p.out.PFCPrios = append(p.out.PFCPrios, n)
			p.out.PFCPrioEvs = append(p.out.PFCPrioEvs, ev)
		}
	}
	return true
}
