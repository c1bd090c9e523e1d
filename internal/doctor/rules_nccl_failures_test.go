package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NCCL 2.7.8's "Call to ibv_create_cq failed" carries no error
// (NVIDIA/nccl#380): the finding names the call alone, not "ibv_create_cq: "
// with nothing after it.
func TestAllocFailureWithoutReason(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.7.8-ibv-create-cq-failed-no-reason-roce-nccl380.txt")
	f := nicMustFind(t, fs, "nccl.ib.alloc_failed", Error, "A verbs resource could not be created (ibv_create_cq on spark01; 1 line)")
	if f.Evidence[0].Line != 15 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// A connection to the bootstrap listener that closed before sending NCCL's
// magic (NVIDIA/nccl#1612: a port scan, nmap -sT) fails init in NCCL
// before 2.27.3. Its error returns through four socket.cc lines before
// bootstrap.cc; the chain kept only those four, so the WARN read as a
// peer rank that died ("A peer closed its NCCL connection") and its fix
// sent the reader to the peer's logs.
func TestBootstrapProbeNotRankCrash(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-bootstrap-scanner-probe-closed-before-magic-nccl1612.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "port scan or probe")
	if !strings.Contains(f.Title, "through socket.cc:80, bootstrap.cc:701, init.cc:1402, group.cc:75") {
		t.Errorf("title %q", f.Title)
	}
	if !strings.Contains(f.Fix, "2.27.3") || strings.Contains(f.Title, "remote process exited") {
		t.Errorf("fix %q", f.Fix)
	}
	// "[0]" is NCCL's device field (its host:pid:tid cut off), not a
	// launcher's tag: the evidence is the whole line.
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 || f.Evidence[0].Col != 0 {
		t.Errorf("evidence %v", f.Evidence)
	}
	// A socket closed later in the run, through the proxy, stays a peer
	// that died (NVIDIA/nccl#1235).
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.1x-cuda-out-of-memory-p2p-calloc-peer-closed-nccl1235.txt")
	for _, f := range fs {
		if strings.Contains(f.Title, "port scan") {
			t.Errorf("%s", f.Title)
		}
	}
}

// Open MPI's --timestamp-output runs ctime's date into the --tag-output
// tag ("Fri Aug 11 12:31:45 2023[1,0]<stdout>:", NVIDIA/nccl#957, NCCL
// 2.18.3): both are cut, so the host is tomte401, not "2023[1,0]<stdout>:
// tomte401", and the column is the NCCL line's. Its CUDACHECK WARN
// ("transport.cc:154 NCCL WARN Cuda failure 'invalid argument'") is the
// cause, its code the one the proxy thread's next WARN states ("res=3",
// "retcode 3"). Before, the log gave one info about two hosts named by
// the date and no finding of the failure.
func TestMPITimestampCudaFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.18.3-mpi-timestamp-output-cuda-invalid-argument-nccl957.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "A CUDA call NCCL made failed (Cuda failure 'invalid argument' in transport.cc:154): NCCL returned 3 (internal error) (on tomte401; 2 lines)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 2 || f.Evidence[0].Col != 39 || f.Evidence[1].Line != 7 {
		t.Errorf("evidence %v", f.Evidence)
	}
	nicMustNot(t, fs, "nccl.log.no_network_lines")
	if len(fs) != 1 {
		t.Errorf("%s", nicTitles(fs))
	}
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

// NCCL 2.30's IB port failover marking a port of a merged NIC failed
// (NVIDIA/nccl#2157) is a warning that names the device and says that
// recovery runs; before, the WARN was passed over and the log read clean.
// A synthetic variant without recovery says the port stays out, and the
// failover running out of ports, with NCCL's return code after it, is an
// error. The WARN once read as NET/IB failing to start, after which the
// doctor told of a fall back to TCP sockets.
func TestIBPortFailoverWarn(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.30-ib-port-failover-device-0-marked-failed-recovery-yes-nccl2157.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "NCCL's IB port failover took device 0 of a merged NIC out of service", "on GPU-606")
	// The WARN is printed on a connection of a transport that is up: no
	// fall back to sockets.
	nicMustNot(t, fs, "nccl.transport.socket_fallback")
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

// NVLS's CUDA calls failing at init (NVIDIA/nccl#1705 with its return
// chain; devopsrustem/slurmv4 at NCCL_DEBUG=WARN, without one): before,
// the first was a generic "NCCL failed after a WARN" and the second no
// finding at all. Without return codes the second is an error too: its
// "Cuda failure 1" is CUCHECK's, which returns ncclUnhandledCudaError.
func TestNVLSCudaFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-nvls-cuda-failure-invalid-argument-h100-chain-nccl1705.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NVLink SHARP (NVLS) could not set up its multicast memory", "NCCL returned 1 (unhandled cuda error) through nvls.cc:409, init.cc:1157", "on bm-h100-02")
	if !strings.Contains(f.Fix, "NCCL_NVLS_ENABLE=0") || !strings.Contains(f.Mechanism, "later WARNs after it on the same processes are its fallout") {
		t.Errorf("fix or fallout missing: %s / %s", f.Fix, f.Mechanism)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-nvls-cuda-failure-invalid-argument-warn-only-slurmv4.txt")
	nicMustFind(t, fs, "nccl.warn.error", Error, "NVLink SHARP (NVLS)", "NCCL's CUDA check returns 1", "on tpgds-aihub0003; 2 lines")
}

// A WARN of NCCL's CUDA check macros is an error without a return code
// after it: CUCHECK prints "Cuda failure <code> '<string>'" and
// CUDACHECK "Cuda failure '<string>'", then both return
// ncclUnhandledCudaError. NVIDIA/nccl#1410's three lines are three
// processes: the WARN's own thread printed no code, and another process's
// "transport/nvls.cc:328 -> 1" is not cited for it. A WARN that is not a
// check macro's (NET/IB skipping a device, the transport going on) stays
// below error beside another process's code through its file, and the
// check macros' INFO twins (CUDACHECKIGNORE) are no failure (SYNTHETIC
// lines in NCCL's format for those).
func TestCUDACheckWarnIsAnError(t *testing.T) {
	t.Run("nccl1410", func(t *testing.T) {
		fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.20.5-k8s-h100-nvls-cuda-failure-1-invalid-argument-three-processes-nccl1410.txt")
		f := nicMustFind(t, fs, "nccl.warn.error", Error, "NVLink SHARP (NVLS)", "NCCL's CUDA check returns 1 (unhandled cuda error) right after this WARN")
		if evidenceHas(f, "transport/nvls.cc:328 -> 1") {
			t.Errorf("another process's return code cited: %+v", f.Evidence)
		}
	})
	t.Run("cudacheck", func(t *testing.T) {
		fs := synthFindings(t, Options{},
			"# synthetic",
			"h1:10:11 [0] transport/p2p.cc:275 NCCL WARN Cuda failure 'invalid argument'")
		nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL's CUDA check returns 1")
	})
	t.Run("not-a-check", func(t *testing.T) {
		fs := synthFindings(t, Options{},
			"# synthetic",
			"h1:10:11 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"h1:10:11 [0] transport/net_ib.cc:247 NCCL WARN NET/IB : Unable to open device mlx5_1",
			"h1:20:21 [1] NCCL INFO transport/net_ib.cc:1100 -> 2",
			"h1:30:31 [2] NCCL INFO enqueue.cc:400 Cuda failure 'invalid argument'")
		for _, f := range fs {
			if f.ID == "nccl.warn.error" && f.Severity == Error {
				t.Errorf("error from a WARN no check macro printed: %s", f.Title)
			}
		}
	})
}

// An ungrouped ncclSend on both ranks (NVIDIA/nccl#2057, NCCL 2.29.2 over
// NET/Socket): the socket transport reads a peer handle with address
// family 1 and returns internal error through net_socket.cc. Before, the
// line was read as a bootstrap unique id no rank 0 made, and the fix sent
// the reader to MPI=1 and the launcher.
func TestSocketTransportFamilyIsUngroupedSendRecv(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.29.2-socket-ungrouped-send-family-1-net-socket-nccl2057.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "socket transport was handed a peer address that is no IP address", "returned 3 (internal error) through net_socket.cc:399")
	if !strings.Contains(f.Fix, "ncclGroupStart") || f.Evidence[0].Line != 48 {
		t.Errorf("fix or evidence: %s %+v", f.Fix, f.Evidence)
	}
	for _, f := range fs {
		if strings.Contains(f.Title, "bootstrap address") {
			t.Errorf("the transport's connect is called a bootstrap failure: %s", f.Title)
		}
	}
}

// NCCL 2.25.1 on two RTX 5090 (NVIDIA/nccl-tests#287): the INFO line
// "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856" is why the
// launch in enqueue.cc fails with 'invalid argument'. Before, the finding
// was a generic "NCCL failed after a WARN" that sent the reader to
// NCCL_DEBUG=INFO, which the log already had.
func TestSharedMemOverIsTheLaunchFailure(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.25.1-rtx5090-maxsharedmem-exceeds-launch-invalid-argument-nccltests287.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "more shared memory than this GPU gives a block", "returned 1 (unhandled cuda error)", "on GENOA-06")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 12 || f.Evidence[1].Line != 69 || !strings.Contains(f.Fix, "2.26") {
		t.Errorf("evidence %+v, fix %s; want the INFO line 12 and the WARN 69, and NCCL 2.26", f.Evidence, f.Fix)
	}
	// The same WARN without the INFO line is a CUDA call that failed,
	// its cause not named.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h:1:1 [1] enqueue.cc:1500 NCCL WARN Cuda failure 1 'invalid argument'",
		"h:1:1 [1] NCCL INFO group.cc:242 -> 1")
	nicMustFind(t, fs, "nccl.warn.error", Error, "A CUDA call NCCL made failed (Cuda failure 1 'invalid argument' in enqueue.cc:1500)")
}

// RCCL 2.27.7 on MI350X (ROCm/rccl#2188): hipIpcGetMemHandle fails at
// p2p.cc:256, the allocator frees the buffer (an ALLOC INFO line), then the
// return codes follow; the prefix has no pid:tid ("node [1]"). Before, the
// free line ended the WARN's chain, the WARN had no return code and no
// finding named the failure at all.
func TestIPCExportFailureWithAllocLines(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/rccl-2.27.7-rocm7.2-mi350x-hipipcgetmemhandle-p2p-invalid-argument-no-pid-rccl2188.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "P2P transport could not share GPU memory with another process", "returned 1 (unhandled cuda error) through p2p.cc:709")
	if f.Evidence[0].Line != 35 || !strings.Contains(f.Fix, "NCCL_P2P_DISABLE=1") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	nicMustFind(t, fs, "nccl.host.config", Warn, "iommu=pt")
}

// NCCL 2.29.7's last error under PyTorch's DistBackendError
// (NVIDIA/nccl#2077): NVLS could not bind multicast memory, CUDA error 2,
// the NVSwitches' multicast slots used up by many communicators. Before,
// the paste was "in no format rocelab recognises".
func TestNVLSMulticastOutOfMemory(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-distbackenderror-nccl-2.29.7-nvls-multicast-bind-out-of-memory-nccl2077.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "multicast resources are used up (CUDA error 2, out of memory)", "returned 1 (unhandled cuda error) through NCCLUtils.cpp:93")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 3 || f.Evidence[1].Line != 5 || !strings.Contains(f.Fix, "NCCL_NVLS_ENABLE=0") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	// The same failure as NCCL's own WARN (SYNTHETIC line in nvls.cc's
	// format) with its return code.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h:1:2 [0] transport/nvls.cc:166 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of memory'.",
		"h:1:2 [0] NCCL INFO transport/nvls.cc:260 -> 1")
	nicMustFind(t, fs, "nccl.warn.error", Error, "multicast resources are used up", "returned 1 (unhandled cuda error)")
}

// aws-ofi-nccl's rail check pasted without NCCL's prefixes
// (NVIDIA/nccl#1913, NCCL 2.28.9 on P5): eight devices whose two ends
// disagree on their rail count, then nccl-tests stops on internal error.
// Before, the rail lines were read as INFO and the only finding sent the
// reader to NCCL_DEBUG=INFO.
func TestOFIRemoteRailsMismatch(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.28.9-ofi-remote-rails-mismatch-test-failure-no-host-nccl1913.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Warn, "The two ends of an aws-ofi-nccl connection have different rail counts", "8 lines")
	if len(f.Evidence) != 8 || f.Evidence[0].Line != 3 || !strings.Contains(f.Fix, "OFI_NCCL_FORCE_NUM_RAILS") || strings.Contains(f.Mechanism, "fallout") {
		t.Errorf("evidence %+v fix %s mechanism %s", f.Evidence, f.Fix, f.Mechanism)
	}
	failed := nicMustFind(t, fs, "nccltests.failed", Error, "all_reduce.cu:471")
	if !strings.Contains(failed.Fix, "nccl.warn.error") || !strings.Contains(failed.Fix, "'NET/OFI Unexpected number of remote rails for dev 0. Expected 3 but got 2'") {
		t.Errorf("the failure's fix does not point at the WARN lines: %s", failed.Fix)
	}
	// The WARN with NCCL's prefix and aws-ofi-nccl's function for location
	// (the line aws-ofi-nccl#990 quotes, SYNTHETIC host and counts).
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h100-316:1747401:1751360 [3] accept_wait_for_connection(nccl_net_ofi_rdma_domain_t*, nccl_net_ofi_rdma_listen_comm_t*, nccl_net_ofi_rdma_recv_comm_t**):4909 NCCL WARN NET/OFI Unexpected number of remote rails for dev 3. Expected 4 but got 2")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "different rail counts", "on h100-316")
}

// "Attribute busid of node nic not found" (NVIDIA/nccl#1247, NCCL
// 2.18.6) is NCCL 2.18.5-2.19 failing on an interface with no PCI device,
// fixed in 2.20.3; any other missing attribute is a topology XML NCCL was
// given (#379). Before, both sent the reader to NCCL_DEBUG=INFO.
func TestTopologyAttributeNotFound(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/pytorch-distbackenderror-nccl-2.18.6-internal-error-ray-prefix-busid-of-nic-not-found-nccl1247.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL's topology detection failed on a network interface that has no PCI device")
	if !strings.Contains(f.Mechanism, "2.20.3 skips it") || !strings.Contains(f.Fix, "Upgrade NCCL to 2.20.3") || !strings.Contains(f.Fix, "NCCL_SOCKET_IFNAME") {
		t.Errorf("mechanism %s fix %s", f.Mechanism, f.Fix)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-topo-file-attribute-arch-of-node-cpu-not-found-bare-nccl379.txt")
	f = nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL's topology XML lacks an attribute it needs (Attribute arch of node cpu not found)")
	if f.Evidence[0].Line != 2 || !strings.Contains(f.Fix, "NCCL_TOPO_DUMP_FILE") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
}

// A bootstrap connect that fails in NCCL's SYSCHECK macros is reported
// only by return codes, the first with its errno ("misc/socket.cc:505 ->
// 2 (Operation now in progress)"), and no WARN (pytorch/pytorch#131781).
// Before, the log read as a clean IB job.
func TestSystemErrorOriginWithoutWarn(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.2x-bootstrap-connect-einprogress-return-codes-no-warn-pytorch131781.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL's bootstrap connection between ranks failed", "returned 2 (unhandled system error)", "bootstrap.cc:275", "on g105; 3 lines")
	if f.Evidence[0].Line != 5 || !strings.Contains(f.Evidence[0].Text, "(Operation now in progress)") {
		t.Errorf("evidence is not the errno line: %+v", f.Evidence[0])
	}
}

// A return code with no errno and no WARN before it stays unread: it is
// the unwinding of a failure printed elsewhere (SYNTHETIC lines in
// NCCL's format).
func TestReturnCodeWithoutOriginIsNoFailure(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"h1:100:200 [0] NCCL INFO misc/socket.cc:47 -> 3",
		"h1:100:200 [0] NCCL INFO misc/socket.cc:550 -> 3 [Proxy Thread]")
	nicMustNot(t, fs, "nccl.warn.error")
}

// NCCL failing to allocate GPU memory (alloc.h's "Cuda failure 'out of
// memory'", then "Failed to CUDA calloc 6291456 bytes") is the cause of
// its process's failure, and the return code after the second WARN is
// that failure's (NVIDIA/nccl#1235). Before, the first WARN was skipped
// and the finding read "NCCL failed after a WARN: Failed to CUDA calloc".
func TestNCCLGPUOutOfMemory(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.1x-cuda-out-of-memory-p2p-calloc-peer-closed-nccl1235.txt")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NCCL could not allocate GPU memory for its buffers (CUDA out of memory)", "NCCL returned 1 (unhandled cuda error)", "p2p.cc:204")
	if f.Evidence[0].Line != 16 {
		t.Errorf("evidence is not the out-of-memory WARN: %+v", f.Evidence[0])
	}
	if !strings.Contains(f.Mechanism, "connections to the failed one closed") {
		t.Errorf("the peer's closed connection is not told under the failure: %s", f.Mechanism)
	}
}

// A failure the same process then reports as "commReclaim: cleanup comm …
// failed in destroy/abort" (real lines: PyTorch's symmetric memory test at
// exit, pytorch#155740; legacy CUDA registration, NVIDIA/nccl#1704) happened
// while the communicator was torn down, and says so.
func TestFailureAtDestroyIsNamed(t *testing.T) {
	for _, c := range []struct {
		file string
		sev  Severity
	}{
		{"nccl-2.27-pytorch-symm-mem-p2p-cuda-invalid-argument-commreclaim-glog-lines-pytorch155740.txt", Error},
		{"nccl-legacy-cuda-register-p2p-cuda-failure-1-mpirun-tag-timestamp-commreclaim-nccl1704.txt", Error},
	} {
		fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/"+c.file)
		f := nicMustFind(t, fs, "nccl.warn.error", c.sev, "p2p.cc", "while the communicator was destroyed or aborted")
		if !strings.Contains(f.Fix, "earlier failure") {
			t.Errorf("%s: fix %q", c.file, f.Fix)
		}
	}
}

// A teardown label is per process (synthetic): two processes fail in
// p2p.cc; only one of them then fails in commReclaim on the same thread, and
// another process's commReclaim after an unrelated WARN marks nothing. The
// finding says the failure came at teardown on 1 of the 2 processes, not
// for both.
func TestFailureAtDestroyIsPerProcess(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic: init failures in p2p.cc, one process's commReclaim later",
		"h1:100:101 [0] NCCL INFO NCCL version 2.27.5+cuda12.9",
		"h1:100:101 [0] transport/p2p.cc:1128 NCCL WARN Cuda failure 1 'invalid argument'",
		"h1:100:101 [0] NCCL INFO transport.cc:197 -> 1",
		"h1:100:101 [0] NCCL INFO init.cc:1410 -> 1",
		"h1:100:101 [0] NCCL INFO group.cc:73 -> 1 [Async thread]",
		"h1:200:201 [1] transport/p2p.cc:1128 NCCL WARN Cuda failure 1 'invalid argument'",
		"h1:200:201 [1] NCCL INFO transport.cc:197 -> 1",
		"h1:200:201 [1] NCCL INFO init.cc:1410 -> 1",
		"h1:200:201 [1] NCCL INFO group.cc:73 -> 1 [Async thread]",
		"h1:100:101 [0] init.cc:2143 NCCL WARN commReclaim: cleanup comm 0x9801e10 rank 0 failed in destroy/abort, error 1")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "p2p.cc")
	if !strings.Contains(f.Title, "on 1 of 2 processes") || !strings.Contains(f.Mechanism, "1 of the 2 failing processes") {
		t.Errorf("the teardown label covers both processes: %s\n%s", f.Title, f.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"# synthetic: a commReclaim after another WARN of its process",
		"h1:100:101 [0] transport/p2p.cc:1128 NCCL WARN Cuda failure 1 'invalid argument'",
		"h1:100:101 [0] NCCL INFO transport.cc:197 -> 1",
		"h1:100:101 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer",
		"h1:100:100 [0] init.cc:2143 NCCL WARN commReclaim: cleanup comm 0x9801e10 rank 0 failed in destroy/abort, error 1")
	f = nicMustFind(t, fs, "nccl.warn.error", Error, "p2p.cc")
	if strings.Contains(f.Title, "commReclaim") {
		t.Errorf("a commReclaim after another WARN labels the failure: %s", f.Title)
	}
	// The main thread reclaiming a communicator whose proxy thread failed
	// (synthetic, NCCL 2.27's lines): the failure was not at teardown.
	fs = synthFindings(t, Options{},
		"# synthetic: a proxy thread's socket error, then the main thread's commReclaim",
		"node1:1000:1000 [0] NCCL INFO NCCL version 2.27.7+cuda12.9",
		"node1:1000:1050 [0] transport/net_socket.cc:540 NCCL WARN NET/Socket : peer 10.0.0.2<40123> message truncated : receiving 524288 bytes instead of 65536.",
		"node1:1000:1050 [0] NCCL INFO transport/net.cc:1301 -> 3",
		"node1:1000:1050 [0] NCCL INFO proxy.cc:698 -> 3",
		"node1:1000:1000 [0] init.cc:2143 NCCL WARN commReclaim: cleanup comm 0x5570aa rank 0 failed in destroy/abort, error 3")
	for _, f := range fs {
		if strings.Contains(f.Title, "while the communicator was destroyed") {
			t.Errorf("another thread's commReclaim labels the failure: %s", f.Title)
		}
	}
}

// NVLS's CUDA calls failing with another error than 'invalid argument'
// (NVIDIA/nccl#1788: 401 'the operation cannot be performed in the present
// state'; #1029: 'initialization error'): the finding names the error the
// WARN printed. Before, it said the call fails with 'invalid argument'.
func TestNVLSFailureNamesItsCUDAError(t *testing.T) {
	for file, cudaErr := range map[string]string{
		"nccl-2.26.2-nvls-cuda-failure-401-present-state-timestamp-nccl1788.txt": "here with 401 'the operation cannot be performed in the present state'",
		"nccl-pdsh-prefix-nvls-initialization-error-two-pods-nccl1029.txt":       "here with 'initialization error'",
		"nccl-nvls-cuda-failure-invalid-argument-h100-chain-nccl1705.txt":        "the CUDA call fails (with 'invalid argument')",
	} {
		f := nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/"+file), "nccl.warn.error", Error, "NVLink SHARP (NVLS)")
		if !strings.Contains(f.Mechanism, cudaErr) || strings.Contains(f.Mechanism, "%!") {
			t.Errorf("%s: mechanism %s", file, f.Mechanism)
		}
	}
	// NCCL 2.27+'s own bind WARN as PyTorch prints it under "Last error:"
	// (the lines of pytorch/pytorch#177472, NCCL 2.29.3 on H100 CI).
	fs := synthFindings(t, Options{},
		"torch.distributed.DistBackendError: NCCL error in: /var/lib/jenkins/workspace/torch/csrc/distributed/c10d/NCCLUtils.cpp:93, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.29.3",
		"ncclUnhandledCudaError: Call to CUDA function failed.",
		"Last error:",
		"Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.",
		"This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.",
		"Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future.")
	f := nicMustFind(t, fs, "nccl.warn.error", Error, "NVLink SHARP (NVLS)")
	if want := "here with 401 'the operation cannot be performed in the present state';"; !strings.Contains(f.Mechanism, want) {
		t.Errorf("mechanism %s, want %q", f.Mechanism, want)
	}
}
