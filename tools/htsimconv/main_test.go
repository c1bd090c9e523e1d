package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/scenario"
	"rocelab/tools/internal/agree"
)

// convertYAML loads a scenario and converts it at 4 KB.
func convertYAML(t *testing.T, y string) (string, string, error) {
	t.Helper()
	s, err := scenario.Load("s.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd, err := convert(s, 4096, 1000, "s.yaml", &out)
	return out.String(), cmd, err
}

// The ring of htsim's gen_allreduce.py: 8 rings of 16 on 128 hosts, each
// host heading a chain of 31 transfers, so 3968 connections and one
// oneshot trigger between each pair of consecutive links of a chain.
func TestRingChains(t *testing.T) {
	var y bytes.Buffer
	if err := run([]string{"ring"}, &y, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	m, cmd, err := convertYAML(t, y.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Nodes 128\n", "Connections 3968\n", "Triggers 3840\n", "trigger id 3840 oneshot\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("matrix lacks %q", want)
		}
	}
	lines := strings.Split(m, "\n")
	// The first chain: its head starts at 0 and fires trigger 1, which
	// starts its second link, whose sender is the head's receiver.
	first, second := strings.Fields(lines[3]), strings.Fields(lines[4])
	if first[3] != "start" || first[len(first)-2] != "send_done_trigger" || first[len(first)-1] != "1" {
		t.Errorf("chain head: %q", lines[3])
	}
	if second[3] != "trigger" || second[4] != "1" || strings.Split(first[0], "->")[1] != strings.Split(second[0], "->")[0] {
		t.Errorf("second link: %q after %q", lines[4], lines[3])
	}
	for _, want := range []string{"-nodes 128 ", "-mtu 4096 ", "-hop_latency 1 ", "-linkspeed 100000 ", "3968 flows, 3968000000 bytes, 972160 packets of 4096 B"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %q", cmd, want)
		}
	}
}

// A flow waiting on two others starts on a barrier both fire.
func TestBarrier(t *testing.T) {
	m, _, err := convertYAML(t, `
name: join
topology: {kind: fat-tree, k: 4}
host: {cc: none}
traffic:
  flows:
    - {name: a, src: h0, dst: h1, bytes: 4KB}
    - {name: b, src: h2, dst: h3, bytes: 4KB}
    - {name: c, src: h1, dst: h3, bytes: 8KB, after: [a, b]}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := `Nodes 16
Connections 3
Triggers 1
0->1 id 1 start 0 size 4000 send_done_trigger 1
2->3 id 2 start 0 size 4000 send_done_trigger 1
1->3 id 3 trigger 1 size 8000
trigger id 1 barrier count 2
`
	if m != want {
		t.Errorf("matrix:\n%s\nwant:\n%s", m, want)
	}
}

// What htsim_roce cannot run is refused, saying why.
func TestRefused(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"name: x\ntopology: {kind: single-switch, hosts: 4}\nhost: {cc: none}\ntraffic: {generators: [{kind: permutation, bytes: 1MB}]}\n", "builds only fat-trees"},
		{"name: x\ntopology: {kind: fat-tree, k: 4}\nhost: {cc: dcqcn}\ntraffic: {generators: [{kind: permutation, bytes: 1MB}]}\n", "set cc: none"},
		{"name: x\ntopology: {kind: fat-tree, k: 4}\nhost: {cc: none}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MB, start: 10us}]}\n", "starts at 10us: htsim_roce starts every connection as it is connected"},
		{"name: x\ntopology: {kind: fat-tree, k: 4}\nhost: {cc: none}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 2GiB}]}\n", "flow flow0 of 2147483648 B: htsim reads a connection's size with stoi"},
		{"name: x\ntopology: {kind: fat-tree, k: 4}\nhost: {cc: none}\ntraffic: {flows: [{name: a, src: h0, dst: h1, bytes: 1MB}, {name: b, src: h2, dst: h1, bytes: 1MB}, {name: c, src: h1, dst: h3, bytes: 1MB, after: [a, b], after_count: 1}]}\n", "flow c starts when 1 of the 2 flows it waits on have completed"},
	} {
		if _, _, err := convertYAML(t, c.yaml); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// A scenario set as htsim runs (a static threshold of whole packets, no
// reserve, PFC obeyed on receipt, every packet ACKed, ideal links) gets
// htsim's -pfc_thresholds and no note; rocelab's defaults get a note for
// each setting that makes the two runs differ, and what to set.
func TestConvertSaysWhatIsNotAlike(t *testing.T) {
	const flows = "traffic: {generators: [{kind: permutation, bytes: 1MB}]}\n"
	const topo = "name: x\ntopology: {kind: fat-tree, k: 4}\n"
	_, cmd, err := convertYAML(t, topo+"switch: {static_th: 61440B, reserve: 0, pfc: {xon_offset: 12288B, response_time: 1ps}}\n"+
		"phy: {clock_ppm: 0, fec_jitter: 0ns}\nhost: {cc: none, mtu: 4096, qp: {ack_coalesce: 1, order: index}}\n"+flows)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cmd, " -pfc_thresholds 12 15 ") || strings.Contains(cmd, "not alike") {
		t.Errorf("htsim's settings: command %q, expected -pfc_thresholds 12 15 and no note", cmd)
	}
	_, cmd, err = convertYAML(t, topo+"host: {cc: none}\n"+flows)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"set switch.static_th", "response_time: set 1ps", "ack_coalesce: set 1", "host.qp.order: set index", "phy: set {clock_ppm: 0, fec_jitter: 0ns}"} {
		if !strings.Contains(cmd, "\n# not alike, the same work only: ") || !strings.Contains(cmd, want) {
			t.Errorf("defaults: command %q lacks the note %q", cmd, want)
		}
	}
	if strings.Contains(cmd, " -pfc_thresholds ") {
		t.Errorf("defaults: %q gives thresholds for a dynamic threshold", cmd)
	}
	// XON at the XOFF threshold (xon_offset 0) has no -pfc_thresholds
	// that from-htsim would read back: it wants low < high.
	_, cmd, err = convertYAML(t, topo+"switch: {static_th: 61440B, reserve: 0, pfc: {xon_offset: 0B, response_time: 1ps}}\n"+
		"phy: {clock_ppm: 0, fec_jitter: 0ns}\nhost: {cc: none, mtu: 4096, qp: {ack_coalesce: 1, order: index}}\n"+flows)
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(cmd, "\n"); strings.Contains(first, " -pfc_thresholds ") || !strings.Contains(cmd, "pfc.xon_offset 0B") {
		t.Errorf("xon_offset 0: command %q, expected no -pfc_thresholds and a note", cmd)
	}
}

// The packet count the converter prints is what both simulators send:
// htsim's recorded runs of the same matrices (the bytes each flow's
// source sent, in whole packets of -mtu) and rocelab's data packets on
// the incast. Each flow is rounded up to whole packets alone: 1 MB is
// 245 packets of 4096 B, so the 127-flow incast sends 31115, not the
// 31006 of its total bytes rounded up once.
func TestPacketCountAsSent(t *testing.T) {
	for _, c := range []struct{ scenario, htsim string }{
		{"scenarios/agree-incast127.yaml", "testdata/htsim/incast127-seed1.txt"},
		{"scenarios/agree-perm128.yaml", "testdata/htsim/perm128-seed1.txt"},
	} {
		y, err := os.ReadFile(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scenario.Load(c.scenario, y)
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := convert(s, 4096, 1000, c.scenario, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var printed int64
		if _, err := fmt.Sscanf(cmd[strings.Index(cmd, "bytes, ")+len("bytes, "):], "%d packets", &printed); err != nil {
			t.Fatalf("%s: %q: %v", c.scenario, cmd, err)
		}
		h, err := os.ReadFile(c.htsim)
		if err != nil {
			t.Fatal(err)
		}
		var sent int64
		for _, l := range strings.Split(string(h), "\n") {
			if fs := strings.Fields(l); len(fs) == 9 && fs[0] == "Flow" && fs[7] == "bytes" {
				n, err := strconv.ParseInt(fs[8], 10, 64)
				if err != nil || n%4096 != 0 {
					t.Fatalf("%s: %q: expected whole packets of 4096 B", c.htsim, l)
				}
				sent += n / 4096
			}
		}
		if printed != sent {
			t.Errorf("%s: the converter prints %d packets, htsim sent %d (%s)", c.scenario, printed, sent, c.htsim)
		}
		if strings.Contains(c.scenario, "incast") {
			o, err := agree.RunScenario(s)
			if err != nil {
				t.Fatal(err)
			}
			if o.Totals.Sent.Packets != printed {
				t.Errorf("%s: the converter prints %d packets, rocelab sent %d", c.scenario, printed, o.Totals.Sent.Packets)
			}
		}
	}
}
