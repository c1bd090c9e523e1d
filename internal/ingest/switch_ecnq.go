package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// `ecnconfig -q` (sonic-utilities scripts/ecnconfig): whether ECN is on for
// a queue index, which ecnconfig decides by the WRED profile of the queue
// on the first port of DEVICE_NEIGHBOR (on only for AZURE_LOSSLESS):
//
//	ECN status:                                   (or "ECN status for namespace asic0:")
//	queue 3: on
//	Ethernet0,Ethernet4 queue 4: off              (-vv: the ports it stands for)
//	Enable ECN on Ethernet0,Ethernet4 queue 3     (`ecnconfig -q 3 on -vv`)
//	Disable ECN on Ethernet0,Ethernet4 queue 4    (`ecnconfig -q 4 off -vv`)

// ECNQueue is one queue index's ECN state as ecnconfig printed or set it.
type ECNQueue struct {
	Queue int
	On    bool
	// Set is true for an "Enable/Disable ECN on" line: what the command
	// changed, not what it read.
	Set bool
	// Ports are the ports -vv names ("" without it: every port).
	Ports []string
	// Namespace is the ASIC of a multi-ASIC switch's status block, or of
	// a change the echoed command's -n names. A change without -n runs on
	// every ASIC and prints one line each, with no namespace: those lines
	// are one ECNQueue, "", whose Ports are all the ASICs' ports.
	Namespace string
	Evidence  Evidence
}

// ecnQueueState follows `ecnconfig -q` output: inside tells that an "ECN
// status" title was read, whose "queue N: on|off" lines follow.
type ecnQueueState struct {
	inside    bool
	namespace string
	// lastSet is the line of the last "Enable/Disable ECN on" line and
	// setFrom the first ECNQueues index of the run it ends: the lines of
	// one command follow each other.
	lastSet, setFrom int
}

// feed reads line l (trimmed t) when it belongs to ecnconfig's queue
// output, and reports whether it did.
func (e *ecnQueueState) feed(p *switchParser, l Line, t string) bool {
	if ns, ok := ecnStatusTitle(t); ok {
		e.inside, e.namespace = true, ns
		p.out.lines.add(l)
		return true
	}
	for _, verb := range []string{"Enable ECN on ", "Disable ECN on "} {
		if rest, ok := strings.CutPrefix(t, verb); ok {
			ports, q, ok := ecnPortsQueue(rest)
			if !ok {
				return false
			}
			e.set(p, l, ECNQueue{Queue: q, On: verb[0] == 'E', Set: true, Ports: ports, Namespace: p.titleNS, Evidence: At(p.out.src, l)})
			p.out.lines.add(l)
			return true
		}
	}
	if !e.inside {
		return false
	}
	head, state, ok := strings.Cut(t, ": ")
	ports, q, qok := ecnPortsQueue(head)
	if !ok || !qok {
		e.inside = false
		return false
	}
	switch state = strings.TrimSpace(state); state {
	case "on", "off":
		p.out.ECNQueues = appendCapped(p.out.ECNQueues, ECNQueue{Queue: q, On: state == "on", Ports: ports, Namespace: e.namespace, Evidence: At(p.out.src, l)}, maxSwitchRows, &p.out.Omitted)
	default:
		at := strings.Index(l.Text, ": ") + 2
		at += len(l.Text[at:]) - len(strings.TrimLeft(l.Text[at:], " \t"))
		p.cut(l, at+1, "`on` or `off` (ecnconfig -q prints one of them for each queue)")
	}
	p.out.lines.add(l)
	return true
}

// set records the change q read on line l. A multi-ASIC switch prints a
// change once per ASIC, each with that ASIC's ports: a line of the same
// run for a queue and verb already seen is the next ASIC's, and its ports
// join the first line's.
func (e *ecnQueueState) set(p *switchParser, l Line, q ECNQueue) {
	if e.lastSet == 0 || l.Num != e.lastSet+1 {
		e.setFrom = len(p.out.ECNQueues)
	}
	e.lastSet = l.Num
	for i := e.setFrom; i < len(p.out.ECNQueues); i++ {
		r := &p.out.ECNQueues[i]
		if r.Set && r.Queue == q.Queue && r.On == q.On && r.Namespace == q.Namespace {
			for _, port := range q.Ports {
				if !slices.Contains(r.Ports, port) {
					r.Ports = append(r.Ports, port)
				}
			}
			return
		}
	}
	p.out.ECNQueues = appendCapped(p.out.ECNQueues, q, maxSwitchRows, &p.out.Omitted)
}

// ecnStatusTitle reads "ECN status:" and "ECN status for namespace asic0:",
// returning the namespace ("" for none).
func ecnStatusTitle(t string) (string, bool) {
	rest, ok := strings.CutPrefix(t, "ECN status")
	if !ok || !strings.HasSuffix(rest, ":") || len(rest) > 64 {
		return "", false
	}
	rest = strings.TrimSuffix(rest, ":")
	if rest == "" {
		return "", true
	}
	ns, ok := strings.CutPrefix(rest, " for namespace ")
	if !ok || !isIdentName(ns) {
		return "", false
	}
	return strings.Clone(ns), true
}

// ecnPortsQueue reads "[PORT,PORT,...] queue N": the ports -vv prints
// before the queue index (none without it; on a VOQ chassis, system port
// keys "host|asic|port") and the index.
func ecnPortsQueue(s string) ([]string, int, bool) {
	i := strings.LastIndex(s, "queue ")
	if i < 0 || i > 0 && s[i-1] != ' ' {
		return nil, 0, false
	}
	q, err := strconv.Atoi(strings.TrimSpace(s[i+len("queue "):]))
	if err != nil || q < 0 || q > 63 {
		return nil, 0, false
	}
	var ports []string
	if head := strings.TrimSpace(s[:i]); head != "" {
		for _, p := range strings.Split(head, ",") {
			if !queuePortName(p) {
				return nil, 0, false
			}
			ports = append(ports, strings.Clone(p))
		}
	}
	return ports, q, true
}
