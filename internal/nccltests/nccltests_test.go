package nccltests

import (
	"bufio"
	"bytes"
	"flag"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/collective"
	"rocelab/internal/gpu"
	"rocelab/internal/ingest"
	"rocelab/internal/testnet"
	"rocelab/internal/unit"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// TestFormatMatchesRealOutput re-renders the rows and column headers of a
// real nccl-tests 2.20.0 output (NVIDIA/dgx-spark-playbooks#103, kept in
// testdata with its source line) from their numbers: every line must come
// out byte for byte.
func TestFormatMatchesRealOutput(t *testing.T) {
	data, err := os.ReadFile("testdata/allreduce-gb10-2node-nccltests2.20-format-dgxspark103.txt")
	if err != nil {
		t.Fatal(err)
	}
	var hdr bytes.Buffer
	writePreamble(&hdr, &Options{Binary: "all_reduce_perf", NThreads: 1, NGpus: 1, StepFactor: 2}, 0, nil)
	want := map[string]bool{}
	for _, l := range strings.Split(hdr.String(), "\n") {
		if strings.Contains(l, "size") || strings.Contains(l, "(B)") || strings.Contains(l, "out-of-place") {
			want[strings.TrimRight(l, " ")] = true
		}
	}
	rows, headers := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") && (strings.Contains(line, "size") || strings.Contains(line, "(B)") || strings.Contains(line, "out-of-place")) {
			headers++
			if !want[strings.TrimRight(line, " ")] {
				t.Errorf("header line not reproduced:\n%q", line)
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) != 13 || f[0][0] < '0' || f[0][0] > '9' {
			continue
		}
		rows++
		num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
		in := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
		r := Row{Size: in(f[0]), Count: in(f[1]), Type: f[2], Redop: f[3], Root: int(in(f[4])),
			Out: Half{Time: num(f[5]), AlgBW: num(f[6]), BusBW: num(f[7]), Wrong: in(f[8])},
			In:  Half{Time: num(f[9]), AlgBW: num(f[10]), BusBW: num(f[11]), Wrong: in(f[12])}}
		if got := r.String(); got != line {
			t.Errorf("row:\n got %q\nwant %q", got, line)
		}
	}
	if rows < 4 || headers != 3 {
		t.Errorf("read %d rows and %d header lines", rows, headers)
	}
}

func TestFloatFormats(t *testing.T) {
	for _, c := range []struct {
		v     float64
		width int
		want  string
	}{
		{35.15, 7, "  35.15"}, {11185, 7, "11185.0"}, {123456, 7, " 123456"}, {12345678, 7, "1.2e+07"},
		{0.004, 6, "  0.00"}, {338.82, 6, "338.82"}, {1234.5, 6, "1234.5"}, {123456, 6, "123456"}, {1234567, 6, " 1e+06"},
	} {
		if got := floatStr(c.v, c.width); got != c.want {
			t.Errorf("floatStr(%v, %d) = %q, want %q", c.v, c.width, got, c.want)
		}
	}
	for v, want := range map[float64]string{70.742: "70.742", 18: "18", 0.000123: "0.000123", 1234567: "1.23457e+06", 12.2449: "12.2449"} {
		if got := cG(v); got != want {
			t.Errorf("%%g of %v = %q, want %q", v, got, want)
		}
	}
}

func comm(t testing.TB, servers, ppn int, env map[string]string) *collective.Comm {
	t.Helper()
	srv, err := gpu.Preset("a100-1nic")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := collective.NewConfig(env, collective.DefaultVersion)
	if err != nil {
		t.Fatal(err)
	}
	sv := make([]int, servers)
	for i := range sv {
		sv[i] = i
	}
	c, err := collective.NewComm(cfg, collective.System{Server: srv, Hosts: collective.DenseHosts(servers, 1)}, sv, collective.AllGPUs(ppn))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func run(t testing.TB, cmd string, servers, ppn int) (*Sweep, string) {
	t.Helper()
	o, err := Parse(strings.Fields(cmd))
	if err != nil {
		t.Fatal(err)
	}
	c := comm(t, servers, ppn, nil)
	s, err := NewSweep(o, c)
	if err != nil {
		t.Fatal(err)
	}
	n := testnet.New(testnet.Config{Hosts: servers, Rate: 100 * unit.Gbps, Latency: collective.NominalFabricLatency})
	if err := n.Run(100*unit.Second, s); err != nil {
		t.Fatal(err)
	}
	if s.Err != nil {
		t.Fatal(s.Err)
	}
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return s, b.String()
}

// TestDoctorReadsOutput: the doctor's nccl-tests parser reads the twin's
// output unchanged, for every collective: the collective (from the
// banner), the ranks, every row, and the average.
func TestDoctorReadsOutput(t *testing.T) {
	for bin, f := range Binaries {
		cmd := bin + " -b 64K -e 4M -f 4 -g 8 -n 2 -w 1"
		s, out := run(t, cmd, 2, 8)
		res, err := ingest.Read("twin.txt", strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		var tr *ingest.NCCLTests
		for _, a := range res.Artifacts {
			if x, ok := a.(*ingest.NCCLTests); ok {
				tr = x
			}
		}
		if tr == nil || len(tr.Runs) != 1 {
			t.Fatalf("%s: parser found no single run in\n%s", bin, out)
		}
		r := tr.Runs[0]
		wantColl := strings.TrimSuffix(bin, "_perf")
		if r.Collective != wantColl || r.NRanks() != 16 || len(r.Rows) != len(s.Rows) || r.AvgBusBW < 0 {
			t.Errorf("%s: parsed collective %q ranks %d rows %d avg %v", bin, r.Collective, r.NRanks(), len(r.Rows), r.AvgBusBW)
			continue
		}
		if math.Abs(r.AvgBusBW-s.AvgBusBW()) > 1e-4*s.AvgBusBW() {
			t.Errorf("%s: parsed average %v, sweep %v", bin, r.AvgBusBW, s.AvgBusBW())
		}
		factor := BusFactor(f, 16)
		for i, row := range r.Rows {
			if row.Size != s.Rows[i].Size || math.Abs(row.Out.Time-s.Rows[i].Out.Time) > 0.01*s.Rows[i].Out.Time {
				t.Errorf("%s row %d: parsed %+v, sweep %+v", bin, i, row, s.Rows[i])
			}
			// busbw = algbw × the nccl-tests factor, on the printed numbers.
			for _, h := range []ingest.TestHalf{row.Out, row.In} {
				if math.Abs(h.BusBW-h.AlgBW*factor) > 0.011+0.001*h.BusBW {
					t.Errorf("%s row %d: busbw %v, algbw %v × %.4f", bin, i, h.BusBW, h.AlgBW, factor)
				}
			}
		}
	}
}

// TestBusFactor checks the factors against nccl-tests' doc/PERFORMANCE.md and each
// collective's result: busbw/algbw of the sweep's own numbers.
func TestBusFactor(t *testing.T) {
	want := map[collective.Func]float64{
		collective.AllReduce: 2 * 15.0 / 16, collective.AllGather: 15.0 / 16, collective.ReduceScatter: 15.0 / 16,
		collective.AllToAll: 15.0 / 16, collective.Broadcast: 1, collective.Reduce: 1, collective.SendRecv: 1,
	}
	for f, w := range want {
		if got := BusFactor(f, 16); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: factor %v, want %v", f, got, w)
		}
	}
	for bin, f := range Binaries {
		s, _ := run(t, bin+" -b 1M -e 1M -g 8 -n 1 -w 0", 2, 8)
		r := s.Rows[0]
		if math.Abs(r.Out.BusBW/r.Out.AlgBW-want[f]) > 1e-9 || math.Abs(r.Out.AlgBW-float64(r.Size)/1e3/r.Out.Time) > 1e-9*r.Out.AlgBW {
			t.Errorf("%s: algbw %v busbw %v time %v size %d", bin, r.Out.AlgBW, r.Out.BusBW, r.Out.Time, r.Size)
		}
	}
}

// TestSizesAndCounts: the size and count columns follow nccl-tests:
// AllGather's count is per rank and its size rounded to 16-byte pieces.
func TestSizesAndCounts(t *testing.T) {
	s, _ := run(t, "all_gather_perf -b 1000 -e 1000 -g 8 -n 1 -w 0", 2, 8)
	// 1000 B = 250 floats; 250/16 = 15, aligned down to 4: 12 per rank,
	// 192 floats, 768 bytes.
	if r := s.Rows[0]; r.Size != 768 || r.Count != 12 || r.Redop != "none" || r.Root != -1 {
		t.Errorf("all_gather 1000 B: %+v", r)
	}
	s, _ = run(t, "broadcast_perf -b 4K -e 4K -g 8 -r 3 -d half -n 1 -w 0", 2, 8)
	if r := s.Rows[0]; r.Size != 4096 || r.Count != 2048 || r.Type != "half" || r.Root != 3 {
		t.Errorf("broadcast 4K half root 3: %+v", r)
	}
	s, _ = run(t, "alltoall_perf -b 1M -e 1M -g 8 -n 1 -w 0", 2, 8)
	if r := s.Rows[0]; r.In.Wrong != -1 || r.Out.Wrong != 0 {
		t.Errorf("alltoall: in-place #wrong should be N/A: %+v", r)
	}
}

// TestGolden keeps one whole output readable in testdata/golden
// (go test -run TestGolden -update rewrites it).
func TestGolden(t *testing.T) {
	_, out := run(t, "all_reduce_perf -b 8 -e 128M -f 8 -g 8 -n 2 -w 1", 4, 8)
	path := "testdata/golden/all_reduce_4x8_a100_100g.txt"
	if *update {
		if err := os.MkdirAll("testdata/golden", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != out {
		t.Errorf("output differs from %s:\n%s", path, out)
	}
}

func TestParseCommand(t *testing.T) {
	o, err := Parse(strings.Fields("./build/all_reduce_perf -b 128M -e 8G -f 2 -g 8 -c 0"))
	if err != nil {
		t.Fatal(err)
	}
	if o.MinBytes != 128<<20 || o.MaxBytes != 8<<30 || o.StepFactor != 2 || o.NGpus != 8 || o.Check != 0 || len(o.Sizes()) != 7 {
		t.Errorf("%+v sizes %v", o, o.Sizes())
	}
	o, err = Parse([]string{"sendrecv_perf", "--minbytes=1K", "--maxbytes", "4K", "-i", "1024", "-dfloat64", "--iters", "5"})
	if err != nil || o.DType != "double" || len(o.Sizes()) != 4 || o.Iters != 5 {
		t.Errorf("%+v %v", o, err)
	}
	for _, bad := range []string{"all_reduce_perf -b 8G -e 8", "nope_perf", "all_reduce_perf -b", "all_reduce_perf -x 1", "all_reduce_perf -d quad",
		"all_reduce_perf -b 1x", "all_reduce_perf -f 1 -i 0", "all_reduce_perf -b 1 -e 1G -i 1", "all_reduce_perf -m 4"} {
		if _, err := Parse(strings.Fields(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

// FuzzParse: any command line gives options that validate, or an error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"all_reduce_perf -b 128M -e 8G -f 2 -g 8", "sendrecv_perf --minbytes=1K -i 1 -e 2K", "alltoall_perf -d bfloat16 -o max -r 2",
		"all_gather_perf -b 0 -e 0", "all_reduce_perf -b 1.5K -e 1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := Parse(strings.Fields(s))
		if err != nil {
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("%q parsed but does not validate: %v", s, err)
		}
		if len(o.Sizes()) == 0 && o.MinBytes <= o.MaxBytes {
			t.Fatalf("%q: no sizes", s)
		}
	})
}

// TestCutShortSays: a sweep stopped before its last size prints the rows
// it has, then says which sizes did not run, with no trailer (nccl-tests
// killed mid-sweep prints none, and an average of the sizes that ran
// would read as the sweep's).
func TestCutShortSays(t *testing.T) {
	s := &Sweep{Opts: Options{MinBytes: 8 << 20, MaxBytes: 512 << 20, StepFactor: 2}}
	s.Rows = []Row{{Size: 8 << 20}}
	if got := s.missingSizes(); len(got) != 6 || got[0] != 16<<20 {
		t.Fatalf("missing %v", got)
	}
	if got := sizeList(s.missingSizes()); got != "16777216, 33554432, 67108864, 134217728, 268435456, 536870912" {
		t.Errorf("list %q", got)
	}
	if got := sizeList([]int64{1, 2, 3, 4, 5, 6, 7, 8, 9}); got != "1, 2, 3, … (4 more), 8, 9" {
		t.Errorf("long list %q", got)
	}
	s.Rows = make([]Row, 7)
	if s.missingSizes() != nil {
		t.Error("a whole sweep has sizes missing")
	}
}

// TestColumnsAllowTheCollective reads only the twin's table, header and
// rows, as an excerpt gives them: the collectives its columns (redop,
// root, an in-place N/A) and busbw/algbw ratio allow must include the
// one that ran. The redop column decides between alltoall and sendrecv:
// nccl-tests' sendrecv prints its -o operation ("sum"), alltoall "none".
func TestColumnsAllowTheCollective(t *testing.T) {
	for bin := range Binaries {
		_, out := run(t, bin+" -b 64K -e 4M -f 4 -g 8 -n 2 -w 1", 2, 8)
		var table strings.Builder
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 && (f[0][0] >= '0' && f[0][0] <= '9' || len(f) > 1 && f[1] == "size") {
				table.WriteString(l + "\n")
			}
		}
		res, err := ingest.Read("twin.txt", strings.NewReader(table.String()))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(bin, "_perf")
		var got []string
		for _, a := range res.Artifacts {
			if x, ok := a.(*ingest.NCCLTests); ok && len(x.Runs) == 1 {
				if got = x.Runs[0].Candidates; x.Runs[0].Collective != "" {
					got = []string{x.Runs[0].Collective}
				}
			}
		}
		found := false
		for _, c := range got {
			found = found || c == want
		}
		if !found {
			t.Errorf("%s: the table alone allows %v\n%s", bin, got, table.String())
		}
	}
}
