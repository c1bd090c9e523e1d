package scenario

import (
	"strings"
	"testing"
)

// A key, value or knob an engineer misspells, or writes as another tool
// names it, is refused with the one it was meant to be.
func TestBadInputSuggests(t *testing.T) {
	flow := "\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}"
	for _, c := range []struct{ name, yaml, want string }{
		{"singular of a list key", "topology: {kind: single-switch, hosts: 2}\nswitch: {pfc: {priority: [3]}}" + flow,
			`bad.yaml:2:16: switch.pfc: unknown key "priority"; expected one of: asic, cell_occupancy, cell_size, enabled, formula, headroom, lossless_mtu, mac_phy_delay, mtu, priorities, quanta, refresh, response_time, small_packet_percentage, xon, xon_offset; did you mean "priorities"?`},
		{"WRED's name for kmax", "topology: {kind: single-switch, hosts: 2}\nswitch: {ecn: {kmin: 100KB, max_th: 1MB}}" + flow,
			`did you mean "kmax"?`},
		{"a letter dropped", "topology: {kind: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: 2, uplinks_per_leaf: 1, servers: {gpus: 1, nics: 1}}\nworkload: {nccl_test: all_reduce_perf -b 1M -e 1M -g 1}",
			`bad.yaml:2:12: workload: unknown key "nccl_test"; expected one of: background, nccl_tests, nccl_version, servers, training; did you mean "nccl_tests"?`},
		{"a value in capitals", "topology: {kind: single-switch, hosts: 2}\nhost: {cc: DCQCN}" + flow,
			`bad.yaml:2:12: host.cc: expected one of dcqcn, timely, hpcc, hpcc-pint, dctcp, none, got "DCQCN"; did you mean "dcqcn"?`},
		{"a fault by its incident name", "topology: {kind: single-switch, hosts: 2}" + flow + "\nfaults: [{kind: link_flap, link: h0, start: 1ms, end: 2ms}]",
			`faults[0].kind: expected one of pause_storm, loss, link_down, route, got "link_flap"; did you mean "link_down"?`},
		{"an irregular plural", "topology: {kind: leaf-spine, leafs: 2, spines: 1, hosts_per_leaf: 2}" + flow,
			`unknown key "leafs"; expected one of: fabric_link, host_link, hosts, hosts_per_leaf, k, kind, leaves, left, links, oversubscription, radix, right, servers, spines, switches, trunk_links, uplinks_per_leaf; did you mean "leaves"?`},
		{"a DCQCN knob misspelt", "topology: {kind: single-switch, hosts: 2}\nhost: {dcqcn: {rpg_time_rest: 300}}" + flow,
			`did you mean "rpg_time_reset"?`},
		{"an ECN profile key per rate", "topology: {kind: single-switch, hosts: 2}\nswitch: {ecn: {by_rate: {100G: {min_th: 5KB}}}}" + flow,
			`unknown key "min_th"; expected one of: kmin, kmax, pmax; did you mean "kmin"?`},
		{"nothing near", "topology: {kind: single-switch, hosts: 2}\nswitch: {colour: red}" + flow,
			`unknown key "colour"; expected one of: alpha, alpha_by_rate, alpha_lossy, buffer, dscp_to_priority, ecmp, ecn, latency, load_balancing, pfc, reserve, scheduler, static_th, trust, vendor, watchdog` + "\n"},
		{"servers behind one switch", "topology: {kind: single-switch, hosts: 8, servers: {gpus: 8, nics: 2}}" + flow,
			"topology.servers: GPU servers are modelled on a leaf-spine topology only; for servers behind one switch write kind: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: 8, uplinks_per_leaf: 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatal("loaded")
			}
			if got := err.Error() + "\n"; !strings.Contains(got, c.want) {
				t.Errorf("error:\n%s\nwant it to contain\n%s", got, c.want)
			}
		})
	}
}

// A misspelt NCCL variable loads, as NCCL ignores it, with a warning that
// names the variable meant; one the twin does not model is no warning.
func TestNCCLVariableMisspelt(t *testing.T) {
	s := mustLoad(t, "w.yaml", `topology: {kind: single-switch, hosts: 2}
nccl: {NCCL_IB_QPS_PER_CONECTION: 4, NCCL_IB_HCA: mlx5, NCCL_NVLS_ENABLE: 0, NCCL_SHM_DISABLE: 1}
workload: {nccl_tests: all_reduce_perf -b 1M -e 1M -g 1}
`)
	want := "w.yaml:2:8: nccl.NCCL_IB_QPS_PER_CONECTION: not an NCCL variable: NCCL ignores it; did you mean NCCL_IB_QPS_PER_CONNECTION?"
	if len(s.Warnings) != 1 || s.Warnings[0].Error() != want {
		t.Errorf("warnings:\n%v\nwant\n%s", s.Warnings, want)
	}
}
