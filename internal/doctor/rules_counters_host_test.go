package doctor

import (
	"strings"
	"testing"
)

// bnxt_en from Linux 6.6 on prints the host rings' drops as
// rx_total_ring_discards (bnxt_ethtool.c's ring error statistics): they
// are read as rx_out_of_buffer is, a host that did not post receive
// buffers fast enough, and the fix is the host's rings, not PFC.
// SYNTHETIC, in the format of bnxt_en's ethtool -S.
func TestBnxtRingDiscards(t *testing.T) {
	fs := synthFindings(t, Options{},
		"NIC statistics:",
		"     [0]: rx_ucast_packets: 1000",
		"     rx_total_ring_discards: 523",
		"     rx_total_frames: 100000",
		"     rx_stat_discard: 0")
	f := nicMustFind(t, fs, "counters.discards", Info, "rx_total_ring_discards 523")
	if !strings.Contains(f.Mechanism, "kernel's receive rings") || !strings.Contains(f.Mechanism, "RoCE bypasses") {
		t.Errorf("mechanism: %s", f.Mechanism)
	}
	if !strings.HasPrefix(f.Fix, "Not the fabric") || strings.Contains(f.Fix, "PFC priority") || !strings.Contains(f.Fix, "ethtool -G") {
		t.Errorf("fix: %s", f.Fix)
	}
}

// The real dump of a bnxt_en port on kernel 6.6.43 (isc-projects/ethq):
// 655430134 ring discards beside 49337 of the port's own, read as host
// ring drops.
func TestBnxtRingDiscardsCorpus(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-bnxt-en-6.6-ring-stat-discards-12-rings-ethq33.txt")
	f := nicMustFind(t, fs, "counters.discards", Info, "rx_stat_discard 49337", "rx_total_ring_discards 655430134")
	if !strings.Contains(f.Mechanism, "rx_total_ring_discards counts packets for the kernel's receive rings") || !strings.Contains(f.Fix, "ethtool -G") {
		t.Errorf("mechanism: %s\nfix: %s", f.Mechanism, f.Fix)
	}
}
