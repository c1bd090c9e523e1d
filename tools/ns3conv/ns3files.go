package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"rocelab/internal/unit"
	"rocelab/tools/internal/fields"
)

// ns3Topology is topology.txt as a graph: hosts (the nodes not listed as
// switches) and switches each numbered in ns-3's node order.
type ns3Topology struct {
	name  []string // rocelab's name of each ns-3 node
	hosts int
	links []string
	rates []unit.BitRate
	delay []unit.Time
	// headroom is the largest of ns-3's 3 x rate x delay per port.
	headroom unit.Bytes
	// hostsFirst says the hosts are ns-3's first node ids, the switches
	// the rest: the numbering under which the scenario can take ns-3's
	// ECMP (ecmp.NS3).
	hostsFirst bool
}

// maxNs3Nodes bounds the nodes a topology.txt may declare, far above any
// fabric the twin runs, so that a wrong first line is refused before its
// count is allocated.
const maxNs3Nodes = 1 << 20

func readTopology(file string, r io.Reader) (*ns3Topology, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var head [][]string
	var headLine, linksCol int
	hostLink := map[int]int{} // each host's link's line
	t := &ns3Topology{}
	links := 0
	for n := 1; sc.Scan(); n++ {
		f, cols := fields.At(sc.Text())
		errAt := func(i int, format string, a ...any) error {
			return fmt.Errorf("%s:%d:%d: %s", file, n, cols[min(i, len(cols)-1)], fmt.Sprintf(format, a...))
		}
		switch {
		case len(f) == 0:
			continue
		case len(head) == 0:
			if len(f) >= 6 {
				if _, err := strconv.Atoi(f[5]); err != nil {
					return nil, errAt(5, "%q: a GPU type, so SimAI's head (NODES GPUS_PER_SERVER NVSWITCHES SWITCHES LINKS GPU_TYPE): its GPUs reach NVSwitches and NICs, which rocelab's hosts do not model; expected HPCC's \"NODES SWITCHES LINKS\"", f[5])
				}
			}
			if len(f) != 3 {
				return nil, errAt(min(len(f)-1, 3), "expected \"NODES SWITCHES LINKS\"")
			}
			if f[1] == "0" {
				return nil, errAt(1, "no switches: ns-3 links hosts to hosts here, and a rocelab host is one NIC port on a switch")
			}
			head = append(head, f)
			headLine, linksCol = n, cols[2]
			continue
		case len(head) == 1:
			head = append(head, f)
			nodes, err1 := strconv.Atoi(head[0][0])
			sw, err2 := strconv.Atoi(head[0][1])
			if err1 != nil || err2 != nil || nodes < 3 || nodes > maxNs3Nodes || sw < 1 || sw >= nodes || len(f) != sw {
				return nil, errAt(0, "expected the %s switches' node ids, after \"NODES SWITCHES LINKS\" (at most %d nodes)", head[0][1], maxNs3Nodes)
			}
			isSwitch := make([]bool, nodes)
			for i, x := range f {
				id, err := strconv.Atoi(x)
				if err != nil || id < 0 || id >= nodes || isSwitch[id] {
					return nil, errAt(i, "switch %q: expected a node id below %d, once", x, nodes)
				}
				isSwitch[id] = true
			}
			t.name = make([]string, nodes)
			t.hostsFirst = !slices.Contains(isSwitch[:nodes-sw], true)
			s := 0
			for id := range nodes {
				if isSwitch[id] {
					t.name[id] = "s" + strconv.Itoa(s)
					s++
				} else {
					t.name[id] = "h" + strconv.Itoa(t.hosts)
					t.hosts++
				}
			}
			continue
		}
		if want, _ := strconv.Atoi(head[0][2]); links == want {
			break // third.cc reads as many links as the first line says
		}
		if len(f) != 5 {
			return nil, errAt(min(len(f)-1, 5), "expected \"SRC DST RATE DELAY ERROR_RATE\"")
		}
		a, err1 := strconv.Atoi(f[0])
		b, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || a < 0 || b < 0 || a >= len(t.name) || b >= len(t.name) {
			return nil, errAt(0, "nodes %s and %s: expected ids below %d", f[0], f[1], len(t.name))
		}
		if t.name[a][0] == 'h' && t.name[b][0] == 'h' {
			return nil, errAt(0, "nodes %d and %d are both hosts (not in the switch list): rocelab's hosts connect through switches", a, b)
		}
		for i, id := range []int{a, b} {
			if t.name[id][0] != 'h' {
				continue
			}
			if first, ok := hostLink[id]; ok {
				return nil, errAt(i, "node %d, a host, has a second link (its first on line %d): a rocelab host is one NIC port; give each port its own node", id, first)
			}
			hostLink[id] = n
		}
		rate, err := ns3Rate(f[2])
		if err != nil {
			return nil, errAt(2, "rate %v", err)
		}
		d, err := ns3Time(f[3])
		if err != nil {
			return nil, errAt(3, "delay %v", err)
		}
		if e, err := strconv.ParseFloat(f[4], 64); err != nil || e != 0 {
			return nil, errAt(4, "error rate %s: rocelab's links do not drop at random; give faults: instead", f[4])
		}
		t.links = append(t.links, fmt.Sprintf("{a: %s, b: %s, rate: %s, cable: %s}", t.name[a], t.name[b], rate, unit.CableFor(d)))
		t.rates = append(t.rates, rate)
		t.delay = append(t.delay, d)
		t.headroom = max(t.headroom, unit.Bytes(int64(rate)*int64(d/unit.Nanosecond)/8/1_000_000_000*3))
		links++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(head) < 2 {
		return nil, fmt.Errorf("%s: expected \"NODES SWITCHES LINKS\" and the switches' ids", file)
	}
	if want, _ := strconv.Atoi(head[0][2]); want != links {
		return nil, fmt.Errorf("%s:%d:%d: %d links listed, the first line says %s", file, headLine, linksCol, links, head[0][2])
	}
	return t, nil
}

// ns3FlowLine is one line of flow.txt.
type ns3FlowLine struct {
	src, dst, pg, dport int
	size                int64
	start               unit.Time
}

func readFlows(file string, r io.Reader, t *ns3Topology) ([]ns3FlowLine, error) {
	var out []ns3FlowLine
	want := -1
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f, cols := fields.At(sc.Text())
		errAt := func(i int, format string, a ...any) error {
			return fmt.Errorf("%s:%d:%d: %s", file, n, cols[min(i, len(cols)-1)], fmt.Sprintf(format, a...))
		}
		if len(f) == 0 {
			continue
		}
		if want < 0 {
			v, err := strconv.Atoi(f[0])
			if err != nil || len(f) != 1 || v < 0 {
				return nil, errAt(min(len(f)-1, 1), "expected the flow count")
			}
			want = v
			continue
		}
		if len(out) == want {
			break // third.cc reads as many flows as the first line says
		}
		if len(f) != 6 {
			return nil, errAt(min(len(f)-1, 6), "expected \"SRC DST PG DPORT SIZE START_SECONDS\" (%d fields)", len(f))
		}
		var x ns3FlowLine
		for i, p := range []*int{&x.src, &x.dst, &x.pg, &x.dport} {
			v, err := strconv.Atoi(f[i])
			if err != nil || v < 0 || (i == 3 && v > 65535) {
				return nil, errAt(i, "%s %q: expected a whole number (a port below 65536)", []string{"SRC", "DST", "PG", "DPORT"}[i], f[i])
			}
			*p = v
		}
		var err error
		if x.size, err = strconv.ParseInt(f[4], 10, 64); err != nil || x.size <= 0 {
			return nil, errAt(4, "SIZE %q: expected a positive whole number of bytes", f[4])
		}
		start, err := strconv.ParseFloat(f[5], 64)
		if err != nil || start < 0 || start > 1e6 {
			return nil, errAt(5, "START %q: expected seconds, not negative", f[5])
		}
		for i, id := range []int{x.src, x.dst} {
			if id >= len(t.name) || t.name[id][0] != 'h' {
				return nil, errAt(i, "node %d is not a host of the topology", id)
			}
		}
		if x.src == x.dst {
			return nil, errAt(0, "a flow from a host to itself")
		}
		if x.pg != 3 {
			return nil, errAt(2, "priority group %d: the converted scenario's lossless priority is 3, where ns-3's flows run", x.pg)
		}
		x.start = unit.Time(math.Round(start * float64(unit.Second)))
		out = append(out, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if want > len(out) {
		// third.cc's ReadFlowInput leaves its fields as they were when a
		// read fails, so ns-3 starts the last flow again for each line
		// missing. traffic_gen.py writes its count over the estimate it
		// began the file with (ofile.seek(0)), so a count of fewer digits
		// keeps the estimate's last ones: 24 over 213 reads 243.
		return nil, fmt.Errorf("%s:1:1: %d flows listed, the first line says %d: ns-3 would run the last flow %d more times (third.cc reads on past the end); traffic_gen.py leaves such a count when the flows it drew have fewer digits than its estimate", file, len(out), want, want-len(out))
	}
	return out, nil
}
