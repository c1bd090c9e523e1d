package ingest

import "testing"

// net-tools' ifconfig (both layouts) and netstat -i read into the same
// samples as `ip -s link`, under the kernel's names, from real pastes:
// two RoCE ports whose receive FIFO overran (tensorflow#22077), one
// host's eth0 with 7183 drops and its Interrupt line (netdata#988), the
// 2.x layout with a container bridge and a RoCE port cut inside its TX
// line (nccl#1043), and netstat -i with the Met column (perfsonar#1085).
// Loopback is left out; /proc/net/dev's frame and carrier sums are not
// read. Before, none of these inputs was recognised.
func TestNetToolsCorpus(t *testing.T) {
	p := nicArtifact[*IPLink](t, nicReadCorpus(t, "ethtool/ifconfig-old-layout-roce-eth2-eth3-rx-overruns-dropped-tf22077.txt"))
	if len(p.Samples) != 2 {
		t.Fatalf("samples %+v", p.Samples)
	}
	s := ipLinkSample(t, p, "eth3")
	for name, want := range map[string]uint64{"rx_packets": 60662288, "rx_errors": 0, "rx_dropped": 2492643, "rx_fifo_errors": 2492643,
		"tx_packets": 459009319, "tx_dropped": 0, "tx_fifo_errors": 0, "collisions": 0, "rx_bytes": 4518366385, "tx_bytes": 650313430347} {
		if got := nicValue(t, s, name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	if _, ok := s.After.Get("rx_frame_errors"); ok {
		t.Error("ifconfig's frame sum read as rx_frame_errors")
	}
	if c, _ := s.After.Get("tx_bytes"); c.Evidence.Line != 19 {
		t.Errorf("tx_bytes evidence %+v", c.Evidence)
	}

	p = nicArtifact[*IPLink](t, nicReadCorpus(t, "ethtool/ifconfig-old-layout-eth0-rx-dropped-7183-netdata988.txt"))
	if s := ipLinkSample(t, p, "eth0"); nicValue(t, s, "rx_dropped") != 7183 || nicValue(t, s, "tx_packets") != 3587842070 {
		t.Errorf("eth0 %+v", s.After)
	}

	p = nicArtifact[*IPLink](t, nicReadCorpus(t, "ethtool/ifconfig-new-layout-cni0-docker0-ens108f0np0-dropped-7-cut-nccl1043.txt"))
	if len(p.Samples) != 3 {
		t.Fatalf("samples %+v", p.Samples)
	}
	s = ipLinkSample(t, p, "ens108f0np0")
	if nicValue(t, s, "rx_dropped") != 7 || nicValue(t, s, "rx_packets") != 48305 || nicValue(t, s, "tx_packets") != 41 || nicValue(t, s, "tx_bytes") != 2966 {
		t.Errorf("ens108f0np0 %+v", s.After)
	}
	if _, ok := s.After.Get("tx_errors"); ok {
		t.Error("the cut TX errors line was read")
	}
	if nicValue(t, ipLinkSample(t, p, "cni0"), "collisions") != 0 {
		t.Error("cni0's collisions")
	}

	p = nicArtifact[*IPLink](t, nicReadCorpus(t, "ethtool/netstat-i-met-column-em1-p1p1-perfsonar1085.txt"))
	if len(p.Samples) != 2 {
		t.Fatalf("samples %+v", p.Samples)
	}
	s = ipLinkSample(t, p, "p1p1")
	if nicValue(t, s, "rx_packets") != 13163291510 || nicValue(t, s, "tx_packets") != 0 || nicValue(t, s, "rx_dropped") != 0 || nicValue(t, s, "tx_fifo_errors") != 0 {
		t.Errorf("p1p1 %+v", s.After)
	}
	if c, _ := s.After.Get("rx_errors"); c.Evidence.Line != 8 {
		t.Errorf("rx_errors evidence %+v", c.Evidence)
	}
}
