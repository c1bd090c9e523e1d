package ingest

import (
	"encoding/json"
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
// for "type". The array is gathered as ethtool --json's is.

// rdmaResJSON gathers a JSON array of `rdma -j res`.
type rdmaResJSON struct {
	arr jsonArray
	// cmd is set on the line after an `rdma -j res ...` command; named
	// whether the gathered array has named "lqpn" yet.
	cmd, named bool
}

// feed gathers l when it belongs to an array and reports whether it did
// (or is the command that prints one). An array opens on a line after
// such a command, on a one-line array naming "lqpn", or on -p's "[ {";
// one that names no "lqpn" within its first lines is dropped.
func (j *rdmaResJSON) feed(p *rdmaResParser, l Line, t string) bool {
	if !j.arr.open() {
		opens := strings.HasPrefix(t, "[") && (j.cmd || strings.Contains(t, `"lqpn"`) || t == "[ {")
		j.cmd = rdmaJSONOf(t, "res")
		if !opens {
			return j.cmd
		}
		j.arr.start()
		j.named = false
	}
	j.named = j.named || strings.Contains(t, `"lqpn"`)
	if !j.named && len(j.arr.lines) >= 8 {
		j.arr.take()
		return false
	}
	rdmaArrayLine(&j.arr, l, t, p.readJSON, p.garbleJSON)
	return true
}

// end reads an array the input ended inside of as cut.
func (j *rdmaResJSON) end(p *rdmaResParser) {
	if lines := j.arr.take(); len(lines) > 0 {
		p.garbleJSON(lines, "the array's closing ']' (the rdma -j output is cut)")
	}
}

// garbleJSON reports an array that names "lqpn" and was cut or does not
// parse, at its first line's '['.
func (p *rdmaResParser) garbleJSON(lines []Line, expected string) {
	if len(p.out.Garbled) >= maxEthtoolGarbled || !strings.Contains(jsonText(lines), `"lqpn"`) {
		return
	}
	p.out.Garbled = append(p.out.Garbled, openingGarble(lines, expected))
	p.out.lines.add(lines[0])
}

// readJSON reads one gathered array's QP and CM id objects. An object's
// evidence is its text when the array is on one line, else the line that
// names its "lqpn".
func (p *rdmaResParser) readJSON(lines []Line) {
	var objs []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(jsonText(lines)), &objs); err != nil {
		p.garbleJSON(lines, "an rdma -j resource array of objects ("+err.Error()+")")
		return
	}
	li, off := 0, 0
	for _, o := range objs {
		var dev, typ, qpType, state, comm string
		var lqpn uint32
		if json.Unmarshal(o["ifname"], &dev) != nil || json.Unmarshal(o["lqpn"], &lqpn) != nil || json.Unmarshal(o["state"], &state) != nil {
			continue
		}
		_ = json.Unmarshal(o["type"], &typ)
		_ = json.Unmarshal(o["qp-type"], &qpType)
		_ = json.Unmarshal(o["comm"], &comm)
		var port, pid int
		_ = json.Unmarshal(o["port"], &port)
		_ = json.Unmarshal(o["pid"], &pid)
		ev := Evidence{}
		li, off, ev = p.objectEvidence(lines, li, off)
		p.out.lines.add(lines[li])
		host := strings.Clone(lines[li].Host)
		if lines[li].Origin != "" {
			host = strings.Clone(lines[li].Origin)
		}
		if typ == "" {
			if qpType != "" {
				c := RDMACMID{Host: host, Device: dev, Port: port, LQPN: lqpn, QPType: qpType, State: state, PID: pid, Comm: comm, Evidence: ev}
				_ = json.Unmarshal(o["src-addr"], &c.Src)
				_ = json.Unmarshal(o["dst-addr"], &c.Dst)
				p.addCMID(c)
			}
			continue
		}
		q := RDMAQP{Host: host, Device: dev, Port: port, LQPN: lqpn, RQPN: -1, Type: typ, State: state,
			PID: pid, Comm: comm, Kernel: o["pid"] == nil, Stamp: lines[li].Stamp, Evidence: ev}
		var rqpn int64
		if json.Unmarshal(o["rqpn"], &rqpn) == nil && o["rqpn"] != nil {
			q.RQPN = rqpn
		}
		if !qpState(state) {
			p.garble(lines[li], max(strings.Index(lines[li].Text, `"state"`), 0), "a QP state (RESET, INIT, RTR, RTS, SQD, SQE, ERR or UNKNOWN)")
			continue
		}
		p.addQP(q)
	}
}

// objectEvidence finds the next object naming "lqpn" from line li, byte
// off on, and returns where the search goes on and the object's
// evidence: the object's own text, from its '{' to its '}', when both are
// on that line, else the line.
func (p *rdmaResParser) objectEvidence(lines []Line, li, off int) (int, int, Evidence) {
	for ; li < len(lines); li, off = li+1, 0 {
		t := lines[li].Text
		k := strings.Index(t[min(off, len(t)):], `"lqpn"`)
		if k < 0 {
			continue
		}
		k += min(off, len(t))
		open := strings.LastIndexByte(t[:k], '{')
		end := strings.IndexByte(t[k:], '}')
		if open < 0 || end < 0 {
			return li, k + 1, At(p.out.src, lines[li])
		}
		end += k + 1
		l := lines[li]
		return li, end, Evidence{File: p.out.src, Line: l.Num, Col: l.Col(open), Text: strings.Clone(t[open:end])}
	}
	last := len(lines) - 1
	return last, 0, At(p.out.src, lines[last])
}
