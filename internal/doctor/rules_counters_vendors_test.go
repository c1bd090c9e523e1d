package doctor

import (
	"strings"
	"testing"
)

// Broadcom's bnxt_re prints DCQCN's counters under names of its own
// (tx_cnp_pkts, rx_cnp_pkts, rx_ecn_marked_pkts) beside its RoCE packets
// (rx_roce_only_pkts), and its RDMA responders' missing receive WQEs as
// rx_out_of_buffer: the name mlx5's ethtool -S gives the host rings'
// drops. Before, a bnxt_re port marked on 2.96 % of its RoCE packets gave
// no ECN finding, missing_resp (an implied NAK) was not counted as loss
// recovery, and rx_out_of_buffer was explained as kernel-ring drops that
// RDMA bypasses, with ethtool -G on the RDMA device as the fix.
func TestBnxtREHWCounters(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "synthetic/hwcounters-bnxt-re-ecn-oob-synthetic.txt")
	e := nicMustFind(t, fs, "counters.ecn.heavy_marking", Warn, "bnxt_re0 port 1", "2.96% of received RoCE packets", "rx_ecn_marked_pkts 1240077", "rx_cnp_pkts 1198230")
	if !evidenceHas(e, "rx_roce_only_pkts:41877012") {
		t.Errorf("the marks are not weighed against rx_roce_only_pkts: %+v", e.Evidence)
	}
	r := nicMustFind(t, fs, "counters.retransmission", Warn, "to_retransmits 37", "seq_err_naks_rcvd 412", "missing_resp 9")
	if strings.Contains(r.Fix, "mlnx_qos") || strings.Contains(r.Fix, "np_ecn_marked_roce_packets") || !strings.Contains(r.Fix, "dcb pfc set") {
		t.Errorf("a bnxt_re port's fix speaks mlx5's tools and counters: %s", r.Fix)
	}
	d := nicMustFind(t, fs, "counters.discards", Info, "rx_out_of_buffer 213")
	if !strings.Contains(d.Mechanism, "no posted receive WQE") || strings.Contains(d.Mechanism, "kernel's receive rings") {
		t.Errorf("bnxt_re's rx_out_of_buffer read as the host rings': %s", d.Mechanism)
	}
	if strings.Contains(d.Fix, "ethtool -G") {
		t.Errorf("fix tunes a netdev ring for an RDMA counter: %s", d.Fix)
	}
}

// Intel's ice and Broadcom's bnxt_en print the port's FCS errors, its
// buffer drops and its link flaps under names of their own
// (rx_crc_errors.nic, rx_dropped.nic; rx_fcs_err_frames, link_down_events):
// before, a SYNTHETIC dump of each with 5512 FCS errors gave no finding.
func TestIceBnxtPortCounters(t *testing.T) {
	fs := synthFindings(t, Options{},
		"NIC statistics:",
		"     rx_packets: 901240000",
		"     rx_bytes.nic: 3690000000000",
		"     rx_dropped.nic: 771234",
		"     rx_crc_errors.nic: 5512",
		"     tx_priority_3_xoff.nic: 1300")
	nicMustFind(t, fs, "counters.phy.fcs", Warn, "5512 frames", "rx_crc_errors.nic")
	d := nicMustFind(t, fs, "counters.discards", Info, "rx_dropped.nic 771234", "0.0856% of rx_packets")
	if !strings.Contains(d.Mechanism, "receive buffer was full") {
		t.Errorf("rx_dropped.nic is the port's drop: %s", d.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"NIC statistics:",
		"     rx_total_frames: 901240000",
		"     rx_fcs_err_frames: 5512",
		"     link_down_events: 3")
	nicMustFind(t, fs, "counters.phy.fcs", Warn, "5512 frames", "rx_fcs_err_frames", "of rx_total_frames")
	nicMustFind(t, fs, "counters.phy.link_down", Info, "link_down_events 3")
}

// evidenceHas reports whether a line of f's evidence contains s.
func evidenceHas(f Finding, s string) bool {
	for _, e := range f.Evidence {
		if strings.Contains(e.Text, s) {
			return true
		}
	}
	return false
}
