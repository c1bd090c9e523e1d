package ingest

import (
	"strconv"
	"strings"
)

// The rows of the SONiC counter tables switch_parse.go finds: PFC,
// watchdog, queue, port and ECN rows, with the number forms they print.

// switchNum parses "1,200" or "1200"; ok is false for N/A and junk, and
// for a number cut inside its separators ("424," where a paste ends).
func switchNum(s string) (uint64, bool) {
	if strings.IndexByte(s, ',') >= 0 {
		groups := strings.Split(s, ",")
		if len(groups[0]) == 0 || len(groups[0]) > 3 {
			return 0, false
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return 0, false
			}
		}
		s = strings.Join(groups, "")
	}
	return parseCounterValue(s)
}

func numOr(s string) int64 {
	if v, ok := switchNum(s); ok && v < 1<<62 {
		return int64(v)
	}
	return -1
}

// row reads one row of the current table; it reports whether it was one.
func (p *switchParser) row(l Line, t string) bool {
	f := strings.Fields(t)
	ev := At(p.out.src, l)
	switch p.table {
	case swPFCRx, swPFCTx:
		if len(f) != 9 || !isIdentName(f[0]) {
			return false
		}
		d := RX
		if p.table == swPFCTx {
			d = TX
		} else if p.filtered {
			var ok bool
			if d, ok = p.grepPFC.dir(f[0]); !ok {
				p.out.UnplacedPFC = appendCapped(p.out.UnplacedPFC, ev, maxGarbled, &p.out.Omitted)
				return true
			}
		}
		port := strings.Clone(f[0])
		for i := 0; i < 8; i++ {
			if v, ok := switchNum(f[1+i]); ok {
				p.out.PFC = appendCapped(p.out.PFC, SwitchPFC{Port: port, Dir: d, Prio: i, Frames: v, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
			}
		}
		return true
	case swWD:
		if len(f) < 5 {
			return false
		}
		port, q, ok := strings.Cut(f[0], ":")
		qn, err := strconv.Atoi(q)
		if !ok || err != nil || qn < 0 || qn > 15 || !isIdentName(port) {
			return false
		}
		w := WatchdogQueue{Port: strings.Clone(port), Queue: qn, Status: strings.Clone(f[1]), Evidence: ev}
		pairs := []*[2]uint64{}
		var storm, tx, rx, txl, rxl [2]uint64
		pairs = append(pairs, &storm, &tx, &rx, &txl, &rxl)
		for i, pr := range pairs {
			if 2+i >= len(f) {
				break
			}
			a, b, _ := strings.Cut(f[2+i], "/")
			pr[0], _ = switchNum(a)
			pr[1], _ = switchNum(b)
		}
		w.Detected, w.Restored = storm[0], storm[1]
		w.TxOK, w.TxDrop, w.RxOK, w.RxDrop = tx[0], tx[1], rx[0], rx[1]
		w.TxLastDrop, w.RxLastDrop = txl[1], rxl[1]
		p.out.WD = appendCapped(p.out.WD, w, maxSwitchRows, &p.out.Omitted)
		return true
	case swQueue:
		if len(f) < 6 || !queuePortName(f[0]) {
			return false
		}
		typ, num := splitQueueName(f[1])
		if typ == "" {
			return false
		}
		pk, _ := switchNum(f[2])
		by, _ := switchNum(f[3])
		p.noteNA(naQueue, f[2] == "N/A" && f[3] == "N/A" && f[4] == "N/A" && f[5] == "N/A", ev)
		p.out.Queues = appendCapped(p.out.Queues, QueueCount{Port: strings.Clone(f[0]), Queue: num, Type: typ, Packets: pk, PacketsNA: f[2] == "N/A", Bytes: by, DropPkts: numOr(f[4]), DropBytes: numOr(f[5]), Namespace: p.titleNS, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
		if len(f) == len(p.cols) && len(f) > 6 && p.cols[6] == "Trim/pkts" {
			p.queueTrimCells(f, num, typ, ev)
		}
		return true
	case swPGShared, swPGHeadroom, swPGDrop, swPGUntitled:
		return p.pgRow(f, ev)
	case swQueueWM:
		return p.queueWMRow(f, ev)
	case swPFCHist:
		return p.pfcHistRow(f, ev)
	case swWRED:
		return p.wredRow(f, ev)
	case swWREDSum:
		return p.wredSumRow(f, ev)
	case swPFCPrio:
		return p.pfcPrioRow(l.Text, ev)
	case swPorts:
		return p.portRow(f, ev)
	case swFEC:
		return p.fecRow(f, ev)
	case swFECHist:
		return p.fecHistRow(f, ev)
	case swTrim:
		return p.trimRow(f, ev)
	case swHWDrop:
		return p.hwDropRow(t, ev)
	case swWDConfig:
		if len(f) < 4 || !isIdentName(f[0]) {
			return false
		}
		p.out.WDConfig = appendCapped(p.out.WDConfig, WatchdogConfig{Port: strings.Clone(f[0]), Action: strings.Clone(f[1]), Detection: numOr(f[2]), Restoration: numOr(f[3]), Evidence: ev}, maxSwitchRows, &p.out.Omitted)
		return true
	case swPoolWM, swHdrmWM:
		return p.poolWatermark(f, ev)
	case swLLDP:
		return p.lldpRow(l.Text, ev)
	case swEOSQueue:
		return p.eosQueueRow(f, ev)
	case swEOSVoQ:
		return p.eosVoQRow(f, ev)
	case swRoCE:
		return p.roceLine(t, ev)
	case swNVUEPFC:
		return p.nvuePFCRow(f, ev)
	case swNVUEQueue:
		return p.nvueQueueRow(l, f, ev)
	case swNVUEPort:
		return p.nvuePortRow(l, f, ev)
	case swNVUEIngress:
		return p.nvueIngressRow(l, f, ev)
	case swECN:
		if p.block != nil && len(f) == 2 && p.block.add(f[0], f[1], ev) {
			return true
		}
		if len(f) != 2 || p.ecn == nil {
			return false
		}
		switch f[0] {
		case "green_min_threshold":
			p.ecn.GreenMin = numOr(f[1])
		case "green_max_threshold":
			p.ecn.GreenMax = numOr(f[1])
		case "green_drop_probability":
			p.ecn.GreenDropProbability = numOr(f[1])
		case "ecn":
			p.ecn.ECN = strings.Clone(f[1])
		default:
			if !isCounterName(f[0]) {
				return false
			}
			return true
		}
		if len(p.ecn.Evidence) < 8 {
			p.ecn.Evidence = append(p.ecn.Evidence, ev)
		}
		return true
	}
	return false
}

// portRow reads a `show interfaces counters` row by the header's columns;
// the rate columns ("2000.00 MB/s") take two fields.
func (p *switchParser) portRow(f []string, ev Evidence) bool {
	if len(f) < 4 || !slashedName(f[0]) {
		return false
	}
	vals := portVals(f)
	if len(vals) != len(p.cols) || misfit(p.cols, vals) != "" {
		return false
	}
	pc := PortCount{Port: strings.Clone(f[0]), RxOK: -1, RxErr: -1, RxDrop: -1, RxOver: -1, TxOK: -1, TxErr: -1, TxDrop: -1, TxOver: -1, CRC: -1, Evidence: ev, ErrEvidence: ev}
	if p.cols[0] == "Iface" {
		// cl-netstat lists the switch's own interfaces too: eth0, its
		// management port, and lo.
		if f[0] == "lo" || strings.HasPrefix(f[0], "eth") {
			return true
		}
		pc.Cumulus, pc.RxErrCol = true, "RX_ERR"
	}
	for i, c := range p.cols {
		pc.setCol(c, vals[i])
	}
	p.out.Ports = appendCapped(p.out.Ports, pc, maxSwitchRows, &p.out.Omitted)
	return true
}

// setCol sets the counter portstat's column c names (in a table, or a
// key of its JSON) to the cell v, and reports whether c is one it keeps.
func (pc *PortCount) setCol(c, v string) bool {
	switch c {
	case "STATE":
		switch {
		case fecState(v):
			pc.State = strings.Clone(v)
		case v == "UP" || v == "DOWN":
			// portstat before 2018 (sonic-utilities#130) spelt them out.
			pc.State = v[:1]
		}
	case "RX_OK":
		pc.RxOK = numOr(v)
	case "RX_ERR":
		pc.RxErr = numOr(v)
	case "RX_DRP":
		pc.RxDrop = numOr(v)
	case "RX_DROPS":
		// `show dropcounters counts` (dropstat) names its drops so.
		pc.RxDrop, pc.DropCounts = numOr(v), true
	case "RX_OVR":
		pc.RxOver = numOr(v)
	case "TX_OK":
		pc.TxOK = numOr(v)
	case "TX_ERR":
		pc.TxErr = numOr(v)
	case "TX_DRP":
		pc.TxDrop = numOr(v)
	case "TX_DROPS":
		pc.TxDrop, pc.DropCounts = numOr(v), true
	case "TX_OVR":
		pc.TxOver = numOr(v)
	default:
		return false
	}
	return true
}

// portVals joins a portstat row's fields into its cells: a rate
// ("2000.00 MB/s") takes two fields.
func portVals(f []string) []string {
	var vals []string
	for i := 0; i < len(f); i++ {
		if i+1 < len(f) && strings.HasSuffix(f[i+1], "/s") && !strings.HasSuffix(f[i], "/s") {
			vals = append(vals, f[i]+" "+f[i+1])
			i++
			continue
		}
		vals = append(vals, f[i])
	}
	return vals
}

// misfit names the first cell of a portstat row that cannot stand under
// its column, "" when all can: a rate (RX_BPS, Tx_PPS) ends in "/s", a
// utilisation (RX_UTIL) in "%", unless N/A. A row whose cells shifted
// under the header (sonic-utilities#751) is caught so.
func misfit(cols, vals []string) string {
	for i, c := range cols {
		v, u := vals[i], strings.ToUpper(c)
		if v == "N/A" {
			continue
		}
		if (strings.HasSuffix(u, "_BPS") || strings.HasSuffix(u, "_PPS")) && !strings.HasSuffix(v, "/s") || strings.HasSuffix(u, "_UTIL") && !strings.HasSuffix(v, "%") {
			return c + " holds " + strconv.Quote(v)
		}
	}
	return ""
}

// splitQueueName reads "UC3", "MC10", "ALL7", and a VOQ chassis'
// "VOQ3" (`show queue counters --voq`).
func splitQueueName(s string) (string, int) {
	for _, t := range []string{"UC", "MC", "ALL", "VOQ"} {
		if rest, ok := strings.CutPrefix(s, t); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n < 64 {
				return t, n
			}
		}
	}
	return "", 0
}

// slashedName reports whether s names a port as portstat prints it: an
// interface, or on a chassis supervisor a line card's port, "Ethernet1/1"
// (a VOQ chassis) or "HundredGigE0/1/0/1" (a packet chassis), slashes
// between the parts.
func slashedName(s string) bool { return namePath(s, "/", 4) }

// queuePortName reports whether s names a port in a queue table: an
// interface, or on a VOQ chassis a system port, "lc1|asic0|Ethernet0" (a
// single-ASIC line card's "lc1|Ethernet0").
func queuePortName(s string) bool { return namePath(s, "|", 3) }

// namePath reports whether s is at most most names joined by sep.
func namePath(s, sep string, most int) bool {
	parts := strings.Split(s, sep)
	if len(parts) > most {
		return false
	}
	for _, p := range parts {
		if !isIdentName(p) {
			return false
		}
	}
	return true
}
