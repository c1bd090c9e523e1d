package ingest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// `rdma -j statistic show` prints the ports' counters as one JSON array,
// an object per port with the counters as its keys beside "ifname" and
// "port":
//
//	[{"ifname":"mlx5_0","port":1,"rx_write_requests":0,"out_of_sequence":17,...}]
//
// on one line, spread over many with -p ("[ {" first), or reindented by
// jq or Python ("[" and "{" on lines of their own). `rdma -j
// statistic qp show` prints a counter object per element instead, its
// "ifindex", "cntn", "qp-type", "pid", "comm" and "lqpn" (a list of the
// QPs bound to it) beside the counters (iproute2's rdma/stat.c
// res_counter_line); each object is its own sample. The parser
// gathers the array as ethtool --json's reader does and reads each port
// object's numeric keys as its counters; keys that are no counter
// (strings, lists, objects) are left.

// rdmaJSONCommand reports an `rdma` command line printing statistics as
// JSON (-j, --json, or -j among combined flags such as -pj).
func rdmaJSONCommand(t string) bool { return rdmaJSONOf(t, "stat") }

// rdmaJSONOf reports an `rdma` command line printing the object whose
// name starts with object ("stat" for statistic, "res" for resource) as
// JSON.
func rdmaJSONOf(t, object string) bool {
	c, ok := findCommand(t, "rdma")
	if !ok {
		return false
	}
	json, named := false, false
	for _, a := range c.Args {
		switch {
		case a == "--json" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "j"):
			json = true
		case strings.HasPrefix(a, object):
			named = true
		}
	}
	return json && named
}

// jsonLine gathers a line of an `rdma -j statistic` array and reports
// whether it was one: an array opens on the line after such a command, on
// a line that opens one with a port object ("[{"ifname"", "[ {") or a qp
// counter object ("[{"ifindex"" with "cntn"; ip -j's links have none), or
// on the first key of an array reformatted with "[" and "{" on lines of
// their own (jq, Python's json.dump with indent) when that key is
// "ifname", as a port object's is (bareOpens).
func (p *hwParser) jsonLine(l Line, t string) bool {
	if !p.json.open() {
		bare := p.bareOpens(l, t)
		opens := bare || strings.HasPrefix(t, "[") && (p.jsonNext || strings.HasPrefix(t, `[{"ifname"`) || t == "[ {" ||
			strings.HasPrefix(t, `[{"ifindex"`) && strings.Contains(t, `"cntn"`))
		p.jsonNext = rdmaJSONCommand(t)
		if !opens {
			return p.jsonNext
		}
		p.json.start()
		if bare {
			for _, b := range p.bare {
				p.json.add(b, strings.TrimSpace(b.Text))
			}
		}
		p.bare = p.bare[:0]
	}
	p.jsonCmd = p.jsonNext
	p.jsonNext = false
	rdmaArrayLine(&p.json, l, t, p.readJSON, p.garbleJSON)
	return true
}

// rdmaArrayLine adds l to arr, an rdma -j array being gathered, and hands
// its lines to read when its brackets close, or to garble when it runs
// past the bound.
func rdmaArrayLine(arr *jsonArray, l Line, t string, read func([]Line), garble func([]Line, string)) {
	switch lines, cut := arr.add(l, t); {
	case lines == nil:
	case cut:
		garble(lines, fmt.Sprintf("the array's closing ']' within %d lines (the rdma -j output is cut)", maxEthtoolJSONLines))
	default:
		read(lines)
	}
}

// bareOpens keeps the "[" and "{" lines that may open a reformatted
// array and reports, on the line after them, whether it names "ifname"
// first; any other line forgets them.
func (p *hwParser) bareOpens(l Line, t string) bool {
	switch {
	case t == "[":
		p.bare = append(p.bare[:0], l)
	case t == "{" && len(p.bare) == 1:
		p.bare = append(p.bare, l)
	case len(p.bare) == 2 && strings.HasPrefix(t, `"ifname"`):
		return true
	default:
		p.bare = p.bare[:0]
	}
	return false
}

// garbleJSON reports an array that was cut or does not parse at its
// first line's "[", when it is rdma's: opened after an `rdma -j
// statistic` command, or naming "ifname" and "port".
func (p *hwParser) garbleJSON(lines []Line, expected string) {
	if len(lines) == 0 || len(p.out.Garbled) >= maxEthtoolGarbled {
		return
	}
	ifname, port := p.jsonCmd, p.jsonCmd
	for _, l := range lines {
		ifname = ifname || strings.Contains(l.Text, `"ifname"`)
		port = port || strings.Contains(l.Text, `"port"`)
	}
	if !ifname || !port {
		return
	}
	p.out.Garbled = append(p.out.Garbled, openingGarble(lines, expected))
	p.out.lines.add(lines[0])
}

// readJSON reads one gathered array's port objects. A counter's evidence
// is the first line from its object's "ifname" on that names it.
func (p *hwParser) readJSON(lines []Line) {
	var objs []map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(jsonText(lines)))
	dec.UseNumber()
	if err := dec.Decode(&objs); err != nil {
		// A syntax error, or an element that is no object ("[1,2]").
		p.garbleJSON(lines, "an rdma -j statistic array of port objects ("+err.Error()+")")
		return
	}
	from := 0
	for _, o := range objs {
		var dev string
		var port int
		if json.Unmarshal(o["ifname"], &dev) != nil || json.Unmarshal(o["port"], &port) != nil || dev == "" || o["state"] != nil {
			// An object with a "state" is a QP or CM id of `rdma -j
			// resource show` (rdmares_json.go), whose lqpn, rqpn and PSNs
			// are no counters.
			continue
		}
		from = lineNaming(lines, from, `"ifname"`)
		k := hwKey{dev: dev, port: port, obj: jsonQPObject(o)}
		names := make([]string, 0, len(o))
		for name := range o {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if slices.Contains(jsonPortKeys, name) || slices.Contains(qpAttrs, name) || !isCounterFileName(name, true) {
				continue
			}
			var n json.Number
			if json.Unmarshal(o[name], &n) != nil {
				continue
			}
			v, ok := parseCounterValue(n.String())
			if !ok {
				continue
			}
			l := lines[lineNaming(lines, from, `"`+name+`"`)]
			p.add(k, name, v, l)
			p.out.lines.add(l)
		}
		from++
	}
}

// lineNaming returns the index of the first of lines from from on that
// holds s, or from when none does (one-line JSON holds every key).
func lineNaming(lines []Line, from int, s string) int {
	for i := min(from, len(lines)-1); i < len(lines); i++ {
		if strings.Contains(lines[i].Text, s) {
			return i
		}
	}
	return min(from, len(lines)-1)
}

// jsonPortKeys name the port an object of `rdma -j statistic` belongs to;
// they are no counters.
var jsonPortKeys = []string{"ifindex", "ifname", "port"}

// jsonQPObject names the counter object of an `rdma -j statistic qp show`
// object, which holds "cntn", "qp-type", "pid", "comm" and the QPs bound
// to it as "lqpn":[178,...] beside its counters; "" for a port's object.
func jsonQPObject(o map[string]json.RawMessage) string {
	attrs := map[string]string{}
	for _, a := range []string{"cntn", "pid", "comm"} {
		var v any
		if dec := json.NewDecoder(strings.NewReader(string(o[a]))); o[a] != nil {
			dec.UseNumber()
			if dec.Decode(&v) == nil && v != nil {
				attrs[a] = fmt.Sprint(v)
			}
		}
	}
	var qps []json.Number
	if json.Unmarshal(o["lqpn"], &qps) == nil && len(qps) > 0 {
		q := make([]string, len(qps))
		for i, n := range qps {
			q[i] = n.String()
		}
		attrs["lqpn"] = strings.Join(q, ",")
	}
	if len(attrs) == 0 {
		return ""
	}
	return qpName(attrs)
}
