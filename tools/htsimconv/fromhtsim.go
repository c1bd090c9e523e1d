package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/cc"
	"rocelab/internal/packet"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// htsimRun is what an htsim_roce or htsim_hpcc command line says about
// the run.
type htsimRun struct {
	program         string // htsim_roce or htsim_hpcc
	nodes, tiers    int
	tm, topoFile    string
	linkMbps        float64
	hopUS, switchUS float64
	mtu             int
	pfcLow, pfcHigh int
	endUS           int
	seed            int
	strategy        string
	startDelta      bool
	arStickyUS      float64 // -ar_sticky_delta: the flowlet gap of ecmp_ar
	paths           int     // -paths, or 1 where -strat ecmp_ar set it after
	arMethod        string  // -ar_method: what htsim's adaptive routing compares
	arFraction      string  // ecmp_host_ar's value, as given
	queueType       string
	hostQueue       string // -host_queue_type
	queueSize       string // -q, as given
	args            []string
	ignored         []string
}

// srcFile is the source file of each program's sender.
var srcFile = map[string]string{"htsim_roce": "roce.cpp", "htsim_hpcc": "hpcc.cpp"}

// htsimFlags gives the value count of each htsim_roce flag (main_roce.cpp).
// htsim_hpcc (main_hpcc.cpp) takes the same flags but hpccLacks: its
// fat-tree has FatTreeTopology's default 3 tiers.
var htsimFlags = map[string]int{
	"-o": 1, "-conns": 1, "-end": 1, "-nodes": 1, "-tiers": 1, "-queue_type": 1, "-host_queue_type": 1,
	"-log": 1, "-tm": 1, "-topo": 1, "-q": 1, "-logtime": 1, "-linkspeed": 1, "-seed": 1, "-mtu": 1,
	"-paths": 1, "-hop_latency": 1, "-switch_latency": 1, "-start_delta": 1, "-ar_sticky_delta": 1,
	"-pfc_thresholds": 2, "-ar_method": 1, "-strat": 1,
}

var hpccLacks = map[string]bool{"-tiers": true, "-topo": true}

// htsimOthers says why each of htsim's other datacenter programs is not
// imported (csg-htsim's main_*.cpp and the sources they build on, and the
// Ultra Ethernet transport's htsim_uec, built from htsim's descendants
// such as UEC's): each needs a sender, receiver or queue that rocelab
// does not model. None models DCQCN; htsim_roce is RoCE under PFC alone.
var htsimOthers = map[string]string{
	"htsim_swift": "Swift (swift.cpp) is a window of packets cut by delay against a target that grows with the path's hops, over lossy queues with retransmission; rocelab's delay-based control is TIMELY's rate, and it has no Swift",
	"htsim_ndp":   "NDP (ndp.cpp) sends its first window at line rate into queues that trim a full queue's packet to its header (COMPOSITE) and clocks the rest by its receivers' pulls (NdpPullPacer); rocelab's switches drop or pause, never trim, and its receivers send no pulls",
	"htsim_eqds":  "EQDS (eqds.cpp) is receiver-driven, its receivers granting credit through a pull pacer (EqdsPullPacer) over trimming or Aeolus queues; rocelab has neither credit nor trimming",
	"htsim_uec":   "the Ultra Ethernet transport (uec.cpp) sprays each flow's packets over path entropies (-load_balancing_algo: oblivious, REPS and others), sets its window by delay and ECN at the sender (NSCC, alone with -sender_cc_only) or by the receiver's credit (RCCC's pull pacer), and runs over queues that trim a full queue's packet to its header (-disable_trim turns that off); rocelab's switches drop or pause, never trim, its receivers grant no credit and its senders run RoCE queue pairs",
	"htsim_tcp":   "TCP (tcp.cpp, mtcp.cpp) is NewReno's and MPTCP's loss-driven window with retransmission timers over drop-tail queues; rocelab's hosts run RoCE queue pairs",
}

// htsimOldTests says why each transport of csg-htsim's old_tests programs
// (sim/datacenter/old_tests: htsim_ndp_permutation,
// htsim_dctcp_incast_collateral_lossless, ..., not built by default; the
// command lines of sim/EXAMPLES run them) is not imported, by the word
// after htsim_ in the program's name. Each builds its own traffic from
// -conns rather than reading a connection matrix.
var htsimOldTests = map[string]string{
	"ndp": htsimOthers["htsim_ndp"], "ndprts": htsimOthers["htsim_ndp"], "ndptunnel": htsimOthers["htsim_ndp"],
	"tcp": htsimOthers["htsim_tcp"], "swift": htsimOthers["htsim_swift"],
	"dctcp": "DCTCP (tcp.cpp with ECN-scaled windows) is TCP's loss- and mark-driven window over its own queues; rocelab's hosts run RoCE queue pairs",
}

// htsimProgram checks the program name a command line starts with: the
// import reads htsim_roce's and htsim_hpcc's flags only.
func htsimProgram(name string) (string, error) {
	base := filepath.Base(name)
	if why, ok := htsimOthers[base]; ok {
		return "", fmt.Errorf("%s: only htsim_roce and htsim_hpcc runs are imported: %s", base, why)
	}
	if transport, rest, ok := strings.Cut(strings.TrimPrefix(base, "htsim_"), "_"); ok && rest != "" && strings.HasPrefix(base, "htsim_") && htsimOldTests[transport] != "" {
		return "", fmt.Errorf("%s: one of csg-htsim's old_tests programs (sim/datacenter/old_tests, which sim/EXAMPLES runs; most build their traffic from -conns, not a connection matrix): only htsim_roce and htsim_hpcc runs are imported: %s", base, htsimOldTests[transport])
	}
	if strings.HasPrefix(base, "htsim_") && strings.Contains(base, "dcqcn") {
		return "", fmt.Errorf("%s: only htsim_roce and htsim_hpcc runs are imported: %s", base, noDCQCN)
	}
	if base != "htsim_roce" && base != "htsim_hpcc" {
		return "", fmt.Errorf("%q: expected htsim_roce, htsim_hpcc or htsim_roce's first flag", name)
	}
	return base, nil
}

// noDCQCN is why a DCQCN run is not an htsim_roce one: csg-htsim's
// htsim_roce has no DCQCN (main_roce.cpp, 841d9e7, exits with its usage
// at a flag it does not know, :288-289; roce.cpp and rocepacket.h carry
// no ECN mark or CNP), and the DCQCN senders of htsim's descendants
// (a DCQCNSrc of their own sim/dcqcn.h) run in programs of their own.
// csg-htsim's README (0b897a4) names "simple models of DCTCP, DCQCN"
// added for NDP's comparisons: the DCTCP one is an old_tests program
// (htsimOldTests), and neither is an htsim_roce flag.
const noDCQCN = "csg-htsim's htsim_roce has no DCQCN: its RoCE sender (roce.cpp) reacts to no ECN mark or CNP, and main_roce.cpp exits with its usage at a flag it does not know (841d9e7, :288-289); the \"simple models of DCTCP, DCQCN\" csg-htsim's README names were added for NDP's comparisons, the DCTCP one an old_tests program (htsim_dctcp_incast_collateral_lossless, refused as one), none an htsim_roce flag; DCQCN on htsim is a descendant's own program (a DCQCNSrc of its sim/dcqcn.h, such as htsim_dcqcn_dynamic or ATLAHS' htsim_dcqcn_atlahs), whose flags and sender this import does not read. rocelab's DCQCN is held to the HPCC ns-3 model instead (from-ns3, CC_MODE 1; docs/engine.md \"Against the HPCC ns-3 model\")"

// dcqcnFlags are the DCQCN and ECN switches of htsim's descendants'
// programs, which htsim_roce and htsim_hpcc do not take.
var dcqcnFlags = map[string]bool{"-dcqcn": true, "-ecn": true, "-dcqcn_ratio": true}

// zeroQueue says htsim reads -q as 0 packets (atoi: "0", or no digits).
func (r *htsimRun) zeroQueue() bool {
	return r.queueSize != "" && cAtoi(r.queueSize) == 0
}

// parseHtsimArgs reads an htsim_roce or htsim_hpcc command line (without
// a program name, htsim_roce's) with htsim's defaults for what it leaves
// out (main_roce.cpp and main_hpcc.cpp: 432 nodes, 3 tiers, 100 Gb/s
// HOST_NIC, 1 us hops, 9000 B packets, PFC at 15 and 12 packets).
func parseHtsimArgs(args []string) (*htsimRun, error) {
	r := &htsimRun{program: "htsim_roce", nodes: 432, tiers: 3, linkMbps: 100000, hopUS: 1, mtu: 9000, pfcLow: 12, pfcHigh: 15,
		endUS: 1000, seed: 13, arStickyUS: 10, paths: htsimNoPaths, arMethod: "queue", queueType: "lossless_input", hostQueue: "fair_prio"}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		var err error
		if r.program, err = htsimProgram(args[0]); err != nil {
			return nil, err
		}
		args = args[1:]
	}
	r.args = args
	for i := 0; i < len(args); i++ {
		f := args[i]
		n, ok := htsimFlags[f]
		if dcqcnFlags[f] {
			return nil, fmt.Errorf("argument %d: %s: not an %s flag: %s", i+1, f, r.program, noDCQCN)
		}
		if !ok || r.program == "htsim_hpcc" && hpccLacks[f] {
			return nil, fmt.Errorf("argument %d: %q is not an %s flag", i+1, f, r.program)
		}
		if f == "-strat" && i+1 < len(args) && args[i+1] == "ecmp_host_ar" {
			n = 2 // ecmp_host_ar takes its AR fraction
		}
		if i+n >= len(args) {
			if n == 2 && f == "-strat" {
				return nil, fmt.Errorf("argument %d: -strat ecmp_host_ar: expected its AR fraction after it (%s reads the next argument as one, and with none crashes, exit 139, a run showed)", i+3, r.program)
			}
			return nil, fmt.Errorf("argument %d: %s: expected %d value(s) after it", i+1, f, n)
		}
		v := args[i+1 : i+1+n]
		i += n
		var err error
		num := func(dst *int) {
			if err == nil {
				*dst, err = strconv.Atoi(v[0])
			}
		}
		float := func(dst *float64) {
			if err == nil {
				*dst, err = strconv.ParseFloat(v[0], 64)
			}
		}
		switch f {
		case "-nodes":
			num(&r.nodes)
		case "-tiers":
			num(&r.tiers)
		case "-tm":
			r.tm = v[0]
		case "-linkspeed":
			float(&r.linkMbps)
		case "-hop_latency":
			float(&r.hopUS)
		case "-switch_latency":
			float(&r.switchUS)
		case "-mtu":
			num(&r.mtu)
		case "-end":
			num(&r.endUS)
		case "-seed":
			num(&r.seed)
			if err == nil && r.seed < 0 {
				return nil, fmt.Errorf("argument %d: -seed %s: expected a seed from 0: %s seeds its random() with it and prints it signed (\"random seed %d\"), and a rocelab scenario's seed is not negative", i+1, v[0], r.program, r.seed)
			}
		case "-pfc_thresholds":
			num(&r.pfcLow)
			if err == nil {
				r.pfcHigh, err = strconv.Atoi(v[1])
			}
		case "-strat":
			r.strategy = v[0]
			if r.strategy == "ecmp_ar" {
				r.paths = 1 // main_roce.cpp and main_hpcc.cpp set path_entropy_size so (and for ecmp_rr, refused)
			}
			if r.strategy == "ecmp_host_ar" {
				r.arFraction = v[1]
				if uint16(cAtoi(v[1])) == 0 {
					return nil, fmt.Errorf("-strat ecmp_host_ar %s: %s fails an assertion at start-up (fat_tree_switch.h:124, set_ar_fraction: f>=1; it reads the fraction with atoi into 16 bits, which gives 0), a run showed; give a whole number from 1, as 50", v[1], r.program)
				}
			}
		case "-paths":
			num(&r.paths)
		case "-ar_method":
			r.arMethod = v[0]
		case "-start_delta":
			r.startDelta = v[0] != "0"
		case "-queue_type":
			r.queueType = v[0]
		case "-host_queue_type":
			r.hostQueue = v[0]
		case "-q":
			r.queueSize = v[0]
		case "-topo":
			r.topoFile = v[0]
		case "-ar_sticky_delta":
			float(&r.arStickyUS)
		default: // outputs, logging and -conns (which htsim reads and never uses): nothing rocelab takes
			r.ignored = append(r.ignored, f)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: expected a number", f, strings.Join(v, " "))
		}
	}
	switch {
	case r.topoFile == "" && r.tiers != 2 && r.tiers != 3:
		return nil, fmt.Errorf("-tiers %d: htsim_roce builds 2- or 3-tier fat-trees", r.tiers)
	case r.linkMbps <= 0 || r.hopUS <= 0 || r.mtu <= 0 || r.endUS <= 0 || r.arStickyUS <= 0:
		return nil, fmt.Errorf("-linkspeed, -hop_latency, -mtu, -end and -ar_sticky_delta must be positive")
	case r.switchUS < 0 || r.switchUS*float64(unit.Microsecond) > float64(scenario.MaxSwitchLatency):
		return nil, fmt.Errorf("-switch_latency %g: expected 0 to %v", r.switchUS, scenario.MaxSwitchLatency)
	case r.pfcLow < 0 || r.pfcHigh <= r.pfcLow:
		return nil, fmt.Errorf("-pfc_thresholds %d %d: expected low < high", r.pfcLow, r.pfcHigh)
	case r.zeroQueue() && r.topoFile == "":
		return nil, fmt.Errorf("-q %s: %s reads 0 packets (atoi) and fails an assertion as it builds its fat-tree (fat_tree_topology.cpp, set_queue_sizes: _queue_down[TOR_TIER] != 0), a run showed; leave -q out, or give a queue size", r.queueSize, r.program)
	case r.queueType != "lossless_input":
		return nil, fmt.Errorf("-queue_type %s: only htsim's default lossless_input (PFC per ingress port) is converted", r.queueType)
	case r.hostQueue == "swift":
		return nil, fmt.Errorf("-host_queue_type swift: %s crashes with it (a segmentation fault, exit 139, as its first connection starts: the FairScheduler it builds is Swift's); give fair_prio, the default, or prio", r.program)
	case r.hostQueue != "fair_prio" && r.hostQueue != "prio":
		return nil, fmt.Errorf("-host_queue_type %s: %s exits with its usage; expected fair_prio, prio or swift", r.hostQueue, r.program)
	}
	if _, err := r.loadBalancing(); err != nil {
		return nil, err
	}
	if _, ok := htsimARMethods[r.arMethod]; !ok || r.program == "htsim_hpcc" && r.arMethod == "flowcount" {
		known := "pause, queue, bandwidth, flowcount, pqb, pq, pb, qb"
		if r.program == "htsim_hpcc" {
			// main_hpcc.cpp knows no flowcount: main_roce.cpp alone does.
			known = "pause, queue, bandwidth, pqb, pq, pb, qb"
		}
		return nil, fmt.Errorf("-ar_method %s: %s exits (\"Unknown AR method\"); expected one of %s", r.arMethod, r.program, known)
	}
	if r.paths > htsimMaxPaths {
		given := "without -paths"
		if r.paths != htsimNoPaths {
			given = fmt.Sprintf("with -paths %d", r.paths)
		}
		return nil, fmt.Errorf("-strat %s %s: %s exits at once (\"Route Strategy is ECMP.  Must specify path count using -paths\", past %d); give -paths 1, as its ECMP runs do", r.strategy, given, r.program, htsimMaxPaths)
	}
	if r.program == "htsim_hpcc" {
		if _, err := r.hpccKnobs(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// htsimARMethods says what each of htsim's -ar_method compares between
// two egress ports (FatTreeSwitch::compare_*, fat_tree_switch.cpp);
// queue, htsim's default, is what rocelab's adaptive routing compares.
// flowcount, htsim_roce's only, counts the flows this switch placed on
// each port (compare_flow_count).
var htsimARMethods = map[string]string{
	"queue": "", "pause": "whether a port is paused", "bandwidth": "bytes sent lately", "flowcount": "the flows this switch placed on each port",
	"pqb": "pause, then queue size, then bytes sent lately", "pq": "pause, then queue size",
	"pb": "pause, then bytes sent lately", "qb": "queue size, then bytes sent lately",
}

// htsim_roce's and htsim_hpcc's path_entropy_size before -paths or -strat
// set it, and the most their ECMP strategies run with: past it they exit
// asking for -paths (main_roce.cpp, main_hpcc.cpp).
const htsimNoPaths, htsimMaxPaths = 10000000, 10000

// loadBalancing is the scenario's path selection for htsim's -strat.
// htsim_roce and htsim_hpcc run ecmp_ar per flowlet (their mains set
// FatTreeSwitch::_ar_sticky to PER_FLOWLET): a flow keeps its egress
// until it pauses longer than -ar_sticky_delta (10 us by default), and
// then may move to the emptier queue (fat_tree_switch.cpp, getNextHop);
// ecmp_host_ar decides per packet (ECMP_ADAPTIVE: the hash's port, and on
// about half the packets, at random (random()%100 < 50), where that port
// is as full as the fullest, one of the emptiest: replace_worst_choice).
func (r *htsimRun) loadBalancing() (string, error) {
	switch r.strategy {
	case "ecmp_host":
		return "", nil
	case "ecmp_ar":
		gap := unit.Time(math.Round(r.arStickyUS * float64(unit.Microsecond)))
		return fmt.Sprintf("load_balancing: {mode: adaptive, adaptive: flowlet, flowlet_gap: %s}", gap), nil
	case "ecmp_host_ar":
		return "load_balancing: {mode: adaptive}", nil
	case "ecmp_rr":
		return "", fmt.Errorf("-strat ecmp_rr: not imported, rocelab's round robin runs unlike htsim's: %s", htsimRR)
	case "single":
		if r.paths > 1 && r.paths < htsimMaxPaths {
			return "", fmt.Errorf("-strat single with -paths %d: %s exits at start-up (\"Route Strategy is SINGLE_PATH, but multiple paths are specifiec using -paths\", %s); give -strat ecmp_host -paths 1, a path per flow by hash", r.paths, r.program, mainFile[r.program])
		}
		return "", fmt.Errorf("-strat single: %s fails an assertion as it sends its first packet (network.cpp:73, _nexthop<_route->size(): the source route it draws per connection lacks the host's own hop), a run showed; give -strat ecmp_host -paths 1, a path per flow by hash", r.program)
	case "perm", "rand", "pull", "ecmp":
		return "", fmt.Errorf("-strat %s: %s aborts at its first connection (%s calls abort() for a source-routed strategy other than single; ecmp without -paths exits first, asking for it), a run showed; give -strat ecmp_host -paths 1, ecmp_ar or ecmp_host_ar", r.strategy, r.program, mainFile[r.program])
	case "":
		return "", fmt.Errorf("expected -strat (ecmp_host, ecmp_ar or ecmp_host_ar), as %s exits without one (\"Route Strategy not set\")", r.program)
	}
	return "", fmt.Errorf("-strat %s: not a strategy of %s, which exits without one it knows (\"Route Strategy not set\"); it runs ecmp_host, ecmp_ar and ecmp_host_ar, which are imported, and ecmp_rr, which is refused", r.strategy, r.program)
}

// mainFile is the source file of each program's main.
var mainFile = map[string]string{"htsim_roce": "main_roce.cpp", "htsim_hpcc": "main_hpcc.cpp"}

// htsimRR says why -strat ecmp_rr is refused; docs/engine.md ("Adaptive
// routing against htsim") has the detail. htsim's switch turns one
// counter over every packet it routes up, whatever its destination, and
// permutes its port order every 5 rounds (FatTreeSwitch::getNextHop, RR),
// and its sink NACKs every packet past a hole (roce.cpp). Measured on
// gen_permutation.py's 54 hosts of 1 MB (testdata/htsim/rr-perm54-*, 3
// pinned seeds, htsim's closing "Rtx:" line in bytes): htsim went back
// over 778-817 MB to deliver 54 MB and its mean completion was 1369-1418
// us; rocelab's import, round robin per destination, resent 222 MB and
// finished at a mean of 442 us (-68 %; TestHtsimRecordedNotHeld).
const htsimRR = "htsim's switches turn one counter over all packets, so a flow's packets cross queues of unlike depth and arrive out of order, and its sink NACKs every packet past a hole, where rocelab's round robin is per destination and its responder NAKs a hole once (docs/engine.md, \"Adaptive routing against htsim\"); give -strat ecmp_host or ecmp_ar"

// htsimHPCCBaseRTT is htsim's HPCCSrc::_T (hpcc.cpp:29), the "known
// baseline RTT" of every sender whatever the fabric.
const htsimHPCCBaseRTT = 12 * unit.Microsecond

// hpccKnobs is host.hpcc for htsim_hpcc's sender (hpcc.cpp): η 0.95 and
// 5 additive stages (:30-31); T (base_rtt) 12 us; the window at line rate
// T·rate/8 (:78), which starts it at line rate (:80); W_AI one packet
// (_Wai = _mss, :68) of the window, whose rate is cwnd·8/T (:202), so
// ai_rate = packet·8/T; and since every window is at least W_AI (:402,
// :410), that is its rate floor too. fast_react: every ACK moves the
// rate (:193-203). int_bytes 0: htsim's INT takes no room on the wire
// (hpccpacket.h:40, :102: a packet's size is its payload and ACKSIZE).
// htsim 1: rocelab runs htsim's sender on them (cc.HTSimHPCC), not the
// HPCC ns-3 model's.
func (r *htsimRun) hpccKnobs() (string, error) {
	t := float64(htsimHPCCBaseRTT) / float64(unit.Second)
	ai := math.Round(float64(r.mtu) * 8 / t / 1e6)
	knobs := []struct {
		name string
		v    float64
	}{{"eta", 950}, {"max_stage", 5}, {"ai_rate", ai}, {"min_rate", max(ai, 1)},
		{"base_rtt", float64(htsimHPCCBaseRTT / unit.Nanosecond)}, {"window", math.Floor(r.linkMbps * 1e6 * t / 8)}, {"fast_react", 1}, {"int_bytes", 0}, {"htsim", 1}}
	var c cc.HPCCConfig
	parts := make([]string, len(knobs))
	for i, k := range knobs {
		if k.v > 1<<62 {
			return "", fmt.Errorf("-mtu %d -linkspeed %g: htsim's HPCC %s %g is out of rocelab's range", r.mtu, r.linkMbps, k.name, k.v)
		}
		if err := c.Set(k.name, int64(k.v)); err != nil {
			return "", fmt.Errorf("-mtu %d -linkspeed %g: htsim's HPCC: %v", r.mtu, r.linkMbps, err)
		}
		parts[i] = fmt.Sprintf("%s: %d", k.name, int64(k.v))
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}

// topology is the scenario's topology line for htsim's fat-tree of nodes
// hosts: k³/4 hosts on 3 tiers, K²/2 on 2 (K leaves of K/2 hosts and K/2
// uplinks, one to each of K/2 spines).
func (r *htsimRun) topology() (string, error) {
	rate := unit.BitRate(math.Round(r.linkMbps * float64(unit.Mbps)))
	cable := unit.CableFor(unit.Time(math.Round(r.hopUS * float64(unit.Microsecond))))
	link := fmt.Sprintf("{rate: %s, cable: %s}", rate, cable)
	k, err := r.fatTreeK()
	if err != nil {
		return "", err
	}
	if r.tiers == 3 {
		return fmt.Sprintf("{kind: fat-tree, k: %d, host_link: %s, fabric_link: %s}", k, link, link), nil
	}
	return fmt.Sprintf("{kind: leaf-spine, leaves: %d, spines: %d, hosts_per_leaf: %d, uplinks_per_leaf: %d, host_link: %s, fabric_link: %s}",
		k, k/2, k/2, k/2, link, link), nil
}

// fatTreeK is the switch radix of htsim's fat-tree of r.nodes hosts on
// r.tiers tiers, or an error that lists the host counts such a tree can
// have.
func (r *htsimRun) fatTreeK() (int, error) {
	if r.tiers == 3 {
		k := 2
		for k*k*k/4 < r.nodes {
			k += 2
		}
		if k*k*k/4 != r.nodes {
			hint := ""
			if k2 := int(math.Round(math.Sqrt(2 * float64(r.nodes)))); k2%2 == 0 && k2*k2/2 == r.nodes && r.program != "htsim_hpcc" {
				hint = fmt.Sprintf("; with -tiers 2, a leaf-spine of %d leaves, it has %d", k2, r.nodes)
			}
			return 0, fmt.Errorf("-nodes %d: a 3-tier fat-tree has k³/4 hosts for an even k (16, 54, 128, 250, 432, 686, 1024 and on)%s", r.nodes, hint)
		}
		return k, nil
	}
	k := 2
	for k*k/2 < r.nodes {
		k += 2
	}
	if k*k/2 != r.nodes {
		return 0, fmt.Errorf("-nodes %d -tiers 2: a 2-tier fat-tree has K²/2 hosts for an even K (2, 8, 18, 32, 50, 72, 98, 128 and on)", r.nodes)
	}
	return k, nil
}

// htsim's and rocelab's wire bytes besides a data packet's payload: htsim
// adds RocePacket::ACKSIZE (roce.h, rocepacket.h; HPCCPacket's the same)
// and sends 64 B ACKs, rocelab RoCEv2's headers, preamble and gap
// (packet.Overhead).
const htsimHeader = 64

// wireRatio is rocelab's wire per byte of payload over htsim's, htsim's
// packets of size bytes sent as RoCE's mtu: a
// saturated link's drain shows it whole (the 127→1 incast's last
// completion lands within 0.2 point of it at htsim's 1100, 1500, 3000,
// 4096 and 9000 B; docs/engine.md, "htsim's header").
func wireRatio(size, mtu int) float64 {
	return float64(mtu+int(packet.Overhead(false))) / float64(mtu) / (float64(size+htsimHeader) / float64(size))
}

// pathMTU is the RoCE path MTU (a power of two, 256 to 4096) rocelab
// sends htsim's packets of size bytes as: the nearest on a log scale
// (past p·√2 the next). htsim's data packet is its payload and a 64 B
// header on the wire (RocePacket::ACKSIZE, also HPCCPacket's), rocelab's
// its payload and 82 B (wireRatio), so a larger MTU sends fewer headers
// and a smaller one stores and forwards sooner; measured on the
// permutation and the incast (TestAgreesWithHtsimVariants), htsim's 1100,
// 1500 and 3000 B sent as 1024, 2048 and 4096 are the best of the three
// MTUs on five of the six means; the sixth, the permutation at 1500 B, is
// +2.6 % as 2048 and +0.4 % as 4096 (1500 as 1024, the largest MTU it
// holds, was +7.5 % on the permutation's mean).
func pathMTU(size int) int {
	mtu := 256
	for mtu < 4096 && float64(size) >= float64(mtu)*math.Sqrt2 {
		mtu *= 2
	}
	return mtu
}

// fromHtsim writes the rocelab scenario of an htsim_roce run: its
// fat-tree, links, PFC thresholds, path selection and flows, each
// trigger a flow's dependencies (after:). Without -tm the matrix is
// stdin, as htsim_roce and htsim_hpcc read it then (conns->load(cin));
// stdin is nil where there is none to read.
func fromHtsim(args []string, stdin io.Reader, w io.Writer) error {
	r, err := parseHtsimArgs(args)
	if err != nil {
		return err
	}
	var topo string
	var tf *htsimTopo
	switchLat := unit.Time(math.Round(r.switchUS * float64(unit.Microsecond)))
	if r.topoFile != "" {
		if tf, err = r.loadTopo(); err != nil {
			return err
		}
		topo = tf.topology()
		if switchLat, err = tf.switchLatency(); err != nil {
			return err
		}
	} else if topo, err = r.topology(); err != nil {
		return err
	}
	lb, _ := r.loadBalancing()
	in, name := stdin, "stdin"
	if r.tm != "" {
		file, err := os.Open(r.tm)
		if err != nil {
			return err
		}
		defer file.Close()
		in, name = file, r.tm
	} else if stdin == nil {
		return fmt.Errorf("expected -tm FILE.cm or the connection matrix on standard input, as %s reads it without -tm", r.program)
	}
	conns, trigs, fails, err := readMatrix(name, in, r.nodes)
	if err != nil {
		return err
	}
	byID := map[int]int{}
	errs := matrixErrs(name)
	for i, c := range conns {
		if c.id != 0 { // id-less connections are named by their place
			if j, dup := byID[c.id]; dup {
				return errs.at(c.line, 1, "id %d also at line %d", c.id, conns[j].line)
			}
			byID[c.id] = i
		}
	}
	after, count, err := triggerDeps(conns, trigs, errs)
	if err != nil {
		return err
	}
	mtu := pathMTU(r.mtu)
	pkt := int64(r.mtu)
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s run (go run ./tools/htsimconv from-htsim):\n#   %s %s\n", fromHtsimHead, strings.TrimPrefix(r.program, "htsim_"), r.program, strings.Join(r.args, " "))
	fmt.Fprintf(&b, "# PFC as htsim's: per ingress port, XOFF at %d packets of %d B, XON at %d,\n# a static threshold with no reserve; a port obeys a PFC frame as it arrives\n# (htsim's pause takes effect on receipt, where rocelab's default is IEEE's bound);\n# a receiver ACKs every packet, as htsim's sink does.", r.pfcHigh, pkt, r.pfcLow)
	ccLine, qpExtra := "cc: none", ""
	if r.program == "htsim_hpcc" {
		knobs, _ := r.hpccKnobs()
		ccLine, qpExtra = "cc: hpcc, hpcc: "+knobs, ", rate_change: next_packet"
		b.WriteString(" HPCC as htsim's sender runs it (hpcc.cpp, host.hpcc.htsim):\n# T 12 us, η 0.95, 5 additive stages, W_AI one packet, a window every ACK sets,\n# INT against the first ACK's; its pacing tick keeps its time at a rate change.\n")
	} else {
		b.WriteString(" cc: none, as htsim's RoCE has none.\n")
	}
	b.WriteString("# Not alike: a packet frees its ingress count as its egress starts sending it, in htsim\n# as its last bit leaves (queue_lossless_output.cpp), so rocelab's XON goes a packet time sooner.\n")
	if mtu != r.mtu {
		fmt.Fprintf(&b, "# htsim's %d B packets: RoCE's path MTU is one of 256-4096, so rocelab sends %d B,\n# the nearest on a log scale (docs/engine.md, \"Results against csg-htsim\").\n", r.mtu, mtu)
	}
	fmt.Fprintf(&b, "# Framing: htsim's data packet is its %d B payload and a %d B header on the wire, its ACK %d B;\n# rocelab's frame is its %d B payload and %d B (RoCEv2's headers, preamble and gap), its ACK %d B:\n# %+.2f %% of wire per byte of payload, which a saturated link's drain shows whole.\n",
		r.mtu, htsimHeader, htsimHeader, mtu, packet.Overhead(false), packet.DataFrame(0, packet.AETH, false)+packet.PreambleIFG, 100*(wireRatio(r.mtu, mtu)-1))
	untilEnd := int64(math.Ceil(r.linkMbps * float64(r.endUS) / 8)) // bytes: Mb/s × us = bits
	if slices.ContainsFunc(conns, func(c htsimConn) bool { return c.size == 0 }) {
		fmt.Fprintf(&b, "# Connections without a size, which htsim sends until -end, carry the %d B\n# the link could by then, so that they too run to the end.\n", untilEnd)
	}
	if slices.ContainsFunc(conns, func(c htsimConn) bool { return c.size%pkt != 0 }) {
		fmt.Fprintf(&b, "# Sizes rounded up to whole packets of %d B: htsim's sources send full packets\n# to the last (%s, send_packet), and count a flow done when all are acknowledged.\n", pkt, srcFile[r.program])
	}
	if r.startDelta || slices.ContainsFunc(conns, func(c htsimConn) bool { return c.start > 0 }) {
		fmt.Fprintf(&b, "# Every flow starts at 0, as in htsim: its sources start when they are connected,\n# whatever the matrix's start or -start_delta (%s's connect calls startflow at once).\n", srcFile[r.program])
	}
	if len(r.ignored) > 0 {
		fmt.Fprintf(&b, "# Not converted (output, logging and connection-count options): %s.\n", strings.Join(r.ignored, " "))
	}
	if fails > 0 {
		fmt.Fprintf(&b, "# The matrix's %d link failure(s) change nothing: %s reads them and never\n# applies them (only htsim_ndp and htsim_eqds call add_failed_link), so the run\n# is of the whole fabric. For a failed link in rocelab, give a faults: entry.\n", fails, r.program)
	}
	if slices.ContainsFunc(conns, func(c htsimConn) bool { return c.prio || c.recvDoneTrig != 0 || c.addon }) {
		fmt.Fprintf(&b, "# The matrix's prio, recv_done_trigger and addon change nothing: %s reads them\n# and never uses them (every connection is served alike, no trigger fires at a\n# receiver, nothing reads addon's flag).\n", r.program)
	}
	if r.strategy == "ecmp_host_ar" {
		fmt.Fprintf(&b, "# -strat %s chooses a path per packet, so packets arrive out of order: htsim's\n# receiver NACKs every packet past a hole and its sender goes back at each NACK\n# (%s), rocelab's responder NAKs a hole once, as RC does; the two recover\n# unlike (not alike, the same work only: docs/engine.md).\n", r.strategy, srcFile[r.program])
		fmt.Fprintf(&b, "# Its fraction %s changes nothing: htsim's switch takes the hash's port, and on\n# half the packets (random()%%100 < 50, fat_tree_switch.cpp), where that port is\n# as full as the fullest, one of the emptiest instead (replace_worst_choice),\n# whatever set_ar_fraction holds.\n", r.arFraction)
	}
	if why := htsimARMethods[r.arMethod]; why != "" && (r.strategy == "ecmp_ar" || r.strategy == "ecmp_host_ar") {
		fmt.Fprintf(&b, "# -ar_method %s: htsim's adaptive routing compares %s; rocelab's the bytes\n# queued at each egress (htsim's queue): not alike, the same work only.\n", r.arMethod, why)
	}
	if r.queueSize != "" {
		fmt.Fprintf(&b, "# -q %s changes nothing: htsim's lossless queues never drop; past it they print\n# \"LOSSLESS not working!\" and keep the packet (queue_lossless_input.cpp, _output.cpp).\n", r.queueSize)
	}
	if r.hostQueue == "prio" {
		b.WriteString("# -host_queue_type prio: the hosts' queue serves ACKs first, then data in arrival\n# order, where fair_prio takes its flows in turn; senders at line rate arrive in\n# turn, so both gave the same completions (docs/engine.md).\n")
	}
	if tf != nil {
		tf.describe(&b, r)
	}
	fmt.Fprintf(&b, "name: %s\nseed: %d\nduration: %s\ntopology: %s\n", strings.TrimSuffix(filepath.Base(name), ".cm"), r.seed, unit.Time(r.endUS)*unit.Microsecond, topo)
	fmt.Fprintf(&b, "switch: {static_th: %dB, reserve: 0, pfc: {xon_offset: %dB, response_time: 1ps}", int64(r.pfcHigh)*pkt, int64(r.pfcHigh-r.pfcLow)*pkt)
	if lb != "" {
		fmt.Fprintf(&b, ", %s", lb)
	}
	if switchLat > 0 {
		// htsim's switch latency is a pipe between a frame's routing and its
		// egress queue, as rocelab's (pause frames skip both).
		fmt.Fprintf(&b, ", latency: %s", switchLat)
	}
	// htsim's links are ideal: no clock offset, no FEC decode delay.
	fmt.Fprintf(&b, "}\nphy: {clock_ppm: 0, fec_jitter: 0ns}\nhost: {%s, mtu: %d, qp: {ack_coalesce: 1, order: index%s}}\ntraffic:\n  flows:\n", ccLine, mtu, qpExtra)
	for i, c := range conns {
		bytes := (c.size + pkt - 1) / pkt * pkt
		if bytes == 0 {
			bytes = untilEnd
		}
		fmt.Fprintf(&b, "    - {name: %s, src: h%d, dst: h%d, bytes: %d", c.name(i), c.src, c.dst, bytes)
		if len(after[i]) > 0 {
			names := make([]string, len(after[i]))
			for k, j := range after[i] {
				names[k] = conns[j].name(j)
			}
			fmt.Fprintf(&b, ", after: [%s]", strings.Join(names, ", "))
			if count[i] > 0 {
				fmt.Fprintf(&b, ", after_count: %d", count[i])
			}
		}
		b.WriteString("}\n")
	}
	_, err = io.WriteString(w, b.String())
	return err
}
