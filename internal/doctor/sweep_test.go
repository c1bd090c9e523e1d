package doctor

import (
	"strings"
	"testing"
)

// Diagnoses of public artifacts met in the robustness sweep (each under
// testdata/corpus with its source URL): the doctor names what the thread
// shows and raises nothing the artifact does not show.

// An nccl-tests excerpt whose rank list starts at "Rank 71" runs on hosts
// it does not show: the one host it shows does not make it a one-node run.
func TestSweepPartialRankListNotOneNode(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccltests-gb200-nvl72-out-of-bounds-footer-coreweave43.txt")
	f := find(fs, "nccltests.busbw.unjudged")
	if f == nil {
		t.Fatalf("no busbw finding: %v", ids(fs))
	}
	if strings.Contains(f.Title, "one node") || !strings.Contains(f.Title, "all_reduce") {
		t.Errorf("title %q: want an all_reduce plateau not judged as a one-node run", f.Title)
	}
	// The same table with the rank list whole is a one-node run.
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-a3mega-16xh100-tcpxo-338GBps-good.txt")
	for _, f := range fs {
		if strings.Contains(f.Title, "on one node") {
			t.Errorf("16 ranks on 2 hosts judged on one node: %s", f.Title)
		}
	}
}

// i40iw's counters read "N/A (no PMA)": the port has no counters, which
// the doctor says instead of treating the file as unreadable or clean.
func TestSweepNoPMACounters(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/hwcounters/hwcounters-i40iw-na-no-pma-nodeexporter966.txt")
	f := find(fs, "counters.unreadable")
	if f == nil || !strings.Contains(f.Title, "i40iw0/1") || !strings.Contains(f.Title, "8 RDMA port counters") {
		t.Fatalf("want counters.unreadable on i40iw0/1 (8 counters): %v", fs)
	}
	if len(fs) != 1 {
		t.Errorf("findings %v, want only counters.unreadable", ids(fs))
	}
}

// Healthy or per-queue-only ethtool dumps of other vendors' drivers read
// cleanly and raise nothing.
func TestSweepEthtoolVariantsClean(t *testing.T) {
	for _, rel := range []string{
		"corpus/ethtool/ethtool-bnx2x-per-queue-bracket-prefix-ethq6.txt",
		"corpus/ethtool/ethtool-mlx4-en-trailing-spaces-ethq21.txt",
		"corpus/ethtool/ethtool-mlx5-cx4-ubuntu1804-ethq8.txt",
		"corpus/ethtool/ethtool-be2net-rxq-prefix-ethq7.txt",
	} {
		if fs := diagnoseFiles(t, Options{}, rel); len(fs) != 0 {
			t.Errorf("%s: %v, want no findings", rel, ids(fs))
		}
	}
}

// The thread's facts: SONiC sent PFC pause on priority 3 out of Ethernet6
// (printed with a thousands separator) after watchdog storms on both
// queues; Mellanox's own mlnx_qos example protects priorities 0,2,6,7 but
// not 3, where RoCE's DSCP 26 lands.
func TestSweepSwitchAndQoS(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-pfcwd-stats-pfc-tx-comma-grep-buildimage9430.txt")
	f := find(fs, "switch.pfc.tx_pause")
	if f == nil || !strings.Contains(f.Title, "Ethernet6") || !strings.Contains(f.Title, "15437") {
		t.Errorf("want PFC pause sent from Ethernet6 (15437): %v", ids(fs))
	}
	if n := countID(fs, "switch.pfcwd.storm"); n != 2 {
		t.Errorf("%d watchdog storm findings, want 2 (Ethernet4:3, Ethernet6:3)", n)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/ethtool/mlnx-qos-ofed4.2-blank-lines-pfc-0-2-6-7-mellanox-doc2792.txt")
	if f := find(fs, "qos.pfc.disabled"); f == nil || !strings.Contains(f.Title, "0,2,6,7") {
		t.Errorf("want qos.pfc.disabled naming PFC on 0,2,6,7: %v", ids(fs))
	}
}

// mlxconfig's set confirmation is firmware settings only: no perftest run
// is made of its "Device:" line.
func TestSweepMlxconfigSetOnly(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/mlxconfig/mlxconfig-set-next-boot-new-confirm-cx6-maas2.txt")}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "mlxconfig" || len(rep.Inputs[0].Contains) != 0 {
		t.Errorf("inputs %+v, want mlxconfig alone", rep.Inputs)
	}
}

// A test that stopped on a failed call is an error that names the call,
// the error and the hosts, once per distinct error.
func TestSweepTestsFailed(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/nccltests-failure-after-rows-hostname-prefix-nccltests322.txt")
	var got []Finding
	for _, f := range fs {
		if f.ID == "nccltests.failed" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != Error {
		t.Fatalf("nccltests.failed findings %v, want one error", ids(fs))
	}
	for _, want := range []string{"an NCCL call", "common.cu:1204", "unhandled cuda error", "HCA-128", "4 processes"} {
		if !strings.Contains(got[0].Title, want) {
			t.Errorf("title %q lacks %q", got[0].Title, want)
		}
	}
	if !strings.Contains(got[0].Mechanism, "GPU memory") {
		t.Errorf("mechanism %q: want the CUDA error's usual causes", got[0].Mechanism)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccltests-nthreads-colon-banner-internal-error-rccltests50.txt")
	if f := find(fs, "nccltests.failed"); f == nil || !strings.Contains(f.Mechanism, "'internal error'") {
		t.Errorf("rccl-tests internal error: %v", ids(fs))
	}
}

// Async events: the port error on node 48 is named beside the retry
// failure of the peer that talked to it; a QP fatal event is an error; an
// IPv6-only GID table and an address on two netdevs give the index NCCL
// should use.
func TestSweepAsyncEventsAndGIDs(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-async-port-error-old-completion-format-litllama380.txt")
	f := find(fs, "nccl.ib.async_event")
	if f == nil || f.Severity != Error || !strings.Contains(f.Title, "'port error'") || !strings.Contains(f.Title, "8 lines") || find(fs, "nccl.ib.retry_exceeded") == nil {
		t.Errorf("port error and retry exceeded: %v", ids(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.21.5-double-timestamp-status4-vendor83-async-fatal-nccl1905.txt")
	if f := find(fs, "nccl.ib.async_event"); f == nil || !strings.Contains(f.Title, "mlx5_ib0:1") || !strings.Contains(f.Mechanism, "GPUDirect") {
		t.Errorf("QP fatal event: %v", ids(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/threads/show-gids-ipv6-only-rocep-amd-mi355-mooncake1617.txt")
	if f := find(fs, "gid.index.roce_v2"); f == nil || !strings.Contains(f.Title, "index 1") || !strings.Contains(f.Mechanism, "no IPv4 GID") {
		t.Errorf("IPv6-only table: %v", ids(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/threads/show-gids-bond-vxlan-same-ipv4-at-2-3-and-4-5-ucx9484.txt")
	if f := find(fs, "gid.index.roce_v2"); f == nil || !strings.Contains(f.Title, "index 5") {
		t.Errorf("address on bond1 and a VXLAN netdev: %v", ids(fs))
	}
}

// A real RoCEv2 capture of two healthy RC queue pairs (one with a
// timestamp stepping back): read as RoCE, nothing raised.
func TestSweepHealthyRoCECapture(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/pcap-roce/rc-send-two-qps-oferby-proxy.pcap")}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "pcap" || rep.Inputs[0].Error != "" {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	for _, f := range rep.Findings {
		t.Errorf("finding on a healthy capture: %s %s", f.ID, f.Title)
	}
}

// SONiC queue counters from public threads: a lossy queue's drops are a
// warning, a lossless queue's (behind a "Last cached time" line, numbers
// with separators) an error; PFC counters whose rule line grep removed
// are still read.
func TestSweepSONiCQueueAndPFC(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-queue-counters-uc1-drops-6.8g-sonicutilities2393.txt")
	if f := find(fs, "switch.queue.drops"); f == nil || f.Severity != Warn || !strings.Contains(f.Title, "UC1") || !strings.Contains(f.Title, "6841131615") {
		t.Errorf("lossy UC1 drops: %v", ids(fs))
	}
	fs = diagnoseFiles(t, Options{}, "corpus/switch/sonic-queue-counters-nonzero-netns-cached-header-buildimage21007.txt")
	if f := find(fs, "switch.queue.drops"); f == nil || f.Severity != Error || !strings.Contains(f.Title, "421358651") {
		t.Errorf("lossless UC3 drops: %v", ids(fs))
	}
	rep := Diagnose([]string{nicTestdata("corpus/switch/sonic-pfc-counters-grep-no-rule-rx-pfc4-179523-buildimage20590.txt")}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "switch-counters" || len(rep.Findings) != 0 {
		t.Errorf("Rx-only PFC counters: inputs %+v findings %v", rep.Inputs, ids(rep.Findings))
	}
}

// An InfiniBand job (NCCL 2.19.3 on mlx5_0:1/IB, ibstatus of an EDR port)
// gets no RoCE advice: no GID index, no PFC; a RoCE port with an
// ibv_modify_qp "No such device" failure gets the GID-index cause.
func TestSweepInfiniBandAndNoSuchDevice(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.19.3-infiniband-ib-hca-set-a100-nccltests182.txt", "corpus/ethtool/ibstat-ibstatus-edr-100g-infiniband-nccl307.txt")
	for _, f := range fs {
		if f.Severity != Info || strings.Contains(f.Fix, "NCCL_IB_GID_INDEX") {
			t.Errorf("InfiniBand job: %s %s (fix %q)", f.ID, f.Title, f.Fix)
		}
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.7.8-modify-qp-no-such-device-roce-nccl799.txt")
	if f := find(fs, "nccl.ib.qp_setup_failed"); f == nil || !strings.Contains(f.Title, "No such device") || !strings.Contains(f.Mechanism, "GID index does not exist") {
		t.Errorf("No such device: %v", ids(fs))
	}
}
