package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Artifacts of the twenty-third sweep.

// NCCL's topology XML (NCCL_TOPO_DUMP_FILE) was "in no format rocelab
// recognises". The VM's dump of NVIDIA/nccl-tests#256 (27.5 GB/s busbw
// against 475.8 on bare metal) has its GPU and NIC straight under a CPU of
// numaid -1: the GPU's nearest NIC is PHB, which the fix answers with a
// topology file of the host's layout, and the NIC's 16 GT/s x16 link
// carries 252 of its port's 400 Gb/s.
func TestNCCLTopoDumpVMFlat(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nccl-topo-dump-h200-vm-flat-numaid-minus1-pcie-gen4-400g-nccltests256.txt")
	f := nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "1 of 1 GPUs", "nearest NIC GPU0 PHB (mlx5_0)", "the paste is cut after GPU0")
	if !strings.Contains(f.Mechanism, `numaid="-1"`) || !strings.Contains(f.Fix, "NCCL_TOPO_FILE") {
		t.Errorf("mechanism %s fix %s", f.Mechanism, f.Fix)
	}
	f = nicMustFind(t, fs, "topo.nic.pcie", Warn, "mlx5_0 (PCIe 16 GT/s x16, 252 Gb/s, for a 400 Gb/s port)")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 12 || !strings.Contains(f.Fix, "virtual root port") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	if len(fs) != 2 {
		t.Errorf("want two findings:\n%s", nicTitles(fs))
	}
}

// The same host on bare metal: every GPU beside its own NIC, 32 GT/s x16
// links, nothing to fix.
func TestNCCLTopoDumpBareMetalOK(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nccl-topo-dump-h200-baremetal-pix-nic-per-gpu-cut-nccltests256.txt")
	nicMustFind(t, fs, "topo.gpu_nic.ok", Info, "GPU0 PIX (mlx5_0), GPU1 PIX (mlx5_1), GPU2 PIX (mlx5_2)")
	if len(fs) != 1 {
		t.Errorf("want one finding:\n%s", nicTitles(fs))
	}
}

// RCCL's dump (ROCm/rccl#1185): two 200G ports of one ConnectX-7 share a
// 16 GT/s x16 link of 252 Gb/s; each port alone fits, both do not. The
// IBM VSI file's devices print link_width="0": no link verdict.
func TestNCCLTopoDualPortCardOverPCIe(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/rccl-topo-dump-8gpu-pxb-dual-port-cx7-2x200g-on-gen4-x16-rccl1185.txt")
	f := nicMustFind(t, fs, "topo.nic.pcie", Warn, "2 NICs' PCIe links carry less than their ports", "mlx5_0+mlx5_1 (PCIe 16 GT/s x16, 252 Gb/s, for 2 ports of 400 Gb/s together)", "mlx5_4+mlx5_5")
	if len(f.Evidence) != 4 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustFind(t, fs, "topo.gpu_nic.ok", Info, "GPU3 PXB (mlx5_0)")
	fs = diagnoseFiles(t, Options{}, "corpus/topo/nccl-topo-file-ibm-vsi-h100-ti-bridge-2.5gts-x1-nic-width-0-cut-ibmcloud.txt")
	nicMustNot(t, fs, "topo.nic.pcie")
	nicMustFind(t, fs, "topo.gpu_nic.ok", Info, "GPU0 PIX (mlx5_7), GPU1 PIX (mlx5_6)")
}

// A renamed ConnectX-5 (roce0, NVIDIA/nccl-tests#329) with gdr="0": NCCL
// found no peer-memory or DMA-BUF path to the GPU, whatever the distance.
func TestNCCLTopoNICWithoutGDR(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nccl-topo-dump-t600-cx5-renamed-roce0-gdr-0-phb-docker-macvlan-nccltests329.txt")
	f := nicMustFind(t, fs, "topo.nic.gdr_off", Warn, "no GPUDirect RDMA support on roce0", "its traffic is staged")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 7 || !strings.Contains(f.Fix, "nvidia-peermem") {
		t.Errorf("evidence %+v fix %s", f.Evidence, f.Fix)
	}
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "GPU0 PHB (roce0)")
	nicMustNot(t, fs, "topo.nic.pcie")
}

// The VM's all_reduce_perf (NVIDIA/nccl-tests#256) beside its topology
// dump: the dump's 400G port speed judges the busbw, which alone had no
// NIC speed to be judged by.
func TestNCCLTopoDumpGivesNICSpeed(t *testing.T) {
	const run = "corpus/nccl-tests/allreduce-h200-2n-16g-kvm-vm-passthrough-27GBps-erratic-nccltests256.txt"
	nicMustFind(t, diagnoseFiles(t, Options{}, run), "nccltests.busbw.unjudged", Info, "no NIC speed known")
	fs := diagnoseFiles(t, Options{}, run, "corpus/topo/nccl-topo-dump-h200-vm-flat-numaid-minus1-pcie-gen4-400g-nccltests256.txt")
	f := nicMustFind(t, fs, "nccltests.busbw.unjudged", Info, "56.38 GB/s", "one 400Gbps NIC per node allows (50.00 GB/s)")
	if last := f.Evidence[len(f.Evidence)-1]; last.Line != 12 || !strings.Contains(last.File, "nccl-topo-dump") {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// Two real SONiC outputs of two different switches, each at the factory
// prompt `root@sonic` / `admin@sonic`: the HLD's QSFP56-DD in Ethernet0
// with two dark lanes, and sonic-utilities#2027's fec-stats whose
// Ethernet0 counts 34 uncorrectable codewords. Before, "sonic" was taken
// for one switch and the codewords became "the errors this receiver
// causes", the port's own finding dropped; a factory hostname names no
// device, so the join is said to be by port name and the port keeps its
// finding.
func TestOpticsJoinFactoryHostnameIsNoDevice(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-show-int-transceiver-eeprom-dom-qsfp56dd-400g-dr4-rx3-4-minus-40dbm-hld.txt", "corpus/switch/sonic-fec-stats-uncorr-34-sonicutilities2027.txt")
	f := nicMustFind(t, fs, "optics.rx.dark", Error, "Ethernet0 counts 34 FEC codewords it could not correct in ", "which may be another device's port of that name")
	if strings.Contains(f.Title, "the errors this receiver causes") {
		t.Errorf("title %s", f.Title)
	}
	nicMustFind(t, fs, "switch.link.errors", Warn, "Ethernet0: RS-FEC met 34 codewords it could not correct")
}

// A shell loop over an InfiniBand port's counters directory
// (leptonai/gpud#943) was in no format rocelab recognises; its
// link_downed 255 is the 8-bit counter's maximum: the link went down at
// least 255 times, a flapping link, not the boot's one link-up.
func TestIBPortCountersLoopLinkDownedSaturated(t *testing.T) {
	rel := "corpus/hwcounters/ib-port-counters-shell-loop-banners-link-downed-255-saturated-gpud943.txt"
	rep := Diagnose([]string{nicTestdata(rel)}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "hw-counters" {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	f := nicMustFind(t, rep.Findings, "counters.phy.link_down", Warn, "mlx5_1 port 1: the link went down at least 255 times (link_downed 255, the counter's maximum)")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 53 || !strings.Contains(f.Mechanism, "8-bit counter's maximum") {
		t.Errorf("evidence %+v mechanism %s", f.Evidence, f.Mechanism)
	}
}

// NCCL topology dumps on which a rule must stay silent (SYNTHETIC lines
// in NCCL's dump layout):
//   - a Grace Hopper GPU reaches the NIC on its own CPU's root port
//     through C2C (P2C), where NCCL 2.27 uses GPUDirect RDMA by default:
//     no claim that its traffic is staged through host memory, and none
//     that it has a NIC within one PCIe switch;
//   - a DGX Spark (GB10), whose GPU says gdr="0" itself (from the GB10's
//     bus ids and link widths): CUDA reports no GPUDirect RDMA for the
//     integrated GPU, so the NICs' gdr="0" is no missing peer-memory
//     module to load;
//   - a socket net's gdr="0" (guid 0x0, eth0) says nothing of GPUDirect
//     RDMA: NCCL's socket transport never has it.
func TestNCCLTopoNoFalseFinding(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		silent   []string
	}{
		{"c2c-gpu-is-not-far", `<system version="1">
  <cpu numaid="0" affinity="ffffffff" arch="arm64" vendor="ARM" familyid="1" modelid="53">
    <pci busid="0009:01:00.0" class="0x030200" vendor="0x10de" device="0x2342" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="90" rank="0" gdr="1">
        <c2c bw="40000" count="10"/>
      </gpu>
    </pci>
    <pci busid="0000:01:00.0" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16">
      <nic>
        <net name="mlx5_0" dev="0" speed="400000" port="1" guid="0x1c2b0c0003a1d8e0" gdr="1"/>
      </nic>
    </pci>
  </cpu>
</system>
`, []string{"topo.gpu_nic.far", "topo.gpu_nic.ok"}},
		{"gpu-without-gdr-leaves-nics-alone", `<system version="1">
  <cpu numaid="0" affinity="fffff" arch="arm64" vendor="ARM" familyid="1" modelid="1">
    <pci busid="0000:01:00.0" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="4">
      <nic>
        <net name="rocep1s0f0" dev="0" speed="200000" port="1" guid="0x4e9ec10003a1d8e0" gdr="0"/>
      </nic>
    </pci>
    <pci busid="000f:01:00.0" class="0x030200" vendor="0x10de" device="0x2e12" link_speed="2.5 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="121" rank="0" gdr="0">
        <c2c bw="43125" count="8"/>
      </gpu>
    </pci>
  </cpu>
</system>
`, []string{"topo.nic.gdr_off", "topo.gpu_nic.far"}},
		{"socket-net-without-gdr", `<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="AuthenticAMD" familyid="175" modelid="1">
    <pci busid="0001:00:00.0" class="0x030200" vendor="0x10de" device="0x20b5" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="80" rank="0" gdr="1"/>
    </pci>
    <nic>
      <net name="eth0" dev="0" speed="100000" port="0" latency="0.000000" guid="0x0" maxconn="65536" gdr="0"/>
    </nic>
  </cpu>
</system>
`, []string{"topo.nic.gdr_off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := diagnoseText(t, tc.in).Findings
			for _, id := range tc.silent {
				nicMustNot(t, fs, id)
			}
		})
	}
}

// NCCL 2.21+ fuses the two ports of a card into one net under a copy of
// the card's device (NCCL_NET_MERGE_LEVEL=PORT): the card is reported
// once, on its ports, not again as the fused net (SYNTHETIC lines in
// NCCL's dump layout).
func TestNCCLTopoFusedNetJudgedOnItsCard(t *testing.T) {
	const in = `<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:17:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="90" rank="0" gdr="1"/>
    </pci>
    <pci busid="0000:18:00.0" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="16.0 GT/s PCIe" link_width="16">
      <nic>
        <net name="mlx5_0" dev="0" speed="200000" port="1" guid="0x1c2b0c0003a1d8e0" gdr="1" net="0"/>
        <net name="mlx5_1" dev="1" speed="200000" port="1" guid="0x1c2b0c0003a1d8e1" gdr="1" net="0"/>
      </nic>
      <pci busid="0000:18:00.1" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="16.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="mlx5_0+mlx5_1" dev="2" speed="400000" port="1" guid="0x1c2b0c0003a1d8e0" gdr="1"/>
        </nic>
      </pci>
    </pci>
  </cpu>
</system>
`
	fs := diagnoseText(t, in).Findings
	f := nicMustFind(t, fs, "topo.nic.pcie", Warn, "a NIC's PCIe link carries less than its port: mlx5_0+mlx5_1 (PCIe 16 GT/s x16, 252 Gb/s, for 2 ports of 400 Gb/s together)")
	if len(f.Evidence) != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// The same dump's port_xmit_discards 65535 and
// excessive_buffer_overrun_errors 15 are their 16- and 4-bit counters'
// maximums: before, nothing was said of either. No physical counter
// moved, so the link's flaps are not blamed on its bits.
func TestIBPortErrorCountersSaturated(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/hwcounters/ib-port-counters-shell-loop-banners-link-downed-255-saturated-gpud943.txt")
	f := nicMustFind(t, fs, "counters.ib.port_errors", Warn, "mlx5_1 port 1: InfiniBand port error counters: port_xmit_discards at least 65535 (its 16-bit maximum), excessive_buffer_overrun_errors at least 15 (its 4-bit maximum)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 44 || f.Evidence[1].Line != 59 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	if !strings.Contains(f.Mechanism, "what was queued while it was down") || strings.Contains(f.Mechanism, "cable or the transceiver") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	if !strings.Contains(f.Fix, "perfquery -R -C mlx5_1 -P 1") || strings.Contains(f.Fix, "mlxlink") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustFind(t, fs, "counters.phy.link_down", Warn)
}

// A GB200 node (sgl-project/sglang#11208): nvidia-smi prints every NIC at
// SYS because its matrix has no link type for NVLink-C2C, and the GPU
// model line beside the matrix says the GPUs are Grace-attached. Before,
// topo.gpu_nic.far claimed their traffic is staged through host memory.
func TestGPUTopoGB200NotFar(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/topo/nvidia-smi-topo-gb200-4gpu-sys-to-every-nic-gpu-numa-id-cut-sglang11208.txt")
	nicMustNot(t, fs, "topo.gpu_nic.far")
	f := nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "3 of 3 GPUs", "the GPUs are NVIDIA GB200", "NCCL_NET_GDR_C2C=1", "GPU2 SYS (NIC0)")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 7 || !strings.Contains(f.Mechanism, "2.27") {
		t.Errorf("evidence %+v mechanism %s", f.Evidence, f.Mechanism)
	}
}

// Without a model line the GPU NUMA ID column says it: a number where the
// GPU's memory is a NUMA node of its Grace (SYNTHETIC lines in the layout
// of sglang#11208); an x86 host's N/A keeps the far finding, and so does
// an x86 model named by nvidia-smi -L.
func TestGPUTopoGraceByNUMAIDOrModel(t *testing.T) {
	header := "        GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID"
	fs := synthFindings(t, Options{}, header,
		"GPU0     X      NV18    NODE    SYS     0-71    0               2",
		"GPU1    NV18     X      SYS     NODE    72-143  1               10")
	nicMustNot(t, fs, "topo.gpu_nic.far")
	nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "2 of 2 GPUs", "GPU NUMA ID", "GPU0 NODE (NIC0)")

	x86 := []string{header,
		"GPU0     X      NV18    NODE    SYS     0-55,112-167    0               N/A",
		"GPU1    NV18     X      SYS     NODE    56-111,168-223  1               N/A"}
	fs = synthFindings(t, Options{}, x86...)
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "2 of 2 GPUs", "GPU0 NODE (NIC0)")
	nicMustNot(t, fs, "topo.gpu_nic.c2c")
	fs = synthFindings(t, Options{}, append([]string{"GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0c1d)"}, x86...)...)
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "2 of 2 GPUs")

	fs = synthFindings(t, Options{}, append([]string{"GPU 0: NVIDIA GH200 480GB (UUID: GPU-0c1d)"}, x86...)...)
	nicMustNot(t, fs, "topo.gpu_nic.far")
	nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "the GPUs are NVIDIA GH200 480GB")
}

// The model can come from another input of the incident: nccl-tests' rank
// lines naming a GH200 answer for a matrix without model lines or a GPU
// NUMA ID; a rank on an x86 GPU among them keeps the far finding
// (SYNTHETIC lines in the layouts of nccl-tests and nvidia-smi).
func TestGPUTopoGraceFromNCCLTestsRanks(t *testing.T) {
	dir := t.TempDir()
	diagnose := func(gpu1 string) []Finding {
		t.Helper()
		nt := strings.Join([]string{
			"# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
			"# Using devices",
			"#  Rank  0 Group  0 Pid  41187 on gh200-a device  0 [0009:01:00] NVIDIA GH200 480GB",
			"#  Rank  1 Group  0 Pid  52210 on gh200-b device  0 [0009:01:00] " + gpu1,
			"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
			"           8             2     float     sum      -1    30.12    0.00    0.00      0    29.80    0.00    0.00      0",
			"# Avg bus bandwidth    : 0.00", ""}, "\n")
		topo := "        GPU0    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID\n" +
			"GPU0     X      SYS     SYS     0-71    0               N/A\n"
		paths := []string{filepath.Join(dir, "nt.txt"), filepath.Join(dir, "topo.txt")}
		for i, text := range []string{nt, topo} {
			if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return Diagnose(paths, nil, Options{}).Findings
	}
	fs := diagnose("NVIDIA GH200 480GB")
	nicMustNot(t, fs, "topo.gpu_nic.far")
	nicMustFind(t, fs, "topo.gpu_nic.c2c", Info, "1 of 1 GPUs", "the GPUs are NVIDIA GH200 480GB", "GPU0 SYS (NIC0)")
	fs = diagnose("NVIDIA H100 80GB HBM3")
	nicMustFind(t, fs, "topo.gpu_nic.far", Warn, "1 of 1 GPUs")
	nicMustNot(t, fs, "topo.gpu_nic.c2c")
}
