package scenario

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"rocelab/examples"
)

// Each bad scenario must fail with file:line:col and say what was expected.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error, the first being file:line:col
	}{
		{"unknown key", `
topology: {kind: single-switch, hosts: 2}
swtich: {buffer: 1MiB}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:1:", `unknown key "swtich"`, "expected one of:", "switch"}},
		{"unknown nested key", `
topology:
  kind: single-switch
  hosts: 2
  host_link: {rate: 100G, cabel: 3m}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:4:27:", "topology.host_link", `unknown key "cabel"`, "cable, rate"}},
		{"bad unit", `
topology: {kind: single-switch, hosts: 2, host_link: {rate: 100Q}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:1:61:", "topology.host_link.rate", "expected a positive bit rate", `"100Q"`}},
		{"zero response time", `
topology: {kind: single-switch, hosts: 2}
switch: {pfc: {response_time: 0ns}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:31:", "switch.pfc.response_time", "expected a positive time (1ps for at once), or auto"}},
		{"two thresholds", `
topology: {kind: single-switch, hosts: 2}
switch: {alpha: 1/8, static_th: 60KiB}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:33:", "switch.static_th", "alpha (a dynamic threshold) or static_th, not both"}},
		{"graph link to a missing switch", `
topology:
  kind: graph
  hosts: 2
  switches: 1
  links: [{a: h0, b: s0}, {a: h1, b: s4, rate: 400G}]
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:5:31:", "topology.links[1]", `"s4": the switches are s0..s0`}},
		{"links on a built kind", `
topology: {kind: fat-tree, k: 4, links: [{a: h0, b: s0}]}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:1:18:", "topology.links", "apply only to a graph topology"}},
		{"negative size", `
topology: {kind: single-switch, hosts: 2}
traffic: {flows: [{src: h0, dst: h1, bytes: -4KiB}]}`,
			[]string{"bad.yaml:2:45:", "traffic.flows[0].bytes", "not negative", `"-4KiB"`}},
		{"uplinks do not fit the spines", `
topology:
  kind: leaf-spine
  leaves: 4
  spines: 3
  hosts_per_leaf: 8
  uplinks_per_leaf: 8
traffic: {generators: [{kind: permutation, bytes: 1MiB}]}`,
			[]string{"bad.yaml:6:21:", "topology.uplinks_per_leaf", "cannot be spread evenly over 3 spines"}},
		{"ports exceed the radix", `
topology:
  kind: leaf-spine
  leaves: 2
  spines: 2
  hosts_per_leaf: 60
  uplinks_per_leaf: 8
  radix: 64
traffic: {generators: [{kind: permutation, bytes: 1MiB}]}`,
			[]string{"bad.yaml:5:19:", "topology.hosts_per_leaf", "more than the switch radix 64"}},
		{"host out of range", `
topology: {kind: single-switch, hosts: 4}
traffic: {flows: [{src: h0, dst: h9, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:34:", "traffic.flows[0].dst", "from h0 to h3"}},
		{"key of another topology", `
topology: {kind: fat-tree, k: 4, leaves: 2}
traffic: {generators: [{kind: permutation, bytes: 1MiB}]}`,
			[]string{"bad.yaml:1:42:", "topology.leaves", "does not apply to a fat-tree"}},
		{"odd fat-tree", `
topology: {kind: fat-tree, k: 5}
traffic: {generators: [{kind: permutation, bytes: 1MiB}]}`,
			[]string{"bad.yaml:1:31:", "topology.k", "even"}},
		{"yaml syntax", "topology: {kind: single-switch\ntraffic: [",
			[]string{"bad.yaml:"}},
		{"buffer too small for headroom", `
topology: {kind: single-switch, hosts: 64}
switch: {buffer: 1MiB}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:18:", "switch.buffer", "headroom"}},
		{"headroom over a priority group's", `
topology: {kind: single-switch, hosts: 2}
switch: {buffer: 64GiB, pfc: {headroom: 2GiB}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:41:", "switch.pfc.headroom", "at most 2147483647B"}},
		{"computed headroom over a priority group's", `
topology: {kind: single-switch, hosts: 2, host_link: {rate: 3200G, cable: 1000km}}
switch: {buffer: 1000GiB, pfc: {headroom: auto}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:43:", "switch.pfc.headroom", "3945783KiB a 3200Gbps link", "over the 2147483647B"}},
		{"empty list item", "topology: {kind: single-switch}\ntraffic:\n generators:\n -\n",
			[]string{"bad.yaml:4:4:", "traffic.generators[0]", "empty list item", "kind"}},
		{"no traffic", `topology: {kind: single-switch, hosts: 2}`,
			[]string{"bad.yaml:1:1:", "traffic", "missing"}},
		{"bad MTU", `
topology: {kind: single-switch, hosts: 2}
host: {mtu: 1500}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:13:", "host.mtu", "256, 512, 1024, 2048 or 4096"}},
		{"size beyond the parser", `
topology: {kind: single-switch, hosts: 2}
traffic: {flows: [{src: h0, dst: h1, bytes: 1e30}]}`,
			[]string{"bad.yaml:2:45:", "traffic.flows[0].bytes", `too large: at most 1PiB, got "1e30"`}},
		{"background without a job", `
topology: {kind: single-switch, hosts: 2}
workload:
  background: [{kind: tcp, name: t, src: h0, dst: h1, rate: 5G}]`,
			[]string{"bad.yaml:3:23:", "workload: expected one job: nccl_tests or training"}},
		{"size that rounds to zero", `
topology: {kind: single-switch, hosts: 2}
traffic: {flows: [{src: h0, dst: h1, bytes: 1e-9}]}`,
			[]string{"bad.yaml:2:45:", "traffic.flows[0].bytes", `below the smallest step (it would round to 0)`, `got "1e-9"`}},
		{"duration beyond the parser", `
duration: 1001h
topology: {kind: single-switch, hosts: 2}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:1:11:", "duration", `too large: at most 1000h, got "1001h"`}},
		{"rate beyond the parser", `
topology: {kind: single-switch, hosts: 2, host_link: {rate: 1e400G}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:1:61:", "topology.host_link.rate", "too large: at most 1000Tbps"}},
		{"all-to-all of one host", `
topology: {kind: single-switch, hosts: 4}
traffic: {generators: [{kind: all-to-all, hosts: [h0], bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:50:", "traffic.generators[0].hosts", "an all-to-all needs at least 2 hosts"}},
		{"topology too large to build", `
topology: {kind: fat-tree, k: 1000}
traffic: {generators: [{kind: permutation, bytes: 1MiB}]}`,
			[]string{"bad.yaml:1:31:", "topology: too large: a fat-tree of 250000000 hosts", "more than the 1048576 the twin builds"}},
		{"one host", `
topology: {kind: single-switch, hosts: 1}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:1:40:", "topology.hosts", `expected a whole number from 2 to 1048576, got "1"`}},
		{"unknown path selection", `
topology: {kind: single-switch, hosts: 2}
switch: {load_balancing: {mode: spary}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:33:", "switch.load_balancing.mode", "expected one of ecmp, flowlet, adaptive, spray", `"spary"`}},
		{"zero flowlet gap", `
topology: {kind: single-switch, hosts: 2}
switch: {load_balancing: {spine: adaptive, flowlet_gap: 0us}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:57:", "switch.load_balancing.flowlet_gap", "positive duration"}},
		{"selective repeat in order", `
topology: {kind: single-switch, hosts: 2}
host: {qp: {retransmission: selective-repeat, receive: in-order}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:56:", "host.qp.receive", "selective repeat needs", "out-of-order"}},
		{"HPCC knob out of range", `
topology: {kind: single-switch, hosts: 2}
host: {cc: hpcc, hpcc: {eta: 2000}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:25:", "host.hpcc.eta", "allowed 1..1000"}},
		{"ns-3 ECMP and fields", `
topology: {kind: single-switch, hosts: 2}
switch: {ecmp: {model: ns3, hash: [src_ip]}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:35:", "switch.ecmp.hash", "model ns3 hashes ns-3's fields"}},
		{"ns-3 port without its ECMP", `
topology: {kind: single-switch, hosts: 2}
switch: {ecmp: {dst_port: 100}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:27:", "switch.ecmp.dst_port", "read by model ns3 only"}},
		{"ns-3 ECMP with flowlets", `
topology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
switch: {ecmp: {model: ns3}, load_balancing: {mode: flowlet}}
traffic: {flows: [{src: h0, dst: h3, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:24:", "switch.ecmp.model", "ECMP by hash", "flowlet"}},
		{"ns-3 ECMP over parallel links", `
topology: {kind: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2, uplinks_per_leaf: 2}
switch: {ecmp: {model: ns3}}
traffic: {flows: [{src: h0, dst: h3, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:24:", "switch.ecmp.model", "parallel links between", "one interface per neighbour"}},
		{"unknown TIMELY knob", `
topology: {kind: single-switch, hosts: 2}
host: {cc: timely, timely: {preset: ns3, t_lo: 10}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:42:", "host.timely.t_lo", "unknown knob", "t_low"}},
		{"DCTCP knob out of range", `
topology: {kind: single-switch, hosts: 2}
host: {cc: dctcp, dctcp: {preset: ns3, g: 0}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:40:", "host.dctcp.g", "allowed 1..1024"}},
		{"unknown HPCC-PINT knob", `
topology: {kind: single-switch, hosts: 2}
host: {cc: hpcc-pint, hpcc_pint: {log: 1050}}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:35:", "host.hpcc_pint.log", "unknown knob", "log_base"}},
		{"DCTCP without ECN", `
topology: {kind: single-switch, hosts: 2}
host: {cc: dctcp, ecn: false}
traffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}`,
			[]string{"bad.yaml:2:24:", "host.ecn", "DCTCP reads the ECN marks"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(strings.TrimPrefix(c.yaml, "\n")))
			if err == nil {
				t.Fatal("accepted")
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T is not scenario.Errors: %v", err, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, c.want[0]) {
				t.Errorf("error %q does not start with %q", msg, c.want[0])
			}
			for _, w := range c.want[1:] {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// A workload in error says what is wrong once: no second error that the
// scenario has no traffic, which the workload was meant to be.
func TestWorkloadErrorAlone(t *testing.T) {
	_, err := Load("bad.yaml", []byte("topology: {kind: single-switch, hosts: 2}\nworkload:\n  background: [{kind: tcp, name: t, src: h0, dst: h1, rate: 5G}]\n"))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 {
		t.Errorf("want one error, the workload's: %v", err)
	}
}

func TestExamplesLoad(t *testing.T) {
	names, err := fs.Glob(examples.FS, "*.yaml")
	if err != nil || len(names) < 5 {
		t.Fatalf("examples: %v %v", names, err)
	}
	for _, n := range names {
		data, _ := examples.FS.ReadFile(n)
		s, err := Load(n, data)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if _, err := Build(s); err != nil {
			t.Errorf("%s: build: %v", n, err)
		}
		if !strings.HasPrefix(string(data), "# ") {
			t.Errorf("%s: an example starts with a comment saying what it shows", n)
		}
	}
}

// FuzzLoad: no input makes Load panic, and every rejection is an Errors
// list whose entries carry the file name.
func FuzzLoad(f *testing.F) {
	names, _ := fs.Glob(examples.FS, "*.yaml")
	for _, n := range names {
		data, _ := examples.FS.ReadFile(n)
		f.Add(data)
	}
	f.Add([]byte("topology: {kind: leaf-spine, leaves: 2, spines: 3, uplinks_per_leaf: 3}\ntraffic: {generators: [{kind: incast, senders: 1, receiver: h0}]}"))
	f.Add([]byte("topology: [1, 2]\n"))
	f.Add([]byte("topology: {kind: graph, hosts: 3, switches: 2, links: [{a: h0, b: s0}, {a: h1, b: s0}, {a: h2, b: s1, cable: 1m}, {a: s0, b: s1, rate: 400G, count: 2}]}\ntraffic: {generators: [{kind: incast, senders: 2, receiver: h2, bytes: 1MiB}]}"))
	f.Add([]byte("topology: {kind: leaf-spine, fabric_link: {rate: 400G}}\nswitch: {ecn: {kmin: 100KB, by_rate: {400G: {kmax: 6MB, pmax: 0.1}, 100G: {kmin: 0}}}}\ntraffic: {generators: [{kind: permutation, bytes: 1MiB}]}"))
	f.Add([]byte("a: &x {b: *x}"))
	f.Add([]byte("topology: {kind: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: 2, uplinks_per_leaf: 1, servers: {gpus: 1, nics: 1}}\nworkload: {nccl_version: 2.26.2-1+cuda12.8, nccl_tests: all_reduce_perf -b 1M -e 1M -g 1}"))
	f.Add([]byte("x-p: &p {enabled: true, priorities: [3]}\nx-l: &l {rate: 400G, cable: 30m}\ntopology: {kind: dumbbell, left: 2, right: 1, host_link: *l}\nswitch: {pfc: {<<: *p, quanta: 100}, ecn: {<<: [{kmin: 1KB}, {kmax: 9KB}]}}\ntraffic: {flows: [&f {src: h0, dst: h2, bytes: 1MiB, name: a}, {<<: *f, name: b}]}"))
	f.Add([]byte("duration: 1h\ntopology: {kind: fat-tree, k: 8}\ntraffic: {generators: [{kind: all-to-all, bytes: 1e30, rate: 400G, start: 2h}]}"))
	f.Add([]byte("topology: {kind: fat-tree, k: 4}\nswitch: {load_balancing: {mode: adaptive, core: spray, adaptive: flowlet, flowlet_gap: 1ns}}\nhost: {cc: hpcc, hpcc: {preset: paper, window: 1}, qp: {retransmission: selective-repeat, nak_threshold: 9, reorder_window: 1}}\ntraffic: {generators: [{kind: permutation, bytes: 1MiB}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Load("fuzz.yaml", data)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %T %v", err, err)
			}
			for _, e := range es {
				if e.File != "fuzz.yaml" {
					t.Fatalf("error without file: %v", e)
				}
			}
			return
		}
		if s.Topo == nil || len(s.Flows)+len(s.Generators)+len(s.Perftests) == 0 && s.Workload == nil {
			t.Fatal("accepted a scenario without topology, flows or workload")
		}
		if e := s.Estimate(); e.Events < 0 || e.Memory < 0 || e.PacketHops < 0 || e.Until < 0 {
			t.Fatalf("estimate %+v", e)
		}
	})
}
