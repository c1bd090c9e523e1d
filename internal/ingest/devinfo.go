package ingest

import (
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// Devinfo is `ibv_devinfo` or `ibv_devinfo -v` output: per device (hca_id
// block) the transport, firmware and part number, and per port the state,
// MTUs, link layer, speed and (with -v) the GID table.
//
// GID lines ("GID[  3]:  ::ffff:200.0.209.6, RoCE v2") are recognised
// anywhere, since pastes often keep only them; their device then comes from
// the `ibv_devinfo -d <dev>` command line when the paste shows it.
type Devinfo struct {
	Scoped
	artifactHead
	// Devices are the hca_id blocks in input order.
	Devices []DevinfoDevice
	// Omitted counts devices, ports or GIDs dropped by the memory caps.
	Omitted int
	// OpenFailed are ibv_devinfo's "Failed to open device" lines (on
	// stderr): a device libibverbs lists in sysfs and cannot open.
	OpenFailed []Evidence
	// ABIRejected are the devices libibverbs left out because the kernel
	// driver's uverbs ABI is outside its user-space provider's range, one
	// per device (each process that loads libibverbs prints the warning
	// again).
	ABIRejected []VerbsABIReject
}

// A VerbsABIReject is one libibverbs warning (rdma-core's
// libibverbs/init.c, match_device): "libibverbs: Warning: Driver bnxt_re
// does not support the kernel ABI of 6 (supports 1 to 1) for device
// /sys/class/infiniband/bnxt_re0".
type VerbsABIReject struct {
	// Provider is the user-space provider's name (bnxt_re, ionic, mlx5).
	Provider string
	// KernelABI is the ABI the kernel driver reports; Min and Max the
	// provider's range.
	KernelABI, Min, Max int
	// Device is the RDMA device, the last element of the sysfs path.
	Device   string
	Evidence Evidence
}

// A DevinfoDevice is one hca_id block.
type DevinfoDevice struct {
	Name         string
	Host         string
	Transport    string // "InfiniBand (0)" also for RoCE
	FWVer        string
	VendorPartID int // 4117 = ConnectX-4 Lx, 4119 = ConnectX-5, 4125 = ConnectX-6 Dx, 4129 = ConnectX-7
	// NodeGUID and SysImageGUID identify the adapter and the host's set of
	// adapters ("7cfe:9003:00a0:8d36"), "" when not printed.
	NodeGUID, SysImageGUID string
	// GUIDLine is the line that gave NodeGUID (ibv_devinfo's node_guid,
	// ibstat's Node GUID, an ibv_devices row).
	GUIDLine Evidence
	Ports    []DevinfoPort
	Evidence Evidence // the hca_id line
}

// A DevinfoPort is one "port:" block.
type DevinfoPort struct {
	Port  int // 0 when the paste does not show the port line
	State string
	// PhysState is the physical link state ibstat, ibstatus and `rdma
	// link` print ("LinkUp", "Polling", "LINK_UP", "POLLING"), "" when
	// not printed.
	PhysState string
	// Netdev is the port's network device when `rdma link` names it.
	Netdev    string
	MaxMTU    int
	ActiveMTU int
	LinkLayer string // "Ethernet" (RoCE) or "InfiniBand"
	// LID is port_lid, -1 when not printed; a RoCE port has none (0).
	LID       int
	Width     int // lanes, from active_width "4X"
	LaneSpeed unit.BitRate
	// Rate is LaneSpeed×Width, the port's line rate.
	Rate unit.BitRate
	GIDs []GIDEntry
	// Evidence holds the lines of the fields above, by ibv_devinfo key
	// ("state", "active_mtu", "link_layer", "active_speed", ...).
	Evidence map[string]Evidence
}

// Kind returns KindDevinfo.
func (d *Devinfo) Kind() Kind { return KindDevinfo }

// GIDEntries returns the GID rows of every port.
func (d *Devinfo) GIDEntries() []GIDEntry {
	var out []GIDEntry
	for _, dev := range d.Devices {
		for _, p := range dev.Ports {
			out = append(out, p.GIDs...)
		}
	}
	return out
}

// LinkSpeeds returns each active port's active_speed × active_width (and each
// port's when the output gives no state).
func (d *Devinfo) LinkSpeeds() []LinkSpeed {
	var out []LinkSpeed
	for _, dev := range d.Devices {
		for _, p := range dev.Ports {
			// A port that is down states no line rate: ibstat prints
			// "Rate: 40" for a disabled 200G port, its speed field's
			// default, not a link.
			if p.Rate > 0 && (p.State == "" || strings.HasPrefix(p.State, "PORT_ACTIVE")) {
				out = append(out, LinkSpeed{Device: dev.Name, Rate: p.Rate, Evidence: p.Evidence["active_speed"]})
			}
		}
	}
	return out
}

// Caps for Devinfo.
const (
	maxDevinfoDevices = 256
	maxDevinfoPorts   = 16
)

type devinfoParser struct {
	out     Devinfo
	inBlock bool // inside an hca_id block or after an ibv_devinfo command
	cmdDev  string
	host    string
	gids    int
	ibstat  bool // inside a "CA 'mlx5_0'" block of ibstat output
	// devList is 1 after an ibv_devices header, 2 after the dashes under
	// it (its device rows follow), else 0.
	devList int
	// portLine holds a "port: N" line seen outside a block, until the
	// next line shows whether a port block follows.
	portLine Line
	portVal  string
}

// NewDevinfoParser returns a parser for ibv_devinfo output in the input src.
func NewDevinfoParser(src string) Parser {
	return &devinfoParser{out: Devinfo{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *devinfoParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if c, ok := findCommand(t, "ibv_devinfo"); ok {
		if d, ok := c.flagValue("-d", "--ib-dev"); ok && isIdentName(d) {
			p.cmdDev = d
		}
		p.host = c.Host
		p.inBlock = true
		p.out.lines.add(l)
		return
	}
	if p.ibstatLine(l, t) || p.rdmaLinkLine(l, t) || p.ibdev2netdevLine(l, t) || p.ibvDevicesLine(l, t) {
		p.out.lines.add(l)
		return
	}
	// A GID line the poster emphasised in Markdown ("**GID[ 14]: ...").
	t = strings.TrimLeft(t, "*")
	if strings.HasPrefix(t, "GID[") {
		if p.gid(l, t) {
			p.out.lines.add(l)
		}
		return
	}
	if r, ok := parseABIReject(t); ok {
		p.abiReject(l, r)
		return
	}
	if t == "Failed to open device" {
		if len(p.out.OpenFailed) < maxDevinfoDevices {
			p.out.OpenFailed = append(p.out.OpenFailed, At(p.out.src, l))
		} else {
			p.out.Omitted++
		}
		p.inBlock = false
		p.out.lines.add(l)
		return
	}
	key, val, ok := strings.Cut(t, ":")
	if !ok {
		if t != "" {
			p.inBlock = false
		}
		return
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if key == "hca_id" && val != "" {
		p.ibstat = false
		if len(p.out.Devices) >= maxDevinfoDevices {
			p.out.Omitted++
			p.inBlock = false
			return
		}
		p.out.Devices = append(p.out.Devices, DevinfoDevice{Name: val, Host: p.host, Evidence: At(p.out.src, l)})
		p.inBlock = true
		p.out.lines.add(l)
		return
	}
	if !p.inBlock && key == "port" {
		// An excerpt that starts at a port block: its fields say whether
		// it is ibv_devinfo's.
		if _, err := strconv.Atoi(val); err == nil {
			p.portLine, p.portVal = l, val
			return
		}
	}
	if !p.inBlock && devinfoPortKey(key, val) {
		p.inBlock = true
		if p.portLine.Num > 0 && p.portLine.Num == l.Num-1 {
			p.field(p.portLine, "port", p.portVal)
			p.out.lines.add(l)
		}
	}
	p.portLine = Line{}
	if !p.inBlock || !devinfoKey(key) {
		return
	}
	p.field(l, key, val)
	p.out.lines.add(l)
}

// devinfoPortKey reports whether key and val are a port field only
// ibv_devinfo prints this way ("state: PORT_ACTIVE (4)", "max_mtu: 4096
// (5)", "link_layer: Ethernet"), so that a port block pasted without its
// hca_id line is read.
func devinfoPortKey(key, val string) bool {
	switch key {
	case "state", "phys_state":
		return strings.HasPrefix(val, "PORT_") || strings.HasPrefix(val, "LINK_")
	case "max_mtu", "active_mtu":
		return strings.HasSuffix(val, ")") && strings.Contains(val, " (")
	case "link_layer":
		return val == "Ethernet" || val == "InfiniBand"
	}
	return false
}

// devinfoKey reports whether key is an ibv_devinfo field name.
func devinfoKey(k string) bool {
	if k == "" || len(k) > 40 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ' ') {
			return false
		}
	}
	return true
}

// dev returns the current device, creating one for pastes without hca_id.
func (p *devinfoParser) dev() *DevinfoDevice {
	if len(p.out.Devices) == 0 {
		p.out.Devices = append(p.out.Devices, DevinfoDevice{Name: p.cmdDev, Host: p.host})
	}
	return &p.out.Devices[len(p.out.Devices)-1]
}

// port returns the current port of the current device.
func (p *devinfoParser) port() *DevinfoPort {
	d := p.dev()
	if len(d.Ports) == 0 {
		d.Ports = append(d.Ports, DevinfoPort{LID: -1, Evidence: map[string]Evidence{}})
	}
	return &d.Ports[len(d.Ports)-1]
}

func (p *devinfoParser) field(l Line, key, val string) {
	d := p.dev()
	ev := At(p.out.src, l)
	switch key {
	case "transport":
		d.Transport = val
	case "fw_ver":
		d.FWVer = val
	case "vendor_part_id":
		d.VendorPartID, _ = strconv.Atoi(val)
	case "node_guid":
		d.NodeGUID, d.GUIDLine = strings.Clone(val), ev
	case "sys_image_guid":
		d.SysImageGUID = strings.Clone(val)
	case "port":
		n, err := strconv.Atoi(val)
		if err != nil {
			return
		}
		d.Ports = appendCapped(d.Ports, DevinfoPort{Port: n, LID: -1, Evidence: map[string]Evidence{"port": ev}}, maxDevinfoPorts, &p.out.Omitted)
		return
	}
	if len(d.Ports) == 0 && key != "state" && key != "active_mtu" && key != "link_layer" && key != "max_mtu" &&
		key != "active_speed" && key != "active_width" {
		return
	}
	pt := p.port()
	first := atoiPrefix(val)
	switch key {
	case "state":
		pt.State = val
	case "max_mtu":
		pt.MaxMTU = first
	case "active_mtu":
		pt.ActiveMTU = first
	case "link_layer":
		pt.LinkLayer = val
	case "port_lid":
		pt.LID = first
	case "active_width":
		pt.Width = first
	case "active_speed":
		num, _, _ := strings.Cut(val, "(")
		if r, err := unit.ParseRate(strings.TrimSpace(num)); err == nil {
			pt.LaneSpeed = r
		}
	default:
		return
	}
	pt.Evidence[key] = ev
	if pt.Width > 0 && pt.LaneSpeed > 0 {
		pt.Rate = pt.LaneSpeed * unit.BitRate(pt.Width)
	}
}

// gid parses "GID[  3]:  ::ffff:200.0.209.6, RoCE v2".
func (p *devinfoParser) gid(l Line, t string) bool {
	end := strings.Index(t, "]:")
	if end < 0 {
		return false
	}
	idx, err := strconv.Atoi(strings.TrimSpace(t[len("GID["):end]))
	if err != nil || idx < 0 {
		return false
	}
	rest := strings.TrimSpace(t[end+2:])
	addr, typ, _ := strings.Cut(rest, ",")
	addr = strings.TrimSpace(addr)
	class, v4 := ClassifyGID(addr)
	if class == GIDUnknown {
		return false
	}
	if p.gids >= MaxGIDEntries {
		p.out.Omitted++
		return true
	}
	p.gids++
	d := p.dev()
	pt := p.port()
	e := GIDEntry{Host: d.Host, Device: d.Name, Port: pt.Port, Index: idx, GID: addr, IPv4: v4, Evidence: At(p.out.src, l)}
	switch strings.TrimSpace(typ) {
	case "RoCE v1":
		e.Version = "v1"
	case "RoCE v2":
		e.Version = "v2"
	}
	pt.GIDs = append(pt.GIDs, e)
	p.inBlock = true
	return true
}

// leadingInt parses the integer at the start of s ("4096 (5)", "4X (2)").
func atoiPrefix(s string) int {
	n, i := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1<<20 {
		n = n*10 + int(s[i]-'0')
		i++
	}
	return n
}

func atoiPrefixOr(s string, def int) int {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return def
	}
	return atoiPrefix(s)
}

// Result implements Parser.
func (p *devinfoParser) Result() Artifact {
	if p.out.lines.n == 0 || len(p.out.Devices) == 0 && len(p.out.OpenFailed) == 0 && len(p.out.ABIRejected) == 0 {
		return nil
	}
	return &p.out
}

// StatedHost is the host the devices identify: their node and system
// image GUIDs, and the host named before them when one is.
func (d *Devinfo) StatedHost() Host {
	var h Host
	for _, dev := range d.Devices {
		if dev.Host != "" && h.Name == "" {
			h.Name = dev.Host
		} else if dev.Host != "" && dev.Host != h.Name {
			return Host{} // several hosts' devices
		}
		h.AddGUID(dev.NodeGUID)
		h.AddGUID(dev.SysImageGUID)
	}
	return h
}

// abiWarning starts libibverbs's warning of a provider that does not match
// its kernel driver's ABI; the rest of the line reads "<provider> does not
// support the kernel ABI of <n> (supports <min> to <max>) for device
// <sysfs path>".
const abiWarning = "libibverbs: Warning: Driver "

// parseABIReject reads one ABI warning anywhere in a line (a worker's log
// prefix may stand before it), and false for any other line.
func parseABIReject(t string) (VerbsABIReject, bool) {
	_, rest, ok := strings.Cut(t, abiWarning)
	if !ok {
		return VerbsABIReject{}, false
	}
	var r VerbsABIReject
	var abi, lo, hi, dev string
	r.Provider, rest, ok = strings.Cut(rest, " does not support the kernel ABI of ")
	if ok {
		abi, rest, ok = strings.Cut(rest, " (supports ")
	}
	if ok {
		lo, rest, ok = strings.Cut(rest, " to ")
	}
	if ok {
		hi, dev, ok = strings.Cut(rest, ") for device ")
	}
	if !ok || !isIdentName(r.Provider) {
		return VerbsABIReject{}, false
	}
	var err [3]error
	r.KernelABI, err[0] = strconv.Atoi(abi)
	r.Min, err[1] = strconv.Atoi(lo)
	r.Max, err[2] = strconv.Atoi(hi)
	dev, _, _ = strings.Cut(strings.TrimSpace(dev), " ")
	r.Device = dev[strings.LastIndexByte(dev, '/')+1:]
	if err[0] != nil || err[1] != nil || err[2] != nil || !isIdentName(r.Device) {
		return VerbsABIReject{}, false
	}
	return r, true
}

// abiReject keeps the first warning of each device.
func (p *devinfoParser) abiReject(l Line, r VerbsABIReject) {
	p.out.lines.add(l)
	for _, o := range p.out.ABIRejected {
		if o.Device == r.Device && o.Provider == r.Provider {
			return
		}
	}
	if len(p.out.ABIRejected) >= maxDevinfoDevices {
		p.out.Omitted++
		return
	}
	r.Provider, r.Device = strings.Clone(r.Provider), strings.Clone(r.Device)
	r.Evidence = At(p.out.src, l)
	p.out.ABIRejected = append(p.out.ABIRejected, r)
}
