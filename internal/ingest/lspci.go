package ingest

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/pcie"
	"rocelab/internal/unit"
)

// KindLspci is `lspci -vvv` (also -vv, -vvvxxx, -nn, -D, -s BUS) and the
// lines people grep out of it (LnkCap/LnkSta, ACSCtl).
const KindLspci Kind = "lspci"

// Lspci is what `lspci -vvv` says about the PCIe devices that carry
// collective traffic: each device's class, its link's capability against
// its state, and the Access Control Services of bridges:
//
//	0000:b3:00.0 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]
//		Capabilities: [60] Express (v2) Endpoint, MSI 00
//			LnkCap:	Port #0, Speed 16GT/s, Width x16, ASPM not supported
//			LnkSta:	Speed 8GT/s (downgraded), Width x8 (downgraded)
//		Capabilities: [2a0 v1] Access Control Services
//			ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
//
// Lines grepped out of it without their device headers make devices of
// their own, with no address.
type Lspci struct {
	Scoped
	artifactHead
	// Devices are the devices in input order.
	Devices []PCIDevice
	// Garbled are the lines that began as lspci prints a link or ACS
	// line but did not go on as it does.
	Garbled []Garble
	// Whole is set when the input echoes lspci commands and none picks
	// devices (-s, -d): the listing is every device of the host.
	Whole bool
	// picked is set once an echoed lspci command had -s or -d.
	picked bool
}

// A Garble is an input line a parser took for its format and could not
// read: where, and what was expected there.
type Garble struct {
	// Line and Col are 1-based; Col counts in the line as written, with
	// the prefixes that did not reach Text.
	Line, Col int
	Text      string
	Expected  string
	// skipped is how many bytes of the line as written precede Text.
	skipped int
}

// garbleAt is the garble of line l at byte i of its text.
func garbleAt(l Line, i int, expected string) Garble {
	return Garble{Line: l.Num, Col: l.Col(i), Text: strings.Clone(l.Text), Expected: expected, skipped: l.col}
}

// Error formats the garble as "file:line:col: expected ..., got ...".
func (g Garble) Error(file string) string {
	got := g.Text
	if at := g.Col - 1 - g.skipped; at >= 0 && at < len(got) {
		got = got[at:]
	}
	return fmt.Sprintf("%s:%d:%d: expected %s, got %q", file, g.Line, g.Col, g.Expected, got)
}

// PCI device roles, from the class and name lspci prints.
const (
	RoleOther  = ""
	RoleNIC    = "NIC"    // Ethernet, InfiniBand or network controller
	RoleGPU    = "GPU"    // 3D or VGA controller, processing accelerator
	RoleSwitch = "switch" // a PCIe switch port (PLX, Broadcom, Microsemi, ...)
	RoleRoot   = "root port"
)

// A PCIDevice is one device block of lspci -vvv.
type PCIDevice struct {
	// BDF is the address as printed ("0000:b3:00.0" or "b3:00.0"), ""
	// for grepped lines without a header.
	BDF string
	// Class is the class name ("Ethernet controller", "PCI bridge").
	Class string
	// Name is the vendor and device as printed, -nn's IDs included, up to
	// the revision.
	Name string
	// Role is what the device is to a collective (RoleNIC, RoleGPU, ...).
	Role string
	// Port is the PCI Express port type ("Endpoint", "Downstream Port",
	// "Root Port", ...), "" when the input does not say.
	Port string
	// Cap and Sta are the link's capability and negotiated state.
	Cap, Sta PCIeLinkState
	// ACS is the ACS control register, when printed; ACSCap the ACS
	// capability register (the controls the port has), in the same shape.
	ACS, ACSCap *ACSControl
	// ACSOffset is the ACS capability's offset in configuration space
	// ("2a0"), "" when not printed.
	ACSOffset string
	// Secondary is a bridge's secondary bus ("17"), the bus of the
	// devices right below it; "" for other devices.
	Secondary string
	// Host is the host a shell prompt before the device named, if any.
	Host string
	// NUMA is the node lspci's "NUMA node:" line names, "" when none;
	// NUMAEvidence is that line.
	NUMA         string
	NUMAEvidence Evidence
	// ATS is the ATS control register (ATSCtl), when printed.
	ATS *ATSControl
	// RDMADevice is set when the input named the device by its RDMA
	// device (sysfs's /sys/class/infiniband/<dev>/device).
	RDMADevice bool
	// Slot is the slot status a root or downstream port with a slot
	// prints (SltSta), nil when not printed; SlotPower what its SltCap
	// and SltCtl say of the slot's power, nil when not printed.
	Slot      *SlotStatus
	SlotPower *SlotPower
	// Denied is set when lspci printed "Capabilities: <access denied>"
	// (run without root): the link and ACS lines are not in the input.
	Denied   bool
	Evidence Evidence
	// ids are the vendor and device IDs sysfs's files gave, and whether
	// they named the device.
	ids pciIDs
}

// pciIDs are a device's vendor and device IDs as sysfs prints them.
type pciIDs struct {
	vendor, device int
	named          bool
}

// Domain and Bus split the address: "0000" when it has no domain.
func (d PCIDevice) Domain() string {
	if strings.Count(d.BDF, ":") == 2 {
		return strings.ToLower(d.BDF[:strings.IndexByte(d.BDF, ':')])
	}
	return "0000"
}

// Bus returns the bus part of the address ("b3"), "" without one.
func (d PCIDevice) Bus() string {
	parts := strings.Split(d.BDF, ":")
	if len(parts) < 2 {
		return ""
	}
	return strings.ToLower(parts[len(parts)-2])
}

// Above returns the bridge whose secondary bus the device sits on (the
// port of its slot, or of the PCIe switch above it), if the input has it.
func (p *Lspci) Above(d PCIDevice) (PCIDevice, bool) {
	if d.BDF == "" {
		return PCIDevice{}, false
	}
	for _, b := range p.Devices {
		if b.Secondary != "" && b.Secondary == d.Bus() && b.Domain() == d.Domain() && b.Host == d.Host && b.BDF != d.BDF {
			return b, true
		}
	}
	return PCIDevice{}, false
}

// A PCIeLinkState is a PCIe link's speed and width, as LnkCap or LnkSta
// prints them. GTs is 0 when lspci prints "Speed unknown": a speed its
// table does not name (16 GT/s before pciutils 3.5.3, 32 GT/s before
// 3.6.3, 64 GT/s before 3.8), or a LnkSta whose link is down.
type PCIeLinkState struct {
	GTs   float64
	Width int
	// SpeedMarked and WidthMarked are set when lspci printed
	// "(downgraded)" after LnkSta's speed or width: pciutils 3.6+ compares
	// each with LnkCap itself (ls-caps.c link_compare), so the mark holds
	// even where the paste cut the LnkCap line. 3.6 and 3.7 mark every
	// port; 3.8 on leaves root and downstream ports unmarked.
	SpeedMarked, WidthMarked bool
	// SpeedOver and WidthOver are set when lspci printed "(overdriven)"
	// (pciutils 3.8 on) or "(strange)" (3.6 and 3.7) after LnkSta's speed
	// or width: the link state's field is above LnkCap's (link_compare's
	// sta > cap), so that LnkCap field understates the device.
	SpeedOver, WidthOver bool
	// Down is set for a LnkSta of "Width x0": a link that trained no
	// lanes. lspci prints it with "(downgraded)" (3.6+ on an endpoint or
	// upstream port) or without (before 3.6, and a root or downstream port
	// from 3.8 on, where it is often an empty slot).
	Down     bool
	Evidence Evidence
}

// Set reports whether the line was read.
func (l PCIeLinkState) Set() bool { return l.Width > 0 || l.Down }

// Rate is the link's data rate after line coding (pcie.LaneGbpsAt), 0
// when the speed is unknown.
func (l PCIeLinkState) Rate() unit.BitRate {
	return unit.BitRate(pcie.LaneGbpsAt(l.GTs) * float64(l.Width) * 1e9)
}

// String formats it as lspci does: "16GT/s x16".
func (l PCIeLinkState) String() string {
	if l.Down {
		return "no lanes (x0: the link is down)"
	}
	if l.GTs == 0 {
		return fmt.Sprintf("speed unknown x%d", l.Width)
	}
	return fmt.Sprintf("%sGT/s x%d", strconv.FormatFloat(l.GTs, 'f', -1, 64), l.Width)
}

// Downgraded reports whether the device negotiated less than it can: a
// lower speed or fewer lanes than its capability, or a LnkSta lspci
// itself marks "(downgraded)".
func (d PCIDevice) Downgraded() bool {
	switch {
	case !d.Sta.Set():
		return false
	case d.Sta.SpeedMarked || d.Sta.WidthMarked:
		return true
	case !d.Cap.Set():
		return false
	}
	return d.Sta.Width < d.Cap.Width || d.Sta.GTs > 0 && d.Cap.GTs > 0 && d.Sta.GTs < d.Cap.GTs || d.CapBeyondLspci()
}

// WidthLost reports whether the link trained fewer lanes than the device
// has: by the numbers, by lspci's mark on the width when the paste cut
// LnkCap, or a link that trained none.
func (d PCIDevice) WidthLost() bool {
	return d.Sta.WidthMarked || d.Sta.Down || d.Cap.Set() && d.Sta.Set() && d.Sta.Width < d.Cap.Width
}

// CapBeyondLspci reports a LnkCap speed this lspci cannot name ("Speed
// unknown") beside a LnkSta speed it did: pciutils prints "unknown" for a
// speed newer than its table, and one lspci printed both lines, so the
// device can train faster than the link did (a Gen5 ConnectX-7 read with
// a pciutils that knows Gen4 at most).
//
// lspci's "(overdriven)" or "(strange)" on that LnkSta speed says the
// opposite: LnkCap's speed field is below LnkSta's (a value lspci has no
// name for, such as 0), not beyond its table.
func (d PCIDevice) CapBeyondLspci() bool {
	return d.Cap.Set() && d.Cap.GTs == 0 && d.Sta.GTs > 0 && !d.Sta.SpeedOver
}

// Capable is the link the device can train as far as the input shows:
// LnkCap, with a field LnkSta exceeds (lspci's "(overdriven)") raised to
// LnkSta's, since the device trained at least that.
func (d PCIDevice) Capable() PCIeLinkState {
	c := d.Cap
	if d.Sta.GTs > c.GTs && c.GTs > 0 {
		c.GTs = d.Sta.GTs
	}
	if d.Sta.Width > c.Width && c.Width > 0 {
		c.Width = d.Sta.Width
	}
	return c
}

// Label names the device: its host when a prompt named one, its address
// and name (or the name alone, as sysfs's class paths give it), or
// "(device not named)".
func (d PCIDevice) Label() string {
	s := d.BDF
	switch {
	case d.BDF == "" && d.Name == "":
		return "(device not named)"
	case d.BDF == "":
		s = d.Name
	case d.Name != "":
		s += " " + d.Name
	}
	if d.Host != "" {
		s = d.Host + " " + s
	}
	return s
}

// RDMA reports a NIC of a family that runs RoCE or InfiniBand (ConnectX,
// BlueField, Broadcom NetXtreme-E, Intel E810, AMD Pensando, Chelsio,
// QLogic FastLinQ) or AWS's SRD (EFA), as opposed to a host's management
// port (an Azure VM's MANA among them: its RDMA is not the GPU fabric's).
func (d PCIDevice) RDMA() bool {
	if d.Role != RoleNIC {
		return false
	}
	if d.Class == "Infiniband controller" || d.RDMADevice {
		return true
	}
	for _, k := range []string{"Mellanox", "ConnectX", "BlueField", "NetXtreme-E", "BCM575", "BCM576", "E810", "Pensando", "Chelsio", "FastLinQ", "Elastic Fabric Adapter"} {
		if strings.Contains(d.Name, k) {
			return true
		}
	}
	return false
}

// ACSControl is a bridge's ACS control register (ACSCtl).
type ACSControl struct {
	SrcValid, TransBlk, ReqRedir, CmpltRedir, UpstreamFwd, EgressCtrl, DirectTrans bool
	Evidence                                                                       Evidence
}

// Redirects reports whether the bridge sends peer-to-peer requests or
// completions up toward the root complex instead of across (ReqRedir,
// CmpltRedir, EgressCtrl).
func (a ACSControl) Redirects() bool { return a.ReqRedir || a.CmpltRedir || a.EgressCtrl }

// Register is the ACS control register's value these bits make (PCIe
// ACS Control: bit 0 SrcValid to bit 6 DirectTrans), as setpci writes it.
func (a ACSControl) Register() int {
	v := 0
	for i, b := range []bool{a.SrcValid, a.TransBlk, a.ReqRedir, a.CmpltRedir, a.UpstreamFwd, a.EgressCtrl, a.DirectTrans} {
		if b {
			v |= 1 << i
		}
	}
	return v
}

// Any reports whether any ACS control is on.
func (a ACSControl) Any() bool {
	return a.SrcValid || a.TransBlk || a.UpstreamFwd || a.DirectTrans || a.Redirects()
}

// Kind returns KindLspci.
func (p *Lspci) Kind() Kind { return KindLspci }

// Bottlenecks reports the NICs whose PCIe link runs below what they can
// and the GPUs whose link lost lanes, capped at the link's rate, and ACS
// redirecting peer-to-peer traffic on switch ports (or on bridges a grep
// does not name), which sends GPUDirect RDMA through the root complex.
func (p *Lspci) Bottlenecks() []Bottleneck {
	var acs []Evidence
	for _, d := range p.Devices {
		if d.ACS != nil && d.ACS.Redirects() && (d.Role == RoleSwitch || d.BDF == "") && len(acs) < 2 {
			acs = append(acs, d.ACS.Evidence)
		}
	}
	out := linkBottlenecks(p.Devices)
	if len(acs) > 0 {
		out = append(out, Bottleneck{What: "PCIe ACS redirecting peer-to-peer traffic (GPUDirect RDMA through the root complex)", Evidence: acs})
	}
	return out
}

// linkBottlenecks are the RDMA NICs whose link runs below what they can
// and the GPUs whose link lost lanes, capped at the link's rate.
func linkBottlenecks(devs []PCIDevice) []Bottleneck {
	var out []Bottleneck
	for _, d := range devs {
		if !d.Downgraded() || d.Sta.GTs == 0 || d.Sta.Down || !d.RDMA() && (d.Role != RoleGPU || !d.WidthLost()) {
			continue
		}
		capable := d.Cap.String()
		if !d.Cap.Set() {
			capable = "more: lspci marks it downgraded"
		}
		out = append(out, Bottleneck{
			What:     fmt.Sprintf("%s %s on a PCIe %s link (capable of %s)", d.Role, d.Label(), d.Sta, capable),
			Cap:      d.Sta.Rate(),
			Device:   d.BDF,
			Evidence: []Evidence{d.Cap.Evidence, d.Sta.Evidence},
		})
	}
	return out
}

// Caps bound what one input may hold: a large server lists a few hundred
// devices.
const (
	maxPCIDevices = 4096
	maxGarbled    = 64
)

type lspciParser struct {
	out Lspci
	cur *PCIDevice
	// named is set while cur is a device with a header line.
	named bool
	// block is the register block continuation lines belong to ("LnkSta").
	block string
	// last is the line before this one when it was a device header or a
	// line this parser reads (LnkSta, SltSta, ACSCtl, ...): a line a mail
	// client or terminal wrapped goes on at column 0 on the next line.
	last heldLine
	// held is the garble of last, reported unless the next line is the
	// rest of it.
	held *Garble
}

// NewLspciParser returns a parser for lspci -vvv in the input src.
func NewLspciParser(src string) Parser {
	return &lspciParser{out: Lspci{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *lspciParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	last := p.last
	p.last = heldLine{}
	if t == "" {
		p.flush()
		return
	}
	if d, ok := lspciHeader(t); ok {
		p.flush()
		p.start(d, l)
		p.last = heldLine{rest: d.Name, l: l, set: true}
		return
	}
	if c, ok := findCommand(t, "lspci"); ok && shellPrompted(t, "lspci") {
		p.flush()
		p.echoed(c)
		return
	}
	if last.set && wrapped(l.Text) && (p.named || last.key != "") {
		p.rejoin(last, t, l)
		return
	}
	p.flush()
	if v, ok := strings.CutPrefix(t, "NUMA node:"); ok {
		p.numa(v, l)
		return
	}
	key, rest, ok := strings.Cut(t, ":")
	if !ok || strings.ContainsAny(key, " \t") {
		if p.cur != nil && p.named {
			p.continuation(t, l)
		}
		return
	}
	switch key {
	case "Capabilities":
		p.capability(rest, l)
	case "LnkCap", "LnkSta", "ACSCtl", "ACSCap", "SltSta", "SltCap":
		p.last = heldLine{key: key, rest: rest, l: l, set: true}
		n := p.out.lines.n
		p.keyed(key, rest, l)
		p.last.counted = p.out.lines.n > n
	case "Control":
		if p.block != "SltCtl" {
			p.block = key
			break
		}
		p.last = heldLine{key: key, rest: rest, l: l, set: true}
		n := p.out.lines.n
		p.keyed(key, rest, l)
		p.last.counted = p.out.lines.n > n
	case "ATSCtl":
		p.ats(rest, l)
	case "Bus":
		p.bus(rest, l)
	default:
		if p.cur != nil && p.named {
			p.block = key
		}
	}
}

// keyed reads a line this parser reads by its key and is able to read
// again, whole, when a wrap cut it.
func (p *lspciParser) keyed(key, rest string, l Line) {
	switch key {
	case "LnkCap", "LnkSta":
		p.link(key, rest, l)
	case "ACSCtl", "ACSCap":
		p.acs(key, rest, l)
	case "SltSta":
		p.slot(rest, l)
	case "SltCap":
		p.slotCap(rest, l)
	case "Control":
		p.slotControl(rest, l)
	}
}

// shellPrompted reports whether tool follows a shell prompt in t ("# ",
// "$ ", "[root@h ~]# ", with sudo), not a comment that names it.
func shellPrompted(t, tool string) bool {
	i := strings.Index(t, tool)
	if i < 0 {
		return false
	}
	pre := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t[:i]), "sudo"))
	return strings.HasSuffix(pre, "#") || strings.HasSuffix(pre, "$")
}

// echoed notes an lspci command line above the output: one that picks
// devices (-s BUS, -d VENDOR:DEVICE) makes the listing partial.
func (p *lspciParser) echoed(c shellCommand) {
	for _, a := range c.Args {
		if strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "-d") || a == "--slot" {
			p.out.picked = true
		}
	}
	p.out.Whole = !p.out.picked
}

// lspciHeader reads a device line: "[dddd:]bb:dd.f Class[ [cccc]]: Name".
func lspciHeader(t string) (PCIDevice, bool) {
	addr, rest, ok := strings.Cut(t, " ")
	if !ok || !isBDF(addr) {
		return PCIDevice{}, false
	}
	class, name, ok := strings.Cut(rest, ": ")
	if !ok || class == "" || len(class) > 64 {
		return PCIDevice{}, false
	}
	if i := strings.Index(class, " ["); i > 0 && strings.HasSuffix(class, "]") {
		class = class[:i]
	}
	for _, c := range class {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' || c == '-' || c == '/') {
			return PCIDevice{}, false
		}
	}
	return PCIDevice{BDF: addr, Class: class, Name: trimRevision(name)}, true
}

// trimRevision cuts a device name where lspci's revision or programming
// interface begins: "MT28908 Family [ConnectX-6] (rev 01)".
func trimRevision(name string) string {
	if i := strings.Index(name, " (rev "); i > 0 {
		name = name[:i]
	} else if i := strings.Index(name, " (prog-if "); i > 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

// isBDF reports an address as lspci prints it: bb:dd.f with an optional
// domain (dddd: or, on some hosts, 8 hex digits).
func isBDF(s string) bool {
	bus, fn, ok := strings.Cut(s, ".")
	if !ok || len(fn) != 1 || fn[0] < '0' || fn[0] > '7' {
		return false
	}
	parts := strings.Split(bus, ":")
	if len(parts) == 3 {
		if n := len(parts[0]); n != 4 && n != 8 || !isHex(parts[0]) {
			return false
		}
		parts = parts[1:]
	}
	return len(parts) == 2 && len(parts[0]) == 2 && len(parts[1]) == 2 && isHex(parts[0]) && isHex(parts[1])
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// start opens a device block.
func (p *lspciParser) start(d PCIDevice, l Line) {
	p.out.lines.add(l)
	p.block = ""
	if len(p.out.Devices) >= maxPCIDevices {
		p.cur = nil
		return
	}
	d.BDF, d.Class, d.Name = strings.Clone(d.BDF), strings.Clone(d.Class), strings.Clone(d.Name)
	d.Role = pciRole(d.Class, d.Name)
	d.Host = l.Host
	d.Evidence = At(p.out.src, l)
	p.out.Devices = append(p.out.Devices, d)
	p.cur, p.named = &p.out.Devices[len(p.out.Devices)-1], true
}

// pciRole classifies a device by its class and name.
func pciRole(class, name string) string {
	switch class {
	case "Ethernet controller", "Infiniband controller", "Network controller":
		return RoleNIC
	case "3D controller", "VGA compatible controller", "Processing accelerators", "Display controller":
		return RoleGPU
	case "PCI bridge":
		n := strings.ToLower(name)
		for _, v := range []string{"plx", "pex", "broadcom", "microsemi", "pmc-sierra", "switch"} {
			if strings.Contains(n, v) {
				return RoleSwitch
			}
		}
	}
	return RoleOther
}

// capability reads a "Capabilities: [off] ..." line: the PCI Express
// port type and where the ACS capability sits.
func (p *lspciParser) capability(rest string, l Line) {
	if p.cur == nil || !p.named {
		return
	}
	p.block = ""
	rest = strings.TrimSpace(rest)
	if rest == "<access denied>" {
		p.out.lines.add(l)
		p.cur.Denied = true
		return
	}
	off, what, ok := strings.Cut(strings.TrimPrefix(rest, "["), "]")
	if !ok {
		return
	}
	what = strings.TrimSpace(what)
	off, _, _ = strings.Cut(off, " ")
	switch {
	case strings.HasPrefix(what, "Express "):
		p.out.lines.add(l)
		port := what[len("Express "):]
		if strings.HasPrefix(port, "(") {
			if _, after, ok := strings.Cut(port, ") "); ok {
				port = after
			}
		}
		port, _, _ = strings.Cut(port, ",")
		port, _, _ = strings.Cut(port, " (")
		p.cur.Port = strings.Clone(strings.TrimSpace(port))
		switch p.cur.Port {
		case "Root Port":
			if p.cur.Role == RoleOther {
				p.cur.Role = RoleRoot
			}
		case "Upstream Port", "Downstream Port":
			if p.cur.Role == RoleOther {
				p.cur.Role = RoleSwitch
			}
		}
	case what == "Access Control Services" && isHex(off):
		p.out.lines.add(l)
		p.cur.ACSOffset = strings.Clone(off)
	}
}

// bus reads a bridge's "Bus: primary=16, secondary=17, subordinate=17,
// sec-latency=0".
func (p *lspciParser) bus(rest string, l Line) {
	if p.cur == nil || !p.named {
		return
	}
	p.block = "Bus"
	for _, f := range strings.Fields(strings.ReplaceAll(rest, ",", " ")) {
		if v, ok := strings.CutPrefix(f, "secondary="); ok && len(v) == 2 && isHex(v) {
			p.out.lines.add(l)
			p.cur.Secondary = strings.ToLower(v)
		}
	}
}

// continuation reads a line that carries on the block above it (a
// wrapped LnkSta or DevCtl line); nothing in them is needed yet beyond
// keeping them out of other formats' way.
func (p *lspciParser) continuation(t string, l Line) {
	switch p.block {
	case "LnkCap", "LnkSta", "ACSCtl":
		p.out.lines.add(l)
	case "SltCap":
		p.slotNumber(t, l)
	}
}

// device returns the device a link or ACS line belongs to: the open
// device block unless it has that line already (then the lines were
// grepped out of several blocks), else a new device without an address.
func (p *lspciParser) device(has func(*PCIDevice) bool) *PCIDevice {
	if p.cur != nil && !has(p.cur) {
		return p.cur
	}
	if len(p.out.Devices) >= maxPCIDevices {
		return nil
	}
	p.out.Devices = append(p.out.Devices, PCIDevice{})
	p.cur, p.named = &p.out.Devices[len(p.out.Devices)-1], false
	return p.cur
}

// link reads "LnkCap: Port #0, Speed 16GT/s, Width x16, ..." or
// "LnkSta: Speed 8GT/s (downgraded), Width x8 (ok)".
func (p *lspciParser) link(key, rest string, l Line) {
	st, col, ok := parseLinkState(rest, key == "LnkSta")
	if !ok {
		p.garble(l, key, col, "'Speed <n>GT/s, Width x<n>' after "+key+":")
		return
	}
	p.out.lines.add(l)
	p.block = key
	d := p.device(func(d *PCIDevice) bool {
		if key == "LnkCap" {
			return d.Cap.Set()
		}
		return d.Sta.Set()
	})
	if d == nil {
		return
	}
	st.Evidence = At(p.out.src, l)
	if key == "LnkCap" {
		d.Cap = st
	} else {
		d.Sta = st
	}
	if d.Evidence.Line == 0 {
		d.Evidence = st.Evidence
	}
}

// parseLinkState reads the speed and width of a LnkCap or (sta) LnkSta
// line, and on LnkSta lspci's "(downgraded)" marks and a width of x0; on
// failure col is the 0-based offset in rest where reading stopped.
func parseLinkState(rest string, sta bool) (PCIeLinkState, int, bool) {
	var st PCIeLinkState
	i := strings.Index(rest, "Speed ")
	if i < 0 {
		return st, len(rest) - len(strings.TrimLeft(rest, " \t")), false
	}
	sp := rest[i+len("Speed "):]
	tok, _, _ := strings.Cut(sp, ",")
	tok, _, _ = strings.Cut(tok, " ")
	if tok != "unknown" {
		g, err := strconv.ParseFloat(strings.TrimSuffix(tok, "GT/s"), 64)
		if err != nil || !strings.HasSuffix(tok, "GT/s") || g <= 0 || g > 256 {
			return st, i + len("Speed "), false
		}
		st.GTs = g
	}
	j := strings.Index(rest, "Width x")
	if j < 0 {
		return st, i + len("Speed ") + len(tok), false
	}
	w := rest[j+len("Width x"):]
	n := 0
	for n < len(w) && w[n] >= '0' && w[n] <= '9' {
		n++
	}
	width, err := strconv.Atoi(w[:n])
	if err != nil || width < 0 || width > 32 || width == 0 && !sta {
		return st, j + len("Width x"), false
	}
	st.Width = width
	if sta {
		st.SpeedMarked, st.SpeedOver = linkMark(sp[len(tok):])
		st.WidthMarked, st.WidthOver = linkMark(w[n:])
	}
	st.Down = width == 0
	return st, 0, true
}

// linkMark reads the mark ls-caps.c's link_compare prints after a LnkSta
// field: " (downgraded)" below LnkCap's, " (overdriven)" (pciutils 3.8 on)
// or " (strange)" (3.6 and 3.7) above it; " (ok)" (3.6 and 3.7) or
// nothing is neither.
func linkMark(after string) (below, above bool) {
	return strings.HasPrefix(after, " (downgraded)"),
		strings.HasPrefix(after, " (overdriven)") || strings.HasPrefix(after, " (strange)")
}

// acs reads "ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ ..." and
// the ACSCap line of the same flags.
func (p *lspciParser) acs(key, rest string, l Line) {
	var a ACSControl
	flags := map[string]*bool{
		"SrcValid": &a.SrcValid, "TransBlk": &a.TransBlk, "ReqRedir": &a.ReqRedir, "CmpltRedir": &a.CmpltRedir,
		"UpstreamFwd": &a.UpstreamFwd, "EgressCtrl": &a.EgressCtrl, "DirectTrans": &a.DirectTrans,
	}
	seen := 0
	for _, f := range strings.Fields(strings.ReplaceAll(rest, ",", " ")) {
		if len(f) < 2 || f[len(f)-1] != '+' && f[len(f)-1] != '-' {
			continue
		}
		if b, ok := flags[f[:len(f)-1]]; ok {
			*b = f[len(f)-1] == '+'
			seen++
		}
	}
	if seen == 0 {
		what := "control"
		if key == "ACSCap" {
			what = "capability"
		}
		p.garble(l, key, len(rest)-len(strings.TrimLeft(rest, " \t")), "ACS "+what+" flags (SrcValid+/- ReqRedir+/- CmpltRedir+/- ...) after "+key+":")
		return
	}
	p.out.lines.add(l)
	p.block = "ACSCtl"
	reg := func(d *PCIDevice) **ACSControl { return &d.ACS }
	if key == "ACSCap" {
		reg = func(d *PCIDevice) **ACSControl { return &d.ACSCap }
	}
	d := p.device(func(d *PCIDevice) bool { return *reg(d) != nil })
	if d == nil {
		return
	}
	a.Evidence = At(p.out.src, l)
	if d.Evidence.Line == 0 {
		d.Evidence = a.Evidence
	}
	*reg(d) = &a
}

// Result implements Parser.
func (p *lspciParser) Result() Artifact {
	p.flush()
	if len(p.out.Devices) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
