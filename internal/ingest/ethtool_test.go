package ingest

import (
	"strings"
	"testing"

	"rocelab/internal/unit"
)

func TestEthtoolLKMLCorpus(t *testing.T) {
	res := nicReadCorpus(t, "ethtool/mlx5-xdp-rx-discards-phy-global-pause-lkml.txt")
	if res.Type() != string(KindEthtool) {
		t.Fatalf("type %s", res.Type())
	}
	e := nicArtifact[*EthtoolStats](t, res)
	// Two dumps of an unnamed port (kernel 5.15, then 6.5); counters go
	// down between them, so they are two cumulative samples, not a delta.
	if len(e.Samples) != 2 {
		t.Fatalf("%d samples, want 2", len(e.Samples))
	}
	s1, s2 := &e.Samples[0], &e.Samples[1]
	if s1.IsDelta() || s2.IsDelta() {
		t.Fatal("dumps of different kernels joined into a delta")
	}
	for name, want := range map[string]uint64{
		"rx_discards_phy": 58591428329, "rx_prio0_discards": 58591314012, "rx_out_of_buffer": 990473555,
		"tx_global_pause": 5745042, "tx_pause_ctrl_phy": 5745055, "rx_packets_phy": 97052087562,
	} {
		if got := nicValue(t, s1, name); got != want {
			t.Errorf("5.15 %s = %d, want %d", name, got, want)
		}
	}
	if got := nicValue(t, s2, "rx_discards_phy"); got != 441063206498 {
		t.Errorf("6.5 rx_discards_phy = %d", got)
	}
	if got := nicValue(t, s2, "rx_buffer_passed_thres_phy"); got != 1192226 {
		t.Errorf("6.5 rx_buffer_passed_thres_phy = %d", got)
	}
	// Per-ring counters are read but not kept.
	if s1.Has("rx0_packets") || s1.Has("ch0_poll") {
		t.Error("per-ring counters kept")
	}
	if r, ok := s1.GlobalPause(TX); !ok || r.Name != "tx_global_pause" || r.Value != 5745042 {
		t.Errorf("GlobalPause(TX) = %+v, %v", r, ok)
	}
	if ps, ok := s1.PFCEnabledByCounters(); !ok || len(ps) != 0 {
		t.Errorf("PFCEnabledByCounters = %v, %v; want none (global pause only)", ps, ok)
	}
	if _, ok := s1.RoCEPackets(RX); ok {
		t.Error("RoCE packets in a non-RoCE dump")
	}
	if !s1.HasVportCounters() {
		t.Error("full dump not recognised")
	}
	if s1.Device != "" {
		t.Errorf("device %q from prose", s1.Device)
	}
	r, _ := s1.Get("rx_discards_phy")
	if len(r.Evidence) != 1 || !strings.Contains(r.Evidence[0].Text, "rx_discards_phy: 58591428329") {
		t.Errorf("evidence %+v", r.Evidence)
	}
}

// synthetic: a before/after pair of `ethtool -S <if> | grep prio`, shaped
// like the pair in bytedance/byteps#179 (values invented).
const syntheticPrioPair = `$ ethtool -S enp178s0f0 | grep prio
Before benchmarking:
` + "```" + `
     rx_prio0_bytes: 1000000
     rx_prio0_packets: 1000
     tx_prio0_bytes: 2000000
     tx_prio0_packets: 2000
     rx_prio3_bytes: 0
     tx_prio3_bytes: 0
` + "```" + `
After:
` + "```" + `
     rx_prio0_bytes: 5000000
     rx_prio0_packets: 5000
     tx_prio0_bytes: 9000000
     tx_prio0_packets: 9000
     rx_prio3_bytes: 0
     tx_prio3_bytes: 0
` + "```" + `
`

func TestEthtoolBeforeAfterDelta(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-prio-pair", syntheticPrioPair))
	if len(e.Samples) != 1 {
		t.Fatalf("%d samples, want one joined pair", len(e.Samples))
	}
	s := &e.Samples[0]
	if !s.IsDelta() || s.Device != "enp178s0f0" {
		t.Fatalf("delta %v device %q", s.IsDelta(), s.Device)
	}
	r, ok := s.PrioBytes(TX, 0)
	if !ok || r.Value != 7000000 || len(r.Evidence) != 2 {
		t.Errorf("tx prio0 delta = %+v", r)
	}
	if got := nicValue(t, s, "rx_prio3_bytes"); got != 0 {
		t.Errorf("rx_prio3 delta %d", got)
	}
}

func TestEthtoolDeltaAcrossInputs(t *testing.T) {
	before := nicArtifact[*EthtoolStats](t, nicReadText(t, "before", "ethtool -S eth2\nNIC statistics:\n     rx_discards_phy: 10\n     rx_packets_phy: 100\n"))
	after := nicArtifact[*EthtoolStats](t, nicReadText(t, "after", "ethtool -S eth2\nNIC statistics:\n     rx_discards_phy: 25\n     rx_packets_phy: 900\n"))
	other := nicArtifact[*EthtoolStats](t, nicReadText(t, "other", "ethtool -S eth3\nNIC statistics:\n     rx_discards_phy: 1\n"))
	merged, dropped := MergeSamples(append(append(before.Samples, other.Samples...), after.Samples...))
	if dropped != 0 || len(merged) != 2 {
		t.Fatalf("merged %d (dropped %d), want 2", len(merged), dropped)
	}
	s := &merged[0]
	if !s.IsDelta() || nicValue(t, s, "rx_discards_phy") != 15 || nicValue(t, s, "rx_packets_phy") != 800 {
		t.Errorf("eth2 delta wrong: %v", s.IsDelta())
	}
	// A counter that went down (driver reload) keeps the dumps apart.
	reload := nicArtifact[*EthtoolStats](t, nicReadText(t, "reload", "ethtool -S eth2\nNIC statistics:\n     rx_discards_phy: 3\n     rx_packets_phy: 50\n"))
	merged, _ = MergeSamples(append(append([]CounterSample{}, before.Samples...), reload.Samples...))
	if len(merged) != 2 || merged[0].IsDelta() {
		t.Errorf("reload joined: %d samples", len(merged))
	}
}

// synthetic: bnxt_en names, with ethtool -i, ethtool <if> and ethtool -a in
// the same paste.
const syntheticBnxt = `[root@gpu07 ~]# ethtool -i ens1f0np0
driver: bnxt_en
version: 1.10.2
firmware-version: 220.0.59.0/pkg 22.31.06.60
bus-info: 0000:41:00.0
[root@gpu07 ~]# ethtool ens1f0np0
Settings for ens1f0np0:
	Supported ports: [ FIBRE ]
	Speed: 200000Mb/s
	Duplex: Full
[root@gpu07 ~]# ethtool -a ens1f0np0
Pause parameters for ens1f0np0:
Autonegotiate:	off
RX:		on
TX:		on
[root@gpu07 ~]# ethtool -S ens1f0np0
NIC statistics:
     rx_bytes_pri3: 123456789
     tx_bytes_pri3: 987654321
     rx_bytes_pri0: 1000
     tx_bytes_pri0: 2000
     rx_pfc_ena_frames_pri3: 77
     tx_pfc_ena_frames_pri3: 5
     pfc_pri3_rx_duration_us: 1234
     rx_pause_frames: 0
     tx_pause_frames: 0
     rx_discard_packets_cos3: 9
     rx_total_frames: 1000000
`

func TestEthtoolBnxtAndSettings(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-bnxt", syntheticBnxt))
	if len(e.Samples) != 1 {
		t.Fatalf("%d samples", len(e.Samples))
	}
	s := &e.Samples[0]
	if s.Driver != "bnxt_en" || s.Device != "ens1f0np0" || s.Host != "gpu07" {
		t.Errorf("driver %q device %q host %q", s.Driver, s.Device, s.Host)
	}
	if r, ok := s.PrioBytes(RX, 3); !ok || r.Value != 123456789 {
		t.Errorf("PrioBytes(RX,3) = %+v", r)
	}
	if r, ok := s.PFCFrames(RX, 3); !ok || r.Value != 77 {
		t.Errorf("PFCFrames(RX,3) = %+v", r)
	}
	if r, ok := s.PFCDuration(RX, 3); !ok || r.Value != 1234 {
		t.Errorf("PFCDuration(RX,3) = %+v", r)
	}
	if r, ok := s.GlobalPause(TX); !ok || r.Name != "tx_pause_frames" {
		t.Errorf("GlobalPause(TX) = %+v", r)
	}
	if r, ok := s.PortRxPackets(); !ok || r.Value != 1000000 {
		t.Errorf("PortRxPackets = %+v", r)
	}
	if len(e.Speeds) != 1 || e.Speeds[0].Rate != 200*unit.Gbps || e.Speeds[0].Device != "ens1f0np0" {
		t.Errorf("speeds %+v", e.Speeds)
	}
	if len(e.Pause) != 1 || !e.Pause[0].RX || !e.Pause[0].TX || e.Pause[0].Device != "ens1f0np0" {
		t.Errorf("pause %+v", e.Pause)
	}
}

// synthetic: be2net names, CRLF line ends, ANSI colour and Markdown quoting.
const syntheticBe2netPaste = "> \x1b[1m$ ethtool -S eth4\x1b[0m\r\n> NIC statistics:\r\n>      rx_priority_pause_frames: 12\r\n>      rx_pause_frames: 3\r\n>      tx_pauseframes: 4\r\n>      rx_drops_no_pbuf: 8\r\n"

func TestEthtoolBe2netPasteNoise(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-be2net", syntheticBe2netPaste))
	s := &e.Samples[0]
	if s.Device != "eth4" {
		t.Errorf("device %q", s.Device)
	}
	if r, ok := s.PFCTotal(RX); !ok || r.Value != 12 {
		t.Errorf("PFCTotal = %+v", r)
	}
	if r, ok := s.GlobalPause(TX); !ok || r.Name != "tx_pauseframes" || r.Value != 4 {
		t.Errorf("GlobalPause = %+v", r)
	}
	if got := nicValue(t, s, "rx_drops_no_pbuf"); got != 8 {
		t.Errorf("rx_drops_no_pbuf %d", got)
	}
}

func TestEthtoolTruncatedAndRepeated(t *testing.T) {
	// synthetic: a dump cut mid-line, then a second dump with no header
	// whose repeated names start a new (later) dump of the same port.
	in := "ethtool -S eth0\nNIC statistics:\n     rx_prio3_bytes: 100\n     tx_prio3_bytes: 200\n     rx_prio3_pack"
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-trunc", in))
	if len(e.Samples) != 1 || e.Samples[0].After.Len() != 2 {
		t.Fatalf("samples %d", len(e.Samples))
	}
	in = "ethtool -S eth0\n     rx_prio3_bytes: 100\n     tx_prio3_bytes: 200\n     rx_prio3_bytes: 150\n     tx_prio3_bytes: 260\n"
	e = nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-repeat", in))
	if len(e.Samples) != 1 || !e.Samples[0].IsDelta() || nicValue(t, &e.Samples[0], "tx_prio3_bytes") != 60 {
		t.Fatalf("repeated names not read as before/after")
	}
}

func TestEthtoolIgnoresOtherFormats(t *testing.T) {
	for _, rel := range []string{
		"ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt",
		"perftest/ib-write-bw-roce-gid3-duration-no-peak-perftest234.txt",
		"ethtool/ibv-devinfo-gid-table-linklocal-v2-fails-issue769.txt",
	} {
		nicNoArtifact[*EthtoolStats](t, nicReadCorpus(t, rel))
	}
	// show_counters blocks are hw_counters, not ethtool.
	nicNoArtifact[*EthtoolStats](t, nicReadText(t, "synthetic", "Port 1 hw counters:\n    rx_write_requests: 5\n    out_of_sequence: 2\n"))
}

func TestPerRing(t *testing.T) {
	for n, want := range map[string]bool{
		"rx0_packets": true, "tx12_bytes": true, "ch3_events": true, "rx_prio0_bytes": false,
		"rx_packets": false, "rx_64_bytes_phy": false, "tx_xsk0_xmit": true, "rx_xsk1_packets": true,
	} {
		if perRing(n) != want {
			t.Errorf("perRing(%q) = %v", n, !want)
		}
	}
}

// synthetic: `ethtool -S` of two hosts run under a launcher that tags each
// line with its host in torchrun's form ("[gpu01]:").
const syntheticElasticTaggedHosts = `[gpu01]:NIC statistics:
[gpu01]:     rx_packets_phy: 1000
[gpu01]:     rx_crc_errors_phy: 1
[gpu02]:NIC statistics:
[gpu02]:     rx_packets_phy: 1100
[gpu02]:     rx_crc_errors_phy: 900
`

// TestEthtoolElasticTaggedHostsApart: the dumps of two tagged sources are
// two samples, each of its tag, never one before/after pair (the counters
// grow from one to the other, as a pair's would).
func TestEthtoolElasticTaggedHostsApart(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-elastic-hosts", syntheticElasticTaggedHosts))
	checkTaggedApart(t, e.Samples, "gpu01", "gpu02")
}
