package doctor

import "testing"

// Artifacts of the twenty-sixth sweep: each test on a real excerpt fails
// on the code before its fix.

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

// A paste that is one device's LnkCap and LnkSta alone (janhq/jan#183: an
// RTX 4090 on a riser, 2.5GT/s of 16GT/s at x16) is that device's link,
// though the paste does not say what it is: an info that tells the GPU's
// idle speed from a NIC's fault. Before, the two lines gave no finding.
func TestLspciGrepOneLink(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-lnk-rtx4090-riser-2.5gts-of-16gts-jan183.txt")
	f := nicMustFind(t, fs, "host.pcie.degraded", Info, "a PCIe link the paste does not name trained at 2.5GT/s x16 of its 16GT/s x16: 32.0 Gb/s of 252.1 Gb/s; a GPU lowers its speed when idle")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 2 || f.Evidence[1].Line != 3 {
		t.Errorf("evidence %v", f.Evidence)
	}
	if len(fs) != 1 {
		t.Errorf("%s", nicTitles(fs))
	}
	// A grep over every device (bridges among them) is not one device.
	fs = synthFindings(t, Options{},
		"# synthetic: two devices' grepped links",
		"\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us",
		"\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)",
		"\tLnkCap:\tPort #8, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us",
		"\tLnkSta:\tSpeed 16GT/s, Width x4 (downgraded)")
	nicMustNot(t, fs, "host.pcie.degraded")
}

// vLLM on Ray with NCCL_IB_HCA=rxe0 (NVIDIA/nccl#1297, NCCL 2.20.5): NCCL's
// IB transport runs on Soft-RoCE, the CPU's RoCE without GPUDirect RDMA,
// which the doctor named only as "RDMA devices found: NET/IB over RoCE".
func TestSoftRoCEInUse(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.20.5-vllm-ray-ib-hca-rxe0-softroce-nccl1297.txt")
	f := nicMustFind(t, fs, "nccl.transport.softroce", Warn, "NCCL's IB transport runs on Soft-RoCE (master rxe0:1)")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 16 {
		t.Errorf("evidence %v", f.Evidence)
	}
	// A hardware RoCE device is not Soft-RoCE.
	fs = synthFindings(t, Options{},
		"# synthetic",
		"h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>")
	nicMustNot(t, fs, "nccl.transport.softroce")
}

// A row with two cells that do not read is one line of the input: cited
// once and counted once, each cell's column in the title. SYNTHETIC rows
// in nvidia-smi topo -m's layout.
func TestGarbledRowCitedOnce(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# synthetic",
		"\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tNIC2\tNIC3\tCPU Affinity\tNUMA Affinity",
		"GPU0\t X \tNV12\tNV12\tNV12\tPXB\tFOO\tSYS\tBAR\t0-31\t0",
		"GPU1\tNV12\t X \tNV12\tNV12\tPXB\tPXB\tSYS\tSYS\t0-31\t0")
	f := nicMustFind(t, fs, "input.garbled", Warn, "1 line of nvidia-smi topo -m could not be read", ":3:", "\"FOO", "\"BAR")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 {
		t.Errorf("evidence %v", f.Evidence)
	}
}
