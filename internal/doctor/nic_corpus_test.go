package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// nicRuleID reports whether id belongs to the NIC-side rules tested here,
// so these tests ignore findings of rules other files own.
func nicRuleID(id string) bool {
	for _, p := range []string{"counters.", "perftest.", "devinfo.", "gid.", "qos.", "host.pcie.", "input.partial"} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

func nicDiagnose(t *testing.T, opts Options, rels ...string) []Finding {
	t.Helper()
	var out []Finding
	for _, f := range diagnoseFiles(t, opts, rels...) {
		if nicRuleID(f.ID) {
			out = append(out, f)
		}
	}
	return out
}

func nicNoErrors(t *testing.T, fs []Finding, prefix string) {
	t.Helper()
	for _, f := range fs {
		if f.Severity == Error && strings.HasPrefix(f.ID, prefix) {
			t.Errorf("unexpected error %s: %s", f.ID, f.Title)
		}
	}
}

// INDEX: rx_discards_phy very high with matching rx_prio0_discards;
// rx_out_of_buffer nonzero; tx_global_pause / tx_pause_ctrl_phy nonzero
// (global pause, no PFC prio counters); no RoCE counters.
func TestCorpusLKMLEthtool(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/ethtool/mlx5-xdp-rx-discards-phy-global-pause-lkml.txt")
	d := nicMustFind(t, fs, "counters.discards", Error, "rx_discards_phy 58591428329", "rx_prio0_discards 58591314012", "rx_out_of_buffer 990473555")
	if !strings.Contains(d.Title, "60.4% of rx_packets_phy") || !strings.Contains(d.Mechanism, "since driver load") {
		t.Errorf("discards finding: %s / %s", d.Title, d.Mechanism)
	}
	nicMustFind(t, fs, "counters.discards", Error, "rx_discards_phy 441063206498")
	g := nicMustFind(t, fs, "counters.pause.global", Warn, "tx_global_pause 5745042")
	if !strings.Contains(g.Mechanism, "PFC is not configured") {
		t.Errorf("pause mechanism: %s", g.Mechanism)
	}
	nicMustFind(t, fs, "counters.pause.global", Warn, "tx_global_pause 44414017")
	nicMustFind(t, fs, "counters.roce.absent", Info)
	// Not RoCE: no claim that RoCE rides the wrong priority.
	nicMustNot(t, fs, "counters.pfc.not_on_roce_priority")
	nicMustNot(t, fs, "counters.retransmission")
}

// INDEX: healthy lossless config (DCBX firmware, trust dscp, PFC only on
// prio 3, ETS 50/50, tc6 vendor for CNP); RoCEv2 IPv4 GID = index 3; dmesg
// shows a NIC limited to 63 Gb/s by PCIe Gen3 x8.
func TestCorpusCX5BlogQoS(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	ok := nicMustFind(t, fs, "qos.ok", Info, "mce0", "PFC on priority 3 only, trust dscp", "tc 3 (ets 50%)", "priority 6 (CNPs) in tc 6 vendor")
	if !strings.Contains(ok.Mechanism, "firmware-controlled") {
		t.Errorf("qos.ok mechanism %s", ok.Mechanism)
	}
	nicNoErrors(t, fs, "qos.")
	nicMustNot(t, fs, "qos.trust.pcp")
	nicMustNot(t, fs, "qos.pfc.disabled")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 3", "192.168.6.132", "NCCL_IB_GID_INDEX=3")
	p := nicMustFind(t, fs, "host.pcie.degraded", Warn, "63.0 Gb/s", "x8", "x16", "0001:42:01.0")
	if !strings.Contains(p.Fix, "lspci -vv -s 0001:43:00.0") {
		t.Errorf("pcie fix %s", p.Fix)
	}
	nicNoErrors(t, fs, "")
	// With the port speed known, a 63 Gb/s PCIe link under a 100G port is an error.
	fs = nicDiagnose(t, Options{NICSpeed: 100 * unit.Gbps}, "corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	nicMustFind(t, fs, "host.pcie.degraded", Error, "below the 100.0 Gb/s port")
}

// INDEX: standard GID layout; RoCEv2 routable GID = 3.
func TestCorpusShowGIDs1131(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/ethtool/show-gids-h100-gid0-3-issue1131.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "RoCEv2 IPv4 GID is index 3", "mlx5_0 11.0.0.72", "mlx5_1 11.0.0.73", "NCCL_IB_GID_INDEX=3")
	nicMustNot(t, fs, "gid.index.mismatch")
	nicNoErrors(t, fs, "")
}

// INDEX: GID index 1 = link-local fe80:: RoCEv2 (fails); index 3 =
// ::ffff:200.0.209.6 RoCEv2 works.
func TestCorpusDevinfo769(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/ethtool/ibv-devinfo-gid-table-linklocal-v2-fails-issue769.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 3", "200.0.209.6", "NCCL_IB_GID_INDEX=3")
	nicNoErrors(t, fs, "gid.")
}

// fakeGIDUser stands in for an NCCL log that states NCCL_IB_GID_INDEX.
type nicFakeGIDUser struct {
	ingest.Scoped
	uses []ingest.GIDUse
}

func (f *nicFakeGIDUser) Kind() ingest.Kind        { return ingest.KindNCCLLog }
func (f *nicFakeGIDUser) Source() string           { return "fake-nccl.log" }
func (f *nicFakeGIDUser) Lines() int               { return len(f.uses) }
func (f *nicFakeGIDUser) GIDUses() []ingest.GIDUse { return f.uses }
func nicUse(host, dev string, idx int) ingest.GIDUse {
	return ingest.GIDUse{Host: host, Device: dev, Index: idx, Evidence: Evidence{File: "fake-nccl.log", Line: 1, Text: "NCCL_IB_GID_INDEX set by environment to " + string(rune('0'+idx))}}
}

// The issue #769 case across artifacts: an NCCL GID index of 1 against the
// ibv_devinfo table in which index 1 is the link-local RoCE v2 GID.
func TestGIDUseAcrossArtifacts(t *testing.T) {
	table := nicReadArtifacts(t, "corpus/ethtool/ibv-devinfo-gid-table-linklocal-v2-fails-issue769.txt")
	check := func(uses ...ingest.GIDUse) []Finding {
		inc := &Incident{Artifacts: append(append([]ingest.Artifact{}, table...), &nicFakeGIDUser{uses: uses})}
		return Check(inc)
	}
	fs := check(nicUse("node1", "", 1))
	ll := nicMustFind(t, fs, "gid.index.link_local", Error, "GID index 1", "fe80::ac0:ebff:feda:1cfb")
	// The table row, the index in use, and the ibv_modify_qp timeout the
	// issue shows, which is this finding's evidence, not a separate one.
	if len(ll.Evidence) != 3 || ll.Evidence[0].Line != 4 || ll.Evidence[1].Line != 11 || ll.Evidence[2].File != "fake-nccl.log" {
		t.Errorf("evidence %+v", ll.Evidence)
	}
	nicMustNot(t, Check(&Incident{Artifacts: append(append([]ingest.Artifact{}, table...), &nicFakeGIDUser{uses: []ingest.GIDUse{nicUse("node1", "", 1)}})}), "nccl.ib.qp_setup_failed")
	nicMustNot(t, fs, "gid.index.roce_v2")
	nicMustFind(t, check(nicUse("node1", "mlx5_bond_0", 2)), "gid.index.roce_v1", Error, "GID index 2")
	nicMustFind(t, check(nicUse("node1", "", 3)), "gid.index.roce_v2", Info, "GID index 3 in use is the RoCEv2 GID", "200.0.209.6")
	// Index 0 with no table to say what it holds.
	fs = Check(&Incident{Artifacts: []ingest.Artifact{&nicFakeGIDUser{uses: []ingest.GIDUse{nicUse("node1", "", 0)}}}})
	nicMustFind(t, fs, "gid.index.default_zero", Warn, "GID index 0")
	// Two hosts on different indices.
	fs = Check(&Incident{Artifacts: []ingest.Artifact{&nicFakeGIDUser{uses: []ingest.GIDUse{nicUse("node1", "", 3), nicUse("node2", "", 1)}}}})
	nicMustFind(t, fs, "gid.index.mismatch", Warn, "3 on node1", "1 on node2")
	// One host retrying with another index is not a mismatch.
	fs = Check(&Incident{Artifacts: []ingest.Artifact{&nicFakeGIDUser{uses: []ingest.GIDUse{nicUse("node1", "", 3), nicUse("node1", "", 1)}}}})
	nicMustNot(t, fs, "gid.index.mismatch")
}

// INDEX: InfiniBand (not RoCE) read BW; small-message rate ~2.55 Mpps.
func TestCorpusPerftestUCX(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/perftest/ib-read-bw-ib-hdr-table-ucx8852.txt")
	u := nicMustFind(t, fs, "perftest.bw.unjudged", Info, "ib_read_bw on mlx5_1", "128B", "2.54 Mpps")
	if !strings.Contains(u.Mechanism, "message rate") {
		t.Errorf("mechanism %s", u.Mechanism)
	}
	for _, f := range fs {
		if f.Severity != Info {
			t.Errorf("%s on an InfiniBand run: %s", f.ID, f.Title)
		}
	}
	// Small messages are message-rate bound: no bandwidth verdict even with a rate.
	fs = nicDiagnose(t, Options{NICSpeed: 200 * unit.Gbps}, "corpus/perftest/ib-read-bw-ib-hdr-table-ucx8852.txt")
	nicMustNot(t, fs, "perftest.bw.low")
}

func TestPerftestHealthyAndUnknownRate(t *testing.T) {
	// synthetic: one ib_write_bw row at 1 MiB, 96.75 Gb/s.
	in := "                    RDMA_Write BW Test\n Device         : mlx5_0\n Link type       : Ethernet\n Mtu             : 4096[B]\n" +
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 1048576    5000             96.80              96.75              0.011536\n"
	res, err := ingest.Read("synthetic-perftest", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(&Incident{Options: Options{NICSpeed: 100 * unit.Gbps}, Artifacts: res.Artifacts})
	nicMustFind(t, fs, "perftest.bw.ok", Info, "96.8 Gb/s = 97% of the 100.0 Gb/s link rate")
	nicMustNot(t, fs, "perftest.bw.low")
	fs = Check(&Incident{Artifacts: res.Artifacts})
	nicMustFind(t, fs, "perftest.bw.unjudged", Info, "line rate is not known")
	// Against a 200G port the same run is low.
	fs = Check(&Incident{Options: Options{NICSpeed: 200 * unit.Gbps}, Artifacts: res.Artifacts})
	nicMustFind(t, fs, "perftest.bw.low", Error, "48% of the 200.0 Gb/s")
}

// INDEX: RoCE GID index 3 (IPv4-mapped), MTU 4096; -D duration mode.
// perftest's banner does not print the RoCE version,
// so the finding claims an IPv4 GID, not a RoCEv2 one.
func TestCorpusPerftest234(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/perftest/ib-write-bw-roce-gid3-duration-no-peak-perftest234.txt")
	nicMustFind(t, fs, "gid.index.ipv4", Info, "GID index 3", "::ffff:10.255.255.5", "RoCE version is not shown")
	nicMustNot(t, fs, "gid.index.roce_v2")
	nicMustNot(t, fs, "perftest.mtu.small")
	nicMustNot(t, fs, "perftest.connect.failed")
	nicNoErrors(t, fs, "")
}

// INDEX: ib_write_lat over RoCE on ConnectX-3: GID index 1 (IPv4-mapped),
// MTU 1024.
func TestCorpusPerftestCX3Lat(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/perftest/ib-write-lat-connectx3-roce-mtu1024-rdmatutorial8.txt")
	m := nicMustFind(t, fs, "perftest.mtu.small", Warn, "MTU 1024", "mlx4_0")
	if !strings.Contains(m.Fix, "mtu 9000") {
		t.Errorf("fix %s", m.Fix)
	}
	nicMustFind(t, fs, "gid.index.ipv4", Info, "GID index 1", "12.12.12.1")
	nicMustNot(t, fs, "gid.index.link_local")
}

// INDEX: 400G port; bidirectional write 47331.84 MB/s at 1 MiB, read
// ~20 GB/s; unidirectional best 26.9 GB/s write/send and 10.3 GB/s read vs
// 400 Gb/s.
func TestCorpusPerftestSummary(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/perftest/perftest-summary-table-400g-roce-ccimoc.txt")
	nicMustFind(t, fs, "perftest.bw.low", Error, "ib_write_bw", "397.0 Gb/s at 1MiB", "50%", "bidirectional")
	nicMustFind(t, fs, "perftest.bw.low", Error, "ib_read_bw", "174.9 Gb/s", "22%")
	nicMustFind(t, fs, "perftest.bw.low", Warn, "ib_write_bw", "225.7 Gb/s", "56% of the 400.0 Gb/s link rate")
	nicMustFind(t, fs, "perftest.bw.low", Error, "ib_read_bw", "86.0 Gb/s")
	if n := len(nicFind(fs, "perftest.bw.low")); n != 6 {
		t.Errorf("%d bw findings, want one per test and table (6)", n)
	}
}

func TestSyntheticPrio0Delta(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "synthetic/prio0-before-after-synthetic.txt")
	f := nicMustFind(t, fs, "counters.pfc.not_on_roce_priority", Error, "ens3np0", "priority 0", "lossless priority 3")
	if !strings.Contains(f.Mechanism, "during the window") || !strings.Contains(f.Fix, "--pfc 0,0,0,1,0,0,0,0") || !strings.Contains(f.Fix, "NCCL_IB_TC=106") {
		t.Errorf("finding %+v", f)
	}
	// Delta evidence cites both dumps.
	if len(f.Evidence) < 4 {
		t.Errorf("evidence %v", f.Evidence)
	}
	d := nicMustFind(t, fs, "counters.discards", Error, "rx_discards_phy 100000")
	if !strings.Contains(d.Title, "2.44% of rx_packets_phy") {
		t.Errorf("discard ratio: %s", d.Title)
	}
	nicMustNot(t, fs, "counters.roce.absent")
}

func TestSyntheticPrio0Cumulative(t *testing.T) {
	// Only the first dump: the same picture since driver load is a warning.
	path := filepath.Join(t.TempDir(), "one-dump-synthetic.txt")
	b, err := os.ReadFile(nicTestdata("synthetic/prio0-before-after-synthetic.txt"))
	if err != nil {
		t.Fatal(err)
	}
	first := b[:bytes.LastIndex(b, []byte("[root@gpu01"))]
	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := Diagnose([]string{path}, nil, Options{})
	f := nicMustFind(t, rep.Findings, "counters.pfc.not_on_roce_priority", Warn, "priority 0")
	if !strings.Contains(f.Mechanism, "since driver load") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

func TestSyntheticHWCounters(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "synthetic/hwcounters-retrans-ecn-synthetic.txt")
	r := nicMustFind(t, fs, "counters.retransmission", Error, "local_ack_timeout_err 3", "out_of_sequence 5000", "packet_seq_err 400")
	if !strings.Contains(r.Mechanism, "go-back-N") || !strings.Contains(r.Mechanism, "retry_cnt") {
		t.Errorf("mechanism %s", r.Mechanism)
	}
	nicMustFind(t, fs, "counters.ecn.heavy_marking", Warn, "4.00% of received RoCE packets")
}

func TestSyntheticQoSDefaults(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "synthetic/mlnx-qos-pcp-pfc-off-synthetic.txt")
	nicMustFind(t, fs, "qos.pfc.disabled", Error, "ens3np0", "every priority")
	p := nicMustFind(t, fs, "qos.trust.pcp", Warn, "ens3np0")
	if !strings.Contains(p.Fix, "mlnx_qos -i ens3np0 --trust dscp") {
		t.Errorf("fix %s", p.Fix)
	}
	nicMustNot(t, fs, "qos.ok")
}

func TestSyntheticPerftestFailures(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "synthetic/perftest-failures-synthetic.txt")
	nicMustFind(t, fs, "perftest.connect.failed", Error, "modify QP to RTR")
	c := nicMustFind(t, fs, "perftest.connect.failed", Error, "status 12", "IBV_WC_RETRY_EXC_ERR", "0x81")
	if !strings.Contains(c.Mechanism, "retry_cnt") {
		t.Errorf("mechanism %s", c.Mechanism)
	}
	nicMustFind(t, fs, "gid.index.link_local", Error, "GID index 0")
	nicMustNot(t, fs, "gid.index.mismatch")
}

func TestDiagnoseDeterministic(t *testing.T) {
	paths := []string{nicTestdata("corpus"), nicTestdata("synthetic")}
	var first []byte
	for i := 0; i < 3; i++ {
		var b bytes.Buffer
		if err := Diagnose(paths, nil, Options{}).WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatal("same input, different output")
		}
	}
}

func TestMixedTrafficIsNotMisclassified(t *testing.T) {
	// synthetic: RoCE on priority 3 beside a larger TCP share on priority 0.
	in := "ethtool -S ens3np0\nNIC statistics:\n     rx_vport_unicast_packets: 10\n     rx_vport_rdma_unicast_packets: 100\n" +
		"     rx_prio0_bytes: 7000\n     tx_prio0_bytes: 7000\n     rx_prio3_bytes: 3000\n     tx_prio3_bytes: 3000\n     rx_prio3_pause: 5\n     tx_prio3_pause: 0\n"
	res, err := ingest.Read("synthetic-mixed", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(&Incident{Artifacts: res.Artifacts})
	nicMustNot(t, fs, "counters.pfc.not_on_roce_priority")
	nicMustFind(t, fs, "counters.pfc.ok", Info, "30% of bytes on PFC priority 3", "rx_prio3_pause 5")
}

// Every finding cites each line once, in input order, and every NIC-side
// finding has evidence.
func TestEvidenceInvariants(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus"), nicTestdata("synthetic")}, nil, Options{NICSpeed: 100 * unit.Gbps})
	for _, f := range rep.Findings {
		if !nicRuleID(f.ID) {
			continue
		}
		if len(f.Evidence) == 0 {
			t.Errorf("%s %q: no evidence", f.ID, f.Title)
		}
		for i := 1; i < len(f.Evidence); i++ {
			a, b := f.Evidence[i-1], f.Evidence[i]
			if a.File == b.File && a.Line >= b.Line && !(a.Line == 0 && b.Line == 0) {
				t.Errorf("%s %q: evidence out of order or repeated: %v, %v", f.ID, f.Title, a, b)
			}
		}
	}
}
