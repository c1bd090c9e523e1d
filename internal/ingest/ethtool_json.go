package ingest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ethtool --json prints the netlink replies as one JSON array per command,
// an object per interface:
//
//	[ {
//	        "ifname": "eth0",
//	        "config": [ "None" ],
//	        "active": [ "None" ],
//	        "statistics": {
//	            "uncorrectable_blocks": {
//	                "total": 145,
//	                "lanes": [ 128,17 ]
//	            }
//	        }
//	    } ]
//
// for `--show-fec` (-I adds "statistics"), and for `-S --groups` or
// --all-groups the standard statistics by group ("eth-phy": {
// "SymbolErrorDuringCarrier": 0 }, "eth-mac": {...}). The parser gathers
// the array's lines, whatever their layout (ethtool's own, jq's, one
// line), and reads it into the same FEC settings and counter dumps as the
// text output: a group's counter is named as the text prints it,
// "eth-mac-FrameCheckSequenceErrors".

// maxEthtoolJSONLines bounds the lines one array may span: ethtool prints
// well under a hundred per interface.
const maxEthtoolJSONLines = 4096

// ethtoolJSONObject is one interface's object.
type ethtoolJSONObject struct {
	IfName     string   `json:"ifname"`
	Config     []string `json:"config"`
	Active     []string `json:"active"`
	Statistics *struct {
		Corrected     *ethtoolJSONBlocks `json:"corrected_blocks"`
		Uncorrectable *ethtoolJSONBlocks `json:"uncorrectable_blocks"`
	} `json:"statistics"`
}

// ethtoolJSONBlocks is a FEC block count with its per-lane counts.
type ethtoolJSONBlocks struct {
	Total *uint64  `json:"total"`
	Lanes []uint64 `json:"lanes"`
}

// ethtoolStdGroups are the standard statistics' groups, as the kernel
// names them (net/ethtool/stats.c stats_std_names).
var ethtoolStdGroups = []string{"eth-phy", "eth-mac", "eth-ctrl", "rmon"}

// jsonLine gathers a line of an ethtool --json array; it reports whether
// the line was one. An array opens on "[ {" (ethtool's layout) or on a
// line starting "[" right after an `ethtool --json` command. A shell
// command line ends an array whose brackets never closed (a paste cut
// short): the array is reported cut and the line read as any other.
func (p *ethtoolParser) jsonLine(l Line, t string) bool {
	if p.json.open() && isEthtoolShellLine(t) {
		p.garbleJSON(p.json.take(), "the array's closing ']' before the next command (the ethtool --json output is cut)")
		return false
	}
	if !p.json.open() {
		if t != "[ {" && !(p.jsonNext && strings.HasPrefix(t, "[")) {
			p.jsonNext = false
			return false
		}
		p.flush()
		p.jsonCmd = p.jsonNext
		p.json.start()
	}
	p.jsonNext = false
	lines, cut := p.json.add(l, t)
	switch {
	case lines == nil:
		return true
	case cut:
		p.garbleJSON(lines, fmt.Sprintf("the array's closing ']' within %d lines (the ethtool --json output is cut)", maxEthtoolJSONLines))
	default:
		p.readJSON(lines)
	}
	return true
}

// endJSON reports an array the input ends inside.
func (p *ethtoolParser) endJSON() {
	if p.json.open() {
		p.garbleJSON(p.json.take(), "the array's closing ']' before the input ends (the ethtool --json output is cut)")
	}
}

// isEthtoolShellLine reports whether t is a shell command line: one
// starting with a prompt ("[root@cn3 ~]# ", "user@host:~$ ") or "$ " / "# ".
func isEthtoolShellLine(t string) bool {
	return isShellLine(t) || promptHost(t) != "" && (strings.Contains(t, "$ ") || strings.Contains(t, "# "))
}

// maxEthtoolGarbled bounds the arrays reported as unreadable.
const maxEthtoolGarbled = 64

// garbleJSON reports an array that was cut or does not parse at its
// first line's "[", when it is ethtool's: opened after an ethtool --json
// command, or naming "ifname".
func (p *ethtoolParser) garbleJSON(lines []Line, expected string) {
	if len(lines) == 0 || len(p.out.Garbled) >= maxEthtoolGarbled {
		return
	}
	ours := p.jsonCmd
	for _, l := range lines {
		ours = ours || strings.Contains(l.Text, `"ifname"`)
	}
	if !ours {
		return
	}
	p.out.Garbled = append(p.out.Garbled, openingGarble(lines, expected))
	p.out.lines.add(lines[0])
}

// A jsonArray gathers the lines of one JSON array a command printed, in
// whatever layout (one line, ethtool's or jq's), until its brackets
// close.
type jsonArray struct {
	lines []Line // nil outside an array
	depth int
}

// open reports whether an array is being gathered.
func (j *jsonArray) open() bool { return j.lines != nil }

// start opens an array.
func (j *jsonArray) start() { j.lines, j.depth = []Line{}, 0 }

// take ends the array and returns its lines.
func (j *jsonArray) take() []Line {
	lines := j.lines
	j.lines = nil
	return lines
}

// add appends a line of the open array. When its brackets close, or
// after maxEthtoolJSONLines lines, it ends the array and returns its
// lines, cut when the brackets did not close; nil while it goes on.
func (j *jsonArray) add(l Line, t string) (lines []Line, cut bool) {
	j.lines = append(j.lines, l)
	j.depth += jsonNesting(t)
	if j.depth > 0 && len(j.lines) < maxEthtoolJSONLines {
		return nil, false
	}
	return j.take(), j.depth > 0
}

// jsonText is the text of an array's gathered lines.
func jsonText(lines []Line) string {
	var text strings.Builder
	for _, l := range lines {
		text.WriteString(l.Text)
		text.WriteByte('\n')
	}
	return text.String()
}

// openingGarble reports an array at its first line's '[' (the line's
// start when it has none), where it was expected to go on as expected.
func openingGarble(lines []Line, expected string) Garble {
	first := lines[0]
	return garbleAt(first, max(strings.IndexByte(first.Text, '['), 0), expected)
}

// jsonNesting returns how many more brackets t opens than it closes,
// outside strings.
func jsonNesting(t string) int {
	n, inStr, esc := 0, false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			n++
		case c == ']' || c == '}':
			n--
		}
	}
	return n
}

// readJSON reads one gathered array. Each object's evidence is the first
// line from its opening brace on that names the key: an object's keys may
// come in any order (`jq -S` sorts them, "eth-mac" before "ifname").
func (p *ethtoolParser) readJSON(lines []Line) {
	var objs []ethtoolJSONObject
	var raw []map[string]json.RawMessage
	doc := []byte(jsonText(lines))
	if err := json.Unmarshal(doc, &objs); err != nil {
		if _, ok := err.(*json.SyntaxError); ok {
			p.garbleJSON(lines, "an ethtool --json array ("+err.Error()+")")
		}
		return
	}
	if json.Unmarshal(doc, &raw) != nil {
		return
	}
	starts := jsonElementLines(lines)
	read := false
	for i, o := range objs {
		if i >= len(starts) {
			break
		}
		if o.IfName == "" || !isIdentName(o.IfName) {
			continue
		}
		end := len(lines)
		if i+1 < len(starts) {
			end = starts[i+1] + 1
		}
		region := lines[starts[i]:end]
		fec := p.jsonFEC(o, region)
		std := p.jsonStd(o.IfName, raw[i], region)
		read = read || fec || std
	}
	if read {
		for _, l := range lines {
			p.out.lines.add(l)
		}
	}
}

// jsonElementLines returns the index of the line each element of the
// array in lines begins on, in order.
func jsonElementLines(lines []Line) []int {
	var out []int
	depth, inStr, esc, want := 0, false, false, false
	for i, l := range lines {
		t := l.Text
		for j := 0; j < len(t); j++ {
			c := t[j]
			switch {
			case esc:
				esc = false
				continue
			case inStr:
				if c == '\\' {
					esc = true
				} else if c == '"' {
					inStr = false
				}
				continue
			case c == ' ' || c == '\t' || c == '\r':
				continue
			}
			if depth == 1 && want && c != ']' && c != ',' {
				out = append(out, i)
				want = false
			}
			switch c {
			case '"':
				inStr = true
			case '[', '{':
				depth++
				if depth == 1 {
					want = true
				}
			case ']', '}':
				depth--
			case ',':
				want = depth == 1
			}
		}
	}
	return out
}

// jsonFEC reads an interface's --show-fec object; it reports whether the
// object was one.
func (p *ethtoolParser) jsonFEC(o ethtoolJSONObject, region []Line) bool {
	if o.Active == nil && o.Config == nil || len(region) == 0 {
		return false
	}
	p.fec, p.dev = nil, o.IfName
	f := p.fecSetting()
	at := func(key string) Evidence { return At(p.out.src, region[min(keyLine(region, 0, key), len(region)-1)]) }
	if o.Config != nil {
		f.Configured = o.Config
		f.Evidence["configured"] = at("config")
	}
	if o.Active != nil {
		f.Active = strings.Join(o.Active, " ")
		f.Evidence["active"] = at("active")
	}
	if s := o.Statistics; s != nil {
		if c := s.Corrected; c != nil && c.Total != nil {
			f.Corrected, f.HasStats = *c.Total, true
			f.Evidence["corrected"] = at("corrected_blocks")
		}
		if u := s.Uncorrectable; u != nil && u.Total != nil {
			f.Uncorrectable, f.HasStats = *u.Total, true
			f.UncorrectableLanes = u.Lanes[:min(len(u.Lanes), maxFECLanes)]
			f.Evidence["uncorrectable"] = at("uncorrectable_blocks")
		}
	}
	p.fec = nil
	return true
}

// jsonStd reads an interface's standard statistics groups into a dump of
// it; it reports whether the object held any.
func (p *ethtoolParser) jsonStd(dev string, obj map[string]json.RawMessage, region []Line) bool {
	type stat struct {
		name string
		n    uint64
		line int
	}
	if len(region) == 0 {
		return false
	}
	var got []stat
	for _, g := range ethtoolStdGroups {
		var stats map[string]json.RawMessage
		if json.Unmarshal(obj[g], &stats) != nil {
			continue
		}
		for name, v := range stats {
			var n uint64
			if json.Unmarshal(v, &n) != nil {
				continue // rmon's histograms
			}
			got = append(got, stat{g + "-" + name, n, min(keyLine(region, 0, name), len(region)-1)})
		}
	}
	if len(got) == 0 {
		return false
	}
	// In the order printed: a map has none.
	slices.SortFunc(got, func(a, b stat) int { return cmp.Or(cmp.Compare(a.line, b.line), strings.Compare(a.name, b.name)) })
	p.flush()
	p.statDev, p.cur = dev, &CounterSet{}
	for _, s := range got {
		if !p.cur.add(Counter{Name: s.name, Value: s.n, Evidence: At(p.out.src, region[s.line])}) {
			p.out.Omitted++
		}
	}
	p.flush()
	return true
}

// keyLine returns the index of the first line from from on that names key
// as a JSON key, len(lines) when none does.
func keyLine(lines []Line, from int, key string) int {
	q := `"` + key + `"`
	for i := from; i < len(lines); i++ {
		if strings.Contains(lines[i].Text, q) {
			return i
		}
	}
	return len(lines)
}
