package ingest

import (
	"strconv"
	"strings"

	"rocelab/internal/pcie"
)

// KindNVSMI is `nvidia-smi -q` (and `-q -d PCIE`) and nvidia-smi's default
// summary table.
const KindNVSMI Kind = "nvidia-smi"

// NVSMI is what nvidia-smi says of a host's GPUs: the driver and CUDA
// versions, and each GPU's model, state and PCIe link. `nvidia-smi -q`
// prints a block per GPU,
//
//	GPU 00000000:18:00.0
//	    Product Name                          : NVIDIA H100 80GB HBM3
//	    ...
//	        GPU Link Info
//	            PCIe Generation
//	                Max                       : 5
//	                Current                   : 5
//	            Link Width
//	                Max                       : 16x
//	                Current                   : 16x
//	    Performance State                     : P0
//
// and the summary table a row pair per GPU: index, name and bus id, then
// fan, temperature, performance state, power, memory and utilisation.
type NVSMI struct {
	Scoped
	artifactHead
	// Driver and CUDA are the versions the output names, "" when it does
	// not; Evidence is the line that names the driver.
	Driver, CUDA string
	Evidence     Evidence
	// GPUs are in input order.
	GPUs []NVSMIGPU
	// Garbled are the link lines whose value does not read.
	Garbled []Garble
}

// An NVSMIGPU is one GPU's block or table row.
type NVSMIGPU struct {
	// BusID is as printed ("00000000:18:00.0"), Model the product name
	// (the table cuts long ones with "..."), Host the host a prompt or a
	// pdsh prefix before the GPU named, if any.
	BusID, Model, Host string
	// Cap and Sta are the link's maximum and current generation and
	// width; -q's "Max" is already the lesser of the GPU's and the
	// host's (its "Device Max" and "Host Max"). Unset in the table.
	Cap, Sta PCIeLinkState
	// PState is the performance state ("P0", "P8"), "" when not printed.
	PState string
	// Replays is the PCIe link's "Replays Since Reset" (TLPs the link
	// layer sent again after a bad LCRC or a lost ACK), Rollovers its
	// "Replay Number Rollovers" (a TLP replayed four times over, after
	// which the link retrains); -1 when not printed. Replay is where.
	Replays, Rollovers int64
	Replay             Evidence
	// Idle is set when the GPU says it was idle: its clocks' Idle reason
	// Active, or a performance state of P8 or more (a sampled 0%
	// utilisation is not: a busy GPU's P0 or P2 shows it between kernels).
	Idle     bool
	Evidence Evidence
}

// Kind returns KindNVSMI.
func (s *NVSMI) Kind() Kind { return KindNVSMI }

// maxNVSMIGPUs bounds one artifact (an NVL72 rack's paste of every tray).
const maxNVSMIGPUs = 1024

// nvsmiSection is the -q section whose keys are read.
type nvsmiSection int

const (
	nvsmiOther nvsmiSection = iota
	nvsmiGen
	nvsmiWidth
	nvsmiClocks
)

type nvsmiParser struct {
	out NVSMI
	// nvsmiState is where the output of the current line's origin is
	// (Line.Origin: a pdsh paste interleaves its hosts' lines); states
	// holds those of the others, in the order they were first seen.
	*nvsmiState
	states []*nvsmiState
}

// nvsmiState is where one origin's output is.
type nvsmiState struct {
	origin string
	cur    *NVSMIGPU
	sec    nvsmiSection
	// log is set after -q's "NVSMI LOG" banner; table after the summary
	// table's header, row when its next row is a GPU's second.
	log, table, row bool
}

// maxNVSMIOrigins bounds the hosts whose output is followed apart; the
// lines of further hosts share the last one's state.
const maxNVSMIOrigins = 1024

// NewNVSMIParser returns a parser for nvidia-smi output in the input src.
func NewNVSMIParser(src string) Parser {
	p := &nvsmiParser{out: NVSMI{artifactHead: artifactHead{src: src}}, nvsmiState: &nvsmiState{}}
	p.states = append(p.states, p.nvsmiState)
	return p
}

// follow makes origin's state the current one.
func (p *nvsmiParser) follow(origin string) {
	if p.origin == origin {
		return
	}
	for _, st := range p.states {
		if st.origin == origin {
			p.nvsmiState = st
			return
		}
	}
	if len(p.states) < maxNVSMIOrigins {
		p.nvsmiState = &nvsmiState{origin: strings.Clone(origin)}
		p.states = append(p.states, p.nvsmiState)
	}
}

// Feed implements Parser.
func (p *nvsmiParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	p.follow(l.Origin)
	t := strings.TrimSpace(l.Text)
	switch {
	case strings.Contains(t, "NVSMI LOG"):
		p.log = true
		p.out.lines.add(l)
		return
	case strings.HasPrefix(t, "| NVIDIA-SMI ") && strings.Contains(t, "Driver Version:"):
		p.tableHeader(l, t)
		return
	case strings.HasPrefix(t, "|"):
		if p.table {
			p.tableRow(l, t)
		}
		return
	}
	if rest, ok := strings.CutPrefix(t, "GPU "); ok && isBusID(rest) {
		p.finish()
		if len(p.out.GPUs) < maxNVSMIGPUs {
			p.cur = &NVSMIGPU{BusID: strings.Clone(rest), Host: p.host(l), Replays: -1, Rollovers: -1, Evidence: At(p.out.src, l)}
			p.out.lines.add(l)
		}
		p.sec = nvsmiOther
		return
	}
	key, val, ok := strings.Cut(t, " : ")
	if !ok {
		// A section's title; its keys are read below it.
		p.sec = nvsmiOther
		switch strings.TrimSuffix(t, ":") {
		case "PCIe Generation":
			p.sec = nvsmiGen
		case "Link Width":
			p.sec = nvsmiWidth
		case "Clocks Event Reasons", "Clocks Throttle Reasons":
			p.sec = nvsmiClocks
		}
		return
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if p.cur == nil {
		if p.log {
			p.version(l, key, val)
		}
		return
	}
	p.key(l, key, val, strings.Index(l.Text, val))
}

// version reads -q's header lines.
func (p *nvsmiParser) version(l Line, key, val string) {
	switch key {
	case "Driver Version":
		p.out.Driver, p.out.Evidence = strings.Clone(val), At(p.out.src, l)
	case "CUDA Version":
		p.out.CUDA = strings.Clone(val)
	default:
		return
	}
	p.out.lines.add(l)
}

// key reads one "Key : value" line of a GPU's block; at is the value's
// byte offset in the line.
func (p *nvsmiParser) key(l Line, key, val string, at int) {
	g := p.cur
	switch {
	case key == "Product Name":
		g.Model = strings.Clone(val)
	case key == "Performance State":
		g.PState = strings.Clone(val)
		g.Idle = g.Idle || idlePState(val)
	case p.sec == nvsmiClocks && key == "Idle":
		g.Idle = g.Idle || val == "Active"
	case key == "Replays Since Reset" || key == "Replay Number Rollovers":
		if unread(val) {
			return
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			p.garble(l, at, "a count of PCIe replays")
			return
		}
		if key == "Replays Since Reset" {
			g.Replays, g.Replay = n, At(p.out.src, l)
		} else {
			g.Rollovers = n
		}
	case (p.sec == nvsmiGen || p.sec == nvsmiWidth) && (key == "Max" || key == "Current"):
		if unread(val) {
			return
		}
		st := &g.Sta
		if key == "Max" {
			st = &g.Cap
		}
		if !p.link(l, st, val, at) {
			return
		}
	default:
		return
	}
	p.out.lines.add(l)
}

// link reads a generation ("5") or a width ("16x") into st, or reports
// the line garbled.
func (p *nvsmiParser) link(l Line, st *PCIeLinkState, val string, at int) bool {
	if p.sec == nvsmiGen {
		n, err := strconv.Atoi(val)
		g, ok := pcie.Generation(n)
		if err != nil || !ok {
			p.garble(l, at, "a PCIe generation (1 to 6)")
			return false
		}
		st.GTs = g.GTs
	} else {
		n, err := strconv.Atoi(strings.TrimSuffix(val, "x"))
		if err != nil || !strings.HasSuffix(val, "x") || n < 1 || n > 32 {
			p.garble(l, at, "a link width such as 16x")
			return false
		}
		st.Width = n
	}
	if st.Evidence.Line == 0 {
		st.Evidence = At(p.out.src, l)
	}
	return true
}

func (p *nvsmiParser) garble(l Line, at int, expected string) {
	if len(p.out.Garbled) < maxGarbled {
		p.out.Garbled = append(p.out.Garbled, garbleAt(l, max(at, 0), expected))
	}
	p.out.lines.add(l)
}

// tableHeader reads "| NVIDIA-SMI 550.127.05   Driver Version: 550.127.05
// CUDA Version: 12.4 |".
func (p *nvsmiParser) tableHeader(l Line, t string) {
	p.finish()
	p.table, p.row = true, false
	f := strings.Fields(strings.Trim(t, "| "))
	for i := 0; i+2 < len(f); i++ {
		switch f[i] + " " + f[i+1] {
		case "Driver Version:":
			p.out.Driver, p.out.Evidence = strings.Clone(f[i+2]), At(p.out.src, l)
		case "CUDA Version:":
			p.out.CUDA = strings.Clone(f[i+2])
		}
	}
	p.out.lines.add(l)
}

// tableRow reads a GPU's first row ("|   0  NVIDIA A40    On  |
// 00000000:4F:00.0 Off |   0 |") and its second ("|  0%   29C    P8
// 23W /  300W | 1MiB / 46068MiB |   0%   Default |").
func (p *nvsmiParser) tableRow(l Line, t string) {
	cells := strings.Split(strings.Trim(t, "|"), "|")
	if len(cells) < 3 {
		p.row = false
		return
	}
	first := strings.Fields(cells[0])
	bus := strings.Fields(cells[1])
	if len(first) >= 2 && isDigits(first[0]) && len(bus) >= 1 && isBusID(bus[0]) {
		if len(p.out.GPUs) >= maxNVSMIGPUs {
			return
		}
		model := first[1 : len(first)-1]
		if len(first) == 2 {
			model = first[1:]
		}
		p.out.GPUs = append(p.out.GPUs, NVSMIGPU{BusID: strings.Clone(bus[0]), Model: strings.Join(model, " "), Host: p.host(l), Replays: -1, Rollovers: -1, Evidence: At(p.out.src, l)})
		p.out.lines.add(l)
		p.row = true
		return
	}
	if !p.row {
		return
	}
	p.row = false
	g := &p.out.GPUs[len(p.out.GPUs)-1]
	for _, f := range strings.Fields(cells[0]) {
		if len(f) >= 2 && f[0] == 'P' && isDigits(f[1:]) {
			g.PState = strings.Clone(f)
			g.Idle = g.Idle || idlePState(f)
			p.out.lines.add(l)
		}
	}
}

// unread reports whether a value is what nvidia-smi prints for a field it
// could not read, in words and without a digit: "N/A", "[N/A]", "Unknown
// Error", "[Not Supported]", "ERR!", "[GPU is lost]", "[GPU requires
// reset]". A value with digits that does not read is garbled.
func unread(val string) bool {
	return !strings.ContainsAny(val, "0123456789")
}

// idlePState reports whether a performance state is one a GPU drops to
// with no work: P8 and deeper.
func idlePState(s string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "P"))
	return err == nil && strings.HasPrefix(s, "P") && n >= 8
}

// isBusID reports whether s is a PCI address as nvidia-smi prints it,
// with its domain ("00000000:18:00.0", the table's "00000000:4F:00.0").
func isBusID(s string) bool {
	return strings.Count(s, ":") == 2 && isBDF(s)
}

// host names the host of a GPU named on l: a prompt's, else the pdsh
// prefix's.
func (p *nvsmiParser) host(l Line) string {
	if l.Host != "" {
		return l.Host
	}
	return p.origin
}

func (p *nvsmiParser) finish() {
	if p.cur != nil && len(p.out.GPUs) < maxNVSMIGPUs {
		p.out.GPUs = append(p.out.GPUs, *p.cur)
	}
	p.cur = nil
}

// Result implements Parser.
func (p *nvsmiParser) Result() Artifact {
	for _, st := range p.states {
		p.nvsmiState = st
		p.finish()
	}
	if len(p.out.GPUs) == 0 {
		return nil
	}
	return &p.out
}

// Parked reports whether the GPU's performance state is P8 or deeper, as
// a GPU with no work sits: its link then runs at a lower speed and, on
// some GPUs (laptops' GeForce), on fewer lanes.
func (g NVSMIGPU) Parked() bool { return idlePState(g.PState) }

// BDF is the GPU's address as lspci prints it ("0000:18:00.0").
func (g NVSMIGPU) BDF() string {
	dom, rest, _ := strings.Cut(g.BusID, ":")
	if len(dom) > 4 {
		dom = dom[len(dom)-4:]
	}
	return strings.ToLower(dom + ":" + rest)
}

// Label names the GPU: its host when named, its bus id and, when
// printed, its model.
func (g NVSMIGPU) Label() string {
	s := g.BusID
	if g.Model != "" {
		s += " " + g.Model
	}
	if g.Host != "" {
		s = g.Host + " " + s
	}
	return s
}
