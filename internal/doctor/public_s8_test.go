package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Real artifacts of kinds diagnose had seen little of (NCCL and RCCL logs
// of recent releases, nccl-tests behind log wrappers, counters of other
// drivers); the headers of the files under testdata/corpus name each
// source. Each test failed before the change it covers.

// Output a log wrapper indents before Open MPI's tag (a Go test log
// quoting an MPIJob's pods: aws/aws-k8s-tester#464,
// bottlerocket-os/bottlerocket-kernel-kit#424): the nccl-tests rows were
// "in no format rocelab recognises" and the NCCL lines kept the tag.
func TestIndentedMPITags(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/nccl-tests/alltoall-none-inplace-na-go-test-indent-mpi-tag-bottlerocket424.txt")
	if len(arts) == 0 {
		t.Fatal("no artifact read")
	}
	nt, ok := arts[0].(*ingest.NCCLTests)
	if !ok {
		t.Fatalf("first artifact %T, want nccl-tests", arts[0])
	}
	if n := len(nt.Runs); n != 1 || len(nt.Runs[0].Rows) != 9 || nt.Runs[0].Rows[0].Redop != "none" {
		t.Fatalf("runs %d: %+v", n, *nt.Runs[0])
	}
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-socket-eks-go-test-indent-mpi-tag-awsk8stester464.txt")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Error)
	if !strings.HasPrefix(f.Evidence[0].Text, "multi-node-nccl-test-worker-0:22:28 [0] NCCL INFO") {
		t.Errorf("evidence keeps the wrapper's indentation or tag: %q", f.Evidence[0].Text)
	}
}

// A table of independent 1-rank jobs (nccl-tests without MPI=1 under
// mpirun: NVIDIA/nccl-tests#294, busbw 0.00 on every row, each size twice)
// was judged "0% of what 100Gbps allows" (error nccltests.busbw.low) beside
// the finding that says its bandwidth is meaningless.
func TestSplitRunBusBWNotJudged(t *testing.T) {
	const file = "corpus/nccl-tests/allreduce-busbw-zero-duplicate-rows-one-rank-each-nccltests294.txt"
	fs := diagnoseFiles(t, Options{NICSpeed: 100 * unit.Gbps}, file)
	nicMustFind(t, fs, "nccltests.ranks.split", Error)
	nicMustNot(t, fs, "nccltests.busbw.low")
	nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "not judged", "independent jobs")
}

// A verbs call that registers memory is not queue-pair setup: NCCL
// 2.27.3's 'Call to ibv_reg_mr_iova2 failed with error Invalid argument'
// (NVIDIA/nccl#1842) read as "Queue pair setup failed" with a GID fix.
func TestRegistrationFailureNotQPSetup(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.27.3-reg-mr-iova2-einval-driver470-nccl1842.txt")
	nicMustNot(t, fs, "nccl.ib.qp_setup_failed")
	f := nicMustFind(t, fs, "nccl.ib.alloc_failed", Error, "refused to register", "ibv_reg_mr_iova2: Invalid argument")
	if !strings.Contains(f.Fix, "NCCL_NET_GDR_LEVEL=LOC") || strings.Contains(f.Fix, "show_gids") {
		t.Errorf("fix %q", f.Fix)
	}
}

// WARN lines no rule read were dropped, so a job NCCL failed read as "No
// findings" or only "RDMA in use": a bootstrap address of no IP family
// (NVIDIA/nccl-tests#294, returned 3 through bootstrap.cc) and an
// aws-ofi-nccl memory registration out of memory whose location is a
// function name (NVIDIA/nccl#563, behind a doubled pdsh prefix).
func TestWarnErrorReported(t *testing.T) {
	for _, c := range []struct {
		file, fix string
		title     []string
	}{
		{"corpus/nccl-log/nccltests-ibext-v6-sharp-bootstrap-family-33621-nccltests294.txt", "make MPI=1",
			[]string{"no IP address", "returned 3 (internal error) through bootstrap.cc:256", "on h100-4; 2 lines"}},
		{"corpus/nccl-log/nccl-ofi-register-memory-enomem-pdsh-host-prefix-nccl563.txt", "memlock unlimited",
			[]string{"could not pin memory", "returned 2 (unhandled system error)", "on ip-10-0-87-143"}},
	} {
		f := nicMustFind(t, diagnoseFiles(t, Options{}, c.file), "nccl.warn.error", Error, c.title...)
		if !strings.Contains(f.Fix, c.fix) {
			t.Errorf("%s: fix %q", c.file, f.Fix)
		}
	}
}

// The HPC-X SHARP plugin lists its devices as "[0]mlx5_1:1/IB/SHARP"
// (NVIDIA/nccl-tests#294): the link layer read as "IB/SHARP", a third
// kind beside IB and RoCE.
func TestSHARPDeviceLinkLayer(t *testing.T) {
	l := nicReadArtifacts(t, "corpus/nccl-log/nccltests-ibext-v6-sharp-bootstrap-family-33621-nccltests294.txt")[0].(*ingest.NCCLLog)
	if len(l.IBDevices) == 0 {
		t.Fatal("no IB devices")
	}
	for _, d := range l.IBDevices {
		if d.LinkLayer != "IB" || d.Port != 1 || !strings.HasPrefix(d.Name, "mlx5_") {
			t.Errorf("device %+v, want mlx5_N port 1 link layer IB", d)
		}
	}
}

// Intel E810 (ice) counts PFC as per-priority XOFF and XON frames
// ("rx_priority_3_xoff.nic") and 802.3x pause as link_xoff_rx/tx.nic; the
// doctor knew neither (the open item of the last round). The real dump
// (a grep of an idle port) reads as E810 pause counters, all zero;
// SYNTHETIC values in the same format then raise 802.3x pause and count
// XOFF, not XON, as PFC.
func TestICEPauseCounters(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/ethtool/ethtool-ice-e810-grep-priority-xon-xoff-zero-notes.txt")
	s := arts[0].(*ingest.EthtoolStats).Samples[0]
	if r, ok := s.PFCFrames(ingest.RX, 3); !ok || r.Name != "rx_priority_3_xoff.nic" {
		t.Errorf("PFC frames rx prio 3: %+v %v", r, ok)
	}
	fs := synthFindings(t, Options{},
		"NIC statistics:",
		"     link_xon_rx.nic: 0",
		"     link_xon_tx.nic: 120",
		"     link_xoff_rx.nic: 0",
		"     link_xoff_tx.nic: 48211",
		"     tx_priority_3_xon.nic: 9",
		"     tx_priority_3_xoff.nic: 0",
	)
	f := nicMustFind(t, fs, "counters.pause.global", Warn, "link_xoff_tx.nic 48211")
	if strings.Contains(f.Title, "xon") {
		t.Errorf("XON frames counted as pause: %s", f.Title)
	}
}

// irdma (E810 RoCE) and bnxt_re (Broadcom) name their hw_counters apart
// from mlx5 (names from linux 6.1's irdma/verbs.c and
// bnxt_re/hw_counters.c); their CNPs, ECN marks and retransmissions went
// unread. SYNTHETIC values in `rdma statistic show` form.
func TestIRDMAAndBNXTRECounters(t *testing.T) {
	fs := synthFindings(t, Options{}, "link irdma0/1 cnpHandled 5120 cnpIgnored 0 cnpSent 77 RxECNMrkd 9031 RxUDP 1200000 TxUDP 1100000")
	nicMustFind(t, fs, "counters.ecn.marking", Info, "0.753% of received RoCE packets", "RxECNMrkd 9031")
	fs = synthFindings(t, Options{}, "link bnxt_re0/1 to_retransmits 4410 seq_err_naks_rcvd 120 rnr_naks_rcvd 0 dup_req 7 oos_drop_count 311 max_retry_exceeded 2")
	nicMustFind(t, fs, "counters.retransmission", Warn, "to_retransmits 4410", "oos_drop_count 311")
	nicMustFind(t, fs, "counters.retry_exceeded", Warn, "max_retry_exceeded")
}

// A failing RCCL job over a UCX net plugin (ROCm/rccl#1261) prints a
// cascade of WARNs: the plugin's error, then a proxy Connect, a socket
// closed by the remote peer and a failed recv on each node. Only the
// first failing WARN of each process is a cause; an init-time WARN
// ("Missing iommu=pt") does not take the return codes its thread prints
// 60 lines later; a socket closed mid-run is no bootstrap failure.
func TestWarnCascadeFirstCausePerProcess(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/rccl-2.18.3-ucx-plugin-bnxt_re-gdr-invalid-parameter-rccl1261.txt")
	got := nicFind(fs, "nccl.warn.error")
	if len(got) != 1 {
		t.Fatalf("nccl.warn.error findings:\n%s", nicTitles(got))
	}
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "net plugin failed (ucx_plugin.c:498)", "returned 3", "on node02, node01; 2 lines")
	if !strings.Contains(f.Mechanism, "later WARNs after it on the same processes are its fallout") || !strings.Contains(f.Fix, "NCCL_NET_GDR_LEVEL=LOC") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
}

// `rdma link` lines (ROCm/rccl#1423: an IB port DOWN/POLLING, then
// DOWN/LINK_UP, then ACTIVE) were read as hw_counters (lid, sm_lid and lmc
// taken for counters) and reported nothing; no rule looked at port
// states at all, so ibv_devinfo's PORT_DOWN went unsaid too.
func TestPortDownAndFlap(t *testing.T) {
	const file = "corpus/ethtool/rdma-link-ib-port-down-polling-flapping-rccl1423.txt"
	for _, a := range nicReadArtifacts(t, file) {
		if a.Kind() == ingest.KindHWCounters {
			t.Errorf("rdma link read as hw_counters")
		}
	}
	f := nicMustFind(t, diagnoseFiles(t, Options{}, file), "devinfo.port.down", Error, "mlx5_7 port 1 flapped", "DOWN (physical state POLLING)")
	if !strings.Contains(f.Mechanism, "no link partner") || len(f.Evidence) != 3 {
		t.Errorf("mechanism %q, %d evidence lines", f.Mechanism, len(f.Evidence))
	}
	fs := diagnoseFiles(t, Options{}, "corpus/threads/cx4lx-4port-show-counters-req-cqe-error-no-ack-timeouts-notes.txt")
	nicMustFind(t, fs, "devinfo.port.down", Warn, "mlx5_1 port 1 is not up: DOWN")
}

// mlx5 prints rx_prioN_buf_discard (unicast frames a priority dropped for
// want of receive buffer, ConnectX-6 Dx and later) and rx_prioN_cong_discard
// (WRED drops) beside rx_prioN_discards; the counter table did not know
// them, so a lossless priority dropping packets read as healthy PFC.
// SYNTHETIC values under the names linux 6.1's en_stats.c prints.
func TestPrioBufferDiscards(t *testing.T) {
	fs := synthFindings(t, Options{},
		"NIC statistics:",
		"     rx_packets_phy: 100000000",
		"     rx_prio3_bytes: 90000000000",
		"     rx_prio3_packets: 90000000",
		"     rx_prio3_pause: 5120",
		"     tx_prio3_pause: 77",
		"     rx_prio3_buf_discard: 1200",
		"     rx_prio3_cong_discard: 0",
	)
	nicMustFind(t, fs, "counters.discards", Warn, "rx_prio3_buf_discard 1200")
}

// RCCL's own host WARNs (ROCm/rccl#1261: automatic NUMA balancing on
// node01, no iommu=pt on both) were dropped: no return code follows
// them. They are reported as host settings, once each with the hosts,
// and are never taken for the process's first failure: the UCX plugin
// stays the one cause.
func TestHostConfigWarnings(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/rccl-2.18.3-ucx-plugin-bnxt_re-gdr-invalid-parameter-rccl1261.txt")
	if got := nicFind(fs, "nccl.host.config"); len(got) != 2 {
		t.Fatalf("nccl.host.config findings:\n%s", nicTitles(got))
	}
	f := nicMustFind(t, fs, "nccl.host.config", Warn, "automatic NUMA balancing is on", "on node01; 1 line")
	if !strings.Contains(f.Fix, "kernel.numa_balancing=0") {
		t.Errorf("fix %q", f.Fix)
	}
	nicMustFind(t, fs, "nccl.host.config", Warn, "lacks iommu=pt", "on node01, node02; 2 lines")
	nicMustFind(t, fs, "nccl.warn.error", Error, "net plugin failed (ucx_plugin.c:498)")
}

// A host WARN is never a failure's cause, even when an error is returned
// on its thread right after it (synthetic: the iommu WARN of rccl#1261,
// then a return code): it stays a host setting, and no nccl.warn.error
// names it.
func TestHostWarningNotACause(t *testing.T) {
	rep := diagnoseText(t, `node01:5646:5646 [0] /src/init.cc:136 NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!
node01:5646:5646 [0] NCCL INFO /src/init.cc:1200 -> 3
`)
	nicMustFind(t, rep.Findings, "nccl.host.config", Warn, "lacks iommu=pt")
	nicMustNot(t, rep.Findings, "nccl.warn.error")
}
