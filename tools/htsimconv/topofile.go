package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
	"rocelab/tools/internal/fields"
)

// htsimTier is one "Tier N" section of an htsim topology file: tier 0's
// downlinks are the host links, tier 1's the ToR-to-aggregation links,
// tier 2's the aggregation-to-core links; a tier's uplinks run at the
// speed of the tier above's downlinks.
type htsimTier struct {
	line               int // the "Tier N" line
	speedGbps          int
	radixUp, radixDown int
	oversub, bundle    int
	linkNs, switchNs   int
	keyLine            map[string]int
	// queue_up and queue_down: the value and the key's column
	queue map[string][2]int
}

// htsimTopo is an htsim fat-tree topology file (-topo FILE), as
// FatTreeTopology::load (csg-htsim, datacenter/fat_tree_topology.cpp)
// reads it, with the switch counts its set_custom_params derives.
type htsimTopo struct {
	file                string
	nodes, tiers, podsz int
	headLine            map[string]int
	tier                [3]htsimTier
	ignored             []string // keys htsim skips
	queues              []string // queue sizes: not converted, as -q is not
	queueKey            string   // the first queue key, as written, at queueLine:queueCol
	queueLine, queueCol int
	pods, torPerPod     int
	aggPerPod, ntor     int
	nagg, ncore         int
}

// topoMaxNodes bounds the hosts of a converted file, and topoMaxValue
// every other number: far past what a packet-level run takes, and small
// enough that no count of links or switches overflows.
const (
	topoMaxNodes = 1 << 17
	topoMaxValue = 1 << 20
)

// tierKeys are the keys htsim reads in a tier section (lower case, as it
// compares them).
var tierKeys = map[string]bool{
	"downlink_speed_gbps": true, "radix_up": true, "radix_down": true, "queue_up": true, "queue_down": true,
	"oversubscribed": true, "bundle": true, "switch_latency_ns": true, "downlink_latency_ns": true,
}

// readHtsimTopo reads a topology file as htsim does: "#" comments, keys
// in any case, a header (Nodes, Tiers, Podsize) up to the first "Tier N",
// then each tier's keys. htsim skips keys it does not know; they are
// listed in ignored, so that the scenario says so. A key htsim refuses
// twice, a value that is not a whole number and what htsim's checks
// refuse are errors at their line and column.
func readHtsimTopo(file string, r io.Reader) (*htsimTopo, error) {
	t := &htsimTopo{file: file, headLine: map[string]int{}}
	errs := matrixErrs(file)
	for i := range t.tier {
		t.tier[i] = htsimTier{oversub: 1, bundle: 1, keyLine: map[string]int{}, queue: map[string][2]int{}}
	}
	cur := -1
	err := fields.Lines(file, r, func(line int, f []string, col []int) error {
		key := strings.ToLower(f[0])
		head := cur < 0 && (key == "nodes" || key == "tiers" || key == "podsize")
		if !head && key != "tier" && (cur < 0 || !tierKeys[key]) {
			where := "the header"
			if cur >= 0 {
				where = fmt.Sprintf("tier %d", cur)
			}
			t.ignored = append(t.ignored, fmt.Sprintf("%s (line %d, in %s)", f[0], line, where))
			return nil
		}
		if len(f) < 2 {
			return errs.at(line, col[0], "%s: expected a value", f[0])
		}
		v, err := strconv.Atoi(f[1])
		if err != nil || v < 0 || v > topoMaxValue {
			return errs.at(line, col[1], "%s %s: expected a whole number from 0 to %d", f[0], f[1], topoMaxValue)
		}
		switch {
		case key == "tier":
			if v > 2 {
				return errs.at(line, col[1], "tier %d: htsim's fat-tree has tiers 0, 1 and 2", v)
			}
			// htsim takes a tier's section opened again: its keys add to
			// the first's, and a key set twice is refused (set).
			cur = v
			if t.tier[cur].line == 0 {
				t.tier[cur].line = line
			}
		case head:
			t.headLine[key] = line
			switch key {
			case "nodes":
				t.nodes = v
			case "tiers":
				t.tiers = v
			default:
				t.podsz = v
			}
		default:
			if err := t.tier[cur].set(key, v, cur); err != nil {
				return errs.at(line, col[0], "%v", err)
			}
			t.tier[cur].keyLine[key] = line
			if strings.HasPrefix(key, "queue_") {
				t.tier[cur].queue[key] = [2]int{v, col[0]}
				t.queues = append(t.queues, fmt.Sprintf("%s (line %d)", f[0], line))
				if t.queueKey == "" {
					t.queueKey, t.queueLine, t.queueCol = f[0], line, col[0]
				}
			}
		}
		return nil
	})
	if err == nil {
		err = t.derive()
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// set applies one tier key, refusing a second setting as htsim does.
func (tr *htsimTier) set(key string, v, tier int) error {
	if _, dup := tr.keyLine[key]; dup {
		return fmt.Errorf("%s for tier %d also at line %d", key, tier, tr.keyLine[key])
	}
	switch key {
	case "downlink_speed_gbps":
		tr.speedGbps = v
	case "radix_up":
		if tier == 2 {
			return fmt.Errorf("radix_up for tier 2: the top tier has no uplinks")
		}
		tr.radixUp = v
	case "radix_down":
		tr.radixDown = v
	case "oversubscribed":
		tr.oversub = v
	case "bundle":
		tr.bundle = v
	case "switch_latency_ns":
		tr.switchNs = v
	case "downlink_latency_ns":
		tr.linkNs = v
	case "queue_up":
		if tier == 2 {
			return fmt.Errorf("queue_up for tier 2: the top tier has no uplinks")
		}
	}
	return nil
}

// derive checks the file as htsim's load and set_custom_params do and
// counts the switches: Podsize hosts a pod, radix_down hosts a ToR, the
// ToRs' uplinks (hosts × tier-0 speed / tier-1 speed / oversubscription)
// spread over each pod's aggregation switches, and on 3 tiers the
// aggregation uplinks over the core switches.
func (t *htsimTopo) derive() error {
	errs := matrixErrs(t.file)
	head := func(key string) int { return max(t.headLine[key], 1) }
	switch {
	case t.nodes == 0:
		return errs.at(1, 1, "expected Nodes N in the header, before the first Tier")
	case t.nodes > topoMaxNodes:
		return errs.at(head("nodes"), 1, "Nodes %d: at most %d hosts are converted", t.nodes, topoMaxNodes)
	case t.tiers < 2 || t.tiers > 3:
		return errs.at(head("tiers"), 1, "Tiers %d: expected 2 or 3 (in the header, before the first Tier)", t.tiers)
	case t.podsz == 0:
		return errs.at(head("podsize"), 1, "expected Podsize N in the header, before the first Tier")
	case t.nodes%t.podsz != 0:
		return errs.at(head("podsize"), 1, "Podsize %d does not divide Nodes %d", t.podsz, t.nodes)
	}
	for i := range t.tiers {
		tr := &t.tier[i]
		missing := ""
		switch {
		case tr.line == 0:
			return errs.at(1, 1, "no Tier %d section (Tiers %d)", i, t.tiers)
		case tr.speedGbps == 0:
			missing = "Downlink_speed_Gbps"
		case tr.linkNs == 0:
			missing = "Downlink_Latency_ns"
		case tr.radixDown == 0:
			missing = "Radix_Down"
		case i < t.tiers-1 && tr.radixUp == 0:
			missing = "Radix_Up"
		}
		if missing != "" {
			return errs.at(tr.line, 1, "tier %d: expected %s (htsim refuses the file without it)", i, missing)
		}
		if tr.bundle == 0 || tr.oversub == 0 {
			return errs.at(tr.line, 1, "tier %d: Bundle and Oversubscribed must be at least 1", i)
		}
		if tr.radixDown%tr.bundle != 0 {
			return errs.at(tr.line, 1, "tier %d: Radix_Down %d is not a multiple of its Bundle %d", i, tr.radixDown, tr.bundle)
		}
		if i < t.tiers-1 && tr.radixUp%t.tier[i+1].bundle != 0 {
			return errs.at(tr.line, 1, "tier %d: Radix_Up %d is not a multiple of tier %d's Bundle %d", i, tr.radixUp, i+1, t.tier[i+1].bundle)
		}
	}
	t0, t1, t2 := &t.tier[0], &t.tier[1], &t.tier[2]
	if t0.bundle != 1 {
		return errs.at(t0.line, 1, "tier 0: Bundle %d: htsim takes one link a host", t0.bundle)
	}
	if t.podsz%t0.radixDown != 0 {
		return errs.at(t0.line, 1, "tier 0: Radix_Down %d does not divide Podsize %d", t0.radixDown, t.podsz)
	}
	t.pods = t.nodes / t.podsz
	if t.tiers == 2 && t.pods != 1 {
		// FatTreeTopology::init_network joins every ToR of a 2-tier tree
		// to every aggregation switch, past its Radix_Up, and its paths
		// assert a single pod: the file builds no fabric htsim runs.
		return errs.at(head("podsize"), 1, "Podsize %d with Tiers 2: htsim's 2-tier fat-tree is one pod (Podsize = Nodes %d); more pods need Tiers 3", t.podsz, t.nodes)
	}
	t.torPerPod = t.podsz / t0.radixDown
	up := t.nodes * t0.speedGbps
	if up%(t1.speedGbps*t0.oversub) != 0 {
		return errs.at(t0.line, 1, "tier 0: %d hosts at %d Gb/s over tier 1's %d Gb/s links with oversubscription %d is not a whole number of uplinks", t.nodes, t0.speedGbps, t1.speedGbps, t0.oversub)
	}
	torUp := up / (t1.speedGbps * t0.oversub)
	if t0.radixDown/t0.radixUp != t0.oversub {
		return errs.at(t0.line, 1, "tier 0: Radix_Down %d / Radix_Up %d is not its Oversubscribed %d", t0.radixDown, t0.radixUp, t0.oversub)
	}
	if torUp%(t.pods*t1.radixDown) != 0 {
		return errs.at(t1.line, 1, "tier 1: %d ToR uplinks do not fill %d pods of aggregation switches of Radix_Down %d", torUp, t.pods, t1.radixDown)
	}
	t.aggPerPod = torUp / (t.pods * t1.radixDown)
	if t.aggPerPod*t1.bundle != t0.radixUp {
		return errs.at(t1.line, 1, "tier 1: %d aggregation switches a pod × Bundle %d is not tier 0's Radix_Up %d", t.aggPerPod, t1.bundle, t0.radixUp)
	}
	t.ntor, t.nagg = t.torPerPod*t.pods, t.aggPerPod*t.pods
	if t.tiers == 3 {
		aggUp := torUp * t1.speedGbps
		if aggUp%(t2.speedGbps*t1.oversub) != 0 || aggUp/(t2.speedGbps*t1.oversub)%t2.radixDown != 0 {
			return errs.at(t2.line, 1, "tier 2: the aggregation uplinks do not fill core switches of Radix_Down %d", t2.radixDown)
		}
		t.ncore = aggUp / (t2.speedGbps * t1.oversub) / t2.radixDown
		if t.ncore%t.aggPerPod != 0 || t.ncore*t2.bundle/t.aggPerPod != t1.radixUp {
			return errs.at(t2.line, 1, "tier 2: %d core switches do not match tier 1's Radix_Up %d with %d aggregation switches a pod and Bundle %d", t.ncore, t1.radixUp, t.aggPerPod, t2.bundle)
		}
	}
	return nil
}

// linkSpec is a link's YAML for tier i's downlinks.
func (t *htsimTopo) linkSpec(i int) string {
	tr := &t.tier[i]
	rate := unit.BitRate(tr.speedGbps) * unit.Gbps
	return fmt.Sprintf("{rate: %s, cable: %s}", rate, unit.CableFor(unit.Time(tr.linkNs)*unit.Nanosecond))
}

// switchLatency is the scenario's switch latency: htsim's per-tier
// Switch_Latency_ns, which rocelab takes only when every tier agrees.
func (t *htsimTopo) switchLatency() (unit.Time, error) {
	ns := t.tier[0].switchNs
	for i := 1; i < t.tiers; i++ {
		if t.tier[i].switchNs != ns {
			line := t.tier[i].keyLine["switch_latency_ns"]
			if line == 0 {
				line = t.tier[i].line
			}
			return 0, matrixErrs(t.file).at(line, 1, "tier %d: Switch_Latency_ns %d where tier 0 has %d: rocelab's switch.latency is one for every switch", i, t.tier[i].switchNs, ns)
		}
	}
	lat := unit.Time(ns) * unit.Nanosecond
	if lat > scenario.MaxSwitchLatency {
		return 0, matrixErrs(t.file).at(t.tier[0].keyLine["switch_latency_ns"], 1, "Switch_Latency_ns %d: expected at most %v", ns, scenario.MaxSwitchLatency)
	}
	return lat, nil
}

// describe writes the scenario's comment lines on the file: the switches
// it makes, and what of it and of the command line is not taken (htsim
// builds a file's fat-tree without -tiers, -hop_latency and
// -switch_latency).
func (t *htsimTopo) describe(b *strings.Builder, r *htsimRun) {
	fmt.Fprintf(b, "# The fabric of %s (htsim's fat-tree file): %d hosts, %d ToR and %d aggregation switches", t.file, t.nodes, t.ntor, t.nagg)
	if t.tiers == 3 {
		fmt.Fprintf(b, ",\n# %d core switches", t.ncore)
	}
	b.WriteString(".")
	var skipped []string
	for _, a := range r.args {
		if a == "-tiers" || a == "-hop_latency" || a == "-switch_latency" {
			skipped = append(skipped, a)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(b, " htsim ignores %s with -topo, and so does this.", strings.Join(skipped, " "))
	}
	b.WriteString("\n")
	// fat_tree_topology.cpp hands each LosslessInputQueue _hop_latency as
	// its pause wire's delay, and load sets it to 0 for a file's links
	b.WriteString("# Not alike: with -topo htsim's PFC frames reach the upstream port at once (its pause\n# wire takes -hop_latency's field, 0 with a file); rocelab's cross the cable.\n")
	if len(t.queues) > 0 {
		fmt.Fprintf(b, "# Queue sizes not converted, as -q is not (PFC pauses before a lossless queue\n# fills): %s.\n", strings.Join(t.queues, ", "))
	}
	if len(t.ignored) > 0 {
		fmt.Fprintf(b, "# Keys htsim skips, skipped here too: %s.\n", strings.Join(t.ignored, ", "))
	}
}

// topology is the scenario's topology for the file's fat-tree: a
// leaf-spine on 2 tiers, rocelab's k-ary fat-tree where the file is one
// (Podsize k²/4, every radix k/2, no oversubscription or bundles, one
// link spec above the hosts), else a graph of every link as htsim wires
// it: a ToR to every aggregation switch of its pod, Bundle links each;
// the aggregation switch at place p of its pod to cores p, p+A, p+2A...
// (A aggregation switches a pod).
func (t *htsimTopo) topology() string {
	host, up1 := t.linkSpec(0), t.linkSpec(1)
	t0, t1, t2 := &t.tier[0], &t.tier[1], &t.tier[2]
	if t.tiers == 2 {
		return fmt.Sprintf("{kind: leaf-spine, leaves: %d, spines: %d, hosts_per_leaf: %d, uplinks_per_leaf: %d, host_link: %s, fabric_link: %s}",
			t.ntor, t.nagg, t0.radixDown, t0.radixUp, host, up1)
	}
	k := 2 * t0.radixDown
	if t.podsz == k*k/4 && t0.radixUp == k/2 && t1.radixDown == k/2 && t1.radixUp == k/2 && t2.radixDown == k &&
		t0.oversub == 1 && t1.oversub == 1 && t1.bundle == 1 && t2.bundle == 1 && up1 == t.linkSpec(2) {
		return fmt.Sprintf("{kind: fat-tree, k: %d, host_link: %s, fabric_link: %s}", k, host, up1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{kind: graph, hosts: %d, switches: %d, host_link: %s, fabric_link: %s, links: [", t.nodes, t.ntor+t.nagg+t.ncore, host, up1)
	sep := ""
	// link writes one link: host_link's or fabric_link's unless spec
	// gives its own.
	link := func(a, bb string, count int, spec string) {
		fmt.Fprintf(&b, "%s\n    {a: %s, b: %s", sep, a, bb)
		if count > 1 {
			fmt.Fprintf(&b, ", count: %d", count)
		}
		if spec != "" {
			b.WriteString(", " + strings.Trim(spec, "{}"))
		}
		b.WriteString("}")
		sep = ","
	}
	for h := range t.nodes {
		link(fmt.Sprintf("h%d", h), fmt.Sprintf("s%d", h/t0.radixDown), 1, "")
	}
	for tor := range t.ntor {
		pod := tor / t.torPerPod
		for agg := pod * t.aggPerPod; agg < (pod+1)*t.aggPerPod; agg++ {
			link(fmt.Sprintf("s%d", tor), fmt.Sprintf("s%d", t.ntor+agg), t1.bundle, "")
		}
	}
	up2 := t.linkSpec(2)
	if up2 == up1 {
		up2 = ""
	}
	for agg := range t.nagg {
		place := agg % t.aggPerPod
		for l := range t1.radixUp / t2.bundle {
			link(fmt.Sprintf("s%d", t.ntor+agg), fmt.Sprintf("s%d", t.ntor+t.nagg+place+t.aggPerPod*l), t2.bundle, up2)
		}
	}
	b.WriteString("]}")
	return b.String()
}

// loadTopo reads the run's -topo file and checks it against the command
// line: htsim sizes its paths and the matrix by -nodes, and its senders
// pace at -linkspeed whatever their link's speed.
func (r *htsimRun) loadTopo() (*htsimTopo, error) {
	f, err := os.Open(r.topoFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := readHtsimTopo(r.topoFile, f)
	if err != nil {
		return nil, err
	}
	if err := r.checkQueues(t); err != nil {
		return nil, err
	}
	if t.nodes != r.nodes {
		return nil, fmt.Errorf("-nodes %d: %s has Nodes %d; htsim sizes the connection matrix by -nodes and the fabric by the file: give -nodes %d", r.nodes, r.topoFile, t.nodes, t.nodes)
	}
	if r.linkMbps != float64(t.tier[0].speedGbps)*1000 {
		return nil, fmt.Errorf("-linkspeed %g: htsim's senders pace at it while %s's host links run at %d Gb/s, and rocelab's NICs send at their link's rate: give -linkspeed %d", r.linkMbps, r.topoFile, t.tier[0].speedGbps, t.tier[0].speedGbps*1000)
	}
	return t, nil
}

// checkQueues refuses the queue sizes htsim exits at: FatTreeTopology::load
// gives every tier's queues -q's size (a default of 15 packets without
// it) before it reads the file, so a Queue_Up or Queue_Down line is a
// second setting, refused as a duplicate, unless -q is 0 (atoi's reading
// of it); with -q 0 the file must set each queue itself, to a size other
// than 0, which htsim takes as unset (runs showed all three).
func (r *htsimRun) checkQueues(t *htsimTopo) error {
	errs := matrixErrs(t.file)
	if !r.zeroQueue() {
		if t.queueKey == "" {
			return nil
		}
		return errs.at(t.queueLine, t.queueCol, "%s: %s exits here (\"Duplicate %s setting\"): it sets every tier's queues from -q (%s) before it reads the file and takes this line as a second setting; remove it, or give -q 0 so that the file sets the queues", t.queueKey, r.program, strings.ToLower(t.queueKey), cmp.Or(r.queueSize, "left out: 15 packets"))
	}
	for i := range t.tiers {
		for _, k := range []string{"queue_up", "queue_down"} {
			q, ok := t.tier[i].queue[k]
			switch {
			case !ok && (k == "queue_down" || i < t.tiers-1):
				return errs.at(t.tier[i].line, 1, "tier %d: no %s: with -q %s (0 packets, as atoi reads it) %s exits (\"Missing %s for tier %d\"), as the file must then set every queue; give it, or leave -q out", i, k, r.queueSize, r.program, k, i)
			case ok && q[0] == 0:
				return errs.at(t.tier[i].keyLine[k], q[1], "tier %d: %s 0: with -q %s %s takes a queue of 0 as unset and exits (\"Missing %s for tier %d\"); give it a size in packets, or leave -q out", i, k, r.queueSize, r.program, k, i)
			}
		}
	}
	return nil
}
