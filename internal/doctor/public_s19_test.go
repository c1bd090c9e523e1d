package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the nineteenth sweep: each was misread before its fix, and
// each test fails on the code before it.

// ib_write_bw between two GB10 with --force-link IB on rocep1s0f0 (a
// Dell Pro Max GB10 README): perftest prints Link type IB for a RoCE
// device, so its MTU of 1024 (netdev MTU 1500) went unjudged.
func TestForcedLinkIBOnRoCEDeviceJudgesMTU(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/perftest/ib-write-bw-gb10-rocep-force-link-ib-mtu1024-rdmacm-111gbps.txt")
	f := nicMustFind(t, fs, "perftest.mtu.small", Warn, "RoCE MTU 1024", "printed as Link type IB because of --force-link IB")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 3 || f.Evidence[1].Line != 14 {
		t.Errorf("evidence %+v; want the command (3), Mtu (14) and Link type (15)", f.Evidence)
	}
}

// mlnx-tools' show_counters of a ConnectX-4 Lx bond (Chinese RDMA notes):
// 3.29 M responder completion errors, 3.21 M of them flushes. Before, no
// finding named them.
func TestResponderCompletionErrors(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/hwcounters/show-counters-mlx5-bond-ecn-np-out-of-sequence-resp-cqe-flush-notes.txt")
	f := nicMustFind(t, fs, "counters.responder_errors", Info, "mlx5_bond_0 port 1: 3293504 receive work requests", "resp_cqe_flush_error 3211234")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 18 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "counters.retransmission", Info, "out_of_sequence 1811101")
}

// ibstat of a GB10 (geerlingguy/sbc-reviews#92) beside an ib_write_bw
// between two GB10: the disabled port's "Rate: 40" is no line rate. Before,
// it made the rates disagree and the perftest went unjudged.
func TestDownPortRateIsNoLineRate(t *testing.T) {
	fs := nicDiagnose(t, Options{},
		"corpus/ethtool/ibstat-gb10-cx7-mt4129-roce-halves-200g-one-disabled-rate-40-sbcreviews92.txt",
		"corpus/perftest/ib-write-bw-gb10-rocep-force-link-ib-mtu1024-rdmacm-111gbps.txt")
	f := nicMustFind(t, fs, "perftest.bw.low", Warn, "best 111.6 Gb/s", "56% of the 200.0 Gb/s link rate")
	if !strings.Contains(f.Evidence[0].Text, "Rate: 200") {
		t.Errorf("rate evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "devinfo.port.down", Warn, "roceP2p1s0f1 port 1")
}
