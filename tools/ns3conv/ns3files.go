package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
	"rocelab/tools/internal/fields"
)

// ns3Topology is topology.txt as a graph: hosts (the nodes not listed as
// switches) and switches each numbered in ns-3's node order.
type ns3Topology struct {
	name            []string // rocelab's name of each ns-3 node
	hosts, switches int
	links           []string
	rates           []unit.BitRate
	delay           []unit.Time
	// loss is each link's error rate (topology.txt's fifth column): the
	// share of packets, data, ACKs and PFC frames alike, that each of its
	// two ports drops on receipt (third.cc's RateErrorModel per packet).
	loss []float64
	// ends are each link's two nodes by rocelab's name ("s0-h1"), which
	// names it in a fault: one link joins a pair (lastPerPair).
	ends []string
	// headroom is the largest of ns-3's 3 x rate x delay per port, and
	// widest the link that gives it.
	headroom unit.Bytes
	widest   ns3Link
	// ports are each switch's links' headrooms as ns-3 gives them, by
	// rocelab's name: the scenario's ports.
	ports map[string][]unit.Bytes
	// ns3Own is what ns-3 takes out of each switch's buffer, by ns-3
	// node id: each port's headroom and reserve (ns3Reserve) for every
	// link listed, as third.cc installs a device for each, those
	// lastPerPair and hostsReach drop too.
	ns3Own map[int]unit.Bytes
	// hostsFirst says the hosts are ns-3's first node ids, the switches
	// the rest: with renumbered false, the numbering under which the
	// scenario can take ns-3's ECMP (ecmp.NS3).
	hostsFirst bool
	// unused are the node ids no link names, which ns-3 builds and leaves
	// idle and the scenario leaves out (a graph's nodes are all linked);
	// renumbered says some node after one of them moved down.
	unused     []int
	renumbered bool
	// apart are switches whose links reach no host (a part of the
	// topology cut off from the hosts): ns-3 builds them and routes
	// nothing through them, and the scenario leaves them and their links
	// out.
	apart []int
	// idle are the lines of links that another link between the same two
	// nodes, listed later, replaced: third.cc routes a pair's packets
	// through one interface (nbr2if[a][b], the last link's), so ns-3
	// builds these ports and sends nothing on them, and the scenario
	// leaves them out.
	idle []int
	// ifaces are each switch's neighbours by ns-3 interface: third.cc
	// installs a device on both ends of every link listed, in order, so
	// ifaces[id][j-1] is the other end of node id's interface j (0 is
	// its loopback), as qlen.txt and pfc.txt number ports.
	ifaces map[int][]int
}

// ns3Link is one link of topology.txt, its ends as ns-3 node ids, and its
// line.
type ns3Link struct {
	a, b int
	rate unit.BitRate
	d    unit.Time
	loss float64
	// line is the link's line, col its delay's column.
	line, col int
}

// maxNs3Nodes bounds the nodes a topology.txt may declare, far above any
// fabric the twin runs, so that a wrong first line is refused before its
// count is allocated.
const maxNs3Nodes = 1 << 20

// pluralIDs says how many switch ids are still missing, of sw, after read.
func pluralIDs(sw string, read int) string {
	n, _ := strconv.Atoi(sw)
	if n-read == 1 {
		return "1 id"
	}
	return fmt.Sprintf("%d ids", n-read)
}

func readTopology(file string, r io.Reader) (*ns3Topology, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var head [][]string
	var sids []string                     // the switches' ids read so far
	var lastLine, lastEnd int             // the last line read with words, and the column past its last
	var headLine, linksCol, wantLinks int // wantLinks: the count the first line gives
	hostLink := map[int][2]int{}          // each host's first link's line and other end
	t := &ns3Topology{}
	var isSwitch []bool
	var links []ns3Link
	for n := 1; sc.Scan(); n++ {
		f, cols := fields.At(sc.Text())
		errAt := fieldErr(file, n, cols)
		if k := otherFile(f); k != "" && len(head) == 0 && !(len(f) == 3 && ints(f)) {
			return nil, errAt(0, "expected \"NODES SWITCHES LINKS\": this line reads as %s, not a topology", k)
		}
		if i := wordAt(f, 3); i >= 0 && len(head) == 0 {
			return nil, errAt(i, "%q: expected \"NODES SWITCHES LINKS\", whole numbers: %s", f[i], notNumber(topologyCounts(i), "the last link"))
		}
		if i := commentAt(f); i >= 0 && (len(head) < 2 || len(links) < wantLinks) {
			return nil, errAt(i, "%s", noComment(f[i], "the last link"))
		}
		if len(f) > 0 {
			lastLine, lastEnd = n, cols[len(f)-1]+len(f[len(f)-1])
		}
		switch {
		case len(f) == 0:
			continue
		case len(head) == 0:
			if len(f) >= 6 {
				if _, err := strconv.Atoi(f[5]); err != nil && f[2] == "0" {
					// no NVSwitches: its GPUs are hosts on the switches,
					// and only the head is not third.cc's
					return nil, errAt(5, "%q: a GPU type, so SimAI's head (NODES GPUS_PER_SERVER NVSWITCHES SWITCHES LINKS GPU_TYPE), here without NVSwitches, which ns-3-alibabacloud's programs read and HPCC's third.cc does not: it takes %s %s %s for NODES SWITCHES LINKS; expected HPCC's \"NODES SWITCHES LINKS\" (%s %s %s, then the switches' ids)", f[5], f[0], f[1], f[2], f[0], f[3], f[4])
				} else if err != nil {
					return nil, errAt(5, "%q: a GPU type, so SimAI's head (NODES GPUS_PER_SERVER NVSWITCHES SWITCHES LINKS GPU_TYPE): its GPUs reach NVSwitches and NICs, which rocelab's hosts do not model; expected HPCC's \"NODES SWITCHES LINKS\"", f[5])
				}
			}
			if len(f) == 4 && ints(f) {
				return nil, errAt(3, "four numbers: ns3-datacenter's head (NODES SWITCHES TORS LINKS), whose programs (PowerTCP's, Reverie's) take the congestion control from their command line (--algorithm; PowerTCP on unless --wien=false), not CC_MODE; expected HPCC's \"NODES SWITCHES LINKS\"")
			}
			if len(f) != 3 {
				return nil, errAt(min(len(f)-1, 3), "expected \"NODES SWITCHES LINKS\"")
			}
			if f[1] == "0" {
				return nil, errAt(1, "no switches: ns-3 links hosts to hosts here, and a rocelab host is one NIC port on a switch")
			}
			head = append(head, f)
			headLine, linksCol = n, cols[2]
			wantLinks, _ = strconv.Atoi(f[2])
			continue
		case len(head) == 1:
			// third.cc reads the switches' ids word by word (topof >>
			// sid), so they may take one line or one line each.
			nodes, err1 := strconv.Atoi(head[0][0])
			sw, err2 := strconv.Atoi(head[0][1])
			if err1 != nil || err2 != nil || nodes < 3 || nodes > maxNs3Nodes || sw < 1 || sw >= nodes || len(sids)+len(f) > sw {
				return nil, errAt(max(0, min(sw-len(sids), len(f)-1)), "expected the %s switches' node ids, after \"NODES SWITCHES LINKS\" (at most %d nodes)", head[0][1], maxNs3Nodes)
			}
			if isSwitch == nil {
				isSwitch = make([]bool, nodes)
			}
			for i, x := range f {
				id, err := strconv.Atoi(x)
				if err != nil || id < 0 || id >= nodes || isSwitch[id] {
					return nil, errAt(i, "switch %q: expected a node id below %d, once", x, nodes)
				}
				isSwitch[id] = true
			}
			if sids = append(sids, f...); len(sids) == sw {
				head = append(head, sids)
				t.hostsFirst = !slices.Contains(isSwitch[:nodes-sw], true)
			}
			continue
		}
		if len(links) == wantLinks {
			break // third.cc reads as many links as the first line says
		}
		if len(f) != 5 {
			return nil, errAt(min(len(f)-1, 5), "expected \"SRC DST RATE DELAY ERROR_RATE\"")
		}
		a, err1 := strconv.Atoi(f[0])
		b, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || a < 0 || b < 0 || a >= len(isSwitch) || b >= len(isSwitch) {
			return nil, errAt(0, "nodes %s and %s: expected ids below %d", f[0], f[1], len(isSwitch))
		}
		if !isSwitch[a] && !isSwitch[b] {
			return nil, errAt(0, "nodes %d and %d are both hosts (not in the switch list): rocelab's hosts connect through switches", a, b)
		}
		for i, id := range []int{a, b} {
			if isSwitch[id] {
				continue
			}
			peer := a + b - id
			first, ok := hostLink[id]
			switch {
			case !ok:
				hostLink[id] = [2]int{n, peer}
			case first[1] != peer:
				// A link to the same switch again is a parallel link,
				// of which ns-3 sends on the last (lastPerPair).
				return nil, errAt(i, "node %d, a host, has a second link, to node %d (its first, on line %d, to node %d): ns-3 gives a host a NIC per link and one address, sends each QP from one of the NICs its shortest paths leave by, by a hash of the QP's addresses and ports (rdma-hw.cc GetNicIdxOfQp), delivers its data on whichever NIC the switches' ECMP ends the path at, and sends the ACKs from the NIC the receiver's own hash picks (GetNicIdxOfRxQp), which may be the other; a rocelab host is one NIC port with its own address (a server of several NICs is several hosts, topology.servers.nics), so its QPs run between two ports both ways and no split of the host runs them alike: give the host one link (its NIC on a switch) in the ns-3 run too, or one node per port with the flows placed on them", id, peer, first[0], first[1])
			}
		}
		rate, err := ns3Rate(f[2], false)
		if err != nil {
			return nil, errAt(2, "rate %v", err)
		}
		d, err := ns3Time(f[3])
		if err != nil {
			return nil, errAt(3, "delay %v", err)
		}
		e, err := strconv.ParseFloat(f[4], 64)
		switch {
		case err != nil || math.IsNaN(e):
			return nil, errAt(4, "error rate %q: expected the share of packets the link loses, 0 to below 1", f[4])
		case e < 0:
			return nil, errAt(4, "error rate %s: below 0, which ns-3 takes as no loss; write 0", f[4])
		case e >= 1:
			return nil, errAt(4, "error rate %s: ns-3 then loses every packet on this link, and no flow across it completes; expected below 1", f[4])
		}
		links = append(links, ns3Link{a, b, rate, d, e, n, cols[3]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(head) == 1 {
		return nil, fmt.Errorf("%s:%d:%d: %d of the %s switches' node ids, then the end of the file: expected the other %s", file, lastLine, lastEnd, len(sids), head[0][1], pluralIDs(head[0][1], len(sids)))
	}
	if len(head) < 2 {
		return nil, fmt.Errorf("%s: expected \"NODES SWITCHES LINKS\" and the switches' ids", file)
	}
	if wantLinks != len(links) {
		return nil, fmt.Errorf("%s:%d:%d: %d links listed, the first line says %s", file, headLine, linksCol, len(links), head[0][2])
	}
	t.ns3Own = map[int]unit.Bytes{}
	t.ifaces = map[int][]int{}
	for _, l := range links {
		for _, id := range []int{l.a, l.b} {
			if isSwitch[id] {
				t.ns3Own[id] += ns3PortHeadroom(l.rate, l.d) + ns3Reserve
				t.ifaces[id] = append(t.ifaces[id], l.a+l.b-id)
			}
		}
	}
	links = t.lastPerPair(links)
	links = t.hostsReach(isSwitch, links)
	t.name = nodeNames(isSwitch, links)
	for id, name := range t.name {
		switch {
		case name == "" && slices.Contains(t.apart, id):
		case name == "":
			t.unused = append(t.unused, id)
		case name[0] == 'h':
			t.hosts++
		default:
			t.switches++
		}
	}
	if t.hosts < 2 || t.switches == 0 {
		return nil, fmt.Errorf("%s:%d:%d: %d hosts and %d switches have links: nothing to run", file, headLine, linksCol, t.hosts, t.switches)
	}
	out := slices.Concat(t.unused, t.apart)
	t.renumbered = len(out) > 0 && slices.Min(out) < len(t.name)-len(out)
	t.ports = map[string][]unit.Bytes{}
	for _, l := range links {
		h := ns3PortHeadroom(l.rate, l.d)
		if h > t.headroom {
			t.headroom, t.widest = h, l
		}
		for _, n := range []string{t.name[l.a], t.name[l.b]} {
			if n[0] == 's' {
				t.ports[n] = append(t.ports[n], h)
			}
		}
		t.links = append(t.links, fmt.Sprintf("{a: %s, b: %s, rate: %s, cable: %s}", t.name[l.a], t.name[l.b], l.rate, unit.CableFor(l.d)))
		t.rates = append(t.rates, l.rate)
		t.delay = append(t.delay, l.d)
		t.loss = append(t.loss, l.loss)
		t.ends = append(t.ends, t.name[l.a]+"-"+t.name[l.b])
	}
	return t, nil
}

// ns3PortHeadroom is the headroom third.cc gives a switch port of a link
// at rate with delay d, in its integers: rate x delay (ns-3's nanosecond
// steps) in uint64, which wraps past 2^64 as ns-3's does (1600G over 20
// ms), / 8 / 1e9 x 3, kept in a uint32 (400G over 30 ms: 4.5 GB less
// 2^32).
func ns3PortHeadroom(rate unit.BitRate, d unit.Time) unit.Bytes {
	return unit.Bytes(uint32(uint64(rate) * uint64(d/unit.Nanosecond) / 8 / 1_000_000_000 * 3))
}

// overBuffer returns a switch whose ports the scenario cannot give their
// headroom and ns-3's reserve out of buffer bytes: from-ns3 gives every
// port the largest headroom (rocelab's is one size), so the switch needs
// its ports times that and the reserve. ns3Need is what ns-3 itself
// takes out of that switch's buffer (ns3Own). Of several, the first in
// ns-3's node order where ns3Need is past the buffer too, else the
// first.
func (t *ns3Topology) overBuffer(buffer unit.Bytes) (sw string, need, ns3Need unit.Bytes, ok bool) {
	for id, name := range t.name {
		hs := t.ports[name]
		n := unit.Bytes(len(hs)) * (t.headroom + ns3Reserve)
		if len(hs) == 0 || n < buffer {
			continue
		}
		own := t.ns3Own[id]
		if !ok || own >= buffer && ns3Need < buffer {
			sw, need, ns3Need, ok = name, n, own, true
		}
	}
	return sw, need, ns3Need, ok
}

// even says no scenario port's headroom differs from another's (all 0
// among them), so no link is the one that gives the largest.
func (t *ns3Topology) even() bool {
	for _, hs := range t.ports {
		if slices.ContainsFunc(hs, func(h unit.Bytes) bool { return h != t.headroom }) {
			return false
		}
	}
	return true
}

// lastPerPair keeps, of the links between each two nodes, the last one
// listed, which is the one third.cc routes through; t.idle gets the
// others' lines.
func (t *ns3Topology) lastPerPair(links []ns3Link) []ns3Link {
	last := map[[2]int]int{}
	for i, l := range links {
		last[[2]int{min(l.a, l.b), max(l.a, l.b)}] = i
	}
	kept := links[:0:0]
	for i, l := range links {
		if last[[2]int{min(l.a, l.b), max(l.a, l.b)}] != i {
			t.idle = append(t.idle, l.line)
			continue
		}
		kept = append(kept, l)
	}
	return kept
}

// hostsReach keeps the links of the nodes some host reaches; t.apart gets
// the switches of the others. ns-3 routes from each host over switches
// only (third.cc CalculateRoute), so nothing crosses such a part.
func (t *ns3Topology) hostsReach(isSwitch []bool, links []ns3Link) []ns3Link {
	next := map[int][]int{}
	for _, l := range links {
		next[l.a] = append(next[l.a], l.b)
		next[l.b] = append(next[l.b], l.a)
	}
	reached := make([]bool, len(isSwitch))
	var queue []int
	for id, sw := range isSwitch {
		if !sw && len(next[id]) > 0 {
			reached[id] = true
			queue = append(queue, id)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range next[n] {
			if !reached[m] {
				reached[m] = true
				queue = append(queue, m)
			}
		}
	}
	for id, sw := range isSwitch {
		if sw && !reached[id] && len(next[id]) > 0 {
			t.apart = append(t.apart, id)
		}
	}
	return slices.DeleteFunc(links, func(l ns3Link) bool { return !reached[l.a] })
}

// hostIDs is the ns-3 node id of each of the scenario's hosts.
func (t *ns3Topology) hostIDs() []int {
	ids := make([]int, 0, t.hosts)
	for id, name := range t.name {
		if strings.HasPrefix(name, "h") {
			ids = append(ids, id)
		}
	}
	return ids
}

// nodeNames names each ns-3 node that some link names in node order, the
// hosts h0, h1, ... and the switches s0, s1, ...; a node without a link
// gets "".
func nodeNames(isSwitch []bool, links []ns3Link) []string {
	linked := make([]bool, len(isSwitch))
	for _, l := range links {
		linked[l.a], linked[l.b] = true, true
	}
	name := make([]string, len(isSwitch))
	var hosts, switches int
	for id := range isSwitch {
		switch {
		case !linked[id]:
		case isSwitch[id]:
			name[id] = "s" + strconv.Itoa(switches)
			switches++
		default:
			name[id] = "h" + strconv.Itoa(hosts)
			hosts++
		}
	}
	return name
}

// ns3FlowLine is one line of flow.txt.
type ns3FlowLine struct {
	src, dst, pg, dport int
	size                int64
	start               unit.Time
}

// ns3Flows is what third.cc runs of a flow file, and how many flow lines
// follow the count its first line gives, which it never reads.
type ns3Flows struct {
	lines  []ns3FlowLine
	unread int
	// beyond are the flows read and checked past the maxKeptFlows kept
	// (a scenario holds no more), and beyondStart the earliest of their
	// starts; first is the earliest start of all
	beyond      int
	beyondStart unit.Time
	first       unit.Time
}

// minFlowLine is the shortest line a flow takes in a scenario
// ("  - {src: h0, dst: h1, bytes: 1}"), and maxKeptFlows the most flows
// a scenario of scenario.MaxFileSize can hold: readFlows keeps no more,
// so a flow file of any length is read in bounded memory.
const (
	minFlowLine  = 33
	maxKeptFlows = int(scenario.MaxFileSize) / minFlowLine
)

// readFlows streams flow.txt: every line is checked, the first
// maxKeptFlows kept.
func readFlows(file string, r io.Reader, t *ns3Topology) (ns3Flows, error) {
	var out []ns3FlowLine
	var fl ns3Flows
	unread, read := 0, 0
	want := -1
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		f, cols := fields.At(sc.Text())
		errAt := fieldErr(file, n, cols)
		if len(f) == 0 {
			continue
		}
		if k := otherFile(f); k != "" && want < 0 && !(len(f) == 1 && ints(f)) {
			return ns3Flows{}, errAt(0, "expected the flow count: this line reads as %s, not a flow file", k)
		}
		if i := wordAt(f, 1); i >= 0 && want < 0 {
			return ns3Flows{}, errAt(i, "%q: expected the flow count, a whole number: %s", f[i], notNumber("every value after it reads 0 and ns-3 builds nothing from the file", "the last flow"))
		}
		if i := commentAt(f); i >= 0 && (want < 0 || read < want) {
			return ns3Flows{}, errAt(i, "%s", noComment(f[i], "the last flow"))
		}
		if want < 0 {
			v, err := strconv.Atoi(f[0])
			if err != nil || len(f) != 1 || v < 0 {
				return ns3Flows{}, errAt(min(len(f)-1, 1), "expected the flow count")
			}
			want = v
			continue
		}
		if read == want {
			// third.cc reads as many flows as the first line says
			if len(f) == 6 && ints(f[:5]) {
				unread++
			}
			continue
		}
		if len(f) != 6 {
			return ns3Flows{}, errAt(min(len(f)-1, 6), "expected \"SRC DST PG DPORT SIZE START_SECONDS\" (%d fields)", len(f))
		}
		var x ns3FlowLine
		for i, p := range []*int{&x.src, &x.dst, &x.pg, &x.dport} {
			v, err := strconv.Atoi(f[i])
			if err != nil || v < 0 || (i == 3 && v > 65535) {
				return ns3Flows{}, errAt(i, "%s %q: expected a whole number (a port below 65536)", []string{"SRC", "DST", "PG", "DPORT"}[i], f[i])
			}
			*p = v
		}
		var err error
		if x.size, err = strconv.ParseInt(f[4], 10, 64); err != nil || x.size <= 0 {
			return ns3Flows{}, errAt(4, "SIZE %q: expected a positive whole number of bytes", f[4])
		}
		start, err := strconv.ParseFloat(f[5], 64)
		if err != nil || start < 0 || start > 1e6 {
			return ns3Flows{}, errAt(5, "START %q: expected seconds, from 0 to 1e6", f[5])
		}
		for i, id := range []int{x.src, x.dst} {
			if id >= len(t.name) || t.name[id] != "" && t.name[id][0] != 'h' || slices.Contains(t.apart, id) {
				return ns3Flows{}, errAt(i, "node %d is not a host of the topology", id)
			}
			if t.name[id] == "" {
				return ns3Flows{}, errAt(i, "node %d has no link in the topology", id)
			}
		}
		if x.src == x.dst {
			return ns3Flows{}, errAt(0, "a flow from a host to itself")
		}
		if x.pg != 3 {
			return ns3Flows{}, errAt(2, "priority group %d: the converted scenario's lossless priority is 3, where ns-3's flows run", x.pg)
		}
		x.start = ns3Seconds(start)
		if read == 0 || x.start < fl.first {
			fl.first = x.start
		}
		read++
		switch {
		case len(out) < maxKeptFlows:
			out = append(out, x)
		case fl.beyond == 0 || x.start < fl.beyondStart:
			fl.beyond++
			fl.beyondStart = x.start
		default:
			fl.beyond++
		}
	}
	if err := sc.Err(); err != nil {
		return ns3Flows{}, fmt.Errorf("%s:%d:1: %v (a flow is a line, at most %d KiB)", file, n+1, err, bufio.MaxScanTokenSize>>10)
	}
	if want > read {
		// third.cc's ReadFlowInput leaves its fields as they were when a
		// read fails, so ns-3 starts the last flow again for each line
		// missing. traffic_gen.py writes its count over the estimate it
		// began the file with (ofile.seek(0)), so a count of fewer digits
		// keeps the estimate's last ones: 24 over 213 reads 243.
		return ns3Flows{}, fmt.Errorf("%s:1:1: %d flows listed, the first line says %d: ns-3 would run the last flow %d more times (third.cc reads on past the end); traffic_gen.py leaves such a count when the flows it drew have fewer digits than its estimate", file, read, want, want-read)
	}
	fl.lines, fl.unread = out, unread
	return fl, nil
}

// ns3Seconds is a flow's start as ns-3 takes it, in its time step
// (Seconds(start_time) in third.cc, ns-3.17's Time::FromDouble): the
// double's whole seconds, and its fraction as a 64-bit binary fraction cut
// short ((value - hi) * 2^64 truncated, int64x64-128.h), times 10^9 and
// cut short again to the nanosecond. So "2.0000678856034946" starts at
// 2000067885 ns, and a start written to the nanosecond starts one early
// whenever its fraction's bits fall short of the decimal, as they nearly
// always do below 1 s ("0.000000492" at 491 ns). The recorded runs bear
// it out: all 17886 flows' start_time in fct.txt, 5392 of them one less
// than the nanoseconds written.
func ns3Seconds(s float64) unit.Time {
	hi := math.Floor(s)
	frac, _ := bits.Mul64(uint64((s-hi)*(1<<64)), 1_000_000_000)
	return (unit.Time(hi)*1_000_000_000 + unit.Time(frac)) * unit.Nanosecond
}

// commentAt is the index of the first field that starts a comment, or -1.
func commentAt(f []string) int {
	return slices.IndexFunc(f, func(x string) bool { return strings.HasPrefix(x, "#") || strings.HasPrefix(x, "//") })
}

// wordAt is the index of the first of f's first n words that is not a
// whole number, when no comment (commentAt) starts before it, or -1: a
// note or header of prose where third.cc reads a count (topof >> node_num,
// flowf >> flow_num), as a file whose explanation was moved from its end
// to its head carries.
func wordAt(f []string, n int) int {
	c := commentAt(f)
	i := slices.IndexFunc(f[:min(n, len(f))], func(x string) bool {
		_, err := strconv.Atoi(x)
		return err != nil
	})
	if i < 0 || c >= 0 && c <= i {
		return -1
	}
	return i
}

// notNumber says why a word where ns-3 reads a count is refused: what
// the failed read does, and where the file's explanation belongs.
func notNumber(effect, last string) string {
	return fmt.Sprintf("third.cc reads it with >>, which fails at a word, so %s; HPCC's files carry their explanation after %s, where third.cc stops reading", effect, last)
}

// topologyCounts is what a word among a topology's counts does: third.cc's
// node_num, switch_num and link_num are locals without a value, and a
// failed >> sets the one it reads to 0 and leaves the rest.
func topologyCounts(i int) string {
	s := []string{"node_num", "switch_num", "link_num"}[i] + " reads 0"
	if i < 2 {
		s += " and the counts after it are left unset"
	}
	return s + ": ns-3 builds nothing or crashes"
}

// noComment says why a comment among ns-3's numbers is refused.
func noComment(field, last string) string {
	return fmt.Sprintf("%q starts a comment, which ns-3 does not read here: third.cc reads the file as values separated by white space (>>), so its read fails at it and the values after it read 0; remove it, or put it after %s", field, last)
}

// fieldErr makes the errors of line n of file: each at the column of
// field i, or of the line's last field when i is past it.
func fieldErr(file string, n int, cols []int) func(i int, format string, a ...any) error {
	return func(i int, format string, a ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", file, n, cols[min(i, len(cols)-1)], fmt.Sprintf(format, a...))
	}
}
