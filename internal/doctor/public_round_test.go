package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Real artifacts found in public threads and documents that diagnose had
// not seen (the headers of the files under testdata/corpus name each
// source). Each test failed before the change it covers.

// A net plugin that fails to initialise is why NCCL fell back to sockets:
// aws-ofi-nccl on an EKS MPIJob (aws/aws-k8s-tester#454) and on SageMaker
// (aws/aws-ofi-nccl#715). Before, the finding named only "no RDMA device"
// or NCCL_IB_DISABLE and advised installing the plugin that had failed.
func TestPluginInitFailureExplainsSocketFallback(t *testing.T) {
	for _, c := range []struct{ file, msg string }{
		{"corpus/nccl-log/nccl-ofi-init-failed-socket-fallback-mpi-tags-awsk8stester454.txt", `"Failed to initialize sendrecv protocol"`},
		{"corpus/nccl-log/nccl-ofi-init-failed-ib-disabled-cloudwatch-prefix-awsofinccl715.txt", `"aws-ofi-nccl initialization failed"`},
	} {
		f := nicMustFind(t, diagnoseFiles(t, Options{}, c.file), "nccl.transport.socket_fallback", Warn)
		if !strings.Contains(f.Mechanism, "the net plugin NET/OFI failed to initialise on 1 host ("+c.msg) {
			t.Errorf("%s: mechanism does not name the plugin failure: %s", c.file, f.Mechanism)
		}
		if !strings.Contains(f.Fix, "fi_info -p efa") || strings.Contains(f.Fix, "use its own net plugin") {
			t.Errorf("%s: fix %q", c.file, f.Fix)
		}
	}
}

// A net plugin that turns GPUDirect RDMA off says why: aws-ofi-nccl 1.18
// on EFA ("Could not disable CUDA API usage for HMEM, disabling GDR"),
// where the finding said "no reason printed".
func TestPluginGDROffReason(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-efa-aws-ofi-nccl1.18-nccl2.29-gdr0-plugin-reason-g7e.txt")
	f := nicMustFind(t, fs, "nccl.gdr.disabled", Warn, "the net plugin NET/OFI turned it off", "Could not disable CUDA API usage for HMEM")
	if strings.Contains(f.Title, "no reason printed") || !strings.Contains(f.Fix, "aws-ofi-nccl") {
		t.Errorf("title %q fix %q", f.Title, f.Fix)
	}
	if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[0].Text, "disabling GDR") {
		t.Errorf("first evidence %+v, want the plugin's line", f.Evidence)
	}
}

// PyTorch's ProcessGroupNCCL watchdog lines are read: a file of them was
// "in no format rocelab recognises" (exit 2). PyTorch 2.2+'s form
// (hiyouga/LlamaFactory#7396, with NumelIn/NumelOut) and the older one
// behind a progress bar (pytorch/pytorch#118369, ranks at different
// sequence numbers).
func TestCollectiveTimeout(t *testing.T) {
	arts := nicReadArtifacts(t, "corpus/nccl-log/pytorch-watchdog-timeout-allreduce-seq1580-llamafactory7396.txt")
	l := arts[0].(*ingest.NCCLLog)
	if len(l.Timeouts) != 2 || l.TimeoutCount != 2 {
		t.Fatalf("timeouts %+v", l.Timeouts)
	}
	if w := l.Timeouts[1]; w.Rank != 4 || w.SeqNum != 1580 || w.OpType != "ALLREDUCE" || w.NumelIn != 466119168 || w.NumelOut != 466119168 || w.TimeoutMS != 600000 || w.RanMS != 600067 {
		t.Errorf("second timeout %+v", w)
	}
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-timeout-allreduce-seq1580-llamafactory7396.txt")
	nicMustFind(t, fs, "nccl.collective.timeout", Error, "ALLREDUCE (SeqNum 1580)", "within 600.0 s", "ranks 0, 4")

	old := nicReadArtifacts(t, "corpus/nccl-log/pytorch-watchdog-timeout-old-format-progress-bar-pytorch118369.txt")[0].(*ingest.NCCLLog)
	if len(old.Timeouts) != 4 || old.TimeoutCount != 5 || old.Timeouts[0].SeqNum != 96120 || old.Timeouts[0].NumelIn != -1 || old.Timeouts[3].Rank != 7 {
		t.Fatalf("old-format timeouts %+v (count %d)", old.Timeouts, old.TimeoutCount)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-watchdog-timeout-old-format-progress-bar-pytorch118369.txt")
	f := nicMustFind(t, fs, "nccl.collective.timeout", Error, "1800.0 s", "ranks 0, 7")
	if !strings.Contains(f.Mechanism, "different sequence numbers") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}

// Sizes that take many times longer than a larger size are a stall, not a
// bandwidth figure: RCCL's all_gather on Slingshot (ROCm/rccl#1490) took
// 25-70 ms at 2-8 MiB against 1.06 ms at 16 MiB, which no finding named.
// A one-off in one half of a row (NVIDIA/nccl#1453's 2 MiB out-of-place)
// and a 4x inversion at 1 MiB in that table are not reported.
func TestNCCLTestsStall(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-tests/rccl-allgather-stall-2m-8m-allreduce-srun-label-rccl1490.txt")
	f := nicMustFind(t, fs, "nccltests.time.stall", Warn, "all_gather: 2MiB-8MiB took 25.55 ms-70.25 ms", "1.06 ms of the larger 16MiB")
	if len(f.Evidence) != 4 || !strings.Contains(f.Fix, "-b 2MiB -e 8MiB") {
		t.Errorf("evidence %d fix %q", len(f.Evidence), f.Fix)
	}
	if got := nicFind(fs, "nccltests.time.stall"); len(got) != 1 {
		t.Errorf("%d stall findings, want 1 (the all_reduce table of the same file has none)", len(got))
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/threads/allreduce-rank-tag-repeated-midline-nccl1453.txt"), "nccltests.time.stall")
}

// A Huawei hrn3 GID table (hiroce3 gids, v2 rows only) names index 1, not
// mlx5's 3, as the RoCEv2 IPv4 GID.
func TestHiroceGIDIndex(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/hiroce3-gids-huawei-hrn3-v2-only-index1-ipv4.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 1 (hrn3_bond_0 27.105.180.3)", "NCCL_IB_GID_INDEX=1")
}

// req_cqe_error without local ACK timeouts, counted since driver load, is
// not retries running out: a ConnectX-4 Lx host's show_counters in
// public notes (22 errors, no timeouts) was an error telling to find a
// dead path. A hang with ACK timeouts (NVIDIA/nccl#394) stays an error.
func TestReqCQEErrorWithoutTimeouts(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/cx4lx-4port-show-counters-req-cqe-error-no-ack-timeouts-notes.txt")
	f := nicMustFind(t, fs, "counters.retry_exceeded", Info, "22 work requests")
	if !strings.Contains(f.Mechanism, "since driver load") || strings.Contains(f.Fix, "dead path") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/threads/hwcounters-ecn-marks-beside-ack-timeouts-nccl394.txt")
	nicMustFind(t, fs, "counters.retry_exceeded", Error, "2 work requests")
}

// The traffic class a device forces decides where RoCE lands: spiderpool's
// rdma-qos.sh sets tclass 160 (DSCP 40, priority 5) and PFC on priority 5;
// the doctor assumed NCCL_IB_TC=106 and warned that PFC missed priority 3.
func TestForcedTrafficClass(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")
	nicMustNot(t, fs, "qos.pfc.disabled")
	f := nicMustFind(t, fs, "qos.ok", Info, "PFC on priority 5 only")
	if !strings.Contains(f.Mechanism, "traffic_class 160 (DSCP 40)") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}

// Azure MANA's port counters (rdma statistic show -p, from the mana_ib
// patch on linux-rdma) are read by concept: requester_retries_exceeded 5
// is queue pairs that ran out of retries and requester_timeout 45 ACK
// timeouts; before, the dump produced no finding.
func TestManaCounters(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/hwcounters/rdma-statistic-pretty-mana-ib-retries-exceeded-linuxrdma.txt")
	nicMustFind(t, fs, "counters.retry_exceeded", Warn, "mana_0 port 1: 5 queue pairs ran out of transport retries (requester_retries_exceeded)")
	nicMustFind(t, fs, "counters.retransmission", Warn, "requester_timeout 45")
}

// "Failed to initialize any NET plugin" is no network at all, not a
// fallback to sockets: aws-ofi-nccl 1.21.1 found no libfabric provider on
// Slingshot (ALCF Polaris notes, NCCL 2.28.3). Before, the finding said
// NCCL fell back to TCP sockets.
func TestNoNetworkTransport(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.3-ofi-1.21-cxi-no-provider-no-net-plugin-polaris.txt")
	f := nicMustFind(t, fs, "nccl.transport.none", Error, "Failed to initialize any NET plugin", "x3002c0s31b0n0")
	if !strings.Contains(f.Mechanism, `"No eligible providers were found"`) {
		t.Errorf("mechanism %q", f.Mechanism)
	}
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
}

// Four perftest runs on one device in one paste (public Kubernetes RDMA
// notes) made a group whose subjects and member lines repeated "mlx5_0"
// four times; the text report counts them instead.
func TestGroupCountsRepeatedSubjects(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/perftest/perftest-4-runs-one-device-devinfo-ibstat-cx5-roce-k8s-notes.txt")}, nil, Options{})
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "4 GID users (mlx5_0 ×4)") || strings.Contains(out, "mlx5_0, mlx5_0") {
		t.Errorf("group head:\n%s", out)
	}
	if n := strings.Count(out, "the RoCE version is not shown (×4)"); n != 1 {
		t.Errorf("member line counted %d times:\n%s", n, out)
	}
	nicMustFind(t, rep.Findings, "perftest.bw.ok", Info, "92% of the 100.0 Gb/s link rate")
}

// A perftest run states the GID its index held; another input's table of
// a host it may not be does not overrule it. Diagnosed together with
// IBM/SpectrumScale_NETWORK_READINESS#4's table (index 3 link-local
// there, on a "localhost"), the Kubernetes
// notes' four runs on mlx5_0 index 3 (::ffff:10.0.32.4) were each
// reported as using a link-local GID.
func TestOwnGIDOutranksOtherTable(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/perftest-4-runs-one-device-devinfo-ibstat-cx5-roce-k8s-notes.txt", "corpus/threads/show-gids-two-linklocal-ipv4-at-4-5-spectrumscale4.txt")
	for _, f := range nicFind(fs, "gid.index.link_local") {
		for _, e := range f.Evidence {
			if strings.Contains(e.File, "perftest-4-runs") {
				t.Errorf("a run judged by another file's table: %s", f.Title)
			}
		}
	}
	nicMustFind(t, fs, "gid.index.ipv4", Info, "GID index 3 in use is the IPv4 GID ::ffff:10.0.32.4")
}
