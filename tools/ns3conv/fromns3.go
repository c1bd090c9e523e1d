package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/packet"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// fromNs3 writes the rocelab scenario of an HPCC ns-3 run, given its
// config.txt: the topology as a graph, ns-3's built-in switch and NIC
// behaviour as the keys that say the same (docs/engine.md, "Against the
// HPCC ns-3 model"), the config's DCQCN, ECN and buffer, and the flows,
// their starts counted from the first.
func fromNs3(file string, w io.Writer) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	c, err := readConfig(file, f)
	f.Close()
	if err != nil {
		return err
	}
	var notes []string
	qcn, err := c.num("ENABLE_QCN")
	if err != nil {
		return err
	}
	ccMode, err := c.num("CC_MODE")
	if err != nil {
		return err
	}
	// ENABLE_QCN sets only the switches' ECN marks (third.cc's
	// EcnEnabled; the NICs' QcnEnabled is read by the switches' devices
	// alone): without it the NICs still run CC_MODE's control, which for
	// DCQCN, answering only marks, is none, as for CC_MODE 0, which
	// RdmaHw runs no control at. A mode third.cc does not know is a
	// fork's algorithm, with marks or without.
	switch {
	case qcn == 0 && ccMode == 0:
	case ccMode != ns3DCQCN && ccMode != ns3HPCC && ccMode != ns3Timely && ccMode != ns3DCTCP && ccMode != ns3PINT:
		return fmt.Errorf("%s %g: DCQCN (CC_MODE 1), HPCC (3), TIMELY (7), DCTCP (8), HPCC-PINT (10) or no congestion control (ENABLE_QCN 0 with CC_MODE 1 or 0) is converted; HPCC's NICs run no control at another mode, which forks number their own algorithms by (RoCC is 5 in Nightzz1/rdma-ns3, with ENABLE_QCN 0, LongHaulCC's 9 in ljh112/LongHaulCC)", c.at("CC_MODE"), ccMode)
	case qcn == 0 && ccMode == ns3DCQCN:
		ccMode = 0
	}
	type want struct {
		key string
		v   float64
		why string
	}
	wants := []want{
		{"L2_BACK_TO_ZERO", 0, "retransmission from the message's start"},
		{"RATE_BOUND", 1, "NICs that send faster than their rate"},
		{"LINK_DOWN", 0, "a link taken down during the run"},
	}
	hasWin, err := c.num("HAS_WIN")
	if err != nil {
		return err
	}
	switch {
	case ccMode == ns3HPCC:
		wants = append(wants, want{"HAS_WIN", 1, "HPCC without its window"}, want{"VAR_WIN", 1, "a window that does not follow the rate"},
			want{"GLOBAL_T", 1, "a base RTT per host pair"}, want{"MULTI_RATE", 0, "a rate per hop"},
			want{"SAMPLE_FEEDBACK", 0, "INT read only from hops with a queue"})
	case ccMode == ns3PINT:
		wants = append(wants, want{"HAS_WIN", 1, "HPCC-PINT without its window"}, want{"VAR_WIN", 1, "a window that does not follow the rate"},
			want{"GLOBAL_T", 1, "a base RTT per host pair"}, want{"PINT_PROB", 1, "feedback from a sample of the ACKs"})
	case ccMode == ns3DCTCP && hasWin == 1:
		// DCTCP takes either: a window that follows its rate, or none.
		wants = append(wants, want{"VAR_WIN", 1, "a window that does not follow the rate"},
			want{"GLOBAL_T", 1, "a window per host pair"})
	case ccMode == ns3DCTCP:
		wants = append(wants, want{"HAS_WIN", 0, "HAS_WIN other than 0 or 1"})
	default:
		wants = append(wants, want{"HAS_WIN", 0, "a window besides the rate (run.py's dcqcn_vwin and timely_vwin; rocelab's DCQCN and TIMELY have none)"})
	}
	for _, k := range wants {
		v, err := c.num(k.key)
		if err != nil {
			return err
		}
		if v != k.v {
			return fmt.Errorf("%s %g: %s is not converted (expected %g)", c.at(k.key), v, k.why, k.v)
		}
	}
	if p, err := c.num("PAUSE_TIME"); err != nil || p < 1 {
		// third.cc hands it to the NICs as a whole number (UintegerValue),
		// and a pause frame of time 0 is read as a resume.
		return cmp.Or(err, fmt.Errorf("%s %g: ns-3 sends it as a whole number, 0, and a pause frame of time 0 resumes: a pause that resumes at once is not converted (ns-3's pauses last until the XON)", c.at("PAUSE_TIME"), p))
	}
	ackHigh, err := c.num("ACK_HIGH_PRIO")
	if err != nil {
		return err
	}
	tp, moved, err := c.path("TOPOLOGY_FILE")
	if err != nil {
		return err
	}
	if moved {
		notes = append(notes, movedNote(c, "TOPOLOGY_FILE", tp))
	}
	topology, err := readFile(tp, readTopology)
	if err != nil {
		return err
	}
	losses, err := linkLosses(c, topology)
	if err != nil {
		return err
	}
	if len(losses) > 0 {
		notes = append(notes, lossNote)
	}
	fp, moved, err := c.path("FLOW_FILE")
	if err != nil {
		return err
	}
	if moved {
		notes = append(notes, movedNote(c, "FLOW_FILE", fp))
	}
	ff, err := readFile(fp, func(name string, r io.Reader) (ns3Flows, error) { return readFlows(name, r, topology) })
	if err != nil {
		return err
	}
	flows := ff.lines
	if ff.unread > 0 {
		notes = append(notes, fmt.Sprintf("%s lists %d more flows after the %d its first line counts: third.cc reads no further than the count, so neither ns-3 nor this scenario runs them", filepath.Base(fp), ff.unread, len(flows)+ff.beyond))
	}
	if len(flows) == 0 {
		return fmt.Errorf("%s: no flows", fp)
	}
	first := ff.first
	stop, err := c.num("SIMULATOR_STOP_TIME")
	if err != nil {
		return err
	}
	// ns-3 ends when its events do or at the stop time; rocelab's
	// duration is a cap too, at most 1000 h.
	duration := unit.MaxParsedTime
	if stop-first.Seconds() < duration.Seconds() {
		duration = unit.Time(math.Round(stop*float64(unit.Second))) - first
	} else {
		notes = append(notes, fmt.Sprintf("ns-3 stops at %g s; rocelab's longest cap is %v, and both end when the flows do", stop, duration))
	}
	if duration <= 0 {
		return fmt.Errorf("%s %g: the run stops before its first flow starts (%v)", c.at("SIMULATOR_STOP_TIME"), stop, first)
	}
	if first > 0 {
		notes = append(notes, fmt.Sprintf("flows start from ns-3's first start, %v: rocelab's time 0", first))
	}
	hostRate := topology.rates[0]
	for _, d := range topology.delay {
		if d != topology.delay[0] {
			notes = append(notes, fmt.Sprintf("links of several delays: ns-3 gives each port 3 x rate x delay of headroom; here every port the largest, %d B", int64(topology.headroom)))
			break
		}
	}
	if len(topology.idle) > 0 {
		notes = append(notes, fmt.Sprintf("the link(s) on line(s) %s of %s join two nodes a later link joins too: ns-3 routes a pair's packets through one interface, the last link's (third.cc's nbr2if), so it sends nothing on these; left out, so each of their switches' pools is larger by a port's headroom and reserve than ns-3's", strings.Trim(fmt.Sprint(topology.idle), "[]"), filepath.Base(tp)))
	}
	if len(topology.unused) > 0 {
		notes = append(notes, fmt.Sprintf("node(s) %s of the topology have no link: ns-3 builds them idle, the scenario leaves them out and numbers the rest in ns-3's order", strings.Trim(fmt.Sprint(topology.unused), "[]")))
	}
	if len(topology.apart) > 0 {
		notes = append(notes, fmt.Sprintf("switch(es) %s of the topology reach no host: ns-3 builds them and routes nothing through them, the scenario leaves them and their links out and numbers the rest in ns-3's order", strings.Trim(fmt.Sprint(topology.apart), "[]")))
	}
	ecmp := ""
	switch {
	case topology.renumbered:
		notes = append(notes, "ECMP: with the nodes left out, the twin's node numbers are not ns-3's node ids, which ns-3's hash reads; its own hash then, so single flows take other paths")
	case !topology.hostsFirst:
		notes = append(notes, "ECMP: ns-3's node ids interleave hosts and switches, which the twin numbers hosts first; its own hash then, so single flows take other paths")
	case slices.ContainsFunc(flows, func(x ns3FlowLine) bool { return x.dport != flows[0].dport }):
		notes = append(notes, "ECMP: the flows' destination ports differ, which ns-3's hash reads and the twin gives as one; its own hash then, so single flows take other paths")
	default:
		ecmp = fmt.Sprintf("{model: ns3, dst_port: %d}", flows[0].dport)
	}
	if slices.ContainsFunc(topology.hostIDs(), func(id int) bool { return topology.name[id] != "h"+strconv.Itoa(id) }) {
		notes = append(notes, fmt.Sprintf("host numbers: the twin's hosts are not ns-3's first node ids, so compare this run with ns3conv compare -topology %s (the TOPOLOGY_FILE)", filepath.Base(tp)))
	}
	payload, err := c.num("PACKET_PAYLOAD_SIZE")
	if err != nil {
		return err
	}
	mtu := 256
	for _, m := range []int{512, 1024, 2048, 4096} {
		if math.Abs(float64(m)-payload) <= math.Abs(float64(mtu)-payload) {
			mtu = m
		}
	}
	if float64(mtu) != payload {
		notes = append(notes, fmt.Sprintf("ns-3's %g B payloads: RoCE's path MTU is 256-4096 in powers of two, so rocelab sends %d B", payload, mtu))
	}
	notes = append(notes, frameNote(ccMode, payload, mtu))
	if multi, err := c.num("INT_MULTI"); err != nil {
		return err
	} else if ccMode == ns3HPCC && ns3INTByteUnit*multi > payload+ns3HPCCOverhead {
		return fmt.Errorf("%s %g: ns-3's INT then counts bytes in units of %g, more than a data packet (%g B), and its HPCC drops the time of an ACK that saw none, reading about twice the links' use and holding its rate near half (docs/engine.md); rocelab's INT is exact: an INT_MULTI of at most %d runs alike",
			c.at("INT_MULTI"), multi, ns3INTByteUnit*multi, payload+ns3HPCCOverhead, max(1, int64(payload+ns3HPCCOverhead)/ns3INTByteUnit))
	}
	var ecn string
	if qcn != 0 {
		// third.cc marks with a rate's KMIN_MAP, KMAX_MAP and PMAX_MAP
		// entries; a rate without them is its debug build's assertion
		// ("must set kmin for each link speed") and its optimized build's
		// thresholds of 0, every packet leaving a queue marked. Only
		// DCQCN and DCTCP read the marks.
		var none []unit.BitRate
		if ecn, none, err = ecnAt(c, hostRate, rateSet(topology.rates), ccMode == ns3DCQCN || ccMode == ns3DCTCP); err != nil {
			return err
		}
		for _, r := range none {
			notes = append(notes, fmt.Sprintf("KMIN_MAP, KMAX_MAP or PMAX_MAP has no entry for %s, the rate of some links: ns-3's optimized build marks every packet leaving a queue there (its debug build stops at third.cc's \"must set kmin for each link speed\"), which its %s ignores", r, map[float64]string{ns3HPCC: "HPCC", ns3Timely: "TIMELY", ns3PINT: "HPCC-PINT"}[ccMode]))
		}
	}
	buffer, err := c.num("BUFFER_SIZE")
	if err != nil {
		return err
	}
	if err := headroomFits(c, topology, tp, buffer); err != nil {
		return err
	}
	if err := ackEveryPacket(c, payload, flows); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The rocelab scenario of an HPCC ns-3 run (go run ./tools/ns3conv from-ns3 %s):\n", file)
	cnp := ""
	if ccMode == ns3DCQCN {
		cnp = ", CNPs in the data's queue"
	}
	fmt.Fprintf(&b, "# ns-3's switch and NIC as the keys that say the same (docs/engine.md, \"Against the\n# HPCC ns-3 model\"): PFC at 1/8 of the free pool, 4 KiB reserved, XON 3 KiB below,\n# headroom 3 x rate x delay, hosts that never pause, ideal links%s.\n", cnp)
	if qcn == 0 && ccMode != 0 {
		fmt.Fprintf(&b, "# ENABLE_QCN 0 turns off only the switches' ECN marks: ns-3's NICs still run CC_MODE %g,\n# as the scenario's hosts do with switch.ecn off.\n", ccMode)
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "# Differs: %s.\n", n)
	}
	fmt.Fprintf(&b, "name: %s\nduration: %s\n", strings.TrimSuffix(filepath.Base(fp), filepath.Ext(fp)), duration)
	fmt.Fprintf(&b, "topology:\n  kind: graph\n  hosts: %d\n  switches: %d\n  links:\n", topology.hosts, topology.switches)
	for _, l := range topology.links {
		fmt.Fprintf(&b, "    - %s\n", l)
	}
	b.WriteString("phy: {clock_ppm: 0, fec_jitter: 0ns}\n")
	fmt.Fprintf(&b, "switch:\n  buffer: %gMiB\n  alpha: 1/8\n", buffer)
	if a := ns3AlphaByRate(hostRate, rateSet(topology.rates)); a != "" {
		fmt.Fprintf(&b, "  alpha_by_rate: {%s}\n", a)
	}
	fmt.Fprintf(&b, "  reserve: 4KiB\n  pfc: {xon_offset: 3KiB, headroom: %d, response_time: 1ps}\n", int64(topology.headroom))
	if ecmp != "" {
		fmt.Fprintf(&b, "  ecmp: %s\n", ecmp)
	}
	rateChange := ""
	if rc, _ := ns3RateChange(int(ccMode)); rc != "" {
		rateChange = ", rate_change: " + rc
	}
	if ackHigh != 0 {
		// third.cc sets only the NICs' ACK queue with it
		// (RdmaEgressQueue::ack_q_idx 0, never paused); it never sets the
		// switches' AckHighPrio, so there the ACKs, and the CNP flag they
		// carry, stay in the data's queue (mix.tr shows them CE-marked).
		rateChange += ", acks_first: true"
	}
	host := fmt.Sprintf("host:\n  mtu: %d\n  qp: {ack_coalesce: 1, order: index%s}\n  rx: {pfc: false}\n", mtu, rateChange)
	if qcn == 0 {
		ecn = "{enabled: false}"
		if e, none, err := ecnAt(c, hostRate, nil, false); err == nil && len(none) == 0 { // kept for the way back, unused without QCN
			ecn = "{enabled: false, " + strings.TrimPrefix(e, "{")
		}
	}
	fmt.Fprintf(&b, "  ecn: %s\n", ecn)
	if ccMode == 0 {
		host += "  cc: none\n  ecn: false\n"
	} else {
		cfg, err := ccKnobs(c, int(ccMode))
		if err != nil {
			return err
		}
		host += cfg
	}
	b.WriteString(host)
	if len(losses) > 0 {
		b.WriteString("faults:\n")
		for _, l := range losses {
			fmt.Fprintf(&b, "  - {kind: loss, link: %s, rate: %s}\n", l.link, strconv.FormatFloat(l.rate, 'g', -1, 64))
		}
	}
	b.WriteString("traffic:\n  flows:\n")
	text, err := flowLines(b.String(), fp, flows, ff, topology, first)
	if err != nil {
		return err
	}
	b.Reset()
	b.WriteString(text)
	// from-ns3 writes nothing rocelab would refuse later.
	if _, err := scenario.Load("the converted scenario", []byte(b.String())); err != nil {
		return fmt.Errorf("%s: the scenario converted from it does not load: %v", file, err)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// ecnAt is the switch's ECN line from KMIN_MAP, KMAX_MAP and PMAX_MAP
// ("N RATE VALUE ...", thresholds in KB): the hosts' rate's entry, and
// each other link rate's as switch.ecn.by_rate (ns-3 marks each port at
// its rate's entry).
//
// A rate without an entry is an error when marksRead; else it is left
// out and returned in none (the host's rate: ECN off at the switches).
func ecnAt(c *ns3Config, host unit.BitRate, rates []unit.BitRate, marksRead bool) (line string, none []unit.BitRate, err error) {
	at := func(rate unit.BitRate) ([3]string, error) {
		var v [3]string
		for i, key := range []string{"KMIN_MAP", "KMAX_MAP", "PMAX_MAP"} {
			m := c.kv[key]
			n, err := strconv.Atoi(strings.Join(m[:min(1, len(m))], ""))
			if err != nil || len(m) != 1+2*n {
				return v, fmt.Errorf("%s: expected a count and that many RATE VALUE pairs", c.at(key))
			}
			for j := 0; j < n; j++ {
				r, err := strconv.ParseUint(m[1+2*j], 10, 64)
				if err != nil {
					return v, fmt.Errorf("%s %q: expected a rate in bits per second, digits only (third.cc reads a whole number)", c.at(key), m[1+2*j])
				}
				val := m[2+2*j]
				if _, err := strconv.ParseFloat(val, 64); key != "PMAX_MAP" && strings.Trim(val, "0123456789") != "" || err != nil {
					return v, fmt.Errorf("%s %q at %d bps: expected %s (third.cc reads %s)", c.at(key), val, r, map[bool]string{true: "a probability", false: "a whole number of KB"}[key == "PMAX_MAP"], map[bool]string{true: "a double", false: "a whole number, and the rest as the next word"}[key == "PMAX_MAP"])
				}
				if unit.BitRate(r) == rate {
					v[i] = val
				}
			}
			if v[i] == "" {
				return v, errNoEntry{fmt.Errorf("%s: no entry for %d bps, a rate of the topology's links: ns-3's debug build stops at third.cc's \"must set kmin for each link speed\", its optimized build marks every packet leaving a queue there (thresholds 0)", c.at(key), int64(rate))}
			}
		}
		return v, nil
	}
	// missing reports whether err is a missing entry to pass over.
	missing := func(err error, rate unit.BitRate) bool {
		var e errNoEntry
		if marksRead || !errors.As(err, &e) {
			return false
		}
		none = append(none, rate)
		return true
	}
	v, err := at(host)
	if missing(err, host) {
		return "{enabled: false}", none, nil
	}
	if err != nil {
		return "", nil, err
	}
	line = fmt.Sprintf("{kmin: %sKB, kmax: %sKB, pmax: %s, at: dequeue", v[0], v[1], v[2])
	var other []string
	for _, r := range rates {
		if r == host {
			continue
		}
		w, err := at(r)
		if missing(err, r) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		other = append(other, fmt.Sprintf("%s: {kmin: %sKB, kmax: %sKB, pmax: %s}", r, w[0], w[1], w[2]))
	}
	if len(other) > 0 {
		line += ", by_rate: {" + strings.Join(other, ", ") + "}"
	}
	return line + "}", none, nil
}

// ackEveryPacket checks that ns-3 ACKs every packet, as rocelab's
// ack_coalesce 1 does. L2_ACK_INTERVAL is bytes, not packets: rdma-hw.cc's
// ReceiverCheckSeq ACKs a packet once the QP has received that many bytes
// (its milestone is set back to L2_ACK_INTERVAL at every packet), or at
// a multiple of L2_CHUNK_SIZE; so an interval up to a flow's first packet
// ACKs every packet of it, and a larger one leaves its first packets
// without an ACK (and a flow shorter than it, not a multiple of the
// chunk, never completes).
func ackEveryPacket(c *ns3Config, payload float64, flows []ns3FlowLine) error {
	ack, err := c.num("L2_ACK_INTERVAL")
	if err != nil {
		return err
	}
	if ack == 0 {
		return fmt.Errorf("%s 0: ns-3's receivers then ACK and its senders drop every ACK (rdma-hw.cc: \"ERROR: shouldn't receive ack\"), so no flow completes; run.py writes 1", c.at("L2_ACK_INTERVAL"))
	}
	first := slices.MinFunc(flows, func(a, b ns3FlowLine) int { return cmp.Compare(a.size, b.size) })
	if most := min(payload, float64(first.size)); ack > most {
		return fmt.Errorf("%s %g: ns-3 counts it in bytes and ACKs a flow's packets only from that many bytes on (or at multiples of L2_CHUNK_SIZE), so the first packets of a flow go without an ACK (the smallest flow, %d B, its first %g B), which rocelab's ack_coalesce, every Nth packet, cannot say; %g or less ACKs every packet, as ack_coalesce 1", c.at("L2_ACK_INTERVAL"), ack, first.size, most, most)
	}
	return nil
}

// errNoEntry is a link rate that KMIN_MAP, KMAX_MAP or PMAX_MAP leaves out.
type errNoEntry struct{ error }

// ccKnobs is the host's congestion control as the config sets it: the
// knobs of CC_MODE's algorithm that config.txt carries, on the preset of
// what ns-3 builds in. HPCC and TIMELY read no ECN, so the NICs send no
// ECT (ns-3's switches mark, and its HPCC and TIMELY ignore the marks);
// DCQCN and DCTCP read the marks.
func ccKnobs(c *ns3Config, mode int) (string, error) {
	type knob struct {
		key, knob string
		conv      func(float64) float64
	}
	var (
		name, preset string
		table        []knob
		fixed        []string
	)
	switch mode {
	case ns3DCQCN:
		name, preset = "dcqcn", "mlx5"
		table = []knob{
			{"EWMA_GAIN", "dce_tcp_g", func(g float64) float64 { return 1024 - g*1024 }},
			{"ALPHA_RESUME_INTERVAL", "dce_tcp_rtt", nil},
			{"RATE_DECREASE_INTERVAL", "rate_reduce_monitor_period", nil},
			{"CLAMP_TARGET_RATE", "clamp_tgt_rate", nil},
			{"RP_TIMER", "rpg_time_reset", nil},
			{"FAST_RECOVERY_TIMES", "rpg_threshold", nil},
			{"RATE_AI", "rpg_ai_rate", nil},
			{"RATE_HAI", "rpg_hai_rate", nil},
			{"MIN_RATE", "rpg_min_rate", nil},
		}
		// The first CNP sets alpha to 1, a CNP per marked packet; the
		// CNP flag rides the ACK, in the data's queue in every switch
		// whatever ACK_HIGH_PRIO says (third.cc never sets the switches'
		// AckHighPrio).
		fixed = []string{"initial_alpha_value: 1024", "min_time_between_cnps: 0", "cnp_dscp: 26", "cnp_802p_prio: 3"}
	case ns3HPCC:
		name, preset = "hpcc", "ns3"
		table = []knob{
			{"U_TARGET", "eta", func(u float64) float64 { return math.Round(u * 1000) }},
			{"MI_THRESH", "max_stage", nil},
			{"RATE_AI", "ai_rate", nil},
			{"MIN_RATE", "min_rate", nil},
			{"FAST_REACT", "fast_react", nil},
		}
	case ns3PINT:
		name, preset = "hpcc-pint", "ns3"
		table = []knob{
			{"U_TARGET", "eta", func(u float64) float64 { return math.Round(u * 1000) }},
			{"MI_THRESH", "max_stage", nil},
			{"RATE_AI", "ai_rate", nil},
			{"MIN_RATE", "min_rate", nil},
			{"PINT_LOG_BASE", "log_base", func(b float64) float64 { return math.Round(b*1e6) / 1000 }},
		}
	case ns3DCTCP:
		// α starts at 1 and the window is the largest bandwidth-delay
		// product, as the preset has them.
		name, preset = "dctcp", "ns3"
		table = []knob{
			{"EWMA_GAIN", "g", func(g float64) float64 { return g * 1024 }},
			{"DCTCP_RATE_AI", "ai_rate", nil},
			{"MIN_RATE", "min_rate", nil},
			{"HAS_WIN", "use_window", nil},
		}
	default:
		name, preset = "timely", "ns3"
		table = []knob{
			{"RATE_AI", "ai_rate", nil},
			{"RATE_HAI", "hai_rate", nil},
			{"MIN_RATE", "min_rate", nil},
		}
	}
	parts := []string{"preset: " + preset}
	for _, k := range table {
		if _, ok := c.kv[k.key]; !ok {
			return "", fmt.Errorf("%s: %s missing (run.py writes every %s setting)", c.file, k.key, strings.ToUpper(name))
		}
		v, err := c.num(k.key)
		if err != nil {
			return "", err
		}
		if k.conv != nil {
			v = k.conv(v)
		}
		if v != math.Trunc(v) {
			return "", fmt.Errorf("%s: %g is not a whole %s: rocelab's %s.%s takes whole numbers (Mb/s for a rate), so the run cannot be written alike", c.at(k.key), v, k.knob, name, k.knob)
		}
		parts = append(parts, fmt.Sprintf("%s: %g", k.knob, v))
	}
	parts = append(parts, fixed...)
	ecn := ""
	if mode != ns3DCQCN && mode != ns3DCTCP {
		ecn = "  ecn: false\n"
	}
	return fmt.Sprintf("%s  cc: %s\n  %s: {%s}\n", ecn, name, strings.ReplaceAll(name, "-", "_"), strings.Join(parts, ", ")), nil
}

// rateSet is the distinct rates, in increasing order.
func rateSet(rates []unit.BitRate) []unit.BitRate {
	out := slices.Clone(rates)
	slices.Sort(out)
	return slices.Compact(out)
}

// ns3AlphaByRate is switch.alpha_by_rate for the ports faster than the
// NICs, as third.cc sets pfc_a_shift: 3 (alpha 1/8), one less (the share
// doubled) per doubling of the port's rate over the NICs', down to 0.
func ns3AlphaByRate(nic unit.BitRate, rates []unit.BitRate) string {
	var out []string
	for _, r := range rates {
		shift := ns3AlphaShift
		for x := r; x > nic && shift > 0; x /= 2 {
			shift--
		}
		if shift != ns3AlphaShift {
			out = append(out, fmt.Sprintf("%s: 1/%d", r, 1<<shift))
		}
	}
	return strings.Join(out, ", ")
}

// lossNote says how a lossy ns-3 link runs otherwise in rocelab.
const lossNote = "links lose packets at random (topology.txt's error rates, ERROR_RATE_PER_LINK), as loss faults here, each port by its own draws, so other packets are lost than in ns-3; both go back to the receiver's expected packet (ns-3's NACK with L2_BACK_TO_ZERO 0, rocelab's go-back-N), but ns-3's NICs have no retransmission timer and NACK an expected packet at most once per 500 us: a flow whose last packets or last ACK ns-3 loses never completes there and fct.txt leaves it out, where rocelab resends it after host.qp.timeout (4.3 s at NCCL's default)"

// linkLoss is a lossy link of the scenario: its name and error rate.
type linkLoss struct {
	link string
	rate float64
}

// linkLosses are the links that lose packets in ns-3: each link's error
// rate in topology.txt, or where that is 0, ERROR_RATE_PER_LINK (third.cc
// gives those links one error model of that rate).
func linkLosses(c *ns3Config, t *ns3Topology) ([]linkLoss, error) {
	all, err := c.num("ERROR_RATE_PER_LINK")
	if err != nil {
		return nil, err
	}
	if math.IsNaN(all) || all < 0 || all >= 1 {
		return nil, fmt.Errorf("%s %g: expected the share of packets each link loses, 0 to below 1", c.at("ERROR_RATE_PER_LINK"), all)
	}
	var out []linkLoss
	for i, e := range t.loss {
		if e == 0 {
			e = all
		}
		if e > 0 {
			out = append(out, linkLoss{t.ends[i], e})
		}
	}
	return out, nil
}

// frameNote says how much longer rocelab's data frames are than ns-3's
// packets of the payload, per byte of payload, and what that moves: the
// completions of saturated links about as much, and with DCQCN and PFC
// the pauses more (docs/engine.md, "Config shapes": with both sending
// the same frames, the pauses agree).
func frameNote(ccMode, payload float64, mtu int) string {
	ns3 := payload + ns3DataHeaders
	switch ccMode {
	case ns3Timely:
		ns3 += 8
	case ns3HPCC:
		ns3 += ns3HPCCINT // rocelab's INT is host.hpcc.int_bytes, 42 alike
	case ns3PINT:
		ns3 += 2 // and its PINT field alike
	}
	ours := float64(mtu + int(packet.Overhead(false)))
	if ccMode == ns3HPCC {
		ours += ns3HPCCINT
	} else if ccMode == ns3PINT {
		ours += 2
	}
	return fmt.Sprintf("frames: ns-3 sends %g B of payload in %g B on the wire, rocelab %d B in %g B: %+.1f %% a byte, so saturated links finish about that much later and DCQCN with PFC pauses more (docs/engine.md)",
		payload, ns3, mtu, ours, 100*(ours/float64(mtu)/(ns3/payload)-1))
}

// headroomFits refuses a topology whose largest headroom, which the
// scenario gives every switch port, leaves a switch no shared buffer
// (BUFFER_SIZE MiB), at the link that gives it, and says what ns-3 does
// there: with its own ports' headroom within the buffer it runs, so only
// the one size is at fault; past it, the free pool it computes (buffer
// less headroom, reserves and use, in unsigned 32 bits) wraps to some
// 4 GB, so that switch neither pauses nor drops, which no buffer runs
// alike. A long-haul link (1600G over 500 us, as Themis joins two data
// centres: 300 MB a port) is the case.
func headroomFits(c *ns3Config, t *ns3Topology, file string, buffer float64) error {
	size := unit.Bytes(buffer * float64(unit.MiB))
	sw, need, own, over := t.overBuffer(size)
	if !over {
		return nil
	}
	l := t.widest
	msg := fmt.Sprintf("%s:%d:%d: %v at %v: ns-3 gives each port of this link 3 x rate x delay = %d B of headroom, and the scenario every switch port the largest headroom (rocelab's is one size), so switch %s (ns-3 node %d) needs %d B with ns-3's 4 KiB reserves, past BUFFER_SIZE's %g MiB (%s)",
		file, l.line, l.col, l.rate, l.d, int64(t.headroom), sw, slices.Index(t.name, sw), int64(need), buffer, c.at("BUFFER_SIZE"))
	if t.even() {
		// no link gives more than another: the buffer is at fault
		msg = fmt.Sprintf("%s %g: switch %s (ns-3 node %d) has %d ports, each with %d B of headroom (3 x rate x delay, alike on every link) and ns-3's 4 KiB reserve: %d B, past the buffer",
			c.at("BUFFER_SIZE"), buffer, sw, slices.Index(t.name, sw), len(t.ports[sw]), int64(t.headroom), int64(need))
	}
	if own < size {
		return fmt.Errorf("%s; ns-3's own ports take %d B there, within it: give BUFFER_SIZE %d or more (MiB), or the links one delay and rate, for a run both hold alike", msg, int64(own), int64(need)/int64(unit.MiB)+1)
	}
	return fmt.Errorf("%s; ns-3's own ports take %d B there too: its free pool (buffer less headroom, reserves and use, unsigned 32 bits) wraps to some 4 GB, so that switch neither pauses nor drops, which no buffer runs alike; not converted", msg, int64(own))
}
