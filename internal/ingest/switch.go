package ingest

import (
	"strconv"
	"strings"

	"rocelab/internal/sonic"
)

// KindSwitch is the kind of SwitchCounters.
const KindSwitch Kind = "switch-counters"

// SwitchCounters is what a switch's CLI says about PFC, its watchdog,
// queues, buffers and ECN. It reads the SONiC tables (tabulate output: a
// header, a rule of dashes, rows):
//
//	show pfc counters / pfcstat         Port Rx|Tx  PFC0 ... PFC7
//	show pfcwd stats                    QUEUE STATUS STORM DETECTED/RESTORED TX OK/DROP RX OK/DROP ...
//	show queue counters                 Port TxQ Counter/pkts Counter/bytes Drop/pkts Drop/bytes
//	show priority-group watermark ...   Ingress shared pool occupancy per PG: | Ingress headroom per PG:
//	show priority-group drop counters   Ingress PG dropped packets:
//	show queue [persistent-]watermark   Egress shared pool occupancy per unicast queue: | ... multicast queue: | ... all queues:
//	show pfc counters --history         Port Priority  RX Pause Transitions  Total RX Pause Time US ...
//	show queue wredcounters             Port TxQ WredDrp/pkts WredDrp/bytes EcnMarked/pkts EcnMarked/bytes
//	show pfc priority                   Interface  Lossless priorities
//	show interfaces counters / portstat IFACE STATE RX_OK ... RX_DRP RX_OVR TX_OK ... TX_DRP
//	ecnconfig -l / show ecn             Profile: NAME, then key value rows
//
// Numbers may carry thousands separators; "N/A" cells are skipped. A
// title may end in the namespace of a multi-ASIC switch ("Ingress headroom
// per PG: (Namespace asic1)"); PG columns are read by their header, which
// since SONiC 202205 lists only the configured PGs ("PG0 PG3 PG4"). A
// PG watermark table pasted without its title is read by its header and
// rule, its kind (shared or headroom) left unknown; a queue watermark
// table by its header alone, even with its rule lost to a blank line.
type SwitchCounters struct {
	Scoped
	src   string
	lines lineCount
	// Switch is the switch's name from a shell prompt ("admin@leaf1:~$"),
	// else "".
	Switch string
	PFC    []SwitchPFC
	WD     []WatchdogQueue
	Queues []QueueCount
	PGs    []PGWatermark
	// PGDrops are the ingress drops per priority group of `show
	// priority-group drop counters` (pg-drop).
	PGDrops []PGDrop
	// WRED are the WRED drops and ECN marks per queue of `show queue
	// wredcounters`.
	WRED []QueueWRED
	// QueueWMs are the egress queues' peak occupancy of `show queue
	// watermark` (or persistent-watermark).
	QueueWMs []QueueWatermark
	// PFCHist is `show pfc counters --history`: pause received per port
	// and priority, with its duration.
	PFCHist []PFCHistory
	Ports   []PortCount
	ECN     []ECNProfile
	// Pools are the buffer pools of `show buffer information` /
	// `mmuconfig -l`, with their peak occupancy from `show buffer_pool
	// watermark` and `show headroom-pool watermark`.
	Pools []BufferPool
	// Profiles are the buffer profiles (xon, xoff, size of lossless PGs).
	Profiles []BufferProfile
	// Neighbors are the LLDP neighbours of `show lldp table`.
	Neighbors []LLDPNeighbor
	// ASICPFC are PFC frame counts of an ASIC's own counter dump (the
	// Mellanox SDK's per-port dump: "Prio 3" then "rx_pause = 1234"),
	// to hold the CLI's counters against. Port is the ASIC's port id.
	ASICPFC []SwitchPFC
	// WDConfig are the rows of `show pfcwd config`: the watchdog's action
	// and times per port.
	WDConfig []WatchdogConfig
	// PFCPrios are the priorities a switch says PFC is enabled on (NVIDIA
	// Onyx `show roce`: "switch-priority 3: enabled"; SONiC `show pfc
	// priority`: any port's lossless priorities), with the lines.
	PFCPrios   []int
	PFCPrioEvs []Evidence
	// EOSPFC are the ports of Arista EOS `show priority-flow-control`.
	EOSPFC []EOSPFCPort
	// Omitted counts rows beyond the cap.
	Omitted int
	// Garbled holds an `nv show qos roce` table that began as NVUE prints
	// it and did not go on as it does: read by no rule, and said so.
	Garbled []Garble
	// CutRows are rows of a SONiC counter table that end short of its
	// columns (switch_cut.go): cut or wrapped in the paste.
	CutRows []Garble
	// UnplacedPFC are rows of a filtered `show pfc counters` that its row
	// order cannot place in the Rx or the Tx table (switch_grep.go).
	UnplacedPFC []Evidence
}

// SwitchPFC is the PFC frames a port received or sent on one priority.
type SwitchPFC struct {
	Port     string
	Dir      Dir
	Prio     int
	Frames   uint64
	Evidence Evidence
}

// WatchdogQueue is one row of `show pfcwd stats`.
type WatchdogQueue struct {
	Port                   string
	Queue                  int
	Status                 string // "stormed", "operational", "N/A"
	Detected, Restored     uint64
	TxOK, TxDrop           uint64
	RxOK, RxDrop           uint64
	TxLastDrop, RxLastDrop uint64
	Evidence               Evidence
}

// WatchdogConfig is one row of `show pfcwd config`; times in ms, -1 when
// not a number.
type WatchdogConfig struct {
	Port                   string
	Action                 string // "drop", "forward", "alert"
	Detection, Restoration int64
	Evidence               Evidence
}

// Running reports whether the watchdog runs on a queue: `show pfcwd stats`
// prints N/A as its status where it does not (stopped, or never started
// on that port).
func (w WatchdogQueue) Running() bool { return !strings.EqualFold(w.Status, "N/A") }

// QueueCount is one egress queue of `show queue counters`.
type QueueCount struct {
	Port    string
	Queue   int
	Type    string // "UC", "MC" or "ALL"
	Packets uint64
	Bytes   uint64
	// DropPkts and DropBytes are -1 when printed N/A.
	DropPkts, DropBytes int64
	Evidence            Evidence
}

// PGWatermark is the peak occupancy of one ingress priority group.
type PGWatermark struct {
	Port string
	PG   int
	// Headroom is set for headroom watermarks, clear for shared-pool ones
	// and for a table pasted without its title (Untitled).
	Headroom, Untitled bool
	Bytes              uint64
	Evidence           Evidence
}

// PortCount is one row of `show interfaces counters`; -1 for N/A.
type PortCount struct {
	Port                        string
	RxOK, RxErr, RxDrop, RxOver int64
	TxOK, TxErr, TxDrop, TxOver int64
	Evidence                    Evidence
}

// ECNProfile is one WRED/ECN profile of `ecnconfig -l`, thresholds in
// bytes (-1 when absent).
type ECNProfile struct {
	Name                 string
	GreenMin, GreenMax   int64
	GreenDropProbability int64
	ECN                  string
	Evidence             []Evidence
	// MinName, MaxName and ProbName are the output's own names for the
	// thresholds and the marking probability (NVUE's min-threshold,
	// max-threshold, probability), Units how it writes them; empty for
	// ecnconfig's.
	MinName, MaxName, ProbName, Units string
}

// BufferPool is one shared buffer pool; sizes in bytes, -1 when not shown.
type BufferPool struct {
	Name       string
	Type, Mode string // "ingress"/"egress", "dynamic"/"static"
	Size       int64
	// Peak is the shared-pool watermark, HeadroomPeak that of the shared
	// headroom pool (ingress lossless pools).
	Peak, HeadroomPeak int64
	Evidence           []Evidence
}

// BufferProfile is one buffer profile; bytes, -1 when not shown.
type BufferProfile struct {
	Name, Pool      string
	Xon, Xoff, Size int64
	DynamicTh       int64
	Evidence        []Evidence
}

// LLDPNeighbor is one row of `show lldp table`: what is on the far end of
// a switch port. A Linux host running lldpd names its port by the netdev
// ("enp5s0f0") or describes it as "Interface 8 as enp5s0f0".
type LLDPNeighbor struct {
	Port, Device, PortID, PortDescr string
	Evidence                        Evidence
}

// Kind returns KindSwitch.
func (s *SwitchCounters) Kind() Kind { return KindSwitch }

// Source returns the input's name.
func (s *SwitchCounters) Source() string { return s.src }

// Lines returns how many lines were recognised.
func (s *SwitchCounters) Lines() int { return s.lines.n }

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
	swRoCE
	swWDConfig
	swPGDrop
	swWRED
	swPFCPrio
	swPGUntitled
	swQueueWM
	swPFCHist
	swNVUEPFC
)

// swTitles are the titles SONiC prints above a table.
var swTitles = map[string]swTable{
	"Ingress shared pool occupancy per PG:":             swPGShared,
	"Ingress headroom per PG:":                          swPGHeadroom,
	"Ingress PG dropped packets:":                       swPGDrop,
	"Shared pool maximum occupancy:":                    swPoolWM,
	"Headroom pool maximum occupancy:":                  swHdrmWM,
	"Egress shared pool occupancy per unicast queue:":   swQueueWM,
	"Egress shared pool occupancy per multicast queue:": swQueueWM,
	"Egress shared pool occupancy per all queues:":      swQueueWM,
}

type switchParser struct {
	out   SwitchCounters
	prev  string // the last non-empty line, a header candidate
	title swTable
	table swTable
	cols  []string
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
	nv      nvueShow
}

// NewSwitchParser returns a parser for switch CLI output in the input src.
func NewSwitchParser(src string) Parser {
	return &switchParser{out: SwitchCounters{src: src}}
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
	if p.eos.feed(l, t) {
		p.out.lines.add(l)
		return
	}
	if t == "" {
		if p.table != swECN && p.table != swPFCHist && !p.fresh && !p.filtered {
			p.table = swNone
		}
		return
	}
	if t[0] == '-' && isRule(t) {
		if p.table == swECN && p.block != nil && p.block.rows > 0 {
			p.endBlock() // the closing rule
			p.out.lines.add(l)
			return
		}
		if p.table == swECN || p.table == swRoCE {
			p.out.lines.add(l)
			return
		}
		if k, cols := p.header(p.prev); k != swNone {
			p.table, p.cols, p.filtered = k, cols, false
			p.spans = ruleSpans(l.Text)
			p.out.lines.add(l)
		} else if p.table != swNone && bareHeader(p.table) {
			// The rule under a header that already started the table.
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
	switch {
	case swTitle(t) != swNone:
		p.title = swTitle(t)
		p.out.lines.add(l)
	case strings.HasPrefix(t, "Profile: ") && len(t) < 80:
		p.out.ECN = appendCapped(p.out.ECN, ECNProfile{Name: strings.Clone(t[len("Profile: "):]), GreenMin: -1, GreenMax: -1, GreenDropProbability: -1, Evidence: []Evidence{At(p.out.src, l)}}, maxSwitchRows, &p.out.Omitted)
		if n := len(p.out.ECN); n > 0 && p.out.ECN[n-1].Evidence[0].Line == l.Num {
			p.ecn = &p.out.ECN[n-1]
		}
		p.block = newBlock('r', t[len("Profile: "):], At(p.out.src, l))
		p.table = swECN
		p.out.lines.add(l)
	case strings.HasPrefix(t, "Pool: ") && len(t) < 80:
		p.block = newBlock('p', t[len("Pool: "):], At(p.out.src, l))
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
	default:
		if strings.Contains(t, "@") && (strings.Contains(t, "$ ") || strings.Contains(t, "# ")) {
			if h := promptHost(t); h != "" && p.out.Switch == "" {
				p.out.Switch = h
			}
		}
	}
	p.prev = t
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
	case f[0] == "QUEUE" && strings.Contains(h, "STORM DETECTED/RESTORED"):
		return swWD, nil
	case f[0] == "Port" && f[1] == "TxQ" && strings.Contains(h, "Drop/pkts"):
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
	case f[0] == "IFACE" && len(f) >= 8 && strings.Contains(h, "RX_DRP"):
		return swPorts, f
	case f[0] == "Pool" && f[1] == "Bytes" && (p.title == swPoolWM || p.title == swHdrmWM):
		t := p.title
		p.title = swNone
		return t, f
	case f[0] == "LocalPort" && f[1] == "RemoteDevice" && len(f) >= 3:
		return swLLDP, f
	case f[0] == "PORT" && f[1] == "ACTION" && strings.Contains(h, "DETECTION TIME") && strings.Contains(h, "RESTORATION TIME"):
		return swWDConfig, f
	case f[0] == "Port" && f[1] == "TxQ" && strings.Contains(h, "WredDrp/pkts") && strings.Contains(h, "EcnMarked/pkts"):
		return swWRED, f
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
	case swPFCRx, swPFCTx, swWD, swQueue, swPorts, swWDConfig, swWRED, swQueueWM, swPFCHist, swNVUEPFC:
		return true
	}
	return false
}

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
		if len(f) < 6 || !isIdentName(f[0]) {
			return false
		}
		typ, num := splitQueueName(f[1])
		if typ == "" {
			return false
		}
		pk, _ := switchNum(f[2])
		by, _ := switchNum(f[3])
		p.out.Queues = appendCapped(p.out.Queues, QueueCount{Port: strings.Clone(f[0]), Queue: num, Type: typ, Packets: pk, Bytes: by, DropPkts: numOr(f[4]), DropBytes: numOr(f[5]), Evidence: ev}, maxSwitchRows, &p.out.Omitted)
		return true
	case swPGShared, swPGHeadroom, swPGDrop, swPGUntitled:
		return p.pgRow(f, ev)
	case swQueueWM:
		return p.queueWMRow(f, ev)
	case swPFCHist:
		return p.pfcHistRow(f, ev)
	case swWRED:
		return p.wredRow(f, ev)
	case swPFCPrio:
		return p.pfcPrioRow(l.Text, ev)
	case swPorts:
		return p.portRow(f, ev)
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
	case swRoCE:
		return p.roceLine(t, ev)
	case swNVUEPFC:
		return p.nvuePFCRow(f, ev)
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
	if len(f) < 4 || !isIdentName(f[0]) {
		return false
	}
	var vals []string
	for i := 0; i < len(f); i++ {
		if i+1 < len(f) && strings.HasSuffix(f[i+1], "/s") && !strings.HasSuffix(f[i], "/s") {
			vals = append(vals, f[i]+" "+f[i+1])
			i++
			continue
		}
		vals = append(vals, f[i])
	}
	if len(vals) != len(p.cols) {
		return false
	}
	pc := PortCount{Port: strings.Clone(f[0]), Evidence: ev}
	for i, c := range p.cols {
		v := vals[i]
		switch c {
		case "RX_OK":
			pc.RxOK = numOr(v)
		case "RX_ERR":
			pc.RxErr = numOr(v)
		case "RX_DRP":
			pc.RxDrop = numOr(v)
		case "RX_OVR":
			pc.RxOver = numOr(v)
		case "TX_OK":
			pc.TxOK = numOr(v)
		case "TX_ERR":
			pc.TxErr = numOr(v)
		case "TX_DRP":
			pc.TxDrop = numOr(v)
		case "TX_OVR":
			pc.TxOver = numOr(v)
		}
	}
	p.out.Ports = appendCapped(p.out.Ports, pc, maxSwitchRows, &p.out.Omitted)
	return true
}

// splitQueueName reads "UC3", "MC10", "ALL7".
func splitQueueName(s string) (string, int) {
	for _, t := range []string{"UC", "MC", "ALL"} {
		if rest, ok := strings.CutPrefix(s, t); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n < 64 {
				return t, n
			}
		}
	}
	return "", 0
}

// Result implements Parser.
func (p *switchParser) Result() Artifact {
	p.endBlock()
	o := &p.out
	o.EOSPFC = p.eos.read(o.src)
	p.nv.read(o)
	// A "Profile:" block of buffer keys is a buffer profile, not ECN.
	ecn := o.ECN[:0]
	for _, e := range o.ECN {
		if e.GreenMin >= 0 || e.GreenMax >= 0 || e.ECN != "" {
			ecn = append(ecn, e)
		}
	}
	o.ECN = ecn
	o.latestSnapshots()
	if len(o.PFC)+len(o.WD)+len(o.Queues)+len(o.PGs)+len(o.PGDrops)+len(o.WRED)+len(o.QueueWMs)+len(o.PFCHist)+len(o.Ports)+len(o.ECN)+len(o.Pools)+len(o.Profiles)+len(o.Neighbors)+len(o.PFCPrios)+len(o.WDConfig)+len(o.ASICPFC)+len(o.EOSPFC)+len(o.Garbled)+len(o.CutRows)+len(o.UnplacedPFC) == 0 {
		return nil
	}
	return o
}

// latestSnapshots keeps one row per port and queue (or priority, PG) of
// each table: a paste that holds the same table twice (before and after,
// or the command run twice) is two snapshots of one set of counters, and
// the later one is the current state. Rows keep their first-seen order.
func (o *SwitchCounters) latestSnapshots() {
	o.PFC = lastBy(o.PFC, func(r SwitchPFC) string { return r.Port + "|" + strconv.Itoa(int(r.Dir)) + "|" + strconv.Itoa(r.Prio) })
	o.WD = lastBy(o.WD, func(r WatchdogQueue) string { return r.Port + "|" + strconv.Itoa(r.Queue) })
	o.Queues = lastBy(o.Queues, func(r QueueCount) string { return r.Port + "|" + r.Type + "|" + strconv.Itoa(r.Queue) })
	o.PGs = lastBy(o.PGs, func(r PGWatermark) string {
		return r.Port + "|" + strconv.Itoa(r.PG) + "|" + strconv.FormatBool(r.Headroom) + strconv.FormatBool(r.Untitled)
	})
	o.QueueWMs = lastBy(o.QueueWMs, func(r QueueWatermark) string { return r.Port + "|" + r.Type + "|" + strconv.Itoa(r.Queue) })
	o.PFCHist = lastBy(o.PFCHist, func(r PFCHistory) string { return r.Port + "|" + strconv.Itoa(r.Prio) })
	o.PGDrops = lastBy(o.PGDrops, func(r PGDrop) string { return r.Port + "|" + strconv.Itoa(r.PG) })
	o.WRED = lastBy(o.WRED, func(r QueueWRED) string { return r.Port + "|" + r.Type + "|" + strconv.Itoa(r.Queue) })
	o.Ports = lastBy(o.Ports, func(r PortCount) string { return r.Port })
	o.WDConfig = lastBy(o.WDConfig, func(r WatchdogConfig) string { return r.Port })
}

// lastBy keeps, for each key, the last row with that key, at the place of
// the first.
func lastBy[T any](rows []T, key func(T) string) []T {
	if len(rows) < 2 {
		return rows
	}
	at := make(map[string]int, len(rows))
	out := rows[:0]
	for _, r := range rows {
		k := key(r)
		if i, ok := at[k]; ok {
			out[i] = r
			continue
		}
		at[k] = len(out)
		out = append(out, r)
	}
	return out
}
