package ingest

import (
	"slices"
	"strings"
)

// Huawei CloudEngine's per-queue PFC and queue counters (CloudEngine 6800
// V300R023C00 command reference), two lines a queue:
//
// `display dcb pfc [interface PORT]` and `display abs-pfc [interface
// PORT]` (antilocking PFC's, the same table), the PFC frames per queue,
// received then sent. The queue is taken as the 802.1p priority of the
// PFC frames: the command reference calls it the "priority queue" and its
// DCB PFC `priority` a queue, and CloudEngine's default mapping takes
// 802.1p N to internal priority BE, AF1-AF4, EF, CS6, CS7 and those to
// queues 0-7 (the configuration guide's "Default Settings for Priority
// Mapping", Tables 2 and 4); a DiffServ domain that maps otherwise is not
// in these tables and is not seen here.
//
//	Interface         Queue         Received(Frames)        ReceivedRate(pps)     DeadlockNum
//	                             Transmitted(Frames)     TransmittedRate(pps)     RecoveryNum
//	-----------------------------------------------------------------------------------------
//	100GE1/0/1            3                118789880                    43517               0
//	                                               0                        0               0
//
// `display qos queue statistics interface PORT | slot N`, a block per
// interface, each queue's packets then bytes passed and dropped:
//
//	Queue statistics info: interface 10GE1/0/1
//	Queue   CIR/PIR              Passed     Pass Rate             Dropped     Drop Rate  Drop Time
//	    (% or kbps)     (Packets/Bytes)     (pps/bps)     (Packets/Bytes)     (pps/bps)
//	    6         0                1330             0                   0             0          -
//	      100000000              195356           152                   0             0
//
// The PFC frames become SwitchPFC rows per priority, a queue's PFC
// deadlocks detected and recovered from (DeadlockNum, RecoveryNum), when
// any, a WatchdogQueue row (its Status unknown, its drops not counted),
// the queues QueueCount rows (Type "ALL"), all marked HuaweiVRP; the
// rates, CIR, PIR and Drop Time are not read. A row that begins as one and does not
// go on as one is reported at its line and column.

// vrpDCB follows the two tables.
type vrpDCB struct {
	// pfc is set inside a PFC table, queues inside a queue statistics
	// table, from its header to a line that is neither rule nor row.
	pfc, queues bool
	// port is the interface of the rows: the PFC row's own, the queue
	// block's "Queue statistics info" line's or, before it, the echoed
	// command's.
	port string
	// first is the first line of a queue's two, waiting for its second
	// (nil when none waits); firstLine is its line.
	first     []string
	firstLine Line
	queue     int
	// skip is set after a first line reported bad: its second line is
	// passed over, not reported again.
	skip bool
}

// vrpPFCCmd and vrpQueueCmd name the commands in what a bad row expected.
const (
	vrpPFCCmd   = "`display dcb pfc`"
	vrpQueueCmd = "`display qos queue statistics`"
)

// feed reads l when it belongs to either table and reports whether it did.
func (v *vrpDCB) feed(p *switchParser, l Line, t string) bool {
	f := strings.Fields(t)
	switch {
	case len(f) == 0:
		return false
	case vrpDCBCommand(f):
		v.reset()
		v.port = vrpCmdPort(f)
		p.out.lines.add(l)
		return true
	case len(f) >= 5 && f[0] == "Interface" && f[1] == "Queue" && strings.HasPrefix(f[2], "Received(Frames)") && strings.HasSuffix(t, "DeadlockNum"):
		v.reset()
		v.pfc = true
	case len(f) == 5 && f[0] == "Queue" && f[1] == "statistics" && f[2] == "info:" && f[3] == "interface" && comwareName(f[4]):
		v.reset()
		v.port = strings.Clone(f[4])
	case len(f) >= 5 && f[0] == "Queue" && f[1] == "CIR/PIR" && f[2] == "Passed" && strings.Contains(t, "Dropped"):
		v.leavePFC()
		v.first, v.queues = nil, true
	case !v.pfc && !v.queues:
		return false
	case isRule(t), v.pfc && f[0] == "Transmitted(Frames)", v.queues && f[0] == "(%":
		// a rule, or the second line of the header
	case v.skip:
		v.skip = false
	case v.first != nil:
		v.second(p, l, f)
	case v.pfc && (len(f) >= 2 && comwareName(f[0]) && isDigits(f[1]) || isDigits(f[0]) && v.port != ""):
		v.pfcFirst(p, l, f)
	case v.queues && isDigits(f[0]):
		v.queueFirst(p, l, f)
	default:
		v.leavePFC()
		v.reset()
		return false
	}
	p.out.lines.add(l)
	return true
}

// leavePFC forgets the port of a PFC table's last row when the table
// ends: a queue table after it names its own port (its "Queue statistics
// info" line or its echoed command), or none is known.
func (v *vrpDCB) leavePFC() {
	if v.pfc {
		v.pfc, v.port = false, ""
	}
}

// reset leaves any table.
func (v *vrpDCB) reset() {
	v.pfc, v.queues, v.first, v.skip = false, false, nil, false
}

// vrpDCBCommand reports whether f is an echoed `display dcb pfc`,
// `display abs-pfc` or `display qos queue statistics` behind a VRP
// prompt (<HUAWEI>, [~HUAWEI]).
func vrpDCBCommand(f []string) bool {
	if len(f) < 3 || !(strings.HasPrefix(f[0], "<") && strings.HasSuffix(f[0], ">") || strings.HasPrefix(f[0], "[") && strings.HasSuffix(f[0], "]")) || f[1] != "display" {
		return false
	}
	cmd := strings.Join(f[2:], " ")
	return cmd == "dcb pfc" || strings.HasPrefix(cmd, "dcb pfc interface ") || cmd == "abs-pfc" || strings.HasPrefix(cmd, "abs-pfc interface ") || strings.HasPrefix(cmd, "qos queue statistics ")
}

// vrpCmdPort is the interface an echoed command names, as the tables
// print it (`interface 100ge 1/0/1` is 100GE1/0/1), or "".
func vrpCmdPort(f []string) string {
	for i, w := range f {
		if w != "interface" || i+1 >= len(f) {
			continue
		}
		name := f[i+1]
		if i+2 < len(f) && strings.ContainsAny(f[i+2], "/") {
			name += f[i+2]
		}
		if !comwareName(name) {
			return ""
		}
		if strings.EqualFold(strings.Trim(name, "0123456789/:."), "GE") {
			return strings.ToUpper(name) // 100ge 1/0/1 is 100GE1/0/1; Eth-Trunk1 keeps its case
		}
		return name
	}
	return ""
}

// pfcFirst reads a PFC row's first line: the port (or none, the last
// one's), the queue, the frames received, their rate and DeadlockNum.
func (v *vrpDCB) pfcFirst(p *switchParser, l Line, all []string) {
	f, off := all, 0
	if !isDigits(all[0]) {
		f, off = all[1:], 1
	}
	if len(f) != 4 {
		p.cut(l, os10FieldCol(l.Text, all, 0), "a queue's first line: [Interface,] Queue, Received(Frames), ReceivedRate(pps), DeadlockNum ("+vrpPFCCmd+"; this one has "+itoa(len(all))+" cells)")
		v.skip = true
		return
	}
	q, ok := vrpPrio(f[0])
	if !ok {
		p.cut(l, os10FieldCol(l.Text, all, off), "a queue, 0-7 ("+vrpPFCCmd+")")
		v.skip = true
		return
	}
	if i := badCount(f[1:]); i >= 0 {
		p.cut(l, os10FieldCol(l.Text, all, off+i+1), "a count under "+[]string{"Received(Frames)", "ReceivedRate(pps)", "DeadlockNum"}[i]+" ("+vrpPFCCmd+")")
		v.skip = true
		return
	}
	if off == 1 {
		v.port = strings.Clone(all[0])
	}
	v.first, v.firstLine, v.queue = f, l, q
}

// queueFirst reads a queue row's first line: the queue, CIR, the packets
// passed, their rate, the packets dropped, their rate, Drop Time.
func (v *vrpDCB) queueFirst(p *switchParser, l Line, f []string) {
	if len(f) < 7 {
		p.cut(l, os10FieldCol(l.Text, f, 0), "a queue's first line: Queue, CIR, Passed, Pass Rate, Dropped, Drop Rate, Drop Time ("+vrpQueueCmd+"; this one has "+itoa(len(f))+" cells)")
		v.skip = true
		return
	}
	q, ok := vrpPrio(f[0])
	if !ok {
		p.cut(l, os10FieldCol(l.Text, f, 0), "a queue, 0-7 ("+vrpQueueCmd+")")
		v.skip = true
		return
	}
	if i := badCount(f[2:6], 1, 3); i >= 0 {
		p.cut(l, os10FieldCol(l.Text, f, i+2), "a count under "+[]string{"Passed", "Pass Rate", "Dropped", "Drop Rate"}[i]+" ("+vrpQueueCmd+")")
		v.skip = true
		return
	}
	v.first, v.firstLine, v.queue = f, l, q
}

// second reads the second line of the row waiting: the PFC frames sent,
// their rate and RecoveryNum, or the queue's PIR, bytes passed, bps,
// bytes dropped and bps.
func (v *vrpDCB) second(p *switchParser, l Line, f []string) {
	first := v.first
	v.first = nil
	want, cmd, names := 3, vrpPFCCmd, []string{"Transmitted(Frames)", "TransmittedRate(pps)", "RecoveryNum"}
	if v.queues {
		want, cmd, names = 5, vrpQueueCmd, []string{"PIR", "Passed (bytes)", "Pass Rate (bps)", "Dropped (bytes)", "Drop Rate (bps)"}
	}
	if len(f) != want {
		p.cut(l, os10FieldCol(l.Text, f, 0), "the second line of a queue's row: "+strings.Join(names, ", ")+" ("+cmd+"; this one has "+itoa(len(f))+" cells)")
		return
	}
	check, rates := f, []int(nil)
	if v.queues {
		check, rates = f[1:], []int{1, 3} // PIR may be a percentage, a rate "-"
	}
	if i := badCount(check, rates...); i >= 0 {
		p.cut(l, os10FieldCol(l.Text, f, i+want-len(check)), "a count under "+names[i+want-len(check)]+" ("+cmd+")")
		return
	}
	ev1, ev2 := At(p.out.src, v.firstLine), At(p.out.src, l)
	if v.pfc {
		rx, _ := switchNum(first[1])
		tx, _ := switchNum(f[0])
		p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: v.port, Dir: RX, Prio: v.queue, Frames: rx, Platform: HuaweiVRP, Evidence: ev1}, maxSwitchRows, &p.out.Omitted)
		p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: v.port, Dir: TX, Prio: v.queue, Frames: tx, Platform: HuaweiVRP, Evidence: ev2}, maxSwitchRows, &p.out.Omitted)
		deadlocks, _ := switchNum(first[3])
		recoveries, _ := switchNum(f[2])
		if deadlocks > 0 || recoveries > 0 {
			p.out.WD = appendCapped(p.out.WD, WatchdogQueue{Port: v.port, Queue: v.queue, Detected: deadlocks, Restored: recoveries, Platform: HuaweiVRP, Evidence: ev1}, maxSwitchRows, &p.out.Omitted)
		}
		return
	}
	pkts, _ := switchNum(first[2])
	drops, _ := switchNum(first[4])
	bytes, _ := switchNum(f[1])
	dropBytes, _ := switchNum(f[3])
	port := v.port
	if port == "" {
		port = "?"
	}
	q := QueueCount{Port: port, Queue: v.queue, Type: "ALL", Packets: pkts, Bytes: bytes, DropPkts: int64(min(drops, 1<<63-1)), DropBytes: int64(min(dropBytes, 1<<63-1)), Platform: HuaweiVRP, Evidence: ev1}
	p.out.Queues = appendCapped(p.out.Queues, q, maxSwitchRows, &p.out.Omitted)
}

// vrpPrio reads a queue number, 0-7.
func vrpPrio(s string) (int, bool) {
	if len(s) != 1 || s[0] < '0' || s[0] > '7' {
		return 0, false
	}
	return int(s[0] - '0'), true
}

// badCount is the index of the first cell of f that is no count, -1 when
// all are; the cells at the indices dash may also be "-", a rate the
// switch could not collect (the command reference's Pass Rate: "If the
// information is displayed as -, the statistics on this item cannot be
// collected"), which is never read.
func badCount(f []string, dash ...int) int {
	for i, c := range f {
		if _, ok := switchNum(c); !ok && (c != "-" || !slices.Contains(dash, i)) {
			return i
		}
	}
	return -1
}
