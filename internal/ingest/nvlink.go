package ingest

import (
	"strconv"
	"strings"
)

// KindNVLink is `nvidia-smi nvlink -s`.
const KindNVLink Kind = "nvlink-status"

// NVLinkStatus is `nvidia-smi nvlink -s`: each GPU's NVLinks and the
// speed each one runs at, or <inactive>:
//
//	GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-...)
//	         Link 0: 25.781 GB/s
//	         Link 3: <inactive>
type NVLinkStatus struct {
	Scoped
	artifactHead
	// GPUs are in input order, each with at least one link line.
	GPUs []NVLinkGPU
}

// An NVLinkGPU is one GPU's block.
type NVLinkGPU struct {
	// Name is "GPU 3", Model what follows it ("Tesla V100-SXM2-32GB").
	Name, Model string
	Links       []NVLinkState
	Evidence    Evidence
}

// An NVLinkState is one link line: its number and speed in GB/s, 0 when
// the link is inactive.
type NVLinkState struct {
	Link     int
	GBps     float64
	Inactive bool
	Evidence Evidence
}

// Active counts the GPU's active links.
func (g NVLinkGPU) Active() int {
	n := 0
	for _, l := range g.Links {
		if !l.Inactive {
			n++
		}
	}
	return n
}

// Kind returns KindNVLink.
func (s *NVLinkStatus) Kind() Kind { return KindNVLink }

// maxNVLinkGPUs and maxNVLinks bound one artifact (a GB200 NVL72 rack
// prints 72 GPUs of 18 links).
const (
	maxNVLinkGPUs = 1024
	maxNVLinks    = 64
)

type nvlinkParser struct {
	out     NVLinkStatus
	cur     *NVLinkGPU
	curLine Line // the current GPU's line, counted with its first link
}

// NewNVLinkParser returns a parser for `nvidia-smi nvlink -s` in the input
// src.
func NewNVLinkParser(src string) Parser {
	return &nvlinkParser{out: NVLinkStatus{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *nvlinkParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if rest, ok := strings.CutPrefix(t, "GPU "); ok {
		p.gpu(l, rest)
		return
	}
	rest, ok := strings.CutPrefix(t, "Link ")
	if !ok || p.cur == nil || len(p.cur.Links) >= maxNVLinks {
		return
	}
	num, val, ok := strings.Cut(rest, ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 0 {
		return
	}
	st := NVLinkState{Link: n, Evidence: At(p.out.src, l)}
	val = strings.TrimSpace(val)
	switch {
	case val == "<inactive>":
		st.Inactive = true
	case strings.HasSuffix(val, " GB/s"):
		v, err := strconv.ParseFloat(strings.TrimSuffix(val, " GB/s"), 64)
		if err != nil || v < 0 || v > 1e6 {
			return
		}
		st.GBps = v
	default:
		return
	}
	if len(p.cur.Links) == 0 {
		p.out.lines.add(p.curLine)
	}
	p.cur.Links = append(p.cur.Links, st)
	p.out.lines.add(l)
}

// gpu starts a GPU block at "GPU 3: Tesla V100-SXM2-32GB (UUID: ...)".
func (p *nvlinkParser) gpu(l Line, rest string) {
	p.finish()
	num, model, ok := strings.Cut(rest, ":")
	if _, err := strconv.Atoi(num); !ok || err != nil || len(p.out.GPUs) >= maxNVLinkGPUs {
		return
	}
	model = strings.TrimSpace(model)
	if i := strings.Index(model, " (UUID:"); i >= 0 {
		model = model[:i]
	}
	p.cur = &NVLinkGPU{Name: "GPU " + num, Model: strings.Clone(model), Evidence: At(p.out.src, l)}
	p.curLine = l
}

// finish keeps the current GPU when it listed links.
func (p *nvlinkParser) finish() {
	if p.cur != nil && len(p.cur.Links) > 0 {
		p.out.GPUs = append(p.out.GPUs, *p.cur)
	}
	p.cur = nil
}

// Result implements Parser.
func (p *nvlinkParser) Result() Artifact {
	p.finish()
	if len(p.out.GPUs) == 0 {
		return nil
	}
	return &p.out
}
