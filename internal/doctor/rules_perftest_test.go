package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// An ibv_devinfo -v paste cut before its hca_id named the port " port 1".
func TestDevinfoUnnamedDevice(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ibv-devinfo-v-bond-active-mtu-1024-cut-ucx10430.txt")
	nicMustFind(t, fs, "devinfo.mtu.small", Warn, "(device not named) port 1: RoCE active_mtu 1024 (max_mtu 4096)")
}

// A perftest result row whose cell is no non-negative number is reported
// with its file, line and column instead of being passed over (synthetic
// figures; perftest 5.60 printed negative BW averages in
// linux-rdma/perftest#82).
func TestPerftestGarbledRowReported(t *testing.T) {
	const text = ` #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      5000           0.00               -12.34               0.023
`
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	f := nicMustFind(t, fs, "input.garbled", Warn, `<stdin>:2:47: expected a non-negative number in a perftest result row, got "-12.34`)
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// The same figures emphasised in Markdown are read, and judged.
func TestPerftestMarkdownBoldJudged(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/perftest/ib-send-bw-markdown-bold-bw-average-arm-perftest65.txt")}, nil, Options{}).Findings
	nicMustFind(t, fs, "perftest.bw.unjudged", Info, "best 46.5 Gb/s")
	for _, f := range fs {
		if f.ID == "input.garbled" {
			t.Errorf("garbled: %s", f.Title)
		}
	}
}

// A perftest run that ends before its table, with no error, is said to be
// unjudged rather than passed over (openucx/ucx#9590: the server side of
// ib_send_lat over DC, cut after the addresses).
func TestPerftestNoRowsSaid(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/perftest/ib-send-lat-dc-two-qps-server-cut-before-table-ucx9590.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "perftest.rows.none", Info, "ib_send_lat on mlx5_0: no result row", "its latency is not judged")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 9 || f.Evidence[2].Line != 24 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	// A run with rows, or one that failed, is judged by its own rules.
	for _, rel := range []string{"corpus/perftest/perftest-write-bw-ib-a-gbits-perftest132.txt", "corpus/perftest/perftest-completion-error-status12-syndrom-softiwarp27.txt"} {
		for _, f := range Diagnose([]string{nicTestdata(rel)}, nil, Options{}).Findings {
			if f.ID == "perftest.rows.none" {
				t.Errorf("%s: %s", rel, f.Title)
			}
		}
	}
}

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

// An E810's two ports looped on one host (Media Transport Library's RDMA
// guide): ibstat says irdma0 runs at 25 and irdma1 at "10 (FDR10)", a 10G
// Ethernet port named by the IB speed. ib_write_bw on irdma1 reached
// 9.3 Gb/s; the FDR10 rate went unread and irdma0's 25 judged it, an
// error of 37% where it is 93% of its own port.
func TestPerftestJudgedAgainstItsFDR10Port(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/ib-write-bw-irdma-e810-10g-fdr10-ibstat-two-ports-mtu1024-mtl.txt")
	nicMustFind(t, fs, "perftest.bw.ok", Info, "ib_write_bw on irdma1: best 9.3 Gb/s = 93% of the 10.0 Gb/s link rate")
	nicMustNot(t, fs, "perftest.bw.low")
}

// Two Pollara hosts' ib_write_bw -b -q 4 -a, the server and the client
// on different perftest builds (their banners differ: "Using DDP" and
// "CPU freq" against "Using Enhanced Reorder"), pasted one after the
// other: both runs are read, each with its host from the prompt, and at
// 400G each way they are near line rate.
func TestPollaraPerftestTwoBuilds(t *testing.T) {
	fs := diagnoseFiles(t, Options{NICSpeed: 400 * unit.Gbps}, "corpus/perftest/ib-write-bw-bidir-ionic-pollara-4qp-all-sizes-779gbps-two-perftest-versions-alibaba.txt")
	nicMustFind(t, fs, "perftest.bw.ok", Info, "Aliyun1: ib_write_bw on ionic_7: best 779.2 Gb/s (bidirectional: 389.6 Gb/s each way) = 97%")
	nicMustFind(t, fs, "perftest.bw.ok", Info, "Aliyun3: ib_write_bw on ionic_1: best 779.2 Gb/s")
	nicMustNot(t, fs, "perftest.mtu.small")
	// The same pair from an MI355X's memory (--use_rocm): the ROCm
	// banner lines before the test's are no failure, and 87% each way is
	// not low.
	fs = diagnoseFiles(t, Options{NICSpeed: 400 * unit.Gbps}, "corpus/perftest/ib-write-bw-bidir-ionic-pollara-use-rocm-mi355x-4qp-698gbps-alibaba.txt")
	nicMustFind(t, fs, "perftest.bw.ok", Info, "Aliyun3: ib_write_bw on ionic_1: best 698.0 Gb/s (bidirectional: 349.0 Gb/s each way) = 87%")
	for _, f := range fs {
		if f.Severity != Info {
			t.Errorf("%s %s: %s", f.Severity, f.ID, f.Title)
		}
	}
}

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

// A check that needs a missing field infers it or says why it
// could not run. Real text: ibv_devinfo of an rxe device printed by an
// rdma-core without link_layer (SoftRoCE/rxe-dev#46). SYNTHETIC: an
// ecnconfig profile without its mode row, and a port that nothing tells.
func TestMissingFieldsInferred(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ibv-devinfo-rxe-no-link-layer-mtu1024-rxedev46.txt")
	f := nicMustFind(t, fs, "devinfo.mtu.small", Warn, "rxe0 port 1", "active_mtu 1024")
	if !strings.Contains(f.Title, "inferred: rxe is Soft-RoCE") || len(f.Evidence) != 2 {
		t.Errorf("the finding does not say how RoCE was inferred: %s %+v", f.Title, f.Evidence)
	}
	fs = synthFindings(t, Options{},
		"Profile: AZURE_LOSSLESS",
		"-----------------------  -------",
		"green_min_threshold      15000",
		"green_max_threshold      30000",
		"green_drop_probability   5",
		"-----------------------  -------")
	f = nicMustFind(t, fs, "switch.ecn.thresholds", Warn, "AZURE_LOSSLESS", "below one BDP", "assumed")
	if !strings.Contains(f.Mechanism, "no `ecn` mode row") {
		t.Errorf("mechanism does not say the mode row is missing: %s", f.Mechanism)
	}
	fs = synthFindings(t, Options{},
		"hca_id:	mlx5_0",
		"	port:	1",
		"		state:			PORT_ACTIVE (4)",
		"		active_mtu:		1024 (3)")
	nicMustFind(t, fs, "devinfo.mtu.unjudged", Info, "mlx5_0 port 1", "no link_layer")
}

// mlxconfig's set confirmation is firmware settings only: no perftest run
// is made of its "Device:" line.
func TestMlxconfigSetOnly(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/mlxconfig/mlxconfig-set-next-boot-new-confirm-cx6-maas2.txt")}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "mlxconfig" || len(rep.Inputs[0].Contains) != 0 {
		t.Errorf("inputs %+v, want mlxconfig alone", rep.Inputs)
	}
}

// perftest's --out_json report is judged as its table is. Real:
// linux-rdma/perftest#216's latency report on rxe0 at MTU 1024. Synthetic:
// a bidirectional report in Gb/sec, judged per direction.
func TestPerftestJSONJudged(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/perftest-json-write-lat-rxe0-unquoted-keys-percentiles-perftest216.txt")
	f := nicMustFind(t, fs, "perftest.mtu.small", Warn, "ib_write_lat on rxe0: RoCE MTU 1024")
	if !cites(f, "perftest216.txt", 15) {
		t.Errorf("evidence %v", f.Evidence)
	}
	bidir := "# synthetic\n{\n\"test_info\": {\n\"test\": \"RDMA_Write_Bidirectional_BW_Test\",\n\"Device\": \"mlx5_0\",\n\"Mtu\": 4096,\n\"Link_type\": \"Ethernet\"\n},\n" +
		"\"results\": {\n\"MsgSize\": 65536,\n\"n_iterations\": 5000,\n\"BW_peak\": 0.00,\n\"BW_average\": 196.13,\n\"MsgRate\": 0.374088\n}\n}\n"
	fs = Diagnose([]string{"-"}, strings.NewReader(bidir), Options{NICSpeed: 200 * unit.Gbps}).Findings
	nicMustFind(t, fs, "perftest.bw.low", Error, "ib_write_bw on mlx5_0: best 196.1 Gb/s at 64KiB messages (bidirectional: 98.1 Gb/s each way) = 49% of the 200.0 Gb/s link rate")
}

// iWARP is no RoCE. Real: perftest#121's server on a Chelsio cxgb4_0
// (Transport type IW, Link type Ethernet, Mtu 1024): iWARP runs over TCP,
// so the MTU perftest prints says nothing of RoCE's path MTU.
func TestPerftestIWARPNoRoCEMTU(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/perftest-write-bw-iwarp-cxgb4-rdma-cm-server-mtu1024-cut-perftest121.txt")
	nicMustNot(t, fs, "perftest.mtu.small")
	nicMustFind(t, fs, "perftest.rows.none", Info, "ib_write_bw on cxgb4_0: no result row")
}

// perftest's failures by kind. Real: Soft-iWARP's memory registration
// failing (zrlio/softiwarp#23): the MR cause, and no GID index judged for
// an iWARP device; EFA's QP creation failing on both ends
// (linux-rdma/perftest#105): no banner, so its -x 0 is no RoCE GID use.
// perftest's CUDA setup lines before a memory registration failure
// (linux-rdma/perftest#346) make it the GPU buffer's.
// Synthetic: the lines perftest's source prints for an address handle, GID
// types of different versions and rdma_cm.
func TestPerftestFailureKinds(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/perftest-send-bw-siw-iwarp-couldnt-allocate-mr-segfault-softiwarp23.txt")
	f := nicMustFind(t, fs, "perftest.connect.failed", Error, "ib_send_bw on siw_ens33: memory registration failed (Couldn't allocate MR)")
	if !strings.Contains(f.Fix, "ulimit -l") || !cites(f, "softiwarp23.txt", 19) {
		t.Errorf("fix %s evidence %v", f.Fix, f.Evidence)
	}
	nicMustNot(t, fs, "perftest.rows.none")
	nicMustNot(t, fs, "gid.index.default_zero")
	fs = diagnoseFiles(t, Options{}, "corpus/perftest/perftest-send-lat-ud-efa-unable-to-create-qp-both-ends-perftest105.txt")
	nicMustFind(t, fs, "perftest.connect.failed", Error, "ib_send_lat: RDMA device or resources unavailable")
	nicMustNot(t, fs, "gid.index.default_zero")
	// perftest#346: the buffer perftest could not register is GPU memory
	// (--use_cuda without nvidia-peermem or --use_cuda_dmabuf): errno 14.
	fs = diagnoseFiles(t, Options{}, "corpus/perftest/perftest-cuda-mr-error14-no-dmabuf-couldnt-create-resources-perftest346.txt")
	f = nicMustFind(t, fs, "perftest.connect.failed", Error, "perftest: registering the GPU buffer failed (Couldn't allocate MR, errno 14)")
	if !strings.Contains(f.Fix, "--use_cuda_dmabuf") || !strings.Contains(f.Fix, "nvidia-peermem") || !cites(f, "perftest346.txt", 6) {
		t.Errorf("fix %s evidence %v", f.Fix, f.Evidence)
	}
	// Synthetic from perftest's source (cuda_memory.c, perftest_resources.c):
	// --cuda_mem_type malloc's buffer is host memory, so errno 12 is the
	// locked-memory limit, not GPUDirect RDMA.
	fs = synthFindings(t, Options{}, "# synthetic", "[root@gpu01 ~]# ib_write_bw -d mlx5_0 --use_cuda=0 --cuda_mem_type=4 gpu02",
		"allocated GPU buffer of a 131072 address at 0x7f3a2c000000 for type CUDA_MEM_MALLOC", "Couldn't allocate MR with error=12")
	f = nicMustFind(t, fs, "perftest.connect.failed", Error, "memory registration failed (Couldn't allocate MR, errno 12): the locked-memory limit")
	if !strings.Contains(f.Fix, "ulimit -l") || strings.Contains(f.Fix, "nvidia-peermem") {
		t.Errorf("fix %s", f.Fix)
	}
	for _, c := range []struct{ line, title string }{
		{"Failed to create AH", "address handle could not be created for the peer"},
		{"Unable to create AH from WC", "address handle could not be created"},
		{" Found Incompatibility issue with GID types.", "the two ends' GIDs are of different types (RoCE v1 and v2)"},
		{" rdma_resolve_addr failed", "rdma_cm could not resolve or bind the address"},
		{" Unable to perform rdma_client function", "rdma_cm could not resolve or bind"},
		{" Unable to init the socket connection", "out-of-band exchange failed"},
		// Synthetic from perftest's source (00b55b6): perftest_resources.c's
		// getaddrinfo failure, perftest_communication.c's lines.
		{"Name or service not known for ai_family: 0 service: gpu02 port: 18515", "out-of-band exchange failed"},
		{"Problem in resolving basic address and port", "out-of-band exchange failed"},
		{"Failed to resolve RDMA CM route.", "rdma_cm could not resolve or bind"},
		{"Failed to resolve RDMA CM address for cm node 0.", "rdma_cm could not resolve or bind"},
		{"Failed to get RDMA CM address - Error: Name or service not known.", "rdma_cm could not resolve or bind"},
		{"Failed to get RDMA CM address info - Error: Name or service not known", "rdma_cm could not resolve or bind"},
	} {
		fs := synthFindings(t, Options{}, "# synthetic", "[root@gpu01 ~]# ib_send_bw -d mlx5_0 -x 3 -c UD gpu02", c.line)
		nicMustFind(t, fs, "perftest.connect.failed", Error, "gpu01: ib_send_bw on mlx5_0: "+c.title)
	}
}

// A completion error is told by its status's class: status 4
// (linux-rdma/perftest#173) is this end's NIC failing on its own buffer,
// with GPU buffers its path to the GPU, not the fabric; a server whose exchange fails after the
// addresses (nminoru/pib#3) lost its peer, not TCP reachability.
func TestPerftestFailureByStatus(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/perftest-write-bw-bidir-use-cuda-completion-status4-syndrom-0x51-perftest173.txt")
	f := nicMustFind(t, fs, "perftest.connect.failed", Error, "completion with error (status 4, IBV_WC_LOC_PROT_ERR, vendor syndrome 0x51)")
	// Its pasted lines do not show the GPU buffers, so the GPU path is told
	// second.
	if !strings.Contains(f.Mechanism, "failed. Statuses 1, 2, 4 and 8") || !strings.Contains(f.Fix, "With GPU buffers: Rerun without --use_cuda/--use_rocm") ||
		strings.Contains(f.Fix, "PFC") || !cites(f, "perftest173.txt", 5) {
		t.Errorf("mechanism %s fix %s evidence %v", f.Mechanism, f.Fix, f.Evidence)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/perftest/perftest-read-bw-pib-server-exchange-fails-after-addresses-pib3.txt")
	f = nicMustFind(t, fs, "perftest.connect.failed", Error, "ib_read_bw on pib_0: the other end quit before the end-of-test handshake")
	if strings.Contains(f.Mechanism, "TCP reachability") || !cites(f, "pib3.txt", 25) {
		t.Errorf("mechanism %s evidence %v", f.Mechanism, f.Evidence)
	}
	// A post that ibv_post_send refused (err=12: the send queue full) is
	// not a completion error, and the abort line after it is not one
	// either. Synthetic, perftest_resources.c's lines (perftest 00b55b6).
	post := []string{"# synthetic", "[root@gpu01 ~]# ib_write_bw -d mlx5_0 -x 3 -t 65536 gpu02",
		" local address: LID 0000 QPN 0x0107 PSN 0x6a1c2e RKey 0x1fff00 VAddr 0x007f3a2c000000",
		" remote address: LID 0000 QPN 0x0108 PSN 0x2b9d01 RKey 0x1fff01 VAddr 0x007f88a0000000"}
	f = nicMustFind(t, synthFindings(t, Options{}, append(post, "Couldn't post send: qp 0 scnt=1023 || err=12 tx_depth=65536",
		" Failed to complete run_iter_bw function successfully")...), "perftest.connect.failed", Error, "posting a send failed (Couldn't post send, err=12)")
	if strings.Contains(f.Fix, "PFC") || !strings.Contains(f.Fix, "max_qp_wr") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustFind(t, synthFindings(t, Options{}, append(post, " Failed to complete run_iter_bw function successfully")...),
		"perftest.connect.failed", Error, "the test loop aborted with no completion error printed")
	// An exchange that fails after the TCP connection was made is not TCP
	// reachability: after the addresses with no table, the handshake after
	// RTR (the peer quit on its own failure); after the local address
	// only, or "Failed to exchange data" (the version or MTU exchange).
	// Synthetic, perftest's lines (perftest 00b55b6).
	for _, c := range []struct {
		lines []string
		title string
	}{
		{[]string{post[2], post[3], " Failed to exchange data between server and clients"}, "the other end quit after the addresses were exchanged"},
		{[]string{post[2], "Couldn't read remote address"}, "the exchange failed after the TCP connection was made"},
		{[]string{" Failed to exchange data between server and clients"}, "the exchange failed after the TCP connection was made"},
		{[]string{"Couldn't connect to gpu02:18515"}, "out-of-band exchange failed"},
	} {
		f := nicMustFind(t, synthFindings(t, Options{}, append(post[:2:2], c.lines...)...), "perftest.connect.failed", Error, c.title)
		if strings.Contains(f.Mechanism, "TCP reachability") != (c.title == "out-of-band exchange failed") {
			t.Errorf("%s: mechanism %s", c.title, f.Mechanism)
		}
	}
	// The class texts by status, test and buffers. Synthetic, perftest's
	// lines (perftest 00b55b6).
	for _, c := range []struct {
		cmd, status, lead, not string
	}{
		// perftest asks infinite RNR retries: 13 is -R with a lower --retry_count.
		{"ib_send_bw -d mlx5_0 -x 3 gpu02", "13", "", "raise -r"},
		// 10 is also a responder whose GPU buffer its NIC cannot reach.
		{"ib_write_bw -d mlx5_0 -x 3 gpu02", "10", "", ""},
		// 1 on an ib_send_* receiver: the two ends' -s differ.
		{"ib_send_bw -d mlx5_0 -x 3", "1", "Status 1 (IBV_WC_LOC_LEN_ERR) on an ib_send_* receiver", "PFC"},
		// The GPU path leads only for a run with GPU buffers.
		{"ib_write_bw -d mlx5_0 -x 3 --use_rocm=0 gpu02", "4", "With the buffers in GPU memory", "PFC"},
		{"ib_write_bw -d mlx5_0 -x 3 gpu02", "4", "Statuses 1, 2, 4 and 8", "PFC"},
	} {
		f := nicMustFind(t, synthFindings(t, Options{}, "# synthetic", "[root@gpu01 ~]# "+c.cmd,
			" Completion with error at client", " Failed status "+c.status+": wr_id 0 syndrom 0x88"),
			"perftest.connect.failed", Error, "(status "+c.status+",")
		body := strings.TrimPrefix(f.Mechanism, "The QPs connected (they reached RTS), so the addresses and GIDs were good; then a work request failed. ")
		if !strings.HasPrefix(body, c.lead) || c.not != "" && strings.Contains(f.Fix, c.not) {
			t.Errorf("status %s %s: mechanism %s fix %s", c.status, c.cmd, f.Mechanism, f.Fix)
		}
		switch c.status {
		case "13":
			if !strings.Contains(f.Fix, "--retry_count 7") {
				t.Errorf("fix %s", f.Fix)
			}
		case "10":
			if !strings.Contains(f.Mechanism, "GPU memory its NIC cannot reach") || !strings.Contains(f.Mechanism, "nccl#214") {
				t.Errorf("mechanism %s", f.Mechanism)
			}
		}
	}
	// Status 12 keeps its fabric story (zrlio/softiwarp#27).
	fs = diagnoseFiles(t, Options{}, "corpus/perftest/perftest-completion-error-status12-syndrom-softiwarp27.txt")
	f = nicMustFind(t, fs, "perftest.connect.failed", Error, "status 12, IBV_WC_RETRY_EXC_ERR, vendor syndrome 0x81")
	if !strings.Contains(f.Fix, "PFC") {
		t.Errorf("fix %s", f.Fix)
	}
}

// A perftest run that went to the end over a link-local GID shows the
// two hosts share one L2 segment: the link-local finding is a warning,
// with the last row as evidence; the same run cut before its table stays
// an error. perftest without -x picks the best-scored GID
// (perftest_communication.c get_best_gid_index), so index 0 here means
// the port had no routable address or the run passed -x 0. Synthetic, in
// the layout perftest 25.x prints (real instances seen in public docs: an
// MI355X/ionic_0 pair and an rxe pair in containers, both at fe80:: GIDs,
// whose repositories could not be pinned).
func TestPerftestLinkLocalMeasured(t *testing.T) {
	run := []string{"# synthetic",
		"[root@gpu01 ~]# ib_write_bw -d ionic_0 -a gpu02",
		"                    RDMA_Write BW Test",
		" Dual-port       : OFF          Device         : ionic_0",
		" Number of qps   : 1            Transport type : IB",
		" Mtu             : 4096[B]",
		" Link type       : Ethernet",
		" GID index       : 0",
		" local address: LID 0000 QPN 0x0002 PSN 0x398b12 RKey 0x000184 VAddr 0x007fe939e00000",
		" GID: 254:128:00:00:00:00:00:00:06:144:129:255:254:56:231:64",
		" remote address: LID 0000 QPN 0x0002 PSN 0x9c4c2e RKey 0x000182 VAddr 0x007f042ac00000",
		" GID: 254:128:00:00:00:00:00:00:06:144:129:255:254:54:91:176",
	}
	rows := []string{
		" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]",
		" 65536      5000             18683.01            18682.46                    0.298919",
		" 8388608    5000             19044.44            19044.43                    0.002381",
	}
	fs := synthFindings(t, Options{}, append(run, rows...)...)
	f := nicMustFind(t, fs, "gid.index.link_local", Warn, "gpu01 ionic_0: GID index 0 is the link-local GID")
	if !cites(f, "<stdin>", 15) || !strings.Contains(f.Mechanism, "ran to the end over it to a link-local peer (2 result rows") {
		t.Errorf("evidence %v mechanism %s", f.Evidence, f.Mechanism)
	}
	fs = synthFindings(t, Options{}, run...)
	nicMustFind(t, fs, "gid.index.link_local", Error, "gpu01 ionic_0: GID index 0 is the link-local GID")
	one := append(append([]string{}, run...), rows[:2]...)
	f = nicMustFind(t, synthFindings(t, Options{}, one...), "gid.index.link_local", Warn, "gpu01 ionic_0")
	if !strings.Contains(f.Mechanism, "(1 result row,") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	// Evidence of failure elsewhere keeps the error: NCCL's queue pairs
	// on the same host failed over fe80 GIDs (synthetic, NCCL 2.2x's WARN),
	// or another run of the same host and device failed over its
	// link-local GID toward a third peer.
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	perf := write("perftest.txt", append(run, rows...)...)
	nccl := write("nccl.log", "# synthetic",
		"gpu01:24302:24310 [0] NCCL INFO NCCL version 2.23.4+cuda12.6",
		"gpu01:24302:24310 [0] transport/net_ib.cc:2472 NCCL WARN NET/IB: Got completion from peer 10.0.0.3<40000> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fe80::690:81ff:fe38:e740 remoteGid fe80::690:81ff:fe3a:1111 hca ionic_0")
	nicMustFind(t, diagnose(t, Options{}, perf, nccl).Findings, "gid.index.link_local", Error, "gpu01 ionic_0")
	third := append(append([]string{}, run[1:len(run)-2]...),
		" remote address: LID 0000 QPN 0x0007 PSN 0x11aa2e RKey 0x000182 VAddr 0x007f042ac00000",
		" GID: 254:128:00:00:00:00:00:00:06:144:129:255:254:58:17:17",
		" Completion with error at client", " Failed status 12: wr_id 0 syndrom 0x81")
	third[0] = "[root@gpu01 ~]# ib_write_bw -d ionic_0 -a gpu03"
	failed := write("perftest-2.txt", third...)
	nicMustFind(t, diagnose(t, Options{}, perf, failed).Findings, "gid.index.link_local", Error, "gpu01 ionic_0")
	// A loopback run (remote GID = local GID) or a remote that is not
	// link-local shows no shared segment.
	loop := append(append([]string{}, run[:len(run)-1]...), run[len(run)-3], rows[0], rows[1])
	nicMustFind(t, synthFindings(t, Options{}, loop...), "gid.index.link_local", Error, "gpu01 ionic_0")
	routed := append(append([]string{}, run[:len(run)-1]...), " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:00:00:02", rows[0], rows[1])
	nicMustFind(t, synthFindings(t, Options{}, routed...), "gid.index.link_local", Error, "gpu01 ionic_0")
	// A run of no named host is no host to vouch for.
	anon := append([]string{"# synthetic"}, run[2:]...)
	nicMustFind(t, synthFindings(t, Options{}, append(anon, rows...)...), "gid.index.link_local", Error, "ionic_0")
	// A run that names no host vouches only for its own port: one over
	// another port's link-local GID (another MAC) leaves gpu01's error.
	other := append([]string{"# synthetic"}, run[2:]...)
	other[8] = " GID: 254:128:00:00:00:00:00:00:06:144:129:255:254:77:77:77"
	other[10] = " GID: 254:128:00:00:00:00:00:00:06:144:129:255:254:88:88:88"
	unrelated := write("perftest-other.txt", append(other, rows...)...)
	nicMustFind(t, diagnose(t, Options{}, write("perftest-noconn.txt", run...), unrelated).Findings, "gid.index.link_local", Error, "gpu01 ionic_0")
	// The same port's run, its prompt cut off, still vouches for it.
	same := append([]string{"# synthetic"}, run[2:]...)
	same[7] = " local address: LID 0000 QPN 0x0009 PSN 0x11bb12 RKey 0x000184 VAddr 0x007fe939e00000"
	same = append(same, rows...)
	nicMustFind(t, diagnose(t, Options{}, write("perftest-noconn.txt", run...), write("perftest-same.txt", same...)).Findings, "gid.index.link_local", Warn, "gpu01 ionic_0")
}

// --use_rocm's buffer lines mark a run's buffers as GPU memory, so low
// bandwidth is told with the GPU-NIC PCIe path first, and a ROCm device
// that will not initialise is a setup failure. Synthetic: the lines
// perftest's rocm_memory.c prints (perftest 00b55b6) around a row at 40%
// of 400G, as a public MI355X/ionic_0 run showed (its repository could
// not be pinned).
func TestPerftestROCmBuffer(t *testing.T) {
	fs := synthFindings(t, Options{NICSpeed: 400 * unit.Gbps}, "# synthetic",
		"[root@gpu01 ~]# ib_write_bw -d ionic_0 --use_rocm=0 -x 1 -s 8388608 gpu02",
		"Using ROCm Device with ID: 0, Name: AMD Instinct MI355X, PCI Bus ID: 0x5, GCN Arch: gfx950:sramecc+:xnack-",
		"allocated 16777216 bytes of GPU buffer at 0x7fe939600000",
		"                    RDMA_Write BW Test",
		" Dual-port       : OFF          Device         : ionic_0",
		" Mtu             : 4096[B]",
		" Link type       : Ethernet",
		" GID index       : 1",
		" Use ROCm memory : ON",
		" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]",
		" 8388608    5000             19044.44            19044.43                    0.002381",
		"deallocating GPU buffer 0x7fe939600000")
	f := nicMustFind(t, fs, "perftest.bw.low", Error, "ib_write_bw on ionic_0: best 159.8 Gb/s", "40% of the 400.0 Gb/s link rate")
	if !strings.Contains(f.Mechanism, "GPU memory") || !strings.HasPrefix(f.Fix, "Rerun the same test without --use_cuda/--use_rocm") || !cites(f, "<stdin>", 4) {
		t.Errorf("mechanism %s fix %s evidence %v", f.Mechanism, f.Fix, f.Evidence)
	}
	fs = synthFindings(t, Options{}, "# synthetic", "[root@gpu01 ~]# ib_write_bw -d ionic_0 --use_rocm=9 gpu02",
		"Requested ROCm device 9 but found only 8 device(s)", "Couldn't initialize ROCm device")
	f = nicMustFind(t, fs, "perftest.connect.failed", Error, "gpu01: ib_write_bw on ionic_0: the GPU for its buffers could not be set up")
	if !strings.Contains(f.Fix, "rocm-smi") || !cites(f, "<stdin>", 4) {
		t.Errorf("fix %s evidence %v", f.Fix, f.Evidence)
	}
	// rocm_memory.c's failed hipGetDeviceCount; musa_memory.c and
	// opencl_memory.c print cuda_memory.c's "Couldn't init GPU context".
	for _, c := range []struct{ flag, line string }{
		{"--use_rocm=0", "hipDeviceGetCount() returned 100"},
		{"--use_musa=0", "Couldn't init GPU context: 3"},
	} {
		fs = synthFindings(t, Options{}, "# synthetic", "[root@gpu01 ~]# ib_write_bw -d mlx5_0 "+c.flag+" gpu02", c.line)
		f = nicMustFind(t, fs, "perftest.connect.failed", Error, "the GPU for its buffers could not be set up (--use_cuda, --use_rocm, --use_musa, --use_opencl)")
		if !cites(f, "<stdin>", 3) {
			t.Errorf("%s: evidence %v", c.line, f.Evidence)
		}
	}
}

// A run cut after its table's header (bytedance/byteps#371: the server
// side of ib_send_bw with two QPs, the paste ends at the header) is told
// apart from one cut before it: the ends had connected and the first size
// was being measured.
func TestPerftestNoRowsAfterTableHeader(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/ib-send-bw-ib-two-qps-x3-fe80-gid-server-cut-after-table-header-byteps371.txt")
	f := nicMustFind(t, fs, "perftest.rows.none", Info, "ib_send_bw on mlx5_1: no result row: the output ends after the table's header, before its first row")
	if last := f.Evidence[len(f.Evidence)-1]; last.Line != 29 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	if !strings.Contains(f.Mechanism, "hung in its first message size") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

// An rdma_cm server whose output ends after its banner (spdk/spdk#1596:
// ib_write_bw --rdma_cm --run_infinitely, the stored excerpt ends before the
// address lines) is not told as waiting for its client: perftest prints
// "Waiting for client rdma_cm QP to connect" in its banner after rdma_cm has
// connected the client (write_bw.c, every release since 4.1), so the fix
// is not about the address the client names.
func TestPerftestNoRowsRDMACMBanner(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/ib-write-bw-bidir-rdma-cm-run-infinitely-mlx4-roce-mtu2048-server-banner-cut-spdk1596.txt")
	f := nicMustFind(t, fs, "perftest.rows.none", Info, "s1-76241: ib_write_bw on mlx4_0: no result row: the output ends after the rdma_cm server's banner, before the queue pairs' addresses")
	if !evidenceHas(f, "Waiting for client rdma_cm QP to connect") || !strings.Contains(f.Mechanism, "the client did reach this server") || strings.Contains(f.Fix, "interface IP") {
		t.Errorf("evidence %+v mechanism %q fix %q", f.Evidence, f.Mechanism, f.Fix)
	}
}

// GID index 0 all zeros on both ends (Mellanox/k8s-rdma-shared-dev-plugin#72,
// pods without the RDMA NIC's secondary network): row 0 is the link-local
// GID of any netdev in the namespace, so the fix names the missing netdev
// or address before any -x choice.
func TestPerftestZeroGIDIndexZeroEmptyTable(t *testing.T) {
	n := 0
	for _, f := range diagnoseFiles(t, Options{}, "corpus/perftest/perftest-write-bw-roce-gid0-all-zero-gids-rtr-fail-pod-k8sshareddev72.txt") {
		if f.ID != "gid.index.zero" {
			continue
		}
		n++
		if !strings.Contains(f.Fix, "whole GID table is empty") || !strings.Contains(f.Fix, "secondary network") {
			t.Errorf("%s: fix %q does not name the empty table", f.Title, f.Fix)
		}
	}
	if n != 2 {
		t.Errorf("%d gid.index.zero findings, want 2 (both ends)", n)
	}
}
