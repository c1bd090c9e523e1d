package doctor

import (
	"strings"
	"testing"
)

// NCCL's ibv_modify_qp failing with EINVAL beside ibstat of an Intel E810
// (irdma) whose port is down (NVIDIA/nccl#622): the QP failure is an
// error, the disabled port a warning.
func TestModifyQPEinvalE810PortDown(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/modify-qp-einval-e810-irdma-ibstat-port-down-nccl622.txt")
	nicMustFind(t, fs, "nccl.ib.qp_setup_failed", Error, "ibv_modify_qp: Invalid argument")
	nicMustFind(t, fs, "devinfo.port.down", Warn, "rocep216s0f0 port 1 is not up: DOWN (physical state Disabled)")
}

// A responder-side completion error (status 9, NVIDIA/nccl#1710) names
// the peer as where the fault is, and the queue-pair async event the same
// paste shows on another host as the responder's failure. Before, the fix
// was to look the status up in ibv_wc_status_str(3).
func TestRemoteStatusPointsAtPeer(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-markdown-autolinks-async-event-status9-vendor138-nccl1710.txt")
	f := nicMustFind(t, fs, "nccl.ib.completion_error", Error, "Completion with error 9 (IBV_WC_REM_INV_REQ_ERR, vendor err 0x8a) on 1 connection from node023 to peer 10.1.3.201")
	if !strings.Contains(f.Mechanism, "the fault is on the peer (10.1.3.201)") || !strings.Contains(f.Mechanism, "'local access violation work queue error' on node201 mlx5_0:1") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	if !strings.Contains(f.Fix, "Read the log of the peer (10.1.3.201)") || !strings.Contains(f.Fix, "NCCL_NET_GDR_LEVEL=LOC") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustFind(t, fs, "nccl.ib.async_event", Error, "local access violation work queue error", "node201")
}

// Real text: completion errors quoted inline without NCCL's
// prefix (NVIDIA/nccl#1664 under NET/IBP, horovod#147 with "WARN" but no
// "NCCL") are read by their own text.
func TestCompletionErrorFragments(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/threads/completion-error-inline-netibp-nccl1664.txt")
	f := nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "status 12", "vendor err 0x81", "peer 7.6.13.83")
	if !strings.Contains(f.Mechanism, "NET/IBP") {
		t.Errorf("plugin transport not named: %s", f.Mechanism)
	}
	// Status 12 is the requester's retries running out, not the
	// responder refusing (statuses 9-11).
	if strings.Contains(f.Mechanism, "responder refusing") {
		t.Errorf("status 12 read as the responder's refusal: %s", f.Mechanism)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/threads/completion-error-quoted-warn-horovod147.txt")
	nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "status 12", "vendor err 0x81")
	// SYNTHETIC: the plugin names NCCL's HPC-X plugin uses, with the
	// prefix a logger may put before NCCL's.
	fs = synthFindings(t, Options{},
		"2024-05-01 12:00:00,123 worker-3 h1:5:7 [0] transport/net_ib.cc:1 NCCL WARN NET/IBext_v8 : Got completion from peer 10.0.0.2<5> with status=4 opcode=0 len=0 vendor err 81 (Send)")
	nicMustFind(t, fs, "nccl.ib.local_protection", Error, "from h1")
}

// An InfiniBand job (NCCL 2.19.3 on mlx5_0:1/IB, ibstatus of an EDR port)
// gets no RoCE advice: no GID index, no PFC; a RoCE port with an
// ibv_modify_qp "No such device" failure gets the GID-index cause.
func TestInfiniBandAndNoSuchDevice(t *testing.T) {
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

// Status 12 on an InfiniBand port is told as InfiniBand's failure (a link
// or route the subnet manager gave, the peer gone), not RoCE's (GID, PFC,
// DSCP): the device the error names is rdma-core's name for an IB port
// (DeepSpeed#6875, "hca ibp152s0"), or the log lists the host's devices
// as /IB.
func TestRetryExceededOnInfiniBand(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-ib-docker-status12-vendor129-recv-then-status5-vendor249-hca-ibp152s0-deepspeed6875.txt")
	f := nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "over InfiniBand")
	if !strings.Contains(f.Fix, "ibstat") || strings.Contains(f.Fix, "mlnx_qos") || strings.Contains(f.Mechanism, "cannot talk over RoCE") {
		t.Errorf("InfiniBand told as RoCE:\n%s\n%s", f.Mechanism, f.Fix)
	}
	// Synthetic: a host whose NCCL devices are all InfiniBand, an error
	// that names no device (NCCL before 2.21).
	ib := []string{"h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>",
		"h1:1:2 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<33333> with error 12, opcode 0, len 0, vendor err 129"}
	nicMustFind(t, synthFindings(t, Options{}, ib...), "nccl.ib.retry_exceeded", Error, "over InfiniBand")
	ib[0] = strings.ReplaceAll(ib[0], "/IB", "/RoCE")
	f = nicMustFind(t, synthFindings(t, Options{}, ib...), "nccl.ib.retry_exceeded", Error)
	if strings.Contains(f.Title, "InfiniBand") || !strings.Contains(f.Fix, "mlnx_qos") {
		t.Errorf("RoCE told as InfiniBand: %s\n%s", f.Title, f.Fix)
	}
}

// Synthetic: GIDs NCCL prints in a completion error on an InfiniBand port
// are fe80::/64 and the port's GUID (the default subnet prefix), not a
// link-local RoCE GID: no gid.index.link_local there, as on RoCE.
func TestInfiniBandGIDsAreNotLinkLocalRoCE(t *testing.T) {
	lines := []string{"h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0>",
		"NCCL version 2.23.4+cuda12.6",
		"h1:1:2 [0] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<53908> with status=12 opcode=129 len=1048576 vendor err 129 (Recv) localGid fe80::a088:c203:5d:b0d8 remoteGidsfe80::a088:c203:5d:b0e0 hca mlx5_0"}
	fs := synthFindings(t, Options{}, lines...)
	nicMustNot(t, fs, "gid.index.link_local")
	nicMustFind(t, fs, "nccl.ib.retry_exceeded", Error, "over InfiniBand")
	lines[0] = strings.ReplaceAll(lines[0], "/IB", "/RoCE")
	nicMustFind(t, synthFindings(t, Options{}, lines...), "gid.index.link_local", Error)
}

// NET/IB failing to open one device (NVIDIA/nccl#2428: "Unable to open
// device erdma_1", eRDMA, NCCL 2.30.7) leaves that device out and goes on:
// it is no socket fallback, and the finding says which device and what a
// host with fewer devices than its peers does. Before, the WARN was read
// as NCCL's IB transport stopping, a fallback to TCP sockets.
func TestIBDeviceSkippedIsNoSocketFallback(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.30.7-erdma-unable-to-open-device-one-of-two-no-prefix-nccl2428.txt")
	if got := nicFind(fs, "nccl.transport.socket_fallback"); len(got) != 0 {
		t.Errorf("read as a socket fallback:\n%s", nicTitles(fs))
	}
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "NCCL could not open the RDMA device erdma_1 and left it out")
	// NCCL 2.30's check defaults to NCCL_IGNORE_NET_MISMATCH=1 (init.cc:131
	// at v2.30.7-1): a mismatch is logged at INFO and hangs; =0 fails init.
	if !strings.Contains(f.Mechanism, "by default (NCCL_IGNORE_NET_MISMATCH=1)") || !strings.Contains(f.Fix, "NCCL_IB_HCA") ||
		!strings.Contains(f.Fix, "set NCCL_IGNORE_NET_MISMATCH=0 so a mismatch fails init") {
		t.Errorf("why %s\nfix %s", f.Mechanism, f.Fix)
	}
	// A port NET/IB could not query (SYNTHETIC line of net_ib.cc's form).
	fs = synthFindings(t, Options{}, "# synthetic", "h:1:2 [0] transport/net_ib.cc:590 NCCL WARN NET/IB : Unable to query port_num 2")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "NCCL could not query port 2 of an RDMA device")
}

// SYNTHETIC lines in net_ib.cc's form. Every device failing to open, then
// "No device found." and the socket transport: the WARNs are the socket
// fallback's cause, not devices left out of a transport that started,
// named under one verb, and their fix is to make the devices usable.
// With a "NET/IB : Using" line, every device left out on the host is
// named with the step that failed; with neither, the finding does not
// claim the host ran on other devices.
func TestIBDeviceSkippedAllIsTheFallbackCause(t *testing.T) {
	fs := synthFindings(t, Options{}, "# synthetic",
		"h1:1:2 [0] transport/net_ib.cc:590 NCCL WARN NET/IB : Unable to open device mlx5_0",
		"h1:1:2 [0] transport/net_ib.cc:590 NCCL WARN NET/IB : Unable to open device mlx5_1",
		"h1:1:2 [0] NCCL INFO NET/IB : No device found.",
		"h1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
		"h1:1:2 [0] NCCL INFO Using network Socket")
	nicMustNot(t, fs, "nccl.warn.error")
	f := nicMustFind(t, fs, "nccl.transport.socket_fallback", Warn)
	if !strings.Contains(f.Mechanism+f.Title, "NET/IB could not open the RDMA devices mlx5_0, mlx5_1 on h1") {
		t.Errorf("cause not told: %s\n%s", f.Title, f.Mechanism)
	}
	// The fix makes the verbs devices usable, once, without the
	// leave-one-out advice of a host that kept some.
	if strings.Contains(f.Fix, "NCCL_IB_HCA") || strings.Contains(f.Fix, "NCCL_IGNORE_NET_MISMATCH") || strings.Count(f.Fix, "--device=/dev/infiniband") != 1 || !strings.Contains(f.Fix, "uverbs") {
		t.Errorf("fix: %s", f.Fix)
	}
	fs = synthFindings(t, Options{}, "# synthetic",
		"h1:1:2 [0] transport/net_ib.cc:590 NCCL WARN NET/IB : Unable to open device mlx5_0",
		"h1:1:2 [0] transport/net_ib.cc:600 NCCL WARN NET/IB : Unable to query device mlx5_1",
		"h1:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_2:1/RoCE ; OOB eth0:10.0.0.1<0>")
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "NCCL could not open the RDMA device mlx5_0, query the RDMA device mlx5_1 and left them out: this host's ranks run on the devices it did open")
	fs = synthFindings(t, Options{}, "# synthetic", "h1:1:2 [0] transport/net_ib.cc:590 NCCL WARN NET/IB : Unable to open device mlx5_0")
	f = nicMustFind(t, fs, "nccl.warn.error", Warn, "left it out (the log holds no NET/IB : Using line")
	if strings.Contains(f.Title, "run on the devices it did open") {
		t.Errorf("claims devices kept: %s", f.Title)
	}
}
