package twinfeed

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/collective"
	"rocelab/internal/pcie"
	"rocelab/internal/textout"
	"rocelab/internal/unit"
)

// A GPU server's PCIe as `lspci -vvv -nn -D` prints it: per pair of GPUs a
// PCIe switch of the GPUs' generation (upstream port on a CPU root port,
// a downstream port per device), each NIC card below the switch of the
// first GPU it serves when that GPU's path to it is PIX or PXB, else on a
// root port of its own (PHB, SYS). GPUs sit on the buses NCCL's log gives
// them (collective.BusID), so the doctor joins both. Links train at what
// the scenario configures: the GPUs at gpu_pcie, the NICs at nic_pcie and
// nic_pcie_width, below what the devices can do (the model's generation,
// x16); with acs on, the switches' downstream ports and the root ports
// redirect peer-to-peer traffic.

// A nicModel is the ConnectX a port of a line rate is on: its lspci name
// and ID, firmware and PCIe generation (all x16 cards).
type nicModel struct {
	name, id string
	part     int // ibv_devinfo vendor_part_id
	fw       string
	board    string
	gen      int
}

// nicModelFor returns the ConnectX generation that runs a port at rate:
// ConnectX-6 Dx to 200G (Gen4), ConnectX-7 to 400G (Gen5), ConnectX-8
// beyond (Gen6).
func nicModelFor(rate unit.BitRate) nicModel {
	switch {
	case rate <= 200*unit.Gbps:
		return nicModel{"MT2892 Family [ConnectX-6 Dx]", "101d", 4125, "22.43.1014", "MT_0000000359", 4}
	case rate <= 400*unit.Gbps:
		return nicModel{"MT2910 Family [ConnectX-7]", "1021", 4129, "28.43.1014", "MT_0000000838", 5}
	}
	return nicModel{"CX8 Family [ConnectX-8]", "1023", 4131, "40.43.1014", "MT_0000001093", 6}
}

// gpuNames are lspci's names of the GPU models, with -nn's IDs.
var gpuNames = map[string]string{
	"V100": "GV100GL [Tesla V100 SXM2 32GB] [10de:1db5]",
	"A100": "GA100 [A100 SXM4 80GB] [10de:20b2]",
	"H100": "GH100 [H100 SXM5 80GB] [10de:2330]",
	"B200": "GB100 [B200] [10de:2901]",
	"GB10": "GB10",
}

// switchName is the PCIe switch of a generation.
func switchName(gen int) string {
	switch {
	case gen <= 3:
		return "PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 (8.0 GT/s) Switch [10b5:8747] (rev ca)"
	case gen == 4:
		return "Broadcom / LSI PEX880xx PCIe Gen 4 Switch [1000:c010] (rev b0)"
	}
	return "Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030] (rev b0)"
}

// rootPortNames are the CPUs' root ports.
var rootPortNames = map[string]string{
	"intel": "Intel Corporation Device 347d [8086:347d] (rev 04)",
	"amd":   "Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge [1022:1483]",
	"arm":   "NVIDIA Corporation Device",
}

// pciLink is a link's generation and lanes.
type pciLink struct{ gen, width int }

func (l pciLink) speed() string {
	g, _ := pcie.Generation(min(max(l.gen, 1), 6))
	return g.Speed()
}

// pciDev is one function lspci prints.
type pciDev struct {
	bus, dev, fn int
	class, name  string
	port         string // Express port type
	cap, sta     pciLink
	// secondary and subordinate are a bridge's buses (secondary 0: not
	// a bridge); acs is set on ports with the ACS capability.
	secondary, subordinate int
	primary                int
	acs                    *bool
	driver                 string
}

func (d *pciDev) bdf() string { return fmt.Sprintf("0000:%02x:%02x.%d", d.bus, d.dev, d.fn) }

// pciServer is a server's PCIe devices and its NIC ports' addresses.
type pciServer struct {
	devs []*pciDev
	// nic maps a NIC port index to its address.
	nic map[int]string
	// what says how the server is built, for the file's header.
	what string
}

// buses hands out bus numbers, the GPUs' taken first.
type buses map[int]bool

// take returns the first free bus from hint on.
func (b buses) take(hint int) int {
	for i := 0; i < 255; i++ {
		n := 1 + (max(hint, 1)-1+i)%255
		if !b[n] {
			b[n] = true
			return n
		}
	}
	return 0xff
}

// serverPCIe lays out host h's PCIe; nil for a host that is no GPU server.
func serverPCIe(h *Host) *pciServer {
	p := h.PCIe
	if p == nil || len(p.Paths) == 0 || len(h.Devices) == 0 {
		return nil
	}
	model, gen := p.GPUs[0], p.GPUGen[0]
	if len(p.GPUs) > 1 && h.Server < len(p.GPUs) {
		model, gen = p.GPUs[h.Server], p.GPUGen[h.Server]
	}
	gpus, nics, cp := len(p.Paths), len(h.Devices), max(p.CardPorts, 1)
	gpuSta := pciLink{gen, 16}
	if p.GPULink > 0 {
		gpuSta.gen = min(gen, p.GPULink)
	}
	card := nicModelFor(h.Devices[0].Rate)
	nicSta := pciLink{min(card.gen, p.NICLink), 16}
	if p.NICLink == 0 {
		nicSta.gen = card.gen
	}
	if p.NICWidth > 0 {
		nicSta.width = p.NICWidth
	}
	s := &pciServer{nic: map[int]string{}}
	used := buses{}
	for g := 0; g < gpus; g++ {
		used[collective.BusID(g)] = true
	}
	acs := p.ACS
	rootName := rootPortNames[p.CPU]
	roots := 0
	// rootPort adds a root port on bus 0 above bus sec and its link.
	rootPort := func(sec, sub int, l pciLink) {
		roots++
		s.devs = append(s.devs, &pciDev{dev: roots, class: "PCI bridge [0604]", name: rootName + " (prog-if 00 [Normal decode])", port: "Root Port (Slot+)",
			cap: pciLink{max(gen, l.gen), 16}, sta: l, primary: 0, secondary: sec, subordinate: sub, acs: &acs, driver: "pcieport"})
	}
	swGen := gen
	nGPUs := (gpus + 1) / 2
	type sw struct {
		up, internal, ports int
		below               []*pciDev
	}
	sws := make([]*sw, nGPUs)
	for k := range sws {
		up := used.take(collective.BusID(2*k) - 6)
		sws[k] = &sw{up: up, internal: used.take(up + 1)}
	}
	// under puts an endpoint below switch k on a downstream port.
	under := func(k int, ep *pciDev) {
		w := sws[k]
		dp := &pciDev{bus: w.internal, dev: w.ports, class: "PCI bridge [0604]", name: switchName(swGen) + " (prog-if 00 [Normal decode])",
			port: "Downstream Port (Slot+)", cap: pciLink{max(swGen, ep.sta.gen), 16}, sta: ep.sta,
			primary: w.internal, secondary: ep.bus, subordinate: ep.bus, acs: &acs, driver: "pcieport"}
		w.ports++
		w.below = append(w.below, dp, ep)
	}
	gpuName := "NVIDIA Corporation " + cmp.Or(gpuNames[model], model) + " (rev a1)"
	for g := 0; g < gpus; g++ {
		under(g/2, &pciDev{bus: collective.BusID(g), class: "3D controller [0302]", name: gpuName, port: "Endpoint, MSI 00",
			cap: pciLink{gen, 16}, sta: gpuSta, driver: "nvidia"})
	}
	nicName := fmt.Sprintf("Mellanox Technologies %s [15b3:%s]", card.name, card.id)
	for c := 0; c*cp < nics; c++ {
		first := c * cp
		fg := min((first*gpus+nics-1)/nics, gpus-1)
		bus := used.take(collective.BusID(fg) + 3)
		var fns []*pciDev
		for f := 0; f < cp && first+f < nics; f++ {
			d := &pciDev{bus: bus, fn: f, class: "Ethernet controller [0200]", name: nicName, port: "Endpoint, MSI 00",
				cap: pciLink{card.gen, 16}, sta: nicSta, driver: "mlx5_core"}
			fns = append(fns, d)
			s.nic[first+f] = d.bdf()
		}
		if path := p.Paths[fg]; path == "PIX" || path == "PXB" {
			under(fg/2, fns[0])
			sws[fg/2].below = append(sws[fg/2].below, fns[1:]...)
			continue
		}
		rootPort(bus, bus, nicSta)
		s.devs = append(s.devs, fns...)
	}
	for _, w := range sws {
		sub := w.internal
		for _, d := range w.below {
			sub = max(sub, d.bus)
		}
		link := pciLink{swGen, 16}
		rootPort(w.up, sub, link)
		s.devs = append(s.devs, &pciDev{bus: w.up, class: "PCI bridge [0604]", name: switchName(swGen) + " (prog-if 00 [Normal decode])",
			port: "Upstream Port, MSI 00", cap: link, sta: link, primary: w.up, secondary: w.internal, subordinate: sub, driver: "pcieport"})
		s.devs = append(s.devs, w.below...)
	}
	slices.SortFunc(s.devs, func(a, b *pciDev) int {
		return cmp.Or(cmp.Compare(a.bus, b.bus), cmp.Compare(a.dev, b.dev), cmp.Compare(a.fn, b.fn))
	})
	family := card.name[strings.Index(card.name, "[")+1 : len(card.name)-1]
	s.what = fmt.Sprintf("%s (PCIe Gen%d x16, links at Gen%d x%d) on %s, %s (Gen%d x16, links at Gen%d x%d), GPU to NIC %s, ACS %s",
		textout.Count(int64(gpus), model, model+"s"), gen, gpuSta.gen, gpuSta.width,
		textout.Count(int64(nGPUs), fmt.Sprintf("Gen%d PCIe switch", swGen), fmt.Sprintf("Gen%d PCIe switches", swGen)),
		textout.Count(int64(nics), family+" port", family+" ports"), card.gen, nicSta.gen, nicSta.width,
		strings.Join(slices.Compact(slices.Clone(p.Paths)), "/"), map[bool]string{true: "on", false: "off"}[acs])
	return s
}

// writeLspci writes the server's devices as `lspci -vvv -nn -D` does.
func (s *pciServer) writeLspci(w io.Writer) {
	for i, d := range s.devs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s %s: %s\n", d.bdf(), d.class, d.name)
		if d.secondary > 0 {
			fmt.Fprintf(w, "\tBus: primary=%02x, secondary=%02x, subordinate=%02x, sec-latency=0\n", d.primary, d.secondary, d.subordinate)
		}
		fmt.Fprintf(w, "\tCapabilities: [68] Express (v2) %s\n", d.port)
		aspm := "ASPM L1, Exit Latency L1 <4us"
		if d.secondary == 0 {
			aspm = "ASPM not supported"
		}
		port := 0
		if strings.HasPrefix(d.port, "Downstream") || strings.HasPrefix(d.port, "Root") {
			port = d.dev
		}
		fmt.Fprintf(w, "\t\tLnkCap:\tPort #%d, Speed %s, Width x%d, %s\n", port, d.cap.speed(), d.cap.width, aspm)
		fmt.Fprintf(w, "\t\tLnkSta:\tSpeed %s%s, Width x%d%s\n", d.sta.speed(), downgraded(d.sta.gen < d.cap.gen), d.sta.width, downgraded(d.sta.width < d.cap.width))
		if d.acs != nil {
			on := "-"
			if *d.acs {
				on = "+"
			}
			fmt.Fprintf(w, "\tCapabilities: [220 v1] Access Control Services\n")
			fmt.Fprintf(w, "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+\n")
			fmt.Fprintf(w, "\t\tACSCtl:\tSrcValid%s TransBlk- ReqRedir%s CmpltRedir%s UpstreamFwd%s EgressCtrl- DirectTrans-\n", on, on, on, on)
		}
		fmt.Fprintf(w, "\tKernel driver in use: %s\n", d.driver)
	}
}

func downgraded(b bool) string {
	if b {
		return " (downgraded)"
	}
	return ""
}

// nicIndex is a server NIC's index from its RDMA device name (mlx5_3: 3).
func nicIndex(d *Device) int {
	i := strings.LastIndexByte(d.Name, '_')
	n, err := strconv.Atoi(d.Name[i+1:])
	if err != nil {
		return -1
	}
	return n
}
