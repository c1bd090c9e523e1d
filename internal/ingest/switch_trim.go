package ingest

import (
	"strings"
)

// SONiC `show queue counters --trim`: per egress queue, the packets the
// switch trimmed (cut to their headers instead of dropping them), the
// trimmed packets it sent on, and those it dropped after all:
//
//	     Port    TxQ    Trim/pkts    TrimSent/pkts    TrimDrop/pkts
//	---------  -----  -----------  ---------------  ---------------
//	Ethernet0    UC2          200              100              100

// `show queue counters --all` (queuestat -a) prints the trim counts after
// a queue's packets and drops, and `queuestat -p PORT` on a build with
// trimming its Trim/pkts alone:
//
//	     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes    Trim/pkts    TrimSent/pkts    TrimDrop/pkts
//	Ethernet0    UC1              60               43           39             1          100               50               50

// QueueTrim is one row of `show queue counters --trim`, or a port's
// total of `show interfaces counters trim` or its -j (Type "", Queue -1); a
// count is -1 when N/A.
type QueueTrim struct {
	Port                   string
	Queue                  int
	Type                   string
	Trimmed, Sent, Dropped int64
	// Switch marks the switch's total of `show switch counters`: no port,
	// in Namespace on a multi-ASIC switch ("" when nothing names it).
	Switch    bool
	Namespace string
	Evidence  Evidence
}

// trimHeader reports whether f is the header of `show queue counters
// --trim` or of `show interfaces counters trim`, a port's total:
//
//	    IFACE    STATE    TRIM_PKTS    TRIM_TX_PKTS    TRIM_DRP_PKTS
//	---------  -------  -----------  --------------  ---------------
//	Ethernet0        D          100              50               50
//
// and of `show switch counters` (switchstat), the switch's total, one row
// under each "Namespace: asicN" title on a multi-ASIC switch:
//
//	  TrimSent/pkts    TrimDrop/pkts
//	---------------  ---------------
//	          2,000            1,000
func trimHeader(f []string) bool {
	return len(f) == 2 && f[0] == "TrimSent/pkts" && f[1] == "TrimDrop/pkts" || len(f) == 5 && (f[0] == "Port" && f[1] == "TxQ" && f[2] == "Trim/pkts" && f[3] == "TrimSent/pkts" && f[4] == "TrimDrop/pkts" ||
		f[0] == "IFACE" && f[1] == "STATE" && f[2] == "TRIM_PKTS" && f[3] == "TRIM_TX_PKTS" && f[4] == "TRIM_DRP_PKTS")
}

// trimRow reads a row; a queue or port whose counts are all N/A is read
// and kept out.
func (p *switchParser) trimRow(f []string, ev Evidence) bool {
	if len(p.cols) == 2 {
		return p.switchTrimRow(f, ev)
	}
	if len(f) != 5 || !queuePortName(f[0]) {
		return false
	}
	typ, num := "", -1 // a port's total (the IFACE table)
	if p.cols[0] == "Port" {
		if typ, num = splitQueueName(f[1]); typ == "" {
			return false
		}
	}
	q := QueueTrim{Port: strings.Clone(f[0]), Queue: num, Type: typ, Trimmed: numOr(f[2]), Sent: numOr(f[3]), Dropped: numOr(f[4]), Evidence: ev}
	if q.Trimmed < 0 && q.Sent < 0 && q.Dropped < 0 {
		if f[2] == "N/A" {
			p.noteNA(naTrim, true, ev)
		}
		return f[2] == "N/A"
	}
	p.noteNA(naTrim, false, ev)
	p.out.Trims = appendCapped(p.out.Trims, q, maxSwitchRows, &p.out.Omitted)
	return true
}

// switchTrimRow reads the row of `show switch counters`: the packets the
// switch trimmed and sent on, and those it dropped after trimming, a
// QueueTrim of no port (Switch) whose trimmed total is their sum.
func (p *switchParser) switchTrimRow(f []string, ev Evidence) bool {
	if len(f) != 2 {
		return false
	}
	for _, c := range f {
		if _, ok := switchNum(c); !ok && c != "N/A" {
			return false
		}
	}
	p.keepSwitchTrim(QueueTrim{Namespace: p.titleNS, Sent: numOr(f[0]), Dropped: numOr(f[1]), Evidence: ev})
	return true
}

// keepSwitchTrim keeps the switch's trim total of `show switch counters`
// in any of its forms (the table, --detail, -j), read into q's Sent,
// Dropped, Namespace and Evidence (a count -1 when N/A): the trimmed
// total is their sum, and a total of N/A only is noted as not polled.
func (p *switchParser) keepSwitchTrim(q QueueTrim) {
	q.Queue, q.Switch, q.Trimmed = -1, true, -1
	if q.Sent >= 0 && q.Dropped >= 0 {
		q.Trimmed = q.Sent + q.Dropped
	}
	p.noteNA(naTrim, q.Sent < 0 && q.Dropped < 0, q.Evidence)
	if q.Sent >= 0 || q.Dropped >= 0 {
		p.out.Trims = appendCapped(p.out.Trims, q, maxSwitchRows, &p.out.Omitted)
	}
}

// queueTrimCells reads the trim cells after a queue counters row's own
// (f is the row, whose header has Trim/pkts seventh and may go on with
// TrimSent/pkts and TrimDrop/pkts): a queue whose trim counts are all
// N/A is kept out (the table was asked for every counter, not for trim:
// a switch that does not trim prints N/A there, which is no gap).
func (p *switchParser) queueTrimCells(f []string, num int, typ string, ev Evidence) {
	q := QueueTrim{Port: strings.Clone(f[0]), Queue: num, Type: typ, Trimmed: numOr(f[6]), Sent: -1, Dropped: -1, Evidence: ev}
	for i, c := range p.cols[7:] {
		switch c {
		case "TrimSent/pkts":
			q.Sent = numOr(f[7+i])
		case "TrimDrop/pkts":
			q.Dropped = numOr(f[7+i])
		}
	}
	if q.Trimmed >= 0 || q.Sent >= 0 || q.Dropped >= 0 {
		p.noteNA(naTrim, false, ev)
		p.out.Trims = appendCapped(p.out.Trims, q, maxSwitchRows, &p.out.Omitted)
	}
}
