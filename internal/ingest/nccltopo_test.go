package ingest

import (
	"slices"
	"strings"
	"testing"
)

func ncclTopo(t *testing.T, rel string) *GPUTopo {
	t.Helper()
	return corpusAs[*GPUTopo](t, "topo/"+rel, KindNCCLTopo)
}

// The bare-metal H200 dump (NVIDIA/nccl-tests#256): each Broadcom switch
// holds one GPU and one ConnectX-7, so each GPU reaches its NIC at PIX
// and the others at PXB or SYS; NVLinks to four NVSwitches make every
// GPU pair NV18. The paste ends inside the second <cpu>.
func TestNCCLTopoBareMetalPaths(t *testing.T) {
	g := ncclTopo(t, "nccl-topo-dump-h200-baremetal-pix-nic-per-gpu-cut-nccltests256.txt")
	if !slices.Equal(g.NICs, []string{"mlx5_0", "mlx5_1", "mlx5_2"}) || len(g.GPUs) != 3 || !g.Unclosed || g.VMFlat {
		t.Fatalf("NICs %v, %d GPUs, unclosed %v, vm %v", g.NICs, len(g.GPUs), g.Unclosed, g.VMFlat)
	}
	want := [][]string{{"PIX", "PHB", "PHB"}, {"PHB", "PIX", "PHB"}, {"PHB", "PHB", "PIX"}}
	for i, gpu := range g.GPUs {
		if !slices.Equal(gpu.ToNIC, want[i]) {
			t.Errorf("%s to NICs %v, want %v", gpu.Name, gpu.ToNIC, want[i])
		}
		for j, l := range gpu.ToGPU {
			if i != j && l != "NV18" || i == j && l != "X" {
				t.Errorf("%s to GPU%d: %s", gpu.Name, j, l)
			}
		}
	}
	n := g.NICInfo[0]
	if n.SpeedMbps != 400000 || n.GDR != 1 || n.LinkGTs != 32 || n.LinkWidth != 16 || n.Numa != "0" || !n.RDMA || n.PCI != "0000:19:00.0" || n.Evidence.Line != 16 {
		t.Errorf("NIC %+v", n)
	}
	// 32 GT/s x16 after 128b/130b coding.
	if got := n.PCIeGbps(); !near(got, 32*16*128.0/130) {
		t.Errorf("PCIe %g Gb/s", got)
	}
}

// RCCL's dump (ROCm/rccl#1185): GPUs two switch levels from the NIC
// are PXB, the 10G card on a third CPU is SYS from every GPU, and the
// two ports of each dual-port card share its PCI device.
func TestNCCLTopoRCCLNestedSwitches(t *testing.T) {
	g := ncclTopo(t, "rccl-topo-dump-8gpu-pxb-dual-port-cx7-2x200g-on-gen4-x16-rccl1185.txt")
	if len(g.GPUs) != 8 || len(g.NICs) != 6 || g.Unclosed {
		t.Fatalf("%d GPUs, NICs %v, unclosed %v", len(g.GPUs), g.NICs, g.Unclosed)
	}
	// NICs in input order: mlx5_0, mlx5_1, mlx5_4, mlx5_5, mlx5_2, mlx5_3.
	if got := strings.Join(g.GPUs[3].ToNIC, " "); got != "PXB PXB SYS SYS SYS SYS" {
		t.Errorf("GPU3 to NICs %s", got)
	}
	if got := strings.Join(g.GPUs[7].ToNIC, " "); got != "SYS SYS PXB PXB SYS SYS" {
		t.Errorf("GPU7 to NICs %s", got)
	}
	if g.NICInfo[0].PCI != g.NICInfo[1].PCI || g.NICInfo[4].LinkGTs != 8 || g.NICInfo[4].LinkWidth != 8 {
		t.Errorf("NICs %+v", g.NICInfo)
	}
}

// A VM's dump (NVIDIA/nccl-tests#256): one CPU of numaid -1 with the GPU
// and the NIC straight under it.
func TestNCCLTopoVMFlat(t *testing.T) {
	g := ncclTopo(t, "nccl-topo-dump-h200-vm-flat-numaid-minus1-pcie-gen4-400g-nccltests256.txt")
	if !g.VMFlat || len(g.GPUs) != 1 || g.GPUs[0].ToNIC[0] != "PHB" || g.NICInfo[0].LinkGTs != 16 {
		t.Fatalf("vm %v GPUs %+v NICs %+v", g.VMFlat, g.GPUs, g.NICInfo)
	}
}

// A socket net (guid 0x0) is no NIC for GPUDirect distances; a renamed
// RDMA device (roce0, a real guid) is (SYNTHETIC lines in the dump's
// layout).
func TestNCCLTopoSocketNetsLeftOut(t *testing.T) {
	const in = `<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="AuthenticAMD" familyid="175" modelid="1">
    <pci busid="0001:00:00.0" class="0x030200" vendor="0x10de" device="0x20b5" subsystem_vendor="0x10de" subsystem_device="0x1533" link_speed="" link_width="0">
      <gpu dev="0" sm="80" rank="0" gdr="1"/>
    </pci>
    <nic>
      <net name="eth0" dev="0" speed="100000" port="0" latency="0.000000" guid="0x0" maxconn="65536" gdr="0"/>
      <net name="roce0" dev="1" speed="100000" port="1" latency="0.000000" guid="0xe6fb480003f6ceb8" maxconn="262144" gdr="0"/>
    </nic>
  </cpu>
</system>
`
	res := nicReadText(t, "synthetic", in)
	g, ok := res.Artifacts[0].(*GPUTopo)
	if !ok || len(res.Artifacts) != 1 {
		t.Fatalf("artifacts %v", res.Artifacts)
	}
	if !slices.Equal(g.NICs, []string{"roce0"}) || len(g.NICInfo) != 2 || g.NICInfo[0].RDMA || !g.NICInfo[1].RDMA {
		t.Errorf("NICs %v info %+v", g.NICs, g.NICInfo)
	}
	if g.NICInfo[0].PCIeGbps() != 0 || g.GPUs[0].ToNIC[0] != "PHB" {
		t.Errorf("%+v %v", g.NICInfo[0], g.GPUs[0].ToNIC)
	}
}

// An element whose attributes lost a quote is reported at its column and
// left out.
func TestNCCLTopoGarbledElement(t *testing.T) {
	const in = "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\" class=\"0x030200>\n      <gpu dev=\"0\"/>\n"
	g := nicArtifact[*GPUTopo](t, nicReadText(t, "synthetic", in))
	if len(g.Garbled) != 1 || g.Garbled[0].Line != 3 || g.Garbled[0].Col != 5 {
		t.Fatalf("garbled %+v", g.Garbled)
	}
}

// A Grace Hopper dump (SYNTHETIC lines in the layout of NCCL 2.19+): the
// GPU is joined to its CPU by C2C and the NIC hangs from that CPU's root
// port, which NCCL calls P2C, not PHB; the GPU of the other CPU reaches
// it across the sockets.
const gh200Topo = `<system version="1">
  <cpu numaid="0" affinity="00000000,ffffffff" arch="arm64" vendor="ARM" familyid="1" modelid="53">
    <pci busid="0009:01:00.0" class="0x030200" vendor="0x10de" device="0x2342" subsystem_vendor="0x10de" subsystem_device="0x16eb" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="90" rank="0" gdr="1">
        <c2c bw="40000" count="10"/>
      </gpu>
    </pci>
    <pci busid="0000:01:00.0" class="0x020000" vendor="0x15b3" device="0x1021" subsystem_vendor="0x15b3" subsystem_device="0x0041" link_speed="32.0 GT/s PCIe" link_width="16">
      <nic>
        <net name="mlx5_0" dev="0" speed="400000" port="1" latency="0.000000" guid="0x1c2b0c0003a1d8e0" maxconn="131072" gdr="1"/>
      </nic>
    </pci>
  </cpu>
  <cpu numaid="1" affinity="ffffffff,00000000" arch="arm64" vendor="ARM" familyid="1" modelid="53">
    <pci busid="0019:01:00.0" class="0x030200" vendor="0x10de" device="0x2342" subsystem_vendor="0x10de" subsystem_device="0x16eb" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="90" rank="1" gdr="1">
        <c2c bw="40000" count="10"/>
      </gpu>
    </pci>
  </cpu>
</system>
`

func TestNCCLTopoC2CGPUReachesCPUNICByP2C(t *testing.T) {
	g := nicArtifact[*GPUTopo](t, nicReadText(t, "synthetic", gh200Topo))
	if len(g.GPUs) != 2 || g.GPUs[0].ToNIC[0] != "P2C" || g.GPUs[1].ToNIC[0] != "SYS" || g.GPUs[0].ToGPU[1] != "SYS" {
		t.Fatalf("GPUs %+v", g.GPUs)
	}
}

// RCCL's dump of an MI300X board (SYNTHETIC lines in RCCL's layout):
// each GPU under its own root port, joined to the others by xGMI, which
// is no PCIe path between them.
const mi300Topo = `<system version="1">
  <cpu numaid="0" affinity="ffffffff" arch="x86_64" vendor="AuthenticAMD" familyid="175" modelid="17">
    <pci busid="0000:0c:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x038000" vendor="0x1002" device="0x74a1" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="94" gcn="gfx942" arch="38911" rank="0" gdr="1">
          <xgmi target="0000:2f:00.0" count="1" tclass="0x038000"/>
        </gpu>
      </pci>
    </pci>
    <pci busid="0000:2a:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:2f:00.0" class="0x038000" vendor="0x1002" device="0x74a1" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="94" gcn="gfx942" arch="38911" rank="1" gdr="1">
          <xgmi target="0000:11:00.0" count="1" tclass="0x038000"/>
        </gpu>
      </pci>
    </pci>
  </cpu>
</system>
`

func TestNCCLTopoRCCLXGMIPeers(t *testing.T) {
	g := nicArtifact[*GPUTopo](t, nicReadText(t, "synthetic", mi300Topo))
	if len(g.GPUs) != 2 || g.GPUs[0].ToGPU[1] != "XGMI" || g.GPUs[1].ToGPU[0] != "XGMI" {
		t.Fatalf("GPUs %+v", g.GPUs)
	}
}

// A VM whose GPU sits behind a virtual PCIe switch is no flat VM, though
// its CPU's numaid is -1 too (SYNTHETIC lines in NCCL's dump layout); and
// a Gen2 link loses 2 of every 10 bits to 8b/10b coding.
func TestNCCLTopoVMWithSwitchIsNotFlat(t *testing.T) {
	const in = `<system version="1">
  <cpu numaid="-1" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:05:00.0" class="0x060400" vendor="0x1b36" device="0x000c" link_speed="5.0 GT/s PCIe" link_width="8">
      <pci busid="0000:06:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="5.0 GT/s PCIe" link_width="8">
        <gpu dev="0" sm="90" rank="0" gdr="1"/>
      </pci>
      <pci busid="0000:07:00.0" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="5.0 GT/s PCIe" link_width="8">
        <nic>
          <net name="mlx5_0" dev="0" speed="400000" port="1" guid="0x1c2b0c0003a1d8e0" gdr="1"/>
        </nic>
      </pci>
    </pci>
  </cpu>
</system>
`
	g := nicArtifact[*GPUTopo](t, nicReadText(t, "synthetic", in))
	if g.VMFlat || g.GPUs[0].ToNIC[0] != "PIX" {
		t.Fatalf("vm %v GPUs %+v", g.VMFlat, g.GPUs)
	}
	if got := g.NICInfo[0].PCIeGbps(); got != 5*8*0.8 {
		t.Errorf("PCIe 5 GT/s x8: %g Gb/s, want 32", got)
	}
}
