package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// writeFiles converts the scenario file into a temporary directory and
// returns the files' text by name.
func writeFiles(t *testing.T, file string, args ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	var stderr bytes.Buffer
	if err := run(append(append([]string{"-dir", dir}, args...), file), io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "cd "+dir+" && ") {
		t.Errorf("command line %q", stderr.String())
	}
	out := map[string]string{}
	for _, n := range []string{"config.txt", "topology.txt", "flow.txt", "trace.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// The incast's files: 44 nodes, the 12 switches after the 32 hosts, 64
// links of 100G and 1000 ns, 16 flows to node 0 on priority 3 at time 0,
// and the configuration keys that carry the scenario's settings.
func TestIncastFiles(t *testing.T) {
	f := writeFiles(t, "scenarios/incast16-dcqcn.yaml")
	top := strings.Split(f["topology.txt"], "\n")
	if top[0] != "44 12 64" || top[1] != "32 33 34 35 36 37 38 39 40 41 42 43" || top[2] != "0 32 100000000000bps 1000ns 0" {
		t.Errorf("topology head:\n%s", strings.Join(top[:3], "\n"))
	}
	if n := len(top) - 3; n != 64 {
		t.Errorf("%d links, want 64", n)
	}
	fl := strings.Split(strings.TrimSpace(f["flow.txt"]), "\n")
	if fl[0] != "16" || fl[1] != "8 0 3 101 2000000 0.000000000" || fl[16] != "23 0 3 101 2000000 0.000000000" {
		t.Errorf("flows:\n%s", f["flow.txt"])
	}
	for _, want := range []string{
		"ENABLE_QCN 1\n", "PACKET_PAYLOAD_SIZE 4096\n", "CC_MODE 1\n", "SIMULATOR_STOP_TIME 0.100000000\n",
		"ALPHA_RESUME_INTERVAL 1\n", "RATE_DECREASE_INTERVAL 4\n", "CLAMP_TARGET_RATE 0\n", "RP_TIMER 300\n",
		"EWMA_GAIN 0.00390625\n", "FAST_RECOVERY_TIMES 1\n", "RATE_AI 20Mb/s\n", "RATE_HAI 200Mb/s\n", "MIN_RATE 1000Mb/s\n",
		"L2_ACK_INTERVAL 1\n", "L2_BACK_TO_ZERO 0\n", "HAS_WIN 0\n",
		"KMAX_MAP 1 100000000000 1600\n", "KMIN_MAP 1 100000000000 400\n", "PMAX_MAP 1 100000000000 0.2\n", "BUFFER_SIZE 32\n",
	} {
		if !strings.Contains(f["config.txt"], want) {
			t.Errorf("config.txt lacks %q", want)
		}
	}
	if p := writeFiles(t, "scenarios/incast16-pfc.yaml")["config.txt"]; !strings.Contains(p, "ENABLE_QCN 0\n") {
		t.Errorf("PFC-only config marks ECN:\n%s", p)
	}
}

// INT_MULTI is run.py's bw/25 unless its byte unit (128 × INT_MULTI)
// would exceed an HPCC data packet (payload and 90 B: the model's
// PppHeader is 14 bytes; when the converter took it as PPP's 2,
// the boundary at 400G was 1970 B, where 2048 B is 1970 + 78).
func TestNs3IntMulti(t *testing.T) {
	for _, c := range []struct {
		gbps    int64
		payload int
		want    int64
	}{
		{25, 1024, 1}, {50, 1024, 2}, {100, 1024, 4}, {100, 4096, 4}, {200, 1024, 8},
		{400, 1024, 8}, {400, 4096, 16}, {400, 256, 2}, {400, 1958, 16}, {400, 1957, 15}, {10, 256, 1},
	} {
		if got := ns3IntMulti(unit.BitRate(c.gbps)*unit.Gbps, c.payload); got != c.want {
			t.Errorf("%dG, %d B payloads: INT_MULTI %d, want %d", c.gbps, c.payload, got, c.want)
		}
	}
}

// A host pair's flows get sports from 10000 in start order, which is
// flow.txt's order; the seed flag redraws a permutation.
func TestFlowOrder(t *testing.T) {
	s, err := scenario.Load("s.yaml", []byte(`
name: order
topology: {kind: single-switch, hosts: 3}
traffic:
  flows:
    - {name: late, src: h0, dst: h1, bytes: 1MB, start: 5us}
    - {name: early, src: h0, dst: h1, bytes: 2MB}
    - {name: other, src: h2, dst: h1, bytes: 1MB, start: 1us}
`))
	if err != nil {
		t.Fatal(err)
	}
	var bad mismatches
	got := flows(s, &bad)
	var names []string
	for _, f := range got {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "early other late" || got[0].sport != 10000 || got[1].sport != 10000 || got[2].sport != 10001 {
		t.Errorf("order %v, sports %d %d %d", names, got[0].sport, got[1].sport, got[2].sport)
	}
	a := writeFiles(t, "scenarios/perm32-dcqcn.yaml", "-seed", "1")["flow.txt"]
	b := writeFiles(t, "scenarios/perm32-dcqcn.yaml", "-seed", "2")["flow.txt"]
	if a == b {
		t.Error("seeds 1 and 2 drew the same permutation")
	}
}

// What ns-3 cannot follow is refused, every setting named at once.
func TestRefused(t *testing.T) {
	s, err := scenario.Load("s.yaml", []byte(`
name: defaults
topology: {kind: fat-tree, k: 4}
switch: {latency: 500ns}
traffic:
  flows:
    - {name: a, src: h0, dst: h1, bytes: 1MB}
    - {name: b, src: h1, dst: h2, bytes: 1MB, after: [a]}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = convert(s, "s.yaml")
	if err == nil {
		t.Fatal("rocelab's defaults converted")
	}
	for _, want := range []string{
		"switch.pfc.headroom: set 561 (", "switch.alpha: set 1/8", "switch.reserve: set 4KiB", "switch.pfc.xon_offset: set 3KiB",
		"switch.latency: set 0", "switch.pfc.response_time", "host.qp.ack_coalesce: set 1", "host.rx.pfc: set false", "phy: set",
		"host.dcqcn.initial_alpha_value: set 1024", "host.dcqcn.min_time_between_cnps: set 0", "flow b waits on another",
		"host.qp.rate_change: set next_packet", "host.qp.order: set index",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// HPCC's pacing that re-times only rises is refused: ns-3's ChangeRate
// re-times cuts too.
func TestRefusedHPCCRetime(t *testing.T) {
	base, err := os.ReadFile("scenarios/incast16-hpcc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(base), "rate_change: retime_all}", "rate_change: retime}", 1)
	if text == string(base) {
		t.Fatal("scenario has no rate_change: retime_all}")
	}
	s, err := scenario.Load("s.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := convert(s, "s.yaml"); err == nil || !strings.Contains(err.Error(), "host.qp.rate_change: set retime_all") {
		t.Errorf("error %v, expected host.qp.rate_change: set retime_all", err)
	}
}

// The congestion controls' settings ns-3 cannot be told are refused, each
// named; a CNP priority that is neither strict nor the data's too.
func TestRefusedCC(t *testing.T) {
	base, err := os.ReadFile("scenarios/incast16-dcqcn.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const dcqcn = "cnp_dscp: 26, cnp_802p_prio: 3}"
	for _, c := range []struct{ name, from, to, want string }{
		{"cnp priority", dcqcn, "cnp_dscp: 40, cnp_802p_prio: 5}", "set the data's priority, 3: ns-3's CNP is a flag on an ACK"},
		{"strict cnp", dcqcn, "cnp_dscp: 48, cnp_802p_prio: 6}", "set the data's priority, 3"},
		{"cnp dscp", dcqcn, "cnp_dscp: 26, cnp_802p_prio: 6}", "the CNP's DSCP must map to its priority"},
		{"hpcc window", "  cc: dcqcn\n", "  ecn: false\n  cc: hpcc\n  hpcc: {window: 100000, base_rtt: 5000}\n", "host.hpcc.base_rtt: set 0"},
		{"hpcc ecn", "  cc: dcqcn\n", "  ecn: true\n  cc: hpcc\n", "host.ecn: set false with cc: hpcc"},
		{"timely", "  cc: dcqcn\n", "  ecn: false\n  cc: timely\n  timely: {preset: ns3, alpha: 20, segment: 16384}\n", "host.timely.segment: set 0"},
		{"dcqcn pacing", "rate_change: next_packet", "rate_change: retime", "host.qp.rate_change: set next_packet"},
		{"qp order", "order: index", "order: ready", "host.qp.order: set index (ns-3's NIC takes its QPs round robin"},
		{"hpcc pacing", "  cc: dcqcn\n", "  ecn: false\n  cc: hpcc\n", "host.qp.rate_change: set retime_all (ns-3's hpcc re-times"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(string(base), c.from, c.to, 1)
			if text == string(base) {
				t.Fatalf("scenario has no %q", c.from)
			}
			s, err := scenario.Load("s.yaml", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			_, err = convert(s, "s.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, expected %q", err, c.want)
			}
		})
	}
}

// A loss fault for the whole run, frames lost one by one, is ns-3's link
// error rate (topology.txt's fifth column: each packet arriving at either
// end lost at that rate) and comes back from from-ns3 as the same fault;
// faults ns-3 cannot run are refused, each named.
func TestLossFaults(t *testing.T) {
	text, err := os.ReadFile("scenarios/incast16-pfc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lossy := string(text) + "faults:\n  - {kind: loss, link: h0, rate: 0.0001}\n  - {kind: loss, link: leaf1-spine2, rate: 2e-5}\n"
	file := filepath.Join(t.TempDir(), "lossy.yaml")
	if err := os.WriteFile(file, []byte(lossy), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, y := importScenario(t, file, 1)
	top, err := os.ReadFile(filepath.Join(dir, "topology.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// h0 is ns-3's node 0, leaf0 node 32, leaf1 33, spine2 38
	for _, want := range []string{"\n0 32 100000000000bps 1000ns 0.0001\n", "\n33 38 100000000000bps 1000ns 2e-05\n"} {
		if !strings.Contains(string(top), want) {
			t.Errorf("topology.txt lacks %q", want)
		}
	}
	if n := strings.Count(string(top), "ns 0\n"); n != strings.Count(string(top), "ns ")-2 {
		t.Errorf("%d links written lossless, want all but 2:\n%s", n, top)
	}
	for _, want := range []string{"  - {kind: loss, link: h0-s0, rate: 0.0001}\n", "  - {kind: loss, link: s1-s6, rate: 2e-05}\n"} {
		if !strings.Contains(y, want) {
			t.Errorf("from-ns3 lacks %q:\n%s", want, y)
		}
	}
	for _, c := range []struct{ fault, want string }{
		{"{kind: loss, link: h0, rate: 0.01, burst: 4}", "faults[0]: losses in bursts of 4"},
		{"{kind: loss, link: h0, rate: 0.01, start: 1ms}", "faults[0]: a loss for part of the run (start 1ms, end 0s;"},
		{"{kind: pause_storm, host: h3, start: 1ms, end: 2ms}", "faults[0]: a pause_storm fault"},
		{"{kind: link_down, link: h3, start: 1ms}", "faults[0]: a link_down fault"},
	} {
		s, err := scenario.Load("s.yaml", []byte(string(text)+"faults:\n  - "+c.fault+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := convert(s, "s.yaml"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.fault, err, c.want)
		}
	}
}

// Flows on several priorities convert only where rocelab's switches serve
// them as ns-3's do, queues 1-7 a packet each in turn
// (BEgressQueue::DequeueRR); priority 0, ns-3's control queue outside its
// MMU, never.
func TestPrioritiesScheduled(t *testing.T) {
	text, err := os.ReadFile("scenarios/incast16-pfc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base, _, _ := strings.Cut(string(text), "traffic:")
	base = strings.Replace(base, "pfc: {", "pfc: {priorities: [0, 3, 4, 6], ", 1)
	base = strings.Replace(base, "ecn: {", "ecn: {priorities: [0, 3, 4, 6], ", 1)
	for _, c := range []struct{ sched, prios, want string }{
		{"", "3, 4", ""},
		{"", "3, 4, 4", "flows a and c leave one host on priorities 3 and 4"},
		{"", "3, 6", "priority 6 is strict here"},
		{"  scheduler: {strict: [0]}\n", "0, 3", "flows on priority 0, ns-3's queue 0"},
		{"", "0, 0", "flows on priority 0, ns-3's queue 0"},
		{"  scheduler: {weights: [1, 1, 1, 2, 1, 1, 1, 1]}\n", "3, 4", "weigh them alike (priority 4: 1, against 2)"},
		{"  scheduler: {weights: [1, 1, 1, 2, 1, 1, 1, 1]}\n", "3, 3", ""},
	} {
		y := strings.Replace(base, "switch:\n", "switch:\n"+c.sched, 1) + "traffic:\n  flows:\n"
		for i, p := range strings.Split(c.prios, ", ") {
			// a from h1, b from h2, c from h1 again
			y += fmt.Sprintf("    - {name: %c, src: h%d, dst: h0, bytes: 1MB, priority: %s}\n", 'a'+i, 1+i%2, p)
		}
		s, err := scenario.Load("s.yaml", []byte(y))
		if err != nil {
			t.Fatalf("%v\n%s", err, y)
		}
		_, err = convert(s, "s.yaml")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("priorities %s, %q: %v", c.prios, c.sched, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("priorities %s, %q: got %v, want %q", c.prios, c.sched, err, c.want)
		}
	}
}

// A scenario without flows (examples/gdr.yaml, a workload only) is
// refused for its settings, not by a panic of the scheduler's check,
// which has no priority to look at.
func TestNoFlows(t *testing.T) {
	var bad mismatches
	checkScheduler(scenario.SwitchSpec{}, nil, &bad)
	if len(bad) != 0 {
		t.Errorf("no flows: %q", bad)
	}
	text, err := os.ReadFile("../../examples/gdr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load("gdr.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := convert(s, "gdr.yaml"); err == nil || !strings.Contains(err.Error(), "cannot run this scenario") {
		t.Errorf("gdr.yaml: %v", err)
	}
}
