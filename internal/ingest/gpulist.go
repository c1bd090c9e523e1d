package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// KindGPUList is a listing of a host's GPUs by model: `nvidia-smi -L`,
// or `nvidia-smi --query-gpu=name,pci.bus_id,... --format=csv`.
const KindGPUList Kind = "gpu-list"

// GPUList is the GPUs a listing names, each with its model and, from the
// CSV query, its bus ID:
//
//	GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-2b416d09-...)
//
//	name, pci.bus_id, vbios_version
//	NVIDIA H100 80GB HBM3, 00000000:04:00.0, 96.00.89.00.01
//
// PyTorch's and vLLM's collect_env print the first form under "GPU
// models and configuration:".
type GPUList struct {
	Scoped
	artifactHead
	GPUs []ListedGPU
}

// A ListedGPU is one GPU of a listing.
type ListedGPU struct {
	// Index is the GPU's index, -1 when the CSV has no index column.
	Index int
	// Model is the product name as printed ("NVIDIA H100 80GB HBM3").
	Model string
	// BusID is the PCI address as printed ("00000000:04:00.0"), "" when
	// the listing has none.
	BusID string
	// Host is the host a prompt or pdsh prefix names, else "".
	Host     string
	Evidence Evidence
}

// Kind returns KindGPUList.
func (g *GPUList) Kind() Kind { return KindGPUList }

// maxListedGPUs bounds a listing (a paste of many hosts' GPUs).
const maxListedGPUs = 4096

type gpuListParser struct {
	out GPUList
	// cols are the CSV header's columns while its rows follow, else nil.
	cols []string
}

// NewGPUListParser returns a parser for GPU listings in the input src.
func NewGPUListParser(src string) Parser {
	return &gpuListParser{out: GPUList{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *gpuListParser) Feed(l Line) {
	if l.NCCL || len(p.out.GPUs) >= maxListedGPUs {
		return
	}
	t := strings.TrimSpace(l.Text)
	if rest, ok := strings.CutPrefix(t, "GPU "); ok {
		p.cols = nil
		p.listed(l, rest)
		return
	}
	if cells := csvCells(t); slices.Index(cells, "name") >= 0 && (slices.Index(cells, "pci.bus_id") >= 0 || slices.Index(cells, "index") >= 0) {
		p.cols = cells
		p.out.lines.add(l)
		return
	}
	if p.cols != nil {
		p.row(l, csvCells(t))
	}
}

// listed reads "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)" after "GPU ".
func (p *gpuListParser) listed(l Line, rest string) {
	nums, model, ok := strings.Cut(rest, ":")
	num, _, _ := strings.Cut(nums, ",") // "GPU 0,1,2,3: NVIDIA GB200"
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 0 {
		return
	}
	model, _, _ = strings.Cut(model, "(UUID")
	model = strings.TrimSpace(model)
	if !gpuModelName(model) {
		return
	}
	p.out.lines.add(l)
	p.out.GPUs = append(p.out.GPUs, ListedGPU{Index: n, Model: strings.Clone(model), Host: lineHost(l), Evidence: At(p.out.src, l)})
}

// row reads one CSV row under the header; a row of another shape ends
// the table.
func (p *gpuListParser) row(l Line, cells []string) {
	if len(cells) != len(p.cols) {
		p.cols = nil
		return
	}
	g := ListedGPU{Index: -1, Host: lineHost(l), Evidence: At(p.out.src, l)}
	for i, c := range p.cols {
		v := cells[i]
		switch c {
		case "name":
			g.Model = v
		case "pci.bus_id":
			if !isBusID(v) {
				p.cols = nil
				return
			}
			g.BusID = strings.Clone(v)
		case "index":
			n, err := strconv.Atoi(v)
			if err != nil {
				p.cols = nil
				return
			}
			g.Index = n
		}
	}
	if !gpuModelName(g.Model) {
		p.cols = nil
		return
	}
	g.Model = strings.Clone(g.Model)
	p.out.lines.add(l)
	p.out.GPUs = append(p.out.GPUs, g)
}

// csvCells splits a line of nvidia-smi's CSV into its cells, the units
// of a header cell ("memory.total [MiB]") dropped.
func csvCells(t string) []string {
	if !strings.Contains(t, ",") {
		return nil
	}
	cells := strings.Split(t, ",")
	for i, c := range cells {
		c = strings.TrimSpace(c)
		if j := strings.Index(c, " ["); j > 0 && strings.HasSuffix(c, "]") {
			c = c[:j]
		}
		cells[i] = c
	}
	return cells
}

// gpuModelName reports a product name: a few words starting with a
// letter, no value or setting ("100%", "x=1", "79.1 GB free", "True").
func gpuModelName(s string) bool {
	if s == "" || len(s) > 80 || strings.ContainsAny(s, "%=:") {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "none", "yes", "no", "n/a", "ok":
		return false
	}
	return s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z'
}

// lineHost is the host a line's prompt or pdsh prefix names.
func lineHost(l Line) string {
	if l.Origin != "" {
		return l.Origin
	}
	return l.Host
}

// Result implements Parser.
func (p *gpuListParser) Result() Artifact {
	if len(p.out.GPUs) == 0 {
		return nil
	}
	return &p.out
}
