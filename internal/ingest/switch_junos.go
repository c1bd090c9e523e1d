package ingest

import (
	"strings"
)

// Juniper Junos `show interfaces extensive` (and `show interfaces <if>
// extensive`): a block per physical interface,
//
//	Physical interface: et-0/0/24, Enabled, Physical link is Up
//	  Input errors:
//	    Errors: 0, Drops: 0, Framing errors: 0, Runts: 0, ...
//	  Output errors:
//	    Carrier transitions: 3, Errors: 0, Drops: 0, ...
//	  Queue counters:       Queued packets  Transmitted packets      Dropped packets
//	    0                      29689243233          29689243233                    0
//	    4                                0                    0                    0
//	  MAC statistics:                      Receive         Transmit
//	    CRC/Align errors                         0                0
//	    MAC pause frames                         0                0
//	  MAC Priority Flow Control Statistics:
//	    Priority :  3                             0                0
//
// and `show interfaces queue`, a block per queue under the interface,
//
//	Queue: 4, Forwarding classes: no-loss
//	  Transmitted:
//	    Packets              :            1470816406                      0 pps
//	    Bytes                :          564883280956                     0 bps
//	    Tail-dropped packets :                     0                     0 pps
//	    RED-dropped packets  :                     0                     0 pps
//
// Each egress queue is a QueueCount (its drops: the queue counters'
// Dropped packets, or the tail, rate-limit and RED drops of `show
// interfaces queue`, their Total-dropped when printed); the priority rows
// are PFC frames received and sent per priority, the MAC statistics' "MAC
// pause frames" row 802.3x pause (SwitchPFC.Link); the error lines, the
// MAC statistics' Total packets and CRC/Align rows a PortCount. QFX's default lossless forwarding classes,
// fcoe and no-loss, are queues 3 and 4.

// junosSection is the part of an interface block being read.
type junosSection int

const (
	junosNone     junosSection = iota
	junosInErr                 // after "Input errors:"
	junosOutErr                // after "Output errors:"
	junosQueues                // the rows of "Queue counters:"
	junosPFC                   // the rows of "MAC Priority Flow Control Statistics:"
	junosQueued                // `show interfaces queue`: a queue's Queued: lines
	junosTransmit              // `show interfaces queue`: a queue's Transmitted: lines
)

// junosIface follows the interface block being read.
type junosIface struct {
	port string
	sect junosSection
	// pc are the port's counters, pcAt their row in p.out.Ports once a
	// counter was read, -1 before.
	pc   PortCount
	pcAt int
	// the queue of `show interfaces queue` being read, its row in
	// p.out.Queues (-1 before one); total is set once Total-dropped is.
	q     QueueCount
	qAt   int
	total bool
}

// junosHeader reads a block's first line: the interface and its state.
func junosHeader(t string) (port, state string, ok bool) {
	rest, found := strings.CutPrefix(t, "Physical interface: ")
	if !found {
		return "", "", false
	}
	f := strings.Split(rest, ", ")
	if len(f) < 2 || !isIdentName(strings.ReplaceAll(f[0], "/", "")) {
		return "", "", false
	}
	state = "U"
	for _, w := range f[1:] {
		switch {
		case w == "Administratively down" || w == "Disabled":
			state = "X"
		case w == "Physical link is Down" && state != "X":
			state = "D"
		}
	}
	return f[0], state, true
}

// feed reads l when it belongs to a Junos interface block and reports
// whether it did.
func (j *junosIface) feed(p *switchParser, l Line, t string) bool {
	if port, state, ok := junosHeader(t); ok {
		port = strings.Clone(port)
		*j = junosIface{port: port, pcAt: -1, qAt: -1, pc: PortCount{Port: port, State: state, RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, IOS: true}}
		return false // a header alone is no table: the block counts once a counter is read
	}
	if host, ok := junosPrompt(t); ok {
		// A command's prompt names the switch and ends the block.
		if p.out.Switch == "" {
			p.out.Switch = strings.Clone(host)
		}
		*j = junosIface{}
		return false
	}
	if j.port == "" {
		return false
	}
	key, val, kv := strings.Cut(t, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	switch {
	case t == "Input errors:":
		j.sect = junosInErr
		return false
	case t == "Output errors:":
		j.sect = junosOutErr
		return false
	case strings.HasPrefix(t, "Queue counters:") && strings.Contains(t, "Dropped packets"):
		j.sect = junosQueues
	case t == "MAC Priority Flow Control Statistics:":
		j.sect = junosPFC
	case key == "Queue" && kv:
		return j.queue(p, l, val)
	case j.qAt >= 0 && (t == "Queued:" || t == "Transmitted:"):
		j.sect = junosQueued
		if t == "Transmitted:" {
			j.sect = junosTransmit
		}
		return false
	case j.sect == junosInErr || j.sect == junosOutErr:
		return j.errors(p, l, t)
	case j.sect == junosQueues && t != "" && !kv:
		// Every line of the table is a row; the next title has a colon.
		return j.queueRow(p, l, t)
	case j.sect == junosPFC && key == "Priority" && kv:
		return j.pfcRow(p, l, val)
	case j.sect == junosTransmit && kv:
		return j.transmitted(p, l, key, val)
	case strings.HasPrefix(t, "Total packets") && !kv:
		// MAC statistics' frames received and sent: what the CRC errors
		// are a share of.
		rx, tx, ok := junosRxTx(t, "Total packets")
		if !ok {
			return false
		}
		j.pc.RxOK, j.pc.TxOK = rx, tx
		j.putPort(p, l)
	case strings.HasPrefix(t, "MAC pause frames") && !kv:
		// MAC statistics' 802.3x pause received and sent (PFC frames have
		// their own section).
		rx, tx, ok := junosRxTx(t, "MAC pause frames")
		if !ok {
			return false
		}
		ev := At(p.out.src, l)
		p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: j.port, Dir: RX, Prio: AllPrios, Frames: uint64(rx), Link: true, Global: true, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
		p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: j.port, Dir: TX, Prio: AllPrios, Frames: uint64(tx), Link: true, Global: true, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	case strings.HasPrefix(t, "CRC/Align errors"):
		f := strings.Fields(t[len("CRC/Align errors"):])
		v, ok := int64(0), len(f) == 2
		if ok {
			v, ok = junosCount(f[0])
		}
		if !ok {
			p.cut(l, len(l.Text)-len(strings.TrimLeft(l.Text, " \t"))+len("CRC/Align errors")+1, "`show interfaces extensive`'s CRC/Align errors: the frames received and sent with a bad CRC, two counts")
			p.out.lines.add(l)
			return true
		}
		j.pc.CRC, j.pc.ErrEvidence = v, At(p.out.src, l)
		j.putPort(p, l)
	default:
		if j.sect == junosQueues || j.sect == junosPFC {
			j.sect = junosNone
		}
		return false
	}
	p.out.lines.add(l)
	return true
}

// errors reads an "Errors: 0, Drops: 0, ..." line of the input or output
// errors.
func (j *junosIface) errors(p *switchParser, l Line, t string) bool {
	read := false
	for _, it := range strings.Split(t, ",") {
		k, v, ok := strings.Cut(it, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if k != "Errors" && k != "Drops" {
			continue
		}
		n, ok := junosCount(strings.TrimSpace(v))
		if !ok {
			p.cut(l, strings.Index(l.Text, it)+len(it)-len(strings.TrimLeft(v, " "))+1, "`show interfaces extensive`'s "+k+": a count")
			p.out.lines.add(l)
			return true
		}
		in := j.sect == junosInErr
		switch {
		case k == "Errors" && in:
			j.pc.RxErr = n
			if j.pc.CRC < 0 {
				j.pc.ErrEvidence = At(p.out.src, l)
			}
		case k == "Errors":
			j.pc.TxErr = n
		case in:
			j.pc.RxDrop, j.pc.Evidence = n, At(p.out.src, l)
		default:
			j.pc.TxDrop = n
			if n > 0 && j.pc.RxDrop <= 0 {
				j.pc.Evidence = At(p.out.src, l)
			}
		}
		read = true
	}
	if !read {
		j.sect = junosNone
		return false
	}
	j.putPort(p, l)
	p.out.lines.add(l)
	return true
}

// putPort stores the block's port counters, adding its row at the first.
func (j *junosIface) putPort(p *switchParser, l Line) {
	if j.pcAt >= 0 {
		p.out.Ports[j.pcAt] = j.pc
		return
	}
	if j.pc.Evidence.Line == 0 {
		j.pc.Evidence = At(p.out.src, l)
	}
	p.out.Ports, j.pcAt = appendCappedAt(p.out.Ports, j.pc, maxSwitchRows, &p.out.Omitted)
}

// queueRow reads a row of the queue counters: the queue, then its queued,
// transmitted and dropped packets.
func (j *junosIface) queueRow(p *switchParser, l Line, t string) bool {
	n, ok := junosRow(p, l, 0, strings.Fields(t), 64, "a `show interfaces extensive` queue counters row: the queue, its queued, transmitted and dropped packets")
	if ok {
		p.out.Queues = appendCapped(p.out.Queues, QueueCount{Port: j.port, Queue: int(n[0]), Type: "UC", Packets: uint64(n[2]), DropPkts: n[3], DropBytes: -1, Evidence: At(p.out.src, l)}, maxSwitchRows, &p.out.Omitted)
	}
	return true
}

// pfcRow reads "Priority :  3   rx   tx".
func (j *junosIface) pfcRow(p *switchParser, l Line, val string) bool {
	f := append([]string{""}, strings.Fields(val)...) // column 0 is "Priority :"
	n, ok := junosRow(p, l, strings.Index(l.Text, ":")+1, f, 8, "a `show interfaces extensive` PFC row: Priority :, the priority, the PFC frames received and sent")
	if !ok {
		return true
	}
	ev := At(p.out.src, l)
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: j.port, Dir: RX, Prio: int(n[1]), Frames: uint64(n[2]), Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: j.port, Dir: TX, Prio: int(n[1]), Frames: uint64(n[3]), Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// junosRow reads the four columns f of a row whose first number (the
// queue or priority) is under limit, the fields found in l from byte
// from on; "" stands for a column that is no number. A row that does not
// go on so is cut at the column that is not as expected.
func junosRow(p *switchParser, l Line, from int, f []string, limit int64, want string) ([4]int64, bool) {
	var n [4]int64
	if len(f) != 4 {
		p.cut(l, len(l.Text)+1, want+"; it has "+itoa(len(f))+" columns")
		return n, false
	}
	at := from
	first := true
	for i, s := range f {
		if s == "" {
			continue
		}
		at += strings.Index(l.Text[at:], s)
		v, ok := junosCount(s)
		if !ok || first && v >= limit {
			p.cut(l, at+1, want)
			return n, false
		}
		n[i], first = v, false
		at += len(s)
	}
	return n, true
}

// queue starts a queue of `show interfaces queue`: "Queue: 4, Forwarding
// classes: no-loss".
func (j *junosIface) queue(p *switchParser, l Line, val string) bool {
	num, _, _ := strings.Cut(val, ",")
	q, ok := junosCount(strings.TrimSpace(num))
	if !ok || q >= 64 {
		p.cut(l, strings.Index(l.Text, ":")+2, "`show interfaces queue`'s Queue: the queue's number, then its forwarding classes")
		p.out.lines.add(l)
		return true
	}
	j.q = QueueCount{Port: j.port, Queue: int(q), Type: "UC", DropBytes: -1, Evidence: At(p.out.src, l)}
	j.sect, j.total = junosNone, false
	p.out.Queues, j.qAt = appendCappedAt(p.out.Queues, j.q, maxSwitchRows, &p.out.Omitted)
	p.out.lines.add(l)
	return true
}

// transmitted reads a counter of a queue's Transmitted: lines ("Packets
// : 12  0 pps"); the per-colour RED lines under them ("Low : 0") and the
// rates are not read.
func (j *junosIface) transmitted(p *switchParser, l Line, key, val string) bool {
	f := strings.Fields(val)
	if len(f) == 0 || j.qAt < 0 {
		return false
	}
	if f[0] == "NA" || f[0] == "N/A" {
		p.out.lines.add(l)
		return true
	}
	n, ok := junosCount(f[0])
	if !ok {
		p.cut(l, strings.Index(l.Text, f[0])+1, "`show interfaces queue`'s "+key+": a count")
		p.out.lines.add(l)
		return true
	}
	q := &j.q
	switch key {
	case "Packets":
		q.Packets = uint64(n)
		if q.DropPkts == 0 {
			q.Evidence = At(p.out.src, l)
		}
	case "Bytes":
		q.Bytes = uint64(n)
	case "Tail-dropped packets", "RL-dropped packets", "RED-dropped packets":
		if !j.total && n > 0 {
			if q.DropPkts == 0 {
				q.Evidence = At(p.out.src, l) // the first line that counts drops
			}
			q.DropPkts += n
		}
	case "Total-dropped packets":
		q.DropPkts, j.total = n, true
		if n > 0 {
			q.Evidence = At(p.out.src, l)
		}
	default:
		p.out.lines.add(l)
		return true
	}
	p.out.Queues[j.qAt] = j.q
	p.out.lines.add(l)
	return true
}

// junosCount reads a count Junos prints (no separators).
func junosCount(s string) (int64, bool) {
	v, ok := switchNum(s)
	if !ok || strings.Contains(s, ",") || v > 1<<62 {
		return 0, false
	}
	return int64(v), true
}

// junosRxTx reads a MAC statistics row "LABEL  received  sent".
func junosRxTx(t, label string) (rx, tx int64, ok bool) {
	f := strings.Fields(t[len(label):])
	if len(f) != 2 {
		return 0, 0, false
	}
	rx, ok1 := junosCount(f[0])
	tx, ok2 := junosCount(f[1])
	return rx, tx, ok1 && ok2
}

// junosPrompt reads the host of a Junos operational prompt with its
// command: "user@qfx1> show interfaces queue".
func junosPrompt(t string) (string, bool) {
	before, cmd, ok := strings.Cut(t, "> ")
	_, host, at := strings.Cut(before, "@")
	if !ok || !at || !strings.HasPrefix(cmd, "show ") || !isIdentName(host) {
		return "", false
	}
	return host, true
}
