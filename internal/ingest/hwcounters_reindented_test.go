package ingest

import (
	"slices"
	"strings"
	"testing"

	"rocelab/internal/counters"
)

const nodeScraperStat = "hwcounters/rdma-statistic-json-reindented-ionic-pollara-mlx5-all-zero-nodescraper.txt"

// ionicUnjudged are the counters of the real Pollara dump that the table
// leaves to rocelab_rdma_hw_stat, each for a reason: multicast traffic is
// no RoCE RC traffic, the "ccl_cts" counters are a class of traffic the
// firmware counts apart and documents nowhere public, the requester's and responder's local and
// remote errors beside the mapped ones have no mlx5 counterpart to judge
// them as, the retransmitted bytes have no concept beside the packets
// (tx_rdma_retx_pkts, mapped) that carry them. The test keeps the list honest both
// ways: every counter of the dump is mapped or listed here, and nothing
// listed is mapped.
var ionicUnjudged = map[string][]string{
	"multicast": {"tx_rdma_mcast_bytes", "tx_rdma_mcast_pkts", "rx_rdma_mcast_bytes", "rx_rdma_mcast_pkts"},
	"collective subset": {"tx_rdma_ccl_cts_bytes", "tx_rdma_ccl_cts_pkts", "rx_rdma_ccl_cts_bytes", "rx_rdma_ccl_cts_pkts",
		"resp_rx_ccl_cts_outouf_seq", "tx_rdma_ccl_cts_ack_timeout", "tx_rdma_ccl_cts_retx_bytes", "tx_rdma_ccl_cts_retx_pkts"},
	"no counterpart": {"req_rx_oper_err", "req_rx_dup_response", "req_rx_inval_pkts", "req_tx_loc_acc_err", "req_tx_loc_oper_err",
		"req_tx_mem_mgmt_err", "req_tx_loc_sgl_inv_err", "resp_rx_inval_request", "resp_rx_loc_oper_err", "resp_rx_outof_atomic",
		"resp_rx_s0_table_err", "resp_tx_loc_sgl_inv_err"},
	"retransmitted bytes": {"tx_rdma_retx_bytes"},
}

// amd/node-scraper keeps a host's `rdma statistic -j` as Python rewrote
// it, "[" and "{" on lines of their own: nothing was read (no counter
// dump found). Every port and counter is read now, each counter's
// evidence the line that names it, and every name is mapped or listed in
// ionicUnjudged.
func TestRdmaStatisticJSONReindentedReal(t *testing.T) {
	h := corpusAs[*HWCounters](t, nodeScraperStat, KindHWCounters)
	if len(h.Samples) != 12 || len(h.Garbled) != 0 {
		t.Fatalf("%d samples, garbled %+v; want 12 ports", len(h.Samples), h.Garbled)
	}
	tb := counters.Default()
	unjudged := map[string]bool{}
	for _, names := range ionicUnjudged {
		for _, n := range names {
			unjudged[n] = true
		}
	}
	var mapped []string
	for i, s := range h.Samples {
		dev, want := "ionic_", 54
		if i >= 8 {
			dev, want = "mlx5_", 29
		}
		if !strings.HasPrefix(s.Device, dev) || s.Port != 1 || s.After == nil || len(s.After.Counters) != want {
			t.Fatalf("sample %d: %s port %d, %v", i, s.Device, s.Port, s.After)
		}
		for _, c := range s.After.Counters {
			if c.Value != 0 || !strings.Contains(c.Evidence.Text, `"`+c.Name+`"`) {
				t.Errorf("%s %s = %d, evidence %+v", s.Device, c.Name, c.Value, c.Evidence)
			}
			_, _, known := tb.LookupIn(counters.HWCounters, c.Name)
			listed := unjudged[c.Name]
			switch {
			case known && listed:
				t.Errorf("%s is mapped but listed as unjudged", c.Name)
			case !known && !listed:
				t.Errorf("%s %s is neither mapped nor listed as unjudged", s.Device, c.Name)
			case known && !slices.Contains(mapped, c.Name):
				mapped = append(mapped, c.Name)
			}
		}
	}
	for _, name := range []string{"rx_rdma_ucast_bytes", "tx_rdma_ucast_bytes", "resp_rx_outouf_seq", "tx_rdma_ack_timeout", "np_cnp_sent"} {
		if !slices.Contains(mapped, name) {
			t.Errorf("%s not mapped", name)
		}
	}
	if a, _ := h.Samples[0].After.Get("tx_rdma_ucast_bytes"); a.Evidence.Line != 6 {
		t.Errorf("ionic_0's first counter at line %d, want 6 (after the source line, [, {, ifname and port)", a.Evidence.Line)
	}
}

// The reindented layout opens an array only when its first key is
// "ifname": `ip -j link | jq` objects (first key "ifindex") are no
// counters; a reindented array cut short is reported at its "[".
func TestRdmaStatisticJSONReindentedBounds(t *testing.T) {
	ipLink := "[\n  {\n    \"ifindex\": 1,\n    \"ifname\": \"lo\",\n    \"mtu\": 65536\n  }\n]\n"
	nicNoArtifact[*HWCounters](t, nicReadText(t, "ip-link-jq.json", ipLink))
	cut := "[\n    {\n        \"ifname\": \"ionic_3\",\n        \"port\": 1,\n        \"tx_rdma_ack_timeout\": 7,\n"
	h := nicArtifact[*HWCounters](t, nicReadText(t, "cut.json", cut))
	if len(h.Garbled) != 1 || h.Garbled[0].Line != 1 || h.Garbled[0].Col != 1 || len(h.Samples) != 0 {
		t.Fatalf("garbled %+v samples %d", h.Garbled, len(h.Samples))
	}
}
