package ingest

import (
	"slices"
	"strings"

	"rocelab/internal/sonic"
)

// The switch CLI reader: which table a line starts (by title, header and
// rule of dashes), when it ends, and the lines between tables (ECN and
// buffer blocks, an SDK counter dump, Onyx `show roce`, the prompt).

// maxSwitchRows caps the rows one input keeps per table kind.
const maxSwitchRows = 16384

type swTable int

const (
	swNone swTable = iota
	swPFCRx
	swPFCTx
	swWD
	swQueue
	swPGShared
	swPGHeadroom
	swPorts
	swECN
	swPoolWM
	swHdrmWM
	swLLDP
	swEOSQueue
	swEOSVoQ
	swRoCE
	swWDConfig
	swPGDrop
	swWRED
	swPFCPrio
	swPGUntitled
	swQueueWM
	swPFCHist
	swNVUEPFC
	swNVUEQueue
	swNVUEPort
	swNVUEIngress
	swFEC
	swFECHist
	swTrim
	swHWDrop
	swWREDSum
)

// swTitles are the titles SONiC prints above a table.
var swTitles = map[string]swTable{
	"Ingress shared pool occupancy per PG:":             swPGShared,
	"Ingress headroom per PG:":                          swPGHeadroom,
	"Ingress PG dropped packets:":                       swPGDrop,
	"Shared pool maximum occupancy:":                    swPoolWM,
	"Buffer pool maximum occupancy:":                    swPoolWM, // since sonic-utilities#1322 (2021)
	"Headroom pool maximum occupancy:":                  swHdrmWM,
	"Egress shared pool occupancy per unicast queue:":   swQueueWM,
	"Egress shared pool occupancy per multicast queue:": swQueueWM,
	"Egress shared pool occupancy per all queues:":      swQueueWM,
}

type switchParser struct {
	out   SwitchCounters
	na    [naKinds]naSeen // rows of each table that prints N/A unpolled
	prev  string          // the last non-empty line, a header candidate
	title swTable
	// titleNS is the namespace a multi-ASIC title names ("(Namespace
	// asic0)", or a line "For namespace asic0:"), for the pool watermarks
	// and queue counters under it, until the next title or prompt.
	titleNS string
	table   swTable
	cols    []string
	// fresh is set while a table started by its header alone has no row
	// yet: a blank line there is the rule a paste lost, not the table's end.
	fresh bool
	// filtered is set while the table is one a grep filtered, started by
	// its echoed command (switch_grep.go): blank lines and SONiC's "Last
	// cached time" notes lie between its rows.
	filtered bool
	grepPFC  grepPFC // the ports a filtered `show pfc counters` showed
	ecn      *ECNProfile
	// block is the "Pool:" or "Profile:" block being read (mmuconfig and
	// ecnconfig print key/value tables under such a title).
	block *keyedBlock
	// spans are the column spans of the current table, from its rule.
	spans [][2]int
	// roce is set inside Onyx `show roce` output; congestion after its
	// "Port congestion-control:" line.
	congestion bool
	roceECN    *ECNProfile
	// sdkPort and sdkPrio follow a Mellanox SDK counter dump ("Port
	// 0x10500 - ... Counters Group", "Prio 3").
	sdkPort string
	sdkPrio int
	eos     eosPFC
	// eosHost is the switch the last `HOST#show …` prompt named: EOS's
	// queue and PFC rows carry it.
	eosHost string
	nv      nvueShow
	pm      nvuePoolMap
	nxos    nxosPFC
	nxd     nxosPFCDetail
	nxq     nxosQueuing
	nxc     nxosCloud
	os10    os10Queuing
	xr      iosxrCtl
	junos   junosIface
	ecnq    ecnQueueState
	iface   ifaceBlock
	aoscx   aoscxIface
	cw      comwareIface
	vrp     vrpIface
	vd      vrpDCB
	errs    errTable
	cl      cumulusStats
	det     detailedBlock
	js      swJSON
	wm      wmJSON
	// histPort is the port the last echoed `fec-histogram` command named.
	histPort string
	// sumN counts the `show queue wredcounters --summary` outputs (tables
	// or JSON documents) since the last echoed command: wredstat prints
	// one, untitled, per ASIC of a multi-ASIC switch (switch_wredsum.go).
	sumN int
}

// NewSwitchParser returns a parser for switch CLI output in the input src.
func NewSwitchParser(src string) Parser {
	return &switchParser{out: SwitchCounters{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *switchParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if p.nv.feed(l, t) {
		// Counted here, and left to the other tables too.
		p.out.lines.add(l)
	}
	if h, ok := eosPromptHost(t); ok {
		p.eosHost = strings.Clone(h)
	}
	if p.eos.feed(l, t, p.eosHost) {
		p.out.lines.add(l)
		return
	}
	if p.pm.feed(p, l, t, p.nv.port) {
		return
	}
	if p.js.feed(p, l, t) || p.wm.feed(p, l, t) || p.junos.feed(p, l, t) || p.nxd.feed(p, l, t) || p.nxos.feed(p, l, t) || p.nxq.feed(p, l, t) || p.nxc.feed(p, l, t) || p.os10.feed(p, l, t) || p.xr.feed(p, l, t) || p.errs.feed(p, l, t) || p.det.feed(p, l, t) || p.iface.feed(p, l, t) || p.aoscx.feed(p, l, t) || p.cw.feed(p, l, t) || p.vd.feed(p, l, t) || p.vrp.feed(p, l, t) || p.cl.feed(p, l, t) {
		return
	}
	if t == "" {
		if p.table != swECN && p.table != swPFCHist && !p.fresh && !p.filtered {
			p.table = swNone
		}
		return
	}
	if p.table == swNone && p.ecnq.feed(p, l, t) {
		p.prev = t
		return
	}
	if t[0] == '-' && isRule(t) {
		if p.table == swECN && p.block != nil && p.block.rows > 0 {
			p.endBlock() // the closing rule
			p.out.lines.add(l)
			return
		}
		if p.table == swECN || p.table == swRoCE || p.table == swEOSVoQ {
			p.out.lines.add(l)
			return
		}
		if p.fresh && bareHeader(p.table) {
			// The rule under a header that already started the table (its
			// title, if any, is consumed: the header is not read again).
			p.spans = ruleSpans(l.Text)
			p.out.lines.add(l)
		} else if k, cols := p.header(p.prev); k != swNone {
			p.table, p.cols, p.filtered = k, cols, false
			p.sumStart(k)
			p.spans = ruleSpans(l.Text)
			p.out.lines.add(l)
		}
		return
	}
	if p.table != swECN && p.table != swRoCE {
		// A header saved without its rule of dashes starts its table too,
		// for the headers no row can be mistaken for.
		title := p.title
		if k, cols := p.header(t); k != swNone && bareHeader(k) {
			p.table, p.cols, p.spans, p.fresh, p.filtered = k, cols, nil, true, false
			p.sumStart(k)
			p.out.lines.add(l)
			p.prev = t
			return
		}
		p.title = title // header() consumes a title only for tables that need their rule
	}
	if p.table == swNone && isEOSQueueHeader(t) {
		p.table = swEOSQueue
		p.out.lines.add(l)
		p.prev = t
		return
	}
	if p.table == swNone && isEOSVoQHeader(t) {
		p.table = swEOSVoQ
		p.out.lines.add(l)
		p.prev = t
		return
	}
	if p.table != swNone && p.row(l, t) {
		p.fresh = false
		p.out.lines.add(l)
		return
	}
	if p.table != swNone && p.table != swECN && p.table != swRoCE && strings.Trim(t, ".") == "" {
		// A poster's elision (".." or "..."): the rows after it are the
		// same table's.
		p.out.lines.add(l)
		return
	}
	if p.table != swNone && p.cutRow(l, t) {
		return
	}
	if p.filtered && strings.Contains(t, "Last cached time") {
		p.out.lines.add(l)
		return
	}
	if p.startFiltered(l, t) {
		p.prev = t
		return
	}
	p.fresh, p.filtered = false, false
	if p.table == swECN {
		p.endBlock()
	}
	p.table = swNone
	if port := commandPort(t, "fec-histogram "); port != "" {
		p.histPort = port
	}
	switch {
	case swTitle(t) != swNone:
		p.title, p.titleNS = swTitle(t), titleNamespace(t)
		p.out.lines.add(l)
	case strings.HasPrefix(t, "For namespace ") && strings.HasSuffix(t, ":") && isIdentName(t[len("For namespace "):len(t)-1]):
		p.titleNS = strings.Clone(t[len("For namespace ") : len(t)-1])
		p.out.lines.add(l)
	case strings.HasPrefix(t, "Namespace: asic") && isIdentName(t[len("Namespace: "):]):
		// switchstat's title of each ASIC's table (show switch counters).
		p.titleNS = strings.Clone(t[len("Namespace: "):])
		p.out.lines.add(l)
	case strings.HasPrefix(t, "Total ") && strings.Contains(t, ") Drops:"):
		if typ, v, ok := hwDropTotal(t); ok {
			p.out.HWDrops = appendCapped(p.out.HWDrops, HWDrop{Type: typ, Count: v, Evidence: At(p.out.src, l)}, maxSwitchRows, &p.out.Omitted)
			p.out.lines.add(l)
		}
	case strings.HasPrefix(t, "BIG_RED_SWITCH status is ") && len(t) < 80:
		st, ns, _ := strings.Cut(t[len("BIG_RED_SWITCH status is "):], " on ")
		p.out.BigRedSwitch = appendCapped(p.out.BigRedSwitch, BigRedSwitch{Status: strings.Clone(st), Namespace: strings.Clone(ns), Evidence: At(p.out.src, l)}, maxSwitchRows, &p.out.Omitted)
		p.out.lines.add(l)
	case blockTitled(t, "Profile"):
		name, ns, _ := blockTitle(t, "Profile")
		p.out.ECN = appendCapped(p.out.ECN, ECNProfile{Name: strings.Clone(name), GreenMin: -1, GreenMax: -1, GreenDropProbability: -1, Evidence: []Evidence{At(p.out.src, l)}}, maxSwitchRows, &p.out.Omitted)
		if n := len(p.out.ECN); n > 0 && p.out.ECN[n-1].Evidence[0].Line == l.Num {
			p.ecn = &p.out.ECN[n-1]
		}
		p.block = newBlock('r', name, ns, At(p.out.src, l))
		p.table = swECN
		p.out.lines.add(l)
	case blockTitled(t, "Pool"):
		name, ns, _ := blockTitle(t, "Pool")
		p.block = newBlock('p', name, ns, At(p.out.src, l))
		p.table = swECN
		p.out.lines.add(l)
	case strings.HasPrefix(t, "Port 0x") && strings.HasSuffix(t, "Counters Group"):
		p.sdkPort, p.sdkPrio = strings.Clone(strings.Fields(t)[1]), -1
		p.out.lines.add(l)
	case p.sdkPort != "" && strings.HasPrefix(t, "Prio ") && len(t) <= 7:
		p.sdkPrio = atoiOr(t[len("Prio "):], -1)
		p.out.lines.add(l)
	case p.sdkPort != "" && p.sdkPrio >= 0 && (strings.HasPrefix(t, "rx_pause = ") || strings.HasPrefix(t, "tx_pause = ")):
		if v, ok := switchNum(t[len("rx_pause = "):]); ok {
			d := RX
			if t[0] == 't' {
				d = TX
			}
			p.out.ASICPFC = appendCapped(p.out.ASICPFC, SwitchPFC{Port: p.sdkPort, Dir: d, Prio: p.sdkPrio, Frames: v, Evidence: At(p.out.src, l)}, maxSwitchRows, &p.out.Omitted)
			p.out.lines.add(l)
		}
	case strings.HasPrefix(t, "RoCE mode") && strings.Contains(t, ":"):
		p.table, p.congestion, p.roceECN = swRoCE, false, nil
		p.out.lines.add(l)
	case t == wmNoObjects:
		p.noteNA(naWMEmpty, true, At(p.out.src, l))
		p.out.lines.add(l)
	default:
		if strings.Contains(t, "@") && (strings.Contains(t, "$ ") || strings.Contains(t, "# ")) {
			h := promptHost(t)
			if h != "" && p.out.Switch == "" {
				p.out.Switch = h
			}
			if h != "" {
				// A new command: the last one's namespace is done, and
				// its own -n names the ASIC of what it prints.
				p.titleNS = commandNamespace(t)
				p.sumN = 0
			}
		}
	}
	p.prev = t
}

// commandNamespace returns the ASIC an echoed SONiC command names with
// "-n asicN" or "--namespace asicN" (before any pipe), "" for none. Only
// asicN names are taken: SONiC names a multi-ASIC switch's namespaces so,
// and "-n" means something else to other tools (watch -n 1).
func commandNamespace(t string) string {
	cmd, _, _ := strings.Cut(t, "|")
	f := strings.Fields(cmd)
	for i, a := range f {
		a = strings.Trim(a, "`*")
		var ns string
		switch {
		case (a == "-n" || a == "--namespace") && i+1 < len(f):
			ns = strings.Trim(f[i+1], "`*")
		case strings.HasPrefix(a, "--namespace="):
			ns = a[len("--namespace="):]
		}
		if n, ok := strings.CutPrefix(ns, "asic"); ok && n != "" && strings.Trim(n, "0123456789") == "" && len(n) <= 3 {
			return strings.Clone(ns)
		}
	}
	return ""
}

// isRule reports whether t is a tabulate rule: runs of dashes separated by
// spaces.
func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != '-' && t[i] != ' ' {
			return false
		}
	}
	return true
}

// header classifies the line above a rule.
func (p *switchParser) header(h string) (swTable, []string) {
	f := strings.Fields(h)
	if len(f) < 2 {
		return swNone, nil
	}
	switch {
	case len(f) >= 10 && f[0] == "Port" && (f[1] == "Rx" || f[1] == "Tx") && f[2] == "PFC0":
		if f[1] == "Rx" {
			return swPFCRx, f[2:]
		}
		return swPFCTx, f[2:]
	case len(f) == 5 && f[0] == "switch-priority" && f[1] == "rx-pause-frames" && f[3] == "tx-pause-frames":
		return swNVUEPFC, f
	case f[0] == "traffic-class" && slices.Contains(f, "tx-frames") && slices.Contains(f, "tx-uc-buffer-discards"):
		return swNVUEQueue, f
	case len(f) == 3 && f[0] == "Counter" && f[1] == "Receive" && f[2] == "Transmit":
		return swNVUEPort, nil
	case f[0] == "priority-group" && slices.Contains(f, "rx-buffer-discards"):
		return swNVUEIngress, f
	case f[0] == "QUEUE" && strings.Contains(h, "STORM DETECTED/RESTORED"):
		return swWD, nil
	case f[0] == "Port" && (f[1] == "TxQ" || f[1] == "Voq") && len(f) >= 6 && f[4] == "Drop/pkts":
		// Not `show queue counters --trim` (Trim/pkts TrimSent/pkts
		// TrimDrop/pkts), whose drops are trimmed packets'.
		return swQueue, f
	case (f[0] == "Port" || f[0] == "Interface") && pgColumn(f[1]) >= 0 && (p.title == swPGShared || p.title == swPGHeadroom || p.title == swPGDrop):
		t := p.title
		p.title = swNone
		return t, f[1:]
	case f[0] == "Port" && pgColumns(f[1:]) && p.title == swNone:
		return swPGUntitled, f[1:]
	case queueWMHeader(f):
		p.title = swNone
		return swQueueWM, f
	case pfcHistHeader(f, h):
		return swPFCHist, f
	case fecHeader(f):
		return swFEC, f
	case fecHistHeader(f):
		return swFECHist, f
	case trimHeader(f):
		return swTrim, f
	case hwDropHeader(f):
		return swHWDrop, f
	case (f[0] == "IFACE" || f[0] == "Iface" && f[1] == "MTU") && len(f) >= 8 && strings.Contains(h, "RX_DRP"):
		// SONiC's portstat, or Cumulus Linux's cl-netstat (Iface MTU Met
		// RX_OK ... Flg).
		return swPorts, f
	case f[0] == "IFACE" && f[1] == "STATE" && len(f) >= 6 && (slices.Contains(f, "RX_DROPS") || slices.Contains(f, "RX_UTIL")):
		// `show dropcounters counts` (RX_ERR RX_DROPS TX_ERR TX_DROPS and
		// the configured counters) and `show interfaces counters rates`
		// (RX_OK RX_BPS RX_PPS RX_UTIL ...).
		return swPorts, f
	case f[0] == "Pool" && f[1] == "Bytes" && (p.title == swPoolWM || p.title == swHdrmWM):
		t := p.title
		p.title = swNone
		return t, f
	case f[0] == "LocalPort" && f[1] == "RemoteDevice" && len(f) >= 3:
		return swLLDP, f
	case f[0] == "PORT" && f[1] == "ACTION" && strings.Contains(h, "DETECTION TIME") && strings.Contains(h, "RESTORATION TIME"):
		return swWDConfig, f
	case f[0] == "Port" && (f[1] == "TxQ" || f[1] == "Voq") && strings.Contains(h, "WredDrp/pkts") && strings.Contains(h, "EcnMarked/pkts"):
		// --voq prints the ingress VOQs toward each system port.
		return swWRED, f
	case wredSumHeader(f):
		return swWREDSum, f
	case sonic.PFCPriorityHeader(f):
		return swPFCPrio, f
	}
	return swNone, nil
}

// bareHeader reports whether a table's header is distinctive enough to
// start the table without the rule of dashes under it (a saved or
// reformatted paste drops the rule).
func bareHeader(k swTable) bool {
	switch k {
	case swPFCRx, swPFCTx, swWD, swQueue, swPorts, swWDConfig, swWRED, swQueueWM, swPFCHist, swNVUEPFC, swNVUEQueue, swNVUEPort, swNVUEIngress, swFEC, swTrim, swWREDSum,
		swPGShared, swPGHeadroom, swPGDrop, swPGUntitled:
		return true
	}
	return false
}

// Result implements Parser.
func (p *switchParser) Result() Artifact {
	p.endBlock()
	p.errs.end(p)
	p.det.end(p)
	p.xr.flush(p)
	o := &p.out
	o.EOSPFC = p.eos.read(o.src)
	p.nv.read(o)
	p.nxc.end(o)
	// A "Profile:" block of buffer keys is a buffer profile, not ECN.
	ecn := o.ECN[:0]
	for _, e := range o.ECN {
		if e.GreenMin >= 0 || e.GreenMax >= 0 || e.ECN != "" {
			ecn = append(ecn, e)
		}
	}
	o.ECN = ecn
	o.latestSnapshots()
	p.notPolled(o)
	if o.rows() == 0 && len(o.NotPolled) == 0 {
		return nil
	}
	return o
}

// rows counts what s holds.
func (s *SwitchCounters) rows() int {
	return len(s.PFC) + len(s.WD) + len(s.Queues) + len(s.PGs) + len(s.PGDrops) + len(s.WRED) + len(s.QueueWMs) + len(s.PFCHist) + len(s.Ports) + len(s.FEC) + len(s.ECN) + len(s.Pools) + len(s.Profiles) + len(s.Neighbors) + len(s.PFCPrios) + len(s.ECNQueues) + len(s.WDConfig) + len(s.ASICPFC) + len(s.EOSPFC) + len(s.NXOSPFC) + len(s.Garbled) + len(s.CutRows) + len(s.UnplacedPFC) + len(s.FECBins) + len(s.Trims) + len(s.HWDrops)
}
