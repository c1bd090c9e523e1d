package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"rocelab/internal/unit"
	"rocelab/tools/internal/fields"
)

// An htsim connection matrix: its connections, triggers and the order
// they start each other in.

// htsimConn is one connection of a connection matrix.
type htsimConn struct {
	line                  int
	src, dst, id          int
	size                  int64
	start                 unit.Time
	trigger, sendDoneTrig int
	triggerCol            int // the column of the trigger's number
	// recvDoneTrig, prio and addon are read and never used by htsim_roce
	// and htsim_hpcc (main_roce.cpp, main_hpcc.cpp): no trigger fires when
	// a receiver is done, every connection is served alike, and nothing
	// reads addOnTriggerSignal, addon's flag (connection_matrix.cpp).
	recvDoneTrig int
	prio, addon  bool
}

// name is the rocelab flow's name: f and the connection's id, or c and
// its place among the connections when it has none (htsim's flow id 0:
// htsim names every flow Roce_SRC_DST, which two connections may share).
func (c htsimConn) name(i int) string {
	if c.id == 0 {
		return "c" + strconv.Itoa(i+1)
	}
	return "f" + strconv.Itoa(c.id)
}

// htsimTrigger is one trigger line.
type htsimTrigger struct {
	line, count int
	kind        string
}

// matrixErrs makes the connection matrix's errors: FILE:LINE:COL: what.
type matrixErrs string

func (file matrixErrs) at(line, col int, format string, a ...any) error {
	return fmt.Errorf("%s:%d:%d: %s", string(file), line, col, fmt.Sprintf(format, a...))
}

// readMatrix reads an htsim connection matrix as htsim's
// ConnectionMatrix::load does, refusing what rocelab cannot run alike,
// and counts its link failures, which htsim_roce and htsim_hpcc read and
// never apply (readFailure).
func readMatrix(file string, r io.Reader, nodes int) ([]htsimConn, map[int]htsimTrigger, int, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %v", file, err)
	}
	errs := matrixErrs(file)
	if err := htsimTokens(string(data), errs); err != nil {
		return nil, nil, 0, err
	}
	var conns []htsimConn
	trigs := map[int]htsimTrigger{}
	// Without a Nodes line htsim keeps -nodes (new ConnectionMatrix(no_of_nodes)),
	// without a Connections line it counts 0 (conns_size), as a run of each showed.
	n, nConns, nTrigs, nFails, fails := nodes, 0, 0, 0, 0
	// Where each header count was read (its line and column), where the
	// body begins and its first trigger: htsim reads the header up to the
	// first connection, trigger or failure line (ConnectionMatrix::load),
	// and a header key after it is an id it does not know.
	var nodesAt, connsAt, trigsAt, failsAt, bodyAt, trigAt [2]int
	err = fields.Lines(file, bytes.NewReader(data), func(line int, f []string, col []int) error {
		count := func(dst *int, at *[2]int) error {
			if bodyAt[0] != 0 {
				return errs.at(line, col[0], "%s after the first connection, trigger or failure (line %d): htsim reads the header only before it, and exits here (\"Error: unknown id: %s\"); move it up", f[0], bodyAt[0], f[0])
			}
			if len(f) != 2 {
				return errs.at(line, col[0], "expected %q and a count", f[0])
			}
			v, err := strconv.Atoi(f[1])
			if err != nil || v < 0 {
				return errs.at(line, col[1], "%s %q: expected a count", f[0], f[1])
			}
			*dst, *at = v, [2]int{line, col[1]}
			return nil
		}
		if bodyAt[0] == 0 && (f[0] == "failure" || f[0] == "trigger" || strings.Contains(f[0], "->")) {
			bodyAt = [2]int{line, col[0]}
		}
		var err error
		switch {
		case f[0] == "Nodes":
			err = count(&n, &nodesAt)
		case f[0] == "Connections":
			err = count(&nConns, &connsAt)
		case f[0] == "Triggers":
			err = count(&nTrigs, &trigsAt)
		case f[0] == "Failures":
			err = count(&nFails, &failsAt)
		case f[0] == "failure":
			if fails++; fails > nFails {
				err = errs.at(line, col[0], "failure %d, past the header's Failures %d: htsim aborts here (connection_matrix.cpp, assert(failures.size()<failures_size))", fails, nFails)
			} else {
				err = readFailure(f, col, line, errs)
			}
		case f[0] == "trigger":
			if trigAt[0] == 0 {
				trigAt = [2]int{line, col[0]}
			}
			err = readTrigger(f, col, line, trigs, errs)
		case strings.Contains(f[0], "->"):
			var c htsimConn
			c, err = readConn(f, col, line, n, errs)
			conns = append(conns, c)
		default:
			err = errs.at(line, col[0], "%q: expected Nodes, Connections, Triggers, Failures, a connection SRC->DST, a trigger or a failure", f[0])
		}
		return err
	})
	if err != nil {
		return nil, nil, 0, err
	}
	switch {
	case n != nodes:
		return nil, nil, 0, errs.at(nodesAt[0], nodesAt[1], "Nodes %d, but the command line's -nodes is %d", n, nodes)
	case nConns != len(conns) && connsAt[0] == 0:
		return nil, nil, 0, errs.at(conns[0].line, 1, "the first connection, but no Connections line, which htsim takes as 0, and the file holds %d, which htsim refuses (\"Mismatch in connection count, specified: 0\"); give Connections %d before the first", len(conns), len(conns))
	case nConns != len(conns):
		return nil, nil, 0, errs.at(connsAt[0], connsAt[1], "Connections %d, but the file holds %d, which htsim refuses too (\"Mismatch in connection count\")", nConns, len(conns))
	case nTrigs != len(trigs) && trigsAt[0] == 0:
		return nil, nil, 0, errs.at(trigAt[0], trigAt[1], "the first trigger, but no Triggers line, which htsim takes as 0, and the file holds %d, which htsim refuses (\"Mismatch in trigger count, specified: 0\"); give Triggers %d before the first connection", len(trigs), len(trigs))
	case nTrigs != len(trigs):
		// csg-htsim's gen_allreduce_butterfly.py writes one trigger fewer
		// than its header counts.
		return nil, nil, 0, errs.at(trigsAt[0], trigsAt[1], "Triggers %d, but the file holds %d, which htsim refuses too (\"Mismatch in trigger count\")", nTrigs, len(trigs))
	case nFails != fails:
		return nil, nil, 0, errs.at(failsAt[0], failsAt[1], "Failures %d, but the file holds %d, which htsim refuses too (\"Mismatch in failure count\")", nFails, fails)
	}
	return conns, trigs, fails, nil
}

// readFailure reads "failure [switch_type TOR|AGG|CORE] [switch_id N]
// [link_id N]" as ConnectionMatrix::load does: htsim exits at another
// attribute or switch type, aborts at a number stoi cannot read, and
// reads past the line's end for an attribute without its value. Nothing
// else is kept: htsim_roce and htsim_hpcc never apply a failure (only
// main_ndp.cpp and main_eqds.cpp call add_failed_link), so a run with
// failures is the run without them, byte for byte, a run showed.
func readFailure(f []string, col []int, line int, errs matrixErrs) error {
	for i := 1; i < len(f); i++ {
		key := f[i]
		if key != "switch_type" && key != "switch_id" && key != "link_id" {
			return errs.at(line, col[i], "%q: expected switch_type, switch_id or link_id, as htsim exits at another (\"unknown failure attribute\")", key)
		}
		if i+1 >= len(f) {
			return errs.at(line, col[i]+len(key), "%s: expected a value after it (htsim reads past the line's end)", key)
		}
		i++
		if key == "switch_type" {
			if v := f[i]; v != "TOR" && v != "AGG" && v != "CORE" {
				return errs.at(line, col[i], "switch_type %q: expected TOR, AGG or CORE, as htsim exits at another", v)
			}
		} else if !stoiReads(f[i]) {
			return errs.at(line, col[i], "%s %q: expected a number, as htsim reads it (stoi), which aborts without one", key, f[i])
		}
	}
	return nil
}

// htsimTokens refuses what htsim's ConnectionMatrix::load cannot read in
// a matrix that rocelab's reader would: it splits each line at every
// single space (tokenize(line, ' ')), so a tab is no separator and a
// leading space or two in a row make an empty field, which it refuses or
// aborts at; and it skips comments only in the head, before the first
// connection, trigger or failure line ("Error: unknown id: #" after it).
// A CR before the line's end, a last line without a newline and one
// trailing space it reads.
func htsimTokens(data string, errs matrixErrs) error {
	body := false
	for i, raw := range strings.Split(data, "\n") {
		line := strings.TrimSuffix(raw, "\r")
		if j := strings.IndexAny(line, "\t\v\f\r"); j >= 0 {
			return errs.at(i+1, j+1, "%q: htsim splits a matrix's lines at single spaces only (tokenize(line, ' ')), so this joins two fields into one it cannot read; give one space", line[j:j+1])
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if strings.HasPrefix(f[0], "#") {
			if body {
				return errs.at(i+1, strings.IndexByte(line, '#')+1, "a comment after the first connection: htsim skips comments only before it, and stops here (\"Error: unknown id: #\"); move it up")
			}
			continue
		}
		if j := strings.Index(strings.TrimRight(line, " "), "  "); j >= 0 || line[0] == ' ' {
			col := max(j+2, 1)
			if line[0] == ' ' {
				col = 1
			}
			return errs.at(i+1, col, "an empty field: htsim splits a matrix's lines at every single space (tokenize(line, ' ')), so a leading space or two in a row give it a field it refuses or aborts at; give one space between fields")
		}
		body = body || strings.Contains(f[0], "->") || f[0] == "trigger" || f[0] == "failure"
	}
	return nil
}

// readConn reads "SRC->DST [id N] start PS|trigger T [size B]
// [send_done_trigger T] [recv_done_trigger T] [prio P] [addon]". The last
// three change nothing in htsim_roce and htsim_hpcc, which fire no
// recv_done_trigger, serve every connection alike and never read addon's
// flag: they are kept to refuse a trigger only a recv_done_trigger names
// (htsim never starts its connection) and to say so in the output's head.
// htsim takes a connection without an id (flow id 0) unless a trigger
// starts it (it asserts one there), and one without a size (or size 0)
// sends until -end.
func readConn(f []string, col []int, line, nodes int, errs matrixErrs) (htsimConn, error) {
	c := htsimConn{line: line, start: -1}
	s, d, _ := strings.Cut(f[0], "->")
	var err1, err2 error
	c.src, err1 = strconv.Atoi(s)
	c.dst, err2 = strconv.Atoi(d)
	if err1 != nil || err2 != nil || c.src < 0 || c.dst < 0 || c.src >= nodes || c.dst >= nodes {
		return c, errs.at(line, col[0], "%q: expected SRC->DST, two different hosts below Nodes %d (declared first)", f[0], nodes)
	}
	if c.src == c.dst {
		return c, errs.at(line, col[0], "%q: a connection from a host to itself, at which htsim aborts as the run starts (exit 134, a run of htsim_roce showed; a permutation generator that leaves a host in place writes one); expected two different hosts", f[0])
	}
	idCol := 0
	for i := 1; i < len(f); i++ {
		key := f[i]
		switch key {
		case "addon": // a flag, no value
			c.addon = true
			continue
		case "start", "size", "id", "trigger", "send_done_trigger", "recv_done_trigger", "prio":
		default:
			return c, errs.at(line, col[i], "%q: expected start, size, id, trigger, send_done_trigger, recv_done_trigger, prio or addon", key)
		}
		if i+1 >= len(f) {
			return c, errs.at(line, col[i]+len(key), "%s: expected a value", key)
		}
		i++
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || v < 0 || math.IsInf(v, 0) {
			return c, errs.at(line, col[i], "%s %q: expected a number that is not negative", key, f[i])
		}
		// htsim reads all but start with stoi: an int, from the leading
		// digits only (its size of "1e6" is 1 byte).
		if key != "start" && (v != math.Trunc(v) || v > math.MaxInt32 || strings.ContainsAny(f[i], "eEpPxX")) {
			return c, errs.at(line, col[i], "%s %q: expected a whole number from 0 to %d in digits, as htsim reads it (stoi)", key, f[i], math.MaxInt32)
		}
		switch key {
		case "start":
			c.start = unit.Time(math.Round(v)) // htsim gives picoseconds
		case "size":
			c.size = int64(v)
		case "id":
			c.id, idCol = int(v), col[i]
		case "trigger":
			c.trigger, c.triggerCol = int(v), col[i]
		case "send_done_trigger":
			c.sendDoneTrig = int(v)
		case "recv_done_trigger":
			c.recvDoneTrig = int(v)
		case "prio":
			c.prio = true
		}
	}
	end := col[len(f)-1] + len(f[len(f)-1])
	switch {
	case idCol > 0 && c.id == 0:
		return c, errs.at(line, idCol, "id 0: htsim refuses it (\"Flow ID zero is not allowed\"); leave id out or give 1 or more")
	case c.id == 0 && c.trigger != 0:
		return c, errs.at(line, c.triggerCol, "a connection a trigger starts needs an id N: htsim asserts one")
	case c.trigger == 0 && c.start < 0:
		return c, errs.at(line, end, "expected start PS or trigger T")
	case c.trigger != 0 && c.start >= 0:
		return c, errs.at(line, c.triggerCol, "both start and trigger given")
	}
	return c, nil
}

// readTrigger reads "trigger id T oneshot|multishot|barrier [count N]".
func readTrigger(f []string, col []int, line int, trigs map[int]htsimTrigger, errs matrixErrs) error {
	t := htsimTrigger{line: line}
	id := 0
	for i := 1; i < len(f); i++ {
		switch f[i] {
		case "oneshot", "multishot", "barrier":
			t.kind = f[i]
		case "id", "count":
			if i+1 >= len(f) {
				return errs.at(line, col[i]+len(f[i]), "%s: expected a number", f[i])
			}
			v, err := strconv.Atoi(f[i+1])
			if err != nil || v < 1 {
				return errs.at(line, col[i+1], "%s %q: expected a positive number", f[i], f[i+1])
			}
			if f[i] == "id" {
				id = v
			} else {
				t.count = v
			}
			i++
		default:
			return errs.at(line, col[i], "%q: expected id, oneshot, multishot, barrier or count", f[i])
		}
	}
	if id == 0 || t.kind == "" {
		return errs.at(line, col[0], "expected a trigger id and a kind (oneshot, multishot or barrier)")
	}
	if _, dup := trigs[id]; dup {
		return errs.at(line, col[0], "trigger %d defined twice", id)
	}
	trigs[id] = t
	return nil
}

// triggerDeps gives each connection a trigger starts the connections it
// waits on (after:) and, for a multishot trigger's, how many of them
// (after_count, 0 for all), as htsim's triggers (trigger.cpp) start them:
// a oneshot's or a barrier's targets all at once, when its one firer or
// its count of firers have completed; a multishot's one at a time, its
// k-th target (in the matrix's order) at the k-th completion among its
// firers. What htsim aborts at or never starts is refused.
func triggerDeps(conns []htsimConn, trigs map[int]htsimTrigger, errs matrixErrs) (after [][]int, count []int, err error) {
	after, count = make([][]int, len(conns)), make([]int, len(conns))
	firers := map[int][]int{}
	recvFirers := map[int]bool{}
	for i, c := range conns {
		if c.sendDoneTrig != 0 {
			firers[c.sendDoneTrig] = append(firers[c.sendDoneTrig], i)
		}
		recvFirers[c.recvDoneTrig] = true
	}
	started := map[int]int{} // multishot trigger -> targets so far
	for i, c := range conns {
		if c.trigger == 0 {
			continue
		}
		t, ok := trigs[c.trigger]
		fs := firers[c.trigger]
		switch {
		case !ok:
			return nil, nil, errs.at(c.line, c.triggerCol, "trigger %d is never defined", c.trigger)
		case len(fs) == 0 && recvFirers[c.trigger]:
			return nil, nil, errs.at(c.line, c.triggerCol, "trigger %d: only a recv_done_trigger names it, which htsim_roce and htsim_hpcc never fire (their mains read it and set no trigger), so htsim never starts this one; give the connection it waits on send_done_trigger %d", c.trigger, c.trigger)
		case len(fs) == 0:
			return nil, nil, errs.at(c.line, c.triggerCol, "trigger %d: no connection fires it (send_done_trigger), so htsim never starts this one", c.trigger)
		case t.kind == "barrier" && t.count > len(fs):
			return nil, nil, errs.at(t.line, 1, "barrier %d counts %d activations but %d connections fire it: it never fires, and htsim never starts the connection at line %d", c.trigger, t.count, len(fs), c.line)
		case t.kind == "barrier" && t.count < len(fs):
			return nil, nil, errs.at(t.line, 1, "barrier %d counts %d activations and %d connections fire it: htsim aborts at the next after it fires (BarrierTrigger::activate asserts one remains)", c.trigger, t.count, len(fs))
		case t.kind == "oneshot" && len(fs) > 1:
			return nil, nil, errs.at(t.line, 1, "oneshot trigger %d is fired by %d connections: htsim aborts when the second completes (SingleShotTrigger::activate asserts it fires once); make it a barrier of count %d, or a multishot", c.trigger, len(fs), len(fs))
		}
		after[i] = fs
		if t.kind != "multishot" {
			continue
		}
		started[c.trigger]++
		k := started[c.trigger]
		if k > len(fs) {
			return nil, nil, errs.at(c.line, c.triggerCol, "multishot trigger %d starts its targets one at a time, one each time a connection that fires it completes, and %d do: this, its target %d, never starts in htsim", c.trigger, len(fs), k)
		}
		if k < len(fs) {
			count[i] = k
		}
	}
	return after, count, nil
}
