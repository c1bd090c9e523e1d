package ingest

import (
	"math/bits"
	"strconv"
	"strings"
)

// KindHostTopology is hwloc's view of a host: `lstopo` /
// `lstopo-no-graphics` text, or its XML (`lstopo --of xml`).
const KindHostTopology Kind = "host-topology"

// HostTopology is the PCI devices hwloc places under each NUMA node: the
// GPUs and the NICs (with their RDMA device and netdev), each with the
// node of the CPU package or group it hangs from.
//
//	Package L#1 (P#1 total=64GiB)
//	  NUMANode L#1 (P#1 local=64GiB total=64GiB)
//	  HostBridge L#2
//	    PCI L#4 (busid=0000:81:00.0 id=15b3:1017 class=0200(Ethernet) ...)
//	      OSDev[OpenFabrics,Network] L#5 (...) "mlx5_0"
//
// In the XML, <object type="PCIDev" pci_busid=… pci_type="0302 …"> under
// an object whose nodeset holds one node.
type HostTopology struct {
	Scoped
	artifactHead
	Devices []TopoDevice
}

// A TopoDevice is one GPU or network PCI device of the topology.
type TopoDevice struct {
	BusID string // "0000:81:00.0", or as lstopo's short form prints it
	// GPU is set for a display or 3D controller (class 03xx) or a device
	// with a CUDA, NVML or OpenCL child.
	GPU bool
	// RDMA and Net are the OpenFabrics and network children's names.
	RDMA, Net string
	// NUMA is the node of the package or group the device hangs from, ""
	// when that holds several nodes or none.
	NUMA     string
	Evidence Evidence
}

// Kind returns KindHostTopology.
func (h *HostTopology) Kind() Kind { return KindHostTopology }

// DeviceName names a device by its RDMA device, else its bus ID.
func (h *HostTopology) DeviceName(d TopoDevice) string {
	switch {
	case d.RDMA != "":
		return d.RDMA
	case d.GPU:
		return "GPU " + d.BusID
	}
	return d.BusID
}

const (
	maxTopoDevices = 4096
	maxTopoDepth   = 64
)

// A topoFrame is one open object: a container (package, group, machine)
// and the NUMA node found directly in it, or a PCI device.
type topoFrame struct {
	indent int    // text: the line's indentation
	node   string // the single NUMA node of a container, "" for none yet
	nodes  int    // NUMA nodes seen in the container
	dev    int    // index into Devices of a PCI device, -1 otherwise
}

type hostTopoParser struct {
	out   HostTopology
	stack []topoFrame
	xml   bool
}

// NewHostTopoParser returns a parser for lstopo's text and XML in the
// input src.
func NewHostTopoParser(src string) Parser {
	return &hostTopoParser{out: HostTopology{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *hostTopoParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if strings.HasPrefix(t, "<topology") || strings.HasPrefix(t, "<object ") || t == "</object>" {
		p.xmlLine(l, t)
		return
	}
	if !p.xml {
		p.textLine(l, t)
	}
}

// xmlLine reads one line of hwloc's XML: an object opening (or whole,
// with "/>") or closing.
func (p *hostTopoParser) xmlLine(l Line, t string) {
	p.xml = true
	switch {
	case t == "</object>":
		if len(p.stack) > 0 {
			p.stack = p.stack[:len(p.stack)-1]
		}
		return
	case !strings.HasPrefix(t, "<object "):
		return
	}
	typ := xmlAttr(t, "type")
	f := topoFrame{dev: -1}
	switch typ {
	case "PCIDev":
		cls := xmlAttr(t, "pci_type")
		bus := xmlAttr(t, "pci_busid")
		if isBDF(bus) && (strings.HasPrefix(cls, "03") || strings.HasPrefix(cls, "02")) {
			f.dev = p.device(l, strings.ToLower(bus), strings.HasPrefix(cls, "03"))
		}
	case "OSDev":
		p.osdev(xmlAttr(t, "name"), xmlAttr(t, "osdev_type") == "3")
	default:
		if ns := xmlAttr(t, "nodeset"); ns != "" {
			f.node = singleNode(ns)
			f.nodes = 1
		}
	}
	p.out.lines.add(l)
	if !strings.HasSuffix(t, "/>") && len(p.stack) < maxTopoDepth {
		p.stack = append(p.stack, f)
	}
}

// textLine reads one line of lstopo's text: objects nest by indentation.
func (p *hostTopoParser) textLine(l Line, t string) {
	if t == "" {
		return
	}
	indent := len(l.Text) - len(strings.TrimLeft(l.Text, " "))
	word, rest, _ := strings.Cut(t, " ")
	for len(p.stack) > 0 && p.stack[len(p.stack)-1].indent >= indent {
		p.stack = p.stack[:len(p.stack)-1]
	}
	f := topoFrame{indent: indent, dev: -1}
	switch {
	case word == "Machine" || word == "Package" || word == "Die" || strings.HasPrefix(word, "Group"):
		if len(p.stack) == 0 && word != "Machine" && !strings.Contains(rest, "L#") {
			return
		}
	case word == "NUMANode":
		if n, ok := pIndex(rest); ok && len(p.stack) > 0 {
			c := &p.stack[len(p.stack)-1]
			c.nodes++
			c.node = n
			p.out.lines.add(l)
		}
		return
	case word == "PCI" && len(p.stack) > 0:
		bus, gpu, ok := lstopoPCI(rest)
		if !ok {
			return
		}
		f.dev = p.device(l, bus, gpu)
	case strings.HasPrefix(word, "OSDev") || word == "OpenFabrics" || word == "Net" || strings.HasPrefix(word, "CoProc") || strings.HasPrefix(word, "GPU"):
		name := rest
		if i := strings.LastIndexByte(rest, '"'); i > 0 {
			if j := strings.LastIndexByte(rest[:i], '"'); j >= 0 {
				name = rest[j+1 : i]
			}
		}
		p.osdev(name, word == "OpenFabrics" || strings.Contains(word, "OpenFabrics"))
		p.out.lines.add(l)
		return
	case len(p.stack) == 0:
		return
	}
	p.out.lines.add(l)
	if len(p.stack) < maxTopoDepth {
		p.stack = append(p.stack, f)
	}
}

// lstopoPCI reads what follows "PCI": hwloc 2's "L#3 (busid=0000:81:00.0
// id=15b3:1017 class=0200(Ethernet) …)" or short "81:00.0 (Ethernet)".
func lstopoPCI(rest string) (bus string, gpu, ok bool) {
	f := strings.Fields(rest)
	if len(f) == 0 {
		return "", false, false
	}
	switch {
	case isBDF(f[0]):
		bus = f[0]
	default:
		i := strings.Index(rest, "busid=")
		if i < 0 {
			return "", false, false
		}
		bus, _, _ = strings.Cut(rest[i+len("busid="):], " ")
		if !isBDF(bus) {
			return "", false, false
		}
	}
	gpu = strings.Contains(rest, "(3D)") || strings.Contains(rest, "(VGA)") || strings.Contains(rest, "class=03")
	net := strings.Contains(rest, "(Ethernet)") || strings.Contains(rest, "(InfiniBand)") || strings.Contains(rest, "(Network)") || strings.Contains(rest, "class=02")
	return strings.ToLower(bus), gpu, gpu || net
}

// pIndex reads a NUMANode's OS index from "L#1 (P#1 local=…)".
func pIndex(rest string) (string, bool) {
	i := strings.Index(rest, "P#")
	if i < 0 {
		return "", false
	}
	n := rest[i+2:]
	end := strings.IndexFunc(n, func(r rune) bool { return r < '0' || r > '9' })
	if end >= 0 {
		n = n[:end]
	}
	return n, n != "" && len(n) < 4
}

// device adds the PCI device on bus under the open containers.
func (p *hostTopoParser) device(l Line, bus string, gpu bool) int {
	if len(p.out.Devices) >= maxTopoDevices {
		return -1
	}
	d := TopoDevice{BusID: strings.Clone(bus), GPU: gpu, Evidence: At(p.out.src, l)}
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.stack[i].dev < 0 && p.stack[i].nodes > 0 {
			if p.stack[i].nodes == 1 {
				d.NUMA = p.stack[i].node
			}
			break
		}
	}
	p.out.Devices = append(p.out.Devices, d)
	return len(p.out.Devices) - 1
}

// osdev names the open PCI device's RDMA device, netdev or compute
// device by a child object.
func (p *hostTopoParser) osdev(name string, rdma bool) {
	if len(p.stack) == 0 || p.stack[len(p.stack)-1].dev < 0 || name == "" {
		return
	}
	d := &p.out.Devices[p.stack[len(p.stack)-1].dev]
	switch {
	case rdma || rdmaDevName(name):
		d.RDMA = strings.Clone(name)
	case strings.HasPrefix(name, "cuda") || strings.HasPrefix(name, "nvml") || strings.HasPrefix(name, "opencl") || strings.HasPrefix(name, "rsmi"):
		d.GPU = true
	case d.Net == "" && isIdentName(name):
		d.Net = strings.Clone(name)
	}
}

// xmlAttr returns the value of attribute key in an XML tag, "" when absent.
func xmlAttr(t, key string) string {
	i := strings.Index(t, " "+key+"=\"")
	if i < 0 {
		return ""
	}
	v := t[i+len(key)+3:]
	end := strings.IndexByte(v, '"')
	if end < 0 {
		return ""
	}
	return v[:end]
}

// singleNode reads an hwloc bitmap ("0x00000002", "0x00000001,0x0") and
// returns its one set bit's index, "" when it has none or several.
func singleNode(ns string) string {
	groups := strings.Split(ns, ",")
	node, found := -1, false
	for i, g := range groups {
		v, err := strconv.ParseUint(strings.TrimPrefix(g, "0x"), 16, 32)
		if err != nil {
			return ""
		}
		if v == 0 {
			continue
		}
		if found || bits.OnesCount64(v) != 1 {
			return ""
		}
		node, found = (len(groups)-1-i)*32+bits.TrailingZeros64(v), true
	}
	if !found {
		return ""
	}
	return strconv.Itoa(node)
}

// Result implements Parser.
func (p *hostTopoParser) Result() Artifact {
	if len(p.out.Devices) == 0 {
		return nil
	}
	return &p.out
}
