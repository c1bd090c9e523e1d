package doctor

import (
	"strings"
	"testing"
)

// AWS's own example of EFA's counters as `more <dir>/* | cat` prints them
// (each path between lines of colons, its value after) was in no format
// rocelab recognised; as `rdma -p statistic show` prints them it read as
// "No findings", which said nothing of what was read. Both now say the
// port is EFA (SRD), that RoCE's checks do not apply, and that none of
// its fault counters moved.
func TestEFACounters(t *testing.T) {
	for _, file := range []string{
		"corpus/hwcounters/efa-more-sysfs-colon-rules-srd-awsdocs.txt",
		"corpus/hwcounters/efa-rdma-statistic-pretty-srd-awsdocs.txt",
	} {
		fs := diagnoseFiles(t, Options{}, file)
		f := nicMustFind(t, fs, "counters.efa.ok", Info, "rdmap0s31 port 1", "AWS EFA (SRD)")
		if !strings.Contains(f.Mechanism, "do not apply") || len(f.Evidence) != 6 {
			t.Errorf("%s: mechanism %q, evidence %v", file, f.Mechanism, f.Evidence)
		}
		if len(fs) != 1 {
			t.Errorf("%s: %d findings, want only counters.efa.ok: %v", file, len(fs), fs)
		}
	}
	if !strings.HasSuffix(nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/hwcounters/efa-more-sysfs-colon-rules-srd-awsdocs.txt"), "counters.efa.ok", Info).Evidence[0].Text, "/hw_counters/rdma_read_wr_err") {
		t.Error("the evidence of a `more` value is not the path that names it")
	}
}

// SYNTHETIC: AWS's example with faults written in. A remote that stopped
// answering is an error over a window (warn in a single dump), and SRD's
// own retransmissions are weighed against the packets sent.
func TestEFAFaults(t *testing.T) {
	dump := func(retrans, unresponsive, drops string) []string {
		return []string{
			"link rdmap0s31/1",
			"    tx_pkts 91200",
			"    rx_drops " + drops,
			"    retrans_pkts " + retrans,
			"    retrans_timeout_events 0",
			"    unresponsive_remote_events " + unresponsive,
			"    impaired_remote_conn_events 0",
		}
	}
	fs := synthFindings(t, Options{}, dump("120", "2", "37")...)
	f := nicMustFind(t, fs, "counters.efa.errors", Warn, "unresponsive_remote_events 2", "rx_drops 37", "120 SRD packets retransmitted (0.132% of 91200 sent)")
	if !strings.Contains(f.Mechanism, "stopped answering") || !strings.Contains(f.Fix, "security group") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
	pair := append(dump("100", "0", "0"), dump("220", "2", "0")...)
	nicMustFind(t, synthFindings(t, Options{}, pair...), "counters.efa.errors", Error, "unresponsive_remote_events 2")
	nicMustFind(t, synthFindings(t, Options{}, dump("120", "0", "0")...), "counters.efa.ok", Info, "120 SRD packets retransmitted")
}
