package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// rccl-tests' results file: `*_perf -x FILE` (--output_file, with
// -Z/--output_format json, the default; ROCm/rccl-tests#93) holds one
// JSON object per half of a row, written by nlohmann::json with its keys
// sorted:
//
//	{"#wrong":"0","algBw":0.0533,"busBw":0.0800,"gpus":4,"inPlace":0,
//	 "name":"AllReduce","redop":"sum","size":1024,"time":19.18,"type":"float"}
//
// The first versions write the objects one a line; since rccl-tests#140
// (July 2025) they are the elements of one list. Builds with MPI give the
// job's size as "nodes", "ranks", "ranksPerNode" and "gpusPerRank"
// instead of "gpus" (rocm-systems#6004), and later versions add
// "numCycle", the -N cycle. Numbers are the doubles the table rounds;
// the out-of-place half of a size comes before its in-place half.

// IsRCCLTestsJSON reports whether head begins rccl-tests' results file:
// an object, or a list of them, whose first object has the keys "algBw",
// "busBw", "inPlace" and "size".
func IsRCCLTestsJSON(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(head) == 0 || head[0] != '{' && head[0] != '[' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t == json.Delim('[') {
		if t, err = dec.Token(); err != nil || t != json.Delim('{') {
			return false
		}
	}
	want := map[string]bool{"algBw": false, "busBw": false, "inPlace": false, "size": false}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok || skipJSON(dec, func() {}) != nil {
			break
		}
		if _, ok := want[k]; ok {
			want[k] = true
		}
	}
	for _, seen := range want {
		if !seen {
			return false
		}
	}
	return true
}

// rcclResult is one object of the results file: a half of a row.
type rcclResult struct {
	name, typ, redop string
	size, cycle      int64
	inPlace          bool
	half             TestHalf
	halfOK           bool
	gpus             int64
	at               jsonAt
	text             string
}

// ReadRCCLTestsJSON reads rccl-tests' results file into nccl-tests runs,
// one per collective and cycle (a "numCycle", or the size sweep starting
// again), each row the out-of-place and in-place objects of a size, or
// the in-place object alone in a run with no out-of-place one (-O 0). A
// half without its partner is otherwise kept as a row cut short; a file cut off keeps what was whole; anything else that is not
// as rccl-tests writes it is an error (*pos.Error) with file:line:col.
func ReadRCCLTestsJSON(src string, r io.Reader) (*Result, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	head, _ := br.Peek(jsonSniffBytes)
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	tap := newJSONTap(br)
	dec := json.NewDecoder(tap)
	dec.UseNumber()
	j := &jsonRun{src: src, tap: tap, dec: dec, t: &NCCLTests{artifactHead: artifactHead{src: src}}}
	var pending, first *rcclResult
	var cycle int64
	// sawOut is whether the run has an out-of-place object: under -O 0
	// it has none, and each in-place object is a row of one half.
	sawOut := false
	flush := func() {
		if pending != nil && len(j.run.Truncated) < maxKept {
			j.run.Truncated = append(j.run.Truncated, j.at(pending.at, pending.text))
		}
		pending = nil
	}
	add := func(x *rcclResult) {
		coll := rcclCollective(x.name)
		// Files without "numCycle" repeat the size sweep of each stress
		// cycle (-s N) in one run: the first object again starts the next.
		again := first != nil && x.size == first.size && x.inPlace == first.inPlace && x.typ == first.typ && x.redop == first.redop
		if j.run == nil || j.run.Collective != coll || cycle != x.cycle || again {
			flush()
			j.run, cycle, first, sawOut = j.t.newRun(), x.cycle, x, false
			j.run.Tool, j.run.Collective, j.run.CollectiveFrom = ToolRCCL, coll, FromResults
			j.run.layout = rowLayout{known: true, redop: true}
			j.run.HasRedop, j.run.WrongColumn = true, "#wrong"
		}
		j.run.CommRanks = max(j.run.CommRanks, int(min(x.gpus, maxJSONRanks)))
		if !x.inPlace {
			flush()
			pending, sawOut = x, true
			return
		}
		if !sawOut && x.halfOK {
			j.t.keepRow(j.run, TestRow{Size: x.size, Type: x.typ, Redop: x.redop, Root: -1, Out: TestHalf{Wrong: -1}, In: x.half, Evidence: j.at(x.at, x.text)})
			return
		}
		p := pending
		pending = nil
		if p == nil || p.size != x.size || p.typ != x.typ || p.redop != x.redop || !p.halfOK || !x.halfOK {
			if p != nil {
				pending = p
				flush()
			}
			pending = x
			flush()
			return
		}
		j.t.keepRow(j.run, TestRow{Size: p.size, Type: p.typ, Redop: p.redop, Root: -1, Out: p.half, In: x.half, Evidence: j.at(p.at, p.text)})
	}
	list := false
	if len(head) > 0 && head[0] == '[' {
		if _, err := j.token("'['"); err != nil {
			return nil, err
		}
		list = true
	}
	var err error
	for err == nil && dec.More() {
		var x *rcclResult
		x, err = j.rcclObject()
		if x != nil {
			add(x)
		}
	}
	if err == nil && list {
		_, err = j.token("']' ending the list of results")
	}
	if err != nil && !isCut(err) {
		return nil, err
	}
	if j.run != nil {
		flush()
	}
	if len(j.t.Runs) == 0 {
		return nil, j.errAt(tap.off, "no result in rccl-tests' results file: expected objects with \"name\", \"size\", \"inPlace\", \"time\", \"algBw\" and \"busBw\"")
	}
	for _, r := range j.t.Runs {
		r.finish()
	}
	line, _ := tap.pos(tap.off)
	j.t.lines.n = line
	res := &Result{Source: src, LineCount: line, Artifacts: []Artifact{j.t}}
	var ctx inputContext
	j.t.SetScope(ctx.scope(src, j.t))
	return res, nil
}

// rcclObject reads one result object; a cut object returns the error
// with no result.
func (j *jsonRun) rcclObject() (*rcclResult, error) {
	start, err := j.open("a result")
	if err != nil {
		return nil, err
	}
	x := &rcclResult{at: start, size: -1}
	var ranks, perRank int64 = 0, 1
	seen, valid := 0, true
	err = j.members(func(k string, _ jsonAt) error {
		var err error
		var v float64
		var ok bool
		switch k {
		case "name":
			x.name, err = j.str()
		case "type":
			x.typ, err = j.str()
		case "redop":
			x.redop, err = j.str()
		case "size":
			x.size, err = j.integer()
		case "numCycle":
			x.cycle, err = j.integer()
		case "gpus":
			x.gpus, err = j.integer()
		case "ranks":
			ranks, err = j.integer()
		case "gpusPerRank":
			perRank, err = j.integer()
		case "inPlace":
			var n int64
			n, err = j.integer()
			x.inPlace = n != 0
		case "time", "algBw", "busBw":
			v, ok, err = j.num()
			valid = valid && ok && v >= 0
			seen++
			switch k {
			case "time":
				x.half.Time = tableValue(v, 7)
			case "algBw":
				x.half.AlgBW = tableValue(v, 6)
			default:
				x.half.BusBW = tableValue(v, 6)
			}
		case "#wrong", "wrong":
			var t json.Token
			t, ok, err = j.scalar("a count or \"N/A\"")
			x.half.Wrong = -1
			if err == nil && ok {
				var good bool
				x.half.Wrong, x.half.ErrorText, good = wrongField(strings.TrimSpace(fmt.Sprint(t)), false)
				valid = valid && good
			}
		default:
			err = j.skip()
		}
		return err
	})
	x.text = j.tap.text(j.dec.InputOffset())
	if err != nil {
		return nil, err
	}
	if x.name == "" || x.size < 0 {
		return nil, j.errAt(start.off, "a result of rccl-tests' results file without its \"name\" and \"size\"")
	}
	if x.gpus == 0 && ranks > 0 {
		x.gpus = ranks * max(perRank, 1)
	}
	x.halfOK = valid && seen == 3
	return x, nil
}

// rcclCollective maps a results file's "name" ("AllReduce", "AllToAllv",
// "all_reduce_perf") to the collective's name in nccl-tests' binaries.
func rcclCollective(name string) string {
	key := strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(name, "_perf"), "_", ""))
	for _, c := range []string{"all_reduce", "all_gather", "reduce_scatter", "alltoallv", "alltoall", "broadcast", "reduce", "sendrecv", "gather", "scatter", "hypercube"} {
		if key == strings.ReplaceAll(c, "_", "") {
			return c
		}
	}
	return strings.Clone(name)
}
