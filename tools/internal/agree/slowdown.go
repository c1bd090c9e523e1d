package agree

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// FlowResult is one flow's size and completion time in both simulators,
// and what divides both into slowdowns: the HPCC ns-3 model's standalone
// FCT (the flow alone on the idle fabric, fct.txt's last field), or 0
// for none, which leaves the completion times as they are.
type FlowResult struct {
	Size                 int64
	Base, Other, Rocelab float64 // µs
}

// SizeBucket is one range of flows by size rank, as the model's
// analysis/fct_analysis.py reports a workload such as its traffic_gen.py's
// web search: the 50th, 95th and 99th percentile slowdown (FCT over the
// base, at least 1) in each simulator, or of the FCTs without a base.
type SizeBucket struct {
	From, To       float64 // size ranks, 0..1
	UpTo           int64   // the bucket's largest flow, bytes
	N              int
	Other, Rocelab [3]float64
	// FCTRatio is the sum of rocelab's FCTs over the sum of the other's.
	FCTRatio float64
}

// MinSlowdownFlows is the fewest flows the comparisons bucket.
const MinSlowdownFlows = 100

// bucketEdges split the flows by size rank: the smaller half, the next
// 30 %, 15 % and the largest 5 %.
var bucketEdges = []float64{0, 0.5, 0.8, 0.95, 1}

// Slowdowns sorts the flows by size and returns each bucket's
// percentiles.
func Slowdowns(flows []FlowResult) []SizeBucket {
	f := slices.Clone(flows)
	slices.SortStableFunc(f, func(a, b FlowResult) int { return cmp.Compare(a.Size, b.Size) })
	var out []SizeBucket
	for i := 1; i < len(bucketEdges); i++ {
		b := SizeBucket{From: bucketEdges[i-1], To: bucketEdges[i]}
		part := f[int(b.From*float64(len(f))):int(b.To*float64(len(f)))]
		if len(part) == 0 {
			continue
		}
		b.N, b.UpTo = len(part), part[len(part)-1].Size
		var n, r []float64
		var sn, sr float64
		for _, x := range part {
			if x.Base > 0 {
				n = append(n, max(1, x.Other/x.Base))
				r = append(r, max(1, x.Rocelab/x.Base))
			} else {
				n = append(n, x.Other)
				r = append(r, x.Rocelab)
			}
			sn += x.Other
			sr += x.Rocelab
		}
		b.FCTRatio = sr / sn
		slices.Sort(n)
		slices.Sort(r)
		for k, p := range []float64{0.5, 0.95, 0.99} {
			// fct_analysis.py's get_pctl: a[int(len(a)·p)]
			b.Other[k], b.Rocelab[k] = n[int(float64(len(n))*p)], r[int(float64(len(r))*p)]
		}
		out = append(out, b)
	}
	return out
}

// PrintSlowdowns writes the buckets as a table; other names the other
// simulator and what is the statistic (a slowdown's base, or FCT).
func PrintSlowdowns(w io.Writer, other, what string, bs []SizeBucket) {
	fmt.Fprintf(w, "%s by flow size rank, p50 p95 p99:\n", what)
	fmt.Fprintf(w, "%-9s %12s %5s %20s %20s %10s\n", "sizes", "up to (B)", "flows", other, "rocelab", "sum FCT")
	for _, b := range bs {
		fmt.Fprintf(w, "%3.0f-%3.0f%% %12d %5d %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %+9.1f%%\n",
			100*b.From, 100*b.To, b.UpTo, b.N, b.Other[0], b.Other[1], b.Other[2], b.Rocelab[0], b.Rocelab[1], b.Rocelab[2], 100*(b.FCTRatio-1))
	}
}
