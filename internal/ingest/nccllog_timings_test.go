package ingest

import (
	"fmt"
	"testing"
)

// NCCL's init and bootstrap timing lines, both "Init timings" forms (2.22:
// NVIDIA/nccl#534's; 2.23 on, with the init call: #1646's) and the
// bootstrap's: the slowest per host and kind is kept, in milliseconds.
func TestInitTimings(t *testing.T) {
	const p = "h1:11:12 [0] NCCL INFO "
	l := parseLog(t, p+"Init timings: rank 5 nranks 8 total 2.46 (kernels 0.18, bootstrap 1.60, allgathers 0.00, topo 0.52, graphs 0.01, connections 0.12, rest 0.02)\n"+
		"h2:1:2 [3] NCCL INFO Init timings - ncclCommInitRankConfig: rank 3 nranks 8 total 55.01 (kernels 52.45, alloc 0.41, bootstrap 0.57, allgathers 0.08, topo 1.10, graphs 0.01, connections 0.39, rest 0.00)\n"+
		p+"Init timings: rank 6 nranks 8 total 2.45 (kernels 0.18, bootstrap 1.61, allgathers 0.00, topo 0.52, graphs 0.01, connections 0.12, rest 0.02)\n"+
		p+"Bootstrap timings total 0.633247 (create 0.000033, send 0.000110, recv 0.632491, ring 0.000067, delay 0.000002)\n")
	if len(l.InitTimings) != 3 {
		t.Fatalf("kept %+v", l.InitTimings)
	}
	var got []string
	for _, it := range l.InitTimings {
		s := it.Slowest()
		got = append(got, fmt.Sprintf("%s boot=%v %q rank %d/%d %d ms, %s %d ms, line %d", it.Host, it.Bootstrap, it.Func, it.Rank, it.NRanks, it.TotalMS, s.Name, s.MS, it.Evidence.Line))
	}
	want := []string{
		`h1 boot=false "" rank 5/8 2460 ms, bootstrap 1600 ms, line 1`,
		`h2 boot=false "ncclCommInitRankConfig" rank 3/8 55010 ms, kernels 52450 ms, line 2`,
		`h1 boot=true "" rank -1/-1 633 ms, recv 632 ms, line 4`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// The rank of least bootstrap time per host (rank 5's 1.60 s against
	// rank 6's 1.61 s): the last to arrive.
	got = got[:0]
	for _, it := range l.LastArrivals {
		got = append(got, fmt.Sprintf("%s rank %d", it.Host, it.Rank))
	}
	if want := []string{"h1 rank 5", "h2 rank 3"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("last arrivals %q, want %q", got, want)
	}
}
