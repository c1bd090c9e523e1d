package ingest

import (
	"strings"
)

// SONiC's counters in JSON (`show queue counters -j`, queuestat -j, with
// --voq and --trim; `show queue wredcounters -j`, wredstat -j, with --voq;
// `show interfaces counters -j`, portstat -j): an
// object of ports, each an object of queues or of portstat's columns, as
// json.dumps prints it with an indent, one key a line:
//
//	{
//	  "Ethernet0": {
//	    "UC3": {
//	      "dropbytes": "94",
//	      "droppacket": "12",
//	      "totalbytes": "59",
//	      "totalpacket": "11"
//	    },
//	    "time": "2025-01-08T18:31:12.675517"
//	  }
//	}
//
// wredstat's queue objects hold wreddroppacket, wreddropbytes,
// ecnmarkedpacket and ecnmarkedbytes; portstat's object holds "STATE",
// "RX_OK", "RX_DRP" and the rest as strings (its trim subcommand's
// TRIM_PKTS, TRIM_TX_PKTS, TRIM_DRP_PKTS); `show queue wredcounters
// --summary -j` is an object of queues (switch_wredsum.go); `show switch
// counters -j` (switchstat -j) is the switch's trim total, an object of
// trim_drop and trim_sent, within an object of ASICs on a multi-ASIC
// switch:
//
//	{
//	    "asic0": {
//	        "trim_drop": "1,000",
//	        "trim_sent": "2,000"
//	    }
//	}
//
// A document printed on one line is not read.

// swJSON follows the document being read.
type swJSON struct {
	path []string // the keys of the objects open below the document
	in   bool
	q    jsonQueue
	port PortCount
	// portTrim is the open port's trimmed packets (`show interfaces
	// counters trim -j`: TRIM_PKTS, TRIM_TX_PKTS, TRIM_DRP_PKTS), a
	// QueueTrim of no queue (Type "").
	portTrim    QueueTrim
	portTrimmed bool
	// portSeen is set once the open port object held one of portstat's
	// columns.
	portSeen bool
	// sum is the open queue of `show queue wredcounters --summary -j`
	// (switch_wredsum.go), sumSet once it held a sum; sumDoc is set once
	// the document opened a summary queue.
	sum            QueueWRED
	sumSet, sumDoc bool
	// sw is the switch's trim total the open object holds (`show switch
	// counters -j`), swSet once it held trim_sent or trim_drop.
	sw    QueueTrim
	swSet bool
}

// jsonQueue is the queue object being read.
type jsonQueue struct {
	QueueCount
	trim    QueueTrim
	wred    QueueWRED
	counts  bool // totalpacket or droppacket read
	trimmed bool // trimpacket or trimdroppacket read
	wredSet bool // wreddroppacket or ecnmarkedpacket read
}

// jsonLine splits `"key": value,` into key and value ("{" for an object
// that opens); ok is false for anything else.
func jsonLine(t string) (key, val string, ok bool) {
	if len(t) < 4 || t[0] != '"' {
		return "", "", false
	}
	end := strings.IndexByte(t[1:], '"')
	if end < 0 {
		return "", "", false
	}
	key = t[1 : 1+end]
	rest, found := strings.CutPrefix(strings.TrimSpace(t[2+end:]), ":")
	if !found {
		return "", "", false
	}
	val = strings.TrimSuffix(strings.TrimSpace(rest), ",")
	val = strings.TrimSuffix(strings.TrimPrefix(val, `"`), `"`)
	return key, val, key != "" && val != ""
}

// feed reads l when it belongs to a JSON document of counters and
// reports whether it did.
func (j *swJSON) feed(p *switchParser, l Line, t string) bool {
	if !j.in {
		if t != "{" {
			return false
		}
		j.in, j.path, j.sumDoc = true, j.path[:0], false
		j.swOpen(p, "")
		return false // an opening brace alone is no counter
	}
	switch {
	case t == "":
		return false
	case t == "}" || t == "},":
		j.close(p)
		return false
	}
	key, val, ok := jsonLine(t)
	if !ok || len(j.path) > 2 {
		j.in = false
		return false
	}
	if val == "{" {
		j.open(p, l, key)
		return false
	}
	return j.leaf(p, l, key, val)
}

// open starts the object key at the current depth.
func (j *swJSON) open(p *switchParser, l Line, key string) {
	j.path = append(j.path, strings.Clone(key))
	switch len(j.path) {
	case 1:
		j.port = PortCount{Port: j.path[0], RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, Evidence: At(p.out.src, l), ErrEvidence: At(p.out.src, l)}
		j.portSeen, j.portTrimmed = false, false
		j.portTrim = QueueTrim{Port: j.path[0], Queue: -1, Trimmed: -1, Sent: -1, Dropped: -1, Evidence: At(p.out.src, l)}
		j.sumOpen(p, l, key)
		j.swOpen(p, j.path[0])
	case 2:
		typ, num := splitQueueName(key)
		j.q = jsonQueue{QueueCount: QueueCount{Port: j.path[0], Queue: num, Type: typ, DropPkts: -1, DropBytes: -1, Namespace: p.titleNS, Evidence: At(p.out.src, l)}}
		j.q.trim = QueueTrim{Port: j.path[0], Queue: num, Type: typ, Trimmed: -1, Sent: -1, Dropped: -1, Evidence: At(p.out.src, l)}
		j.q.wred = QueueWRED{Port: j.path[0], Queue: num, Type: typ, WREDDrop: -1, ECNMarks: -1, Namespace: p.titleNS, Evidence: At(p.out.src, l)}
	}
}

// leaf reads a key and its value in the open object.
func (j *swJSON) leaf(p *switchParser, l Line, key, val string) bool {
	switch len(j.path) {
	case 0:
		return j.swLeaf(p, l, key, val)
	case 1:
		return j.swLeaf(p, l, key, val) || j.sumLeaf(p, l, key, val) || j.portLeaf(p, l, key, val)
	case 2:
		if j.q.Type == "" {
			return false
		}
		v := numOr(val)
		switch key {
		case "totalpacket":
			j.q.Packets, j.q.counts = uint64(max(v, 0)), true
		case "totalbytes":
			j.q.Bytes = uint64(max(v, 0))
		case "droppacket":
			j.q.DropPkts, j.q.counts = v, true
		case "dropbytes":
			j.q.DropBytes = v
		case "trimpacket":
			j.q.trim.Trimmed, j.q.trimmed = v, true
		case "trimsentpacket":
			j.q.trim.Sent = v
		case "trimdroppacket":
			j.q.trim.Dropped, j.q.trimmed = v, true
		case "wreddroppacket":
			j.q.wred.WREDDrop, j.q.wredSet = v, true
		case "ecnmarkedpacket":
			j.q.wred.ECNMarks, j.q.wredSet = v, true
		case "creditWDPkts", "wreddropbytes", "ecnmarkedbytes":
		default:
			return false
		}
		p.out.lines.add(l)
		return true
	}
	return false
}

// portLeaf reads one of portstat's columns of the open port, or its
// trim subcommand's.
func (j *swJSON) portLeaf(p *switchParser, l Line, key, val string) bool {
	v := numOr(val)
	switch key {
	case "TRIM_PKTS":
		j.portTrim.Trimmed, j.portTrimmed = v, true
	case "TRIM_TX_PKTS":
		j.portTrim.Sent = v
	case "TRIM_DRP_PKTS":
		j.portTrim.Dropped, j.portTrimmed = v, true
	default:
		if !j.port.setCol(key, val) {
			return false // "time", the rates
		}
		j.portSeen = true
		switch {
		case key == "RX_ERR":
			j.port.ErrEvidence = At(p.out.src, l)
		case key == "RX_DRP" || key == "TX_DRP" && j.port.RxDrop <= 0:
			j.port.Evidence = At(p.out.src, l)
		}
	}
	p.out.lines.add(l)
	return true
}

// close ends the innermost open object, keeping what it held.
func (j *swJSON) close(p *switchParser) {
	switch len(j.path) {
	case 0:
		j.swClose(p)
		j.in = false
		return
	case 1:
		j.swClose(p)
		t := j.portTrim
		switch {
		case j.portTrimmed && (t.Trimmed >= 0 || t.Dropped >= 0):
			p.out.Trims = appendCapped(p.out.Trims, t, maxSwitchRows, &p.out.Omitted)
		case j.portSeen && !j.portTrimmed:
			p.out.Ports = appendCapped(p.out.Ports, j.port, maxSwitchRows, &p.out.Omitted)
		}
		j.sumClose(p)
	case 2:
		if j.q.counts {
			p.out.Queues = appendCapped(p.out.Queues, j.q.QueueCount, maxSwitchRows, &p.out.Omitted)
		}
		if j.q.trimmed && (j.q.trim.Trimmed >= 0 || j.q.trim.Dropped >= 0) {
			p.out.Trims = appendCapped(p.out.Trims, j.q.trim, maxSwitchRows, &p.out.Omitted)
		}
		if j.q.wredSet {
			p.out.WRED = appendCapped(p.out.WRED, j.q.wred, maxSwitchRows, &p.out.Omitted)
		}
	}
	j.path = j.path[:len(j.path)-1]
}

// swOpen starts an object that may hold the switch's trim total: the
// document (ns "") or an ASIC's object within it ("asic0"), whose key
// names the namespace.
func (j *swJSON) swOpen(p *switchParser, ns string) {
	if ns == "" {
		ns = p.titleNS
	}
	j.sw, j.swSet = QueueTrim{Namespace: ns, Sent: -1, Dropped: -1}, false
}

// swLeaf reads trim_sent or trim_drop of the open object; it reports
// whether key is one.
func (j *swJSON) swLeaf(p *switchParser, l Line, key, val string) bool {
	switch key {
	case "trim_sent":
		j.sw.Sent = numOr(val)
	case "trim_drop":
		j.sw.Dropped = numOr(val)
	default:
		return false
	}
	if !j.swSet {
		j.sw.Evidence = At(p.out.src, l)
	}
	j.swSet = true
	p.out.lines.add(l)
	return true
}

// swClose keeps the switch's trim total the closing object held.
func (j *swJSON) swClose(p *switchParser) {
	if j.swSet {
		p.keepSwitchTrim(j.sw)
	}
	j.swSet = false
}
