package ingest

import "strings"

// SONiC `show queue wredcounters --summary` (wredstat -s, sonic-utilities
// #4181, 2026): each queue's WRED drops and ECN marks summed over every
// port, one row a queue and no port column,
//
//	  TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes
//	-----  --------------  ---------------  ----------------  -----------------
//	  UC0              41               96                70                 98
//	 MC10             214              160               207                164
//
// (with --voq the first column is Voq), and with --json the same sums as
// an object of queues:
//
//	{
//	  "UC3": {
//	    "ecnbytes": 189,
//	    "ecnpacket": 130,
//	    "wredDrpbytes": 256,
//	    "wredDrppacket": 123
//	  }
//	}
//
// Each queue is a QueueWRED of no port (AllPorts). wredstat sums N/A as 0,
// so a count the switch does not keep reads 0 here. On a multi-ASIC switch
// wredstat prints one summary per ASIC, one after another with no title
// (WredstatWrapper.run is run_on_multi_asic): each output since the last
// echoed command is its own Part, not a later snapshot of the one before.

// sumStart counts a summary table that starts.
func (p *switchParser) sumStart(k swTable) {
	if k == swWREDSum {
		p.sumN++
	}
}

// wredSumHeader reports whether f is the summary table's header.
func wredSumHeader(f []string) bool {
	return len(f) == 5 && (f[0] == "TxQ" || f[0] == "Voq") && f[1] == "WredDrp/pkts" && f[2] == "WredDrp/bytes" && f[3] == "EcnMarked/pkts" && f[4] == "EcnMarked/bytes"
}

// wredSumRow reads a row of the summary table: a queue, then its four
// sums.
func (p *switchParser) wredSumRow(f []string, ev Evidence) bool {
	if len(f) != 5 {
		return false
	}
	typ, num := splitQueueName(f[0])
	if typ == "" {
		return false
	}
	for _, c := range f[1:] {
		if _, ok := switchNum(c); !ok && c != "N/A" {
			return false
		}
	}
	p.out.WRED = appendCapped(p.out.WRED, QueueWRED{Queue: num, Type: typ, WREDDrop: numOr(f[1]), ECNMarks: numOr(f[3]), AllPorts: true, Part: p.sumN, Namespace: p.titleNS, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// cutWREDSumRow records a line that begins as a summary row (a queue,
// then a count) and stops short of its five columns.
func (p *switchParser) cutWREDSumRow(l Line, t string) bool {
	f := strings.Fields(t)
	if len(f) < 2 || len(f) >= 5 {
		return false
	}
	if typ, _ := splitQueueName(f[0]); typ == "" {
		return false
	}
	if _, ok := switchNum(f[1]); !ok && f[1] != "N/A" {
		return false
	}
	p.cut(l, strings.Index(l.Text, f[0])+1, "a `show queue wredcounters --summary` row of 5 columns (this one has "+itoa(len(f))+")")
	p.out.lines.add(l)
	return true
}

// sumOpen starts a top-level object of the JSON document: a queue of the
// summary when its key names one ("UC3", "VOQ0"), which no port's does.
func (j *swJSON) sumOpen(p *switchParser, l Line, key string) {
	j.sum, j.sumSet = QueueWRED{}, false
	if typ, num := splitQueueName(key); typ != "" {
		if !j.sumDoc {
			j.sumDoc = true
			p.sumN++
		}
		j.sum = QueueWRED{Queue: num, Type: typ, WREDDrop: -1, ECNMarks: -1, AllPorts: true, Part: p.sumN, Namespace: p.titleNS, Evidence: At(p.out.src, l)}
	}
}

// sumLeaf reads a sum of the open summary queue; it reports whether key
// is one.
func (j *swJSON) sumLeaf(p *switchParser, l Line, key, val string) bool {
	if !j.sum.AllPorts {
		return false
	}
	switch key {
	case "wredDrppacket":
		j.sum.WREDDrop = numOr(val)
	case "ecnpacket":
		j.sum.ECNMarks = numOr(val)
	case "wredDrpbytes", "ecnbytes":
	default:
		return false
	}
	j.sumSet = true
	p.out.lines.add(l)
	return true
}

// sumClose keeps the summary queue that closes, if it held a sum.
func (j *swJSON) sumClose(p *switchParser) {
	if j.sumSet && (j.sum.WREDDrop >= 0 || j.sum.ECNMarks >= 0) {
		p.out.WRED = appendCapped(p.out.WRED, j.sum, maxSwitchRows, &p.out.Omitted)
	}
	j.sum, j.sumSet = QueueWRED{}, false
}
