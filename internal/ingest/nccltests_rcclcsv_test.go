package ingest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// rccl-tests writes its results file as CSV with -Z csv (Reporter in
// ROCm/rccl-tests src/common.cu); it was no format rocelab recognised.
// The synthetic file is a real 2-node MI300X table rewritten as that CSV:
// it must read as the table does, row for row.
func TestRCCLTestsCSVReadsAsTheTable(t *testing.T) {
	const csv = "../../testdata/synthetic/rccl-tests-csv-mpi-allreduce-mi300x-2n-16rank-synthetic.csv"
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(filepath.Base(csv), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	x, ok := res.Artifacts[0].(*NCCLTests)
	if !ok || len(x.Runs) != 1 {
		t.Fatalf("read as %v", res.Artifacts)
	}
	r := x.Runs[0]
	table := ncclTests(t, "nccl-tests/rccl-mi300x-2n-16g-roce-8nic-allreduce-357GBps.txt").Runs[0]
	if r.Tool != ToolRCCL || r.Collective != "all_reduce" || r.CollectiveFrom != FromResults || r.NRanks() != 16 || len(r.Rows) != len(table.Rows) || len(r.Truncated) != 0 {
		t.Fatalf("%s %s from %s, %d ranks, %d rows, %d cut; want rccl-tests all_reduce from the results, 16 ranks, %d rows, none cut",
			r.Tool, r.Collective, r.CollectiveFrom, r.NRanks(), len(r.Rows), len(r.Truncated), len(table.Rows))
	}
	for i, row := range r.Rows {
		want := table.Rows[i]
		if row.Size != want.Size || row.Type != want.Type || row.Redop != want.Redop || row.Out != want.Out || row.In != want.In || row.Evidence.Line != 2*i+2 {
			t.Errorf("row %d: %+v, want %+v", i, row, want)
		}
	}
}

// The forms: a build without MPI names "gpus"; cycles are runs; a last
// line cut short is a row cut short; a value that is not as rccl-tests
// writes it is an error at its file:line:col; another CSV is not this.
// Synthetic.
func TestRCCLTestsCSVForms(t *testing.T) {
	const head = "numCycle,collective,gpus,size,type,redop,inplace,time,algbw,busbw,#wrong\n"
	line := func(cycle, inPlace, size string) string {
		return cycle + `,"AllGather",8,` + size + `,"float","none",` + inPlace + `,100.000000,10.000000,8.750000,"N/A"` + "\n"
	}
	in := head + line("0", "0", "1024") + line("0", "1", "1024") + line("1", "0", "1024") + line("1", "1", "1024") + line("1", "0", "2048")
	res, err := Read("c.csv", strings.NewReader(in+`1,"AllGather",8,2048,"flo`))
	if err != nil {
		t.Fatal(err)
	}
	x := res.Artifacts[0].(*NCCLTests)
	if len(x.Runs) != 2 || x.Runs[0].Collective != "all_gather" || x.Runs[0].NRanks() != 8 || len(x.Runs[0].Rows) != 1 || x.Runs[0].Rows[0].In.Wrong != -1 || x.Runs[0].Rows[0].Out.BusBW != 8.75 {
		t.Fatalf("%d runs, first %+v", len(x.Runs), x.Runs[0])
	}
	if r := x.Runs[1]; len(r.Rows) != 1 || len(r.Truncated) != 2 || r.Truncated[0].Line != 6 || r.Truncated[1].Line != 7 {
		t.Errorf("second cycle: %d rows, cut %+v; want 1 row and lines 6 and 7 cut", len(r.Rows), r.Truncated)
	}
	bad := head + line("0", "0", "1024") + strings.Replace(line("0", "1", "1024"), "100.000000", "fast", 1)
	_, err = Read("bad.csv", strings.NewReader(bad))
	var pe *pos.Error
	if !errors.As(err, &pe) || pe.File != "bad.csv" || pe.Line != 3 || pe.Col != 39 || !strings.Contains(pe.Msg, `expected a number in column "time"`) {
		t.Errorf("bad value: %v", err)
	}
	_, err = Read("short.csv", strings.NewReader(head+"0,\"AllGather\",8\n"+line("0", "0", "8")))
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Msg, "expected 11 comma-separated values") {
		t.Errorf("short line: %v", err)
	}
	for _, s := range []string{"size,count,time\n1,2,3\n", "collective,size,time,algbw\n", head[1:20]} {
		if IsRCCLTestsCSV([]byte(s)) {
			t.Errorf("%q read as rccl-tests' CSV results file", s)
		}
	}
}

func FuzzRCCLTestsCSV(f *testing.F) {
	f.Add([]byte("numCycle,collective,gpus,size,type,redop,inplace,time,algbw,busbw,#wrong\n" +
		`0,"AllReduce",4,1024,"float","sum",0,19.184150,0.053377,0.080066,"0"` + "\n" +
		`0,"AllReduce",4,1024,"float","sum",1,19.897650,0.051463,0.077195,"0"` + "\n"))
	f.Add([]byte("numCycle,collective,nodes,ranks,ranksPerNode,gpusPerRank,size,type,redop,inplace,time,algbw,busbw,#wrong\n" +
		`2,"AllToAll",2,16,8,1,8,"float","none",1,nan,inf,-1.000000,"N/A"` + "\n" + `2,"AllToAll",2,16,8,1,16,"flo`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !IsRCCLTestsCSV(data) {
			return
		}
		res, err := Read("f.csv", bytes.NewReader(data))
		checkResultsRead(t, data, res, err)
	})
}
