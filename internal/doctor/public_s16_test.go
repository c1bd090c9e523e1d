package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Artifacts of the sixteenth sweep that the doctor already judged right:
// each pins what a RoCE engineer reads in it, so a later change to the
// parsers or rules that breaks one shows here.

// Broadcom bnxt_re ib_write_bw, three rdma_cm QPs in duration mode
// (SCC24 post-mortem): the average in Gb/s is read (363.47; the peak is
// 0.00, not measured with -D), MTU 1024 is a warning and, with no port
// speed stated, the bandwidth is left unjudged rather than called low.
func TestBnxtPerftestRead(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/ib-write-bw-bnxt-re-3qp-rdma-cm-363gbps-mtu1024-scc24.txt")
	nicMustFind(t, fs, "perftest.bw.unjudged", Info, "ib_write_bw on bnxt_re0: best 363.5 Gb/s")
	nicMustFind(t, fs, "perftest.mtu.small", Warn, "bnxt_re0: RoCE MTU 1024")
	nicMustFind(t, fs, "gid.index.ipv4", Info, "GID index 3 in use is the IPv4 GID ::ffff:10.0.0.12")
	for _, f := range fs {
		if f.Severity == Error {
			t.Errorf("error %s: %s", f.ID, f.Title)
		}
	}
}

// Two header-less `grep prio` excerpts of one port (bytedance/byteps#179)
// form a before/after pair: 136.6 GB moved on priority 0 and none on 3,
// so RoCE runs lossy.
func TestPrioPairAllOnPrio0(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-grep-prio-before-after-all-prio0-byteps179.txt")
	f := nicMustFind(t, fs, "counters.pfc.not_on_roce_priority", Warn, "enp178s0f0: all traffic on priority 0; 0.0% on lossless priority 3")
	if !strings.Contains(f.Mechanism, "Counted during the window between the two dumps") || f.Evidence[4].Line != 36 {
		t.Errorf("not judged as a pair: %s %+v", f.Mechanism, f.Evidence)
	}
}

// show_gids beside an mlnx_qos dump its author cut before the PFC table
// (host-bench/husky): the v2 IPv4 GID is index 3, and PFC is said to be
// unshown, not off.
func TestMlnxQoSCutBeforePFC(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/show-gids-mlnx-qos-cut-before-pfc-husky.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 3 (mlx5_0 192.168.211.242)")
	nicMustFind(t, fs, "qos.pfc.unshown", Info, "rdma0: the mlnx_qos dump has no PFC configuration")
	for _, f := range fs {
		if strings.HasPrefix(f.ID, "qos.pfc.") && f.ID != "qos.pfc.unshown" {
			t.Errorf("%s: %s", f.ID, f.Title)
		}
	}
}

// One `rdma statistic | grep mlx5_2` line (oracle-japan/ocitutorials):
// 29 counters of mlx5_2 port 1, all error and congestion counters 0, so
// no finding.
func TestRdmaStatisticOneLineClean(t *testing.T) {
	rel := "corpus/hwcounters/rdma-statistic-grep-one-line-mlx5-all-zero-ocitutorials.txt"
	if fs := diagnoseFiles(t, Options{}, rel); len(fs) != 0 {
		t.Errorf("findings on a clean port:\n%s", nicTitles(fs))
	}
	data, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Read(rel, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var h *ingest.HWCounters
	for _, a := range res.Artifacts {
		if x, ok := a.(*ingest.HWCounters); ok {
			h = x
		}
	}
	if h == nil || len(h.Samples) != 1 {
		t.Fatalf("hw counters %+v", h)
	}
	s := h.Samples[0]
	c, ok := s.After.Get("rx_write_requests")
	if s.Device != "mlx5_2" || s.Port != 1 || len(s.After.Counters) != 29 || !ok || c.Value != 18747 {
		t.Errorf("%s/%d: %d counters, rx_write_requests %+v", s.Device, s.Port, len(s.After.Counters), c)
	}
}

// NCCL's ibv_modify_qp failing with EINVAL beside ibstat of an Intel E810
// (irdma) whose port is down (NVIDIA/nccl#622): the QP failure is an
// error, the disabled port a warning.
func TestModifyQPEinvalE810PortDown(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/modify-qp-einval-e810-irdma-ibstat-port-down-nccl622.txt")
	nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "ibv_modify_qp: Invalid argument")
	nicMustFind(t, fs, "devinfo.port.down", Warn, "rocep216s0f0 port 1 is not up: DOWN (physical state Disabled)")
}

// NCCL 2.30's IB port failover marking a port of a merged NIC failed
// (NVIDIA/nccl#2157) is a warning that names the device and says that
// recovery runs; before, the WARN was passed over and the log read clean.
// A synthetic variant without recovery says the port stays out, and the
// failover running out of ports, with NCCL's return code after it, is an
// error.
func TestIBPortFailoverWarn(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.30-ib-port-failover-device-0-marked-failed-recovery-yes-nccl2157.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "NCCL's IB port failover took device 0 of a merged NIC out of service", "on GPU-606")
	if !strings.Contains(f.Mechanism, "Recovery is on") || f.Evidence[0].Line != 4 {
		t.Errorf("%s %+v", f.Mechanism, f.Evidence)
	}
	// synthetic: the same WARN without recovery, then the failover out of
	// devices and NCCL's return path, on another process; and the WARN in
	// the format of NCCL 2.29.7's p2p_resiliency.cc:312, which has no
	// recovery and says nothing of it, then a second failed device, which
	// leaves ports but stops the connection.
	for _, c := range []struct{ text, dev, out string }{
		{"h1:10:11 [0] transport/net_ib/p2p_resiliency.cc:325 NCCL WARN NET/IB: ncclIbResiliencyHandleDeviceFailure: Device 1 marked as failed. Initiating recovery? No (recv comm=0x1, outstandingRecovery=0)\n" +
			"h2:20:21 [0] transport/net_ib/p2p_resiliency.cc:64 NCCL WARN NET/IB: The error is fatal (No functional devices left). Cannot continue.\n",
			"took device 1 of a merged NIC out of service", "NCCL's IB port failover had no NIC left"},
		{"h1:10:11 [0] transport/net_ib/p2p_resiliency.cc:312 NCCL WARN NET/IB: ncclIbResiliencyHandleDeviceFailure: Device 2 marked as failed. (send comm=0x2)\n" +
			"h2:20:21 [0] transport/net_ib/p2p_resiliency.cc:46 NCCL WARN NET/IB: ncclIbResiliencyCheckErrorNotFatal: Fatal error. Detected 2 failed devices out of 4 devices on the send communicator (comm=0x4). No support for more than a single failed device.\n",
			"took device 2 of a merged NIC out of service", "a second device of a merged NIC failed"},
	} {
		log := filepath.Join(t.TempDir(), "failover.log")
		if err := os.WriteFile(log, []byte(c.text+"h2:20:21 [0] NCCL INFO transport/net_ib/p2p_resiliency.cc:690 -> 6\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fs = Diagnose([]string{log}, nil, Options{}).Findings
		f = nicMustFind(t, fs, "nccl.warn.error", Warn, c.dev)
		if !strings.Contains(f.Mechanism, "Recovery is off") {
			t.Errorf("mechanism %s", f.Mechanism)
		}
		nicMustFind(t, fs, "nccl.warn.error", Error, c.out, "NCCL returned 6")
	}
}

// A SONiC CONFIG_DB given to diagnose (sonic-mgmt#7016's BUFFER_PROFILE
// fragment) is said to be a configuration for lint, in the finding and
// in the exit-2 message; before, it was "in no format rocelab
// recognises". Other JSON keeps the plain message.
func TestConfigDBPointsToLint(t *testing.T) {
	f := nicTestdata("corpus/sonic/sonic-configdb-fragment-buffer-profile-only-t1-sonicmgmt7016.json")
	rep := Diagnose([]string{f}, nil, Options{})
	g := nicMustFind(t, rep.Findings, "input.unrecognized", Warn, "is a SONiC CONFIG_DB (BUFFER_PROFILE): a configuration, which rocelab lint judges")
	if g.Fix == "" || !strings.HasPrefix(g.Fix, "rocelab lint "+f) {
		t.Errorf("fix %q", g.Fix)
	}
	if why := rep.Unusable(); !strings.Contains(why, "use rocelab lint "+f) || rep.ExitCode() != 2 {
		t.Errorf("exit %d: %s", rep.ExitCode(), why)
	}
	for head, want := range map[string]string{
		"{\n  \"localhost\": {\n": "a SONiC CONFIG_DB (localhost)",
		"\"BUFFER_PG\": {":        "a SONiC CONFIG_DB (BUFFER_PG)",
		"{\"README\": [":          "",
		"{\n \"helper_data\": {":  "",
		"{\"version\":1,":         "",
		"\"PORT\":":               "",
	} {
		if got := lintConfig([]byte(head)); got != want {
			t.Errorf("lintConfig(%q) = %q, want %q", head, got, want)
		}
	}
}

// A Cumulus NVUE configuration given to diagnose, its tree (the NVIDIA Air
// workshop's applied qos section) or nv set commands (the 5.15 guide's
// RoCE change), is named as a configuration for lint the same way; `nv
// show qos roce`, which diagnose reads, is not.
func TestNVUEConfigPointsToLint(t *testing.T) {
	for file, want := range map[string]string{
		"cl551-air-workshop-applied-qos.yaml": "is a Cumulus NVUE configuration (nv config show -o yaml, startup.yaml): a configuration, which rocelab lint judges",
		"cl515-nv-set-roce-sp2.txt":           "is a Cumulus NVUE configuration (nv set commands): a configuration, which rocelab lint judges",
	} {
		f := filepath.Join("..", "lint", "testdata", file)
		rep := Diagnose([]string{f}, nil, Options{})
		g := nicMustFind(t, rep.Findings, "input.unrecognized", Warn, want)
		if !strings.HasPrefix(g.Fix, "rocelab lint "+f) {
			t.Errorf("%s: fix %q", file, g.Fix)
		}
		if why := rep.Unusable(); !strings.Contains(why, "use rocelab lint "+f) || rep.ExitCode() != 2 {
			t.Errorf("%s: exit %d: %s", file, rep.ExitCode(), why)
		}
	}
	rep := Diagnose([]string{filepath.Join("..", "lint", "testdata", "cl515-nv-show-qos-roce-single-ipool.txt")}, nil, Options{})
	nicMustNot(t, rep.Findings, "input.unrecognized")
}
