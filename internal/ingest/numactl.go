package ingest

import (
	"strconv"
	"strings"
)

// KindNumactl is `numactl -H` (`numactl --hardware`).
const KindNumactl Kind = "numactl"

// Numactl is `numactl -H`: the host's NUMA nodes, their CPUs and memory,
// and the distance matrix:
//
//	available: 2 nodes (0-1)
//	node 0 cpus: 0 1 2 3
//	node 0 size: 352671 MB
//	node distances:
//	node   0   1
//	  0:  10  20
type Numactl struct {
	Scoped
	artifactHead
	// Available is the node count the first line states, 0 when absent.
	Available int
	Nodes     []NUMANode
	// Distance is the matrix: Distance[i][j] from node DistanceNodes[i]
	// to node DistanceNodes[j] (the header's node numbers); nil without
	// one.
	Distance      [][]int
	DistanceNodes []int
	Evidence      Evidence
}

// A NUMANode is one node of numactl -H.
type NUMANode struct {
	ID   int
	CPUs int // how many CPUs its cpus line lists
	// SizeMB is its memory, -1 when not printed.
	SizeMB   int
	Evidence Evidence
}

// Kind returns KindNumactl.
func (n *Numactl) Kind() Kind { return KindNumactl }

// maxNUMANodes bounds the nodes and the matrix.
const maxNUMANodes = 256

type numactlParser struct {
	out Numactl
	// cols are the distance matrix's column nodes while its rows follow.
	cols     []int
	inMatrix bool
}

// NewNumactlParser returns a parser for numactl -H in the input src.
func NewNumactlParser(src string) Parser {
	return &numactlParser{out: Numactl{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *numactlParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	f := strings.Fields(l.Text)
	switch {
	case len(f) == 0:
		p.inMatrix = false
	case f[0] == "available:" && len(f) >= 3 && f[2] == "nodes" || f[0] == "available:" && len(f) >= 3 && f[2] == "node":
		if n, err := strconv.Atoi(f[1]); err == nil && n > 0 && n <= maxNUMANodes {
			p.out.Available = n
			p.out.Evidence = At(p.out.src, l)
			p.out.lines.add(l)
		}
	case f[0] == "node" && len(f) >= 3 && isDigits(f[1]) && (f[2] == "cpus:" || f[2] == "size:" || f[2] == "free:"):
		p.nodeLine(l, f)
	case len(f) == 2 && f[0] == "node" && f[1] == "distances:":
		p.inMatrix, p.cols = true, nil
		p.out.lines.add(l)
	case p.inMatrix && f[0] == "node" && p.cols == nil:
		for _, c := range f[1:] {
			n, err := strconv.Atoi(c)
			if err != nil || len(p.cols) >= maxNUMANodes {
				p.inMatrix = false
				return
			}
			p.cols = append(p.cols, n)
		}
		p.out.DistanceNodes = p.cols
		p.out.lines.add(l)
	case p.inMatrix && p.cols != nil && (strings.HasSuffix(f[0], ":") && len(f) == len(p.cols)+1 || l.Rank() >= 0 && len(f) == len(p.cols)):
		// "  0:  10  20": the line reader takes "0:" for srun's rank
		// label and leaves the row's distances alone.
		if strings.HasSuffix(f[0], ":") {
			f = f[1:]
		}
		row := make([]int, 0, len(p.cols))
		for _, c := range f {
			n, err := strconv.Atoi(c)
			if err != nil {
				p.inMatrix = false
				return
			}
			row = append(row, n)
		}
		if len(p.out.Distance) < maxNUMANodes {
			p.out.Distance = append(p.out.Distance, row)
		}
		p.out.lines.add(l)
	default:
		p.inMatrix = false
	}
}

// nodeLine reads "node 0 cpus: 0 1 2", "node 0 size: 352671 MB" and
// "node 0 free: …".
func (p *numactlParser) nodeLine(l Line, f []string) {
	id, _ := strconv.Atoi(f[1])
	var n *NUMANode
	for i := range p.out.Nodes {
		if p.out.Nodes[i].ID == id {
			n = &p.out.Nodes[i]
		}
	}
	if n == nil {
		if len(p.out.Nodes) >= maxNUMANodes {
			return
		}
		p.out.Nodes = append(p.out.Nodes, NUMANode{ID: id, SizeMB: -1, Evidence: At(p.out.src, l)})
		n = &p.out.Nodes[len(p.out.Nodes)-1]
	}
	switch f[2] {
	case "cpus:":
		n.CPUs = len(f) - 3
		n.Evidence = At(p.out.src, l)
	case "size:":
		if len(f) >= 4 {
			n.SizeMB = atoiOr(f[3], -1)
		}
	}
	p.out.lines.add(l)
}

// Result implements Parser.
func (p *numactlParser) Result() Artifact {
	if len(p.out.Nodes) == 0 {
		return nil
	}
	return &p.out
}
