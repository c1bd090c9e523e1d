package ingest

import (
	"cmp"
	"encoding/json"
	"errors"
	"sort"
	"strings"
)

// `rdma -j res show qp` prints the QPs as one JSON array (rdma/res-qp.c
// through iproute2's json_print), an object a QP:
//
//	[{"ifindex":0,"ifname":"mlx5_0","port":1,"lqpn":1,"type":"GSI","state":"RTS","sq-psn":0,"comm":"ib_core"}]
//
// on one line, or with -p spread over lines ("[ {" first, a key a line).
// A kernel owner's "comm" has no brackets there and no "pid" beside it;
// a port-less QP has no "port". `-j res show cm_id` prints "qp-type"
// for "type", and since iproute2 5.1 "cm-idn" first and "lqpn" and
// "qp-type" only for a CM id with a QP (rdma/res-cmid.c):
//
//	[{"ifindex":0,"ifname":"mlx5_0","cm-idn":0,"state":"LISTEN","ps":"TCP","pid":30485,"comm":"rping","src-addr":"0.0.0.0:7174"}]
//
// The array is gathered as ethtool --json's is.

// rdmaResJSON gathers a JSON array of `rdma -j res`.
type rdmaResJSON struct {
	arr jsonArray
	// cmd is set on the line after an `rdma -j res ...` command; named
	// whether the gathered array has named "lqpn" or "cm-idn" yet.
	cmd, named bool
}

// feed gathers l when it belongs to an array and reports whether it did
// (or is the command that prints one). An array opens on a line after
// such a command, on a one-line array naming an object's "lqpn" or
// "cm-idn" (a CM id without a QP has no "lqpn"), or on -p's "[ {"; one
// that names neither within its first lines is dropped.
func (j *rdmaResJSON) feed(p *rdmaResParser, l Line, t string) bool {
	if !j.arr.open() {
		opens := strings.HasPrefix(t, "[") && (j.cmd || rdmaResNamed(t) || t == "[ {")
		j.cmd = rdmaJSONOf(t, "res")
		if !opens {
			return j.cmd
		}
		j.arr.start()
		j.named = false
	}
	j.named = j.named || rdmaResNamed(t)
	if !j.named && len(j.arr.lines) >= 8 {
		j.arr.take()
		return false
	}
	rdmaArrayLine(&j.arr, l, t, p.readJSON, p.garbleJSON)
	return true
}

// rdmaResNamed reports whether t names a QP's or CM id's key.
func rdmaResNamed(t string) bool {
	return strings.Contains(t, `"lqpn"`) || strings.Contains(t, `"cm-idn"`)
}

// end reads an array the input ended inside of as cut.
func (j *rdmaResJSON) end(p *rdmaResParser) {
	if lines := j.arr.take(); len(lines) > 0 {
		p.garbleJSON(lines, "the array's closing ']' (the rdma -j output is cut)")
	}
}

// garbleJSON reports an array that names "lqpn" or "cm-idn" and was cut
// or does not parse, at its first line's '['.
func (p *rdmaResParser) garbleJSON(lines []Line, expected string) {
	if len(p.out.Garbled) >= maxEthtoolGarbled || !rdmaResNamed(jsonText(lines)) {
		return
	}
	p.out.Garbled = append(p.out.Garbled, openingGarble(lines, expected))
	p.out.lines.add(lines[0])
}

// A rdmaResObject is one object of a gathered array and where its text
// runs in the array's jsonText, from its '{' to past its '}'.
type rdmaResObject struct {
	keys      map[string]json.RawMessage
	open, end int
}

// readJSON reads one gathered array's QP and CM id objects. An object's
// evidence is its text when it is on one line, else the line within it
// that names its "lqpn" ("cm-idn" for a CM id without a QP).
func (p *rdmaResParser) readJSON(lines []Line) {
	text := jsonText(lines)
	objs, err := rdmaResObjects(text)
	if err != nil {
		p.garbleJSON(lines, "an rdma -j resource array of objects ("+err.Error()+")")
		return
	}
	starts := make([]int, len(lines))
	for i := 1; i < len(lines); i++ {
		starts[i] = starts[i-1] + len(lines[i-1].Text) + 1
	}
	// lineOf returns the line holding byte off of text and off's index
	// in that line's Text.
	lineOf := func(off int) (int, int) {
		li := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
		return li, off - starts[li]
	}
	for _, ob := range objs {
		o := ob.keys
		var dev, typ, qpType, state, comm string
		var lqpn uint32
		_, hasQPN := o["lqpn"]
		if json.Unmarshal(o["ifname"], &dev) != nil || dev == "" || json.Unmarshal(o["state"], &state) != nil ||
			hasQPN && json.Unmarshal(o["lqpn"], &lqpn) != nil {
			continue
		}
		_ = json.Unmarshal(o["type"], &typ)
		_ = json.Unmarshal(o["qp-type"], &qpType)
		_ = json.Unmarshal(o["comm"], &comm)
		// iproute2 5.1 and later print a CM id's "cm-idn" always and its
		// "lqpn" and "qp-type" only when it has a QP.
		_, hasIDN := o["cm-idn"]
		cmID := typ == "" && (qpType != "" || hasIDN)
		if !hasQPN && !cmID {
			continue
		}
		var port, pid int
		_ = json.Unmarshal(o["port"], &port)
		_ = json.Unmarshal(o["pid"], &pid)
		li, at := lineOf(ob.open)
		var ev Evidence
		if eli, _ := lineOf(ob.end - 1); eli == li {
			l := lines[li]
			ev = Evidence{File: p.out.src, Line: l.Num, Col: l.Col(at), Text: strings.Clone(text[ob.open:ob.end])}
		} else {
			obj := text[ob.open:ob.end]
			k := strings.Index(obj, `"lqpn"`)
			if k < 0 {
				k = max(strings.Index(obj, `"cm-idn"`), 0)
			}
			li, _ = lineOf(ob.open + k)
			ev = At(p.out.src, lines[li])
		}
		p.out.lines.add(lines[li])
		host := strings.Clone(cmp.Or(lines[li].Origin, lines[li].Host))
		if cmID {
			c := RDMACMID{Host: host, Device: dev, Port: port, LQPN: lqpn, QPType: qpType, State: state, PID: pid, Comm: comm, Evidence: ev}
			_ = json.Unmarshal(o["src-addr"], &c.Src)
			_ = json.Unmarshal(o["dst-addr"], &c.Dst)
			p.addCMID(c)
			continue
		}
		if typ == "" {
			continue
		}
		q := RDMAQP{Host: host, Device: dev, Port: port, LQPN: lqpn, RQPN: -1, Type: typ, State: state,
			PID: pid, Comm: comm, Kernel: o["pid"] == nil, Stamp: lines[li].Stamp, Evidence: ev}
		var rqpn int64
		if json.Unmarshal(o["rqpn"], &rqpn) == nil && o["rqpn"] != nil {
			q.RQPN = rqpn
		}
		if !qpState(state) {
			sl, sat := lineOf(ob.open + max(strings.Index(text[ob.open:ob.end], `"state"`), 0))
			p.garble(lines[sl], sat, "a QP state (RESET, INIT, RTR, RTS, SQD, SQE, ERR or UNKNOWN)")
			continue
		}
		p.addQP(q)
	}
}

// rdmaResObjects decodes text, a JSON array of objects, with where each
// object's text runs.
func rdmaResObjects(text string) ([]rdmaResObject, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, cmp.Or(err, errors.New("an array's '['"))
	}
	var objs []rdmaResObject
	for dec.More() {
		from := int(dec.InputOffset())
		var o map[string]json.RawMessage
		if err := dec.Decode(&o); err != nil {
			return nil, err
		}
		if o == nil {
			return nil, errors.New("an object, got null")
		}
		end := int(dec.InputOffset())
		open := from + max(strings.IndexByte(text[from:end], '{'), 0)
		objs = append(objs, rdmaResObject{keys: o, open: open, end: end})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if rest := strings.TrimSpace(text[dec.InputOffset():]); rest != "" {
		return nil, errors.New("nothing after the array's ']'")
	}
	return objs, nil
}
