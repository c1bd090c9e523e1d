package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"rocelab/internal/pos"
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

// rcclResult is one result of the results file, JSON object or CSV
// line: a half of a row.
type rcclResult struct {
	name, typ, redop string
	size, cycle      int64
	inPlace          bool
	half             TestHalf
	halfOK           bool
	gpus             int64
	ev               Evidence
}

// rcclRuns assembles the results of rccl-tests' results file, in the
// order written, into nccl-tests runs: one per collective and cycle (a
// "numCycle", or the size sweep starting again), each row the
// out-of-place and in-place results of a size, or the in-place result
// alone in a run with no out-of-place one (-O 0); a half without its
// partner is kept as a row cut short.
type rcclRuns struct {
	t              *NCCLTests
	run            *TestRun
	pending, first *rcclResult
	cycle          int64
	// sawOut is whether the run has an out-of-place result: under -O 0
	// it has none, and each in-place result is a row of one half.
	sawOut bool
}

// flush keeps the half waiting for its partner as a row cut short.
func (b *rcclRuns) flush() {
	if b.pending != nil && len(b.run.Truncated) < maxKept {
		b.run.Truncated = append(b.run.Truncated, b.pending.ev)
	}
	b.pending = nil
}

// add takes the next result.
func (b *rcclRuns) add(x *rcclResult) {
	coll := rcclCollective(x.name)
	// Files without "numCycle" repeat the size sweep of each stress
	// cycle (-s N) in one run: the first result again starts the next.
	f := b.first
	again := f != nil && x.size == f.size && x.inPlace == f.inPlace && x.typ == f.typ && x.redop == f.redop
	if b.run == nil || b.run.Collective != coll || b.cycle != x.cycle || again {
		if b.run != nil {
			b.flush()
		}
		b.run, b.cycle, b.first, b.sawOut = b.t.newRun(), x.cycle, x, false
		b.run.Tool, b.run.Collective, b.run.CollectiveFrom = ToolRCCL, coll, FromResults
		b.run.layout = rowLayout{known: true, redop: true}
		b.run.HasRedop, b.run.WrongColumn = true, "#wrong"
	}
	b.run.CommRanks = max(b.run.CommRanks, int(min(x.gpus, maxJSONRanks)))
	if !x.inPlace {
		b.flush()
		b.pending, b.sawOut = x, true
		return
	}
	if !b.sawOut && x.halfOK {
		b.t.keepRow(b.run, TestRow{Size: x.size, Type: x.typ, Redop: x.redop, Root: -1, Out: TestHalf{Wrong: -1}, In: x.half, Evidence: x.ev})
		return
	}
	p := b.pending
	b.pending = nil
	if p == nil || p.size != x.size || p.typ != x.typ || p.redop != x.redop || !p.halfOK || !x.halfOK {
		if p != nil {
			b.pending = p
			b.flush()
		}
		b.pending = x
		b.flush()
		return
	}
	b.t.keepRow(b.run, TestRow{Size: p.size, Type: p.typ, Redop: p.redop, Root: -1, Out: p.half, In: x.half, Evidence: p.ev})
}

// result returns what was read of src's lines, an error saying what was
// expected (at end) when no result was.
func (b *rcclRuns) result(src string, lines int, end *pos.Error) (*Result, error) {
	if b.run != nil {
		b.flush()
	}
	if len(b.t.Runs) == 0 {
		return nil, end
	}
	for _, r := range b.t.Runs {
		r.finish()
	}
	b.t.lines.n = lines
	res := &Result{Source: src, LineCount: lines, Artifacts: []Artifact{b.t}}
	var ctx inputContext
	b.t.SetScope(ctx.scope(src, b.t))
	return res, nil
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
	b := &rcclRuns{t: j.t}
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
			b.add(x)
		}
	}
	if err == nil && list {
		_, err = j.token("']' ending the list of results")
	}
	if err != nil && !isCut(err) {
		return nil, err
	}
	line, _ := tap.pos(tap.off)
	return b.result(src, line, j.errAt(tap.off, "no result in rccl-tests' results file: expected objects with \"name\", \"size\", \"inPlace\", \"time\", \"algBw\" and \"busBw\""))
}

// rcclObject reads one result object; a cut object returns the error
// with no result.
func (j *jsonRun) rcclObject() (*rcclResult, error) {
	start, err := j.open("a result")
	if err != nil {
		return nil, err
	}
	x := &rcclResult{size: -1}
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
	x.ev = j.at(start, j.tap.text(j.dec.InputOffset()))
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
