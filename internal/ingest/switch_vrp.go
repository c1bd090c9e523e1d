package ingest

import (
	"strconv"
	"strings"
)

// Huawei VRP `display interface [PORT]` (CloudEngine, S and AR series): a
// block per interface whose first line gives its name and state,
//
//	10GE1/0/1 current state : UP (ifindex: 13)
//	Line protocol current state : UP
//	...
//	Input:  721 packets, 94635 bytes
//	  Unicast:                         18,  Multicast:                         410
//	  Broadcast:                      293,  Jumbo:                               0
//	  Discard:                          0,  Pause:                               0
//
//	  Total Error:                      0
//	  CRC:                              0,  Giants:                              0
//	  Runts:                            0,  Fragments:                           0
//
//	Output:  2326 packets, 239211 bytes
//	  Discard:                          0,  Pause:                               0
//
// Its counter lines are "Label: N" pairs under an "Input:" or "Output:"
// line, blank lines between their groups. Releases differ: older ones
// print "Discard: N,  Total Error: N" on one line and no Pause, the
// management port FCS for CRC, logical interfaces (Eth-Trunk, LoopBack)
// "N errors,N drops" under an "Input: N packets,N bytes" line; VRP8
// (NetEngine, ATN) "Input: N bytes, N packets", then its pairs under
// "Input:" alone, each "Label: N packets", RxPause and TxPause for
// Pause, LongPacket and Undersized Frame for Giants and Runts, and no
// discards or error total; CloudEngine V300 "Input :  N bytes,  N
// packets", then its "Label: N" pairs under "Input:" alone, Pause on a
// line of its own or beside Ignoreds, "--" for a counter it does not keep
// (Frames, Jabbers). The packets, Discard (drops), Total Error (errors),
// CRC (or FCS), Giants and Runts become a PortCount, Pause a SwitchPFC
// row over all priorities (Link). "-" and "--" are a counter the port
// does not keep.

// vrpIface follows the interface block being read.
type vrpIface struct {
	portBlock
	// sect is "in" or "out" under an "Input:" or "Output:" line, ""
	// elsewhere in the block.
	sect string
}

// vrpHeader reads a block's first line: "NAME current state : STATE".
func vrpHeader(t string) (port, state string, ok bool) {
	name, st, found := strings.Cut(t, " current state : ")
	if !found || !comwareName(name) {
		return "", "", false
	}
	st = strings.TrimSpace(st)
	switch {
	case strings.HasPrefix(st, "UP"):
		return name, "U", true
	case strings.HasPrefix(st, "Administratively DOWN"), strings.HasPrefix(st, "*DOWN"):
		return name, "X", true
	case strings.HasPrefix(st, "DOWN"):
		return name, "D", true
	}
	return "", "", false
}

// vrpSection reads an "Input: N packets, N bytes" or "Output: ..." line
// (VRP8: "Input: N bytes, N packets", then "Input:" alone over its
// pairs): its direction and its packets, -1 when it prints none ("Input:
// 0 bytes", "Input:").
func vrpSection(t string) (sect string, packets int64, ok bool) {
	label, rest, _ := strings.Cut(t, ":")
	switch strings.TrimSpace(label) { // CloudEngine V300: "Input :  N bytes,  N packets"
	case "Input":
		sect = "in"
	case "Output":
		sect = "out"
	default:
		return "", 0, false
	}
	packets = -1
	for _, it := range ifaceItems(rest) {
		if it.label == "packets" {
			packets = it.n
		}
	}
	rest = strings.TrimSpace(rest)
	return sect, packets, rest == "" || rest[0] >= '0' && rest[0] <= '9'
}

// vrpPair is one "Label: N" pair of a counter line.
type vrpPair struct {
	ifaceItem
	// name is the label as printed.
	name string
	// at is the byte offset of N in the line; bad is set when N is no
	// count (n is then -1).
	at  int
	bad bool
}

// vrpPairs splits a counter line into its "Label: N" pairs, labels lower
// case, N -1 for "-" or "--" (and for what is no count, marked bad), VRP8's "N
// packets" N; ok is false when a part is no "Label: value" pair.
func vrpPairs(t string) (out []vrpPair, ok bool) {
	off := 0
	for part := range strings.SplitSeq(t, ",") {
		label, v, found := strings.Cut(part, ":")
		at := off + len(label) + 1 + len(v) - len(strings.TrimLeft(v, " \t"))
		off += len(part) + 1
		label, v = strings.TrimSpace(label), strings.TrimSuffix(strings.TrimSpace(v), " packets")
		if !found || label == "" {
			return nil, false
		}
		pr := vrpPair{ifaceItem: ifaceItem{n: -1, label: strings.ToLower(label)}, name: label, at: at}
		if v != "-" && v != "--" {
			x, err := strconv.ParseInt(v, 10, 64)
			pr.bad = err != nil || x < 0
			if !pr.bad {
				pr.n = x
			}
		}
		out = append(out, pr)
	}
	return out, len(out) > 0
}

// feed reads l when it belongs to a VRP interface block and reports
// whether it did.
func (v *vrpIface) feed(p *switchParser, l Line, t string) bool {
	if port, state, ok := vrpHeader(t); ok {
		v.cur = PortCount{Port: strings.Clone(port), State: state, RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, Runts: -1, Giants: -1, Platform: HuaweiVRP}
		v.in, v.at, v.sect = true, -1, ""
		return false // a header alone is no table: the block counts once a counter is read
	}
	if !v.in || t == "" {
		return false
	}
	ev := At(p.out.src, l)
	if sect, n, ok := vrpSection(t); ok {
		v.sect = sect
		if n < 0 {
			return false
		}
		d := RX
		if sect == "out" {
			d = TX
		}
		v.count(portPackets, d, n, ev)
		return v.keep(p, l, ev, true)
	}
	if v.sect == "" {
		return false
	}
	pairs, isPairs := vrpPairs(t)
	for _, pr := range pairs {
		isPairs = isPairs && (!pr.bad || vrpCounters[pr.label])
	}
	if !isPairs {
		if t[0] < '0' || t[0] > '9' {
			// past the counters: bandwidth utilization (no count), a
			// trunk's members
			v.sect = ""
			return false
		}
		for _, it := range ifaceItems(t) { // a logical interface's "0 errors,0 drops"
			pairs = append(pairs, vrpPair{ifaceItem: it})
		}
	}
	d := RX
	if v.sect == "out" {
		d = TX
	}
	read := false
	for _, pr := range pairs {
		if !vrpCounters[pr.label] || d != RX && vrpRxOnly[pr.label] {
			continue
		}
		read = true
		if pr.bad {
			p.cut(l, strings.Index(l.Text, t)+pr.at+1, "Huawei VRP `display interface`'s "+pr.name+": a count (up to 2^63-1) or -")
			continue
		}
		switch pr.label {
		case "discard", "drops", "packet discards":
			v.count(portDrops, d, pr.n, ev)
		case "total error", "errors", "packet errors":
			v.count(portErrors, d, pr.n, ev)
		case "pause", "rxpause", "txpause":
			v.pause(p, d, pr.n, ev)
		case "crc", "fcs":
			v.cur.CRC, v.cur.ErrEvidence = pr.n, ev
		case "giants", "longpacket":
			v.cur.Giants = pr.n
		case "runts", "undersized frame":
			v.cur.Runts = pr.n
		}
	}
	return v.keep(p, l, ev, read)
}

// vrpCounters are the counter labels read (lower case); vrpRxOnly those
// read under Input only.
var (
	vrpCounters = map[string]bool{"discard": true, "drops": true, "packet discards": true, "total error": true, "errors": true, "packet errors": true, "pause": true, "rxpause": true, "txpause": true, "crc": true, "fcs": true, "giants": true, "longpacket": true, "runts": true, "undersized frame": true}
	vrpRxOnly   = map[string]bool{"crc": true, "fcs": true, "giants": true, "longpacket": true, "runts": true, "undersized frame": true}
)
