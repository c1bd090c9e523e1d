package ingest

import (
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// ibstat prints what ibv_devinfo does, in its own words; its devices are
// read into the same Devinfo:
//
//	CA 'mlx5_0'
//		CA type: MT4125
//		Firmware version: 22.32.2004
//		Node GUID: 0x0c42a103001dd12a
//		Port 1:
//			State: Active
//			Rate: 100
//			Base lid: 0
//			Link layer: Ethernet
//
// Its states become ibv_devinfo's ("Active" is PORT_ACTIVE), its GUIDs
// ibv_devinfo's colon form, and "Rate: 100" the port's line rate in Gb/s.

// The ibstatus script prints one block per port:
//
//	Infiniband device 'mlx5_0' port 1 status:
//		default gid:     fe80:0000:0000:0000:b859:9f03:00d4:fe72
//		base lid:        0x2ed
//		state:           4: ACTIVE
//		rate:            100 Gb/sec (4X EDR)
//		link_layer:      InfiniBand
//
// read the same way; its default GID is the port's GID index 0.

// ibstatLine reads one line of ibstat or ibstatus output; it reports
// whether the line was one.
func (p *devinfoParser) ibstatLine(l Line, t string) bool {
	if rest, ok := strings.CutPrefix(t, "Infiniband device '"); ok && strings.HasSuffix(t, " status:") {
		name, port, ok := strings.Cut(strings.TrimSuffix(rest, " status:"), "' port ")
		n, err := strconv.Atoi(port)
		if !ok || err != nil || !isIdentName(name) {
			return false
		}
		if len(p.out.Devices) == 0 || p.out.Devices[len(p.out.Devices)-1].Name != name {
			if len(p.out.Devices) >= maxDevinfoDevices {
				p.out.Omitted++
				p.ibstat = false
				return true
			}
			p.out.Devices = append(p.out.Devices, DevinfoDevice{Name: strings.Clone(name), Host: p.host, Evidence: At(p.out.src, l)})
		}
		d := &p.out.Devices[len(p.out.Devices)-1]
		d.Ports = appendCapped(d.Ports, DevinfoPort{Port: n, LID: -1, Evidence: map[string]Evidence{"port": At(p.out.src, l)}}, maxDevinfoPorts, &p.out.Omitted)
		p.ibstat, p.inBlock = true, false
		return true
	}
	if name, ok := strings.CutPrefix(t, "CA '"); ok && strings.HasSuffix(name, "'") {
		name = strings.TrimSuffix(name, "'")
		if !isIdentName(name) {
			return false
		}
		if len(p.out.Devices) >= maxDevinfoDevices {
			p.out.Omitted++
			p.ibstat = false
			return true
		}
		p.out.Devices = append(p.out.Devices, DevinfoDevice{Name: name, Host: p.host, Evidence: At(p.out.src, l)})
		p.ibstat, p.inBlock = true, false
		return true
	}
	if !p.ibstat {
		return false
	}
	key, val, ok := strings.Cut(t, ":")
	if !ok {
		return false
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	d := p.dev()
	ev := At(p.out.src, l)
	if n, ok := strings.CutPrefix(key, "Port "); ok && val == "" {
		port, err := strconv.Atoi(n)
		if err != nil {
			return false
		}
		d.Ports = appendCapped(d.Ports, DevinfoPort{Port: port, LID: -1, Evidence: map[string]Evidence{"port": ev}}, maxDevinfoPorts, &p.out.Omitted)
		return true
	}
	switch key {
	case "CA type":
		if n, err := strconv.Atoi(strings.TrimPrefix(val, "MT")); err == nil {
			d.VendorPartID = n
		}
		return true
	case "Firmware version":
		d.FWVer = strings.Clone(val)
		return true
	case "Node GUID":
		d.NodeGUID, d.GUIDLine = ibstatGUID(val), ev
		return true
	case "System image GUID":
		d.SysImageGUID = ibstatGUID(val)
		return true
	case "Number of ports", "Hardware version":
		return true
	}
	if len(d.Ports) == 0 {
		return false
	}
	pt := &d.Ports[len(d.Ports)-1]
	switch key {
	case "State", "state":
		if _, word, ok := strings.Cut(val, ": "); ok {
			val = strings.ToUpper(word[:1]) + strings.ToLower(word[1:]) // ibstatus: "4: ACTIVE"
		}
		pt.State = ibstatState(val)
		pt.Evidence["state"] = ev
	case "phys state", "Physical state":
		if _, word, ok := strings.Cut(val, ": "); ok {
			val = word // ibstatus: "5: LinkUp"
		}
		pt.PhysState = strings.Clone(val)
		pt.Evidence["phys_state"] = ev
	case "sm lid":
	case "default gid":
		class, v4 := ClassifyGID(val)
		if class == GIDUnknown {
			return false
		}
		pt.GIDs = append(pt.GIDs, GIDEntry{Host: d.Host, Device: d.Name, Port: pt.Port, Index: 0, GID: strings.Clone(val), IPv4: v4, Evidence: ev})
	case "rate":
		num, _, _ := strings.Cut(val, " (")
		r, err := unit.ParseRate(strings.ReplaceAll(num, "/sec", "ps"))
		if err != nil || r <= 0 {
			return false
		}
		pt.Rate = r
		pt.Evidence["active_speed"] = ev
	case "base lid":
		n, err := strconv.ParseInt(strings.TrimPrefix(val, "0x"), 16, 32)
		if err != nil {
			return false
		}
		pt.LID = int(n)
		pt.Evidence["port_lid"] = ev
	case "link_layer":
		pt.LinkLayer = strings.Clone(val)
		pt.Evidence["link_layer"] = ev
	case "LMC", "SM lid", "Capability mask", "Port GUID":
	case "Rate":
		// ibstat names an FDR10 port's speed after its rate: "10 (FDR10)",
		// which irdma's 10G Ethernet ports print too.
		num, _, _ := strings.Cut(val, " (")
		n, err := strconv.ParseFloat(num, 64)
		if err != nil || n <= 0 {
			return false
		}
		pt.Rate = unit.BitRate(n * float64(unit.Gbps))
		pt.Evidence["active_speed"] = ev
	case "Base lid":
		pt.LID = atoiPrefix(val)
		pt.Evidence["port_lid"] = ev
	case "Link layer":
		pt.LinkLayer = strings.Clone(val)
		pt.Evidence["link_layer"] = ev
	default:
		return false
	}
	return true
}

// ibstatState maps ibstat's port state to ibv_devinfo's.
// rdmaLinkLine reads one line of `rdma link` (show): "link mlx5_7/1
// subnet_prefix fe80:0000:0000:0000 lid 3403 sm_lid 1 lmc 0 state DOWN
// physical_state POLLING" (InfiniBand) or "link mlx5_0/1 state ACTIVE
// physical_state LINK_UP netdev ens1f0np0" (RoCE). Each line is the
// port's state at one moment, so a line for a port already read starts a
// new block: repeated runs show a port's state change.
func (p *devinfoParser) rdmaLinkLine(l Line, t string) bool {
	rest, ok := strings.CutPrefix(t, "link ")
	if !ok {
		return false
	}
	f := strings.Fields(rest)
	if len(f) < 3 {
		return false
	}
	name, ps, ok := strings.Cut(f[0], "/")
	port, err := strconv.Atoi(ps)
	if !ok || err != nil || !isIdentName(name) {
		return false
	}
	kv := map[string]string{}
	for i := 1; i+1 < len(f); i += 2 {
		kv[f[i]] = f[i+1]
	}
	state := kv["state"]
	if state == "" || kv["lqpn"] != "" || kv["cm-idn"] != "" {
		// `rdma resource show qp` and `cm_id` print "link DEV/PORT lqpn
		// N ... state RTS" (since iproute2 5.1 a CM id "cm-idn N" first,
		// and "lqpn" only with a QP) too: a QP's or CM id's state, not
		// the port's.
		return false
	}
	ev := At(p.out.src, l)
	pt := DevinfoPort{Port: port, LID: -1, State: "PORT_" + strings.ToUpper(state), PhysState: kv["physical_state"], Evidence: map[string]Evidence{"port": ev, "state": ev}}
	switch {
	case kv["lid"] != "" || kv["subnet_prefix"] != "":
		pt.LinkLayer = "InfiniBand"
		pt.LID = atoiOr(kv["lid"], -1)
	case kv["netdev"] != "":
		pt.Netdev = kv["netdev"]
	}
	if len(p.out.Devices) >= maxDevinfoDevices {
		p.out.Omitted++
		return true
	}
	p.out.Devices = append(p.out.Devices, DevinfoDevice{Name: strings.Clone(name), Host: p.host, Ports: []DevinfoPort{pt}, Evidence: ev})
	p.ibstat, p.inBlock = false, false
	return true
}

// ibdev2netdevLine reads a line of Mellanox's ibdev2netdev, the RDMA
// device, its port and the netdev behind it with the netdev's state:
//
//	mlx5_1 port 1 ==> ens12f0np0 (Up)
//	mlx5_0 port 1 ==> ibs108 (Down)
//
// and of `ibdev2netdev -v`, which puts the PCI address first, the chip and
// part number, the card's description and firmware between, and the RDMA
// port's own state before the arrow (the description padded, a state
// padded inside its parentheses, a netdev's note after its state):
//
//	0000:31:00.0 mlx5_0 (MT4117 - MT2138K10121) CX4121A - ConnectX-4 LX SFP28 fw 14.27.1016 port 1 (DOWN  ) ==> ens4f0 (Down)
//
// A RoCE port follows its Ethernet netdev, so the netdev's state is the
// port's; an IPoIB netdev (ib*) says nothing of its InfiniBand port, whose
// state is left unsaid unless -v prints it.
func (p *devinfoParser) ibdev2netdevLine(l Line, t string) bool {
	left, right, ok := strings.Cut(t, " ==> ")
	if !ok {
		return false
	}
	f := strings.Fields(left)
	v, verbose := ibdev2netdevVerbose(f)
	if verbose {
		f = []string{f[1], "port", v.port}
	}
	if len(f) != 3 || f[1] != "port" || !isIdentName(f[0]) {
		return false
	}
	port, err := strconv.Atoi(f[2])
	r := strings.Fields(right)
	if err != nil || len(r) < 2 || len(r) > 2 && !verbose || !isIdentName(r[0]) || len(r[1]) < 3 || r[1][0] != '(' || r[1][len(r[1])-1] != ')' {
		return false
	}
	ev := At(p.out.src, l)
	pt := DevinfoPort{Port: port, LID: -1, Netdev: strings.Clone(r[0]), Evidence: map[string]Evidence{"port": ev}}
	if strings.HasPrefix(r[0], "ib") {
		pt.LinkLayer = "InfiniBand"
		if verbose {
			pt.State = "PORT_" + v.state
			pt.Evidence["state"] = ev
		}
	} else if verbose {
		pt.LinkLayer = "Ethernet"
		pt.State = "PORT_" + v.state
		pt.Evidence["state"] = ev
	} else {
		pt.LinkLayer = "Ethernet"
		switch st := r[1][1 : len(r[1])-1]; st {
		case "Up":
			pt.State = "PORT_ACTIVE"
		case "Down":
			pt.State = "PORT_DOWN"
		default:
			pt.State = "PORT_" + strings.ToUpper(st)
		}
		pt.Evidence["state"] = ev
	}
	if len(p.out.Devices) >= maxDevinfoDevices {
		p.out.Omitted++
		return true
	}
	d := DevinfoDevice{Name: strings.Clone(f[0]), Host: p.host, Ports: []DevinfoPort{pt}, Evidence: ev}
	if verbose {
		d.FWVer, d.VendorPartID = v.fw, v.part
	}
	p.out.Devices = append(p.out.Devices, d)
	p.ibstat, p.inBlock = false, false
	return true
}

// ib2ndVerbose is what an `ibdev2netdev -v` line says before its arrow
// beyond the plain form.
type ib2ndVerbose struct {
	port, state, fw string
	part            int // the chip's PCI device id, 4117 of MT4117
}

// ibdev2netdevVerbose reads the fields before the arrow of an
// `ibdev2netdev -v` line: a PCI address, the device, "(MT4117 - PN)",
// the description, "fw VER port N (STATE)". ok is false for any other.
func ibdev2netdevVerbose(f []string) (ib2ndVerbose, bool) {
	var v ib2ndVerbose
	if len(f) < 8 || strings.Count(f[0], ":") < 1 || !strings.Contains(f[0], ".") || !isIdentName(f[1]) || !strings.HasPrefix(f[2], "(") {
		return v, false
	}
	k := -1
	for i := len(f) - 2; i >= 3; i-- {
		if f[i] == "port" {
			k = i
			break
		}
	}
	if k < 0 || k < 5 || f[k-2] != "fw" {
		return v, false
	}
	st := strings.Join(f[k+2:], "")
	if len(st) < 3 || st[0] != '(' || st[len(st)-1] != ')' {
		return v, false
	}
	v.port, v.fw, v.state = f[k+1], strings.Clone(f[k-1]), strings.ToUpper(st[1:len(st)-1])
	if n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(f[2], "("), "MT")); err == nil {
		v.part = n
	}
	return v, true
}

func ibstatState(s string) string {
	switch s {
	case "Down":
		return "PORT_DOWN (1)"
	case "Initializing":
		return "PORT_INIT (2)"
	case "Armed":
		return "PORT_ARMED (3)"
	case "Active":
		return "PORT_ACTIVE (4)"
	}
	return strings.Clone(s)
}

// ibstatGUID writes "0x0c42a103001dd12a" the way ibv_devinfo does,
// "0c42:a103:001d:d12a", so that both name one adapter alike.
func ibstatGUID(s string) string {
	h := strings.TrimPrefix(strings.ToLower(s), "0x")
	if len(h) != 16 {
		return strings.Clone(s)
	}
	return h[0:4] + ":" + h[4:8] + ":" + h[8:12] + ":" + h[12:16]
}
