package ingest

import (
	"math"
	"strconv"
	"strings"
)

// Cisco NX-OS `show queuing interface ethernet X` as a Nexus 9000
// (cloud-scale ASIC) prints it: egress blocks per qos-group,
//
//	Egress Queuing for Ethernet1/51 [System]
//	+-------------------------------------------------------------+
//	|                              QOS GROUP 5                    |
//	+-------------------------------------------------------------+
//	|                           |  Unicast       |Multicast       |
//	+-------------------------------------------------------------+
//	|                   Tx Pkts |       202328436|               0|
//	| WRED/AFD & Tail Drop Pkts |               0|               0|
//
// then the ingress side: each qos-group's pause buffer (a group with
// one is no-drop), the port's ingress drops and its PFC frames per CoS,
//
//	Ingress Queuing for Ethernet1/51
//	QoS-Group#                 Pause
//	           Buff Size       Pause Th      Resume Th
//	      5         348608        77376        75712
//	Per Port Ingress Statistics
//	Ingress Overflow Drop Pkts                       19490
//	PFC Statistics
//	PFC_COS QOS_Group   TxPause             TxCount   RxPause             RxCount
//	      5         5  Inactive                 150  Inactive                   0
//
// A qos-group's Tx Pkts and WRED/AFD & Tail Drop Pkts (older releases:
// Dropped Pkts) are a QueueCount of the group (unicast and multicast
// apart); the port's Ingress Overflow (or
// MMU) Drop Pkts a PGDrop over all its groups (PG -1); the PFC rows PFC
// frames per priority. A grep that keeps only some of these lines is read
// too, its port from the echoed command ("show queuing interface e1/51").
// Q Depth Byts, WD & Tail Drop Pkts, the per-slice counters and the
// Hi/Low Priority Drop Pkts are not read, nor the CONTROL QOS GROUP and
// SPAN QOS GROUP blocks after the numbered ones (the switch's control
// plane and mirrored traffic: no data class).

// nxosCloud follows the output being read.
type nxosCloud struct {
	port string
	// group is the egress QOS GROUP block, -1 outside one; cols the
	// header's traffic types ("Unicast", "Multicast") column by column.
	group int
	cols  []string
	// at are the group's QueueCounts in p.out.Queues, column by column.
	at []int
	// system is set inside the CONTROL QOS GROUP or SPAN QOS GROUP block
	// that closes the egress side: the switch's own and mirrored traffic,
	// no data class's, so its rows are read and not judged.
	system bool
	// pause is set inside the ingress pause table, perPort inside "Per
	// Port Ingress Statistics", pfc under the PFC table's header.
	pause, perPort, pfc bool
	// noDrop are the qos-groups each port gives a pause buffer, bit N
	// for group N.
	noDrop map[string]uint8
}

// feed reads l when it belongs to the output and reports whether it did.
func (n *nxosCloud) feed(p *switchParser, l Line, t string) bool {
	if port, ok := nxosQueuingCommand(t); ok {
		n.start(port)
		return false // the prompt is left to the other readers
	}
	if _, ok := nxosPromptCommand(t); ok {
		n.port = "" // another command's output follows
		return false
	}
	for _, title := range []string{"Egress Queuing for ", "Ingress Queuing for "} {
		if rest, ok := strings.CutPrefix(t, title); ok {
			port, _, _ := strings.Cut(rest, " ")
			if !nxosPort(port) {
				return false
			}
			n.start(port)
			p.out.lines.add(l)
			return true
		}
	}
	if n.port == "" {
		return false
	}
	if n.read(p, l, t) {
		p.out.lines.add(l)
		return true
	}
	return false
}

// start begins the output of a port.
func (n *nxosCloud) start(port string) {
	m := n.noDrop
	*n = nxosCloud{port: strings.Clone(port), group: -1, noDrop: m}
}

// read reads one line of the port's output.
func (n *nxosCloud) read(p *switchParser, l Line, t string) bool {
	switch {
	case t == "":
		n.pause = false
		return false
	case strings.HasPrefix(t, "+") && strings.Trim(t, "+-") == "":
		return true
	case strings.HasPrefix(t, "|"):
		return n.cell(p, l, t)
	case strings.HasPrefix(t, "QoS-Group#") && strings.Contains(t, "Pause"):
		n.pause, n.perPort, n.pfc = true, false, false
		return true
	case n.pause && strings.HasPrefix(t, "Buff Size"):
		return true
	case t == "Per Port Ingress Statistics":
		n.pause, n.perPort, n.pfc = false, true, false
		return true
	case strings.HasPrefix(t, "Per Slice ") || t == "PFC Statistics":
		n.pause, n.perPort, n.pfc = false, false, false
		return true
	case strings.HasPrefix(t, "TxPPP:"):
		return true
	case strings.HasPrefix(t, "PFC_COS ") || strings.HasPrefix(t, "COS ") && strings.Contains(t, "TxCount"):
		n.pfc = true
		return true
	case strings.Trim(t, "-") == "":
		return n.pause || n.perPort || n.pfc
	case n.pause:
		return n.pauseRow(t)
	case n.pfc:
		return n.pfcRow(p, l, t)
	case n.perPort:
		return n.portDrops(p, l, t)
	}
	return false
}

// cell reads a line of the egress blocks: a group's title, the header of
// traffic types, or a counter row.
func (n *nxosCloud) cell(p *switchParser, l Line, t string) bool {
	cells := strings.Split(strings.Trim(t, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	if g, ok := strings.CutPrefix(cells[0], "QOS GROUP "); ok && len(cells) == 1 {
		q, err := strconv.Atoi(g)
		if err != nil || q < 0 || q > 7 {
			return false
		}
		n.group, n.cols, n.at, n.system = q, nil, nil, false
		return true
	}
	if len(cells) == 1 && (strings.HasPrefix(cells[0], "CONTROL QOS GROUP") || strings.HasPrefix(cells[0], "SPAN QOS GROUP")) {
		n.group, n.cols, n.at, n.system = -1, nil, nil, true
		return true
	}
	if n.group < 0 {
		return n.system
	}
	if cells[0] == "" {
		n.cols = append(n.cols[:0], cells[1:]...)
		return true
	}
	if len(n.cols) == 0 || len(cells)-1 != len(n.cols) {
		p.cut(l, strings.Index(l.Text, "|")+1, "a row of `show queuing interface`'s QOS GROUP block: | counter | then a count per traffic type of the header ("+strings.Join(n.cols, ", ")+")")
		return true
	}
	vals := make([]uint64, len(cells)-1)
	for i, c := range cells[1:] {
		v, ok := switchNum(c)
		if !ok {
			p.cut(l, strings.Index(l.Text, c)+1, "a count under "+n.cols[i])
			return true
		}
		if v > math.MaxInt64 && strings.Contains(cells[0], "Drop") {
			// int64 would wrap it negative, -1 being "not shown".
			p.cut(l, strings.Index(l.Text, c)+1, "a count under "+n.cols[i]+" below 2^63")
			return true
		}
		vals[i] = v
	}
	if cells[0] == "Tx Pkts" {
		n.at = n.at[:0]
		ev := At(p.out.src, l)
		for i, v := range vals {
			q := QueueCount{Port: n.port, Queue: n.group, Type: trafficType(n.cols[i]), Packets: v, DropPkts: -1, DropBytes: -1, QoSGroup: true, Evidence: ev}
			var at int
			p.out.Queues, at = appendCappedAt(p.out.Queues, q, maxSwitchRows, &p.out.Omitted)
			n.at = append(n.at, at)
		}
		return true
	}
	for i, v := range vals {
		if i >= len(n.at) || n.at[i] < 0 {
			break
		}
		q := &p.out.Queues[n.at[i]]
		switch cells[0] {
		case "Tx Byts":
			q.Bytes = v
		case "WRED/AFD & Tail Drop Pkts", "Dropped Pkts":
			q.DropPkts = int64(v)
			q.Evidence = At(p.out.src, l)
		case "WRED/AFD & Tail Drop Byts", "Dropped Byts":
			q.DropBytes = int64(v)
		}
	}
	return true
}

// trafficType names a header's column as QueueCount's Type.
func trafficType(col string) string {
	switch col {
	case "Unicast":
		return "UC"
	case "Multicast":
		return "MC"
	case "OOBFC Unicast":
		return "OOBFC" // out-of-band flow control, the Nexus 9000's unicast kept apart
	}
	return col
}

// pauseRow reads a row of the ingress pause table: a group with a pause
// buffer is no-drop.
func (n *nxosCloud) pauseRow(t string) bool {
	f := strings.Fields(t)
	g, err := strconv.Atoi(f[0])
	if err != nil || g < 0 || g > 7 || len(f) < 4 {
		return false
	}
	if _, ok := switchNum(f[1]); ok {
		if n.noDrop == nil {
			n.noDrop = map[string]uint8{}
		}
		n.noDrop[n.port] |= 1 << g
	}
	return true
}

// pfcRow reads a row of the PFC table: the CoS, its group, then Tx and Rx
// each as a state (Active, Inactive) and a count.
func (n *nxosCloud) pfcRow(p *switchParser, l Line, t string) bool {
	f := strings.Fields(t)
	cos, err := strconv.Atoi(f[0])
	if err != nil || cos < 0 || cos > 7 {
		return false
	}
	const want = "a row of `show queuing interface`'s PFC table: the CoS, its qos-group, then TxPause, TxCount, RxPause, RxCount"
	if len(f) < 5 {
		p.cut(l, len(l.Text)+1, want)
		return true
	}
	tx, okT := switchNum(f[len(f)-3])
	rx, okR := switchNum(f[len(f)-1])
	if !okT || !okR || !pauseState(f[len(f)-4]) || !pauseState(f[len(f)-2]) {
		p.cut(l, strings.Index(l.Text, f[1])+1, want)
		return true
	}
	ev := At(p.out.src, l)
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: n.port, Dir: RX, Prio: cos, Frames: rx, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: n.port, Dir: TX, Prio: cos, Frames: tx, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// pauseState reports whether s is a PFC table's pause state.
func pauseState(s string) bool { return s == "Active" || s == "Inactive" }

// portDrops reads the port's ingress statistics: its overflow (or MMU)
// drops over all groups.
func (n *nxosCloud) portDrops(p *switchParser, l Line, t string) bool {
	i := strings.LastIndexAny(t, " \t")
	if i < 0 {
		return false
	}
	key, val := strings.TrimSpace(t[:i]), t[i+1:]
	if !strings.HasSuffix(key, " Drop Pkts") && !strings.HasSuffix(key, " Drop Bytes") {
		return false
	}
	v, ok := switchNum(val)
	if !ok {
		p.cut(l, strings.LastIndex(l.Text, val)+1, "`show queuing interface`'s "+key+": a count")
		return true
	}
	if key == "Ingress Overflow Drop Pkts" || key == "Ingress MMU Drop Pkts" {
		d := PGDrop{Port: n.port, PG: -1, Packets: v, QoSGroup: true, Counter: strings.Clone(key), Evidence: At(p.out.src, l)}
		p.out.PGDrops = appendCapped(p.out.PGDrops, d, maxSwitchRows, &p.out.Omitted)
	}
	return true
}

// end marks the queues of the groups their port gives a pause buffer
// no-drop, and the others drop, when the output shows the pause table.
func (n *nxosCloud) end(o *SwitchCounters) {
	for i := range o.Queues {
		q := &o.Queues[i]
		mask, ok := n.noDrop[q.Port]
		if !q.QoSGroup || !ok {
			continue
		}
		q.DropType = "drop"
		if mask>>q.Queue&1 == 1 {
			q.DropType = "no-drop"
		}
	}
	for i := range o.PGDrops {
		d := &o.PGDrops[i]
		if d.PG < 0 {
			d.NoDropMask = n.noDrop[d.Port]
		}
	}
}

// nxosQueuingCommand returns the port an echoed `show queuing interface
// PORT` (or NX-OS's `queueing`) names, in the long form the output's
// titles use: e1/51 and eth1/51 are Ethernet1/51.
func nxosQueuingCommand(t string) (string, bool) {
	cmd, ok := nxosPromptCommand(t)
	if !ok {
		return "", false
	}
	f := strings.Fields(cmd)
	if len(f) < 4 || f[0] != "show" || f[1] != "queuing" && f[1] != "queueing" || f[2] != "interface" {
		return "", false
	}
	port := f[3]
	if strings.EqualFold(port, "ethernet") && len(f) > 4 {
		port = f[4]
	}
	digits := strings.TrimLeft(port, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	name := strings.ToLower(port[:len(port)-len(digits)])
	if digits == "" || digits[0] < '0' || digits[0] > '9' || name != "" && !strings.HasPrefix("ethernet", name) {
		return "", false
	}
	return "Ethernet" + digits, true
}

// nxosPromptCommand returns the show command after an NX-OS prompt
// ("leaf1# show ...", "PrivN9K(config)# show ..."): a host name without
// spaces, #, then the command. The pause table's "QoS-Group#" header is
// no prompt: no show command follows it.
func nxosPromptCommand(t string) (string, bool) {
	i := strings.IndexByte(t, '#')
	if i <= 0 || strings.ContainsAny(t[:i], " \t") {
		return "", false
	}
	cmd := strings.TrimSpace(t[i+1:])
	return cmd, strings.HasPrefix(cmd, "show ")
}
