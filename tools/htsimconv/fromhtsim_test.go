package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

// importMatrix writes matrix to a file and imports it with htsim's
// command-line flags args (-tm added).
func importMatrix(t *testing.T, matrix string, args ...string) (string, error) {
	t.Helper()
	cm := filepath.Join(t.TempDir(), "m.cm")
	if err := os.WriteFile(cm, []byte(matrix), 0o644); err != nil {
		t.Fatal(err)
	}
	var y bytes.Buffer
	err := fromHtsim(append([]string{"htsim_roce", "-tm", cm, "-strat", "ecmp_host", "-paths", "1"}, args...), nil, &y)
	return y.String(), err
}

// The ring of htsim's gen_allreduce.py goes to htsim's matrix and comes
// back the same: every flow's hosts, size and the flow it waits on.
func TestImportRoundTrip(t *testing.T) {
	var y bytes.Buffer
	if err := run([]string{"ring", "-hosts", "16", "-group", "4"}, &y, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	orig, err := scenario.Load("ring.yaml", y.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var m bytes.Buffer
	if _, err := convert(orig, 4096, 1000, "ring.yaml", &m); err != nil {
		t.Fatal(err)
	}
	out, err := importMatrix(t, m.String(), "-nodes", "16", "-linkspeed", "100000", "-hop_latency", "1", "-mtu", "4096")
	if err != nil {
		t.Fatal(err)
	}
	back, err := scenario.Load("back.yaml", []byte(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	a, b := orig.Expand(), back.Expand()
	if len(a) != len(b) {
		t.Fatalf("%d flows back, expected %d", len(b), len(a))
	}
	for i := range a {
		// htsim sends whole packets: 1 MB is 245 of 4096 B.
		if a[i].Src != b[i].Src || a[i].Dst != b[i].Dst || b[i].Bytes != (a[i].Bytes+4095)/4096*4096 || !slices.Equal(a[i].After, b[i].After) || a[i].Start != b[i].Start {
			t.Errorf("flow %d: %+v back as %+v", i, a[i], b[i])
		}
	}
	if orig.Topo.Links[0].LinkSpec != back.Topo.Links[0].LinkSpec || len(orig.Topo.Links) != len(back.Topo.Links) {
		t.Errorf("links %v (%d) back as %v (%d)", orig.Topo.Links[0].LinkSpec, len(orig.Topo.Links), back.Topo.Links[0].LinkSpec, len(back.Topo.Links))
	}
	for _, want := range []string{"static_th: 61440B", "xon_offset: 12288B", "response_time: 1ps", "ack_coalesce: 1", "phy: {clock_ppm: 0, fec_jitter: 0ns}", "mtu: 4096", "seed: 13", "duration: 1ms",
		"a packet frees its ingress count as its egress starts sending it"} {
		if !strings.Contains(out, want) {
			t.Errorf("scenario lacks %q:\n%s", want, out)
		}
	}
}

// htsim's 2-tier fat-tree of K²/2 hosts is rocelab's leaf-spine of K
// leaves and K/2 spines; 9000 B packets become RoCE's 4096 B path MTU,
// with the thresholds in htsim's packets; a size, to whole packets.
func TestImportLeafSpine(t *testing.T) {
	out, err := importMatrix(t, "Nodes 32\nConnections 2\n0->31 id 7 start 1500000 size 9000000\n5->6 id 8 start 0 size 1000\n",
		"-nodes", "32", "-tiers", "2", "-pfc_thresholds", "10", "20", "-strat", "ecmp_ar", "-end", "5000")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load("ls.yaml", []byte(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"leaves: 8, spines: 4, hosts_per_leaf: 4, uplinks_per_leaf: 4", "static_th: 180000B", "xon_offset: 90000B",
		"mtu: 4096", "adaptive: flowlet", "name: f7", "duration: 5ms",
		"name: f8, src: h5, dst: h6, bytes: 9000}", "# Sizes rounded up to whole packets of 9000 B"} {
		if !strings.Contains(out, want) {
			t.Errorf("scenario lacks %q:\n%s", want, out)
		}
	}
	if len(s.Topo.Hosts) != 32 {
		t.Errorf("%d hosts, expected 32", len(s.Topo.Hosts))
	}
}

// htsim_roce runs ecmp_ar per flowlet (its main sets FatTreeSwitch's
// _ar_sticky to PER_FLOWLET, the gap -ar_sticky_delta, 10 us by
// default), ecmp_host_ar per packet; the strategies that choose per
// packet say in the head that the two recover from reordering unlike,
// and an -ar_method other than queue (what rocelab's adaptive routing
// compares) is named, one htsim exits at refused.
func TestImportAdaptiveRouting(t *testing.T) {
	for _, c := range []struct {
		args       []string
		want, lack string
	}{
		{[]string{"-strat", "ecmp_ar"}, "load_balancing: {mode: adaptive, adaptive: flowlet, flowlet_gap: 10us}", "per packet"},
		{[]string{"-strat", "ecmp_ar", "-ar_sticky_delta", "2.5"}, "flowlet_gap: 2.5us}", "per packet"},
		{[]string{"-strat", "ecmp_host_ar", "50"}, "load_balancing: {mode: adaptive}", "flowlet"},
		// htsim's default -ar_method, queue, is what rocelab compares.
		{[]string{"-strat", "ecmp_ar", "-ar_method", "queue"}, "adaptive: flowlet", "-ar_method queue:"},
		{[]string{"-strat", "ecmp_ar", "-ar_method", "pause"}, "# -ar_method pause: htsim's adaptive routing compares whether a port is paused", "Not converted"},
		{[]string{"-strat", "ecmp_host", "-ar_method", "bandwidth"}, "name:", "-ar_method bandwidth:"},
		{[]string{"-strat", "ecmp_ar", "-ar_method", "flowcount"}, "compares the flows this switch placed on each port", "bytes sent lately"},
	} {
		out, err := importMatrix(t, "Nodes 16\nConnections 1\n0->5 id 1 start 0 size 10000\n", append([]string{"-nodes", "16"}, c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := scenario.Load("ar.yaml", []byte(out)); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if !strings.Contains(out, c.want) || strings.Contains(out, c.lack) {
			t.Errorf("%v: expected %q and no %q:\n%s", c.args, c.want, c.lack, out)
		}
		if perPacket := c.args[1] == "ecmp_host_ar"; perPacket != strings.Contains(out, "chooses a path per packet") {
			t.Errorf("%v: the head's per-packet note is %v, expected %v:\n%s", c.args, !perPacket, perPacket, out)
		}
	}
	if _, err := parseHtsimArgs([]string{"-tm", "m.cm", "-strat", "ecmp_ar", "-ar_method", "random"}); err == nil || !strings.Contains(err.Error(), "-ar_method random: htsim_roce exits") {
		t.Errorf("-ar_method random: %v, expected htsim's exit", err)
	}
	// main_hpcc.cpp knows no flowcount (main_roce.cpp alone does).
	if _, err := parseHtsimArgs([]string{"htsim_hpcc", "-tm", "m.cm", "-strat", "ecmp_ar", "-ar_method", "flowcount"}); err == nil || !strings.Contains(err.Error(), "-ar_method flowcount: htsim_hpcc exits (\"Unknown AR method\"); expected one of pause, queue, bandwidth, pqb") {
		t.Errorf("htsim_hpcc -ar_method flowcount: %v, expected htsim_hpcc's exit", err)
	}
	for _, bad := range []string{"0", "x"} {
		if _, err := parseHtsimArgs([]string{"-tm", "m.cm", "-strat", "ecmp_ar", "-ar_sticky_delta", bad}); err == nil || !strings.Contains(err.Error(), "-ar_sticky_delta") {
			t.Errorf("-ar_sticky_delta %s: %v, expected an error naming it", bad, err)
		}
	}
}

// ecmp_host_ar's fraction is read with atoi into 16 bits and asserted to
// be at least 1 (fat_tree_switch.h:124), then never used: htsim_roce
// aborted at 0, "abc", 65536 and at "-paths" read as the fraction
// (-strat ecmp_host_ar -paths 1), crashed (exit 139) with no argument
// after it, and ran -1, 1 and 200 alike (a run of each). The import
// refuses what htsim aborts at and says in the head that the fraction
// changes nothing; it had taken every one of them.
func TestImportHostARFraction(t *testing.T) {
	for _, bad := range [][]string{{"0"}, {"abc"}, {"65536"}, {"-paths", "1"}, {" +0x5"}, {"-9223372036854775809"}} {
		args := append([]string{"htsim_roce", "-tm", "m.cm", "-nodes", "16", "-strat", "ecmp_host_ar"}, bad...)
		if _, err := parseHtsimArgs(args); err == nil || !strings.Contains(err.Error(), "fails an assertion at start-up (fat_tree_switch.h:124") {
			t.Errorf("%v: %v, expected htsim's assertion", args, err)
		}
	}
	for _, prog := range []string{"htsim_roce", "htsim_hpcc"} {
		args := []string{prog, "-tm", "m.cm", "-paths", "1", "-strat", "ecmp_host_ar"}
		if _, err := parseHtsimArgs(args); err == nil || !strings.Contains(err.Error(), "argument 7: -strat ecmp_host_ar: expected its AR fraction after it ("+prog) {
			t.Errorf("%v: %v, expected the missing fraction named", args, err)
		}
	}
	for _, good := range []string{"-1", "1", "200", "12abc", "99999999999999999999"} {
		out, err := importMatrix(t, "Nodes 16\nConnections 1\n0->5 id 1 start 0 size 10000\n", "-nodes", "16", "-strat", "ecmp_host_ar", good, "-paths", "1")
		if err != nil {
			t.Fatalf("-strat ecmp_host_ar %s: %v", good, err)
		}
		if want := "# Its fraction " + good + " changes nothing: htsim's switch takes the hash's port, and on\n# half the packets (random()%100 < 50, fat_tree_switch.cpp), where that port is\n# as full as the fullest, one of the emptiest instead"; !strings.Contains(out, want) {
			t.Errorf("-strat ecmp_host_ar %s: head lacks %q:\n%s", good, want, out)
		}
	}
}

// htsim's packets become the RoCE path MTU nearest them on a log scale:
// htsim's 1500 B (an Ethernet MTU) agree as 2048 (+0.1 % on the incast's
// mean), not as 1024, the largest it holds (+4.2 %), 1100 as 1024 and
// 3000 as 4096 (TestAgreesWithHtsimVariants); the thresholds and sizes
// stay in htsim's packets.
func TestImportPathMTU(t *testing.T) {
	for _, c := range []struct {
		htsim, mtu int
	}{{100, 256}, {362, 256}, {363, 512}, {1024, 1024}, {1100, 1024}, {1448, 1024}, {1449, 2048}, {1500, 2048},
		{2048, 2048}, {3000, 4096}, {4096, 4096}, {9000, 4096}} {
		out, err := importMatrix(t, "Nodes 16\nConnections 1\n0->5 id 1 start 0 size 10000\n", "-nodes", "16", "-mtu", strconv.Itoa(c.htsim))
		if err != nil {
			t.Fatal(err)
		}
		pkts := (10000 + c.htsim - 1) / c.htsim
		for _, want := range []string{fmt.Sprintf("mtu: %d,", c.mtu), fmt.Sprintf("static_th: %dB", 15*c.htsim), fmt.Sprintf("bytes: %d}", pkts*c.htsim)} {
			if !strings.Contains(out, want) {
				t.Errorf("-mtu %d: scenario lacks %q:\n%s", c.htsim, want, out)
			}
		}
	}
}

// htsim's sources start as they are connected (roce.cpp and hpcc.cpp:
// connect calls startflow at once, its sourceIsPending(starttime) is
// commented out), so a connection's start and -start_delta move nothing:
// every imported flow starts at 0, and the scenario's head says why.
func TestImportStartsAtOnce(t *testing.T) {
	for _, args := range [][]string{{"-start_delta", "5"}, nil} {
		out, err := importMatrix(t, "Nodes 16\nConnections 2\n0->5 id 1 start 93764402 size 70256\n3->4 id 2 start 0 size 4096\n", append([]string{"-nodes", "16"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scenario.Load("s.yaml", []byte(out))
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, f := range s.Expand() {
			if f.Start != 0 {
				t.Errorf("%v: flow %s starts at %v, htsim at 0", args, f.Name, f.Start)
			}
		}
		if !strings.Contains(out, "# Every flow starts at 0, as in htsim") {
			t.Errorf("%v: the head does not say why the starts are dropped:\n%s", args, out)
		}
	}
}

// What htsim runs differently from anything rocelab can say is refused
// with where and why.
func TestImportRefuses(t *testing.T) {
	const head = "Nodes 16\nConnections 3\nTriggers 1\n"
	for _, c := range []struct {
		name, matrix string
		args         []string
		want         string
	}{
		{"oneshot of several", head + "0->1 id 1 start 0 size 10 send_done_trigger 1\n2->3 id 2 start 0 size 10 send_done_trigger 1\n4->5 id 3 trigger 1 size 10\ntrigger id 1 oneshot\n", nil, "m.cm:7:1: oneshot trigger 1 is fired by 2"},
		{"barrier short", head + "0->1 id 1 start 0 size 10 send_done_trigger 1\n2->3 id 2 start 0 size 10 send_done_trigger 1\n4->5 id 3 trigger 1 size 10\ntrigger id 1 barrier count 1\n", nil, "m.cm:7:1: barrier 1 counts 1 activations and 2 connections fire it: htsim aborts at the next"},
		{"barrier long", head + "0->1 id 1 start 0 size 10 send_done_trigger 1\n2->3 id 2 start 0 size 10 send_done_trigger 1\n4->5 id 3 trigger 1 size 10\ntrigger id 1 barrier count 3\n", nil, "m.cm:7:1: barrier 1 counts 3 activations but 2 connections fire it: it never fires, and htsim never starts the connection at line 6"},
		{"multishot short", head + "0->1 id 1 start 0 size 10 send_done_trigger 1\n2->3 id 2 trigger 1 size 10\n4->5 id 3 trigger 1 size 10\ntrigger id 1 multishot\n", nil, "m.cm:6:19: multishot trigger 1 starts its targets one at a time, one each time a connection that fires it completes, and 1 do: this, its target 2, never starts in htsim"},
		{"never fired", head + "0->1 id 1 start 0 size 10\n2->3 id 2 start 0 size 10\n4->5 id 3 trigger 1 size 10\ntrigger id 1 oneshot\n", nil, "m.cm:6:19: trigger 1: no connection fires it"},
		// htsim_roce reads a receiver's trigger and never sets it
		{"fired at the receiver", head + "0->1 id 1 start 0 size 10 recv_done_trigger 1\n2->3 id 2 start 0 size 10\n4->5 id 3 trigger 1 size 10\ntrigger id 1 oneshot\n", nil, "m.cm:6:19: trigger 1: only a recv_done_trigger names it, which htsim_roce and htsim_hpcc never fire"},
		{"no start", "Nodes 16\nConnections 1\n0->1 id 1 size 5\n", nil, "m.cm:3:17: expected start PS or trigger T"},
		{"unknown line", "Nodes 16\nConnections 1\n0->1 id 1 start 0 size 5\nlink 3\n", nil, "m.cm:4:1: \"link\": expected Nodes, Connections, Triggers, Failures, a connection SRC->DST, a trigger or a failure"},
		{"unknown key", "Nodes 16\nConnections 1\n0->1 id 1 start 0 size 5 colour red\n", nil, "m.cm:3:26: \"colour\": expected start"},
		{"count", "Nodes 16\nConnections 2\n0->1 id 1 start 0 size 5\n", nil, "m.cm:2:13: Connections 2, but the file holds 1, which htsim refuses too"},
		// htsim counts 0 without a Connections line (a run showed)
		{"no count", "Nodes 16\n0->1 id 1 start 0 size 5\n", nil, "m.cm:2:1: the first connection, but no Connections line, which htsim takes as 0, and the file holds 1"},
		{"no trigger count", "Nodes 16\nConnections 2\n0->1 id 1 start 0 size 5 send_done_trigger 1\n2->3 id 2 trigger 1 size 5\ntrigger id 1 oneshot\n", nil, "m.cm:5:1: the first trigger, but no Triggers line, which htsim takes as 0, and the file holds 1"},
		// htsim reads the header up to the first connection, trigger or
		// failure line and exits at a header key after it.
		{"Nodes after a connection", "Connections 1\n0->1 id 1 start 0 size 5\nNodes 16\n", nil, "m.cm:3:1: Nodes after the first connection, trigger or failure (line 2): htsim reads the header only before it, and exits here (\"Error: unknown id: Nodes\")"},
		{"Connections after a connection", "Nodes 16\n0->1 id 1 start 0 size 5\nConnections 1\n", nil, "m.cm:3:1: Connections after the first connection, trigger or failure (line 2): htsim reads the header only before it, and exits here (\"Error: unknown id: Connections\")"},
		{"Triggers after a trigger", "Nodes 16\nConnections 2\ntrigger id 1 oneshot\nTriggers 1\n0->1 id 1 start 0 size 5 send_done_trigger 1\n2->3 id 2 trigger 1 size 5\n", nil, "m.cm:4:1: Triggers after the first connection, trigger or failure (line 3): htsim reads the header only before it, and exits here (\"Error: unknown id: Triggers\")"},
		{"Failures after a failure", "Nodes 16\nConnections 1\nFailures 1\nfailure link_id 3\nFailures 1\n0->1 id 1 start 0 size 5\n", nil, "m.cm:5:1: Failures after the first connection, trigger or failure (line 4): htsim reads the header only before it, and exits here (\"Error: unknown id: Failures\")"},
		{"Failures after a connection", "Nodes 16\nConnections 1\n0->1 id 1 start 0 size 5\nFailures 0\n", nil, "m.cm:4:1: Failures after the first connection, trigger or failure (line 3): htsim reads the header only before it, and exits here (\"Error: unknown id: Failures\")"},
		{"trigger count", "Nodes 16\nConnections 2\nTriggers 2\n0->1 id 1 start 0 size 5 send_done_trigger 1\n2->3 id 2 trigger 1 size 5\ntrigger id 1 oneshot\n", nil, "m.cm:3:10: Triggers 2, but the file holds 1, which htsim refuses too (\"Mismatch in trigger count\")"},
		{"nodes", "Nodes 128\nConnections 1\n0->1 id 1 start 0 size 5\n", nil, "m.cm:1:7: Nodes 128, but the command line's -nodes is 16"},
		{"host", "Nodes 16\nConnections 1\n0->16 id 1 start 0 size 5\n", nil, "m.cm:3:1: \"0->16\": expected SRC->DST"},
		// Link failures htsim_roce reads and never applies (TestImportFailures);
		// what its reader exits or aborts at is refused (a run of each).
		{"failure count", "Nodes 16\nConnections 0\nFailures 1\n", nil, "m.cm:3:10: Failures 1, but the file holds 0, which htsim refuses too (\"Mismatch in failure count\")"},
		{"failure past the count", "Nodes 16\nConnections 1\n0->1 id 1 start 0 size 5\nfailure link_id 3\n", nil, "m.cm:4:1: failure 1, past the header's Failures 0: htsim aborts here"},
		{"failure attribute", "Nodes 16\nConnections 1\nFailures 1\n0->1 id 1 start 0 size 5\nfailure colour red\n", nil, "m.cm:5:9: \"colour\": expected switch_type, switch_id or link_id"},
		{"failure switch type", "Nodes 16\nConnections 1\nFailures 1\n0->1 id 1 start 0 size 5\nfailure switch_type SPINE\n", nil, "m.cm:5:21: switch_type \"SPINE\": expected TOR, AGG or CORE"},
		{"failure without a value", "Nodes 16\nConnections 1\nFailures 1\n0->1 id 1 start 0 size 5\nfailure switch_id\n", nil, "m.cm:5:18: switch_id: expected a value after it"},
		{"failure not a number", "Nodes 16\nConnections 1\nFailures 1\n0->1 id 1 start 0 size 5\nfailure switch_type AGG switch_id x link_id 0\n", nil, "m.cm:5:35: switch_id \"x\": expected a number, as htsim reads it (stoi)"},
		{"failure beyond an int", "Nodes 16\nConnections 1\nFailures 1\n0->1 id 1 start 0 size 5\nfailure link_id 99999999999\n", nil, "m.cm:5:17: link_id \"99999999999\": expected a number"},
		{"fat-tree size", "Nodes 16\n", []string{"-nodes", "20"}, "-nodes 20: a 3-tier fat-tree has k³/4 hosts"},
		{"two tiers", "Nodes 32\n", []string{"-nodes", "32"}, "1024 and on); with -tiers 2, a leaf-spine of 8 leaves, it has 32"},
		{"id 0", "Nodes 16\nConnections 1\n0->1 id 0 start 0 size 5\n", nil, "m.cm:3:9: id 0: htsim refuses it"},
		{"duplicate id", "Nodes 16\nConnections 3\n0->1 id 1 start 0 size 5\n2->3 start 0 size 5\n4->5 id 1 start 0 size 5\n", nil, "m.cm:5:1: id 1 also at line 3"},
		{"triggered without id", head + "0->1 id 1 start 0 size 10 send_done_trigger 1\n2->3 id 2 start 0 size 10\n4->5 trigger 1 size 10\ntrigger id 1 oneshot\n", nil, "m.cm:6:14: a connection a trigger starts needs an id N"},
		{"value", "Nodes 16\nConnections 1\n0->1 start 0 size\n", nil, "m.cm:3:18: size: expected a value"},
		// htsim's stoi takes an int's digits: a larger size made a negative
		// flow, and "1e6" is 1 byte there.
		{"size beyond an int", "Nodes 16\nConnections 1\n0->1 start 0 size 9223372036854775000\n", nil, "m.cm:3:19: size \"9223372036854775000\": expected a whole number from 0 to 2147483647"},
		{"size with an exponent", "Nodes 16\nConnections 1\n0->1 start 0 size 1e6\n", nil, "m.cm:3:19: size \"1e6\": expected a whole number"},
		{"id beyond an int", "Nodes 16\nConnections 1\n0->1 id 1e30 start 0 size 5\n", nil, "m.cm:3:9: id \"1e30\": expected a whole number"},
		{"start infinite", "Nodes 16\nConnections 1\n0->1 start Inf size 5\n", nil, "m.cm:3:12: start \"Inf\": expected a number that is not negative"},
		{"switch latency", "", []string{"-switch_latency", "-1"}, "-switch_latency -1: expected 0 to 100us"},
		{"flag", "", []string{"-colour", "red"}, "\"-colour\" is not an htsim_roce flag"},
		// DCQCN is no htsim_roce flag: the cause, not "not a flag" alone
		{"dcqcn", "", []string{"-dcqcn"}, "-dcqcn: not an htsim_roce flag: csg-htsim's htsim_roce has no DCQCN: its RoCE sender (roce.cpp) reacts to no ECN mark or CNP"},
		{"dcqcn readme", "", []string{"-dcqcn"}, "the \"simple models of DCTCP, DCQCN\" csg-htsim's README names were added for NDP's comparisons, the DCTCP one an old_tests program (htsim_dctcp_incast_collateral_lossless, refused as one)"},
		{"ecn", "", []string{"-strat", "ecmp_host", "-paths", "1", "-ecn"}, "-ecn: not an htsim_roce flag: csg-htsim's htsim_roce has no DCQCN"},
		{"dcqcn ratio", "", []string{"-dcqcn_ratio", "0.5"}, "-dcqcn_ratio: not an htsim_roce flag: csg-htsim's htsim_roce has no DCQCN"},
		{"strategy", "", []string{"-strat", "foo"}, "-strat foo: not a strategy of htsim_roce, which exits without one it knows"},
		// htsim's source-routed strategies abort (a run of each showed)
		{"strategy single", "", []string{"-strat", "single"}, "-strat single: htsim_roce fails an assertion as it sends its first packet"},
		{"strategy single, paths", "", []string{"-strat", "single", "-paths", "4"}, "-strat single with -paths 4: htsim_roce exits at start-up (\"Route Strategy is SINGLE_PATH, but multiple paths are specifiec using -paths\", main_roce.cpp)"},
		{"strategy single, paths 1", "", []string{"-strat", "single", "-paths", "1"}, "-strat single: htsim_roce fails an assertion"},
		{"strategy perm", "", []string{"-strat", "perm"}, "-strat perm: htsim_roce aborts at its first connection (main_roce.cpp calls abort()"},
		{"strategy ecmp", "", []string{"-strat", "ecmp"}, "-strat ecmp: htsim_roce aborts at its first connection"},
		// htsim's round robin is one counter a switch over every packet and
		// its sender goes back at every NACK: refused with why, past the
		// path count ecmp_rr sets.
		{"round robin", "", []string{"-paths", "20000", "-strat", "ecmp_rr"}, "-strat ecmp_rr: not imported, rocelab's round robin runs unlike htsim's: htsim's switches turn one counter over all packets"},
		// htsim_roce and htsim_hpcc exit at once when an ECMP strategy has
		// no path count (-paths, or the 1 ecmp_ar sets).
		{"path count", "", []string{"-paths", "20000"}, "-strat ecmp_host with -paths 20000: htsim_roce exits at once"},
		{"path count after ecmp_ar", "", []string{"-strat", "ecmp_ar", "-paths", "10001"}, "-strat ecmp_ar with -paths 10001: htsim_roce exits"},
		{"host queue swift", "", []string{"-host_queue_type", "swift"}, "-host_queue_type swift: htsim_roce crashes with it"},
		{"host queue other", "", []string{"-host_queue_type", "fifo"}, "-host_queue_type fifo: htsim_roce exits with its usage"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := importMatrix(t, c.matrix, append([]string{"-nodes", "16"}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, expected %q", err, c.want)
			}
		})
	}
}

// htsim's switch latency (a pipe between a frame's routing and its egress
// queue, in microseconds) becomes the scenario's, in the base RTT too.
func TestImportSwitchLatency(t *testing.T) {
	const m = "Nodes 16\nConnections 1\n0->15 id 1 start 0 size 4096\n"
	var rtt [2]unit.Time
	for i, us := range []string{"0", "0.5"} {
		out, err := importMatrix(t, m, "-nodes", "16", "-linkspeed", "100000", "-hop_latency", "1", "-mtu", "4096", "-switch_latency", us)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scenario.Load("lat.yaml", []byte(out))
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		rtt[i] = s.BaseRTT()
		if want := [2]unit.Time{0, 500 * unit.Nanosecond}[i]; s.Switch.Latency != want {
			t.Errorf("-switch_latency %s: switch.latency %v, want %v", us, s.Switch.Latency, want)
		}
	}
	// A 3-tier fat-tree's longest path crosses five switches.
	if d := rtt[1] - rtt[0]; d != 5*unit.Microsecond {
		t.Errorf("base RTT +%v with 0.5 µs switches, want 5 µs (two ways through five)", d)
	}
}

// Another htsim program's command line is refused by name, never read
// as htsim_roce's.
func TestImportRefusesOtherPrograms(t *testing.T) {
	for prog, want := range map[string]string{
		"/tmp/htsim/sim/datacenter/htsim_swift": "htsim_swift: only htsim_roce and htsim_hpcc runs are imported: Swift (swift.cpp) is a window of packets cut by delay",
		"htsim_ndp":                             "htsim_ndp: only htsim_roce and htsim_hpcc runs are imported: NDP (ndp.cpp) sends its first window at line rate into queues that trim",
		"htsim_eqds":                            "htsim_eqds: only htsim_roce and htsim_hpcc runs are imported: EQDS (eqds.cpp) is receiver-driven",
		"htsim_tcp":                             "htsim_tcp: only htsim_roce and htsim_hpcc runs are imported: TCP",
		"ls":                                    `"ls": expected htsim_roce, htsim_hpcc or htsim_roce's first flag`,
		// the Ultra Ethernet htsim's program, which had been told the
		// same as ls
		"./htsim_uec": "htsim_uec: only htsim_roce and htsim_hpcc runs are imported: the Ultra Ethernet transport (uec.cpp) sprays each flow's packets over path entropies",
		// sim/EXAMPLES' command lines run csg-htsim's old_tests programs
		// (collateral/run_*.sh, permutation/run.sh); they had been told
		// "expected htsim_roce, htsim_hpcc or htsim_roce's first flag"
		"../../datacenter/old_tests/htsim_dctcp_incast_collateral_lossless": "htsim_dctcp_incast_collateral_lossless: one of csg-htsim's old_tests programs (sim/datacenter/old_tests, which sim/EXAMPLES runs; most build their traffic from -conns, not a connection matrix): only htsim_roce and htsim_hpcc runs are imported: DCTCP",
		"htsim_ndp_permutation":  "htsim_ndp_permutation: one of csg-htsim's old_tests programs",
		"htsim_ndprts_alltoall":  "only htsim_roce and htsim_hpcc runs are imported: NDP (ndp.cpp)",
		"htsim_tcp_permutation":  "only htsim_roce and htsim_hpcc runs are imported: TCP (tcp.cpp, mtcp.cpp)",
		"htsim_swift_incast2b":   "only htsim_roce and htsim_hpcc runs are imported: Swift",
		"htsim_roce_permutation": `"htsim_roce_permutation": expected htsim_roce, htsim_hpcc`,
		// descendants' DCQCN programs, told as ls had been
		"../../datacenter/htsim_dcqcn_dynamic": "htsim_dcqcn_dynamic: only htsim_roce and htsim_hpcc runs are imported: csg-htsim's htsim_roce has no DCQCN",
		"htsim_dcqcn_atlahs":                   "htsim_dcqcn_atlahs: only htsim_roce and htsim_hpcc runs are imported: csg-htsim's htsim_roce has no DCQCN",
	} {
		err := fromHtsim([]string{prog, "-nodes", "16", "-strat", "ecmp_host", "-paths", "1"}, nil, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, expected %q", prog, err, want)
		}
	}
	if _, err := parseHtsimArgs([]string{"./htsim_roce", "-nodes", "16", "-tm", "m.cm", "-strat", "ecmp_host", "-paths", "1"}); err != nil {
		t.Errorf("htsim_roce by path: %v", err)
	}
	for _, args := range [][]string{{"-strat", "ecmp_host"}, {"-strat", "ecmp_host_ar", "50"}} {
		if _, err := parseHtsimArgs(append([]string{"htsim_hpcc", "-tm", "m.cm"}, args...)); err == nil || !strings.Contains(err.Error(), "without -paths: htsim_hpcc exits at once") {
			t.Errorf("%v without -paths: %v, expected htsim's exit", args, err)
		}
	}
	for _, args := range [][]string{{"-strat", "ecmp_ar"}, {"-paths", "20000", "-strat", "ecmp_ar"}} {
		if _, err := parseHtsimArgs(append([]string{"-tm", "m.cm"}, args...)); err != nil {
			t.Errorf("%v: %v (ecmp_ar sets the path count)", args, err)
		}
	}
}

// An htsim_hpcc command line becomes rocelab's HPCC with htsim's
// constants (hpcc.cpp): T 12 us, η 0.95, 5 additive stages, W_AI one
// packet a T (4096 B: 2731 Mb/s) which is also the floor, the window at
// line rate T·rate/8, run by htsim's sender (htsim: 1, cc.HTSimHPCC),
// whose pacing tick keeps its time when an ACK moves the rate
// (rate_change: next_packet). htsim_hpcc has no -tiers (its fat-tree has
// 3) and both programs default to 432 hosts (k = 12).
func TestImportHPCC(t *testing.T) {
	cm := filepath.Join(t.TempDir(), "m.cm")
	if err := os.WriteFile(cm, []byte("Nodes 432\nConnections 1\n0->431 id 1 start 0 size 4096\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var y bytes.Buffer
	if err := fromHtsim([]string{"htsim_hpcc", "-tm", cm, "-strat", "ecmp_host", "-paths", "1", "-mtu", "4096", "-linkspeed", "400000"}, nil, &y); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load("hpcc.yaml", y.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, y.String())
	}
	for _, want := range []string{"cc: hpcc", "eta: 950", "max_stage: 5", "ai_rate: 2731", "min_rate: 2731", "base_rtt: 12000", "window: 600000", "fast_react: 1", "int_bytes: 0", "htsim: 1", "rate_change: next_packet", "k: 12", "an htsim_hpcc run"} {
		if !strings.Contains(y.String(), want) {
			t.Errorf("scenario lacks %q:\n%s", want, y.String())
		}
	}
	if n := s.Host.NIC; !n.KeepPendingGap || n.HPCC.Config == nil || n.HPCC.Config.HTSim != 1 {
		t.Errorf("NIC %+v: want htsim's sender (hpcc.htsim 1) and rate_change next_packet", n)
	}
	if len(s.Topo.Hosts) != 432 {
		t.Errorf("%d hosts, expected htsim's default 432", len(s.Topo.Hosts))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"htsim_hpcc", "-tm", cm, "-strat", "ecmp_host", "-paths", "1", "-tiers", "2"}, `argument 7: "-tiers" is not an htsim_hpcc flag`},
		{[]string{"htsim_hpcc", "-tm", cm, "-strat", "perm"}, "-strat perm: htsim_hpcc aborts at its first connection (main_hpcc.cpp calls abort()"},
		{[]string{"htsim_hpcc", "-tm", cm, "-strat", "ecmp_host", "-paths", "1", "-mtu", "2000000"}, "-mtu 2000000 -linkspeed 100000: htsim's HPCC: cc: ai_rate = 1333333 out of range"},
		{[]string{"htsim_hpcc", "-tm", cm, "-strat", "ecmp_host", "-paths", "1", "-queue_type", "composite"}, "-queue_type composite: only htsim's default lossless_input"},
	} {
		if err := fromHtsim(c.args, nil, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, expected %q", c.args, err, c.want)
		}
	}
}

// htsim_hpcc prints no flow id in its completion lines (hpcc.cpp:211).
func TestReadHPCCFinishes(t *testing.T) {
	x, err := readFlowLines("h.txt", strings.NewReader("CWND1 154096 ACKNO 4096 at 5.00544 src HPCCsrc 123\nFlow HPCC_1_0 finished at 964.471 total bytes 1003520\nFlow Roce_2_0 2983 finished at 560.119 total bytes 1003520\n"))
	if err != nil || len(x) != 2 || x[0] != (htsimFinish{"HPCC_1_0", 964.471, 2, 1}) || x[1] != (htsimFinish{"Roce_2_0", 560.119, 3, 1}) {
		t.Errorf("read %+v, %v", x, err)
	}
	if _, err := readFlowLines("h.txt", strings.NewReader("Flow HPCC_1_0 finished at soon\n")); err == nil || !strings.Contains(err.Error(), `h.txt:1: finished at "soon"`) {
		t.Errorf("error %v", err)
	}
}

// FuzzParseHtsimArgs: any command line is read or refused with an error,
// never a panic, and what is read names a fat-tree rocelab builds.
// htsim reads -seed with atoi and prints it signed ("random seed -5"); a
// rocelab scenario's seed is not negative, and from-htsim had written
// "seed: -5", which no scenario loads.
func TestImportNegativeSeed(t *testing.T) {
	args := []string{"htsim_roce", "-tm", "m.cm", "-nodes", "16", "-seed", "-5"}
	if _, err := parseHtsimArgs(args); err == nil || !strings.Contains(err.Error(), "argument 6: -seed -5: expected a seed from 0: htsim_roce seeds its random() with it and prints it signed") {
		t.Errorf("%v: %v, expected the negative seed refused", args, err)
	}
}

// A flag without its value is refused at its argument, as an unknown
// flag is.
func TestImportFlagWithoutValue(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"htsim_roce", "-nodes", "16", "-tm"}, "argument 3: -tm: expected 1 value(s) after it"},
		{[]string{"-nodes", "16", "-pfc_thresholds", "12"}, "argument 3: -pfc_thresholds: expected 2 value(s) after it"},
	} {
		if _, err := parseHtsimArgs(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, expected %q", c.args, err, c.want)
		}
	}
}

func FuzzParseHtsimArgs(f *testing.F) {
	f.Add("htsim_roce -nodes 128 -tiers 3 -tm m.cm -strat ecmp_host -paths 1 -linkspeed 100000 -mtu 4096 -hop_latency 1 -q 1000 -end 1000000 -seed 1")
	f.Add("htsim_hpcc -nodes 128 -tm m.cm -strat ecmp_host -paths 1 -linkspeed 100000 -mtu 4096 -hop_latency 1 -q 1000 -end 1000000 -seed 3")
	f.Add("htsim_hpcc -tm m.cm -strat ecmp_host_ar 50 -pfc_thresholds 10 20 -switch_latency 0.5")
	f.Add("-nodes 16 -tm m.cm -strat ecmp_rr -tiers 2")
	f.Add("htsim_roce -tm m.cm -strat ecmp_host_ar -paths 1")
	f.Add("htsim_roce -tm m.cm -paths 1 -strat ecmp_host_ar")
	f.Add("htsim_roce -tm m.cm -strat ecmp_host_ar -99999999999999999999 -paths 1")
	f.Add("htsim_roce -tm m.cm -seed -5")
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseHtsimArgs(strings.Fields(line))
		if err != nil {
			return
		}
		if r.program != "htsim_roce" && r.program != "htsim_hpcc" || r.mtu <= 0 || r.pfcHigh <= r.pfcLow || r.seed < 0 {
			t.Fatalf("read %+v", r)
		}
		if r.program == "htsim_hpcc" {
			if k, err := r.hpccKnobs(); err != nil || !strings.Contains(k, "base_rtt: 12000") {
				t.Fatalf("knobs %s, %v", k, err)
			}
		}
		_, _ = r.topology()
	})
}

// compare runs an imported scenario beside htsim's own output: the same
// 127 flows, each statistic within the agreement test's bounds.
func TestCompare(t *testing.T) {
	file := filepath.Join(t.TempDir(), "incast.yaml")
	var y bytes.Buffer
	head, err := os.ReadFile("testdata/htsim/incast127-seed1.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, cmd, _ := strings.Cut(string(head), "# run: ")
	cmd, _, _ = strings.Cut(cmd, " (")
	orig, err := scenario.LoadFile("scenarios/agree-incast127.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m bytes.Buffer
	if _, err := convert(orig, 4096, 1000, "agree", &m); err != nil {
		t.Fatal(err)
	}
	cm := filepath.Join(t.TempDir(), "m.cm")
	if err := os.WriteFile(cm, m.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fromHtsim(strings.Fields(strings.Replace(cmd, "FILE.cm", cm, 1)), nil, &y); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"compare", file, "testdata/htsim/incast127-seed1.txt"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	// one size: no buckets by size rank, whose split would be the order
	// of the flows
	if strings.Contains(text, "warning") || !strings.Contains(text, "127 flows") || strings.Count(text, "%\n") != 4 {
		t.Errorf("compare printed:\n%s", text)
	}
}

// FuzzReadFinishes: any htsim output is read or refused with an error,
// never a panic, and what is read is a completion time.
func FuzzReadFinishes(f *testing.F) {
	f.Add("Flow Roce_1_0 2980 finished at 524.177 total bytes 1003520\n")
	f.Add("Nodes: 128 Connections: 127\nFlow Roce_2_0 2983 finished at -1 total bytes 1\n")
	f.Add("Flow Roce_1_0 1 finished at NaN total bytes 1\n")
	f.Add("Flow HPCC_1_0 finished at 964.471 total bytes 1003520\nFlow HPCC_2_0 finished at\n")
	f.Fuzz(func(t *testing.T, text string) {
		x, err := readFinishes("h.txt", strings.NewReader(text))
		for _, v := range x {
			if err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
				t.Fatalf("read %v", v)
			}
		}
	})
}

// htsim's -q and -host_queue_type prio change nothing in its run (its
// lossless queues keep what passes -q; senders at line rate reach the
// host's queue in turn, so FIFO serves them as fair_prio does): they
// import as the defaults do, and the head says why.
func TestImportQueueOptions(t *testing.T) {
	const m = "Nodes 16\nConnections 2\n0->5 id 1 start 0 size 40960\n0->9 id 2 start 0 size 40960\n"
	base, err := importMatrix(t, m, "-nodes", "16")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"-q", "8"}, "# -q 8 changes nothing: htsim's lossless queues never drop"},
		{[]string{"-host_queue_type", "prio"}, "# -host_queue_type prio: the hosts' queue serves ACKs first"},
		{[]string{"-host_queue_type", "fair_prio"}, ""},
	} {
		got, err := importMatrix(t, m, append([]string{"-nodes", "16"}, c.args...)...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if c.note != "" && !strings.Contains(got, c.note) {
			t.Errorf("%v: no %q in the head:\n%s", c.args, c.note, got)
		}
		if strings.Contains(got, "Not converted") {
			t.Errorf("%v: listed as not converted:\n%s", c.args, got)
		}
		if body := func(y string) string { return y[strings.Index(y, "\nname:"):] }; body(got) != body(base) {
			t.Errorf("%v: imported otherwise than the defaults:\n%s", c.args, got)
		}
	}
}
