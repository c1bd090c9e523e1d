package ingest

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// rccl-tests' results file (-x FILE, ROCm/rccl-tests#93) was no artifact
// rocelab read: its objects, one per half of a row, are read as the
// table's rows, each size's out-of-place and in-place objects one row,
// the numbers rounded as the table prints them.
func TestRCCLTestsResultsFileReal(t *testing.T) {
	x := ncclTests(t, "nccl-tests/rccl-tests-output-file-json-fragments-allreduce-4gpu-rccltests93.json")
	if len(x.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(x.Runs))
	}
	r := x.Runs[0]
	if r.Tool != ToolRCCL || r.Collective != "all_reduce" || r.CollectiveFrom != FromResults || r.NRanks() != 4 || len(r.Rows) != 2 || len(r.Truncated) != 1 {
		t.Fatalf("%s %s from %s, %d ranks, %d rows, %d cut; want rccl-tests all_reduce from the results, 4 ranks, 2 rows, 1 cut",
			r.Tool, r.Collective, r.CollectiveFrom, r.NRanks(), len(r.Rows), len(r.Truncated))
	}
	// 0.08006609623048194 and 0.07719504564609389 print as 0.08; the
	// 4096 B object, whose in-place partner the excerpt lacks, is line 5.
	row := r.Rows[0]
	if row.Size != 1024 || row.Out.BusBW != 0.08 || row.In.BusBW != 0.08 || row.Out.Time != 19.18 || row.In.Time != 19.9 || row.Out.Wrong != 0 || row.Evidence.Line != 1 || r.Truncated[0].Line != 5 {
		t.Errorf("row %+v, cut at line %d", row, r.Truncated[0].Line)
	}
}

// The forms rccl-tests writes: objects one a line, or (rccl-tests#140)
// one list of them; an MPI build's job size; cycles of -N as runs; a
// file cut off keeps its whole rows; anything else is an error at
// file:line:col. Synthetic files in those forms.
func TestRCCLTestsResultsFileForms(t *testing.T) {
	obj := func(cycle, inPlace, size int, busbw string) string {
		return `{"#wrong":"0","algBw":10.0,"busBw":` + busbw + `,"gpusPerRank":1,"inPlace":` + strconv.Itoa(inPlace) +
			`,"name":"AllGather","nodes":2,"numCycle":` + strconv.Itoa(cycle) + `,"ranks":16,"ranksPerNode":8,"redop":"none","size":` +
			strconv.Itoa(size) + `,"time":100.0,"type":"float"}`
	}
	list := "[\n" + strings.Join([]string{obj(0, 0, 1048576, "9.375"), obj(0, 1, 1048576, "9.4"), obj(1, 0, 1048576, "9.3"), obj(1, 1, 1048576, "9.3")}, ",\n") + "\n]\n"
	res, err := Read("list.json", strings.NewReader(list))
	if err != nil {
		t.Fatal(err)
	}
	x := res.Artifacts[0].(*NCCLTests)
	if len(x.Runs) != 2 || x.Runs[0].Collective != "all_gather" || x.Runs[0].NRanks() != 16 || len(x.Runs[0].Rows) != 1 || x.Runs[0].Rows[0].Out.BusBW != 9.38 {
		t.Errorf("list: %d runs, first %+v", len(x.Runs), x.Runs[0])
	}
	// Cut inside the list: the whole row is kept, nothing else.
	res, err = Read("cut.json", strings.NewReader(list[:len(list)-60]))
	if err != nil {
		t.Fatal(err)
	}
	if x := res.Artifacts[0].(*NCCLTests); len(x.Runs) != 2 || len(x.Runs[0].Rows) != 1 || len(x.Runs[1].Rows) != 0 {
		t.Errorf("cut: %d runs", len(x.Runs))
	}
	// A value of another kind is an error with its place.
	bad := obj(0, 0, 8, "9.3") + "\n" + strings.Replace(obj(0, 1, 8, "9.3"), `"time":100.0`, `"time":"fast"`, 1) + "\n"
	_, err = Read("bad.json", strings.NewReader(bad))
	var pe *pos.Error
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Msg, "expected a number") {
		t.Errorf("bad value: %v", err)
	}
	// nccl-tests' own -J document and a perftest JSON are not this.
	for _, s := range []string{`{"version":3,"start_time":"x","results":[]}`, `{"test_info":{"test":"Send_BW"},"results":{"BW_average":10}}`} {
		if IsRCCLTestsJSON([]byte(s)) {
			t.Errorf("%s read as rccl-tests' results file", s)
		}
	}
}

func FuzzRCCLTestsJSON(f *testing.F) {
	f.Add([]byte(`{"#wrong":"0","algBw":0.05,"busBw":0.08,"gpus":4,"inPlace":0,"name":"AllReduce","redop":"sum","size":1024,"time":19.18,"type":"float"}` + "\n" +
		`{"#wrong":"0","algBw":0.05,"busBw":0.07,"gpus":4,"inPlace":1,"name":"AllReduce","redop":"sum","size":1024,"time":19.89,"type":"float"}` + "\n"))
	f.Add([]byte(`[{"#wrong":"N/A","algBw":1,"busBw":1,"inPlace":1,"name":"AllToAll","numCycle":2,"ranks":16,"gpusPerRank":1,"size":8,"time":1}]`))
	f.Add([]byte(`[{"algBw":1,"busBw":1,"inPlace":0,"name":"x","size":8,"time":1},{"algBw":1,`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !IsRCCLTestsJSON(data) {
			return
		}
		res, err := ReadRCCLTestsJSON("f.json", bytes.NewReader(data))
		checkResultsRead(t, data, res, err)
	})
}

// checkResultsRead fails t unless reading data, an rccl-tests results
// file, gave an error with a place in it, or runs within the caps whose
// rows' evidence lies in it.
func checkResultsRead(t *testing.T, data []byte, res *Result, err error) {
	t.Helper()
	lines := bytes.Count(data, []byte("\n")) + 1
	if err != nil {
		var pe *pos.Error
		if !errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1 || pe.Line > lines {
			t.Fatalf("error %v is not a *pos.Error with a place in the input", err)
		}
		return
	}
	for _, r := range res.Artifacts[0].(*NCCLTests).Runs {
		if len(r.Rows) > maxRows || len(r.Truncated) > maxKept {
			t.Fatal("caps exceeded")
		}
		for _, row := range r.Rows {
			if e := row.Evidence; e.Line < 1 || e.Line > lines || e.Col < 1 {
				t.Fatalf("evidence %+v outside the input's %d lines", e, lines)
			}
		}
	}
}

// rccljsonObj is a synthetic object of rccl-tests' results file as
// ROCm/rccl-tests' common.cu Reporter writes it before "numCycle":
// "wrong", not "#wrong", and the job's size as "gpus".
func rccljsonObj(inPlace, size int) string {
	return `{"algBw":1.5,"busBw":2.5,"gpus":8,"inPlace":` + strconv.Itoa(inPlace) + `,"name":"AllReduce","redop":"sum","size":` +
		strconv.Itoa(size) + `,"time":50.0,"type":"float","wrong":"0"}`
}

// -O 0 turns the out-of-place half off: the file holds in-place objects
// only, and each is a row of one half, not a row cut short. Synthetic.
func TestRCCLTestsResultsFileInPlaceOnly(t *testing.T) {
	var objs []string
	for i := range 11 {
		objs = append(objs, rccljsonObj(1, 1024<<i))
	}
	res, err := Read("o0.json", strings.NewReader(strings.Join(objs, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	x := res.Artifacts[0].(*NCCLTests)
	if len(x.Runs) != 1 || len(x.Runs[0].Rows) != 11 || len(x.Runs[0].Truncated) != 0 {
		t.Fatalf("%d runs, first %d rows, %d cut; want 1 run of 11 rows, none cut", len(x.Runs), len(x.Runs[0].Rows), len(x.Runs[0].Truncated))
	}
	for i, row := range x.Runs[0].Rows {
		if row.Size != 1024<<i || row.Out.Time != 0 || row.Out.Wrong != -1 || row.In.Time != 50 || row.In.BusBW != 2.5 || row.Evidence.Line != i+1 {
			t.Errorf("row %d: %+v", i, row)
		}
	}
}

// -s N without "numCycle" repeats the size sweep in one file: each sweep
// is a run, not one run whose sizes repeat. Synthetic.
func TestRCCLTestsResultsFileStressCycles(t *testing.T) {
	var objs []string
	for range 3 {
		for _, size := range []int{1024, 2048, 4096} {
			objs = append(objs, rccljsonObj(0, size), rccljsonObj(1, size))
		}
	}
	res, err := Read("s3.json", strings.NewReader(strings.Join(objs, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	x := res.Artifacts[0].(*NCCLTests)
	if len(x.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(x.Runs))
	}
	for i, r := range x.Runs {
		if len(r.Rows) != 3 || len(r.Truncated) != 0 || r.Rows[0].Size != 1024 || r.Rows[0].Evidence.Line != 6*i+1 || r.NRanks() != 8 {
			t.Errorf("run %d: %d rows, %d cut, first %+v", i, len(r.Rows), len(r.Truncated), r.Rows[0])
		}
	}
}

// An object without "size" is an error at its place, not a row of 0 B.
// Synthetic.
func TestRCCLTestsResultsFileNoSize(t *testing.T) {
	in := rccljsonObj(0, 8) + "\n" + strings.Replace(rccljsonObj(1, 8), `"size":8,`, "", 1) + "\n"
	_, err := Read("nosize.json", strings.NewReader(in))
	var pe *pos.Error
	if !errors.As(err, &pe) || pe.File != "nosize.json" || pe.Line != 2 || pe.Col != 1 || !strings.Contains(pe.Msg, `"size"`) {
		t.Errorf("no size: %v", err)
	}
}
