package ingest

import (
	"strconv"
	"strings"
)

// QueueWatermark is the peak shared-buffer occupancy of one egress queue
// (`show queue watermark` / `persistent-watermark unicast|multicast|all`);
// Bytes is -1 where the switch printed N/A (no counter for that queue).
type QueueWatermark struct {
	Port     string
	Queue    int
	Type     string // "UC", "MC" or "ALL"
	Bytes    int64
	Evidence Evidence
}

// PFCHistory is one row of `show pfc counters --history` (pfcstat
// --history): the pause a port received on one priority, as the PFC
// watchdog's detect script records it; -1 where not a number.
type PFCHistory struct {
	Port        string
	Prio        int
	Transitions int64
	// TotalUS is the time paused since the last clear, RecentUS the
	// length of the latest pause, both in microseconds.
	TotalUS, RecentUS int64
	Evidence          Evidence
}

// queueWMHeader reports whether f is the header of a queue watermark
// table: Port, then two or more UCn, MCn or ALLn columns (SONiC prints
// eight or ten).
func queueWMHeader(f []string) bool {
	if len(f) < 3 || f[0] != "Port" {
		return false
	}
	for _, c := range f[1:] {
		if typ, _ := splitQueueName(c); typ == "" {
			return false
		}
	}
	return true
}

// queueWMRow reads a queue watermark row, one cell per header column.
func (p *switchParser) queueWMRow(f []string, ev Evidence) bool {
	if len(f) != len(p.cols) || !isIdentName(f[0]) {
		return false
	}
	port := strings.Clone(f[0])
	for i, c := range f[1:] {
		typ, q := splitQueueName(p.cols[i+1])
		p.out.QueueWMs = appendCapped(p.out.QueueWMs, QueueWatermark{Port: port, Queue: q, Type: typ, Bytes: numOr(c), Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	}
	return true
}

// pfcHistHeader reports whether h is the header of `show pfc counters
// --history`.
func pfcHistHeader(f []string, h string) bool {
	return len(f) > 2 && f[0] == "Port" && f[1] == "Priority" && strings.Contains(h, "RX Pause Transitions") && strings.Contains(h, "Total RX Pause Time US")
}

// pfcHistRow reads "Ethernet0  PFC3  23  20,000,003  2,000,003  05/18/2033, 03:33:20";
// the timestamp is not kept.
func (p *switchParser) pfcHistRow(f []string, ev Evidence) bool {
	if len(f) < 5 || !isIdentName(f[0]) {
		return false
	}
	prio, err := strconv.Atoi(strings.TrimPrefix(f[1], "PFC"))
	if !strings.HasPrefix(f[1], "PFC") || err != nil || prio < 0 || prio > 7 {
		return false
	}
	p.out.PFCHist = appendCapped(p.out.PFCHist, PFCHistory{Port: strings.Clone(f[0]), Prio: prio, Transitions: numOr(f[2]), TotalUS: numOr(f[3]), RecentUS: numOr(f[4]), Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}
