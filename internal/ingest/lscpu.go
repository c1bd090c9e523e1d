package ingest

import (
	"strconv"
	"strings"
)

// KindLscpu is `lscpu`.
const KindLscpu Kind = "lscpu"

// Lscpu is what `lscpu` says of the host that a collective feels: the
// hypervisor the CPUs run under (a VM), and the NUMA nodes with their
// CPUs:
//
//	Model name:                      Intel(R) Xeon(R) Platinum 8480+
//	Hypervisor vendor:               KVM
//	Virtualization type:             full
//	NUMA node(s):                    2
//	NUMA node0 CPU(s):               0-55,112-167
//
// PyTorch's and vLLM's collect_env print it under "CPU:".
type Lscpu struct {
	Scoped
	artifactHead
	// Hypervisor is the Hypervisor vendor ("KVM", "Microsoft", "VMware",
	// "Xen"), "" on bare metal, where lscpu prints no such line.
	Hypervisor string
	// VirtType is the Virtualization type ("full", "para", "container"),
	// "" when not printed. (The CPU's own "Virtualization: VT-x" is not
	// it.)
	VirtType  string
	Model     string
	NUMANodes int
	// NodeCPUs are the "NUMA nodeN CPU(s):" lists by node.
	NodeCPUs   map[int]string
	Hypervised Evidence
}

// Kind returns KindLscpu.
func (c *Lscpu) Kind() Kind { return KindLscpu }

type lscpuParser struct {
	out Lscpu
}

// NewLscpuParser returns a parser for lscpu in the input src.
func NewLscpuParser(src string) Parser {
	return &lscpuParser{out: Lscpu{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *lscpuParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	key, val, ok := strings.Cut(strings.TrimSpace(l.Text), ":")
	if !ok {
		return
	}
	val = strings.TrimSpace(val)
	switch key {
	case "Hypervisor vendor":
		if val == "" || len(val) > 40 {
			return
		}
		p.out.Hypervisor = strings.Clone(val)
		p.out.Hypervised = At(p.out.src, l)
	case "Virtualization type":
		p.out.VirtType = strings.Clone(val)
	case "Model name":
		p.out.Model = strings.Clone(val)
	case "NUMA node(s)":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > maxNUMANodes {
			return
		}
		p.out.NUMANodes = n
	default:
		id, isNode := strings.CutPrefix(key, "NUMA node")
		id, isCPUs := strings.CutSuffix(id, " CPU(s)")
		n, err := strconv.Atoi(id)
		if !isNode || !isCPUs || err != nil || n < 0 || n > maxNUMANodes {
			return
		}
		if p.out.NodeCPUs == nil {
			p.out.NodeCPUs = map[int]string{}
		}
		p.out.NodeCPUs[n] = strings.Clone(val)
	}
	p.out.lines.add(l)
}

// Result implements Parser.
func (p *lscpuParser) Result() Artifact {
	if p.out.Hypervisor == "" && p.out.NUMANodes == 0 && len(p.out.NodeCPUs) == 0 {
		return nil
	}
	return &p.out
}
