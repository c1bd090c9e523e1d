package ingest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/pcie"
	"rocelab/internal/unit"
)

// KindNCCLTopo is the topology XML NCCL writes with NCCL_TOPO_DUMP_FILE
// (and RCCL alike), or reads with NCCL_TOPO_FILE:
//
//	<system version="1">
//	  <cpu host_hash="0x…" numaid="0" affinity="…" arch="x86_64" vendor="GenuineIntel" …>
//	    <pci busid="0000:16:00.0" class="0x060400" … link_speed="32.0 GT/s PCIe" link_width="16">
//	      <pci busid="0000:18:00.0" class="0x030200" …>
//	        <gpu dev="0" sm="90" rank="0" gdr="1">
//	          <nvlink target="0000:07:00.0" count="5" tclass="0x068000"/>
//	        </gpu>
//	      </pci>
//	      <pci busid="0000:19:00.0" class="0x020000" …>
//	        <nic>
//	          <net name="mlx5_0" dev="0" speed="400000" port="1" … gdr="1"/>
//	        </nic>
//	      </pci>
//	    </pci>
//	  </cpu>
//	</system>
//
// It is read into a GPUTopo: each GPU's path to each NIC in nvidia-smi's
// words, worked out from where the tree puts them, plus what only the XML
// says (each NIC's PCIe link and GPUDirect RDMA support).
const KindNCCLTopo Kind = "nccl-topology"

// A TopoNIC is one <net> of a topology XML.
type TopoNIC struct {
	Name string
	// SpeedMbps is the port's speed as NCCL read it, 0 when not given.
	SpeedMbps int
	// GDR is the net's gdr attribute: 1 when the NIC can reach GPU
	// memory, 0 when not, -1 when the attribute is missing.
	GDR int
	// LinkGTs and LinkWidth are the PCIe link of the NIC's PCI device
	// (GT/s per lane, lanes); 0 when not given (a VM prints width 0).
	LinkGTs   float64
	LinkWidth int
	// RDMA is set for a verbs device (a non-zero guid, or a name such as
	// mlx5_0), unset for a netdev NCCL's socket transport lists (eth0,
	// guid 0x0).
	RDMA bool
	// PCI is the bus id of the NIC's PCI device: ports of one card share
	// it, and its link.
	PCI string
	// Numa is the numaid of the CPU the NIC hangs from, "" when the
	// excerpt shows none.
	Numa     string
	Evidence Evidence
}

// PCIeGbps is the NIC's PCIe link in Gb/s after line coding, 0 when the
// link is not known.
func (n TopoNIC) PCIeGbps() float64 {
	if n.LinkGTs <= 0 || n.LinkWidth <= 0 {
		return 0
	}
	return pcie.LaneGbpsAt(n.LinkGTs) * float64(n.LinkWidth)
}

// topoNode is one element of the XML tree.
type topoNode struct {
	name   string
	attrs  map[string]string
	parent int // index in nodes, -1 for the root
	ev     Evidence
}

type ncclTopoParser struct {
	src   string
	lines lineCount
	nodes []topoNode
	stack []int
	// system is set once <system> or a <cpu>/<pci busid> was read.
	system  bool
	gpus    int
	nets    int
	garbled []Garble
}

// maxTopoNodes bounds the tree (a 72-GPU rack dump has a few thousand).
const maxTopoNodes = 20000

// NewNCCLTopoParser returns a parser for NCCL's topology XML in src.
func NewNCCLTopoParser(src string) Parser { return &ncclTopoParser{src: src} }

// Feed implements Parser.
func (p *ncclTopoParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	s := l.Text
	seen := false
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "<!--"):
			end := strings.Index(s, "-->")
			if end < 0 {
				return
			}
			s = s[end+3:]
			continue
		case strings.HasPrefix(s, "</"):
			end := strings.IndexByte(s, '>')
			if end < 0 {
				return
			}
			if p.close(strings.TrimSpace(s[2:end])) {
				seen = true
			}
			s = s[end+1:]
			continue
		}
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return
		}
		tag := s[1:end]
		s = s[end+1:]
		self := strings.HasSuffix(tag, "/")
		tag = strings.TrimSuffix(tag, "/")
		name, rest, _ := strings.Cut(tag, " ")
		if p.open(l, name, rest, self) {
			seen = true
		}
	}
	if seen {
		p.lines.add(l)
	}
}

// topoElement reports the elements of NCCL's topology XML.
func topoElement(name string) bool {
	switch name {
	case "system", "cpu", "pci", "gpu", "nic", "net", "nvlink", "pcilink", "c2c", "nvs", "xgmi", "link", "gin":
		return true
	}
	return false
}

// open reads the start tag name with its attributes rest; self is set for
// an element closed in its tag ("<net …/>").
func (p *ncclTopoParser) open(l Line, name, rest string, self bool) bool {
	if !topoElement(name) {
		return false
	}
	attrs, ok := topoAttrs(rest)
	if !ok {
		if len(p.garbled) < maxGarbled {
			p.garbled = append(p.garbled, garbleAt(l, strings.Index(l.Text, "<"+name), `attributes key="value"`))
		}
		return false
	}
	switch name {
	case "system":
		p.system = true
	case "cpu":
		p.system = true
	case "pci":
		if attrs["busid"] == "" {
			return false
		}
		p.system = true
	case "gpu":
		p.gpus++
	case "net":
		if attrs["name"] == "" {
			return false
		}
		p.nets++
	}
	if !p.system || len(p.nodes) >= maxTopoNodes {
		return false
	}
	parent := -1
	if len(p.stack) > 0 {
		parent = p.stack[len(p.stack)-1]
	}
	p.nodes = append(p.nodes, topoNode{name: name, attrs: attrs, parent: parent, ev: At(p.src, l)})
	if !self {
		p.stack = append(p.stack, len(p.nodes)-1)
	}
	return true
}

// close pops the open element name and the ones inside it left open.
func (p *ncclTopoParser) close(name string) bool {
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.nodes[p.stack[i]].name == name {
			p.stack = p.stack[:i]
			return true
		}
	}
	return false
}

// topoAttrs reads key="value" pairs; ok is false for text that is none.
func topoAttrs(s string) (map[string]string, bool) {
	attrs := map[string]string{}
	for {
		s = strings.TrimSpace(s)
		if s == "" {
			return attrs, true
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return nil, false
		}
		key := strings.TrimSpace(s[:eq])
		end := strings.IndexByte(s[eq+2:], '"')
		if end < 0 || strings.ContainsAny(key, " \t\"") {
			return nil, false
		}
		attrs[strings.Clone(key)] = strings.Clone(s[eq+2 : eq+2+end])
		s = s[eq+2+end+1:]
	}
}

// Result implements Parser.
func (p *ncclTopoParser) Result() Artifact {
	if !p.system || p.gpus == 0 && p.nets == 0 {
		return nil
	}
	t := &GPUTopo{artifactHead: artifactHead{src: p.src, lines: p.lines}, xml: true, Garbled: p.garbled}
	t.Unclosed = len(p.stack) > 0
	var gpus, nets []int
	for i, n := range p.nodes {
		switch n.name {
		case "gpu":
			if len(gpus) < maxTopoColumns {
				gpus = append(gpus, i)
			}
		case "net":
			if len(nets) < maxTopoColumns {
				nets = append(nets, i)
			}
		}
	}
	var rdma []int
	for _, i := range nets {
		n := p.nodes[i]
		nic := TopoNIC{Name: n.attrs["name"], GDR: -1, Evidence: n.ev}
		nic.SpeedMbps, _ = strconv.Atoi(n.attrs["speed"])
		if g, err := strconv.Atoi(n.attrs["gdr"]); err == nil {
			nic.GDR = g
		}
		guid := strings.TrimLeft(strings.TrimPrefix(n.attrs["guid"], "0x"), "0")
		nic.RDMA = guid != "" || rdmaDevName(nic.Name)
		if pci := p.ancestor(i, "pci"); pci >= 0 {
			a := p.nodes[pci].attrs
			nic.PCI = a["busid"]
			nic.LinkGTs = linkGTs(a["link_speed"])
			nic.LinkWidth, _ = strconv.Atoi(a["link_width"])
		}
		if cpu := p.ancestor(i, "cpu"); cpu >= 0 {
			nic.Numa = p.nodes[cpu].attrs["numaid"]
		}
		t.NICInfo = append(t.NICInfo, nic)
		if nic.RDMA {
			t.NICs = append(t.NICs, nic.Name)
			rdma = append(rdma, i)
		}
	}
	links := map[int][]int{}
	for i, n := range p.nodes {
		if (n.name == "nvlink" || n.name == "xgmi") && n.parent >= 0 && p.nodes[n.parent].name == "gpu" {
			links[n.parent] = append(links[n.parent], i)
		}
	}
	t.VMFlat = len(gpus) > 0
	for gi, i := range gpus {
		g := TopoGPU{Name: p.gpuName(i, gi), Evidence: p.nodes[i].ev}
		c2c := slices.ContainsFunc(p.children(i), func(j int) bool { return p.nodes[j].name == "c2c" })
		for _, j := range rdma {
			g.ToNIC = append(g.ToNIC, p.nicPath(i, j, c2c))
		}
		for _, j := range gpus {
			g.ToGPU = append(g.ToGPU, p.gpuLink(i, j, links))
		}
		t.GPUs = append(t.GPUs, g)
		if p.nodes[i].attrs["gdr"] == "0" {
			t.GPUsNoGDR++
		}
		if cpu := p.ancestor(i, "cpu"); cpu < 0 || p.nodes[cpu].attrs["numaid"] != "-1" || len(p.pciChain(i)) > 1 {
			t.VMFlat = false
		}
	}
	t.HeaderGPUs = len(t.GPUs)
	return t
}

// gpuName names a GPU by its dev attribute, as nvidia-smi would.
func (p *ncclTopoParser) gpuName(i, nth int) string {
	if d := p.nodes[i].attrs["dev"]; d != "" {
		return "GPU" + d
	}
	return fmt.Sprintf("GPU%d", nth)
}

// ancestor returns the nearest ancestor of node i named name, -1 if none.
func (p *ncclTopoParser) ancestor(i int, name string) int {
	for j := p.nodes[i].parent; j >= 0; j = p.nodes[j].parent {
		if p.nodes[j].name == name {
			return j
		}
	}
	return -1
}

// pciChain lists the pci ancestors of node i, nearest first.
func (p *ncclTopoParser) pciChain(i int) []int {
	var c []int
	for j := p.nodes[i].parent; j >= 0; j = p.nodes[j].parent {
		if p.nodes[j].name == "pci" {
			c = append(c, j)
		}
	}
	return c
}

// path names how node a reaches node b in nvidia-smi's words: PIX
// through the one PCIe switch both hang from, PXB through several, PHB
// through their CPU's host bridge, SYS across CPUs.
func (p *ncclTopoParser) path(a, b int) string {
	ca, cb := p.pciChain(a), p.pciChain(b)
	// Each chain starts at the device's own pci element; the switches
	// are the elements above it.
	for ia, x := range ca {
		for ib, y := range cb {
			if x != y {
				continue
			}
			if ia <= 1 && ib <= 1 {
				return "PIX"
			}
			return "PXB"
		}
	}
	if pa, pb := p.ancestor(a, "cpu"), p.ancestor(b, "cpu"); pa != pb {
		return "SYS"
	}
	return "PHB"
}

// nicPath names how GPU g reaches net n: P2C, NCCL's name, for a GPU
// joined to its CPU by C2C (Grace; c2c is set when g holds a c2c
// element) whose NIC hangs from that CPU's host bridge, else the PCIe
// path.
func (p *ncclTopoParser) nicPath(g, n int, c2c bool) string {
	path := p.path(g, n)
	if path != "PHB" || !c2c {
		return path
	}
	return "P2C"
}

// children lists the elements directly inside node i.
func (p *ncclTopoParser) children(i int) []int {
	var c []int
	for j := i + 1; j < len(p.nodes); j++ {
		if p.nodes[j].parent == i {
			c = append(c, j)
		}
	}
	return c
}

// gpuLink names how GPU a reaches GPU b: X for itself, NV<n> over NVLink
// (to it, or through NVSwitches both reach), XGMI over AMD's Infinity
// Fabric (RCCL's xgmi elements), else the PCIe path. links holds each
// GPU's nvlink and xgmi elements.
func (p *ncclTopoParser) gpuLink(a, b int, links map[int][]int) string {
	if a == b {
		return "X"
	}
	busB := ""
	if pci := p.ancestor(b, "pci"); pci >= 0 {
		busB = p.nodes[pci].attrs["busid"]
	}
	switched := func(i int) bool { return p.nodes[i].name == "nvlink" && p.nodes[i].attrs["tclass"] == nvSwitchClass }
	bSwitched := slices.ContainsFunc(links[b], switched)
	total := 0
	for _, i := range links[a] {
		n := p.nodes[i]
		direct := busB != "" && strings.EqualFold(n.attrs["target"], busB)
		if n.name == "xgmi" && direct {
			return "XGMI"
		}
		if n.name == "nvlink" && direct || bSwitched && switched(i) {
			c, _ := strconv.Atoi(n.attrs["count"])
			total += max(c, 1)
		}
	}
	if total > 0 {
		return fmt.Sprintf("NV%d", total)
	}
	return p.path(a, b)
}

// nvSwitchClass is the PCI class NCCL gives an NVLink to an NVSwitch.
const nvSwitchClass = "0x068000"

// linkGTs reads "32.0 GT/s PCIe", "8 GT/s" or "16 GT/s" (GT/s per lane).
func linkGTs(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 || v > 256 {
		return 0
	}
	return v
}

// rdmaDevName reports an RDMA device name (mlx5_0, bnxt_re0, irdma1…),
// not a netdev a socket transport would list.
func rdmaDevName(s string) bool {
	for _, p := range []string{"mlx", "bnxt_re", "irdma", "ionic", "rocep", "roce", "ibp", "hns", "erdma", "efa", "qedr", "cxgb"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// LinkSpeeds reports the speed of each RDMA net of a topology XML, as
// NCCL read it from the port.
func (t *GPUTopo) LinkSpeeds() []LinkSpeed {
	var out []LinkSpeed
	for _, n := range t.NICInfo {
		if n.RDMA && n.SpeedMbps > 0 {
			out = append(out, LinkSpeed{Device: n.Name, Rate: unit.BitRate(n.SpeedMbps) * unit.Mbps, Evidence: n.Evidence})
		}
	}
	return out
}
