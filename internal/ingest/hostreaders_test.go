package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestMSTStatusCorpus reads mst status -v: each row's PCI address, RDMA
// device, netdev (MFT's "net-" off) and NUMA node, the rows of a paste
// with blank lines between them, and a row cut before its NUMA column.
func TestMSTStatusCorpus(t *testing.T) {
	m := corpusAs[*MSTStatus](t, "mst/mst-status-v-cx7-ib-numa-0-1-h100-sriovop786.txt", KindMST)
	var got []string
	for _, d := range m.Devices {
		got = append(got, fmt.Sprintf("%s %s %s %d", d.PCI, d.RDMA, d.Net, d.NUMA))
	}
	want := "e5:00.0 mlx5_5 ibp229s0 1|d3:00.0 mlx5_4 ibp211s0 1|c1:00.0 mlx5_3 ibp193s0 1|9d:00.0 mlx5_2 ibp157s0 1|54:00.0 mlx5_1 ibp84s0 0|41:00.0 mlx5_0 ibp65s0 0"
	if strings.Join(got, "|") != want {
		t.Errorf("devices %q, want %q", strings.Join(got, "|"), want)
	}
	m = corpusAs[*MSTStatus](t, "mst/mst-status-v-cx7-ib-4-numa-blank-lines-cut-sriovdp601.txt", KindMST)
	if len(m.Devices) != 7 || m.Devices[0].RDMA != "mlx5_10" || m.Devices[0].NUMA != 3 || m.Devices[6].RDMA != "mlx5_2" || m.Devices[6].NUMA != -1 {
		t.Errorf("devices %+v, want 7 with mlx5_10 on node 3 first and the cut mlx5_2 on no node last", m.Devices)
	}
}

// TestGPUListCorpus reads nvidia-smi --query-gpu's CSV (models and bus
// IDs) and collect_env's nvidia-smi -L lines.
func TestGPUListCorpus(t *testing.T) {
	g := corpusAs[*GPUList](t, "nvsmi/nvidia-smi-query-gpu-name-busid-vbios-h100-cut-mlengineering.txt", KindGPUList)
	if len(g.GPUs) != 2 || g.GPUs[0].Model != "NVIDIA H100 80GB HBM3" || g.GPUs[1].BusID != "00000000:8B:00.0" || g.GPUs[0].Index != -1 {
		t.Errorf("GPUs %+v", g.GPUs)
	}
	g = corpusAs[*GPUList](t, "nvsmi/collect-env-gpu-models-h20x2-vllm12008.txt", KindGPUList)
	if len(g.GPUs) != 2 || g.GPUs[1].Model != "NVIDIA H20" || g.GPUs[1].Index != 1 || g.GPUs[1].Evidence.Line != 4 {
		t.Errorf("GPUs %+v", g.GPUs)
	}
}

// TestHostTopologyCorpus reads the NUMA node of each GPU and NIC from
// hwloc's XML (the nodeset of the package a device hangs from) and from
// lstopo -v's text (the NUMANode line of the package above the device).
func TestHostTopologyCorpus(t *testing.T) {
	h := corpusAs[*HostTopology](t, "hwloc/hwloc-xml-dgx2h-16-v100-two-packages.xml", KindHostTopology)
	per := map[string]int{}
	for _, d := range h.Devices {
		if d.GPU {
			per[d.NUMA]++
		}
	}
	if len(h.Devices) != 16 || per["0"] != 8 || per["1"] != 8 || h.Devices[0].BusID != "0000:34:00.0" {
		t.Errorf("%d devices, GPUs per node %v, first %+v; want 16 V100s, 8 per node", len(h.Devices), per, h.Devices[0])
	}
	h = corpusAs[*HostTopology](t, "hwloc/lstopo-v-cisco-vic-usnic-openfabrics-package0-cut-hwloc.txt", KindHostTopology)
	var rdma []string
	for _, d := range h.Devices {
		if d.NUMA != "0" {
			t.Errorf("%s on node %q, want 0", d.BusID, d.NUMA)
		}
		if d.RDMA != "" {
			rdma = append(rdma, d.RDMA+"@"+d.BusID)
		}
	}
	if got := strings.Join(rdma, " "); got != "usnic_0@0000:0b:00.0 usnic_1@0000:0c:00.0" || h.Devices[0].Net != "eth0" {
		t.Errorf("RDMA %q, first %+v", got, h.Devices[0])
	}
}

// TestNUMACorpus reads lscpu's NUMA lines and numactl --hardware (nodes,
// their CPUs and memory, the distance matrix) from one paste of a KVM
// guest.
func TestNUMACorpus(t *testing.T) {
	rel := "numa/lscpu-grep-numa-numactl-hardware-kvm-2-nodes-hwloc712.txt"
	n := corpusAs[*Numactl](t, rel, KindNumactl)
	if n.Available != 2 || len(n.Nodes) != 2 || n.Nodes[1].CPUs != 64 || n.Nodes[1].SizeMB != 352777 || fmt.Sprint(n.Distance) != "[[10 20] [20 10]]" || fmt.Sprint(n.DistanceNodes) != "[0 1]" {
		t.Errorf("numactl %+v", n)
	}
	c := corpusAs[*Lscpu](t, rel, KindLscpu)
	if c.NUMANodes != 2 || c.NodeCPUs[1] != "32-63,96-127" || c.Hypervisor != "" {
		t.Errorf("lscpu %+v", c)
	}
}

// TestLspciATSCorpus reads ATSCtl lines grepped out of lspci -vvv in a VM
// as devices with ATS enabled.
func TestLspciATSCorpus(t *testing.T) {
	p := corpusAs[*Lspci](t, "lspci/lspci-grep-ats-enabled-cx7-h200-vm-nccltests256.txt", KindLspci)
	on := 0
	for _, d := range p.Devices {
		if d.ATS != nil && d.ATS.Enable {
			on++
		}
	}
	if on != 7 || len(p.Devices) != 7 {
		t.Errorf("%d devices, %d with ATS on; want 7 and 7", len(p.Devices), on)
	}
}

// TestHostReadersSynthetic covers the shapes the corpus lacks (synthetic
// lines, each as the tool prints it): lscpu in a VM, systemd-detect-virt
// after its command and alone, log lines that start as nvidia-smi -L's
// but name no model, lspci's NUMA node and ATSCtl inside a
// device block, and an ATSCtl line that does not go on as lspci prints it.
func TestHostReadersSynthetic(t *testing.T) {
	res := nicReadText(t, "lscpu.txt", "Architecture:            x86_64\nModel name:              Intel(R) Xeon(R) Platinum 8480+\nHypervisor vendor:       KVM\nVirtualization type:     full\nNUMA node(s):            1\nNUMA node0 CPU(s):       0-191\n")
	c := nicArtifact[*Lscpu](t, res)
	if c.Hypervisor != "KVM" || c.VirtType != "full" || c.Hypervised.Line != 3 || c.NUMANodes != 1 {
		t.Errorf("lscpu %+v", c)
	}
	for _, in := range []string{"$ systemd-detect-virt\nkvm\n", "kvm\n"} {
		v := nicArtifact[*Virt](t, nicReadText(t, "virt.txt", in))
		if v.Tech != "kvm" || !v.VM() {
			t.Errorf("%q: virt %+v", in, v)
		}
	}
	nicNoArtifact[*Virt](t, nicReadText(t, "words.txt", "kvm\nqemu\n"))
	nicNoArtifact[*GPUList](t, nicReadText(t, "log.txt", "GPU 0: True\nGPU 1: 79.1 GB free\nGPU 2: 45%\n"))
	p := nicArtifact[*Lspci](t, nicReadText(t, "lspci.txt", "41:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n\tNUMA node: 1\n\tCapabilities: [480 v1] Address Translation Service (ATS)\n\t\tATSCap:\tInvalidate Queue Depth: 00\n\t\tATSCtl:\tEnable-, Smallest Translation Unit: 00\n\t\tATSCtl:\tEnabled\n"))
	if len(p.Devices) != 1 || p.Devices[0].NUMA != "1" || p.Devices[0].ATS == nil || p.Devices[0].ATS.Enable || len(p.Garbled) != 1 || p.Garbled[0].Line != 6 {
		t.Errorf("lspci %+v garbled %+v", p.Devices, p.Garbled)
	}
}

// TestHostTopologyPower8 reads a POWER8 host's XML (hwloc's
// power8gpudistances.xml, a grid5000 node): four P100s in four PCI
// domains, two under each package, each GPU on its package's node.
func TestHostTopologyPower8(t *testing.T) {
	h := corpusAs[*HostTopology](t, "hwloc/hwloc-xml-power8-minsky-4-p100-two-packages-nvlink-grid5000.xml", KindHostTopology)
	var got []string
	for _, d := range h.Devices {
		if !d.GPU || d.RDMA != "" {
			t.Errorf("%+v: want a GPU", d)
		}
		got = append(got, d.BusID+"@"+d.NUMA)
	}
	if s := strings.Join(got, " "); s != "0002:01:00.0@0 0003:01:00.0@0 000a:01:00.0@1 000b:01:00.0@1" {
		t.Errorf("GPUs %s", s)
	}
}
