package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ATS against ACS. Real: the ATSCtl lines of a ConnectX-7 passed through
// to an H200 VM (NVIDIA/nccl-tests#256), no ACSCtl line beside them: info.
// Synthetic: the same switch as TestLspciSwitchSynthetic with the NIC's
// ATS on; its redirecting ports without DirectTrans warn with the setpci
// value that adds bit 6 to their ACSCtl (0x1d → 0x5d) beside host.pcie.acs;
// with DirectTrans+ on them it is the VM setup NCCL advises: info, and
// host.pcie.acs leaves it to this rule.
func TestATSWithACS(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-ats-enabled-cx7-h200-vm-nccltests256.txt")
	nicMustFind(t, fs, "host.pcie.ats", Info, "ATS enabled on 7 devices; the input has no ACSCtl line")

	fs = diagnoseFiles(t, Options{}, "synthetic/lspci-vvv-switch-acs-ats-on-directtrans-off-numa-synthetic.txt")
	f := nicMustFind(t, fs, "host.pcie.ats", Warn, "ATS enabled on 1 RDMA NIC (0000:17:00.0), but 2 bridges redirect peer-to-peer traffic without Direct Translated P2P (DirectTrans-) (0000:16:01.0, 0000:16:02.0)")
	if !strings.Contains(f.Fix, "setpci -s 0000:16:01.0 1f6.w=005d; setpci -s 0000:16:02.0 1f6.w=005d") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustFind(t, fs, "host.pcie.acs", Warn, "on 2 ports of PCIe switches")

	fs = diagnoseFiles(t, Options{}, "synthetic/lspci-vvv-switch-acs-directtrans-ats-on-synthetic.txt")
	nicMustFind(t, fs, "host.pcie.ats", Info, "let translated requests go direct (DirectTrans+) (0000:16:01.0, 0000:16:02.0)")
	nicMustNot(t, fs, "host.pcie.acs")
	nicMustNot(t, fs, "host.numa.nic_far")
}

// atsLspci is a synthetic lspci -vvv in pciutils' shape: a CPU root port,
// a switch's downstream port above a ConnectX-7 and an NVMe drive, with
// the given ACSCap/ACSCtl of the ports and ATSCtl of the NIC and drive.
func atsLspci(rootCap, rootCtl, swCap, swCtl, nicATS, nvmeATS string) []string {
	return []string{"# synthetic: lspci -vvv of a root port, a switch port, a NIC and a drive",
		"0000:14:01.0 PCI bridge: Intel Corporation Device 352a (rev 04) (prog-if 00 [Normal decode])",
		"\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00",
		"\tCapabilities: [220 v1] Access Control Services",
		"\t\tACSCap:\t" + rootCap, "\t\tACSCtl:\t" + rootCtl, "",
		"0000:16:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])",
		"\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00",
		"\tCapabilities: [1f0 v1] Access Control Services",
		"\t\tACSCap:\t" + swCap, "\t\tACSCtl:\t" + swCtl, "",
		"0000:17:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]",
		"\tCapabilities: [60] Express (v2) Endpoint, MSI 00",
		"\tCapabilities: [480 v1] Address Translation Service (ATS)",
		"\t\tATSCtl:\t" + nicATS + ", Smallest Translation Unit: 00", "",
		"0000:18:00.0 Non-Volatile memory controller [0108]: Samsung Electronics Co Ltd NVMe SSD Controller PM174X [144d:a826]",
		"\tCapabilities: [70] Express (v2) Endpoint, MSI 00",
		"\tCapabilities: [178 v1] Address Translation Service (ATS)",
		"\t\tATSCtl:\t" + nvmeATS + ", Smallest Translation Unit: 00"}
}

// ATS is the RDMA NIC's (a drive's is none of GPUDirect RDMA's), judged
// against switch ports, not CPU root ports; bit 6 is proposed only where
// the port's ACSCap has DirectTrans (synthetic).
func TestATSNICAndSwitchPorts(t *testing.T) {
	const all, off = "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+", "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"
	const noDT, redir, direct = "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans-", "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-", "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+"
	// The drive's ATS, the NIC's off: no ATS finding, host.pcie.acs warns.
	fs := synthFindings(t, Options{}, atsLspci(all, off, all, redir, "Enable-", "Enable+")...)
	nicMustNot(t, fs, "host.pcie.ats")
	nicMustFind(t, fs, "host.pcie.acs", Warn, "on 1 port of PCIe switches")
	nicMustFind(t, synthFindings(t, Options{}, append([]string{"[root@vm1 ~]# lscpu", "Hypervisor vendor:   KVM", "[root@vm1 ~]# lspci -vvv"}, atsLspci(all, off, all, redir, "Enable-", "Enable+")[1:]...)...), "host.virt.vm", Info, "lspci shows ATS disabled on the RDMA NICs")
	// A root port redirecting without DirectTrans above a switch port
	// set right: the VM setup, the switch port not blamed.
	fs = synthFindings(t, Options{}, atsLspci(noDT, redir, all, direct, "Enable+", "Enable-")...)
	nicMustFind(t, fs, "host.pcie.ats", Info, "ATS enabled on 1 RDMA NIC (0000:17:00.0), and the 1 bridge that redirect")
	nicMustNot(t, fs, "host.pcie.acs")
	// A switch port whose ACSCap lacks DirectTrans gets no bit 6.
	fs = synthFindings(t, Options{}, atsLspci(noDT, off, noDT, redir, "Enable+", "Enable-")...)
	f := nicMustFind(t, fs, "host.pcie.ats", Warn, "but 1 bridge redirect")
	if strings.Contains(f.Fix, "setpci -s 0000:16:01.0") || !strings.Contains(f.Fix, "ACSCap of 1 bridge (0000:16:01.0) has no DirectTrans") {
		t.Errorf("fix %s", f.Fix)
	}
}

// GPUs on a NUMA node without an RDMA NIC. Synthetic: lspci's NUMA node
// lines put the ConnectX-7 on node 0 and the H100 on node 1. Real, two
// machines given together so that the one NIC-stating input is joined:
// hwloc's DGX-2H XML (8 V100s on each of nodes 0 and 1) with the mst
// status -v of NVIDIA/... sriov-network-device-plugin#601 (ConnectX-7s
// on nodes 1 to 3) leaves node 0's GPUs without a NIC; with
// sriov-network-operator#786's (NICs on nodes 0 and 1) every GPU has one.
// nvidia-smi topo -m's NUMA Affinity (sglang#13973's H20, its six GPUs
// shown on nodes 0 to 2) joins the same way, but its matrix puts a NIC
// beside every GPU: none is far.
func TestNUMANICFar(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "synthetic/lspci-vvv-switch-acs-ats-on-directtrans-off-numa-synthetic.txt")
	nicMustFind(t, fs, "host.numa.nic_far", Warn, "1 of 1 GPUs (GPU 0000:18:00.0) sit on NUMA node 1, which has no RDMA NIC: the NICs are NIC 0000:17:00.0 on node 0")
	// With numactl --hardware of a two-node host (open-mpi/hwloc#712's,
	// real), the only one given, the distance between the nodes is named.
	fs = diagnoseFiles(t, Options{}, "synthetic/lspci-vvv-switch-acs-ats-on-directtrans-off-numa-synthetic.txt", "corpus/numa/lscpu-grep-numa-numactl-hardware-kvm-2-nodes-hwloc712.txt")
	f := nicMustFind(t, fs, "host.numa.nic_far", Warn, "GPU 0000:18:00.0")
	if !strings.Contains(f.Mechanism, "numactl -H gives the distance from node 1 to node 0 20 against 10 within node 1") || !cites(f, "hwloc712.txt", 8) || !cites(f, "numa-synthetic.txt", 49) {
		t.Errorf("mechanism %s\nevidence %v", f.Mechanism, f.Evidence)
	}

	const dgx2, far, near = "corpus/hwloc/hwloc-xml-dgx2h-16-v100-two-packages.xml", "corpus/mst/mst-status-v-cx7-ib-4-numa-blank-lines-cut-sriovdp601.txt", "corpus/mst/mst-status-v-cx7-ib-numa-0-1-h100-sriovop786.txt"
	fs = diagnoseFiles(t, Options{}, dgx2, far)
	f = nicMustFind(t, fs, "host.numa.nic_far", Warn, "8 of 16 GPUs (GPU 0000:34:00.0, GPU 0000:36:00.0, GPU 0000:39:00.0, GPU 0000:3b:00.0 and 4 more) sit on NUMA node 0, which has no RDMA NIC: the NICs are mlx5_3 on node 1; mlx5_6, mlx5_5, mlx5_4 on node 2; mlx5_10, mlx5_9 on node 3")
	if !strings.Contains(f.Fix, "numa_node") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, dgx2, near), "host.numa.nic_far")

	// The H20's topo -m puts a NIC beside every GPU it shows (PIX): none
	// is far, whatever NICs another input lists.
	const h20 = "corpus/topo/nvidia-smi-topo-h20-gpu3-pix-nic4-numa-cut-sglang13973.txt"
	nicMustNot(t, diagnoseFiles(t, Options{}, h20, far), "host.numa.nic_far")
	nicMustNot(t, diagnoseFiles(t, Options{}, h20, near), "host.numa.nic_far")
}

// topoNUMA is a synthetic nvidia-smi topo -m of two GPUs on nodes 0 and
// 1 and two NICs, GPU1's row to them given, then lspci of one NIC on
// node 0 by the given command.
func topoNUMA(gpu1, lspci string) []string {
	return []string{"# synthetic: nvidia-smi topo -m and lspci of one host",
		"[root@gpu1 ~]# nvidia-smi topo -m",
		"\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID",
		"GPU0\t X \tSYS\tPIX\tSYS\t0-31\t0\t\tN/A",
		"GPU1\tSYS\t X \t" + gpu1 + "\t32-63\t1\t\tN/A",
		"", "NIC Legend:", "", "  NIC0: mlx5_0", "  NIC1: mlx5_1", "",
		"[root@gpu1 ~]# " + lspci,
		"0000:17:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]",
		"\tNUMA node: 0"}
}

// A partial NIC listing is not all the host's NICs: a GPU topo -m puts
// near a NIC is not far, and lspci -s of one NIC says nothing of the
// others; lspci of every device does (synthetic).
func TestNUMANICFarPartial(t *testing.T) {
	nicMustNot(t, synthFindings(t, Options{}, topoNUMA("SYS\tPIX", "lspci -vvv -s 17:00.0")...), "host.numa.nic_far")
	nicMustNot(t, synthFindings(t, Options{}, topoNUMA("SYS\tSYS", "lspci -vvv -s 17:00.0")...), "host.numa.nic_far")
}

// One cause, one finding: a GPU topo -m relates to NICs (SYS to both) is
// topo.gpu_nic.far's, however a whole-host NIC listing places the NICs;
// so are the GPUs another input of that host places (lspci's). Without
// NIC columns the matrix says nothing of the NICs, and the NUMA nodes
// judge (synthetic).
func TestNUMANICFarOnceWithTopo(t *testing.T) {
	fs := synthFindings(t, Options{}, topoNUMA("SYS\tSYS", "lspci -vvv")...)
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "1 of 2 GPUs have no NIC within one PCIe switch")
	nicMustNot(t, fs, "host.numa.nic_far")
	lspciNIC := []string{"[root@gpu1 ~]# lspci -vvv",
		"0000:17:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]",
		"\tNUMA node: 0"}
	noNICs := append([]string{"# synthetic: nvidia-smi topo -m without NICs, and lspci of one host",
		"[root@gpu1 ~]# nvidia-smi topo -m",
		"\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID",
		"GPU0\t X \tSYS\t0-31\t0\t\tN/A",
		"GPU1\tSYS\t X \t32-63\t1\t\tN/A", ""}, lspciNIC...)
	fs = synthFindings(t, Options{}, noNICs...)
	nicMustFind(t, fs, "host.numa.nic_far", Warn, "1 of 2 GPUs (GPU1) sit on NUMA node 1")
	nicMustNot(t, fs, "topo.gpu_nic.far")
	lspciGPU := append(lspciNIC,
		"0000:b8:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)",
		"\tNUMA node: 1")
	fs = synthFindings(t, Options{}, append(topoNUMA("SYS\tSYS", "hostname")[:11], lspciGPU...)...)
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "GPU1 SYS (mlx5_0)")
	nicMustNot(t, fs, "host.numa.nic_far")
	fs = synthFindings(t, Options{}, append([]string{"# synthetic"}, lspciGPU...)...)
	nicMustFind(t, fs, "host.numa.nic_far", Warn, "1 of 1 GPUs (GPU 0000:b8:00.0) sit on NUMA node 1")
	// A cut matrix covering GPU0 and GPU1 of four leaves lspci's GPU 2
	// and 3 (in bus order) to this rule.
	lspci4 := append(append([]string{}, lspciNIC...),
		"0000:1b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)", "\tNUMA node: 0",
		"0000:3b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)", "\tNUMA node: 0",
		"0000:b8:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)", "\tNUMA node: 1",
		"0000:d8:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)", "\tNUMA node: 1")
	fs = synthFindings(t, Options{}, append(topoNUMA("PIX\tSYS", "hostname")[:11], lspci4...)...)
	nicMustFind(t, fs, "host.numa.nic_far", Warn, "GPU 0000:b8:00.0", "GPU 0000:d8:00.0")
}

// Mixed GPU models. Real: nccl-tests on an A100 host (thanos) and on a
// DGX H100 pair, given together, are two jobs; ml-engineering's
// --query-gpu CSV (H100) with vLLM#12008's collect_env (H20) two inputs
// that name no host and no job: neither pair is compared. One model,
// nvidia-smi's table or a cut paste shortening its name or not, is no
// finding.
func TestMixedGPUs(t *testing.T) {
	// Two clusters' runs (thanos's A100s, a DGX H100 pair) and two
	// unrelated hosts' listings diagnosed together are no one job.
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-a100-1n-8g-232GBps-thanos.txt", "corpus/nccl-tests/allreduce-dgx-h100-2n-g2-148GBps.txt"), "host.gpu.mixed")
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nvsmi/nvidia-smi-query-gpu-name-busid-vbios-h100-cut-mlengineering.txt", "corpus/nvsmi/collect-env-gpu-models-h20x2-vllm12008.txt"), "host.gpu.mixed")
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/allreduce-dgx-h100-2n-g2-148GBps.txt"), "host.gpu.mixed")
	nicMustNot(t, synthFindings(t, Options{}, "# synthetic", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)", "name, pci.bus_id", "NVIDIA H100 80GB HB..., 00000000:04:00.0"), "host.gpu.mixed")
	// NVIDIA/nccl#398's preamble is cut inside its last rank's GPU name
	// ("Tes"): the same V100s. An A10 is no A100 (synthetic).
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-tests/preamble-v100-p3dn-2n-16rank-validation-0-rank-line-cut-in-gpu-name-nccl398.txt"), "host.gpu.mixed")
	nicMustFind(t, synthFindings(t, Options{}, "# synthetic", "GPU 0: NVIDIA A10 (UUID: GPU-1)", "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-2)"), "host.gpu.mixed", Warn, "NVIDIA A10 (1 GPU), NVIDIA A100-SXM4-80GB (1 GPU)")
	// nvidia-smi's table cuts "NVIDIA A100-SXM4-80GB" to "NVIDIA A100-SXM...":
	// the cut name goes on with any character (synthetic).
	nicMustNot(t, synthFindings(t, Options{}, "# synthetic", "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)", "name, pci.bus_id", "NVIDIA A100-SXM..., 00000000:07:00.0"), "host.gpu.mixed")
	// The same GPUs read twice count once: nvidia-smi nvlink -s (a GPU
	// listing and NVLink status at once), nccl-tests' rank lines with
	// nvidia-smi -L of the same host (synthetic).
	nicMustFind(t, synthFindings(t, Options{}, "# synthetic", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)", "\t Link 0: 26.562 GB/s", "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-2)", "\t Link 0: 25 GB/s"),
		"host.gpu.mixed", Warn, "NVIDIA H100 80GB HBM3 (1 GPU), NVIDIA A100-SXM4-80GB (1 GPU)")
	nicMustFind(t, synthFindings(t, Options{}, "# synthetic",
		"#  Rank  0 Group  0 Pid  11 on      node1 device  0 [0x1b] NVIDIA H100 80GB HBM3",
		"#  Rank  1 Group  0 Pid  12 on      node1 device  1 [0x2b] NVIDIA A100-SXM4-80GB",
		"[root@node1 ~]# nvidia-smi -L", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)", "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-2)"),
		"host.gpu.mixed", Warn, "in one host, node1: NVIDIA H100 80GB HBM3 (1 GPU on node1), NVIDIA A100-SXM4-80GB (1 GPU on node1)")
}

// Hosts are compared within one job: the hosts one NCCL log (or one
// nccl-tests run) names together, whatever files their GPU listings sit
// in; a listing of a host no job names is compared with nothing but
// itself, and one that names no host joins the only job. The finding
// names the inputs compared and cites each, and the job's line
// (synthetic).
func TestMixedGPUsOneJob(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(append([]string{"# synthetic"}, lines...), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ncclLog := write("nccl.log",
		"node1:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
		"node1:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
		"node2:200:200 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>")
	node1 := write("node1-gpus.txt", "[root@node1 ~]# nvidia-smi -L", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)", "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-2)")
	node2 := write("node2-gpus.txt", "[root@node2 ~]# nvidia-smi -L", "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-3)", "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-4)")
	other := write("other-gpus.txt", "[root@other9 ~]# nvidia-smi -L", "GPU 0: NVIDIA L40S (UUID: GPU-5)")
	fs := diagnose(t, Options{}, ncclLog, node1, node2, other).Findings
	f := nicMustFind(t, fs, "host.gpu.mixed", Warn, "GPUs of 2 models across 2 hosts of one job (the hosts the NCCL log ", "nccl.log names): NVIDIA H100 80GB HBM3 (2 GPUs on node1), NVIDIA A100-SXM4-80GB (2 GPUs on node2) (inputs compared: ")
	if strings.Contains(f.Title, "L40S") || strings.Contains(f.Title, "other-gpus") || !cites(f, "nccl.log", 2) || !cites(f, "node1-gpus.txt", 3) || !cites(f, "node2-gpus.txt", 3) {
		t.Errorf("title %s\nevidence %v", f.Title, f.Evidence)
	}
	if n := len(nicFind(fs, "host.gpu.mixed")); n != 1 {
		t.Errorf("%d host.gpu.mixed findings, want 1", n)
	}
	// Without the log, no job names the hosts together.
	nicMustNot(t, diagnose(t, Options{}, node1, node2, other).Findings, "host.gpu.mixed")
	// Two runs of different inputs whose rank lines name node0 and node1
	// alike are two clusters' jobs: a rank line's GPU is its run's.
	runA := write("run-a.txt", "#  Rank  0 Group  0 Pid  11 on      node0 device  0 [0x1b] NVIDIA H100 80GB HBM3",
		"#  Rank  1 Group  0 Pid  12 on      node1 device  0 [0x1b] NVIDIA H100 80GB HBM3")
	runB := write("run-b.txt", "#  Rank  0 Group  0 Pid  11 on      node0 device  0 [0x1b] AMD Instinct MI300X",
		"#  Rank  1 Group  0 Pid  12 on      node1 device  0 [0x1b] AMD Instinct MI300X")
	nicMustNot(t, diagnose(t, Options{}, runA, runB).Findings, "host.gpu.mixed")
	// A listing that names no host joins the only job.
	bare := write("bare-gpus.txt", "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-6)")
	// It is told as the job's, not as node1's alone.
	nicMustFind(t, diagnose(t, Options{}, ncclLog, node1, bare).Findings, "host.gpu.mixed", Warn, "GPUs of 2 models in 2 inputs of one job", "NVIDIA A100-SXM4-80GB (1 GPU)", "bare-gpus.txt")
	// Two listings without a host are no job of a log naming one host.
	bareH := write("bare-h100.txt", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-7)")
	solo := write("solo.log", "node7:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4")
	nicMustNot(t, diagnose(t, Options{}, solo, bare, bareH).Findings, "host.gpu.mixed")
	// A listing without a host in the NCCL log's own input is that job's,
	// though another job is diagnosed with it.
	ownBare := write("own-bare.log", "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-9)",
		"gpu05:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4", "gpu06:200:200 [0] NCCL INFO NCCL version 2.21.5+cuda12.4")
	gpu05 := write("gpu05-gpus.txt", "[root@gpu05 ~]# nvidia-smi -L", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-8)")
	fs = diagnose(t, Options{}, ownBare, gpu05, solo).Findings
	nicMustFind(t, fs, "host.gpu.mixed", Warn, "GPUs of 2 models in 2 inputs of one job (the hosts the NCCL log ", "own-bare.log")
	// Per-host logs (NCCL_DEBUG_FILE) of one communicator share its commId.
	perHost := func(h string, rank int) string {
		return write(h+".log", fmt.Sprintf("%s:10%d:10%d [0] NCCL INFO ncclCommInitRank comm 0x55d0 rank %d nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x5c9a0e6b1f2d3c4e - Init COMPLETE", h, rank, rank, rank))
	}
	fs = diagnose(t, Options{}, perHost("node1", 0), perHost("node2", 1), node1, node2).Findings
	nicMustFind(t, fs, "host.gpu.mixed", Warn, "GPUs of 2 models across 2 hosts of one job (the hosts the NCCL log ", "node1.log and the NCCL log ", "node2.log name)")
	// commIds join logs transitively: a-{X}, b-{Y}, c-{X,Y} are one job.
	withIDs := func(name, h string, ids ...string) string {
		var ls []string
		for _, id := range ids {
			ls = append(ls, fmt.Sprintf("%s:100:100 [0] NCCL INFO ncclCommInitRank comm 0x55d0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId %s - Init COMPLETE", h, id))
		}
		return write(name, ls...)
	}
	fs = diagnose(t, Options{}, withIDs("a-comm.log", "node1", "0x1111"), withIDs("b-comm.log", "node2", "0x2222"), withIDs("c-comm.log", "node3", "0x1111", "0x2222"), node1, node2).Findings
	nicMustFind(t, fs, "host.gpu.mixed", Warn, "GPUs of 2 models across 2 hosts of one job")
	// node1.a and node1.b are two hosts (SameHostName keeps names of two
	// domains apart): node1.b's A100s are of no job that names node1.a.
	fqdn := write("fqdn.log",
		"node1.a:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
		"node2.a:200:200 [0] NCCL INFO NCCL version 2.21.5+cuda12.4")
	onA := write("a-gpus.txt", "[root@node1.a ~]# nvidia-smi -L", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)")
	onB := write("b-gpus.txt", "[root@node1.b ~]# nvidia-smi -L", "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-3)")
	nicMustNot(t, diagnose(t, Options{}, fqdn, onA, onB).Findings, "host.gpu.mixed")
}

// A VM. Synthetic: lscpu's Hypervisor vendor and lspci's ATSCtl lines in
// one paste of one host; systemd-detect-virt's word alone; a container's
// lscpu (Virtualization type container) and bare metal's "none" are no VM.
func TestVM(t *testing.T) {
	fs := synthFindings(t, Options{}, "# synthetic", "[root@vm1 ~]# lscpu", "Model name:          Intel(R) Xeon(R) Platinum 8480+", "Hypervisor vendor:   KVM", "Virtualization type: full",
		"[root@vm1 ~]# lspci -vvv | grep ATSCtl", "\t\tATSCtl:\tEnable+, Smallest Translation Unit: 00")
	f := nicMustFind(t, fs, "host.virt.vm", Info, "vm1 is a virtual machine (lscpu's Hypervisor vendor KVM); lspci shows ATS enabled on 1 device")
	if len(f.Evidence) != 2 || !strings.Contains(f.Fix, "NCCL_TOPO_FILE") || !strings.Contains(f.Fix, "DirectTrans+") {
		t.Errorf("evidence %v fix %s", f.Evidence, f.Fix)
	}
	nicMustFind(t, synthFindings(t, Options{}, "kvm"), "host.virt.vm", Info, "is a virtual machine (systemd-detect-virt's kvm); no lspci of it says whether ATS is on")
	nicMustNot(t, synthFindings(t, Options{}, "Hypervisor vendor:   KVM", "Virtualization type: container"), "host.virt.vm")
	nicMustNot(t, synthFindings(t, Options{}, "none"), "host.virt.vm")
}
