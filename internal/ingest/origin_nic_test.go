package ingest

import (
	"testing"
)

// hostValue returns the value of counter name in the dump of host, or
// fails; the dump must be a single one (no pair across hosts).
func hostValue(t *testing.T, ss []CounterSample, host, name string) uint64 {
	t.Helper()
	for _, s := range ss {
		if s.Host != host {
			continue
		}
		if s.Before != nil {
			t.Errorf("%s: a before/after pair out of one dump per host", host)
		}
		if c, ok := s.After.Get(name); ok {
			return c.Value
		}
	}
	t.Fatalf("%s: no %s in %+v", host, name, ss)
	return 0
}

// A pdsh paste of `ethtool -S` on two hosts, the hosts' lines interleaved
// as pdsh prints them when both answer at once (synthetic): one dump per
// host, each under its own host (not the management node's prompt), never
// one host's counters read as the other's or as a before/after pair.
func TestEthtoolPdshHostsApart(t *testing.T) {
	for _, text := range []string{
		"# synthetic: pdsh ethtool -S of two hosts, in turn\n" +
			"[root@mgmt ~]# pdsh -w gpu0[1-2] ethtool -S eth2\n" +
			"gpu01: NIC statistics:\n" +
			"gpu01:      rx_prio3_pause: 100\n" +
			"gpu01:      rx_discards_phy: 0\n" +
			"gpu02: NIC statistics:\n" +
			"gpu02:      rx_prio3_pause: 200\n" +
			"gpu02:      rx_discards_phy: 12345\n",
		"# synthetic: pdsh ethtool -S of two hosts, interleaved\n" +
			"[root@mgmt ~]# pdsh -w gpu0[1-2] ethtool -S eth2\n" +
			"gpu02: NIC statistics:\n" +
			"gpu01: NIC statistics:\n" +
			"gpu01:      rx_prio3_pause: 100\n" +
			"gpu02:      rx_prio3_pause: 200\n" +
			"gpu02:      rx_discards_phy: 12345\n" +
			"gpu01:      rx_discards_phy: 0\n",
	} {
		e := readOne[*EthtoolStats](t, "pdsh.txt", text)
		if len(e.Samples) != 2 {
			t.Fatalf("samples %+v", e.Samples)
		}
		if hostValue(t, e.Samples, "gpu01", "rx_prio3_pause") != 100 || hostValue(t, e.Samples, "gpu02", "rx_prio3_pause") != 200 ||
			hostValue(t, e.Samples, "gpu01", "rx_discards_phy") != 0 || hostValue(t, e.Samples, "gpu02", "rx_discards_phy") != 12345 {
			t.Errorf("values across hosts %+v", e.Samples)
		}
		for _, s := range e.Samples {
			if s.Device != "eth2" {
				t.Errorf("%s: device %q, want the command's eth2", s.Host, s.Device)
			}
		}
	}
}

// The same for a pdsh grep of hw_counters files, both hosts' mlx5_0 port
// 1 interleaved (synthetic): two ports, not one port's before and after.
func TestHWCountersPdshHostsApart(t *testing.T) {
	h := readOne[*HWCounters](t, "pdsh.txt", "# synthetic: pdsh grep of hw_counters on two hosts\n"+
		"gpu01: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:0\n"+
		"gpu02: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:7000\n"+
		"gpu01: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:0\n"+
		"gpu02: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:50000\n")
	if len(h.Samples) != 2 {
		t.Fatalf("samples %+v", h.Samples)
	}
	if hostValue(t, h.Samples, "gpu02", "local_ack_timeout_err") != 7000 || hostValue(t, h.Samples, "gpu01", "local_ack_timeout_err") != 0 || hostValue(t, h.Samples, "gpu02", "out_of_sequence") != 50000 {
		t.Errorf("values across hosts %+v", h.Samples)
	}

	r := readOne[*HWCounters](t, "pdsh.txt", "# synthetic: pdsh rdma statistic show on two hosts, two ports each\n"+
		"gpu01: link mlx5_0/1 rx_write_requests 100 out_of_sequence 0 local_ack_timeout_err 0\n"+
		"gpu02: link mlx5_0/1 rx_write_requests 100 out_of_sequence 50000 local_ack_timeout_err 7000\n"+
		"gpu01: link mlx5_1/1 rx_write_requests 100 out_of_sequence 0 local_ack_timeout_err 0\n"+
		"gpu02: link mlx5_1/1 rx_write_requests 100 out_of_sequence 0 local_ack_timeout_err 0\n")
	if len(r.Samples) != 4 {
		t.Fatalf("rdma statistic samples %+v", r.Samples)
	}
	if hostValue(t, r.Samples[:2], "gpu02", "out_of_sequence") != 50000 || hostValue(t, r.Samples[:2], "gpu01", "out_of_sequence") != 0 {
		t.Errorf("rdma statistic across hosts %+v", r.Samples)
	}
}

// `rdma statistic qp show` under a pdsh prefix (synthetic, after the
// linux-rdma cover letter's session in testdata/corpus/hwcounters): the
// "LQPN: <258>" line after a counter object's counters names its QPs for
// that host's object as it does without the prefix.
func TestHWCountersPdshQPNumbers(t *testing.T) {
	h := readOne[*HWCounters](t, "pdsh.txt", "# synthetic: pdsh rdma statistic qp show\n"+
		"gpu01: link mlx5_2/1 cntn 4 pid 9829 comm ib_send_bw rx_write_requests 0 out_of_sequence 5\n"+
		"gpu01:     LQPN: <258>\n")
	if len(h.Samples) != 1 || h.Samples[0].Host != "gpu01" || h.Samples[0].Object != "counter 4 of ib_send_bw, pid 9829, QP 258" {
		t.Errorf("samples %+v", h.Samples)
	}
}
