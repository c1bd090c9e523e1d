package ingest

import (
	"strings"
)

// KindMST is NVIDIA MFT's `mst status -v`.
const KindMST Kind = "mst-status"

// MSTStatus is `mst status -v`: each NVIDIA (Mellanox) adapter function
// with its MST device, PCI address, RDMA device, netdev and NUMA node:
//
//	DEVICE_TYPE             MST                           PCI       RDMA            NET                       NUMA
//	ConnectX7(rev:0)        /dev/mst/mt4129_pciconf5      e5:00.0   mlx5_5          net-ibp229s0              1
//
// Rows of a paste cut short keep the columns they have.
type MSTStatus struct {
	Scoped
	artifactHead
	Devices []MSTDevice
}

// An MSTDevice is one row of the table.
type MSTDevice struct {
	// Type is the adapter as MFT names it ("ConnectX7(rev:0)").
	Type string
	// PCI is the address ("e5:00.0"), RDMA the RDMA device ("mlx5_5"),
	// Net the netdev without MFT's "net-" ("ibp229s0"); "" when the row
	// has none.
	PCI, RDMA, Net string
	// NUMA is the NUMA node, -1 when the row does not say (a VM's -1, or
	// a row cut short).
	NUMA     int
	Evidence Evidence
}

// Kind returns KindMST.
func (m *MSTStatus) Kind() Kind { return KindMST }

// maxMSTDevices bounds one table (a host with SR-IOV functions lists
// hundreds).
const maxMSTDevices = 1024

type mstParser struct {
	out MSTStatus
	// cols are the header's column names while its rows follow.
	cols []string
}

// NewMSTParser returns a parser for `mst status -v` in the input src.
func NewMSTParser(src string) Parser {
	return &mstParser{out: MSTStatus{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *mstParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	f := strings.Fields(l.Text)
	switch {
	case len(f) == 0:
		return // the blank line between rows
	case f[0] == "DEVICE_TYPE" && len(f) >= 3 && f[1] == "MST":
		p.cols = f
		p.out.lines.add(l)
		return
	case p.cols == nil:
		return
	}
	if !strings.Contains(f[0], "(rev:") || len(p.out.Devices) >= maxMSTDevices {
		p.cols = nil
		return
	}
	d := MSTDevice{Type: strings.Clone(f[0]), NUMA: -1, Evidence: At(p.out.src, l)}
	for i, c := range p.cols[:min(len(f), len(p.cols))] {
		v := f[i]
		switch c {
		case "PCI":
			if isBDF(v) {
				d.PCI = strings.Clone(strings.ToLower(v))
			}
		case "RDMA":
			if rdmaDevName(v) {
				d.RDMA = strings.Clone(v)
			}
		case "NET":
			d.Net = strings.Clone(strings.TrimPrefix(v, "net-"))
		case "NUMA":
			if isDigits(v) && len(v) < 4 {
				d.NUMA = atoiOr(v, -1)
			}
		}
	}
	p.out.lines.add(l)
	p.out.Devices = append(p.out.Devices, d)
}

// Result implements Parser.
func (p *mstParser) Result() Artifact {
	if len(p.out.Devices) == 0 {
		return nil
	}
	return &p.out
}
