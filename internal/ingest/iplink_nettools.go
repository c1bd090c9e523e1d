package ingest

import (
	"cmp"
	"strings"
)

// net-tools' `ifconfig` and `netstat -i` print the statistics `ip -s
// link` does, read from /proc/net/dev, so they are read into the same
// samples under the kernel's names. ifconfig prints each interface's
// block in one of two layouts:
//
//	eth0      Link encap:Ethernet  HWaddr 4c:72:b9:66:c0:d4        (1.60)
//	          RX packets:3811442658 errors:0 dropped:7183 overruns:0 frame:0
//	          TX packets:3587842070 errors:0 dropped:0 overruns:0 carrier:0
//	          collisions:0 txqueuelen:1000
//	          RX bytes:3492834266631 (3.4 TB)  TX bytes:4635258443813 (4.6 TB)
//
//	ens108f0np0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 9000   (2.x)
//	        RX packets 48305  bytes 2898300 (2.8 MB)
//	        RX errors 0  dropped 7  overruns 0  frame 0
//	        TX errors 0  dropped 0 overruns 0  carrier 0  collisions 0
//
// and `netstat -i` a row per interface under "Iface MTU [Met] RX-OK
// RX-ERR RX-DRP RX-OVR TX-OK TX-ERR TX-DRP TX-OVR Flg". /proc/net/dev's
// columns are sums of the kernel's fields where it has several: its drop
// is rx_dropped and rx_missed_errors together (read as rx_dropped, the
// host's drops), its fifo ("overruns", RX-OVR) is rx_fifo_errors; its
// frame (length, overrun, CRC and frame errors) and TX carrier (four
// kinds of carrier fault) sums name no field and are left out.

// netToolsNames maps ifconfig's words, after RX or TX, to the kernel's
// names.
var netToolsNames = map[string]map[string]string{
	"RX": {"packets": "rx_packets", "bytes": "rx_bytes", "errors": "rx_errors", "dropped": "rx_dropped", "overruns": "rx_fifo_errors"},
	"TX": {"packets": "tx_packets", "bytes": "tx_bytes", "errors": "tx_errors", "dropped": "tx_dropped", "overruns": "tx_fifo_errors", "collisions": "collisions"},
}

// netstatNames maps `netstat -i`'s columns to the kernel's names.
var netstatNames = map[string]string{
	"RX-OK": "rx_packets", "RX-ERR": "rx_errors", "RX-DRP": "rx_dropped", "RX-OVR": "rx_fifo_errors",
	"TX-OK": "tx_packets", "TX-ERR": "tx_errors", "TX-DRP": "tx_dropped", "TX-OVR": "tx_fifo_errors",
}

// netTools reads l as net-tools output, reporting whether it was one.
func (p *ipLinkParser) netTools(l Line, st *ipLinkState, t string) bool {
	if dev, kept, ok := ifconfigInterface(t); ok {
		p.flush(st)
		st.row, st.cols, st.netstat, st.ifconfig = "", nil, nil, true
		if kept {
			st.dev, st.host = strings.Clone(dev), strings.Clone(cmp.Or(l.Origin, l.Host))
			st.cur = &CounterSet{Stamp: l.Stamp}
		}
		return true
	}
	if cols, ok := netstatHeader(t); ok {
		p.flush(st)
		st.row, st.cols, st.ifconfig, st.netstat = "", nil, false, cols
		p.out.lines.add(l)
		return true
	}
	if st.netstat != nil {
		if p.netstatRow(l, st) {
			return true
		}
		st.netstat = nil
	}
	if st.ifconfig && st.dev != "" && (strings.HasPrefix(t, "RX ") || strings.HasPrefix(t, "TX ") || strings.HasPrefix(t, "collisions:")) {
		p.ifconfigCounters(l, st)
		return true
	}
	return false
}

// ifconfigInterface reads the first line of an ifconfig block, "eth0:
// flags=4163<...>  mtu 1500" or "eth0      Link encap:Ethernet ...":
// the interface, and whether it is one to read (not loopback).
func ifconfigInterface(t string) (dev string, kept, ok bool) {
	f := strings.Fields(t)
	if len(f) < 2 {
		return "", false, false
	}
	switch {
	case strings.HasSuffix(f[0], ":") && strings.HasPrefix(f[1], "flags="):
		dev = strings.TrimSuffix(f[0], ":")
	case strings.HasPrefix(f[1], "Link") && len(f) > 2 && strings.HasPrefix(f[2], "encap:"):
		dev = f[0]
	default:
		return "", false, false
	}
	if !isIdentName(dev) {
		return "", false, false
	}
	return dev, dev != "lo" && !strings.Contains(t, "LOOPBACK") && !strings.Contains(t, "Local Loopback"), true
}

// ifconfigCounters reads an ifconfig counter line: words and counts
// after RX or TX (a colon between them in 1.60), a unit in parentheses
// after bytes.
func (p *ipLinkParser) ifconfigCounters(l Line, st *ipLinkState) {
	fields, _ := fieldsAt(strings.ReplaceAll(l.Text, ":", " "))
	dir := "TX" // 1.60's "collisions:0" line is TX's
	read := false
	for i := 0; i < len(fields); i++ {
		w := fields[i]
		if w == "RX" || w == "TX" {
			dir = w
			continue
		}
		name, known := netToolsNames[dir][w]
		if !known || i+1 >= len(fields) {
			continue
		}
		v, ok := parseCounterValue(fields[i+1])
		if !ok {
			continue
		}
		i++
		read = true
		if st.cur.has(name) {
			continue
		}
		if !st.cur.add(Counter{Name: name, Value: v, Evidence: At(p.out.src, l)}) {
			p.out.Omitted++
		}
	}
	if read {
		p.out.lines.add(l)
	}
}

// netstatHeader reads `netstat -i`'s header: its columns.
func netstatHeader(t string) ([]string, bool) {
	f := strings.Fields(t)
	if len(f) < 6 || f[0] != "Iface" || f[1] != "MTU" {
		return nil, false
	}
	n := 0
	for _, c := range f {
		if netstatNames[c] != "" {
			n++
		}
	}
	return f, n >= 4
}

// netstatRow reads a row under `netstat -i`'s header as one interface's
// sample, reporting false for a line that is none.
func (p *ipLinkParser) netstatRow(l Line, st *ipLinkState) bool {
	f := strings.Fields(l.Text)
	if len(f) != len(st.netstat) || !isIdentName(f[0]) {
		return false
	}
	set := &CounterSet{Stamp: l.Stamp}
	for i, c := range st.netstat {
		name := netstatNames[c]
		if name == "" {
			continue
		}
		v, ok := parseCounterValue(f[i])
		if !ok {
			return false
		}
		if !set.add(Counter{Name: name, Value: v, Evidence: At(p.out.src, l)}) {
			p.out.Omitted++
		}
	}
	p.out.lines.add(l)
	if f[0] != "lo" {
		p.keep(CounterSample{Kind: KindIPLink, Host: strings.Clone(cmp.Or(l.Origin, l.Host)), Device: strings.Clone(f[0]), After: set})
	}
	return true
}
