package ingest

import (
	"strings"
	"testing"

	"rocelab/internal/counters"
)

// Class 7 of issue 9: a few "name: value" lines without the "NIC
// statistics:" header are a counter dump when the counters table knows
// the names, whichever driver prints them. Real text: xsos#112 (a grep
// over an sosreport); SYNTHETIC excerpts for the rest.
func TestHeaderlessCounterExcerpts(t *testing.T) {
	e, ok := readCorpus(t, "threads/ethtool-grep-pause-no-header-xsos112.txt")[KindEthtool].(*EthtoolStats)
	if !ok || len(e.Samples) != 1 {
		t.Fatalf("xsos#112 excerpt not read as a dump")
	}
	if r, ok := e.Samples[0].GlobalPause(RX); !ok || r.Value != 95331 || r.Name != "rx_pause_frames" {
		t.Errorf("global pause rx = %+v %v", r, ok)
	}
	for name, text := range map[string]string{
		"grep pause mlx5": "     tx_pause_ctrl_phy: 12\n     rx_pause_ctrl_phy: 0\n",
		"grep -i drop":    "     rx_out_of_buffer: 4012\n     rx_discards_phy: 7\n",
		"be2net":          "     rx_drops_no_pbuf: 3\n     tx_pauseframes: 0\n",
	} {
		res, err := Read(name, strings.NewReader("# synthetic: "+name+"\n"+text))
		if err != nil || res.Type() != string(KindEthtool) {
			t.Errorf("%s: type %s, err %v", name, res.Type(), err)
		}
	}
	// Generic netdev counters alone are not a dump: every program prints
	// such lines.
	res, _ := Read("generic", strings.NewReader("rx_packets: 10\ntx_packets: 12\n"))
	if res.Type() == string(KindEthtool) {
		t.Error("rx_packets alone read as an ethtool dump")
	}
}

// The counter names the doctor reads come from the counters table: every
// name of the old hand-written lists is in it under the concept the
// accessors ask for.
func TestCounterNamesFromTable(t *testing.T) {
	for name, want := range map[string]counters.Concept{
		"rx_discards_phy": counters.PhyDiscards, "tx_discards_phy": counters.PhyDiscards, "rx_out_of_buffer": counters.OutOfBufferHost,
		"out_of_buffer": counters.RespOutOfBuffer, "rx_discard_packets_cos5": counters.PrioDiscards, "rx_drops_no_pbuf": counters.OutOfBufferHost,
		"rx_total_discard_pkts": counters.OutOfBufferHost, "rx_total_ring_discards": counters.OutOfBufferHost,
		"rxpp_fifo_overflow_drop": counters.PhyDiscards,
		"local_ack_timeout_err":   counters.LocalAckTimeoutErr, "roce_slow_restart": counters.SlowRestart, "rnr_nak_retry_err": counters.RNRNakRetryErr,
		"np_ecn_marked_roce_packets": counters.ECNMarkedRoCE, "np_cnp_sent": counters.CNPSent, "rp_cnp_handled": counters.CNPHandled,
		"rx_global_pause": counters.GlobalPauseQoS, "tx_pause_ctrl_phy": counters.GlobalPause, "tx_pauseframes": counters.GlobalPause,
		"rx_roce_frames": counters.RDMAUnicastPackets, "port_rcv_packets": counters.PortRcvPackets, "rx_vport_unicast_packets": counters.VportUnicastPackets,
		"rx_priority_pause_frames": counters.PFCFramesTotal, "pfc_pri3_rx_duration_us": counters.PauseDuration,
	} {
		if got := (&CounterSample{}).ConceptOf(name); got != want {
			t.Errorf("%s: concept %q, want %q", name, got, want)
		}
	}
	var s CounterSample
	s.After = &CounterSet{}
	for _, n := range []string{"rx_prio3_pause", "rx_global_pause", "rx_pause_ctrl_phy", "out_of_sequence", "rx_discards_phy", "rx_drops_no_pbuf"} {
		s.After.add(Counter{Name: n, Value: 5})
	}
	if r, _ := s.GlobalPause(RX); r.Name != "rx_global_pause" {
		t.Errorf("global pause reads %s first", r.Name)
	}
	if d := s.Discards(); len(d.Port) != 1 || len(d.Host) != 1 {
		t.Errorf("discards %+v", d)
	}
	if r := s.Retransmissions(); len(r) != 1 || r[0].Name != "out_of_sequence" {
		t.Errorf("retransmissions %+v", r)
	}
	if ps, ok := s.PFCEnabledByCounters(); !ok || len(ps) != 1 || ps[0] != 3 {
		t.Errorf("PFC prios %v %v", ps, ok)
	}
}

// A name two sources print is read by the sample's source: mlx5's ethtool
// rx_out_of_buffer is the host rings' drops, bnxt_re's hw_counters
// rx_out_of_buffer its RDMA responders' missing receive WQEs, and neither
// sample finds the other's concept under it.
func TestSharedNameBySource(t *testing.T) {
	for _, c := range []struct {
		kind      Kind
		want, not counters.Concept
		host      int
	}{
		{KindEthtool, counters.OutOfBufferHost, counters.RespOutOfBuffer, 1},
		{KindHWCounters, counters.RespOutOfBuffer, counters.OutOfBufferHost, 0},
	} {
		s := CounterSample{Kind: c.kind, After: &CounterSet{}}
		s.After.add(Counter{Name: "rx_out_of_buffer", Value: 7})
		if got := s.ConceptOf("rx_out_of_buffer"); got != c.want {
			t.Errorf("%s: rx_out_of_buffer means %q, want %q", c.kind, got, c.want)
		}
		if _, ok := s.Concept(c.not, counters.RX, 0); ok {
			t.Errorf("%s: rx_out_of_buffer read as %q", c.kind, c.not)
		}
		if r, ok := s.Concept(c.want, counters.RX, 0); !ok || r.Value != 7 {
			t.Errorf("%s: %q not read: %+v", c.kind, c.want, r)
		}
		if d := s.Discards(); len(d.Host) != c.host || len(d.RDMA) != 1-c.host {
			t.Errorf("%s: discards %+v", c.kind, d)
		}
	}
}

// The driver of a dump: the one `ethtool -i` names beside it, else the one
// only its names say. ice's rx_dropped, a name other drivers print too,
// says none; bnxt_re's hw_counters of Linux 6.18, mlx5's names but for
// np_cnp_pkts, are still bnxt_re's.
func TestVendorOfDump(t *testing.T) {
	for _, c := range []struct {
		kind   Kind
		driver string
		names  []string
		want   counters.Vendor
		known  bool
	}{
		{KindEthtool, "", []string{"rx_dropped", "rx_prio3_pause"}, counters.MLX5, true},
		{KindEthtool, "", []string{"rx_dropped"}, counters.MLX5, false},
		{KindEthtool, "", []string{"rx_dropped", "rx_dropped.nic"}, counters.ICE, true},
		{KindEthtool, "ice", []string{"rx_dropped"}, counters.ICE, true},
		{KindEthtool, "mlx5_core", []string{"rx_pfc_ena_frames_pri3"}, counters.MLX5, true},
		{KindEthtool, "bnxt_en", []string{"rx_dropped"}, counters.BNXT, true},
		{KindEthtool, "virtio_net", []string{"rx_prio3_pause"}, counters.MLX5, true},
		{KindHWCounters, "", []string{"local_ack_timeout_err", "np_cnp_pkts", "out_of_sequence"}, counters.BNXTRE, true},
		{KindHWCounters, "", []string{"local_ack_timeout_err", "np_cnp_sent"}, counters.MLX5, true},
	} {
		s := CounterSample{Kind: c.kind, Driver: c.driver, After: &CounterSet{}}
		for _, n := range c.names {
			s.After.add(Counter{Name: n, Value: 5})
		}
		if v, ok := s.Vendor(); v != c.want || ok != c.known {
			t.Errorf("%s %q %v: vendor %v %v, want %v %v", c.kind, c.driver, c.names, v, ok, c.want, c.known)
		}
	}
	var s CounterSample
	s.Kind, s.After = KindEthtool, &CounterSet{}
	s.After.add(Counter{Name: "rx_dropped", Value: 9})
	if d := s.Discards(); len(d.Host) != 1 || d.Host[0].Name != "rx_dropped" {
		t.Errorf("ice's rx_dropped not read as the host rings' drops: %+v", d)
	}
}

// A bnxt_re dump of Linux 6.18 or later (told by np_cnp_pkts) prints
// mlx5's names: a concept it does not print is named as that driver now
// would, out_of_sequence, not oos_drop_count, a name it no longer prints.
// An earlier bnxt_re dump keeps the earlier names.
func TestNameOfRenamedBnxtRE(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"local_ack_timeout_err", "np_cnp_pkts"}, "out_of_sequence"},
		{[]string{"to_retransmits", "tx_cnp_pkts"}, "oos_drop_count"},
		{[]string{"local_ack_timeout_err", "np_cnp_pkts", "out_of_sequence"}, "out_of_sequence"},
	} {
		s := CounterSample{Kind: KindHWCounters, After: &CounterSet{}}
		for _, n := range c.names {
			s.After.add(Counter{Name: n, Value: 5})
		}
		if got := s.NameOf(counters.OutOfSequence, counters.RX); got != c.want {
			t.Errorf("%v: NameOf(OutOfSequence) = %q, want %q", c.names, got, c.want)
		}
	}
}
