package ingest

import (
	"strconv"
	"strings"

	"rocelab/internal/nvue"
)

// NVIDIA Cumulus Linux's `nv show interface <swp> qos roce counters`
// prints, under the same "operational  applied" header as `nv show qos
// roce`, a tree of the port's RoCE counters: rx-stats and tx-stats, each
// with a section per kind of traffic (rx-roce-stats, tx-roce-stats,
// tx-cnp-stats, rx-pfc-stats, tx-pfc-stats, tx-ecn-stats). Its rows are
// a counter's name, its count (bytes with NVUE's unit) and a description.
// The output names no priority or traffic class: they are RoCE's, those
// `nv show qos roce` in the same input gives, else NVUE's RoCE mode's
// defaults: switch priority 3 and traffic class 3, its CNPs on switch
// priority and traffic class 6 (Cumulus Linux user guide, "RDMA over
// Converged Ethernet - RoCE", Default RoCE Configuration).
const (
	nvueRoCEPrio = 3
	nvueCNPPrio  = 6
)

// NVUERoCE is what `nv show qos roce` says of RoCE's classes.
type NVUERoCE struct {
	// Prio is RoCE's switch priority (the first PFC priority), TC the
	// traffic class it leaves by, CNPTC that of the CNPs' priority 6.
	Prio, TC, CNPTC int
	// Mode is RoCE's mode (lossless, lossy, ...).
	Mode string
	// Lossless are the traffic classes the PFC priorities leave by (the
	// SP->TC map), none in a lossy mode.
	Lossless []int
	Evidence Evidence
}

// nvueDefaultRoCE is NVUE's RoCE mode as it is when no `nv show qos roce`
// says otherwise.
var nvueDefaultRoCE = NVUERoCE{Prio: nvueRoCEPrio, TC: 3, CNPTC: nvueCNPPrio, Mode: "lossless", Lossless: []int{3}}

// isNVUERoCECounters reports whether the block is that tree rather than
// `nv show qos roce`'s table: its command line says so, or it has one of
// the tree's sections (a paste cut before rx-roce-stats still has
// rx-stats).
func isNVUERoCECounters(b nvueBlock) bool {
	if b.counters {
		return true
	}
	for _, l := range b.lines {
		if f := strings.Fields(l.Text); len(f) == 1 && (f[0] == "rx-stats" || f[0] == "tx-stats" || f[0] == "rx-roce-stats" || f[0] == "tx-roce-stats") {
			return true
		}
	}
	return false
}

// readRoCECounters reads the tree into the port's queue counts (RoCE's
// traffic class: packets and bytes sent, unicast-no-buffer-discard as its
// drops, approximate when NVUE printed it with a unit; the CNP class
// likewise), rx-roce-stats' no-buffer-discard as RoCE's ingress
// (priority group) drops, ECN marks and PFC frames (rx and tx
// pause-packets on RoCE's priority). A row of a section read whose count
// does not read is garbled at its place; sections not named above (the
// non-RoCE and buffer-usage rows) are not read, and a tree with no row
// of the RoCE sections is refused at its last line.
func readRoCECounters(o *SwitchCounters, b nvueBlock) {
	port := b.port
	if port == "" {
		port = "(interface not in the paste)"
	}
	r := nvueDefaultRoCE
	if o.NVUERoCE != nil {
		r = *o.NVUERoCE
	}
	roce := QueueCount{Port: port, Queue: r.TC, Type: "UC", DropPkts: -1, DropBytes: -1}
	cnp := QueueCount{Port: port, Queue: r.CNPTC, Type: "UC", DropPkts: -1, DropBytes: -1}
	wred := QueueWRED{Port: port, Queue: r.TC, Type: "UC", WREDDrop: -1, ECNMarks: -1}
	section, read := "", false
	for _, l := range b.lines {
		f := strings.Fields(l.Text)
		if len(f) == 1 {
			section = f[0]
			continue
		}
		if len(f) < 2 || !strings.HasPrefix(l.Text, " ") {
			continue
		}
		var q *QueueCount
		switch section {
		case "tx-roce-stats":
			q = &roce
		case "tx-cnp-stats":
			q = &cnp
		case "tx-ecn-stats", "rx-pfc-stats", "tx-pfc-stats", "rx-roce-stats":
		default:
			continue
		}
		read = true
		cell := f[1]
		if len(f) > 2 && nvueUnit(f[2]) {
			cell += " " + f[2]
		}
		v, ok := nvueCount(cell)
		if !ok {
			o.Garbled = append(o.Garbled, garbleAt(l, strings.Index(l.Text, f[1]),
				"`nv show interface <swp> qos roce counters` as NVUE prints it: a count under operational for "+f[0]))
			return
		}
		ev := At(o.src, l)
		switch {
		case q != nil && (f[0] == "roce-packets" || f[0] == "cnp-packets"):
			q.Packets, q.Evidence = v, ev
		case q != nil && (f[0] == "roce-bytes" || f[0] == "cnp-bytes"):
			q.Bytes = v
		case q != nil && f[0] == "unicast-no-buffer-discard":
			q.DropPkts, q.DropsApprox = int64(min(v, 1<<62)), strings.ContainsAny(cell, "KMG")
			if q.Evidence.Line == 0 || v > 0 {
				q.Evidence = ev
			}
		case section == "tx-ecn-stats" && f[0] == "ecn-marked-packets":
			wred.ECNMarks, wred.Evidence = int64(min(v, 1<<62)), ev
		case section == "rx-roce-stats" && f[0] == "no-buffer-discard":
			// RoCE dropped at ingress: its lossless priority group's
			// buffer and headroom overflowed. The output names no PG: it
			// is numbered as RoCE's traffic class, the doctor's lossless
			// set.
			o.PGDrops = appendCapped(o.PGDrops, PGDrop{Port: port, PG: r.TC, Packets: v, RoCE: true, Evidence: ev}, maxSwitchRows, &o.Omitted)
		case f[0] == "pause-packets":
			dir := RX
			if section == "tx-pfc-stats" {
				dir = TX
			}
			o.PFC = appendCapped(o.PFC, SwitchPFC{Port: port, Dir: dir, Prio: r.Prio, Frames: v, Evidence: ev}, maxSwitchRows, &o.Omitted)
		}
	}
	if !read {
		// Cut before the RoCE sections (only rx-non-roce-stats, say):
		// no RoCE count to give, and none to leave out silently.
		last := b.lines[len(b.lines)-1]
		o.Garbled = append(o.Garbled, garbleAt(last, 0,
			"`nv show interface <swp> qos roce counters` as NVUE prints it, with its RoCE sections (rx-roce-stats, rx-pfc-stats, tx-roce-stats, tx-pfc-stats, tx-ecn-stats): the paste ends before them"))
		return
	}
	for _, q := range []QueueCount{roce, cnp} {
		if q.Evidence.Line > 0 {
			o.Queues = appendCapped(o.Queues, q, maxSwitchRows, &o.Omitted)
		}
	}
	if wred.ECNMarks >= 0 {
		o.WRED = appendCapped(o.WRED, wred, maxSwitchRows, &o.Omitted)
	}
}

// nvueCount reads a count NVUE prints bare ("803785675319") or, for
// bytes, with its unit ("92824.38 GB").
func nvueCount(s string) (uint64, bool) {
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		return v, true
	}
	v, ok := nvue.Size(s)
	return uint64(v), ok && strings.Contains(s, " ")
}
