package ingest

import (
	"strconv"
	"strings"
)

// NCCL's connection lines ("Channel 00/0 : 0[0] -> 8[0] [send] via
// NET/IB/0/GDRDMA"): which transport each channel takes, counted per host,
// and the ring order they print.

func (l *NCCLLog) channel(host, msg string, ev Evidence) {
	head, via, ok := strings.Cut(msg, " via ")
	if !ok {
		l.ringOrder(msg)
		return
	}
	if strings.HasPrefix(via, "NET/") {
		l.shapeNetConn(head, ev)
	}
	recv := strings.Contains(head, "[receive]")
	send := strings.Contains(head, "[send]")
	if r, ok := localRank(head, recv); ok && l.once(seenKey{kind: 'r', a: host, b: strconv.Itoa(r)}) {
		l.ConnRanks = append(l.ConnRanks, HostRank{host, r})
	}
	i, ok := l.vias[viaKey{host, via}]
	if !ok {
		kind, net, _ := classifyTransport(via)
		if i, ok = l.chanIdx[chanKey{host, kind, net}]; !ok {
			if len(l.Channels) >= maxDistinct {
				return
			}
			net = strings.Clone(net)
			i = len(l.Channels)
			l.chanIdx[chanKey{host, kind, net}] = i
			l.Channels = append(l.Channels, ChannelStat{Host: host, Kind: kind, Net: net, First: ev})
		}
		if len(l.vias) < maxDistinct {
			l.vias[viaKey{host, strings.Clone(via)}] = i
		}
	}
	c := &l.Channels[i]
	gdr := strings.Contains(via, "/GDRDMA")
	kind := c.Kind
	c.Count++
	if recv {
		c.Recv++
	}
	if send {
		c.Send++
	}
	if gdr {
		c.GDR++
		if recv {
			c.RecvGDR++
		}
		if send {
			c.SendGDR++
		}
	} else if kind == "NET" && c.FirstNoGDR.Line == 0 {
		c.FirstNoGDR = ev
	}
	if kind == "NET" {
		if d, ok := netDevIndex(via); ok {
			c.Devs |= 1 << d
		} else {
			c.NoDev++
		}
	}
}

// localRank reads the rank that prints a connection line from its head,
// "Channel 00/0 : 8[0] -> 0[0] [receive]": the receiver of a [receive]
// line, else the sender (send lines, and the P2P and SHM lines that only
// the sender prints).
func localRank(head string, recv bool) (int, bool) {
	_, pair, ok := strings.Cut(head, " : ")
	if !ok {
		return 0, false
	}
	from, to, ok := strings.Cut(pair, "->")
	if !ok {
		return 0, false
	}
	side := from
	if recv {
		side = to
	}
	num, _, _ := strings.Cut(strings.TrimSpace(side), "[")
	num, _, _ = strings.Cut(num, " ")
	r := atoiOr(num, -1)
	return r, r >= 0
}

// netDevIndex reads the device index of "NET/IB/1(2)/GDRDMA": the number
// after the network's name (in parentheses, the proxy rank PXN goes
// through), below 64.
func netDevIndex(via string) (int, bool) {
	f := strings.SplitN(strings.TrimSpace(via), "/", 4)
	if len(f) < 3 {
		return 0, false
	}
	num, _, _ := strings.Cut(f[2], "(")
	d := atoiOr(num, -1)
	return d, d >= 0 && d < 64
}

// ringOrder reads the channel count from "Channel 00/02 :    0   1".
func (l *NCCLLog) ringOrder(msg string) {
	rest, ok := strings.CutPrefix(msg, "Channel ")
	if !ok {
		return
	}
	id, order, _ := strings.Cut(rest, " ")
	_, n, ok := strings.Cut(id, "/")
	if !ok {
		return
	}
	_, order, _ = strings.Cut(order, ":")
	ranks := strings.Fields(order)
	for _, r := range ranks {
		if atoiOr(r, -1) < 0 {
			return // not a ring order: two processes' lines run together
		}
	}
	l.NChannels = max(l.NChannels, atoiOr(n, 0))
	l.Comm.Ranks = max(l.Comm.Ranks, len(ranks))
}

// chanKey indexes ChannelStat by host and transport.
type chanKey struct{ host, kind, net string }

// viaKey indexes ChannelStat by host and the text after " via ".
type viaKey struct{ host, via string }

// classifyTransport splits what follows " via " in a connection line:
// "NET/IB/1(2)/GDRDMA/Shared", "P2P/IPC/read", "direct shared memory",
// "SHM/direct/direct", "COLLNET/IBext/0/GDRDMA".
func classifyTransport(via string) (kind, net string, gdr bool) {
	via = strings.TrimSpace(via)
	gdr = strings.Contains(via, "/GDRDMA")
	first, rest, _ := strings.Cut(via, "/")
	second, _, _ := strings.Cut(rest, "/")
	switch first {
	case "NET", "COLLNET":
		return first, second, gdr
	case "P2P":
		return "P2P", second, false
	case "SHM":
		return "SHM", "", false
	}
	if strings.Contains(via, "shared memory") {
		return "SHM", "", false
	}
	return "OTHER", "", false
}
