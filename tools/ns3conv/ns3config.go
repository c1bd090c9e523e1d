package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/unit"
	"rocelab/tools/internal/fields"
)

// ns3Defaults is every key HPCC's scratch/third.cc (9f4be2a) reads that
// from-ns3 converts or checks, with the value third.cc takes when
// config.txt leaves the key out ("" where third.cc leaves it unset: the
// converter then asks for it).
var ns3Defaults = map[string]string{
	"ENABLE_QCN": "1", "CC_MODE": "1", "PACKET_PAYLOAD_SIZE": "1000",
	"L2_ACK_INTERVAL": "0", "L2_BACK_TO_ZERO": "0", "SIMULATOR_STOP_TIME": "3.01",
	"ALPHA_RESUME_INTERVAL": "55", "RP_TIMER": "", "EWMA_GAIN": "0",
	"RATE_DECREASE_INTERVAL": "4", "FAST_RECOVERY_TIMES": "5", "RATE_AI": "", "RATE_HAI": "",
	"MIN_RATE": "100Mb/s", "DCTCP_RATE_AI": "1000Mb/s", "CLAMP_TARGET_RATE": "0",
	"ERROR_RATE_PER_LINK": "0", "HAS_WIN": "1", "GLOBAL_T": "1", "MI_THRESH": "5",
	"VAR_WIN": "0", "FAST_REACT": "1", "MULTI_RATE": "1", "SAMPLE_FEEDBACK": "0",
	"PINT_LOG_BASE": "1.05", "PINT_PROB": "1.0", "U_TARGET": "0.95", "RATE_BOUND": "1",
	"ACK_HIGH_PRIO": "0", "LINK_DOWN": "0", "BUFFER_SIZE": "16", "PAUSE_TIME": "5",
	"KMAX_MAP": "", "KMIN_MAP": "", "PMAX_MAP": "", "TOPOLOGY_FILE": "", "FLOW_FILE": "",
	"INT_MULTI": "1",
}

// ns3Harmless is the keys third.cc reads that change nothing the run
// does, and why; from-ns3 passes over them.
var ns3Harmless = map[string]string{
	"TRACE_FILE":                "the nodes whose packets are traced",
	"TRACE_OUTPUT_FILE":         "an output",
	"FCT_OUTPUT_FILE":           "an output",
	"PFC_OUTPUT_FILE":           "an output",
	"QLEN_MON_FILE":             "an output",
	"QLEN_MON_START":            "when the queue monitor writes",
	"QLEN_MON_END":              "when the queue monitor writes",
	"ENABLE_TRACE":              "whether the trace is written",
	"USE_DYNAMIC_PFC_THRESHOLD": "stored in QbbNetDevice::m_dynamicth, which nothing reads: the switch MMU's threshold is dynamic either way",
	"DATA_RATE":                 "read, never used: topology.txt gives each link's rate",
	"LINK_DELAY":                "read, never used: topology.txt gives each link's delay",
	"L2_CHUNK_SIZE":             "read only with L2_BACK_TO_ZERO 1 or an L2_ACK_INTERVAL above a flow's first packet (rdma-hw.cc ReceiverCheckSeq), both refused",
}

// ns3Whole is the keys third.cc reads into an integer (uint32_t or int)
// that from-ns3 converts or checks. Its stream stops at the first
// character that is not a digit, and third.cc then reads the rest as a
// word it does not know and skips it: BUFFER_SIZE 16.5 runs 16 MiB.
var ns3Whole = map[string]bool{
	"ENABLE_QCN": true, "CLAMP_TARGET_RATE": true, "PACKET_PAYLOAD_SIZE": true, "L2_ACK_INTERVAL": true,
	"L2_BACK_TO_ZERO": true, "FAST_RECOVERY_TIMES": true, "CC_MODE": true, "HAS_WIN": true, "GLOBAL_T": true,
	"MI_THRESH": true, "VAR_WIN": true, "FAST_REACT": true, "INT_MULTI": true, "RATE_BOUND": true,
	"ACK_HIGH_PRIO": true, "BUFFER_SIZE": true, "MULTI_RATE": true, "SAMPLE_FEEDBACK": true,
}

// ns3RateKeys is the keys third.cc passes to ns-3's DataRate as written
// ("40Mb/s", "0.04Gbps", "40000000" in bits per second); from-ns3 reads
// them in Mb/s.
var ns3RateKeys = map[string]bool{"RATE_AI": true, "RATE_HAI": true, "MIN_RATE": true, "DCTCP_RATE_AI": true}

// ns3Forks says what each simulator descended from HPCC's ns-3 runs that
// third.cc does not, for the refusal of its config (its keys are in
// ns3ForkKeys).
var ns3Forks = map[string]string{
	"ns3-rdma":   "(the DCQCN paper's simulator, bobzhuyb/ns3-rdma: its third.cc reads KMAX, KMIN, PMAX instead of the *_MAP keys, and flows as SRC DST PG PACKETS START STOP)",
	"ConWeave":   "(conweave-project/conweave-ns3, scratch/network-load-balance.cc: load balancing other than ECMP by LB_MODE, PFC and IRN switched by ENABLE_PFC and ENABLE_IRN)",
	"Hawkeye":    "(its telemetry agents, and hosts without congestion control by NO_CC_NODE; DIR is where it writes their telemetry, and its descendant CodeFaiths/Hawkeye-sim adds a monitor of each link's use, LINK_UTIL_MON_FILE and its INTERVAL, START and END)",
	"SimAI":      "(its ns-3-alibabacloud, run by astra-sim-alibabacloud, whose flows come from the AI workload and not FLOW_FILE, its topology from the command line; run on its own, its scratch/NormalNetwork reads both files, the topology with SimAI's head, and sets ns-3's attributes by name: ns3::RdmaHw::CcMode and the rest)",
	"Floodgate":  "(NASA-NJU/Floodgate-NS3: with USE_FLOODGATE its switches hold each destination's packets to a credit window, set by the SWTICH_* and SWITCH_* keys, RESET_ONLY_TOR_SWITCH_WIN and FLOODGATE_CONFIG_FILE; with FLOW_FROM_FILE 0 its third.cc draws the flows from FLOW_CDF, LOAD and INCAST_* and reads no FLOW_FILE; ROUTING_MODE 1 is DRILL's per-packet routing, DRILL_LOAD_MODE its load measure)",
	"HPCC-Plus":  "(ItamarMeir/High-Precision-Congestion-Control-Plus: its NICs hold what they receive in a buffer (RX_BUFFER_SIZE, RX_BUFFER_PER_QUEUE) that the host drains at once or at a fixed rate (RX_PULL_MODE, RX_PULL_RATE, per node by RX_PULL_MODE_NODE), and it traces each QP's window (CWND_OUTPUT_FILE))",
	"ocs-mprdma": "(renyue0411/ocs-mprdma-ns3: optical circuit switches whose port map OCS_MAP_FILE gives, under multipath RDMA)",
	"Pyrrha":     "(NASA-NJU/Pyrrha-NS3, Floodgate's descendant: FC_MODE picks the switches' flow control, PFC (0), Floodgate's windows (1), BFC's per-flow backpressure (2), per-destination PFC over VOQs (3), Pyrrha's congestion isolation (4, by TH_HOL, TH_CONGESTION, TH_RESUME, CONGESTION_MERGE, NEAREST_MATCH) or none (5); its third.cc also draws flows from FLOW_CDF and LOAD unless FLOW_FROM_FILE, as Floodgate's does)",
	"Themis":     "(Eternal579/Themis: its third.cc gives its two long-haul gateway switches, ns-3 nodes 48 and 49, a 200 MiB buffer whatever ENABLE_THEMIS says (its README's \"false\" is read as a number), so no value of the key is third.cc's run; with it on they also send CNPs to the senders themselves and cut their rates early)",
	"ns3-PB-FS":  "(DanAaronson/ns3-PB-FS: a packet-buffer threshold marking, ENABLE_PBT and the PBT_* keys (PBT_OUTPUT_FILE its trace), PFC switched off by ENABLE_PFC 0, and response timeouts LOW_RESP_TIMEOUT and HIGH_RESP_TIMEOUT)",
	"ASTRA-sim":  "(astra-sim/astra-network-ns3, ASTRA-sim's ns-3 backend: its flows come from ASTRA-sim's workload, not FLOW_FILE, and NIC_TOTAL_PAUSE_TIME is how many times each NIC that receives data pauses its link for 10 us, at most once a millisecond, as if its PCIe pushed back (rdma-hw.cc PCIePause))",
	"playground": "(GabiJunkes/High-Precision-Congestion-Control's scratch/playground.cc, which its run.py runs with --use_playground 1: request-response applications in place of FLOW_FILE's flows, each client writing PACKET_SIZE bytes and each side taking CPU_TIME ns to produce or process them)",
}

// ns3ForkKeys names the simulator (ns3Forks) that reads each key third.cc
// does not, for the refusal: its configs run another program. Forks share
// keys (ENABLE_PFC, ENABLE_IRN in ConWeave's, ns3-PB-FS's and LIBRA's),
// so the refusal names one that reads the first such key, not always the
// one that wrote the file. Floodgate's and ns3-PB-FS's keys are the
// ones their third.cc compares at the commits testdata/public's SOURCE
// files name (b0e6108, 233f0ed).
var ns3ForkKeys = map[string]string{
	"KMAX": "ns3-rdma", "KMIN": "ns3-rdma", "PMAX": "ns3-rdma", "CNP_INTERVAL": "ns3-rdma", "BYTE_COUNTER": "ns3-rdma",
	"SEND_IN_CHUNKS": "ns3-rdma", "APP_START_TIME": "ns3-rdma", "TCP_FLOW_FILE": "ns3-rdma",
	"LB_MODE": "ConWeave", "ENABLE_PFC": "ConWeave", "ENABLE_IRN": "ConWeave", "FLOWGEN_START_TIME": "ConWeave", "FLOWGEN_STOP_TIME": "ConWeave",
	"AGENT_NODE": "Hawkeye", "AGENT_THRESHOLD": "Hawkeye", "NO_CC_NODE": "Hawkeye", "DIR": "Hawkeye",
	"LINK_UTIL_MON_FILE": "Hawkeye", "LINK_UTIL_MON_INTERVAL": "Hawkeye", "LINK_UTIL_MON_START": "Hawkeye", "LINK_UTIL_MON_END": "Hawkeye",
	"BW_MON_FILE": "SimAI", "RATE_MON_FILE": "SimAI", "CNP_MON_FILE": "SimAI", "MON_START": "SimAI", "MON_END": "SimAI",
	"QP_MON_INTERVAL": "SimAI", "QLEN_MON_INTERVAL": "SimAI", "BW_MON_INTERVAL": "SimAI",
	"USE_FLOODGATE": "Floodgate", "SRCTOR_DST_PFC": "Floodgate", "SWTICH_ACK_MODE": "Floodgate", "SWITCH_WIN_M": "Floodgate",
	"SWITCH_ACK_TH_M": "Floodgate", "SWTICH_BYTE_COUNTER": "Floodgate", "SWTICH_CREDIT_INTERVAL": "Floodgate",
	"FLOODGATE_CONFIG_FILE": "Floodgate", "FLOW_FROM_FILE": "Floodgate", "FLOW_CDF": "Floodgate", "ROUTING_MODE": "Floodgate",
	"LOAD": "Floodgate", "INCAST_MIX": "Floodgate", "INCAST_INTERVAL": "Floodgate", "INCAST_CDF": "Floodgate", "INCAST_LOAD": "Floodgate",
	"INCAST_TIME": "Floodgate", "INCAST_FLOW_SIZE": "Floodgate", "INCAST_SCALE": "Floodgate", "RESET_ONLY_TOR_SWITCH_WIN": "Floodgate",
	"DRILL_LOAD_MODE": "Floodgate", "SWITCH_ABSOLUTE_PSN": "Floodgate", "SWITCH_SYN_TIMEOUT_US": "Floodgate",
	"RX_BUFFER_SIZE": "HPCC-Plus", "RX_BUFFER_PER_QUEUE": "HPCC-Plus", "RX_PULL_MODE": "HPCC-Plus", "RX_PULL_RATE": "HPCC-Plus",
	"RX_PULL_MODE_NODE": "HPCC-Plus", "CWND_OUTPUT_FILE": "HPCC-Plus", "ENABLE_CWND_TRACE": "HPCC-Plus", "RXBUF_OUTPUT_FILE": "HPCC-Plus",
	"OCS_MAP_FILE": "ocs-mprdma", "ENABLE_THEMIS": "Themis", "NIC_TOTAL_PAUSE_TIME": "ASTRA-sim",
	"CPU_TIME": "playground", "PACKET_SIZE": "playground",
	"FC_MODE": "Pyrrha", "TH_HOL": "Pyrrha", "TH_CONGESTION": "Pyrrha", "TH_RESUME": "Pyrrha", "TH_CIQ_RATE": "Pyrrha",
	"CONGESTION_MERGE": "Pyrrha", "NEAREST_MATCH": "Pyrrha", "QOS_MODE": "Pyrrha", "VOQ_PAUSE_MODE": "Pyrrha", "VOQ_PAUSE_M": "Pyrrha",
	"ENABLE_PBT": "ns3-PB-FS", "PBT_MARKING_INTERVAL": "ns3-PB-FS", "PBT_MARKING_OFFSET": "ns3-PB-FS", "PBT_MIN": "ns3-PB-FS", "PBT_MAX": "ns3-PB-FS",
	"PBT_OUTPUT_FILE": "ns3-PB-FS", "LOW_RESP_TIMEOUT": "ns3-PB-FS", "HIGH_RESP_TIMEOUT": "ns3-PB-FS",
}

// ns3Config is what rocelab reads of an HPCC ns-3 config.txt: each key's
// value fields, line and the value's column.
type ns3Config struct {
	file string
	kv   map[string][]string
	line map[string]int
	col  map[string]int
}

// readConfig reads "KEY VALUE..." lines, a later line of a key over an
// earlier one (as third.cc reads them). It refuses a key third.cc does
// not read, which a fork of it gives a meaning from-ns3 cannot know.
func readConfig(file string, r io.Reader) (*ns3Config, error) {
	c := &ns3Config{file: file, kv: map[string][]string{}, line: map[string]int{}, col: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var unknown []string
	var head fileHead
	first := ""
	// lines that set an ns-3 attribute by name ("ns3::RdmaHw::CcMode
	// 13"), as ns-3-alibabacloud's NormalNetwork reads them: how many,
	// and the first's place
	attrs, firstAttr := 0, ""
	for n := 1; sc.Scan(); n++ {
		f, cols := fields.At(sc.Text())
		if len(f) == 0 {
			continue
		}
		head.add(n, f)
		if lead := f[0][0]; !('A' <= lead && lead <= 'Z' || 'a' <= lead && lead <= 'z') {
			// A line that does not start with a name is a note ("#",
			// "//", "{...}"). third.cc has no comments: it skips the
			// tokens it does not know, and reads a key it knows
			// wherever it stands.
			for i, k := range f[1:] {
				if isNs3Key(k) {
					return nil, fmt.Errorf("%s:%d:%d: %s: third.cc has no comments and reads this key after %q; delete the line, or join the mark to the key", file, n, cols[i+1], k, f[0])
				}
			}
			continue
		}
		if i := slices.IndexFunc(f[1:], func(x string) bool { return strings.HasPrefix(x, "{") }); i >= 0 {
			// a note in braces after the value, as the model's
			// mix/config_doc.txt explains each key: third.cc skips its
			// words as keys it does not know, unless one is a key
			for j, k := range f[i+1:] {
				if isNs3Key(k) {
					return nil, fmt.Errorf("%s:%d:%d: %s: third.cc has no comments and reads this key inside the note after %s; delete it from the note", file, n, cols[i+1+j], k, f[0])
				}
			}
			f, cols = f[:i+1], cols[:i+1]
		}
		if strings.HasPrefix(f[0], "ns3::") {
			// ns-3-alibabacloud's ReadConf passes a key that starts
			// "ns3::" to Config::SetDefault, and only such a key
			if attrs++; firstAttr == "" {
				firstAttr = fmt.Sprintf("%s:%d:%d: %s", file, n, cols[0], f[0])
			}
			continue
		}
		if !isNs3Key(f[0]) {
			if first == "" {
				first = fmt.Sprintf("%s:%d:%d: %s", file, n, cols[0], f[0])
			}
			if !slices.Contains(unknown, f[0]) {
				unknown = append(unknown, f[0])
			}
			continue
		}
		// A note after the values ("CC_MODE 3   # DCQCN:1 DCTCP:8", as
		// configs written by hand carry) is words third.cc skips, unless
		// one is a key: it reads that key and the value after it. Every
		// value of a key is a number, a rate or a path, never a key.
		vals := min(len(f), 1+ns3Values(f))
		for j := vals; j < len(f); j++ {
			if isNs3Key(f[j]) {
				return nil, fmt.Errorf("%s:%d:%d: %s: third.cc has no comments and reads this key, with the word after it as its value, after %s's value on this line; give it a line of its own, or delete it from the note", file, n, cols[j], f[j], f[0])
			}
		}
		c.kv[f[0]], c.line[f[0]], c.col[f[0]] = f[1:vals], n, cols[0]
		if len(cols) > 1 {
			c.col[f[0]] = cols[1]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(c.kv) == 0 {
		return nil, head.notConfig(file)
	}
	if attrs > 0 {
		// third.cc reads no attribute by name: it skips such a line's
		// words, and the run it converts is not the one the file asks for
		more := ""
		if attrs == 2 {
			more = " (and 1 more such line)"
		} else if attrs > 2 {
			more = fmt.Sprintf(" (and %d more such lines)", attrs-1)
		}
		others := ""
		if len(unknown) > 0 {
			others = fmt.Sprintf(", and %d other keys third.cc does not read (the first at %s)", len(unknown), strings.TrimPrefix(first, file+":"))
		}
		return nil, fmt.Errorf("%s: an ns-3 attribute set by name%s%s: HPCC's third.cc reads none and skips their words, while SimAI's ns-3-alibabacloud run on its own (scratch/NormalNetwork) sets them before it builds the run (Config::SetDefault), its congestion control by ns3::RdmaHw::CcMode among them; from-ns3 converts what third.cc runs", firstAttr, more, others)
	}
	if first != "" {
		fork := ""
		for _, k := range unknown {
			if name, ok := ns3ForkKeys[k]; ok {
				fork = fmt.Sprintf("; a fork known to read %s: %s's %s", k, name, ns3Forks[name])
				break
			}
		}
		more := ""
		if len(unknown) > 1 {
			more = fmt.Sprintf(" (and %d more: %s)", len(unknown)-1, strings.Join(unknown[1:min(len(unknown), 6)], ", "))
		}
		return nil, fmt.Errorf("%s: not a key of HPCC's third.cc%s: from-ns3 converts what third.cc runs, and a fork's key may change the run%s", first, more, fork)
	}
	return c, nil
}

// ns3Values is how many words third.cc reads as the values of the key
// f[0] (f its line's words): LINK_DOWN's three, a KMIN_MAP's, KMAX_MAP's
// or PMAX_MAP's count and that many RATE VALUE pairs, every other key's
// one. The words after them it reads as keys, skipping those it does
// not know.
func ns3Values(f []string) int {
	switch f[0] {
	case "LINK_DOWN":
		return 3
	case "KMIN_MAP", "KMAX_MAP", "PMAX_MAP":
		if len(f) > 1 {
			if k, err := strconv.Atoi(f[1]); err == nil && k >= 0 && k < len(f) {
				return 1 + 2*k
			}
		}
		return len(f) - 1 // not a count third.cc can use: ecnAt refuses it
	}
	return 1
}

// isNs3Key says third.cc reads k as a key.
func isNs3Key(k string) bool {
	_, known := ns3Defaults[k]
	_, harmless := ns3Harmless[k]
	return known || harmless
}

// at names a key's place, for errors: its value's line and column, or the
// file and third.cc's default where config.txt leaves the key out.
func (c *ns3Config) at(key string) string {
	if n, ok := c.line[key]; ok {
		return fmt.Sprintf("%s:%d:%d: %s", c.file, n, c.col[key], key)
	}
	return fmt.Sprintf("%s: %s (absent: third.cc's default, %q)", c.file, key, ns3Defaults[key])
}

// num returns key's first value as a number, third.cc's default when
// config.txt leaves it out.
func (c *ns3Config) num(key string) (float64, error) {
	v, ok := c.kv[key]
	if !ok {
		if d := ns3Defaults[key]; d != "" {
			v = []string{d}
		}
	}
	if len(v) == 0 {
		return 0, fmt.Errorf("%s: expected a value", c.at(key))
	}
	if ns3RateKeys[key] {
		r, err := ns3Rate(v[0], true)
		if err != nil {
			return 0, fmt.Errorf("%s %v", c.at(key), err)
		}
		return float64(r) / 1e6, nil
	}
	if ns3Whole[key] && !strings.HasPrefix(v[0], "-") {
		if n := strings.IndexFunc(v[0], func(r rune) bool { return r < '0' || r > '9' }); n >= 0 {
			return 0, fmt.Errorf("%s %q: third.cc reads a whole number here: it takes %q and skips %q as a word it does not know; write the whole number meant", c.at(key), v[0], cmp.Or(v[0][:n], "nothing (its read fails, and so does every later one)"), v[0][n:])
		}
	}
	x, err := strconv.ParseFloat(v[0], 64)
	if err != nil || x < 0 {
		return 0, fmt.Errorf("%s %q: expected a number that is not negative", c.at(key), v[0])
	}
	return x, nil
}

// path returns a file key's path. ns-3 opens it relative to where it
// runs, which run.py and its forks make an ancestor of config.txt's
// directory (HPCC: simulation/ for mix/config.txt; ConWeave: its root
// for mix/output/ID/config.txt): the path is tried relative to
// config.txt's directory and then each directory above it, nearest
// first, then as written from here, and last its name beside config.txt
// (a run's files gathered in one directory). An absolute path is tried
// as written, then, where it is not on this machine (a config written
// where it ran: ERD's /root/code/simulation/mix/topology.txt), as its
// tails: in each of those directories, nearest first, each tail,
// longest first, so that a file beside config.txt is read before one of
// the same tail higher up. moved says the file read is not where ns-3
// opens the path: an absolute path's tail, a relative path found beyond
// config.txt's directory and the one above it (unless, from there, it
// leads back into config.txt's directory: that is where ns-3 runs), or
// the name beside config.txt. The error lists each place tried.
func (c *ns3Config) path(key string) (p string, moved bool, err error) {
	v, ok := c.kv[key]
	if !ok || len(v) == 0 {
		return "", false, fmt.Errorf("%s: expected the file's path", c.at(key))
	}
	var tried []string
	rel := []string{v[0]}
	if filepath.IsAbs(v[0]) {
		tried = []string{v[0]}
		parts := strings.Split(filepath.ToSlash(filepath.Clean(v[0])), "/")
		rel = nil
		for i := 2; i < len(parts); i++ {
			rel = append(rel, filepath.Join(parts[i:]...))
		}
	}
	var dirs []string
	for dir, _ := filepath.Abs(filepath.Dir(c.file)); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if here, err := filepath.Abs("."); err == nil && !slices.Contains(dirs, here) {
		dirs = append(dirs, here)
	}
	for _, dir := range dirs {
		for _, r := range rel {
			tried = append(tried, filepath.Join(dir, r))
		}
	}
	joined := len(tried)
	if beside := filepath.Join(filepath.Dir(c.file), filepath.Base(v[0])); !slices.Contains(tried, beside) {
		tried = append(tried, beside)
	}
	for i, p := range tried {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			// a relative path is where ns-3 runs from: config.txt's
			// directory or the one above it (run.py's simulation/), or
			// a directory further up from which the path leads back
			// into config.txt's own (Hawkeye-sim's
			// mix/01_Sandbox/NAME/config/, run from simulation/)
			own := i < joined && !filepath.IsAbs(v[0]) && within(dirs[0], p)
			return p, i > 0 && filepath.IsAbs(v[0]) || i > 1 && !filepath.IsAbs(v[0]) && !own, nil
		}
	}
	return "", false, fmt.Errorf("%s %s: no such file; ns-3 opens it relative to where it runs, so from-ns3 looked relative to %s's directory, each directory above it and the working directory (an absolute path: as written, then in each of those its tails, longest first), then for its name beside it: %s",
		c.at(key), v[0], filepath.Base(c.file), strings.Join(tried, ", "))
}

// within says the file p is in the directory dir or below it.
func within(dir, p string) bool {
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	r, err := filepath.Rel(dir, abs)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// movedNote says which file from-ns3 read for a key whose absolute path
// is not on this machine, or whose relative path is neither under
// config.txt's directory nor the one above it (path's moved), relative to
// config.txt's directory.
func movedNote(c *ns3Config, key, found string) string {
	dir, _ := filepath.Abs(filepath.Dir(c.file))
	abs, _ := filepath.Abs(found)
	if r, err := filepath.Rel(dir, found); err == nil {
		found = r
	}
	v := c.kv[key][0]
	switch {
	case !filepath.IsAbs(v) && abs == filepath.Join(dir, filepath.Base(v)):
		return fmt.Sprintf("%s %s is under neither %s's directory, a directory above it nor the working directory: read %s, the file of that name beside %s; ns-3 opens it relative to where it runs", key, v, filepath.Base(c.file), found, filepath.Base(c.file))
	case !filepath.IsAbs(v):
		return fmt.Sprintf("%s %s is neither under %s's directory nor the one above it: read %s (relative to that directory), the nearest file of that path; ns-3 opens it relative to where it runs", key, v, filepath.Base(c.file), found)
	}
	return fmt.Sprintf("%s %s is not on this machine: read %s (relative to %s's directory), the file its path ends in", key, v, found, filepath.Base(c.file))
}

// ns3RateUnits is the bit rate of each unit ns-3's DataRate reads (ns-3.17
// src/network/utils/data-rate.cc; case matters, B is bytes).
var ns3RateUnits = map[string]float64{
	"bps": 1, "b/s": 1, "Bps": 8, "B/s": 8,
	"kbps": 1e3, "kb/s": 1e3, "Kbps": 1e3, "Kb/s": 1e3, "kBps": 8e3, "kB/s": 8e3, "KBps": 8e3, "KB/s": 8e3,
	"Kib/s": 1024, "KiB/s": 8 * 1024,
	"Mbps": 1e6, "Mb/s": 1e6, "MBps": 8e6, "MB/s": 8e6, "Mib/s": 1 << 20, "MiB/s": 8 << 20,
	"Gbps": 1e9, "Gb/s": 1e9, "GBps": 8e9, "GB/s": 8e9, "Gib/s": 1 << 30, "GiB/s": 8 << 30,
}

// ns3Rate reads a rate as ns-3's DataRate does: digits and dots, then
// one of its units, or none for bits per second; 0 only where zero.
func ns3Rate(s string, zero bool) (unit.BitRate, error) {
	n := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	mult := 1.0
	if n >= 0 {
		m, ok := ns3RateUnits[s[n:]]
		if !ok {
			return 0, fmt.Errorf("%q: expected a number and one of ns-3's rate units (bps, Kbps, Mbps, Gbps, Gb/s, GBps for bytes, Gib/s, ...; case matters)", s)
		}
		mult, s = m, s[:n]
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || (x*mult < 1 && !(zero && x == 0)) || x*mult > float64(unit.MaxParsedRate) {
		lo := "1 bps"
		if zero {
			lo = "0"
		}
		return 0, fmt.Errorf("%q: expected a rate from %s to %v", s, lo, unit.MaxParsedRate)
	}
	return unit.BitRate(x * mult), nil
}

// ns3Time reads a link delay as ns-3's Time does: a number, then s, ms, us,
// ns, ps or fs, or no unit for seconds.
func ns3Time(s string) (unit.Time, error) {
	n := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && !strings.ContainsRune("+-.", r) })
	num, suf := s, "s"
	if n >= 0 {
		num, suf = s[:n], s[n:]
	}
	per := map[string]float64{"s": 1e12, "ms": 1e9, "us": 1e6, "ns": 1e3, "ps": 1, "fs": 1e-3}[suf]
	x, err := strconv.ParseFloat(num, 64)
	if per == 0 || err != nil || x < 0 || x*per > float64(unit.MaxParsedTime/unit.Picosecond) {
		return 0, fmt.Errorf("%q: expected a delay that is not negative: a number and s, ms, us, ns, ps or fs (ns-3's units), or seconds without one", s)
	}
	return unit.Time(x*per) * unit.Picosecond, nil
}
