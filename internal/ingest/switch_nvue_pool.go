package ingest

import (
	"slices"
	"strings"

	"rocelab/internal/nvue"
)

// nvuePoolMap reads NVIDIA Cumulus Linux's RoCE pool status: `nv show
// interface qos-roce-status-pool-map` (every interface, each table under
// an "Interface: swpN" title), `nv show interface <swp> qos roce status
// pool-map`, and the "RoCE Pool Status" table of `nv show interface <swp>
// qos roce status`. Each row is a buffer pool of the port (its name,
// DYNAMIC or STATIC, pool id, the switch priorities or traffic classes it
// holds, its size, current and maximum usage); the maximum usage is the
// pool's peak, judged against its size as any shared pool's. A size of
// "inf" is no size to judge against.
type nvuePoolMap struct {
	in bool
	// port is the interface the last "Interface:" title named.
	port string
}

// nvuePoolHeader is the header of the pool status table.
var nvuePoolHeader = []string{"name", "mode", "pool-id", "switch-priorities", "traffic-class", "size", "current-usage", "max-usage"}

// feed reads l when it belongs to a pool status table; cmdPort is the
// interface the last `nv show interface <swp>` command named.
func (n *nvuePoolMap) feed(p *switchParser, l Line, t, cmdPort string) bool {
	f := strings.Fields(t)
	switch {
	case strings.HasPrefix(t, "Interface: swp") && len(f) == 2:
		n.port, n.in = strings.Clone(f[1]), false
		p.out.lines.add(l)
		return true
	case slices.Equal(f, nvuePoolHeader):
		n.in = true
		p.out.lines.add(l)
		return true
	case !n.in:
		return false
	case isRule(t):
		p.out.lines.add(l)
		return true
	case len(f) < 9 || !isDigits(f[0]):
		n.in = false
		return false
	}
	port := n.port
	if port == "" {
		port = cmdPort
	}
	vals, ok := poolValues(f[6:])
	if !ok {
		p.out.Garbled = append(p.out.Garbled, garbleAt(l, strings.Index(l.Text, f[6]),
			"a RoCE pool status row as NVUE prints it: size, current-usage and max-usage, each \"inf\", a count of bytes or a size with its unit (\"14.02 MB\", \"0 Bytes\")"))
		p.out.lines.add(l)
		return true
	}
	name := f[1]
	if port != "" {
		name = port + " " + name
	}
	typ := ""
	switch {
	case strings.HasSuffix(f[1], "-ingress"):
		typ = "ingress"
	case strings.HasSuffix(f[1], "-egress"):
		typ = "egress"
	}
	p.out.Pools = appendCapped(p.out.Pools, BufferPool{Name: strings.Clone(name), Type: typ, Mode: strings.ToLower(f[2]),
		Size: vals[0], Peak: vals[2], HeadroomPeak: -1, NVUE: true, Evidence: []Evidence{At(p.out.src, l)}}, maxSwitchRows, &p.out.Omitted)
	p.out.lines.add(l)
	return true
}

// poolValues reads the size, current-usage and max-usage cells: "inf"
// (-1), a bare count of bytes, or a number and its unit.
func poolValues(f []string) ([3]int64, bool) {
	var v [3]int64
	i := 0
	for k := range v {
		switch {
		case i >= len(f):
			return v, false
		case f[i] == "inf":
			v[k] = -1
			i++
		case i+1 < len(f) && isSizeUnit(f[i+1]):
			b, ok := nvue.Size(f[i] + " " + f[i+1])
			if !ok {
				return v, false
			}
			v[k] = b
			i += 2
		default:
			b, ok := nvue.Size(f[i])
			if !ok {
				return v, false
			}
			v[k] = b
			i++
		}
	}
	return v, i == len(f)
}

// isSizeUnit reports whether w is a unit NVUE prints sizes in.
func isSizeUnit(w string) bool {
	switch w {
	case "B", "Bytes", "KB", "MB", "GB":
		return true
	}
	return false
}
