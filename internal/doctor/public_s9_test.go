package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Artifacts of the ninth sweep: AWS EFA counters, mlx5's host ECN marks,
// and the kinds the corpus had seen little of. Each test failed before the
// change it covers.

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

// SYNTHETIC (no public dump with rx_prioN_marked moving was found): mlx5's
// per-host congestion marks, the NIC marking CE itself because its host
// drains the receive buffer too slowly (the kernel's mlx5 counters.rst:
// "ecn marked by device due to per host congestion"), were not read.
func TestHostECNMarking(t *testing.T) {
	dump := func(pkts, marked string) []string {
		return []string{
			"NIC statistics:",
			"     rx_prio3_packets: " + pkts,
			"     rx_prio3_buf_discard: 0",
			"     rx_prio3_cong_discard: 0",
			"     rx_prio3_marked: " + marked,
		}
	}
	f := nicMustFind(t, synthFindings(t, Options{}, dump("220500", "4410")...), "counters.ecn.host_marking", Info, "4410 on priority 3 (2.000% of its 220500 received packets)")
	if !strings.Contains(f.Fix, "PCIe") || !strings.Contains(f.Mechanism, "not for the fabric") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
	pair := append(dump("1000", "0"), dump("221500", "4410")...)
	nicMustFind(t, synthFindings(t, Options{}, pair...), "counters.ecn.host_marking", Warn, "4410 on priority 3")
	nicMustNot(t, synthFindings(t, Options{}, dump("220500", "0")...), "counters.ecn.host_marking")
}

// ibdev2netdev (stepfun-ai/StepMesh#15) was in no format rocelab
// recognised. Its RoCE ports take their netdev's state (Up is active), its
// IPoIB netdevs (ib*, Down here) say nothing of their InfiniBand ports, and
// the netdev it names is what the fixes of the device's findings name.
func TestIbdev2netdev(t *testing.T) {
	const file = "corpus/ethtool/ibdev2netdev-ib-down-roce-bond-stepmesh15.txt"
	arts := nicReadArtifacts(t, file)
	d, ok := arts[0].(*ingest.Devinfo)
	if !ok || len(d.Devices) != 7 || d.Devices[6].Name != "mlx5_bond_0" || d.Devices[6].Ports[0].Netdev != "bond0" || d.Devices[6].Ports[0].State != "PORT_ACTIVE" {
		t.Fatalf("read %T %+v", arts[0], arts[0])
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, file), "devinfo.port.down")
	// SYNTHETIC: the same line form beside a hw_counters dump.
	fs := synthFindings(t, Options{},
		"mlx5_1 port 1 ==> ens12f0np0 (Up)",
		"mlx5_2 port 1 ==> ens12f1np1 (Down)",
		"/sys/class/infiniband/mlx5_1/ports/1/hw_counters/out_of_sequence:120",
		"/sys/class/infiniband/mlx5_1/ports/1/hw_counters/local_ack_timeout_err:3")
	nicMustFind(t, fs, "devinfo.port.down", Warn, "mlx5_2 port 1 is not up: DOWN")
	if f := nicMustFind(t, fs, "counters.retransmission", Warn); !strings.Contains(f.Fix, "ethtool -S ens12f0np0") {
		t.Errorf("fix does not name mlx5_1's netdev: %s", f.Fix)
	}
}
