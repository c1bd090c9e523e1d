package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// flowResult is one flow's completion in both simulators and ns-3's
// standalone FCT (the flow alone on the idle fabric, fct.txt's last
// field), which divides both into slowdowns.
type flowResult struct {
	size                     int64
	standalone, ns3, rocelab float64 // µs
}

// sizeBucket is the slowdowns of one range of flows by size rank, as the
// model's analysis/fct_analysis.py reports a workload such as its
// traffic_gen.py's web search: the 50th, 95th and 99th percentile
// slowdown (FCT over standalone FCT, at least 1) in each simulator.
type sizeBucket struct {
	from, to     float64 // size ranks, 0..1
	upTo         int64   // the bucket's largest flow, bytes
	n            int
	ns3, rocelab [3]float64
	// fctRatio is the sum of rocelab's FCTs over the sum of ns-3's.
	fctRatio float64
}

// minSlowdownFlows is the fewest flows compare reports slowdowns for.
const minSlowdownFlows = 100

// bucketEdges split the flows by size rank: the smaller half, the next
// 30 %, 15 % and the largest 5 %.
var bucketEdges = []float64{0, 0.5, 0.8, 0.95, 1}

// slowdowns sorts the flows by size and returns each bucket's slowdowns.
func slowdowns(flows []flowResult) []sizeBucket {
	f := slices.Clone(flows)
	slices.SortStableFunc(f, func(a, b flowResult) int { return cmp.Compare(a.size, b.size) })
	var out []sizeBucket
	for i := 1; i < len(bucketEdges); i++ {
		b := sizeBucket{from: bucketEdges[i-1], to: bucketEdges[i]}
		part := f[int(b.from*float64(len(f))):int(b.to*float64(len(f)))]
		if len(part) == 0 {
			continue
		}
		b.n, b.upTo = len(part), part[len(part)-1].size
		var n, r []float64
		var sn, sr float64
		for _, x := range part {
			n = append(n, max(1, x.ns3/x.standalone))
			r = append(r, max(1, x.rocelab/x.standalone))
			sn += x.ns3
			sr += x.rocelab
		}
		b.fctRatio = sr / sn
		slices.Sort(n)
		slices.Sort(r)
		for k, p := range []float64{0.5, 0.95, 0.99} {
			// fct_analysis.py's get_pctl: a[int(len(a)·p)]
			b.ns3[k], b.rocelab[k] = n[int(float64(len(n))*p)], r[int(float64(len(r))*p)]
		}
		out = append(out, b)
	}
	return out
}

// printSlowdowns writes the buckets as a table.
func printSlowdowns(w io.Writer, bs []sizeBucket) {
	fmt.Fprintf(w, "slowdown (FCT / ns-3's standalone FCT) by flow size rank, p50 p95 p99:\n")
	fmt.Fprintf(w, "%-9s %12s %5s %20s %20s %10s\n", "sizes", "up to (B)", "flows", "ns-3", "rocelab", "sum FCT")
	for _, b := range bs {
		fmt.Fprintf(w, "%3.0f-%3.0f%% %12d %5d %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %+9.1f%%\n",
			100*b.from, 100*b.to, b.upTo, b.n, b.ns3[0], b.ns3[1], b.ns3[2], b.rocelab[0], b.rocelab[1], b.rocelab[2], 100*(b.fctRatio-1))
	}
}
