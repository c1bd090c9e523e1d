package doctor

import "testing"

// perftestFindingsS41 is what the doctor finds in each of the real perftest
// outputs taken from public threads in session 41 (testdata/corpus/perftest;
// each file names its source), chosen for RoCE connection failures and for
// runs cut before their rows (most cut where the stored excerpt of the thread ends): every finding's id and severity, sorted.
var perftestFindingsS41 = []struct{ file, want string }{
	// All-zero GIDs in a pod: the QP cannot reach RTR, both ends named.
	{"perftest-write-bw-roce-gid0-all-zero-gids-rtr-fail-pod-k8sshareddev72.txt", "gid.index.default_zero:warn gid.index.zero:error perftest.connect.failed:error perftest.mtu.small:warn"},
	// The server's end-of-test exchange fails after the table's header.
	{"ib-read-bw-ib-mlx4-server-exchange-fails-after-table-header-sparkrdma31.txt", "perftest.connect.failed:error"},
	// rdma_cm servers (--run_infinitely) cut after their banner, whose
	// "Waiting for client rdma_cm QP to connect" perftest prints once the
	// client has connected, and after the local address.
	{"ib-write-bw-bidir-rdma-cm-run-infinitely-mlx4-roce-mtu2048-server-banner-cut-spdk1596.txt", "perftest.mtu.small:warn perftest.rows.none:info"},
	{"ib-write-bw-bidir-rdma-cm-run-infinitely-mlx5-mtu1024-server-cut-after-local-address-spdk852.txt", "perftest.mtu.small:warn perftest.rows.none:info"},
	// A shell trace (+ taskset ...) before a bond device's banner.
	{"ib-send-bw-bond-duration-x3-taskset-trace-cut-perftest82.txt", "perftest.rows.none:info"},
	{"ib-write-bw-roce-gid3-server-cut-after-addresses-perftest240.txt", "gid.index.ipv4:info perftest.rows.none:info"},
	// rdma_cm picked GID index 1, an IPv4 GID, on an older GID table.
	{"ib-write-bw-rdma-cm-roce-gid1-ipv4-mtu1024-receiver-cut-tf22077.txt", "gid.index.ipv4:info perftest.mtu.small:warn perftest.rows.none:info"},
	// Soft-RoCE: "Gid index" spelled as rxe's perftest printed it.
	{"ib-read-bw-rxe-gid0-mtu1024-inline-warning-cut-rxedev47.txt", "gid.index.default_zero:warn perftest.mtu.small:warn perftest.rows.none:info"},
	// An InfiniBand run pasted indented by four spaces.
	{"ib-write-bw-ib-4-space-indent-report-min-bw-cut-perftest214.txt", "perftest.rows.none:info"},
	{"ib-send-bw-ib-two-qps-x3-fe80-gid-server-cut-after-table-header-byteps371.txt", "perftest.rows.none:info"},
}

func TestPerftestCorpusFindingsS41(t *testing.T) {
	checkCorpusFindings(t, "corpus/perftest/", perftestFindingsS41)
	// bytedance/byteps#179, before a 2-to-1 run: RDMA on priority 0 with no
	// PFC counter printed by `grep prio`, and RC retransmissions with CNPs.
	checkCorpusFindings(t, "corpus/hwcounters/", []struct{ file, want string }{
		{"ethtool-grep-prio0-only-and-hw-counters-grep-local-ack-timeout-2705-cnp-sent-cut-byteps179b.txt", "counters.ecn.marking:warn counters.pfc.not_on_roce_priority:warn counters.retransmission:warn"},
	})
}
