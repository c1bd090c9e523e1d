package perftest_test

import (
	"bytes"
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/golden"
	"rocelab/internal/ingest"
	"rocelab/internal/perftest"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

var update = flag.Bool("update", false, "rewrite testdata/*.txt")

// runTests runs perftest commands between the two hosts of a 100G switch
// and returns the tests.
func runTests(t *testing.T, cmds ...string) []*perftest.Test {
	t.Helper()
	y := "name: pt\ntopology: {kind: single-switch, hosts: 2, host_link: {rate: 100G, cable: 3m}}\ntraffic:\n  perftest:\n"
	for _, c := range cmds {
		y += "    - {command: \"" + c + "\", client: h0, server: h1}\n"
	}
	s, err := scenario.Load("pt.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	tw, err := scenario.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	tw.Run()
	for _, p := range tw.Perftests {
		if !p.Done() || p.Err != nil {
			t.Fatalf("%s: done %v, error %+v", p.Opts.Command, p.Done(), p.Err)
		}
	}
	return tw.Perftests
}

// parse reads a test's output with the doctor's parser.
func parse(t *testing.T, p *perftest.Test) *ingest.Perftest {
	t.Helper()
	var b bytes.Buffer
	p.WriteTo(&b)
	res, err := ingest.Read("pt.txt", &b)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if pt, ok := a.(*ingest.Perftest); ok && len(pt.Runs) == 1 {
			return pt
		}
	}
	t.Fatalf("the doctor's parser does not read\n%s", b.String())
	return nil
}

// TestWriteBWLineRate: one QP writing 64 KiB messages on an idle 100G
// path reaches the single-flow goodput the twin's physics allow,
// 100 G × 4096 / (4096 + 82) = 98.04 Gb/s, less the first packet's
// latency and the last ACK over 5000 messages; the doctor's parser reads
// the row back as printed.
func TestWriteBWLineRate(t *testing.T) {
	p := runTests(t, "ib_write_bw -s 65536 -n 5000 --report_gbits")[0]
	r := p.Rows[0]
	want := 100e9 * 4096 / (4096 + 82) / 8
	if math.Abs(r.AvgBps-want)/want > 0.005 || r.PeakBps < r.AvgBps {
		t.Errorf("average %.4g B/s, peak %.4g: want %.4g B/s within 0.5%%, peak at least the average", r.AvgBps, r.PeakBps, want)
	}
	pt := parse(t, p)
	run := pt.Runs[0]
	if run.Test != "ib_write_bw" || run.LinkType != "Ethernet" || run.GIDIndex != 3 || run.MTU != 4096 || run.Device != "mlx5_0" || len(run.Rows) != 1 {
		t.Fatalf("parsed %+v", run)
	}
	got := float64(run.Rows[0].BWAvg) / 8
	if math.Abs(got-r.AvgBps)/r.AvgBps > 1e-3 || run.Rows[0].Iterations != 5000 {
		t.Errorf("parsed average %.6g B/s, the twin measured %.6g", got, r.AvgBps)
	}
}

// TestSendLatency: the ping-pong's one-way latency is the wire time of a
// 64 B SEND through one switch — two cable delays (3 m, 15 ns each), two
// serializations (7 ns each at 100G) and the PHY's FEC jitter — and the
// completion's way to the host that answers (the CQE's DMA and the poll
// that finds it, 200 ns), which the wire time partly overlaps. The twin
// models no other NIC or PCIe processing, which a real ib_send_lat adds
// (about 1 µs in all). The doctor reads t_typical back.
func TestSendLatency(t *testing.T) {
	p := runTests(t, "ib_send_lat -s 64 -n 1000")[0]
	r := p.Rows[0]
	if r.Min < 0.2 || r.Typical > 0.4 || r.P999 < r.Typical {
		t.Errorf("latency %+v", r)
	}
	run := parse(t, p).Runs[0]
	if run.Test != "ib_send_lat" || len(run.Rows) != 1 || math.Abs(run.Rows[0].TTypical-r.Typical) > 0.006 {
		t.Errorf("parsed %+v, twin %+v", run.Rows, r)
	}
}

// TestReports checks the report formulas against perftest's on
// hand-made timestamps: the average over first post to last completion,
// the peak over the best window read every CQ moderation, and the
// latency median, tail drop and percentiles.
func TestReports(t *testing.T) {
	us := func(x float64) unit.Time { return unit.Time(x * float64(unit.Microsecond)) }
	// Four 1000 B messages posted at 0, completed at 10, 11, 12, 20 µs.
	row := perftest.BWRow(1000, []unit.Time{0, 0, 0, 0}, []unit.Time{us(10), us(11), us(12), us(20)}, 1)
	if math.Abs(row.AvgBps-4000/20e-6) > 1 || math.Abs(row.PeakBps-1000/4e-6) > 1 {
		t.Errorf("bw row %+v: want average 2e8 B/s, peak 2.5e8 (3 messages in 12 µs)", row)
	}
	// Posts every 2 µs (1 µs one way), three slow round trips of 10 µs:
	// perftest drops the two largest samples, so the third is its t_max
	// and its 99% and 99.9% (indices ceil(97·q) of the 99 sorted).
	posts := []unit.Time{0}
	for i := 1; i < 100; i++ {
		d := 2.0
		if i == 30 || i == 50 || i == 70 {
			d = 10
		}
		posts = append(posts, posts[i-1]+us(d))
	}
	lr := perftest.LatRow(8, posts, false)
	if lr.Typical != 1 || lr.Min != 1 || lr.Max != 5 || lr.P99 != 5 || lr.P999 != 5 || lr.Iters != 100 {
		t.Errorf("lat row %+v: want typical 1, min 1, max and percentiles 5", lr)
	}
}

// TestGolden keeps the client's output of a short ib_write_bw and
// ib_send_lat as reviewable goldens (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for _, p := range runTests(t, "ib_write_bw -s 4096 -n 200 -q 2", "ib_send_lat -n 200") {
		var b bytes.Buffer
		p.WriteTo(&b)
		golden.Check(t, filepath.Join("testdata", p.Opts.Tool+".txt"), b.Bytes(), *update)
	}
}

// TestParse refuses what the twin does not model, and keeps perftest's
// defaults.
func TestParse(t *testing.T) {
	o, err := perftest.Parse([]string{"ib_send_lat"})
	if err != nil || o.Size != 2 || o.Iters != 1000 || o.TxDepth != 1 || o.Kind() != perftest.Lat {
		t.Errorf("defaults %+v %v", o, err)
	}
	for _, bad := range [][]string{{"ib_nope"}, {"ib_write_bw", "-D", "10"}, {"ib_write_bw", "-s"}, {"ib_write_bw", "-n", "0"}, {"ib_send_lat", "-q", "2"}, {"ib_write_bw", "a", "b"}, {"ib_write_bw", "-c", "UD"}} {
		if _, err := perftest.Parse(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if n, b := mustParse(t, "ib_write_bw -a -n 10").Messages(); n != 230 || b <= 0 {
		t.Errorf("-a messages %d", n)
	}
}

func mustParse(t *testing.T, cmd string) *perftest.Options {
	t.Helper()
	o, err := perftest.Parse(strings.Fields(cmd))
	if err != nil {
		t.Fatal(err)
	}
	return &o
}

// FuzzParse: any command line is parsed or refused without panic, and what
// is accepted has positive sizes and counts.
func FuzzParse(f *testing.F) {
	f.Add("ib_write_bw -s 65536 -n 5000 --report_gbits 10.0.0.2")
	f.Add("ib_send_lat -a -x 3 -d mlx5_1 -i 1 -F")
	f.Add("ib_read_bw --size=8 --iters=5 -q 4 -c RC")
	f.Fuzz(func(t *testing.T, cmd string) {
		o, err := perftest.Parse(strings.Fields(cmd))
		if err != nil {
			return
		}
		if o.Size < 1 || o.Iters < 5 || o.TxDepth < 1 || o.QPs < 1 || o.CQMod < 1 {
			t.Errorf("%q: accepted %+v", cmd, o)
		}
		if n, _ := o.Messages(); n <= 0 {
			t.Errorf("%q: %d messages", cmd, n)
		}
	})
}
