package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// KindGPUTopo is `nvidia-smi topo -m`.
const KindGPUTopo Kind = "gpu-topology"

// GPUTopo is `nvidia-smi topo -m`: how each GPU reaches each other GPU
// and each NIC, as a matrix, and the legend that names the NICs:
//
//	        GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity
//	GPU0     X      NV4     NODE    PIX     64-71           1
//	GPU1    NV4      X      SYS     NODE    64-71           1
//	NIC0    NODE    SYS      X      NODE
//	...
//	NIC Legend:
//	  NIC0: mlx5_0
//
// Older versions name the NICs in the header (mlx5_0) instead of NIC0.
//
// `rocm-smi --showtopo` is read too, from its "Link Type between two GPUs"
// matrix (0 on the diagonal, XGMI or PCIE): its GPUs have links to one
// another and none to a NIC.
type GPUTopo struct {
	Scoped
	artifactHead
	// GPUs are the GPU rows in input order.
	GPUs []TopoGPU
	// NICs are the NIC columns, named as the legend names them (for the
	// XML, its RDMA nets).
	NICs []string
	// HeaderGPUs is how many GPU columns the header names: more than
	// len(GPUs) when the paste ends before the last GPU row.
	HeaderGPUs int
	// Headerless is set for rows pasted without their header line: the
	// columns were worked out from the rows and the NICs named by
	// position (NIC0, NIC1…).
	Headerless bool
	// Garbled are the cells of matrix rows that are no link type (a
	// paste that lost a tab, an edit); the row is kept with "?" there.
	Garbled []Garble
	// xml is set for NCCL's topology XML, whose paths are worked out
	// from its tree. NICInfo then holds each NIC's PCIe link and
	// GPUDirect RDMA support, every net of the XML; Unclosed is set when
	// the XML ends inside an element (a cut paste); VMFlat when every GPU
	// hangs straight from a CPU of unknown NUMA node (numaid -1), as a
	// VM's passthrough devices do.
	xml      bool
	NICInfo  []TopoNIC
	Unclosed bool
	VMFlat   bool
	// GPUsNoGDR counts the XML's GPUs with gdr="0": CUDA says the GPU
	// cannot do GPUDirect RDMA (a GeForce card, an integrated GPU), so
	// NCCL stages its network traffic through host memory whatever the
	// NIC.
	GPUsNoGDR int
	// Models are the GPU models that lines of the same input name, each
	// once: `nvidia-smi -L` ("GPU 0: NVIDIA GH200 480GB (UUID: …)") or the
	// environment dumps of sglang and vLLM ("GPU 0,1,2,3: NVIDIA GB200").
	Models []string
}

// maxTopoModels bounds GPUTopo.Models.
const maxTopoModels = 8

// A TopoGPU is one GPU row: its link to each NIC column (X, PIX, PXB,
// PHB, NODE, SYS; from NCCL's XML also P2C, a GPU joined to its CPU by
// C2C with the NIC on that CPU's host bridge), in the order of
// GPUTopo.NICs.
type TopoGPU struct {
	Name  string
	ToNIC []string
	// ToGPU is its link to each GPU column (X for itself, NV18, SYS…).
	ToGPU []string
	// MemNUMA is the GPU NUMA ID column when it holds a number: the GPU's
	// memory is onlined as a NUMA node of the CPU, which nvidia-smi
	// prints for a GPU coherently attached to its CPU (NVLink-C2C on
	// Grace), N/A for a PCIe GPU.
	MemNUMA string
	// NUMA is the NUMA Affinity column when it holds a number: the node
	// of the CPUs nearest the GPU.
	NUMA     string
	Evidence Evidence
}

// Kind returns KindGPUTopo, or KindNCCLTopo for NCCL's topology XML.
func (t *GPUTopo) Kind() Kind {
	if t.xml {
		return KindNCCLTopo
	}
	return KindGPUTopo
}

// maxTopoColumns bounds the matrix (a DGX prints 8 GPUs and up to 18 NICs).
const maxTopoColumns = 128

type gpuTopoParser struct {
	out    GPUTopo
	cols   []string // device columns of the current header
	nicCol []int    // indexes into cols of the NIC columns
	gpuCol []int    // indexes into cols of the GPU columns
	legend map[string]string
	// amdLinks is set inside rocm-smi's "Link Type between two GPUs"
	// section, whose cells are 0, XGMI and PCIE.
	amdLinks bool
	// numaID is set when the header ends in "GPU NUMA ID", numaAff when
	// it has a NUMA Affinity column.
	numaID, numaAff bool
	// bare are GPU rows met before any header (a paste that starts at
	// GPU0's row), read once the input ends if no header came.
	bare []Line
}

// NewGPUTopoParser returns a parser for `nvidia-smi topo -m` in the input
// src.
func NewGPUTopoParser(src string) Parser {
	return &gpuTopoParser{out: GPUTopo{artifactHead: artifactHead{src: src}}, legend: map[string]string{}}
}

// topoLink reports a cell of the matrix.
func topoLink(s string) bool {
	switch s {
	case "X", "SYS", "NODE", "PHB", "PXB", "PIX", "PSB", "SOC":
		return true
	}
	return strings.HasPrefix(s, "NV") && len(s) > 2 && s[2] >= '0' && s[2] <= '9'
}

// splitGlued splits the cells among the first n fields of a row that are
// two link types run together ("NODENODE": a paste turned the tab between
// them into nothing), so that the cells after them stay in their columns.
// It returns f itself when no cell is glued.
func splitGlued(f []string, n int) []string {
	return splitFields(f, func(i int, c string) (string, string, bool) {
		if i == 0 || i >= n || topoLink(c) {
			return "", "", false
		}
		return cutGlued(c)
	})
}

// splitFields replaces each field that cut splits with its two halves. It
// returns f itself when cut splits none.
func splitFields(f []string, cut func(i int, c string) (string, string, bool)) []string {
	var out []string
	for i, c := range f {
		a, b, glued := cut(i, c)
		switch {
		case glued:
			if out == nil {
				out = append(make([]string, 0, len(f)+1), f[:i]...)
			}
			out = append(out, a, b)
		case out != nil:
			out = append(out, c)
		}
	}
	if out == nil {
		return f
	}
	return out
}

// cutGlued splits a cell that is two link types run together.
func cutGlued(c string) (string, string, bool) {
	for j := 1; j < len(c); j++ {
		if topoLink(c[:j]) && topoLink(c[j:]) {
			return c[:j], c[j:], true
		}
	}
	return "", "", false
}

// splitGluedNames splits the header fields that are two numbered device
// names run together ("NIC11NIC12", "GPU7NIC0").
func splitGluedNames(f []string) []string {
	return splitFields(f, func(_ int, c string) (string, string, bool) { return cutGluedName(c) })
}

// cutGluedName splits "NIC11NIC12" into "NIC11" and "NIC12": a GPU or NIC
// name with its number, then another.
func cutGluedName(c string) (string, string, bool) {
	numbered := func(s string) bool {
		for _, pre := range []string{"GPU", "NIC"} {
			if n, ok := strings.CutPrefix(s, pre); ok && isDigits(n) {
				return true
			}
		}
		return false
	}
	for j := 4; j < len(c); j++ {
		if numbered(c[:j]) && numbered(c[j:]) {
			return c[:j], c[j:], true
		}
	}
	return "", "", false
}

// amdTopoLink reports a cell of rocm-smi's link-type matrix.
func amdTopoLink(s string) bool { return s == "0" || s == "XGMI" || s == "PCIE" }

// topoNIC reports a column that is a NIC: NIC0, or an RDMA device name the
// older versions print (mlx5_0).
func topoNIC(s string) bool {
	return strings.HasPrefix(s, "NIC") && len(s) > 3 || rdmaDevName(s)
}

// Feed implements Parser.
func (p *gpuTopoParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	f := strings.Fields(l.Text)
	if len(f) == 0 {
		return
	}
	if strings.HasPrefix(f[0], "===") {
		p.amdLinks = strings.Contains(l.Text, "Link Type between two GPUs")
		if p.amdLinks {
			p.out.lines.add(l)
		}
		return
	}
	if f[0] == "GPU" && len(f) > 2 && strings.HasSuffix(f[1], ":") {
		p.model(l.Text, f[1])
		return
	}
	if f[0] == "GPU0" && len(f) > 1 && (f[1] == "GPU1" || topoNIC(f[1]) || f[1] == "CPU") {
		p.header(f)
		p.numaID = strings.HasSuffix(strings.TrimSpace(l.Text), "GPU NUMA ID")
		p.numaAff = strings.Contains(l.Text, "NUMA Affinity")
		p.out.lines.add(l)
		return
	}
	if len(f) == 2 && strings.HasPrefix(f[0], "NIC") && strings.HasSuffix(f[0], ":") && isIdentName(f[1]) {
		p.legend[strings.TrimSuffix(f[0], ":")] = f[1]
		p.out.lines.add(l)
		return
	}
	if len(p.cols) == 0 {
		if len(p.bare) < maxTopoColumns && len(f) > 2 && gpuName(f[0]) && topoLink(f[1]) {
			l.Text = strings.Clone(l.Text)
			p.bare = append(p.bare, l)
		}
		return
	}
	p.row(l, f)
}

// row reads a matrix row under the current header.
func (p *gpuTopoParser) row(l Line, f []string) {
	f = splitGlued(f, len(p.cols)+1)
	if len(f) < len(p.cols)+1 {
		return
	}
	var bad []int
	for i, c := range f[1 : len(p.cols)+1] {
		if !topoLink(c) && !(p.amdLinks && amdTopoLink(c)) {
			bad = append(bad, i)
		}
	}
	// A row named as a column of the header, with most of its cells
	// links, is the matrix's own row with cells garbled in transit.
	if len(bad) > 0 && (4*len(bad) > len(p.cols) || !slices.Contains(p.cols, f[0])) {
		return
	}
	for _, i := range bad {
		p.garbleCell(l, f, i+1)
		f[i+1] = "?"
	}
	p.out.lines.add(l)
	if !strings.HasPrefix(f[0], "GPU") || len(p.out.GPUs) >= maxTopoColumns {
		return
	}
	g := TopoGPU{Name: strings.Clone(f[0]), Evidence: At(p.out.src, l)}
	for _, i := range p.nicCol {
		g.ToNIC = append(g.ToNIC, strings.Clone(f[1+i]))
	}
	for _, i := range p.gpuCol {
		link := f[1+i]
		if p.amdLinks && link == "0" {
			link = "X" // rocm-smi's diagonal
		}
		g.ToGPU = append(g.ToGPU, strings.Clone(link))
	}
	// The row ends in CPU Affinity, NUMA Affinity and GPU NUMA ID.
	if last := f[len(f)-1]; p.numaID && len(f) == len(p.cols)+4 && isDigits(last) {
		g.MemNUMA = strings.Clone(last)
	}
	// CPU Affinity is one field ("0-47,96-143"), NUMA Affinity the next.
	if at := len(p.cols) + 2; p.numaAff && len(f) > at && isDigits(f[at]) && len(f[at]) < 4 {
		g.NUMA = strings.Clone(f[at])
	}
	p.out.GPUs = append(p.out.GPUs, g)
}

// model records the GPU model of a "GPU 0: NVIDIA GH200 480GB (UUID: …)"
// or "GPU 0,1,2,3: NVIDIA GB200" line; ids is the field before the model.
// It is context for the matrix, not a line of it, so it is not counted.
func (p *gpuTopoParser) model(text, ids string) {
	if !isDigits(strings.ReplaceAll(strings.TrimSuffix(ids, ":"), ",", "")) || len(p.out.Models) >= maxTopoModels {
		return
	}
	_, m, _ := strings.Cut(text, ids)
	m, _, _ = strings.Cut(m, "(UUID")
	if m = strings.TrimSpace(m); m != "" && !slices.Contains(p.out.Models, m) {
		p.out.Models = append(p.out.Models, strings.Clone(m))
	}
}

// garbleCell records the cell f[i] of row l as no link type.
func (p *gpuTopoParser) garbleCell(l Line, f []string, i int) {
	if len(p.out.Garbled) >= maxGarbled {
		return
	}
	p.out.Garbled = append(p.out.Garbled, garbleAt(l, fieldOffset(l.Text, f, i), "a link type (X, NV#, PIX, PXB, PHB, NODE, SYS)"))
}

// header reads the column names up to "CPU Affinity". A name that is two
// device names run together ("NIC11NIC12", where a paste lost the tab
// between them) is both columns.
func (p *gpuTopoParser) header(f []string) {
	p.cols, p.nicCol, p.gpuCol = nil, nil, nil
	p.out.GPUs, p.out.NICs, p.out.HeaderGPUs = nil, nil, 0
	for _, c := range splitGluedNames(f) {
		if c == "CPU" || c == "NUMA" || len(p.cols) >= maxTopoColumns {
			break
		}
		if topoNIC(c) {
			p.nicCol = append(p.nicCol, len(p.cols))
			p.out.NICs = append(p.out.NICs, strings.Clone(c))
		} else if strings.HasPrefix(c, "GPU") {
			p.gpuCol = append(p.gpuCol, len(p.cols))
			p.out.HeaderGPUs++
		}
		p.cols = append(p.cols, c)
	}
}

// gpuName reports a GPU row or column name: GPU and its number.
func gpuName(s string) bool {
	n, ok := strings.CutPrefix(s, "GPU")
	return ok && isDigits(n)
}

// headerless reads the GPU rows of a matrix pasted without its header
// line. The columns are worked out from the rows: GPU<i>'s row has X in
// its own column and NV<n> only towards other GPUs, so the GPU columns
// run at least to the last column where a row has X or NVLink, and the
// link cells after the GPU columns are NICs, named NIC0, NIC1… by
// position as nvidia-smi names them (the legend, when the paste has it,
// then names their devices). Where the paste has the NIC legend, its
// NICs are the last columns. Without it, a matrix with no NVLink cell
// says nothing of where its GPU columns end: PIX to SYS are links of GPU
// pairs and of GPU-NIC pairs alike, and a paste cut after GPU3's row of
// a PCIe server of 8 GPUs would read GPU4-GPU7 as NICs; it is not read.
// Rows must hold as many link cells each and X in their own column, and
// the legend must leave room for the GPUs the rows show; otherwise
// nothing is read.
func (p *gpuTopoParser) headerless() {
	cells, gpus, nvlink := -1, 0, false
	for _, l := range p.bare {
		f := strings.Fields(l.Text)
		n := 0
		for n+1 < len(f) && topoLink(f[n+1]) {
			n++
		}
		i, _ := strconv.Atoi(strings.TrimPrefix(f[0], "GPU"))
		if cells >= 0 && n != cells || i >= n || f[i+1] != "X" {
			return
		}
		cells = n
		for j, c := range f[1 : n+1] {
			nv := strings.HasPrefix(c, "NV")
			if c == "X" || nv {
				gpus = max(gpus, j+1)
			}
			nvlink = nvlink || nv
		}
	}
	if nics := p.legendNICs(); nics > 0 {
		if cells-nics < gpus {
			return
		}
		gpus = cells - nics
	} else if !nvlink {
		return
	}
	var head []string
	for j := range cells {
		if j < gpus {
			head = append(head, "GPU"+strconv.Itoa(j))
		} else {
			head = append(head, "NIC"+strconv.Itoa(j-gpus))
		}
	}
	p.header(head)
	p.numaID, p.numaAff, p.out.Headerless = true, true, true
	for _, l := range p.bare {
		p.row(l, strings.Fields(l.Text))
	}
}

// legendNICs is how many NICs the NIC legend names (NIC0 to the highest
// it lists), 0 without a legend.
func (p *gpuTopoParser) legendNICs() int {
	n := 0
	for k := range p.legend {
		if i, err := strconv.Atoi(strings.TrimPrefix(k, "NIC")); err == nil && i < maxTopoColumns {
			n = max(n, i+1)
		}
	}
	return n
}

// Result implements Parser.
func (p *gpuTopoParser) Result() Artifact {
	if len(p.cols) == 0 && len(p.bare) > 0 {
		p.headerless()
	}
	if len(p.out.GPUs) == 0 {
		return nil
	}
	for i, n := range p.out.NICs {
		if name, ok := p.legend[n]; ok {
			p.out.NICs[i] = name
		}
	}
	return &p.out
}
