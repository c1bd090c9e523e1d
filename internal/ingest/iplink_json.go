package ingest

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// `ip -j -s link` (and -p, and ip -s -s -j) prints one JSON array, an
// object per interface, its statistics under "stats64" ("stats" from
// iproute2 that had no 64-bit ones) by direction:
//
//	[{"ifindex":2,"ifname":"veth2",...,"link_type":"ether",...,
//	  "stats64":{"rx":{"bytes":2116,"packets":27,"errors":0,"dropped":0,
//	  "over_errors":0,"multicast":0,"length_errors":0,"crc_errors":0,...},
//	  "tx":{"bytes":1406,...,"carrier_changes":2}}}]
//
// A key is the kernel's field without its direction (crc_errors is
// rx_crc_errors), but for multicast, collisions and carrier_changes,
// which have none, and otherhost (rx_otherhost_dropped).

// ipLinkJSON gathers the lines of one array until its brackets close.
type ipLinkJSON struct {
	jsonArray
	next bool // set after an `ip -j` command, whose output opens with "["
}

// ipLinkJSONObject is one interface's object.
type ipLinkJSONObject struct {
	IfName   string           `json:"ifname"`
	LinkType string           `json:"link_type"`
	Stats64  *ipLinkJSONStats `json:"stats64"`
	Stats    *ipLinkJSONStats `json:"stats"`
}

// ipLinkJSONStats holds one direction's counters each.
type ipLinkJSONStats struct {
	RX map[string]uint64 `json:"rx"`
	TX map[string]uint64 `json:"tx"`
}

// ipLinkJSONName is the kernel's name of key in direction dir ("rx",
// "tx").
func ipLinkJSONName(dir, key string) string {
	switch key {
	case "multicast", "collisions", "carrier_changes":
		return key
	case "otherhost":
		return "rx_otherhost_dropped"
	}
	return dir + "_" + key
}

// jsonLine gathers a line of an `ip -j` array; it reports whether the
// line was one. An array opens on a line starting `[{"ifindex":` (or
// "[" right after an ip -j command), and a shell command line ends one
// whose brackets never closed.
func (p *ipLinkParser) jsonLine(l Line, t string) bool {
	j := &p.json
	if j.open() && isEthtoolShellLine(t) {
		p.garbleJSON(j.take(), "the array's closing ']' before the next command (the ip -j output is cut)")
		return false
	}
	if c, ok := findCommand(t, "ip"); ok && !j.open() && !strings.HasPrefix(t, "[") {
		j.next = slices.ContainsFunc(c.Args, func(a string) bool {
			return a == "-j" || a == "-json" || a == "--json" || strings.HasPrefix(a, "-j") && strings.Contains(a, "s")
		})
		return false
	}
	if !j.open() {
		if !strings.HasPrefix(t, `[{"ifindex":`) && !(j.next && strings.HasPrefix(t, "[")) {
			j.next = false
			return false
		}
		p.flushAll() // the text dumps before it came first
		j.start()
	}
	j.next = false
	lines, cut := j.add(l, t)
	switch {
	case lines == nil:
	case cut:
		p.garbleJSON(lines, "the array's closing ']' (the ip -j output is cut)")
	default:
		p.readJSON(lines)
	}
	return true
}

// endJSON reports an array the input ends inside.
func (p *ipLinkParser) endJSON() {
	if p.json.open() {
		p.garbleJSON(p.json.take(), "the array's closing ']' before the input ends (the ip -j output is cut)")
	}
}

// garbleJSON reports an array that was cut or does not parse, when it
// is ip's (it names "ifindex").
func (p *ipLinkParser) garbleJSON(lines []Line, expected string) {
	if !slices.ContainsFunc(lines, func(l Line) bool { return strings.Contains(l.Text, `"ifindex"`) }) {
		return
	}
	p.garble(openingGarble(lines, expected))
	p.out.lines.add(lines[0])
}

// readJSON reads one gathered array into a dump per interface, each
// counter's evidence the line of its "stats64" key.
func (p *ipLinkParser) readJSON(lines []Line) {
	var objs []ipLinkJSONObject
	if err := json.Unmarshal([]byte(jsonText(lines)), &objs); err != nil {
		p.garbleJSON(lines, "an ip -j array ("+err.Error()+")")
		return
	}
	starts := jsonElementLines(lines)
	host := cmpOrigin(lines[0])
	read := false
	for i, o := range objs {
		st := o.Stats64
		if st == nil {
			st = o.Stats
		}
		if st == nil || i >= len(starts) || o.LinkType == "loopback" || o.IfName == "lo" || !isIdentName(o.IfName) {
			continue
		}
		key := "stats64"
		if o.Stats64 == nil {
			key = "stats"
		}
		ev := jsonKeyEvidence(p.out.src, lines, starts[i], `"`+o.IfName+`"`, `"`+key+`"`)
		set := &CounterSet{Stamp: lines[starts[i]].Stamp}
		for _, d := range []struct {
			dir string
			m   map[string]uint64
		}{{"rx", st.RX}, {"tx", st.TX}} {
			for _, k := range slices.Sorted(maps.Keys(d.m)) {
				if !set.add(Counter{Name: ipLinkJSONName(d.dir, k), Value: d.m[k], Evidence: ev}) {
					p.out.Omitted++
				}
			}
		}
		if set.Len() > 0 {
			p.keep(CounterSample{Kind: KindIPLink, Host: host, Device: strings.Clone(o.IfName), After: set})
			read = true
		}
	}
	if read {
		for _, l := range lines {
			p.out.lines.add(l)
		}
	}
}

// jsonKeyEvidence is the evidence of key where it first follows name
// from line from on (one line may hold every interface's object), with
// the key's column.
func jsonKeyEvidence(src string, lines []Line, from int, name, key string) Evidence {
	named := false
	for i := from; i < len(lines); i++ {
		t, off := lines[i].Text, 0
		if !named {
			n := strings.Index(t, name)
			if n < 0 {
				continue
			}
			named, off = true, n+len(name)
		}
		if k := strings.Index(t[off:], key); k >= 0 {
			e := At(src, lines[i])
			e.Col = lines[i].Col(off + k)
			return e
		}
	}
	return At(src, lines[from])
}

// cmpOrigin is the host a line names: its pdsh prefix's, else its
// prompt's.
func cmpOrigin(l Line) string {
	if l.Origin != "" {
		return strings.Clone(l.Origin)
	}
	return strings.Clone(l.Host)
}
