package doctor

import (
	"os"
	"strings"
	"testing"
)

// Artifacts of the fourteenth sweep. Each test failed before the change it
// covers.

// A perftest result row whose cell is no non-negative number is reported
// with its file, line and column instead of being passed over (synthetic
// figures; perftest 5.60 printed negative BW averages in
// linux-rdma/perftest#82).
func TestPerftestGarbledRowReported(t *testing.T) {
	const text = ` #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      5000           0.00               -12.34               0.023
`
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	f := nicMustFind(t, fs, "input.garbled", Warn, `<stdin>:2:47: expected a non-negative number in a perftest result row, got "-12.34`)
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// The same figures emphasised in Markdown are read, and judged.
func TestPerftestMarkdownBoldJudged(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/perftest/ib-send-bw-markdown-bold-bw-average-arm-perftest65.txt")}, nil, Options{}).Findings
	nicMustFind(t, fs, "perftest.bw.unjudged", Info, "best 46.5 Gb/s")
	for _, f := range fs {
		if f.ID == "input.garbled" {
			t.Errorf("garbled: %s", f.Title)
		}
	}
}

// A perftest run that ends before its table, with no error, is said to be
// unjudged rather than passed over (openucx/ucx#9590: the server side of
// ib_send_lat over DC, cut after the addresses).
func TestPerftestNoRowsSaid(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/perftest/ib-send-lat-dc-two-qps-server-cut-before-table-ucx9590.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "perftest.rows.none", Info, "ib_send_lat on mlx5_0: no result row", "its latency is not judged")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 9 || f.Evidence[2].Line != 24 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	// A run with rows, or one that failed, is judged by its own rules.
	for _, rel := range []string{"corpus/perftest/perftest-write-bw-ib-a-gbits-perftest132.txt", "corpus/perftest/perftest-completion-error-status12-syndrom-softiwarp27.txt"} {
		for _, f := range Diagnose([]string{nicTestdata(rel)}, nil, Options{}).Findings {
			if f.ID == "perftest.rows.none" {
				t.Errorf("%s: %s", rel, f.Title)
			}
		}
	}
}

// Per-QP counters (`rdma statistic qp show`) are judged as the QP's own,
// named by its counter object, counted since the counter was bound
// (synthetic figures in iproute2's format).
func TestPerQPCountersNamed(t *testing.T) {
	const text = "link mlx5_2/1 cntn 4 qp-type RC pid 30489 comm ibv_rc_pingpong LQPN 178 out_of_sequence 120 packet_seq_err 5 local_ack_timeout_err 3\n"
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	f := nicMustFind(t, fs, "counters.retransmission", Warn, "mlx5_2 port 1 QP 178 of ibv_rc_pingpong, pid 30489: RC retransmissions: local_ack_timeout_err 3, out_of_sequence 120, packet_seq_err 5")
	if !strings.Contains(f.Mechanism, "since the counter was bound to the QP") {
		t.Errorf("window: %s", f.Mechanism)
	}
}

// An mlnx_qos dump that ends before its PFC table says so instead of
// passing without a word; the whole dump is judged as before
// (att/netarbiter's sample output, and its first dump cut before "Cable
// len" by this test).
func TestMlnxQoSWithoutPFCSaid(t *testing.T) {
	const rel = "corpus/ethtool/mlnx-qos-set-x-trace-trust-dscp-then-pfc3-tsa-vendor-netarbiter.txt"
	fs := Diagnose([]string{nicTestdata(rel)}, nil, Options{}).Findings
	nicMustFind(t, fs, "qos.ok", Info, "eth4: PFC on priority 3 only, trust dscp")
	for _, f := range fs {
		if f.ID == "qos.pfc.unshown" {
			t.Errorf("whole dump: %s", f.Title)
		}
	}
	b, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	cut, _, _ := strings.Cut(string(b), "Cable len")
	fs = Diagnose([]string{"-"}, strings.NewReader(cut), Options{}).Findings
	f := nicMustFind(t, fs, "qos.pfc.unshown", Info, "eth4: the mlnx_qos dump has no PFC configuration, so whether PFC protects priority 3, where DSCP 26")
	if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[len(f.Evidence)-1].Text, "Priority trust state: dscp") {
		t.Errorf("evidence %+v", f.Evidence)
	}
}
