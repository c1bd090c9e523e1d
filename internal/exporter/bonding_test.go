package exporter

import (
	"testing"
	"testing/fstest"
)

// bondHost is a RoCE LAG host (mlx5_bond_0's netdev is bond0) in sysfs's
// layout. Synthetic, in the shapes the corpus's /proc/net/bonding pastes
// show: an 802.3ad bond with no active aggregator (accelerated-text#387),
// one port down, and a link_failure_count that is not a number.
func bondHost(mode, agg string) Host {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return Host{Sys: fstest.MapFS{
		"class/infiniband/mlx5_bond_0/ports/1/gid_attrs/ndevs/0": f("bond0\n"),
		"class/net/bond0/bonding/mode":                           f(mode),
		"class/net/bond0/bonding/slaves":                         f("ens1f0np0 ens1f1np1\n"),
		"class/net/bond0/bonding/ad_aggregator":                  f(agg),
		"class/net/ens1f0np0/bonding_slave/mii_status":           f("up\n"),
		"class/net/ens1f0np0/bonding_slave/state":                f("active\n"),
		"class/net/ens1f0np0/bonding_slave/link_failure_count":   f("0\n"),
		"class/net/ens1f0np0/bonding_slave/ad_aggregator_id":     f("1\n"),
		"class/net/ens1f0np0/speed":                              f("200000\n"),
		"class/net/ens1f1np1/bonding_slave/mii_status":           f("down\n"),
		"class/net/ens1f1np1/bonding_slave/state":                f("backup\n"),
		"class/net/ens1f1np1/bonding_slave/link_failure_count":   f("x\n"),
		"class/net/ens1f1np1/bonding_slave/ad_aggregator_id":     f("2\n"),
		"class/net/ens1f1np1/speed":                              f("-1\n"),
		"module/nvidia/initstate":                                f("live\n"),
		"module/nv_peer_mem/initstate":                           f("going\n"),
	}}
}

func bondExporter(h Host) *Exporter {
	return New(func() Host { return h }, []Collector{&bondCollector{}, &moduleCollector{}}, nil)
}

// TestBondSlaves: a LAG bond's ports are exported by their sysfs files;
// a port in another aggregator, or any port when the bond has none, is
// out of the active aggregator; a port that is down has no speed; a count
// that does not parse is counted as an error for that port only.
func TestBondSlaves(t *testing.T) {
	h := bondHost("802.3ad 4\n", "1\n")
	want := map[string]map[string]float64{
		"rocelab_nic_bond_info":                         {"bond=bond0,mode=802.3ad": 1},
		"rocelab_nic_bond_slave_up":                     {"bond=bond0,slave=ens1f0np0": 1, "bond=bond0,slave=ens1f1np1": 0},
		"rocelab_nic_bond_slave_active":                 {"bond=bond0,slave=ens1f0np0": 1, "bond=bond0,slave=ens1f1np1": 0},
		"rocelab_nic_bond_slave_in_active_aggregator":   {"bond=bond0,slave=ens1f0np0": 1, "bond=bond0,slave=ens1f1np1": 0},
		"rocelab_nic_bond_slave_link_failures_total":    {"bond=bond0,slave=ens1f0np0": 0},
		"rocelab_nic_bond_slave_speed_bytes_per_second": {"bond=bond0,slave=ens1f0np0": 25e9},
		"rocelab_exporter_collector_errors_total":       {"collector=bonding,device=ens1f1np1,reason=parse": 1},
		"rocelab_host_module_loaded":                    {"module=nvidia": 1, "module=nvidia_peermem": 0, "module=nv_peer_mem": 0},
	}
	for name, w := range want {
		got := gather(t, bondExporter(h), name)
		if len(got) != len(w) {
			t.Errorf("%s = %v, want %v", name, got, w)
			continue
		}
		for k, v := range w {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("%s{%s} = %v, want %v", name, k, g, v)
			}
		}
	}
	// No active aggregator (an empty ad_aggregator): no port is in it.
	if got := gather(t, bondExporter(bondHost("802.3ad 4\n", "")), "rocelab_nic_bond_slave_in_active_aggregator"); got["bond=bond0,slave=ens1f0np0"] != 0 || len(got) != 2 {
		t.Errorf("no active aggregator: %v", got)
	}
	// An ad_aggregator that cannot be read is an error of the bond, not
	// every port out of the aggregator (RoCEBondPortOut on a read error).
	unread := bondHost("802.3ad 4\n", "1\n")
	delete(unread.Sys.(fstest.MapFS), "class/net/bond0/bonding/ad_aggregator")
	if got := gather(t, bondExporter(unread), "rocelab_nic_bond_slave_in_active_aggregator"); len(got) != 0 {
		t.Errorf("ad_aggregator unread: %v", got)
	}
	if got := gather(t, bondExporter(unread), "rocelab_exporter_collector_errors_total"); got["collector=bonding,device=bond0,reason=missing"] != 1 {
		t.Errorf("ad_aggregator unread, errors: %v", got)
	}
	// The GPU driver's taint flags say whether it is the open kernel
	// module (no P): synthetic, as sysfs prints them.
	for taint, want := range map[string]float64{"POE\n": 0, "OE\n": 1} {
		h := bondHost("802.3ad 4\n", "1\n")
		h.Sys.(fstest.MapFS)["module/nvidia/taint"] = &fstest.MapFile{Data: []byte(taint)}
		if got := gather(t, bondExporter(h), "rocelab_host_gpu_driver_open"); len(got) != 1 || got[""] != want {
			t.Errorf("taint %q: %v, want %v", taint, got, want)
		}
	}
	// active-backup has no aggregators.
	if got := gather(t, bondExporter(bondHost("active-backup 1\n", "")), "rocelab_nic_bond_slave_in_active_aggregator"); len(got) != 0 {
		t.Errorf("active-backup: %v", got)
	}
}
