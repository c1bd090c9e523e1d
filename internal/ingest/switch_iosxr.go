package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// Cisco IOS XR `show controllers <interface>` (Cisco 8000, NCS 5500): per
// interface, its state, the FEC codeword counts, and on a port that can
// run PFC the PFC frames and the PFC watchdog per traffic class,
//
//	Operational data for interface HundredGigE0/8/0/6:
//	State:
//	    Operational state: Down (Reason: Link is shutdown)
//	        FEC:
//	            Corrected Codeword Count: 0
//	            Uncorrected Codeword Count: 0
//	Priority flow control information for interface HundredGigE0/8/0/6:
//	    CoS  Status  Rx PFC Frames   Tx PFC Frames
//	    ---  ------  --------------  -------------
//	      3  on                 120              40
//	Traffic Class            :       0        1  ...        7
//	Watchdog Events          :       0        0  ...        0
//	Auto Restore Events      :       0        0  ...        0
//	Total Dropped Packets    :       0        0  ...        0
//	Watchdog SM state :  Traffic Class
//	                    7 6 5 4 3 2 1 0
//	                    - - - - M - - -
//
// The CoS rows are PFC frames per priority (the Tx column is absent on
// some releases); a CoS whose status is "on" is a lossless priority. The
// watchdog rows are a WatchdogQueue per traffic class the watchdog
// watches: its state machine monitoring (M) is "operational"; waiting
// for shutdown (S: the queue found stalled by pause at the last poll, to
// be shut after the shutdown multiplier's polls) and waiting to restore
// (R: the queue shut, its traffic dropped) are "stormed", a storm now; a
// class in no state ("-", D: disabled) is kept only when it counted
// events. Rows that do not go on as their header says are
// reported at their line and column.

// xrWatchdogRows are the watchdog statistics rows read, by their label.
var xrWatchdogRows = map[string]bool{"Watchdog Events": true, "Auto Restore Events": true, "Total Dropped Packets": true, "Dropped Packets": true}

// iosxrCtl follows the interface block being read.
type iosxrCtl struct {
	// port is the interface of the block, "" outside one.
	port  string
	state string // "U" or "D" from its Operational state, else ""
	// corr is the corrected codeword count while the uncorrected one is
	// awaited, -1 before it.
	corr int64
	// cosTx is set once a CoS header with a Tx column is read; cos while
	// CoS rows are read.
	cos, cosTx bool
	// tcs are the traffic classes of the watchdog header, wd their counts
	// by class, wdEv the line of their Watchdog Events row.
	tcs  []int
	wd   map[int]*WatchdogQueue
	wdEv Evidence
	// smOrder is set after "Watchdog SM state", to the classes of its
	// order line once read.
	smWait  bool
	smOrder []int
}

const xrCmd = "`show controllers` (IOS XR)"

// feed reads l when it belongs to an IOS XR controllers block and
// reports whether it did.
func (x *iosxrCtl) feed(p *switchParser, l Line, t string) bool {
	if port, ok := xrBlockPort(t, "Operational data for interface "); ok {
		x.flush(p)
		*x = iosxrCtl{port: port, corr: -1}
		p.out.lines.add(l)
		return true
	}
	if port, ok := xrBlockPort(t, "Priority flow control information for interface "); ok {
		if port != x.port {
			x.flush(p)
			*x = iosxrCtl{port: port, corr: -1}
		}
		p.out.lines.add(l)
		return true
	}
	if x.port == "" {
		return false
	}
	f := strings.Fields(t)
	key, val, kv := strings.Cut(t, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	switch {
	case x.smWait:
		return x.smLine(p, l, f)
	case kv && key == "Operational state":
		x.state = "D"
		if strings.HasPrefix(val, "Up") {
			x.state = "U"
		}
	case kv && key == "Corrected Codeword Count":
		x.corr = x.count(p, l, val, key)
	case kv && key == "Uncorrected Codeword Count":
		if u := x.count(p, l, val, key); u >= 0 && x.corr >= 0 {
			p.out.FEC = appendCapped(p.out.FEC, PortFEC{Port: x.port, State: x.state, Corrected: x.corr, Uncorrectable: u, SymbolErrors: -1, PreBER: -1, PostBER: -1, Platform: IOSXR, Evidence: At(p.out.src, l)}, maxSwitchRows, &p.out.Omitted)
		}
	case len(f) >= 5 && f[0] == "CoS" && f[1] == "Status":
		x.cos, x.cosTx = true, strings.Contains(t, "Tx PFC Frames")
	case x.cos && strings.Trim(strings.ReplaceAll(t, " ", ""), "-") == "":
	case x.cos && len(f) > 0 && isDigits(f[0]):
		x.cosRow(p, l, f)
	case kv && key == "Traffic Class":
		x.cos = false
		x.tcHeader(p, l, val)
	case kv && xrWatchdogRows[key]:
		x.wdRow(p, l, key, val)
	case kv && key == "Watchdog SM state":
		x.smWait = true
	default:
		x.cos = false
		return false
	}
	p.out.lines.add(l)
	return true
}

// xrBlockPort reads the interface of a block's title line.
func xrBlockPort(t, title string) (string, bool) {
	rest, ok := strings.CutPrefix(t, title)
	if !ok || !strings.HasSuffix(rest, ":") {
		return "", false
	}
	port := strings.TrimSuffix(rest, ":")
	if !slashedName(port) {
		return "", false
	}
	return strings.Clone(port), true
}

// count reads a count after a key, -1 (and the line reported) when it is
// none.
func (x *iosxrCtl) count(p *switchParser, l Line, val, key string) int64 {
	v, err := strconv.ParseInt(val, 10, 64)
	if err != nil || v < 0 {
		p.cut(l, strings.LastIndex(l.Text, val)+1, "a count after "+key+" ("+xrCmd+")")
		return -1
	}
	return v
}

// cosRow reads one priority's PFC status and frames.
func (x *iosxrCtl) cosRow(p *switchParser, l Line, f []string) {
	want := 3
	if x.cosTx {
		want = 4
	}
	q, err := strconv.Atoi(f[0])
	if err != nil || q > 7 || len(f) != want || f[1] != "on" && f[1] != "off" {
		p.cut(l, strings.Index(l.Text, f[0])+1, "a CoS row of "+xrCmd+": CoS 0-7, on or off, then "+itoa(want-2)+" PFC frame counts")
		return
	}
	ev := At(p.out.src, l)
	var counts [2]uint64
	for i, c := range f[2:] {
		v, ok := switchNum(c)
		if !ok {
			p.cut(l, os10FieldCol(l.Text, f, i+2), "a PFC frame count ("+xrCmd+")")
			return
		}
		counts[i] = v
	}
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: x.port, Dir: RX, Prio: q, Frames: counts[0], Platform: IOSXR, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	if x.cosTx {
		p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: x.port, Dir: TX, Prio: q, Frames: counts[1], Platform: IOSXR, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	}
	if f[1] == "on" && !slices.Contains(p.out.PFCPrios, q) {
		p.out.PFCPrios = append(p.out.PFCPrios, q)
		p.out.PFCPrioEvs = append(p.out.PFCPrioEvs, ev)
	}
}

// tcHeader reads the traffic classes over the watchdog statistics.
func (x *iosxrCtl) tcHeader(p *switchParser, l Line, val string) {
	x.flush(p)
	x.tcs, x.wd = x.tcs[:0], map[int]*WatchdogQueue{}
	for _, c := range strings.Fields(val) {
		q, err := strconv.Atoi(c)
		if err != nil || q < 0 || q > 7 {
			p.cut(l, strings.Index(l.Text, val)+1, "the traffic classes 0-7 over the watchdog statistics ("+xrCmd+")")
			x.tcs = nil
			return
		}
		x.tcs = append(x.tcs, q)
		x.wd[q] = &WatchdogQueue{Port: x.port, Queue: q, Platform: IOSXR}
	}
}

// wdRow reads one watchdog statistics row: a count per traffic class.
func (x *iosxrCtl) wdRow(p *switchParser, l Line, key, val string) {
	f := strings.Fields(val)
	if len(x.tcs) == 0 || len(f) != len(x.tcs) {
		p.cut(l, strings.Index(l.Text, ":")+2, "a watchdog row of "+xrCmd+" with a count per traffic class of its header")
		return
	}
	counts := make([]uint64, len(f))
	colon := strings.Index(l.Text, ":")
	for i, c := range f {
		v, ok := switchNum(c)
		if !ok {
			p.cut(l, colon+os10FieldCol(l.Text[colon+1:], f, i)+1, "a count in "+key+" ("+xrCmd+")")
			return
		}
		counts[i] = v
	}
	if key == "Watchdog Events" {
		x.wdEv = At(p.out.src, l)
	}
	for i, q := range x.tcs {
		w := x.wd[q]
		switch key {
		case "Watchdog Events":
			w.Detected = counts[i]
		case "Auto Restore Events":
			w.Restored = counts[i]
		case "Total Dropped Packets":
			w.TxDrop = counts[i]
		case "Dropped Packets":
			w.TxLastDrop = counts[i]
		}
	}
}

// smLine reads the watchdog state machine's two lines under "Watchdog SM
// state": the traffic classes in its order, then a state per class.
func (x *iosxrCtl) smLine(p *switchParser, l Line, f []string) bool {
	if x.smOrder == nil {
		for _, c := range f {
			q, err := strconv.Atoi(c)
			if err != nil || q < 0 || q > 7 {
				p.cut(l, 1, "the traffic classes of the watchdog state machine ("+xrCmd+")")
				x.smWait = false
				return true
			}
			x.smOrder = append(x.smOrder, q)
		}
		p.out.lines.add(l)
		return true
	}
	x.smWait = false
	if len(f) != len(x.smOrder) {
		p.cut(l, 1, "a watchdog state (D, M, S, R or -) per traffic class ("+xrCmd+")")
		return true
	}
	for i, q := range x.smOrder {
		w := x.wd[q]
		if w == nil {
			continue
		}
		switch f[i] {
		case "M":
			w.Status = "operational"
		case "S", "R":
			w.Status = "stormed"
		case "D", "-":
			w.Status = "N/A"
		default:
			p.cut(l, 1, "a watchdog state (D, M, S, R or -) per traffic class ("+xrCmd+")")
			return true
		}
	}
	p.out.lines.add(l)
	x.flush(p)
	return true
}

// flush keeps the watchdog rows of the block: the classes the watchdog
// watches, and those that counted events whatever their state.
func (x *iosxrCtl) flush(p *switchParser) {
	for _, q := range x.tcs {
		w := x.wd[q]
		if w.Status == "N/A" && w.Detected == 0 || w.Status == "" && w.Detected == 0 {
			continue
		}
		w.Evidence = x.wdEv
		p.out.WD = appendCapped(p.out.WD, *w, maxSwitchRows, &p.out.Omitted)
	}
	x.tcs, x.wd = nil, nil
}
