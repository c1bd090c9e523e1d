package ingest

import (
	"fmt"
	"slices"
	"strings"
)

// Which machine printed an NCCL line. NCCL's prefix names the host as
// gethostname() gives it, cut at the first dot (so "gpu1.rack1" and
// "gpu1.rack2" print alike), and posters redact it to one placeholder or
// strip it. Every process states the address it bootstraps on, at its
// start:
//
//	Bootstrap : Using eth0:10.0.0.1<0>             (2.4 to 2.25; "[0]eth0" in 2.5)
//	Bootstrap: Using eth0:10.0.0.1<0>              (2.26+)
//	NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>
//	NET : Using interface eth0:10.0.0.1<0>         (2.3)
//
// so a process is known by its printed name and pid, and a host by the
// name and the address. Processes that print one name but bootstrap on
// different addresses run on different machines: their lines are
// attributed to "name (address)". Lines whose prefix names no real host
// are attributed to the address alone.

// procKey identifies a process: the host name it printed and its pid
// (-1 when the prefix has none).
type procKey struct {
	name string
	pid  int
}

// learnBoot records the address a process bootstraps on.
func (l *NCCLLog) learnBoot(o origin, addr string) {
	a, ok := HostAddr(addr)
	if !ok || len(l.procBoot) >= maxDistinct {
		return
	}
	k := procKey{o.name, o.pid}
	if _, ok := l.procBoot[k]; ok {
		return
	}
	l.procBoot[k] = a
	bs := l.bootAddrs[o.name]
	if slices.Contains(bs, a) {
		return
	}
	bs = append(bs, a)
	l.bootAddrs[strings.Clone(o.name)] = bs
	if !RealHost(o.name) || len(bs) >= 2 {
		// The name now resolves differently: forget cached prefixes.
		clear(l.origins)
	}
}

// resolveHost is the host label for a line printed by process (name, pid).
func (l *NCCLLog) resolveHost(name string, pid int) string {
	bs := l.bootAddrs[name]
	if len(bs) == 0 || RealHost(name) && len(bs) == 1 {
		return name
	}
	a, ok := l.procBoot[procKey{name, pid}]
	switch {
	case !ok && !RealHost(name) && len(bs) == 1:
		return bs[0]
	case !ok:
		return name
	case RealHost(name):
		return name + " (" + a + ")"
	}
	return a
}

// bootAddr reads the address out of "eth0:10.0.0.1<0>", "[0]br0:10.1.2.3<0>"
// or "ib1:fe80::1%ib1<0>".
func bootAddr(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ']'); i >= 0 && strings.HasPrefix(s, "[") {
		s = s[i+1:]
	}
	_, a, ok := strings.Cut(s, ":")
	if !ok {
		return ""
	}
	a, _, _ = strings.Cut(a, " ")
	return a
}

// BootIface is the interface a host's NCCL bootstraps on and the family
// its address has by its form: "IPv4" (a redacted X.X.X.X too), "IPv6",
// "IPv6 link-local", or "" when the form says neither.
type BootIface struct {
	Host, Iface, Addr, Family string
	Evidence                  Evidence
}

// addBootIface records the interface of "eth0:10.0.0.1<0>",
// "[0]bond0:10.1.2.3<0>" or "ib0:fe80::1%ib0<0>".
func (l *NCCLLog) addBootIface(host, s string, ev Evidence) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ']'); i >= 0 && strings.HasPrefix(s, "[") {
		s = s[i+1:]
	}
	iface, addr, ok := strings.Cut(s, ":")
	if !ok || iface == "" || strings.ContainsAny(iface, " <") || len(l.BootIfaces) >= maxDistinct || !l.once(seenKey{kind: 'B', a: host, b: iface}) {
		return
	}
	addr, _, _ = strings.Cut(addr, "<")
	addr, _, _ = strings.Cut(addr, " ")
	fam := ""
	switch {
	case strings.HasPrefix(strings.ToLower(addr), "fe80:"):
		fam = "IPv6 link-local"
	case strings.Count(addr, ":") >= 2:
		fam = "IPv6"
	case strings.Count(addr, ".") == 3:
		fam = "IPv4"
	}
	l.BootIfaces = append(l.BootIfaces, BootIface{Host: host, Iface: strings.Clone(iface), Addr: strings.Clone(addr), Family: fam, Evidence: ev})
}

// finishHosts attributes the lines printed before a name was known to
// stand for several machines, or before an unnamed process stated its
// address: a name with several addresses keeps its first machine's lines
// as "name (first address)"; an unnamed host with one address becomes
// that address.
func (l *NCCLLog) finishHosts() {
	rename := map[string]string{}
	for name, bs := range l.bootAddrs {
		switch {
		case RealHost(name) && len(bs) >= 2:
			rename[name] = name + " (" + bs[0] + ")"
		case !RealHost(name) && len(bs) == 1:
			rename[name] = bs[0]
		}
	}
	if len(rename) == 0 {
		return
	}
	r := func(h *string) {
		if n, ok := rename[*h]; ok {
			*h = n
		}
	}
	for i := range l.Versions {
		r(&l.Versions[i].Host)
	}
	for i := range l.Networks {
		r(&l.Networks[i].Host)
	}
	for i := range l.IBDevices {
		r(&l.IBDevices[i].Host)
	}
	for i := range l.SocketDevices {
		r(&l.SocketDevices[i].Host)
	}
	for i := range l.PluginDevices {
		r(&l.PluginDevices[i].Host)
	}
	for i := range l.IBPorts {
		r(&l.IBPorts[i].Host)
	}
	for _, hl := range []*HostLines{&l.NoIBDevice, &l.IBSkipped, &l.VerbsMissing, &l.Plugins, &l.PluginFailures, &l.PluginInitFailures, &l.PluginGDROff, &l.NoNetwork, &l.IBQPLines, &l.IfaceFound} {
		for i := range hl.Hosts {
			r(&hl.Hosts[i])
		}
	}
	for i := range l.Env {
		r(&l.Env[i].Host)
	}
	for i := range l.BootIfaces {
		r(&l.BootIfaces[i].Host)
	}
	for i := range l.GDR {
		r(&l.GDR[i].Host)
	}
	for i := range l.Channels {
		r(&l.Channels[i].Host)
	}
	for i := range l.ConnRanks {
		r(&l.ConnRanks[i].Host)
	}
	for i := range l.Rings {
		r(&l.Rings[i].Host)
	}
	for i := range l.Completions {
		r(&l.Completions[i].Host)
	}
	for i := range l.Setup {
		r(&l.Setup[i].Host)
	}
	for i := range l.Warnings {
		r(&l.Warnings[i].Host)
	}
	for i := range l.MTUs {
		r(&l.MTUs[i].Host)
	}
	for i := range l.QPs {
		r(&l.QPs[i].Host)
	}
	for i := range l.Fabric {
		r(&l.Fabric[i].Host)
	}
	for i := range l.P2PDisabled {
		r(&l.P2PDisabled[i].Host)
	}
	l.P2PDisabled = mergeP2POff(l.P2PDisabled)
	l.Channels = mergeChannels(l.Channels)
	var hosts []string
	var first []Evidence
	for i, h := range l.hostList {
		r(&h)
		if !slices.Contains(hosts, h) {
			hosts, first = append(hosts, h), append(first, l.hostFirst[i])
		}
	}
	l.hostList, l.hostFirst = hosts, first
}

// soleHostVersions gives the versions printed without NCCL's prefix
// ("NCCL version 2.7.8+cuda11.1", rank 0's banner before NCCL 2.2x) the
// host of a log whose lines name one host only: each rank's log of a job
// is often a file of its own, and the version is then compared across
// them.
func (l *NCCLLog) soleHostVersions() {
	hs := l.Hosts()
	if len(hs) != 1 {
		return
	}
	for i := range l.Versions {
		if !RealHost(l.Versions[i].Host) {
			l.Versions[i].Host = hs[0]
		}
	}
}

// mergeChannels joins the counts of entries of one host and transport.
func mergeChannels(cs []ChannelStat) []ChannelStat {
	idx := map[chanKey]int{}
	out := cs[:0]
	for _, c := range cs {
		k := chanKey{c.Host, c.Kind, c.Net}
		i, ok := idx[k]
		if !ok {
			idx[k] = len(out)
			out = append(out, c)
			continue
		}
		m := &out[i]
		m.Count += c.Count
		m.Recv += c.Recv
		m.Send += c.Send
		m.GDR += c.GDR
		m.RecvGDR += c.RecvGDR
		m.SendGDR += c.SendGDR
		if m.FirstNoGDR.Line == 0 {
			m.FirstNoGDR = c.FirstNoGDR
		}
	}
	return out
}

// HostIdents returns every host the log shows, with the address it
// bootstraps on when stated, in first-seen order; unnamed hosts whose
// address is unknown are left out.
func (l *NCCLLog) HostIdents() []Host {
	var out []Host
	for i, h := range l.hostList {
		id := Host{Evidence: l.hostFirst[i]}
		name, addr := h, ""
		if j := strings.LastIndex(h, " ("); j > 0 && strings.HasSuffix(h, ")") {
			name, addr = h[:j], h[j+2:len(h)-1]
		} else if a, ok := HostAddr(h); ok && a == h {
			name, addr = "", h
		} else if bs := l.bootAddrs[h]; len(bs) == 1 && RealHost(h) {
			addr = bs[0]
		}
		if RealHost(name) {
			id.Name = name
		}
		if addr != "" {
			id.Boot = addr
			id.AddAddr(addr)
		}
		if !id.IsZero() {
			out = append(out, id)
		}
	}
	return out
}

// StatedHost is the one host the log shows, when it shows one.
func (l *NCCLLog) StatedHost() Host {
	ids := l.HostIdents()
	if len(ids) != 1 {
		return Host{}
	}
	return ids[0]
}

// GIDDefaults returns, per host that connects RoCE queue pairs without
// stating a GID index, the index NCCL uses by default: 0 before 2.21, and
// from 2.21 its own choice (Index -1, SetByAuto), which a GID table
// resolves. NCCL echoes NCCL_IB_GID_INDEX when it is set ("set by
// environment to 3."): at every debug subsystem up to 2.15, under
// NCCL_DEBUG_SUBSYS=ENV in 2.16 to 2.19, and by default from 2.20 (NCCL
// src/include/param.h, src/debug.cc). A host is reported only where the
// echo would show: its log connects over NET/IB (the variable is read
// when a queue pair is made), and for 2.16 to 2.19 it echoes other
// variables.
func (l *NCCLLog) GIDDefaults() []GIDUse {
	if !l.RoCE() {
		return nil
	}
	minor, maxMinor, which, dated, ok := l.defaultsVersion()
	if !ok {
		return nil
	}
	envShown := maxMinor >= 0 && maxMinor <= 15 || minor >= 20
	for _, e := range l.Env {
		envShown = envShown || e.How == SetByEcho
	}
	if !envShown {
		return nil
	}
	stated := map[string]bool{}
	for _, e := range l.EnvValues("NCCL_IB_GID_INDEX") {
		stated[e.Host] = true
	}
	for _, q := range l.QPs {
		if q.GIDIndex >= 0 {
			stated[q.Host] = true
		}
	}
	connects := map[string]bool{}
	for _, c := range l.Channels {
		if c.Kind == "NET" && l.IBNet(c.Net) {
			connects[c.Host] = true
		}
	}
	idle := l.IdleIBDevices()
	for _, r := range l.Rings {
		connects[r.Host] = true
	}
	for _, c := range l.Completions {
		connects[c.Host] = true
	}
	var out []GIDUse
	seen := map[string]bool{}
	for _, d := range l.IBDevices {
		if d.LinkLayer != "RoCE" || stated[d.Host] || !connects[d.Host] || seen[d.Host+"\x00"+d.Name] {
			continue
		}
		if slices.Contains(idle, d) {
			continue // listed, but no connection goes over it
		}
		seen[d.Host+"\x00"+d.Name] = true
		u := GIDUse{Host: d.Host, Device: d.Name, Index: 0, SetBy: SetByDefault, Dated: dated, Evidence: d.Evidence,
			Note: "NCCL_IB_GID_INDEX is not set (" + which + " echoes it when it is), and NCCL before 2.21 uses index 0"}
		if minor >= 21 {
			u.Index, u.SetBy = -1, SetByAuto
			u.Note = "NCCL_IB_GID_INDEX is not set, and " + which + " chooses the index itself: the RoCE v2 GID of NCCL_IB_ADDR_FAMILY (default AF_INET), else index 0"
		}
		out = append(out, u)
	}
	return out
}

// defaultsVersion is the NCCL 2.x release whose defaults apply: the first
// version printed (minor and maxMinor alike), else the range the lines'
// shapes allow when it lies wholly on one side of 2.21's change of the GID
// default (maxMinor -1: no upper bound). which names it; dated is the
// inferred range with the lines it rests on, "" for a printed version.
func (l *NCCLLog) defaultsVersion() (minor, maxMinor int, which, dated string, ok bool) {
	if len(l.Versions) > 0 {
		major, minor, ok := parseVersion(l.Versions[0].Version)
		return minor, minor, "NCCL " + l.Versions[0].Version, "", ok && major == 2
	}
	lo, hi, by, ok := l.InferredVersion()
	if !ok || lo < 21 && (hi < 0 || hi >= 21) {
		return 0, 0, "", "", false
	}
	r := VersionShape{MinMinor: lo, MaxMinor: hi}.Range()
	var shapes []string
	for _, s := range by {
		shapes = append(shapes, fmt.Sprintf("%s (%s, line %d)", s.Shape, s.Range(), s.Evidence.Line))
	}
	return lo, hi, "NCCL " + r, r + ": the log prints no NCCL version; its " + strings.Join(shapes, " and ") + " date it", true
}

// IdleIBDevices returns the IB devices a host lists that none of its NET
// connection lines goes over ("via NET/IB/1" on every line, the list's
// [0] idle). It says nothing of a host whose lines do not all name their
// device, nor of NCCL 2.24 and later (or a version not shown): from 2.24
// NET/IB/i counts NCCL's virtual devices, which follow the listed ones
// (2.26.2 lists [0]mlx5_5 alone and connects via NET/IB/1); every
// version the log shows must be older (two runs pasted together may not
// be).
func (l *NCCLLog) IdleIBDevices() []NetDevice {
	if at, known := l.AnyVersionAtLeast(2, 24); at || !known && !l.inferredBefore(24) || len(l.VirtualDevices) > 0 {
		return nil
	}
	used, unnamed := map[string]uint64{}, map[string]bool{}
	for _, c := range l.Channels {
		if c.Kind == "NET" && l.IBNet(c.Net) {
			used[c.Host] |= c.Devs
			unnamed[c.Host] = unnamed[c.Host] || c.NoDev > 0
		}
	}
	var out []NetDevice
	for _, d := range l.IBDevices {
		if u := used[d.Host]; u != 0 && !unnamed[d.Host] && d.Index >= 0 && d.Index < 64 && u&(1<<d.Index) == 0 {
			out = append(out, d)
		}
	}
	return out
}
