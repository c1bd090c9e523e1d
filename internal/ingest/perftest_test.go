package ingest

import (
	"math"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

func nicNear(a, b unit.BitRate) bool { return math.Abs(float64(a-b)) <= 1 }

func TestPerftestUCXReadBW(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/ib-read-bw-ib-hdr-table-ucx8852.txt"))
	if len(p.Runs) != 1 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	r := p.Runs[0]
	if r.Test != "ib_read_bw" || r.Device != "mlx5_1" || r.LinkType != "IB" || r.MTU != 4096 || r.OutstandReads != 16 ||
		r.TXDepth != 128 || r.Host != "cn3" || r.Peer != "cn2" || r.GIDIndex != -1 || r.Connection != "RC" || r.QPs != 1 {
		t.Errorf("banner %+v", r)
	}
	if r.Local == nil || r.Local.LID != "0x06" || r.Remote == nil || r.Remote.QPN != "0x0d24" {
		t.Errorf("addresses %+v %+v", r.Local, r.Remote)
	}
	if len(r.Rows) != 7 {
		t.Fatalf("%d rows", len(r.Rows))
	}
	last := r.Rows[6]
	// 310.05 MB/sec = 310.05 * 2^20 * 8 bit/s.
	if last.Bytes != 128 || last.Iterations != 1000 || !nicNear(last.BWAvg, unit.BitRate(math.Round(310.05*8*1048576))) || last.MsgRateMpps != 2.539960 {
		t.Errorf("last row %+v", last)
	}
	if len(p.GIDUses()) != 0 {
		t.Error("InfiniBand run reported a GID use")
	}
}

func TestPerftestDurationModeRoCE(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/ib-write-bw-roce-gid3-duration-no-peak-perftest234.txt"))
	if len(p.Runs) != 1 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	r := p.Runs[0]
	if r.Test != "ib_write_bw" || !r.DurationMode || r.GIDIndex != 3 || r.LinkType != "Ethernet" || r.MTU != 4096 || r.Device != "mlx5_0" {
		t.Errorf("run %+v", r)
	}
	if r.Local.GID != "::ffff:10.255.255.5" || r.Local.IPv4 != "10.255.255.5" || r.Remote.IPv4 != "10.255.255.4" {
		t.Errorf("GIDs %q %q", r.Local.GID, r.Remote.GID)
	}
	if len(r.Rows) != 0 {
		t.Errorf("rows from a truncated table: %+v", r.Rows)
	}
	uses := p.GIDUses()
	if len(uses) != 1 || uses[0].Index != 3 || uses[0].Device != "mlx5_0" || uses[0].Evidence.Line == 0 {
		t.Errorf("uses %+v", uses)
	}
	es := p.GIDEntries()
	if len(es) != 1 || es[0].Index != 3 || es[0].IPv4 != "10.255.255.5" {
		t.Errorf("entries %+v", es)
	}
}

func TestPerftestLatencyConnectX3(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/ib-write-lat-connectx3-roce-mtu1024-rdmatutorial8.txt"))
	r := p.Runs[0]
	if r.Test != "ib_write_lat" || !r.Latency || r.MTU != 1024 || r.GIDIndex != 1 || r.Device != "mlx4_0" || r.Local.IPv4 != "12.12.12.1" {
		t.Errorf("run %+v", r)
	}
	if len(r.Warnings) != 2 {
		t.Errorf("warnings %d, want the SQ-size pair", len(r.Warnings))
	}
}

func TestPerftestSummaryTable(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/perftest-summary-table-400g-roce-ccimoc.txt"))
	if len(p.Runs) != 6 {
		t.Fatalf("%d runs, want 3 bidirectional + 3 unidirectional", len(p.Runs))
	}
	w := p.Runs[1]
	if w.Test != "ib_write_bw" || !w.Summary || !w.Bidirectional || len(w.Rows) != 23 || w.PeakRate != 400*unit.Gbps {
		t.Fatalf("write run %+v", w)
	}
	if w.Rows[19].Bytes != 1048576 || !nicNear(w.Rows[19].BWAvg, unit.BitRate(math.Round(47331.84*8*1048576))) {
		t.Errorf("1 MiB row %+v", w.Rows[19])
	}
	u := p.Runs[5]
	if u.Test != "ib_read_bw" || u.Bidirectional || len(u.Rows) != 1 || !nicNear(u.Rows[0].BWAvg, unit.BitRate(math.Round(10256.88*8*1048576))) {
		t.Errorf("unidirectional read %+v", u)
	}
	if ls := p.LinkSpeeds(); len(ls) != 6 || ls[0].Rate != 400*unit.Gbps {
		t.Errorf("link speeds %+v", ls)
	}
}

// synthetic: client output with --report_gbits, then a failed run with a
// completion error in both message forms. (A latency table with CPU
// frequency warnings inside it is real: TestPerftestRealFailureAndNoise.)
const syntheticPerftestRuns = `[root@node3 bin]# ib_write_bw -a -d mlx5_0 --report_gbits -x 3 node1
---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF		Device         : mlx5_0
 Number of qps   : 2		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 TX depth        : 128
 Mtu             : 4096[B]
 Link type       : Ethernet
 GID index       : 3
 Max inline data : 0[B]
 rdma_cm QPs	 : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 local address: LID 0000 QPN 0x27d8 PSN 0x79f042
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:01:39
 remote address: LID 0000 QPN 0x1c901 PSN 0x6726b1
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:01:06
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      5000             92.50              92.41              0.176
 1048576    5000             96.80              96.75              0.011536
---------------------------------------------------------------------------------------
                    Send BW Test
 Link type       : Ethernet
 GID index       : 0
Failed to modify QP 59 to RTR
 Unable to Connect the HCA's through the link
                    RDMA_Write BW Test
 Completion with error at client
 Failed status 12: wr_id 0 syndrom 0x81
scnt=128, ccnt=0
                    RDMA_Write BW Test
 Completion with error at client
 Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81
ethernet_read_keys: Couldn't read remote address
 Unable to read to socket/rdma_cm
`

func TestPerftestSyntheticRuns(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadText(t, "synthetic-perftest", syntheticPerftestRuns))
	if len(p.Runs) != 4 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	w := p.Runs[0]
	if w.QPs != 2 || w.GIDIndex != 3 || w.Host != "node3" || w.Peer != "node1" || len(w.Rows) != 2 {
		t.Fatalf("write run %+v", w)
	}
	if w.Rows[1].BWAvg != unit.BitRate(96.75e9) || w.Rows[1].BWPeak != unit.BitRate(96.8e9) || w.Rows[0].Bytes != 65536 {
		t.Errorf("gbits rows %+v", w.Rows)
	}
	if w.Local.IPv4 != "192.168.1.39" {
		t.Errorf("local %q", w.Local.IPv4)
	}
	s := p.Runs[1]
	if s.Test != "ib_send_bw" || len(s.Failures) != 2 || s.Failures[0].Kind != FailModifyQP || s.Failures[1].Kind != FailConnect {
		t.Errorf("send failures %+v", s.Failures)
	}
	c := p.Runs[2]
	if len(c.Failures) != 2 || c.Failures[1].Status != 12 || c.Failures[1].Vendor != "0x81" {
		t.Errorf("completion failures %+v", c.Failures)
	}
	x := p.Runs[3]
	if len(x.Failures) != 4 || x.Failures[1].Status != 12 || x.Failures[2].Kind != FailExchange || x.Failures[3].Kind != FailExchange {
		t.Errorf("exchange failures %+v", x.Failures)
	}
}

// Real outputs: a latency table indented as a Markdown code block with
// CPU frequency warnings between its header and row (spiderpool's docs);
// a server whose socket read fails after the addresses were exchanged
// (nminoru/pib#3); a completion error with its status, the counts line
// and the test loop's abort (linux-rdma/perftest#173).
func TestPerftestRealFailureAndNoise(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/ib-read-lat-ib-8-space-indent-cpu-freq-in-table-spiderpool.txt"))
	if len(p.Runs) != 1 || len(p.Runs[0].Rows) != 1 || len(p.Runs[0].Warnings) != 2 {
		t.Fatalf("runs %+v", p.Runs)
	}
	row := p.Runs[0].Rows[0]
	if row.TMin != 1.84 || row.TMax != 12.20 || row.TTypical != 1.90 || row.TAvg != 1.97 || row.P99 != 2.24 || row.P999 != 12.20 || row.LatUnit != "usec" {
		t.Errorf("lat row %+v", row)
	}
	p = nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/perftest-read-bw-pib-server-exchange-fails-after-addresses-pib3.txt"))
	if len(p.Runs) != 1 || len(p.Runs[0].Failures) != 3 {
		t.Fatalf("runs %+v", p.Runs)
	}
	for _, f := range p.Runs[0].Failures {
		if f.Kind != FailExchange || !f.Exchanged {
			t.Errorf("failure %+v", f)
		}
	}
	p = nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/perftest-write-bw-bidir-use-cuda-completion-status4-syndrom-0x51-perftest173.txt"))
	if len(p.Runs) != 1 || len(p.Runs[0].Failures) != 3 {
		t.Fatalf("runs %+v", p.Runs)
	}
	fs := p.Runs[0].Failures
	if fs[1].Status != 4 || fs[1].Vendor != "0x51" || fs[1].Exchanged || fs[2].Kind != FailCompletion || fs[2].Evidence.Line != 7 {
		t.Errorf("failures %+v", fs)
	}
}

// perftest's test loop prints its abort line after a completion error
// and after a failed post alike (perftest_resources.c, perftest 00b55b6):
// only the first is a completion failure. Synthetic, in perftest's layout.
func TestPerftestPostSendAbort(t *testing.T) {
	head := "# synthetic\n[root@gpu01 ~]# ib_write_bw -d mlx5_0 -x 3 -t 65536 gpu02\n" +
		" local address: LID 0000 QPN 0x0107 PSN 0x6a1c2e RKey 0x1fff00 VAddr 0x007f3a2c000000\n" +
		" remote address: LID 0000 QPN 0x0108 PSN 0x2b9d01 RKey 0x1fff01 VAddr 0x007f88a0000000\n"
	p := nicArtifact[*Perftest](t, nicReadText(t, "post.txt", head+
		"Couldn't post send: qp 0 scnt=1023 || err=12 tx_depth=65536\n Failed to complete run_iter_bw function successfully\n"))
	fs := p.Runs[0].Failures
	if len(fs) != 2 || fs[0].Kind != FailPostSend || fs[0].Status != 12 || fs[1].Kind != FailAbort {
		t.Errorf("failures %+v", fs)
	}
	p = nicArtifact[*Perftest](t, nicReadText(t, "wc.txt", head+
		" Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x81\n Error occurred while running infinitely! aborting ...\n"))
	fs = p.Runs[0].Failures
	if len(fs) != 3 || fs[2].Kind != FailCompletion {
		t.Errorf("failures %+v", fs)
	}
}

func TestPerftestGID(t *testing.T) {
	for in, want := range map[string]string{
		"00:00:00:00:00:00:00:00:00:00:255:255:10:255:255:05":     "::ffff:10.255.255.5",
		"254:128:00:00:00:00:00:00:10:192:235:255:254:218:28:251": "fe80::ac0:ebff:feda:1cfb",
		"fe:80:00:00:00:00:00:00:0a:c0:eb:ff:fe:da:1c:fb":         "fe80::ac0:ebff:feda:1cfb",
		"1:2:3": "", "00:00:00:00:00:00:00:00:00:00:255:255:10:255:255:256": "",
	} {
		if got := perftestGID(in); got != want {
			t.Errorf("perftestGID(%q) = %q, want %q", in, got, want)
		}
	}
}

// A poster's Markdown bold around a result cell is read through; before,
// the whole row was dropped without a word.
func TestPerftestMarkdownBoldCell(t *testing.T) {
	p := nicArtifact[*Perftest](t, nicReadCorpus(t, "perftest/ib-send-bw-markdown-bold-bw-average-arm-perftest65.txt"))
	var rows []PerftestRow
	for _, r := range p.Runs {
		rows = append(rows, r.Rows...)
	}
	if len(rows) != 2 || len(p.Garbled) != 0 {
		t.Fatalf("rows %+v, garbled %+v", rows, p.Garbled)
	}
	// 5544.28 and 920.13 MB/sec, 2^20 bytes each.
	for i, want := range []float64{5544.28, 920.13} {
		if r := rows[i]; r.Bytes != 1024 || r.Iterations != 1000 || !nicNear(r.BWAvg, unit.BitRate(math.Round(want*8*1048576))) {
			t.Errorf("row %d = %+v, want %v MB/sec", i, r, want)
		}
	}
}

// A row with perftest's shape and a cell that is no non-negative number (a
// negative BW average, as perftest 5.60 printed in linux-rdma/perftest#82;
// synthetic figures) is garbled at the cell's column; a row of another
// table (an nccl-tests row after the perftest table) is not.
func TestPerftestGarbledCell(t *testing.T) {
	const text = ` #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      5000           0.00               -12.34               0.023
 65536      5000           0.00               92.10                0.175
        1024           256     float     sum      -1    28.15    0.04    0.07      0    27.52    0.04    0.07      0
`
	p := nicArtifact[*Perftest](t, nicReadText(t, "synthetic-negative", text))
	if len(p.Garbled) != 1 {
		t.Fatalf("garbled %+v", p.Garbled)
	}
	g := p.Garbled[0]
	if g.Line != 2 || g.Col != 47 || !strings.HasPrefix(g.Text[g.Col-1:], "-12.34") {
		t.Errorf("garble at %d:%d %q", g.Line, g.Col, g.Text)
	}
	if len(p.Runs) != 1 || len(p.Runs[0].Rows) != 1 || p.Runs[0].Rows[0].Evidence.Line != 3 {
		t.Errorf("runs %+v", p.Runs)
	}
}

// rdma-core names RoCE devices "roce" + "p"/"P" + bus position; only
// those, and runs printing Link type Ethernet, are RoCE.
func TestPerftestRunRoCE(t *testing.T) {
	for _, c := range []struct {
		dev, link string
		want      bool
	}{
		{"rocep1s0f0", "IB", true},
		{"roceP2p1s0f1", "IB", true},
		{"mlx5_0", "Ethernet", true},
		{"mlx5_0", "IB", false},
		{"ibp12s0", "IB", false},
		{"roce", "IB", false},
		{"rocepx", "IB", false},
		{"rocep1s0f0", "", false},
	} {
		r := PerftestRun{Device: c.dev, LinkType: c.link}
		if got := r.RoCE(); got != c.want {
			t.Errorf("%s %s: RoCE %v, want %v", c.dev, c.link, got, c.want)
		}
	}
}
