package ingest

import (
	"strconv"
	"strings"
)

// KindCollectMeta is the kind of CollectMeta.
const KindCollectMeta Kind = "collect-meta"

// CollectMeta is the meta.txt of a `rocelab collect` archive: the host, its
// kernel, when and how long the collection ran, the RDMA devices found and
// every source that could not be read.
type CollectMeta struct {
	Scoped
	artifactHead
	Host string
	// Kernel is the kernel release, "" when unknown.
	Kernel string
	// Devices is the number of RDMA devices found, -1 when not stated.
	Devices  int
	Evidence map[string]Evidence // by key: host, rdma_devices, ...
	// Missing holds one line per source that could not be read.
	Missing []Evidence
}

// Kind returns KindCollectMeta.
func (m *CollectMeta) Kind() Kind { return KindCollectMeta }

type collectMetaParser struct {
	out CollectMeta
	in  bool
}

// NewCollectMetaParser returns a parser for a collect archive's meta.txt.
func NewCollectMetaParser(src string) Parser {
	return &collectMetaParser{out: CollectMeta{artifactHead: artifactHead{src: src}, Devices: -1, Evidence: map[string]Evidence{}}}
}

// Feed implements Parser.
func (p *collectMetaParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	if strings.HasPrefix(l.Text, "# rocelab collect ") {
		p.in = true
		p.out.lines.add(l)
		return
	}
	if !p.in {
		return
	}
	key, val, ok := strings.Cut(l.Text, ": ")
	if !ok {
		p.in = false
		return
	}
	ev := At(p.out.src, l)
	switch key {
	case "host":
		p.out.Host = strings.Clone(val)
	case "kernel":
		p.out.Kernel = strings.Clone(val)
	case "rdma_devices":
		n, _, _ := strings.Cut(val, " ")
		p.out.Devices = atoiOr(n, -1)
	case "missing":
		p.out.Missing = appendCapped(p.out.Missing, ev, maxKept, new(int))
	case "started", "interval", "rdma_netdevs":
	default:
		p.in = false
		return
	}
	if len(p.out.Evidence) < 16 {
		p.out.Evidence[key] = ev
	}
	p.out.lines.add(l)
}

// Result implements Parser.
func (p *collectMetaParser) Result() Artifact {
	if p.out.lines.n == 0 || p.out.Host == "" {
		return nil
	}
	return &p.out
}

// DeviceCount formats the device count for a title.
func (m *CollectMeta) DeviceCount() string {
	if m.Devices < 0 {
		return "an unknown number of"
	}
	return strconv.Itoa(m.Devices)
}
