package ingest

import (
	"strings"
)

// Arista EOS `show hardware counter drop`: the drops the ASICs counted,
// summed by type, then one row per chip and counter:
//
//	Summary:
//	Total Adverse (A) Drops: 0
//	Total Congestion (C) Drops: 0
//	Total Packet Processor (P) Drops: 6668
//	Type  Chip         CounterName                    :           Count : First Occurrence    : Last Occurrence
//	---------------------------------------------------------------------------------------------------------------
//	P     Jericho10/1   dropVoqInIpv6UnspecifiedDestination :             391 : 2019-09-08 00:14:00 : 2019-09-24 21:53:43
//
// A (adverse) drops are the hardware's own faults (bad CRC on a fabric
// link, parity), C (congestion) drops full queues, P (packet processor)
// drops forwarding decisions (no route, a VLAN the port is not in).

// HWDrop is one row of `show hardware counter drop`, or one of its
// summary's totals (Chip and Counter "").
type HWDrop struct {
	// Type is "A", "C" or "P".
	Type          string
	Chip, Counter string
	Count         uint64
	Evidence      Evidence
}

// hwDropTotal reads a summary line "Total Congestion (C) Drops: 12".
func hwDropTotal(t string) (string, uint64, bool) {
	rest, ok := strings.CutPrefix(t, "Total ")
	if !ok {
		return "", 0, false
	}
	i := strings.Index(rest, ") Drops:")
	if i < 2 || rest[i-2] != '(' {
		return "", 0, false
	}
	typ := rest[i-1 : i]
	if typ != "A" && typ != "C" && typ != "P" {
		return "", 0, false
	}
	v, ok := switchNum(strings.TrimSpace(rest[i+len(") Drops:"):]))
	return typ, v, ok
}

// hwDropHeader reports whether t is the header of the counters' table.
func hwDropHeader(f []string) bool {
	return len(f) >= 5 && f[0] == "Type" && f[1] == "Chip" && f[2] == "CounterName" && f[3] == ":" && f[4] == "Count"
}

// hwDropRow reads a counter row: type, chip, counter, then " : "-split
// count and times.
func (p *switchParser) hwDropRow(t string, ev Evidence) bool {
	head, rest, ok := strings.Cut(t, " : ")
	f := strings.Fields(head)
	if !ok || len(f) != 3 || len(f[0]) != 1 || !strings.Contains("ACP", f[0]) {
		return false
	}
	cnt, _, _ := strings.Cut(rest, " : ")
	v, ok := switchNum(strings.TrimSpace(cnt))
	if !ok {
		return false
	}
	p.out.HWDrops = appendCapped(p.out.HWDrops, HWDrop{Type: strings.Clone(f[0]), Chip: strings.Clone(f[1]), Counter: strings.Clone(f[2]), Count: v, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}
