package doctor

import (
	"strings"
	"testing"
)

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
