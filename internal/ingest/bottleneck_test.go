package ingest

import (
	"strings"
	"testing"

	"rocelab/internal/unit"
)

func mustBottleneck(t *testing.T, bs []Bottleneck, fragment string) Bottleneck {
	t.Helper()
	for _, b := range bs {
		if strings.Contains(b.What, fragment) {
			if len(b.Evidence) == 0 || b.Evidence[0].Line == 0 {
				t.Errorf("%q: no line evidence", b.What)
			}
			return b
		}
	}
	t.Fatalf("no bottleneck with %q in %+v", fragment, bs)
	return Bottleneck{}
}

// INDEX: dmesg shows a NIC limited to 63 Gb/s by PCIe Gen3 x8.
func TestDmesgBottleneck(t *testing.T) {
	d := nicArtifact[*Dmesg](t, nicReadCorpus(t, "ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"))
	b := mustBottleneck(t, d.Bottlenecks(), "0001:43:00.0 on a PCIe 8.0 GT/s x8 link (capable of 8.0 GT/s x16)")
	if b.Cap != unit.BitRate(63.008e9) || b.Measured || b.Evidence[0].Line != 46 {
		t.Errorf("%+v", b)
	}
	// An unlimited link is no bottleneck, however slow.
	d = nicArtifact[*Dmesg](t, nicReadText(t, "synthetic-dmesg", syntheticDmesg))
	if bs := d.Bottlenecks(); len(bs) != 0 {
		t.Errorf("unlimited link: %+v", bs)
	}
}

func TestQoSBottlenecks(t *testing.T) {
	q := nicArtifact[*MlnxQoS](t, readSynthetic(t, "mlnx-qos-pcp-pfc-off-synthetic.txt"))
	bs := q.Bottlenecks()
	mustBottleneck(t, bs, "ens3np0: priority trust pcp")
	mustBottleneck(t, bs, "ens3np0: PFC disabled on every priority")
	// The healthy config of the corpus: trust dscp, PFC on 3 only.
	q = nicArtifact[*MlnxQoS](t, nicReadCorpus(t, "ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"))
	if bs := q.Bottlenecks(); len(bs) != 0 {
		t.Errorf("healthy config: %+v", bs)
	}
	// synthetic: PFC on 4 while DSCP 26 maps to 3.
	q = nicArtifact[*MlnxQoS](t, nicReadText(t, "synthetic-qos", "mlnx_qos -i ens1\nPriority trust state: dscp\ndscp2prio mapping:\n        prio:3 dscp:31,30,29,28,27,26,25,24,\n"+
		"PFC configuration:\n        priority    0   1   2   3   4   5   6   7\n        enabled     0   0   0   0   1   0   0   0\n"))
	if p, mapped := q.Configs[0].RoCEPriority(); p != 3 || !mapped {
		t.Errorf("RoCE priority %d %v", p, mapped)
	}
	mustBottleneck(t, q.Bottlenecks(), "ens1: PFC not on priority 3, where DSCP 26 lands")
}

func TestCounterBottlenecks(t *testing.T) {
	// INDEX: rx_discards_phy very high with matching rx_prio0_discards;
	// tx_global_pause nonzero; no RoCE counters.
	e := nicArtifact[*EthtoolStats](t, nicReadCorpus(t, "ethtool/mlx5-xdp-rx-discards-phy-global-pause-lkml.txt"))
	bs := e.Samples[0].Bottlenecks()
	mustBottleneck(t, bs, "packets dropped at the port: rx_discards_phy 58591428329, rx_prio0_discards 58591314012 (since driver load)")
	mustBottleneck(t, bs, "802.3x global pause: tx_global_pause 5745042")
	for _, b := range bs {
		if strings.Contains(b.What, "priority 0") && !strings.Contains(b.What, "dropped") {
			t.Errorf("a port without RoCE traffic is not judged by priority: %s", b.What)
		}
	}
	// A before/after pair: the deltas, not the cumulative values.
	e = nicArtifact[*EthtoolStats](t, readSynthetic(t, "prio0-before-after-synthetic.txt"))
	bs = e.Samples[0].Bottlenecks()
	mustBottleneck(t, bs, "rx_discards_phy 100000 (during the window)")
	mustBottleneck(t, bs, "100% of bytes on priority 0, which PFC (on 3) does not protect")
	h := nicArtifact[*HWCounters](t, readSynthetic(t, "hwcounters-retrans-ecn-synthetic.txt"))
	mustBottleneck(t, h.Samples[0].Bottlenecks(), "RC retransmissions: local_ack_timeout_err 3, out_of_sequence 5000, packet_seq_err 400 (during the window)")
}

func TestPerftestBottlenecks(t *testing.T) {
	// INDEX: bidirectional write 47331.84 MB/s at 1 MiB; unidirectional best
	// 26.9 GB/s write/send.
	p := nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/perftest-summary-table-400g-roce-ccimoc.txt"))
	bs := p.Bottlenecks()
	if len(bs) == 0 {
		t.Fatal("no bottlenecks")
	}
	for _, b := range bs {
		if !b.Measured || b.Cap <= 0 {
			t.Errorf("%+v", b)
		}
	}
	halved := false
	for i := range p.Runs {
		r := &p.Runs[i]
		if best, ok := r.BestBW(); ok && r.Bidirectional {
			b := mustBottleneck(t, bs, r.Name()+" reached")
			halved = true
			if b.Cap != best.BWAvg/2 || !strings.HasSuffix(b.What, "per direction") {
				t.Errorf("bidirectional run %s: %+v, best %v", r.Name(), b, best.BWAvg)
			}
			break
		}
	}
	if !halved {
		t.Error("no bidirectional run")
	}
	// Latency runs and small messages give no bandwidth.
	p = nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/ib-write-lat-connectx3-roce-mtu1024-rdmatutorial8.txt"))
	if bs := p.Bottlenecks(); len(bs) != 0 {
		t.Errorf("latency run: %+v", bs)
	}
}
