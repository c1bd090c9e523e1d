package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"rocelab/internal/pos"
)

// rccl-tests' results file in CSV: `*_perf -x FILE -Z csv`
// (--output_format csv; Reporter::writeFile in src/common.cu) holds the
// same results as the JSON one (see nccltests_rccljson.go), one a line
// under one header:
//
//	numCycle,collective,gpus,size,type,redop,inplace,time,algbw,busbw,#wrong
//	0,"AllReduce",4,1024,"float","sum",0,19.184150,0.053377,0.080066,"0"
//
// A build with MPI names "nodes,ranks,ranksPerNode,gpusPerRank" where
// the other says "gpus". Strings are quoted (the collective, type, redop
// and #wrong, "N/A" when unchecked), numbers are C++'s std::to_string:
// six decimals, "nan" and "inf" as they come. Columns are read by their
// names, so a fork's extra column (a "busbwfactor") is passed over.

// rcclCSVNeeds are the columns without which a line is no result.
var rcclCSVNeeds = []string{"size", "inplace", "time", "algbw", "busbw"}

// rcclCSVHeader is the header line of the CSV results file: the index of
// each lower-cased column name, and how many columns there are.
type rcclCSVHeader struct {
	index map[string]int
	n     int
}

// rcclCSVColumns reads a header line, ok when it names a collective
// column and every one of rcclCSVNeeds.
func rcclCSVColumns(line string) (rcclCSVHeader, bool) {
	names := strings.Split(line, ",")
	h := rcclCSVHeader{index: map[string]int{}, n: len(names)}
	for i, c := range names {
		h.index[strings.ToLower(strings.TrimSpace(c))] = i
	}
	for _, c := range rcclCSVNeeds {
		if _, ok := h.index[c]; !ok {
			return h, false
		}
	}
	_, coll := h.index["collective"]
	_, name := h.index["name"]
	return h, coll || name
}

// IsRCCLTestsCSV reports whether head begins rccl-tests' CSV results
// file: its header line.
func IsRCCLTestsCSV(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	line, _, _ := bytes.Cut(head, []byte("\n"))
	_, ok := rcclCSVColumns(strings.TrimSpace(string(line)))
	return ok
}

// maxCSVLine bounds one line of the CSV results file.
const maxCSVLine = 64 << 10

// ReadRCCLTestsCSV reads rccl-tests' CSV results file into nccl-tests
// runs as ReadRCCLTestsJSON reads the JSON one. A last line cut short
// (no line end, too few values) is what a killed job leaves and is kept
// as a row cut short; any other line that is not as rccl-tests writes it
// is an error (*pos.Error) with file:line:col.
func ReadRCCLTestsCSV(src string, r io.Reader) (*Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxCSVLine)
	b := &rcclRuns{t: &NCCLTests{artifactHead: artifactHead{src: src}}}
	var cols rcclCSVHeader
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		if n == 1 {
			raw = strings.TrimPrefix(raw, "\ufeff")
		}
		s := strings.TrimRight(raw, "\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		if cols.n == 0 {
			var ok bool
			if cols, ok = rcclCSVColumns(strings.TrimSpace(s)); !ok {
				return nil, &pos.Error{File: src, Line: n, Col: 1, Msg: "expected rccl-tests' CSV header (numCycle,collective,gpus,size,type,redop,inplace,time,algbw,busbw,#wrong)"}
			}
			continue
		}
		x, err := rcclCSVResult(src, n, s, cols)
		if err != nil {
			if last := !sc.Scan() && sc.Err() == nil; last && len(strings.Split(s, ",")) < cols.n {
				if b.run != nil {
					b.flush()
					b.pending = &rcclResult{ev: Evidence{File: src, Line: n, Col: 1, Text: s}}
				}
				break
			}
			return nil, err
		}
		b.add(x)
	}
	if err := sc.Err(); err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			return nil, de // it says where the text stopped decoding
		}
		return nil, &pos.Error{File: src, Line: n + 1, Col: 1, Msg: fmt.Sprintf("expected a line of rccl-tests' CSV results file: %v", err)}
	}
	return b.result(src, n, &pos.Error{File: src, Line: max(n, 1), Col: 1, Msg: "no result in rccl-tests' CSV results file: expected lines of collective, size, inplace, time, algbw and busbw under its header"})
}

// rcclCSVResult reads line n, s, of the CSV results file under the
// header's columns.
func rcclCSVResult(src string, n int, s string, cols rcclCSVHeader) (*rcclResult, error) {
	vals := strings.Split(s, ",")
	if len(vals) != cols.n {
		return nil, &pos.Error{File: src, Line: n, Col: 1, Msg: fmt.Sprintf("expected %d comma-separated values, as the header names, found %d", cols.n, len(vals))}
	}
	col := func(name string) (string, int, bool) {
		i, ok := cols.index[name]
		if !ok {
			return "", 0, false
		}
		at := 1
		for _, v := range vals[:i] {
			at += len(v) + 1
		}
		return strings.Trim(strings.TrimSpace(vals[i]), `"`), at, true
	}
	integer := func(name string) (int64, error) {
		v, at, ok := col(name)
		if !ok {
			return 0, nil
		}
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil || i < 0 {
			return 0, &pos.Error{File: src, Line: n, Col: at, Msg: fmt.Sprintf("expected a count in column %q, found %q", name, v)}
		}
		return i, nil
	}
	x := &rcclResult{ev: Evidence{File: src, Line: n, Col: 1, Text: s}}
	for _, name := range []string{"collective", "name"} {
		if v, _, ok := col(name); ok {
			x.name = strings.Clone(v)
		}
	}
	if x.name == "" {
		return nil, &pos.Error{File: src, Line: n, Col: 1, Msg: "expected the collective's name"}
	}
	x.typ = strings.Clone(colValue(col("type")))
	x.redop = strings.Clone(colValue(col("redop")))
	var err error
	var inPlace, ranks, perRank int64
	for _, f := range []struct {
		name string
		to   *int64
	}{{"size", &x.size}, {"numcycle", &x.cycle}, {"gpus", &x.gpus}, {"ranks", &ranks}, {"gpusperrank", &perRank}, {"inplace", &inPlace}} {
		if *f.to, err = integer(f.name); err != nil {
			return nil, err
		}
	}
	if x.gpus == 0 && ranks > 0 {
		x.gpus = ranks * max(perRank, 1)
	}
	x.inPlace = inPlace != 0
	valid := true
	for _, f := range []struct {
		name  string
		to    *float64
		width int
	}{{"time", &x.half.Time, 7}, {"algbw", &x.half.AlgBW, 6}, {"busbw", &x.half.BusBW, 6}} {
		v, at, _ := col(f.name)
		fv, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, &pos.Error{File: src, Line: n, Col: at, Msg: fmt.Sprintf("expected a number in column %q, found %q", f.name, v)}
		}
		*f.to = tableValue(fv, f.width)
		valid = valid && fv >= 0
	}
	x.half.Wrong = -1
	for _, name := range []string{"#wrong", "wrong"} {
		if v, at, ok := col(name); ok {
			var good bool
			if x.half.Wrong, x.half.ErrorText, good = wrongField(v, false); !good {
				return nil, &pos.Error{File: src, Line: n, Col: at, Msg: fmt.Sprintf("expected a count or \"N/A\" in column %q, found %q", name, v)}
			}
		}
	}
	x.halfOK = valid
	return x, nil
}

// colValue returns a column's value, dropping where it is.
func colValue(v string, _ int, _ bool) string { return v }
