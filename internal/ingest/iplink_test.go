package ingest

import (
	"strings"
	"testing"

	"rocelab/internal/counters"
)

// ipLinkSample returns the sample of dev, failing when there is none.
func ipLinkSample(t *testing.T, p *IPLink, dev string) *CounterSample {
	t.Helper()
	for i := range p.Samples {
		if p.Samples[i].Device == dev {
			return &p.Samples[i]
		}
	}
	t.Fatalf("%s: no sample of %s in %+v", p.Source(), dev, p.Samples)
	return nil
}

// Both layouts of `ip -s -s link` (iproute2 before 5.10 and after, the
// missed column moved to the first row) are read by their column names
// into the kernel's names, which the counters table reads as the rules'
// concepts; -h's rounded values are left out. Real pastes: the kernel's
// statistics document, Kicinski's netdev patch (one moment printed in
// both layouts: a pair that did not move), Ji's (a veth's otherhost, lo
// left out, the text and JSON forms of one namespace).
func TestIPLinkCorpus(t *testing.T) {
	doc := nicArtifact[*IPLink](t, nicReadCorpus(t, "ethtool/iplink-s-s-old-layout-ens4u1u1-transns-128-kernel-doc.txt"))
	s := ipLinkSample(t, doc, "ens4u1u1")
	if len(doc.Samples) != 1 || s.Kind != KindIPLink || s.IsDelta() || len(doc.Garbled) != 0 {
		t.Fatalf("samples %+v garbled %v", doc.Samples, doc.Garbled)
	}
	for name, want := range map[string]uint64{"rx_bytes": 74327665117, "rx_packets": 69016965, "rx_over_errors": 0, "rx_missed_errors": 0,
		"rx_crc_errors": 0, "tx_bytes": 21405556176, "tx_packets": 44608960, "carrier_changes": 128} {
		if got := nicValue(t, s, name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	if r, ok := s.PortRxPackets(); !ok || r.Name != "rx_packets" || r.Value != 69016965 {
		t.Errorf("rx packets %+v %v", r, ok)
	}
	if c, _ := s.After.Get("carrier_changes"); c.Evidence.Line != 13 {
		t.Errorf("carrier_changes evidence %+v", c.Evidence)
	}

	kuba := nicArtifact[*IPLink](t, nicReadCorpus(t, "ethtool/iplink-s-s-h-before-after-5.10-layout-missed-7-netdev.txt"))
	s = ipLinkSample(t, kuba, "eth0")
	if len(kuba.Samples) != 1 || !s.IsDelta() || len(kuba.Garbled) != 0 {
		t.Fatalf("samples %+v garbled %v", kuba.Samples, kuba.Garbled)
	}
	for _, set := range []*CounterSet{s.Before, s.After} {
		if c, ok := set.Get("rx_missed_errors"); !ok || c.Value != 7 {
			t.Errorf("rx_missed_errors %+v %v", c, ok)
		}
		if c, ok := set.Get("carrier_changes"); !ok || c.Value != 6 {
			t.Errorf("carrier_changes %+v %v", c, ok)
		}
		for _, rounded := range []string{"rx_bytes", "rx_packets", "multicast", "tx_bytes"} {
			if set.has(rounded) {
				t.Errorf("%s read from a value -h rounded", rounded)
			}
		}
	}
	if c, _ := s.After.Get("rx_missed_errors"); c.Evidence.Line != 17 {
		t.Errorf("the 5.10 layout's missed column at %+v", c.Evidence)
	}
	if d := s.Discards(); d.Any() {
		t.Errorf("drops over a pair of one moment %+v", d)
	}

	ji := nicArtifact[*IPLink](t, nicReadCorpus(t, "ethtool/iplink-s-s-and-json-veth-otherhost-10-netdev.txt"))
	s = ipLinkSample(t, ji, "veth2")
	if len(ji.Samples) != 1 || !s.IsDelta() || s.Host != "" || len(ji.Garbled) != 0 {
		t.Fatalf("samples %+v garbled %v", ji.Samples, ji.Garbled)
	}
	if c, _ := s.Before.Get("rx_otherhost_dropped"); c.Value != 10 || c.Evidence.Line != 21 {
		t.Errorf("text otherhost %+v", c)
	}
	c, _ := s.After.Get("rx_otherhost_dropped")
	if c.Value != 10 || c.Evidence.Line != 27 {
		t.Fatalf("json otherhost %+v", c)
	}
	if !strings.HasPrefix(c.Evidence.Text[c.Evidence.Col-1:], `"stats64":{"rx":{"bytes":2116`) {
		t.Errorf("json evidence column %d: %.40q", c.Evidence.Col, c.Evidence.Text[c.Evidence.Col-1:])
	}
	for name, want := range map[string]uint64{"rx_packets": 27, "tx_packets": 17, "carrier_changes": 2, "rx_crc_errors": 0, "collisions": 0} {
		if got, _ := s.After.Get(name); got.Value != want {
			t.Errorf("json %s = %d, want %d", name, got.Value, want)
		}
	}
}

// `ip -s link` without the second -s prints only the totals: rx_errors
// is read as the frames received bad; rx_dropped as the host's drops
// many drivers count (the ice entry's common name). Synthetic values.
func TestIPLinkConcepts(t *testing.T) {
	p := nicArtifact[*IPLink](t, nicReadText(t, "ip.txt", "# synthetic\n$ ip -s link show ens3f0np0\n"+
		"4: ens3f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 4200 qdisc mq state UP mode DEFAULT group default qlen 1000\n"+
		"    link/ether b8:ce:f6:00:00:01 brd ff:ff:ff:ff:ff:ff\n"+
		"    RX:  bytes packets errors dropped  missed   mcast\n"+
		"    9000000  100000     40       3      12       0\n"+
		"    TX:  bytes packets errors dropped carrier collsns\n"+
		"    8000000   90000      0       0       0       0\n"))
	s := ipLinkSample(t, p, "ens3f0np0")
	if r, ok := s.Concept(counters.PhyRxErrors, counters.RX, 0); !ok || r.Name != "rx_errors" || r.Value != 40 {
		t.Errorf("rx errors %+v %v", r, ok)
	}
	if _, ok := s.Concept(counters.PhyCRCErrors, counters.RX, 0); ok {
		t.Error("an FCS count without -s -s")
	}
	d := s.Discards()
	if len(d.Host) != 2 || len(d.Port) != 0 {
		t.Errorf("discards %+v", d)
	}
	if v, ok := s.Vendor(); ok {
		t.Errorf("the kernel's names say the driver is %v", v)
	}
}

// A row of values that does not go on as its row of names says is
// reported where it breaks, and the interface keeps what did read; a
// JSON array cut short is reported at its "[". Synthetic.
func TestIPLinkGarbled(t *testing.T) {
	p := nicArtifact[*IPLink](t, nicReadText(t, "ip.txt", "# synthetic\n"+
		"2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP\n"+
		"    RX:  bytes packets errors dropped  missed   mcast\n"+
		"    1000 10 0 0 x7 0\n"+
		"    TX:  bytes packets errors dropped carrier collsns\n"+
		"    1000 10 0\n"+
		"    RX errors:  length    crc   frame    fifo overrun\n"+
		"                   0      5       0       0       0\n"+
		"$ ip -j -s link\n"+
		`[{"ifindex":2,"ifname":"eth1","stats64":{"rx":{"bytes":1`+"\n"+
		"$ date\n"))
	if len(p.Garbled) != 3 {
		t.Fatalf("garbled %+v", p.Garbled)
	}
	if g := p.Garbled[0]; g.Line != 4 || g.Col != 17 || !strings.Contains(g.Expected, `a count under "missed"`) {
		t.Errorf("value garble %+v", g)
	}
	if g := p.Garbled[1]; g.Line != 6 || g.Col != 5 || !strings.Contains(g.Expected, "6 values") {
		t.Errorf("row garble %+v", g)
	}
	if g := p.Garbled[2]; g.Line != 10 || g.Col != 1 || !strings.Contains(g.Expected, "cut") {
		t.Errorf("json garble %+v", g)
	}
	s := ipLinkSample(t, p, "eth0")
	if nicValue(t, s, "rx_crc_errors") != 5 || s.Has("rx_missed_errors") || s.Has("tx_bytes") {
		t.Errorf("eth0 %+v", s.After.Counters)
	}
}

// pdsh's hosts are read apart, each host's eth0 its own sample.
// Synthetic.
func TestIPLinkPdsh(t *testing.T) {
	p := nicArtifact[*IPLink](t, nicReadText(t, "ip.txt", "# synthetic: pdsh -w gpu0[1-2] ip -s link show eth0\n"+
		"gpu01: 2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP\n"+
		"gpu02: 2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP\n"+
		"gpu01:     RX:  bytes packets errors dropped  missed   mcast\n"+
		"gpu02:     RX:  bytes packets errors dropped  missed   mcast\n"+
		"gpu01:     100 1 0 0 1 0\n"+
		"gpu02:     200 2 0 0 2 0\n"))
	if len(p.Samples) != 2 {
		t.Fatalf("samples %+v", p.Samples)
	}
	for i, host := range []string{"gpu01", "gpu02"} {
		if s := p.Samples[i]; s.Host != host || s.Device != "eth0" || nicValue(t, &s, "rx_missed_errors") != uint64(i+1) {
			t.Errorf("sample %d %+v", i, s)
		}
	}
}

func FuzzIPLink(f *testing.F) {
	nicFuzz(f, NewIPLinkParser, nicSeeds("corpus/ethtool/iplink-*.txt", "corpus/ethtool/ifconfig-*.txt", "corpus/ethtool/netstat-*.txt"), func(t *testing.T, a Artifact, n int) {
		p := a.(*IPLink)
		nicCheckSamples(t, p.Samples, n)
		for _, g := range p.Garbled {
			if g.Line < 1 || g.Line > n || g.Col < 1 {
				t.Fatalf("garble %+v", g)
			}
		}
	})
}
