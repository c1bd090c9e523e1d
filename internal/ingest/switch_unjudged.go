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
//	Physical interface: ge-0/0/2, Index: 150   Junos show class-of-service interface
//	  Scheduler map: <default>, Index: 2
//	Physical interface: xe-0/1/0, Enabled, ... Junos show interfaces (not extensive)
//	Vlan1 is down, line protocol is down       EOS, NX-OS show interfaces of ports
//	                                           that print no counters
//	Port  PG0  PG1 ...  (every cell N/A)       SONiC show priority-group drop
//	                                           counters or watermark, not polled
func SwitchUnjudged(head []byte) (what, fix string) {
	var junosIf, junosCoS, ifaceHdr, pgNA bool
	var pgTitle swTable
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
		case swTitle(t) == swPGDrop || swTitle(t) == swPGShared || swTitle(t) == swPGHeadroom:
			pgTitle = swTitle(t)
		case len(f) >= 2 && f[0] == "Port" && pgColumns(f[1:]):
			// A per-PG table no reader kept a row of: every cell N/A.
			pgNA = true
		default:
			if _, _, ok := ifaceHeader(t); ok && t == sc.Text() {
				ifaceHdr = true
			}
		}
	}
	switch {
	case pgNA && pgTitle == swPGDrop:
		return "SONiC `show priority-group drop counters` with every count N/A (the switch does not poll PG drop counters, or the ports have none)",
			"`show priority-group drop counters` again after `counterpoll pg-drop enable` (`counterpoll show` lists what is polled), or meanwhile `show queue counters` and `show pfc counters`"
	case pgNA:
		return "SONiC `show priority-group watermark` (or `persistent-watermark`) with every peak N/A (the switch does not poll watermarks, or the ports have none)",
			"`show priority-group watermark headroom` again after `counterpoll watermark enable` (`counterpoll show` lists what is polled), or meanwhile `show pfc counters`"
	case junosCoS:
		return "Juniper Junos `show class-of-service interface` (the CoS configuration of a port: scheduler map, classifiers; no counters)",
			"`show interfaces queue PORT` (drops and ECN marks per queue), `show interfaces PORT extensive` (PFC frames per priority, MAC errors)"
	case junosIf:
		return "Juniper Junos `show interfaces` without `extensive` (state and rates: its error, queue and pause counters print only with extensive)",
			"`show interfaces PORT extensive` (MAC statistics, queue counters, PFC frames per priority), `show interfaces queue PORT`"
	case ifaceHdr:
		return "`show interface(s)` of ports that print no counters (VLAN, VXLAN or management interfaces, or blocks cut before their RX and TX counters)",
			"`show interfaces` of the Ethernet ports that carry RoCE, whole (EOS, NX-OS), or `show interface counters errors` and `show interface priority-flow-control`"
	}
	return "", ""
}

// nxosCounterCols are the column names of NX-OS `show interface counters`.
var nxosCounterCols = map[string]bool{
	"InOctets": true, "InUcastPkts": true, "InMcastPkts": true, "InBcastPkts": true,
	"OutOctets": true, "OutUcastPkts": true, "OutMcastPkts": true, "OutBcastPkts": true,
	"InPkts": true, "OutPkts": true,
}
