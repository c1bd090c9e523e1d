package ingest

import (
	"bytes"
	"encoding/json"
	"io"
	"path"
	"strconv"
)

// nccl-tests' JSON output: `*_perf -J FILE.json` (--output_file), from
// nccl-tests 2.17.3 on (src/util.cu). nccl-tests writes it with fprintf,
// on one line without a newline, in this key order:
//
//	{"version":3,"start_time":"2026-07-09 10:00:00","args":[...],"env":[...],
//	 "nccl_version":22803,"config":{"nthreads":1,"ngpus":1,...,"devices":[
//	 {"rank":0,"group":0,"pid":1234,"hostname":"h","device":0,
//	  "device_hex":"0000:0f:00","device_info":"NVIDIA H100 80GB HBM3"}]},
//	 "results":[{"size":8,"count":2,"type":"float","redop":"sum","root":"    -1",
//	  "out_of_place":{"time":18.4,"alg_bw":0.0,"bus_bw":0.0,"nwrong":0.0},
//	  "in_place":{...},"actual_iterations":20,"experiment_name":""},...],
//	 "out_of_bounds":{"count":0,"okay":"true"},
//	 "average_bus_bandwidth":{"bandwidth":1.2,"okay":"unchecked"},
//	 "errors":[""],"end_time":"..."}
//
// Its versions: "version" 1 (2.17.3-2.19.1; until 2.17.9 the footer's
// keys were misspelt "average_bus_bandwidith" and "bandwidith"), 2
// (2.19.2: per-iteration timing, "out_of_place_per_iter" and
// "in_place_per_iter" in a row and "per_iter_timing" in config) and 3
// (2.19.6: "skipped_iterations" and "per_iter_skip"). Doubles are "%lf"
// (six decimals) and NaN the string "nan"; booleans are the strings
// "true" and "false". Only rank 0 writes, and only the first device of
// each process is listed. A run that stops on an error is closed by
// nccl-tests 2.18.5 on with the containers open at the time (no footer,
// no end_time); before 2.18.5 the same run aborts in an assert
// (NVIDIA/nccl-tests#387) and, like a killed job, leaves what stdio had
// flushed: a document cut off anywhere. nccl-tests never writes two runs
// into one file (it creates FILE.0, FILE.1, ... instead); one input may
// still hold several documents back to back (cat *.json).

// maxJSONRanks bounds the ranks a document's device list expands to.
const maxJSONRanks = 1 << 20

// IsNCCLTestsJSON reports whether head begins a JSON document nccl-tests
// wrote: an object whose first keys are "version" and "start_time", as
// nccl-tests writes them, or, re-serialised with sorted keys, "args" and
// then "average_bus_bandwidth" or "config".
func IsNCCLTestsJSON(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	if _, err := dec.Token(); err != nil {
		return false
	}
	var keys []string
	for len(keys) < 2 {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			break
		}
		keys = append(keys, k)
		if len(keys) == 2 || skipJSON(dec, func() {}) != nil {
			break
		}
	}
	if len(keys) < 2 {
		return false
	}
	switch keys[0] {
	case "version":
		return keys[1] == "start_time"
	case "args":
		return keys[1] == "average_bus_bandwidth" || keys[1] == "average_bus_bandwidith" || keys[1] == "config"
	}
	return false
}

// ReadNCCLTestsJSON reads the JSON documents nccl-tests wrote, one run
// each, into the same runs its tables give (see TestRun), and the
// environment they record into NCCL settings. Values are rounded as
// nccl-tests rounds them for its table, so that a finding reads the same
// figures from either form. A document cut off is kept up to its last
// whole row, with TestRun.Cut saying where it breaks; a document that
// goes on otherwise than nccl-tests writes it is an error (*pos.Error)
// with file:line:col and what was expected.
func ReadNCCLTestsJSON(src string, r io.Reader) (*Result, error) {
	tap := newJSONTap(r)
	dec := json.NewDecoder(tap)
	dec.UseNumber()
	jr := &jsonRun{src: src, tap: tap, dec: dec, t: &NCCLTests{artifactHead: artifactHead{src: src}}, set: NewNCCLSettingsParser(src).(*settingsParser)}
	docs := 0
	for {
		t, err := dec.Token()
		if err == io.EOF && docs > 0 {
			break
		}
		if isCut(err) {
			return nil, jr.errAt(tap.off, "the input ends where an nccl-tests JSON document should begin: expected '{'")
		}
		if err != nil {
			return nil, jr.fail(err, "a JSON object as nccl-tests -J writes")
		}
		jr.tick()
		if t != json.Delim('{') {
			return nil, jr.errAt(dec.InputOffset()-1, "expected '{' to begin an nccl-tests JSON document")
		}
		docs++
		jr.run = jr.t.newRun()
		jr.run.JSON = true
		err = jr.document()
		jr.run.layout = rowLayout{known: true, redop: true, root: true}
		jr.run.HasRedop, jr.run.HasRoot, jr.run.WrongColumn = true, true, "#wrong"
		jr.run.finish()
		if err != nil {
			if !isCut(err) {
				return nil, err
			}
			jr.cut()
			break
		}
	}
	line, _ := tap.pos(tap.off)
	jr.t.lines.n = line
	res := &Result{Source: src, LineCount: line}
	var ctx inputContext
	res.Artifacts = append(res.Artifacts, jr.t)
	if s := jr.set.Result(); s != nil {
		res.Artifacts = append(res.Artifacts, s)
	}
	for _, a := range res.Artifacts {
		a.SetScope(ctx.scope(src, a))
	}
	return res, nil
}

// jsonRun reads one input's documents.
type jsonRun struct {
	src  string
	tap  *jsonTap
	dec  *json.Decoder
	t    *NCCLTests
	run  *TestRun
	set  *settingsParser
	path []string // the keys and indices to the value being read
}

// cut records where a cut document ends.
func (j *jsonRun) cut() {
	r := j.run
	ev := j.at(j.here(j.tap.off), j.tap.tail())
	r.Cut = ev
	r.CutWhere = "inside " + j.where()
}

// document reads the members of one document after its '{'.
func (j *jsonRun) document() error {
	r := j.run
	return j.members(func(k string, at jsonAt) error {
		var err error
		var n int64
		switch k {
		case "version":
			n, err = j.integer()
			r.JSONVersion = int(n)
		case "nccl_version":
			n, err = j.integer()
			r.NCCLVersion = int(n)
		case "args":
			err = j.list("the command line", func(int) error {
				s, err := j.str()
				if len(r.Args) < maxKept {
					r.Args = append(r.Args, s)
				}
				return err
			})
			if len(r.Args) > 0 {
				if name := collectiveName(path.Base(r.Args[0])); name != "" {
					r.Collective, r.CollectiveFrom = name, FromBinary
				}
				r.MinBytes, r.MaxBytes = sweepArgs(r.Args[1:])
			}
		case "env":
			err = j.list("the environment", func(int) error {
				a := j.here(j.dec.InputOffset())
				s, err := j.str()
				j.setting(a, s)
				return err
			})
		case "config":
			err = j.config(at)
		case "results":
			r.Header = j.at(at, `"results":`)
			err = j.list("the results", func(int) error { return j.row() })
		case "out_of_bounds":
			j.tap.mark(at.off)
			err = j.object("the out-of-bounds count", func(k string, _ jsonAt) error {
				if k != "count" {
					return j.skip()
				}
				n, err := j.integer()
				r.OutOfBounds = int(n)
				return err
			})
			r.OutOfBoundsEvidence = j.at(at, `"out_of_bounds":`+j.tap.text(j.dec.InputOffset()))
		case "average_bus_bandwidth", "average_bus_bandwidith":
			j.tap.mark(at.off)
			err = j.object("the average bus bandwidth", func(k string, _ jsonAt) error {
				if k == "okay" {
					return j.avgCheck(r)
				}
				if k != "bandwidth" && k != "bandwidith" {
					return j.skip()
				}
				v, ok, err := j.num()
				if ok {
					// The table prints it with %g.
					r.AvgBusBW, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
				}
				return err
			})
			r.AvgEvidence = j.at(at, `"`+k+`":`+j.tap.text(j.dec.InputOffset()))
			r.Footer = true
		case "errors":
			err = j.list("the errors", func(int) error {
				a := j.here(j.dec.InputOffset())
				s, err := j.str()
				if s != "" && len(r.Errors) < maxKept {
					r.Errors = append(r.Errors, j.at(a, strconv.Quote(s)))
				}
				return err
			})
		case "end_time":
			_, err = j.str()
			r.Ended = true
		default:
			err = j.skip()
		}
		return err
	})
}

// setting feeds one environment entry to the settings parser, on the
// line and column it sits at.
func (j *jsonRun) setting(a jsonAt, s string) {
	n := len(j.set.out.Settings)
	j.set.Feed(Line{Num: a.line, Text: s})
	for i := n; i < len(j.set.out.Settings); i++ {
		j.set.out.Settings[i].Evidence.Col = a.col + 1
	}
}

// config reads the parameters and the device list.
func (j *jsonRun) config(at jsonAt) error {
	r := j.run
	j.tap.mark(at.off)
	r.Params = j.at(at, "")
	var devs []TestRank
	err := j.object("the run's parameters", func(k string, _ jsonAt) error {
		switch k {
		case "nthreads":
			n, err := j.integer()
			r.NThread = int(n)
			return err
		case "ngpus":
			n, err := j.integer()
			r.NGpus = int(n)
			return err
		case "devices":
			r.Params.Text = `"config":` + j.tap.text(j.dec.InputOffset())
			return j.list("the devices", func(int) error { return j.device(&devs) })
		}
		return j.skip()
	})
	if r.Params.Text == "" {
		r.Params.Text = `"config":` + j.tap.text(j.dec.InputOffset())
	}
	// Every process runs nthreads × ngpus ranks on consecutive devices;
	// nccl-tests lists its first. Ranks beyond maxJSONRanks are not
	// counted (no job has them).
	per := min(max(r.NThread, 1), maxJSONRanks) * min(max(r.NGpus, 1), maxJSONRanks)
	for _, k := range devs {
		for i := range min(per, maxJSONRanks-r.RankCount) {
			rk := k
			rk.Rank += i
			if rk.Device >= 0 {
				rk.Device += i
			}
			if i > 0 {
				rk.BusID, rk.GPU = "", ""
			}
			j.t.addRank(r, rk)
		}
	}
	return err
}

// device reads one process's first device into devs.
func (j *jsonRun) device(devs *[]TestRank) error {
	start, err := j.open("a device")
	if err != nil {
		return err
	}
	k := TestRank{Rank: -1, Group: -1, PID: -1, Device: -1}
	err = j.members(func(key string, _ jsonAt) error {
		var n int64
		var err error
		switch key {
		case "rank":
			n, err = j.integer()
			k.Rank = int(n)
		case "group":
			n, err = j.integer()
			k.Group = int(n)
		case "pid":
			n, err = j.integer()
			k.PID = int(n)
		case "device":
			n, err = j.integer()
			k.Device = int(n)
		case "hostname":
			k.Host, err = j.str()
		case "device_hex":
			k.BusID, err = j.str()
		case "device_info":
			k.GPU, err = j.str()
		default:
			err = j.skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	k.Evidence = j.at(start, j.tap.text(j.dec.InputOffset()))
	if k.Rank >= 0 && k.Host != "" && len(*devs) < maxRanks {
		*devs = append(*devs, k)
	}
	return nil
}
