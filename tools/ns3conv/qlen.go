package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/metrics"
	"rocelab/internal/scenario"
	"rocelab/internal/topo"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
	"rocelab/tools/internal/fields"
)

// ns-3's queue monitor (HPCC's scratch/third.cc, monitor_buffer): from
// QLEN_MON_START to QLEN_MON_END it samples every switch port's egress
// bytes in the MMU every qlenEvery ns (queues 1-7: switch-node.cc counts
// none of queue 0's, and takes a packet's off at its dequeue, as it
// starts on the wire, as rocelab's queues do), and counts each
// sample in a histogram of 1 KB buckets (qlen/1000) that it never
// resets; at each sample whose time is a multiple of 100 ms
// (qlen_dump_interval) it writes "time: T" and a line per switch port,
// "NODE IFINDEX c0 c1 ...", the counts so far. A run's last dump thus
// holds every sample from the monitor's start to that dump.
const (
	qlenEvery   = 100 // ns, third.cc's qlen_mon_interval
	qlenBucket  = 1000
	maxQlenLine = 32 << 20 // a port's counts: a bucket per KB of the buffer
)

// qlenDump is qlen.txt's last dump.
type qlenDump struct {
	time    int64 // ns, ns-3's clock
	line    int   // its head's, "time: T"
	samples uint64
	ports   []qlenPort
	// every is the time between samples (ns): third.cc's qlenEvery
	// unless the run's QLEN_MON_START gives another (sampledFrom)
	every int64
	// told says every came from the run's QLEN_MON_START
	told bool
}

// qlenPort is one switch port's histogram in a dump: counts[i] samples
// found i KB (i·1000 to i·1000+999 bytes) in its queues.
type qlenPort struct {
	node, iface int
	counts      []uint64
	line        int
}

// start is the time of the dump's first sample (ns, ns-3's clock).
func (d *qlenDump) start() int64 { return d.time - int64(d.samples-1)*d.every }

// sampledFrom takes the monitor's first sample time, the run's
// QLEN_MON_START (config.txt's key at), and from it the time between
// samples, for a run whose third.cc samples at another interval than
// qlenEvery: the samples are start + k·every, the last at the dump.
func (d *qlenDump) sampledFrom(start int64, at string) error {
	span := d.time - start
	switch {
	case span < 0:
		return fmt.Errorf("%s %d: after the dump's time %d: not this run's qlen.txt", at, start, d.time)
	case d.samples == 1 && span != 0:
		return fmt.Errorf("%s %d: the dump at %d holds one sample, which the monitor takes at QLEN_MON_START: not this run's qlen.txt", at, start, d.time)
	case d.samples == 1:
		return nil
	case span%int64(d.samples-1) != 0:
		return fmt.Errorf("%s %d: %d samples to the dump at %d do not fall at one interval: not this run's qlen.txt", at, start, d.samples, d.time)
	}
	d.every, d.told = span/int64(d.samples-1), true
	return nil
}

// readQlen reads ns-3's qlen.txt, named file in messages, and returns its
// last dump; nil when the file holds none (the monitor had not reached a
// dump, or QLEN_MON_START was after the run, as ns3conv writes it).
// Every port of a dump counts the same samples, and a dump holds at
// least the samples of the one before it: anything else is not one run's
// qlen.txt.
func readQlen(file string, r io.Reader) (*qlenDump, error) {
	d, _, err := readQlenUntil(file, r, math.MaxInt64)
	return d, err
}

// readQlenUntil is readQlen for the last dump at or before until (ns-3's
// clock, ns): a dump holds every sample from the monitor's start, so it
// is the queues up to that time. after is the time of the first dump
// past until (0: none), every dump read and checked.
func readQlenUntil(file string, r io.Reader, until int64) (d *qlenDump, after int64, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxQlenLine)
	var cur, last *qlenDump
	seen := map[[2]int]int{}
	n := 0
	for sc.Scan() {
		n++
		f, cols := fields.At(sc.Text())
		errAt := fieldErr(file, n, cols)
		switch {
		case len(f) == 0:
			continue
		case f[0] == "time:":
			if len(f) != 2 {
				return nil, 0, errAt(min(len(f)-1, 2), "expected \"time: T\" (ns), as third.cc's monitor_buffer writes a dump's head")
			}
			t, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || t < 0 {
				return nil, 0, errAt(1, "time %q: expected ns-3's time in whole nanoseconds", f[1])
			}
			if err := cur.check(file, n, last); err != nil {
				return nil, 0, err
			}
			if cur != nil {
				last = cur
				d, after = keep(d, cur, after, until)
			}
			if last != nil && t <= last.time {
				return nil, 0, errAt(1, "time %d: not after the previous dump's %d: qlen.txt's dumps are in time order", t, last.time)
			}
			cur = &qlenDump{time: t, line: n, every: qlenEvery}
			clear(seen)
			continue
		case cur == nil:
			return nil, 0, errAt(0, "%q: expected \"time: T\" first, the head of a dump (ns-3's qlen.txt, QLEN_MON_FILE)", f[0])
		case strings.HasSuffix(f[0], "-total") || f[0] == "maxPortLength":
			// Floodgate's third.cc adds each switch's total and the
			// largest queues seen to a dump: not a port's
			continue
		case len(f) < 3:
			return nil, 0, errAt(len(f)-1, "expected \"NODE IFINDEX COUNT...\": a switch port and its samples per KB of queue")
		}
		var id [2]int
		for i := range id {
			v, err := strconv.Atoi(f[i])
			if err != nil || v < 0 || i == 1 && v == 0 {
				return nil, 0, errAt(i, "%q: expected a %s", f[i], []string{"switch's node id", "port's interface index, from 1"}[i])
			}
			id[i] = v
		}
		if at, ok := seen[id]; ok {
			return nil, 0, errAt(0, "node %d interface %d again in this dump (first at line %d)", id[0], id[1], at)
		}
		seen[id] = n
		// Floodgate's third.cc writes each count after its bucket,
		// " 0th: c0 1th: c1 ..."
		step, first := 1, 2
		if strings.HasSuffix(f[2], "th:") {
			step, first = 2, 3
			if len(f)%2 != 0 {
				return nil, 0, errAt(len(f)-1, "expected \"NODE IFINDEX 0th: COUNT 1th: COUNT ...\", a count after each bucket")
			}
		}
		p := qlenPort{node: id[0], iface: id[1], counts: make([]uint64, (len(f)-2)/step), line: n}
		var sum uint64
		for i := range p.counts {
			at := first + i*step
			if step == 2 && f[at-1] != strconv.Itoa(i)+"th:" {
				return nil, 0, errAt(at-1, "%q: expected \"%dth:\", the next bucket", f[at-1], i)
			}
			c, err := strconv.ParseUint(f[at], 10, 32)
			if err != nil {
				return nil, 0, errAt(at, "count %q: expected a whole number of samples (third.cc's uint32)", f[at])
			}
			p.counts[i] = c
			sum += c
		}
		switch {
		case sum == 0:
			return nil, 0, errAt(first, "no samples: third.cc writes a port once it has sampled it")
		case len(cur.ports) == 0:
			cur.samples = sum
		case sum != cur.samples:
			return nil, 0, errAt(first, "%d samples, node %d interface %d (line %d) %d: the monitor samples every port each time", sum, cur.ports[0].node, cur.ports[0].iface, cur.ports[0].line, cur.samples)
		}
		cur.ports = append(cur.ports, p)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("%s:%d:1: %v (a port's counts are a line, at most %d MiB)", file, n+1, err, maxQlenLine>>20)
	}
	if err := cur.check(file, 0, last); err != nil {
		return nil, 0, err
	}
	if cur != nil {
		d, after = keep(d, cur, after, until)
	}
	return d, after, nil
}

// keep is the dump readQlenUntil keeps after dump cur: cur when it is at
// or before until, else d, the first time past until in after.
func keep(d, cur *qlenDump, after, until int64) (*qlenDump, int64) {
	switch {
	case cur.time <= until:
		return cur, after
	case after == 0:
		return d, cur.time
	}
	return d, after
}

// check says a dump read up to line n (0: the end of the file) is whole:
// it lists ports, and at least the samples of the dump before it, last.
func (d *qlenDump) check(file string, n int, last *qlenDump) error {
	at := fmt.Sprintf("line %d", n)
	if n == 0 {
		at = "the end of the file"
	}
	switch {
	case d == nil:
	case len(d.ports) == 0:
		return fmt.Errorf("%s:%d:1: the dump of time %d has no ports before %s: expected a line per switch port", file, d.line, d.time, at)
	case last != nil && d.samples < last.samples:
		return fmt.Errorf("%s:%d:1: %d samples a port, fewer than the previous dump's %d: third.cc's counts only grow, so not one run's qlen.txt", file, d.ports[0].line, d.samples, last.samples)
	}
	return nil
}

// qlenStats are one histogram's statistics in KB buckets.
type qlenStats struct {
	samples         uint64
	mean            float64
	p50, p99, maxKB int
	busy            float64 // share of samples at 1 KB or more
}

// statsOf summarises counts (samples per KB bucket).
func statsOf(counts []uint64) qlenStats {
	var s qlenStats
	var weighted float64
	for kb, c := range counts {
		s.samples += c
		weighted += float64(kb) * float64(c)
		if c > 0 {
			s.maxKB = kb
		}
	}
	if s.samples == 0 {
		return s
	}
	s.mean = weighted / float64(s.samples)
	s.busy = float64(s.samples-counts[0]) / float64(s.samples)
	s.p50, s.p99 = quantileKB(counts, s.samples, 0.5), quantileKB(counts, s.samples, 0.99)
	return s
}

// quantileKB is the bucket the q-quantile sample falls in (nearest
// rank).
func quantileKB(counts []uint64, total uint64, q float64) int {
	need := max(1, uint64(math.Ceil(q*float64(total))))
	var run uint64
	for kb, c := range counts {
		if run += c; run >= need {
			return kb
		}
	}
	return len(counts) - 1
}

// addCounts adds b's counts to a's, growing a.
func addCounts(a, b []uint64) []uint64 {
	if len(b) > len(a) {
		a = append(a, make([]uint64, len(b)-len(a))...)
	}
	for i, c := range b {
		a[i] += c
	}
	return a
}

// qlenComparison is the queue lengths at the switch ports, ns-3's
// qlen.txt beside rocelab's samples over the same window.
type qlenComparison struct {
	from, to       float64 // the window, µs of the scenario's time
	ns3Samples     uint64  // a port's, every every ns
	every          int64
	told           bool // every is from the run's QLEN_MON_START
	step           unit.Time
	rocelabSamples uint64
	all            [2]qlenStats // every port's samples pooled
	ports          []qlenRow    // the busiest ports, by ns-3's p99
	// left are ns-3's ports the scenario has no port for: a link a later
	// one between the same nodes replaced, or a switch that reaches no
	// host (ns-3 sends nothing there)
	left int
}

// qlenRow is one switch port's statistics on both.
type qlenRow struct {
	label        string
	ns3, rocelab qlenStats
}

// maxQlenRows bounds the ports the table lists one by one.
const maxQlenRows = 8

// maxQlenGrid bounds rocelab's samples a port over the window.
const maxQlenGrid = 200000

// compareQlen holds ns-3's last dump, of the run of topology t, to
// rocelab's queue samples o of scenario s; off is ns-3's clock at the
// scenario's time 0 (ns). file names qlen.txt in messages.
func compareQlen(file string, d *qlenDump, t *ns3Topology, s *scenario.Scenario, o twin.Observation, off int64) (*qlenComparison, error) {
	name := scenarioNames(t, s)
	port := map[[2]string]string{}
	for _, p := range o.Ports {
		k := [2]string{nodeName(p.Name), nodeName(p.Peer)}
		if _, ok := port[k]; ok {
			port[k] = "" // parallel links: not told apart
			continue
		}
		port[k] = p.Name
	}
	series := map[string][]metrics.Points{}
	step := s.SampleInterval
	for _, q := range o.Queues {
		// ns-3's MMU counts no bytes of queue 0 (switch-node.cc admits
		// and counts qIndex != 0 only): its CNPs, PFC frames and, with
		// ACK_HIGH_PRIO, ACKs; rocelab's priority 0 is left out alike
		if q.Priority == 0 {
			continue
		}
		series[q.Port] = append(series[q.Port], q.Depth)
		step = max(step, q.Depth.Every)
	}
	c := &qlenComparison{ns3Samples: d.samples, every: d.every, told: d.told}
	from, to := unit.Time(d.start()-off)*unit.Nanosecond, unit.Time(d.time-off)*unit.Nanosecond
	c.from, c.to = from.Seconds()*1e6, to.Seconds()*1e6
	step = max(step, (to-from)/maxQlenGrid)
	c.step = step
	var ns3Stats []qlenStats
	var pooled [2][]uint64
	for _, p := range d.ports {
		peer, idle, err := t.qlenPeer(file, p)
		if err != nil {
			return nil, err
		}
		pn := port[[2]string{name[p.node], name[peer]}]
		if idle || name[p.node] == "" || name[peer] == "" || pn == "" {
			c.left++
			continue
		}
		var counts []uint64
		for at := from; at <= to; at += step {
			var b int64
			for _, x := range series[pn] {
				b += int64(valueAt(x, at))
			}
			kb := int(b / qlenBucket)
			if kb >= len(counts) {
				counts = append(counts, make([]uint64, kb+1-len(counts))...)
			}
			counts[kb]++
		}
		r := qlenRow{label: portLabel(pn, p.node, p.iface), ns3: statsOf(p.counts), rocelab: statsOf(counts)}
		c.rocelabSamples = r.rocelab.samples
		pooled[0], pooled[1] = addCounts(pooled[0], p.counts), addCounts(pooled[1], counts)
		ns3Stats = append(ns3Stats, r.ns3)
		c.ports = append(c.ports, r)
	}
	if len(c.ports) == 0 {
		return nil, fmt.Errorf("%s: none of its %d ports is a port of the scenario's switches", file, len(d.ports))
	}
	c.all = [2]qlenStats{statsOf(pooled[0]), statsOf(pooled[1])}
	var rows []qlenRow
	for _, i := range sortedByBusy(ns3Stats)[:min(maxQlenRows, len(ns3Stats))] {
		rows = append(rows, c.ports[i])
	}
	c.ports = rows
	return c, nil
}

// qlenPeer is the node at the other end of a qlen.txt port, and idle
// says a later link joins the same two nodes (ns-3 sends through that
// one only, third.cc's nbr2if).
func (t *ns3Topology) qlenPeer(file string, p qlenPort) (peer int, idle bool, err error) {
	peers, ok := t.ifaces[p.node]
	switch {
	case !ok:
		return 0, false, fmt.Errorf("%s:%d:1: node %d: not a switch of the topology (its switches: %s): not this run's qlen.txt", file, p.line, p.node, switchList(t))
	case p.iface > len(peers):
		return 0, false, fmt.Errorf("%s:%d:%d: node %d interface %d: the topology gives it %d links: not this run's qlen.txt", file, p.line, len(strconv.Itoa(p.node))+2, p.node, p.iface, len(peers))
	}
	peer = peers[p.iface-1]
	return peer, slices.Contains(peers[p.iface:], peer), nil
}

// qlenSampleWant is how many samples a port rocelab takes over a
// qlen.txt window at least, where its sampling can be as fine as ns-3's.
const qlenSampleWant = 2000

// qlenSampling is the sample interval rocelab's run takes for dump d: its
// window in qlenSampleWant samples, no finer than ns-3's; 0 without a
// dump.
func qlenSampling(d *qlenDump) unit.Time {
	if d == nil {
		return 0
	}
	window := unit.Time(d.samples-1) * unit.Time(d.every) * unit.Nanosecond
	return max(unit.Time(d.every)*unit.Nanosecond, window/qlenSampleWant)
}

// valueAt is a sampled series' value at time t: 0 before its first
// point (the queue had held nothing) and after its last (the run over).
func valueAt(p metrics.Points, t unit.Time) float64 {
	if t < p.First || p.Every <= 0 {
		return 0
	}
	i := int64((t - p.First) / p.Every)
	if i >= int64(len(p.Values)) {
		return 0
	}
	return p.Values[i]
}

// nodeName is the node of a port's name ("s0/p3": s0).
func nodeName(port string) string {
	if i := strings.LastIndexByte(port, '/'); i >= 0 {
		return port[:i]
	}
	return port
}

// scenarioNames gives each ns-3 node id the name of the scenario's node:
// the topology's own names (from-ns3's hN and sN) when the scenario has
// them all, else by place, hosts in the scenario's host order and
// switches in its node order, as ns3conv numbers them in topology.txt.
func scenarioNames(t *ns3Topology, s *scenario.Scenario) []string {
	have := map[string]bool{}
	var switches []string
	for _, n := range s.Topo.Nodes {
		have[n.Name] = true
		if n.Kind == topo.Switch {
			switches = append(switches, n.Name)
		}
	}
	if !slices.ContainsFunc(t.name, func(n string) bool { return n != "" && !have[n] }) {
		return t.name
	}
	out := make([]string, len(t.name))
	for id, n := range t.name {
		if n == "" {
			continue
		}
		i, _ := strconv.Atoi(n[1:])
		switch {
		case n[0] == 'h' && i < len(s.Topo.Hosts):
			out[id] = s.Topo.Nodes[s.Topo.Hosts[i]].Name
		case n[0] == 's' && i < len(switches):
			out[id] = switches[i]
		}
	}
	return out
}

// switchList names the topology's switches by node id, for a message.
func switchList(t *ns3Topology) string {
	ids := make([]int, 0, len(t.ifaces))
	for id := range t.ifaces {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) > 8 {
		return strings.Trim(fmt.Sprint(ids[:8]), "[]") + fmt.Sprintf(" and %d more", len(ids)-8)
	}
	return strings.Trim(fmt.Sprint(ids), "[]")
}

// print writes the queue lengths' rows of the compare table.
func (c *qlenComparison) print(w io.Writer) {
	how := "third.cc's"
	if c.told {
		how = "by QLEN_MON_START"
	}
	fmt.Fprintf(w, "queue length at switch ports (KB, qlen.txt's 1 KB buckets) over %.1f to %.1f us: ns-3 %d samples a port (every %d ns, %s), rocelab %d (every %v)\n",
		c.from, c.to, c.ns3Samples, c.every, how, c.rocelabSamples, c.step)
	fmt.Fprintf(w, "%-34s %29s   %29s\n", "", "ns-3: mean  p50  p99  max busy", "rocelab: mean  p50  p99  max busy")
	row := func(label string, a, b qlenStats) {
		fmt.Fprintf(w, "%-34s %10.1f %4d %4d %4d %3.0f%%   %13.1f %4d %4d %4d %3.0f%%\n", label, a.mean, a.p50, a.p99, a.maxKB, 100*a.busy, b.mean, b.p50, b.p99, b.maxKB, 100*b.busy)
	}
	row("all switch ports", c.all[0], c.all[1])
	for _, r := range c.ports {
		row(r.label, r.ns3, r.rocelab)
	}
	if c.left > 0 {
		fmt.Fprintf(w, "(%d ns-3 ports left out: the scenario has no port for them, as ns-3 sends nothing there)\n", c.left)
	}
}

// portLabel names a port for the table: rocelab's name and ns-3's node
// and interface.
func portLabel(name string, node, iface int) string {
	return fmt.Sprintf("%s (node %d if %d)", name, node, iface)
}

// sortedByBusy orders port indices by ns-3's p99, then mean, largest
// first, ties in file order.
func sortedByBusy(ns3 []qlenStats) []int {
	idx := make([]int, len(ns3))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if ns3[a].p99 != ns3[b].p99 {
			return ns3[b].p99 - ns3[a].p99
		}
		return cmp.Compare(ns3[b].mean, ns3[a].mean)
	})
	return idx
}

// qlenDumpEvery is third.cc's qlen_dump_interval: the monitor writes a
// dump at each sample whose time is a multiple of it.
const qlenDumpEvery = 100 * unit.Millisecond

// qlenKey is a config line monitorQueues sets.
var qlenKey = regexp.MustCompile(`(?m)^(QLEN_MON_START|QLEN_MON_END|SIMULATOR_STOP_TIME) .*$`)

// monitorQueues has ns-3's queue monitor sample the whole run, of
// duration d, into qlen.txt: from 0 to the first multiple of 100 ms at
// or after d, where it writes its last dump, and the run stops a sample
// after it (ns-3 runs its stop before a monitor event of the same time).
func (f *files) monitorQueues(d unit.Time) {
	end := (d + qlenDumpEvery - 1) / qlenDumpEvery * qlenDumpEvery
	f.config = qlenKey.ReplaceAllStringFunc(f.config, func(line string) string {
		key, _, _ := strings.Cut(line, " ")
		switch key {
		case "QLEN_MON_START":
			return key + " 0"
		case "QLEN_MON_END":
			return fmt.Sprintf("%s %d", key, int64(end/unit.Nanosecond))
		}
		return key + " " + seconds(end+qlenEvery*unit.Nanosecond)
	})
}
