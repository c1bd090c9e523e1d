package ingest

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// netLine handles "NET/<transport> : ..." INFO lines. This file reads
// NCCL's network layer: the net plugin and its devices, the IB/RoCE queue
// pairs and their GIDs, the virtual (merged) devices.
func (l *NCCLLog) netLine(o origin, host, msg string, ev Evidence) {
	name, rest, ok := cutNetPrefix(msg)
	if !ok {
		return
	}
	if fn, after, ok := strings.Cut(rest, ": "); ok && strings.HasPrefix(fn, "ncclIb") && !strings.ContainsRune(fn, ' ') {
		// NCCL 2.30 puts the function before the text: "NET/IB:
		// ncclIbConnect: NCCL Dev 0 IbDev 0 Port 1 qp_num 704 mtu 5 GID 3 ...".
		rest = after
	}
	if i := strings.Index(rest, "; OOB "); i >= 0 {
		l.learnBoot(o, bootAddr(rest[i+len("; OOB "):]))
		l.IfaceFound.add(host, ev)
	}
	switch {
	case strings.HasPrefix(rest, "GPU Direct RDMA "):
		l.gdr(host, msg, ev)
	case name == "Plugin":
		if pluginNone(rest) {
			l.NoNetPlugin.add(host, ev)
		} else {
			l.Plugins.add(host, ev)
		}
		if pluginFailed(rest) {
			l.PluginFailures.add(host, ev)
		}
	case strings.HasPrefix(rest, "No device found"):
		if name == "IB" {
			l.NoIBDevice.add(host, ev)
		}
	case strings.HasPrefix(rest, "Using "):
		devs := parseNetDevices(rest[len("Using "):])
		if name != "Socket" && name != "IB" && len(devs) > 0 && !slices.ContainsFunc(devs, func(d NetDevice) bool { _, ok := HostAddr(d.Addr); return !ok }) {
			// A net plugin's own list of network interfaces (Google's
			// FastSocket: "[0]enp0s12:10.0.0.6<0>"): every device has an
			// address, so no verbs port is in it, one cut before its link
			// layer ("[0]mlx5_0:1") neither.
			if len(l.PluginDevices) < maxDistinct && l.once(seenKey{kind: 'P', a: host, b: name}) {
				l.PluginDevices = append(l.PluginDevices, NetChoice{Host: host, Name: strings.Clone(name), Evidence: ev})
			}
			break
		}
		for _, d := range devs {
			d.Host, d.Evidence = host, ev
			if name != "Socket" {
				l.addIBDevice(d, true)
			}
			if name == "Socket" && l.once(seenKey{kind: 's', a: host, b: d.Name, c: d.Addr}) {
				l.SocketDevices = append(l.SocketDevices, d)
			}
		}
		if name == "Socket" && len(devs) > 0 {
			l.IfaceFound.add(host, ev)
		}
	case strings.HasPrefix(rest, "NCCL Dev "):
		l.qpMTU(host, rest, ev)
		l.qpLine(host, rest[len("NCCL "):], ev)
	case strings.HasPrefix(rest, "Dev ") && (strings.Contains(rest, " qpn ") || strings.Contains(rest, " qp_num ")):
		l.qpLine(host, rest, ev)
	case name == "IB" && strings.HasPrefix(rest, "IbDev ") && strings.Contains(rest, " qpn "):
		l.IBQPLines.add(host, ev)
	case strings.HasPrefix(rest, "[") && name != "Socket" && (strings.Contains(rest, "/IB") || strings.Contains(rest, "/RoCE")):
		// Each port NCCL opens, on a line of its own: "NET/IB: [0]
		// mlx5_0:1/RoCE" (NCCL 2.3), with its speed and PCI path from 2.20
		// (at TRACE until 2.26, at INFO since 2.27).
		p, ok := parseIBPort(rest)
		if !ok {
			return
		}
		p.Host, p.Evidence = host, ev
		l.addIBDevice(NetDevice{Host: host, Index: p.Index, Name: p.Device, Port: p.Port, LinkLayer: p.LinkLayer, Evidence: ev}, false)
		if len(l.IBPorts) < maxKept && l.once(seenKey{kind: 'p', a: host, b: p.Device, c: strconv.Itoa(p.Port), d: p.Speed.String()}) {
			l.IBPorts = append(l.IBPorts, p)
		}
	case strings.HasPrefix(rest, "Made virtual device"):
		if s, ok := parseVirtualDevice(rest, ev); ok && len(l.VirtualDevices) < maxKept && l.once(seenKey{kind: 'v', a: s.Device, b: s.Rate.String()}) {
			l.VirtualDevices = append(l.VirtualDevices, s)
		}
	}
}

// addIBDevice records an IB device once per host, name and port. The
// "NET/IB : Using" list (using set) gives NCCL's own index of the device
// and the line to cite; a port line before it gives the index in the
// verbs device list, which differs when NCCL_IB_HCA leaves devices out.
func (l *NCCLLog) addIBDevice(d NetDevice, using bool) {
	k := seenKey{kind: 'i', a: d.Host, b: d.Name, c: strconv.Itoa(d.Port)}
	if r, ok := l.ibIdx[k]; ok {
		if using && !r.listed {
			l.IBDevices[r.i] = d
			l.ibIdx[k] = ibRef{r.i, true}
		}
		return
	}
	if len(l.IBDevices) >= maxDistinct {
		return
	}
	k.a, k.b = strings.Clone(k.a), strings.Clone(k.b)
	l.ibIdx[k] = ibRef{len(l.IBDevices), using}
	l.IBDevices = append(l.IBDevices, d)
}

// ibRef is a device's place in IBDevices, and whether a "NET/IB : Using"
// list named it.
type ibRef struct {
	i      int
	listed bool
}

// IBPort is one port NCCL's IB transport opened, on a line of its own:
// "NET/IB: [2] mlx5_2:uverbs2:1/RoCE provider=Mlx5 speed=400000
// context=0x5563d0080110 pciPath=/sys/devices/pci0000:37/.../0000:3b:00.0
// ar=0" (NCCL 2.27 and later at INFO; 2.20 to 2.26 print it without
// provider= at TRACE; 2.3 to 2.19 only "[0] mlx5_0:1/RoCE").
type IBPort struct {
	Host string
	// Index is the device's place in the verbs device list, not NCCL's
	// index (the "NET/IB : Using" list skips devices NCCL_IB_HCA leaves
	// out).
	Index     int
	Device    string // "mlx5_2"
	Port      int
	LinkLayer string // "RoCE" or "IB"
	// Provider is the verbs provider NCCL recognised: "Mlx5" (mlx5 direct
	// verbs) or "None"; "" before NCCL 2.27.
	Provider string
	// Speed is the port's rate: NCCL prints its active_speed and
	// active_width as Mb/s (ncclIbSpeed × ncclIbWidth in net_ib.cc: 4x NDR
	// is 400000); 0 when not printed.
	Speed unit.BitRate
	// PCIPath is the sysfs path of the NIC's PCI function 0 (NCCL sets the
	// function digit to 0 to merge the ports of one NIC); "" when not
	// printed.
	PCIPath string
	// AR is 1 when NCCL turns adaptive routing on for the port (the default
	// on InfiniBand, or NCCL_IB_ADAPTIVE_ROUTING), 0 when off, -1 when not
	// printed.
	AR       int
	Evidence Evidence
}

// PCIAddr returns the PCI address PCIPath ends with ("0000:3b:00.0"), or
// "" when it ends otherwise.
func (p IBPort) PCIAddr() string {
	i := strings.LastIndexByte(p.PCIPath, '/')
	if a := p.PCIPath[i+1:]; strings.Count(a, ":") == 2 && isBDF(a) {
		return a
	}
	return ""
}

// parseIBPort reads a port line after "NET/IB: ": "[2]
// mlx5_2:uverbs2:1/RoCE provider=Mlx5 speed=400000 context=0x..
// pciPath=/sys/... ar=0", or the short "[0] mlx5_0:1/RoCE".
func parseIBPort(rest string) (IBPort, bool) {
	p := IBPort{AR: -1}
	f := strings.Fields(strings.Replace(rest, "] ", "]", 1))
	if len(f) == 0 || f[0][0] != '[' {
		return p, false
	}
	end := strings.IndexByte(f[0], ']')
	if end < 2 {
		return p, false
	}
	p.Index = atoiOr(f[0][1:end], -1)
	name, ll, ok := strings.Cut(f[0][end+1:], "/")
	if p.Index < 0 || !ok {
		return p, false
	}
	// name[:verbs device]:port
	dev, _, _ := strings.Cut(name, ":")
	port := name[strings.LastIndexByte(name, ':')+1:]
	p.Device, p.Port, p.LinkLayer = strings.Clone(dev), atoiOr(port, 0), strings.Clone(ll)
	if p.Device == "" || p.Port <= 0 || (ll != "RoCE" && ll != "IB") {
		return p, false
	}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "provider":
			p.Provider = strings.Clone(v)
		case "speed":
			// A port's rate is at most 12x XDR (2.4 Tb/s) in NCCL's table.
			if r, ok := speedMbps(v, 2400000); ok {
				p.Speed = r
			}
		case "pciPath":
			p.PCIPath = strings.Clone(v)
		case "ar":
			if v == "0" || v == "1" {
				p.AR = int(v[0] - '0')
			}
		}
	}
	return p, true
}

// qpMTU reads the IB MTU enum of "NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5
// ..." (1 = 256 bytes ... 5 = 4096).
func (l *NCCLLog) qpMTU(host, rest string, ev Evidence) {
	n := atoiOr(wordAfter(rest, " mtu "), 0)
	if n < 1 || n > 5 || len(l.MTUs) >= maxKept {
		return
	}
	dev := wordAfter(rest, " IbDev ")
	if l.once(seenKey{kind: 'm', a: host, b: dev, c: strconv.Itoa(n)}) {
		l.MTUs = append(l.MTUs, HostMTU{Host: host, Device: strings.Clone(dev), MTU: 128 << n, Evidence: ev})
	}
}

// pluginFailed reports whether a "NET/Plugin" line says a plugin that is
// there failed to load. A missing libnccl-net.so is NCCL's normal case and
// not a failure; nor is "Failed to find ncclNetPlugin_v8 symbol.": NCCL
// asks a plugin for its newest interface first and takes an older one
// ("Loaded net plugin NCCL RDMA Plugin v6 (v6)" follows).
func pluginFailed(rest string) bool {
	if strings.Contains(rest, "cannot open shared object") || strings.Contains(rest, "No such file") {
		return false
	}
	if sym, ok := strings.CutPrefix(rest, "Failed to find "); ok && (strings.Contains(sym, "Plugin_v") || strings.HasPrefix(sym, "ncclCollNetPlugin")) {
		// A missing CollNet symbol says the plugin brings no CollNet
		// (aws-ofi-nccl's "Failed to find ncclCollNetPlugin symbol (>=
		// v5)", ray-project/ray#43753); its net part loaded.
		return false
	}
	return strings.Contains(rest, "returned") || strings.Contains(rest, "ailed")
}

// pluginNone reports whether a NET/Plugin loader line (the text after
// "NET/Plugin :") says no external net plugin is in use: none found, the
// library missing, NCCL's internal implementation used. Such a line tells
// nothing of the transport, which NCCL's own IB or socket code then picks.
func pluginNone(rest string) bool {
	for _, s := range []string{"No plugin found", "cannot open shared object", "No such file", "Could not find: libnccl-net", "Could not find: librccl-net", "internal implementation", "internal net plugin", "internal network plugin"} {
		if strings.Contains(rest, s) {
			return true
		}
	}
	return false
}

// SocketNet reports whether a network name is a TCP socket transport:
// NCCL's own (NET/Socket) or a plugin named after it (Google's
// FastSocket). GPUDirect RDMA never applies to them.
func SocketNet(name string) bool {
	return strings.Contains(name, "Socket")
}

// pluginNet splits a net plugin's own line ("NET/OFI Selected provider
// is efa") into the plugin's name and the text after it. It reports false
// for NCCL's own transports (NET/IB, NET/Socket) and its plugin loader
// (NET/Plugin).
func pluginNet(msg string) (name, rest string, ok bool) {
	m, ok := strings.CutPrefix(msg, "NET/")
	if !ok {
		return "", "", false
	}
	i := strings.IndexAny(m, " :")
	if i <= 0 {
		return "", "", false
	}
	switch name = m[:i]; name {
	case "IB", "Socket", "Plugin":
		return "", "", false
	}
	return name, strings.TrimLeft(m[i:], " :"), true
}

// PluginTag names the net plugin whose own line msg is ("NET/OFI
// Couldn't open AV" is "OFI"); ok is false for NCCL's own transports and
// plugin loader, and for a line that names none.
func PluginTag(msg string) (name string, ok bool) {
	name, _, ok = pluginNet(msg)
	return name, ok
}

// pluginInitFailed reports whether a line is a net plugin's own report
// that it could not initialise: aws-ofi-nccl's "NET/OFI aws-ofi-nccl
// initialization failed", "NET/OFI Failed to initialize sendrecv
// protocol", "NET/OFI Unable to find a protocol that worked.  Failing
// initialization." and, at INFO, "NET/OFI No eligible providers were
// found", its older "NET/OFI Couldn't find any optimal provider" (no
// libfabric provider with what it needs: aws/aws-ofi-nccl#67, NVIDIA/nccl#229),
// and the device queries that fail the plugin after it started
// ("NET/OFI Invalid type of PCI bus returned 0", "No NIC info for dev 0":
// a libfabric provider that reports no PCI attributes of its NICs).
func pluginInitFailed(msg string) bool {
	_, rest, ok := pluginNet(msg)
	if !ok {
		return false
	}
	r := strings.ToLower(rest)
	for _, p := range []string{"initialization failed", "failed to initiali", "failing initialization", "no eligible providers",
		"find any optimal provider", "invalid type of pci bus", "no nic info for dev"} {
		if strings.Contains(r, p) {
			return true
		}
	}
	return false
}

// pluginGDROff reports whether a net plugin's line says it turned
// GPUDirect RDMA off: aws-ofi-nccl's "Could not disable CUDA API usage for
// HMEM, disabling GDR" and "Need to force simple protocol: GDR not
// supported".
func pluginGDROff(rest string) bool {
	return strings.Contains(rest, "GDR") && (strings.Contains(rest, "disabling") || strings.Contains(rest, "not supported"))
}

// parseVirtualDevice reads "Made virtual device [0] name=mlx5_0 speed=400000
// ndevs=1 ..." (speed in Mb/s).
func parseVirtualDevice(rest string, ev Evidence) (LinkSpeed, bool) {
	var s LinkSpeed
	for _, f := range strings.Fields(rest) {
		switch {
		case strings.HasPrefix(f, "name="):
			s.Device = strings.Clone(f[5:])
		case strings.HasPrefix(f, "speed="):
			r, ok := speedMbps(f[6:], 1<<40)
			if !ok {
				return s, false
			}
			s.Rate = r
		}
	}
	s.Evidence = ev
	return s, s.Rate > 0
}

// speedMbps reads the value of NCCL's "speed=", in Mb/s, from 1 to max.
func speedMbps(v string, max int64) (unit.BitRate, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > max {
		return 0, false
	}
	return unit.BitRate(n) * unit.Mbps, true
}

// QPInfo is a queue pair NCCL describes as it connects (NCCL 2.3 to 2.18:
// "NET/IB: Dev 0 Port 1 qpn 305 mtu 5 LID 4" on InfiniBand, "... mtu 5 GID
// 3 (0/1000A0AFFFF0000)" on RoCE).
type QPInfo struct {
	Host string
	// Dev is NCCL's index of the device (the [i] of its device list);
	// Device its name when the log lists the devices.
	Dev    int
	Device string
	Port   int
	MTU    int // bytes
	// GIDIndex is the GID index the QP uses, -1 on InfiniBand (LID).
	GIDIndex int
	// GID is the GID at that index, decoded from the subnet prefix and
	// interface id NCCL prints in host byte order; "" when not printed.
	GID      string
	Evidence Evidence
}

// qpLine reads "Dev 0 Port 1 qpn 305 mtu 5 GID 3 (0/1000A0AFFFF0000)".
func (l *NCCLLog) qpLine(host, rest string, ev Evidence) {
	f := strings.Fields(rest)
	q := QPInfo{Host: host, Dev: -1, GIDIndex: -1, Evidence: ev}
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "Dev":
			q.Dev = atoiOr(f[i+1], -1)
		case "Port":
			q.Port = atoiOr(f[i+1], 0)
		case "mtu":
			if n := atoiOr(f[i+1], 0); n >= 1 && n <= 5 {
				q.MTU = 128 << n
			}
		case "GID":
			q.GIDIndex = atoiOr(f[i+1], -1)
			if i+2 < len(f) {
				q.GID = decodeQPGID(f[i+2])
			}
		}
	}
	if q.Dev < 0 || len(l.QPs) >= maxKept {
		return
	}
	for _, d := range l.IBDevices {
		if d.Host == host && d.Index == q.Dev {
			q.Device = d.Name
		}
	}
	if l.once(seenKey{kind: 'q', a: host, b: strconv.Itoa(q.Dev), c: strconv.Itoa(q.GIDIndex), d: q.GID}) {
		l.QPs = append(l.QPs, q)
	}
}

// decodeQPGID turns NCCL's "(%lX/%lX)" print of a GID's subnet prefix and
// interface id — two 64-bit words in network byte order printed as
// little-endian integers — back into the GID: "(0/1000A0AFFFF0000)" is
// ::ffff:10.10.0.1, "(80FE/...)" a link-local fe80:: GID.
func decodeQPGID(s string) string {
	s = strings.Trim(s, "()")
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return ""
	}
	spn, err1 := strconv.ParseUint(a, 16, 64)
	iid, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return ""
	}
	var g [16]byte
	binary.LittleEndian.PutUint64(g[:8], spn)
	binary.LittleEndian.PutUint64(g[8:], iid)
	return netip.AddrFrom16(g).String()
}
