package ingest

import (
	"bufio"
	"bytes"
	"strings"
)

// SwitchUnjudged names the switch command whose output head (an input's
// first bytes, in which no reader recognised anything) is, when it is one
// that prints nothing diagnose judges, and the commands that print what
// it would: PFC and pause, queue drops, ECN marks, link errors. It
// returns "" for anything else. The families, by their lines:
//
//	Port     InOctets     InUcastPkts          NX-OS show interface counters
//	Port     Description  Intvl  Rx Mbps ...  NX-OS show interface counters table
//	Interface  Input Rate (avg)  Output Rate (avg)  NX-OS show interface counters brief
//	Port     Name  Intvl  In Mbps  %  In Kpps ...  EOS show interfaces counters rates
//	Interface    Asymmetric                SONiC show pfc asymmetric
//	Physical interface: ge-0/0/2, Index: 150   Junos show class-of-service interface
//	  Scheduler map: <default>, Index: 2
//	Physical interface: xe-0/1/0, Enabled, ... Junos show interfaces (not extensive)
//	Vlan1 is down, line protocol is down       EOS, NX-OS show interfaces of ports
//	                                           that print no counters
//	Interface vlan2 is up                      AOS-CX show interface of the same,
//	 Admin state is up                        once a line only AOS-CX prints follows
//
// A SONiC table of which every count is N/A is no unknown input: the
// switch parser reads it and names it (SwitchCounters.NotPolled).
func SwitchUnjudged(head []byte) (what, fix string) {
	var junosIf, junosCoS, ifaceHdr, aoscxHdr, aoscxSure bool
	sc := bufio.NewScanner(bytes.NewReader(head))
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		f := strings.Fields(t)
		switch {
		case len(f) == 3 && f[0] == "Port" && nxosCounterCols[f[1]] && nxosCounterCols[f[2]]:
			return "Cisco NX-OS `show interface counters` (octets and packets per port: no errors, discards or pause)",
				"`show interface counters errors` (FCS, discards), `show interface priority-flow-control` (pause per port), `show queuing interface` (drops per queue)"
		case len(f) > 0 && f[0] == "Interface" && strings.Contains(t, "Input Rate (avg)") && strings.Contains(t, "Output Rate (avg)"):
			return "Cisco NX-OS `show interface counters brief` (rates per port in MB/s and frames: no errors, discards or pause)",
				"`show interface counters errors` (FCS, discards), `show interface priority-flow-control` (pause per port), `show queuing interface` (drops and PFC per qos-group)"
		case len(f) >= 5 && f[0] == "Port" && f[1] == "Name" && f[2] == "Intvl" && f[3] == "In" && f[4] == "Mbps":
			return "Arista EOS `show interfaces counters rates` (rates per port: no errors, discards or pause)",
				"`show interfaces counters errors` (FCS, discards), `show interfaces counters queue` (drops per traffic class, and the VoQ drops on Jericho), `show priority-flow-control counters` (PFC frames per port)"
		case len(f) == 2 && f[0] == "Interface" && f[1] == "Asymmetric":
			return "SONiC `show pfc asymmetric` (each port's asymmetric PFC mode, on or off: configuration, no counters)",
				"`show pfc priority` (each port's lossless priorities, held against the hosts' mlnx_qos), `show pfc counters` (PFC frames per port and priority), `show pfcwd stats` (storms per lossless queue)"
		case len(f) >= 5 && f[0] == "Port" && f[1] == "Description" && f[2] == "Intvl" && f[3] == "Rx" && f[4] == "Mbps":
			return "Cisco NX-OS `show interface counters table` (rates per port: no errors, discards or pause)",
				"`show interface counters errors` (FCS, discards), `show interface priority-flow-control` (pause per port), `show queuing interface` (drops per queue)"
		case strings.HasPrefix(t, "Physical interface: "):
			if rest := t[len("Physical interface: "):]; strings.Contains(rest, ", Index: ") && !strings.Contains(rest, "Physical link is") {
				junosCoS = true
			} else {
				junosIf = true
			}
		case strings.HasPrefix(t, "Scheduler map: ") || strings.HasPrefix(t, "Maximum usable queues: "):
			junosCoS = junosCoS || junosIf
		default:
			if _, _, ok := ifaceHeader(t); ok && t == sc.Text() {
				ifaceHdr = true
			}
			if _, _, ok := aoscxHeader(t); ok && strings.TrimRight(sc.Text(), " \r") == t {
				aoscxHdr = true
			} else if aoscxHdr && aoscxOnly(t) {
				aoscxSure = true // FRR's zebra prints the same header
			}
		}
	}
	switch {
	case junosCoS:
		return "Juniper Junos `show class-of-service interface` (the CoS configuration of a port: scheduler map, classifiers; no counters)",
			"`show interfaces queue PORT` (drops and ECN marks per queue), `show interfaces PORT extensive` (PFC frames per priority, MAC errors)"
	case junosIf:
		return "Juniper Junos `show interfaces` without `extensive` (state and rates: its error, queue and pause counters print only with extensive)",
			"`show interfaces PORT extensive` (MAC statistics, queue counters, PFC frames per priority), `show interfaces queue PORT`"
	case aoscxSure:
		return "HPE Aruba AOS-CX `show interface` of interfaces that print no counters (VLAN, loopback or routed ports with L3 counters off, or blocks cut before their Statistic table)",
			"`show interface PORT` of the Ethernet ports that carry RoCE, whole (its Statistic table: Dropped, Pause Frames, Errors, CRC/FCS), and `show interface PORT queues` (drops per egress queue)"
	case ifaceHdr:
		return "`show interface(s)` of ports that print no counters (VLAN, VXLAN or management interfaces, or blocks cut before their RX and TX counters)",
			"`show interfaces` of the Ethernet ports that carry RoCE, whole (EOS, NX-OS), or `show interface counters errors` and `show interface priority-flow-control`"
	}
	return "", ""
}

// naKind is a SONiC counter table that prints N/A for every count when the
// switch does not poll it, or (naWMEmpty) a watermark command that prints
// no table at all when there is nothing of its kind to count.
type naKind int

const (
	naPGDrop naKind = iota
	naPGWM
	naQueueWM
	naWRED
	naQueue
	naTrim
	naWMEmpty
	naKinds
)

// wmNoObjects is what SONiC's watermarkstat prints (and nothing else)
// when COUNTERS_DB holds no priority group or queue of the kind asked for
// in the namespace it runs in.
const wmNoObjects = "Object map is empty!"

// naTexts name each table whose every count is N/A, and the commands
// that print its counts.
var naTexts = [naKinds]struct{ what, fix string }{
	naPGDrop: {"SONiC `show priority-group drop counters` with every count N/A (the switch does not poll PG drop counters, or the ports have none)",
		"`show priority-group drop counters` again after `counterpoll pg-drop enable` (`counterpoll show` lists what is polled), or meanwhile `show queue counters` and `show pfc counters`"},
	naPGWM: {"SONiC `show priority-group watermark` (or `persistent-watermark`) with every peak N/A (the switch does not poll watermarks, or the ports have none)",
		"`show priority-group watermark headroom` again after `counterpoll watermark enable` (`counterpoll show` lists what is polled), or meanwhile `show pfc counters`"},
	naQueueWM: {"SONiC `show queue watermark` (or `persistent-watermark`) with every peak N/A (the switch does not poll watermarks, or the queues have none)",
		"`show queue watermark unicast` again after `counterpoll watermark enable` (`counterpoll show` lists what is polled), or meanwhile `show queue counters` and `show pfc counters`"},
	naWRED: {"SONiC `show queue wredcounters` with every count N/A (the switch does not poll WRED and ECN counters per queue, or the queues have none)",
		"`show queue wredcounters` again after `counterpoll wredqueue enable` (`counterpoll show` lists what is polled), or meanwhile `show queue counters` (drops per queue)"},
	naQueue: {"SONiC `show queue counters` with every count N/A (the switch does not poll queue counters, or the queues have none)",
		"`show queue counters` again after `counterpoll queue enable` (`counterpoll show` lists what is polled), or meanwhile `show pfc counters` and `show interfaces counters`"},
	naTrim: {"SONiC trim counters (`show queue counters --trim`, `show interfaces counters trim` or `show switch counters`) with every count N/A (the switch does not poll them, or its ASIC does not trim packets)",
		"the trim counters again after `counterpoll queue enable` and `counterpoll port enable` (`counterpoll show` lists what is polled) on a switch whose ASIC trims packets, or meanwhile `show queue counters` (drops per queue)"},
	naWMEmpty: {"a SONiC watermark command (`show priority-group` or `show queue` `[persistent-]watermark`) that printed `" + wmNoObjects + "` (watermarkstat found no priority group or queue of that kind in COUNTERS_DB: (a) its counters were never enabled, since orchagent creates the PG map only when PG watermark or PG drop polling is on and the queue maps only with queue, queue watermark or WRED polling, or the switch is still in its boot-time counter delay; (b) the PGs or queues are not in BUFFER_PG or BUFFER_QUEUE, since the maps cover only configured ones; (c) on a multi-ASIC switch before 202411, the command ran in the host's namespace, not the ASICs')",
		"`counterpoll show`, then `counterpoll watermark enable` (and `counterpoll pg-drop enable`, `counterpoll queue enable`) and the same command again; `show buffer configuration` for the PGs and queues configured; on a multi-ASIC switch before 202411, the command per ASIC (`show priority-group watermark headroom -n asic0`, or under `sudo ip netns exec asic0`)"},
}

// NotPolled is a SONiC counter table of which every count is N/A (the
// switch does not poll it), or a watermark command's "Object map is
// empty!": what names it, Fix the commands that print its counts,
// Evidence its first row (the message).
type NotPolled struct {
	What, Fix string
	Evidence  Evidence
}

// naSeen is what the rows of one kind of table held: a row of counts all
// N/A, a row with a number, and the first row.
type naSeen struct {
	na, num bool
	ev      Evidence
}

// noteNA records a row of a table of kind k: every count N/A or not.
func (p *switchParser) noteNA(k naKind, na bool, ev Evidence) {
	s := &p.na[k]
	if !s.na && !s.num {
		s.ev = ev
	}
	s.na, s.num = s.na || na, s.num || !na
}

// notPolled ends the parse's N/A bookkeeping: the watermark and WRED rows
// kept (N/A as -1) are noted, each kind no row of which had a number is
// named in o.NotPolled, and queue counter rows of such a table, which
// would read as zero packets, are dropped.
func (p *switchParser) notPolled(o *SwitchCounters) {
	for _, w := range o.QueueWMs {
		p.noteNA(naQueueWM, w.Bytes < 0, w.Evidence)
	}
	for _, w := range o.WRED {
		p.noteNA(naWRED, w.WREDDrop < 0 && w.ECNMarks < 0, w.Evidence)
	}
	for k, s := range p.na {
		if s.na && !s.num {
			o.NotPolled = append(o.NotPolled, NotPolled{What: naTexts[k].what, Fix: naTexts[k].fix, Evidence: s.ev})
		}
	}
	if s := p.na[naQueue]; s.na && !s.num {
		o.Queues = nil
	}
	o.naRows = 0
	if s := p.na[naQueueWM]; s.na && !s.num {
		o.naRows += len(o.QueueWMs)
	}
	if s := p.na[naWRED]; s.na && !s.num {
		o.naRows += len(o.WRED)
	}
}

// Unpolled names the SONiC tables s holds of
// which every count is N/A (the switch does not poll them), and the
// commands that print their counts; only is set when s holds nothing
// else. It returns "" when there is none.
func (s *SwitchCounters) Unpolled() (what, fix string, only bool) {
	var whats, fixes []string
	for _, n := range s.NotPolled {
		whats, fixes = append(whats, n.What), append(fixes, n.Fix)
	}
	return strings.Join(whats, "; "), strings.Join(fixes, "; "), len(whats) > 0 && s.rows() == s.naRows
}

// nxosCounterCols are the column names of NX-OS `show interface counters`.
var nxosCounterCols = map[string]bool{
	"InOctets": true, "InUcastPkts": true, "InMcastPkts": true, "InBcastPkts": true,
	"OutOctets": true, "OutUcastPkts": true, "OutMcastPkts": true, "OutBcastPkts": true,
	"InPkts": true, "OutPkts": true,
}
