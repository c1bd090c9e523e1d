package collective

import (
	"fmt"
	"strings"
)

// NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING output: the table NCCL's rank
// 0 prints at init (tuning.cc: latency/bandwidth of every function,
// algorithm and protocol, three algorithms a block), the line enqueue.cc
// prints for every call, and rocelab's own account of the choice: the
// predicted time of every candidate.

// TuningTable returns the lines of NCCL's init-time tuning table, as
// INFO NCCL_TUNING prints them on rank 0 (without the log prefix).
func (t *Tuning) TuningTable() []string {
	var out []string
	for block := 0; block < (int(nAlgos)+2)/3; block++ {
		var b strings.Builder
		b.WriteString("  Algorithm   |")
		for ba := 0; ba < 3; ba++ {
			a := block*3 + ba
			if a >= int(nAlgos) {
				continue
			}
			fmt.Fprintf(&b, " %14s   %14s   %14s |", "", Algo(a), "")
		}
		out = append(out, b.String())
		b.Reset()
		b.WriteString("  Protocol    |")
		for ba := 0; ba < 3; ba++ {
			for p := LL; p < nProtos; p++ {
				fmt.Fprintf(&b, " %14s |", p)
			}
		}
		out = append(out, b.String())
		b.Reset()
		b.WriteString(" Max NThreads |")
		for ba := 0; ba < 3; ba++ {
			a := block*3 + ba
			if a >= int(nAlgos) {
				continue
			}
			for p := LL; p < nProtos; p++ {
				fmt.Fprintf(&b, " %14d |", t.maxThreads[a][p])
			}
		}
		out = append(out, b.String())
		for f := Func(0); f < nTunedFuncs; f++ {
			b.Reset()
			fmt.Fprintf(&b, "%13s |", f)
			for ba := 0; ba < 3; ba++ {
				a := block*3 + ba
				if a >= int(nAlgos) {
					continue
				}
				for p := LL; p < nProtos; p++ {
					fmt.Fprintf(&b, "%8.1f/%6.1f |", t.Lat[f][a][p], t.BW[f][a][p])
				}
			}
			out = append(out, b.String())
		}
	}
	return out
}

// TuningLine returns the line NCCL's rank 0 prints for a call under
// NCCL_DEBUG_SUBSYS=TUNING (enqueue.cc): "AllReduce: 1048576 Bytes -> Algo
// Tree proto LL128 channel{Lo..Hi}={0..15}".
func TuningLine(call Call, ch Choice) string {
	return fmt.Sprintf("%s: %d Bytes -> Algo %s proto %s channel{Lo..Hi}={0..%d}", call.Func, call.Bytes, ch.Algo, ch.Proto, max(ch.Channels, 1)-1)
}

// Candidate is one algorithm and protocol NCCL's model weighed for a
// call, and its predicted time (µs).
type Candidate struct {
	Algo      Algo
	Proto     Proto
	Predicted float32
}

// Candidates returns every algorithm and protocol available for f of
// nBytes with NCCL's predicted time, fastest first (ties in NCCL's order,
// as topoGetAlgoInfo keeps the first of equal times).
func (t *Tuning) Candidates(f Func, nBytes int64) []Candidate {
	var out []Candidate
	for a := Tree; a < nAlgos; a++ {
		for p := LL; p < nProtos; p++ {
			if tm := t.Time(f, a, p, nBytes); tm >= 0 {
				out = append(out, Candidate{a, p, tm})
			}
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Predicted < out[j-1].Predicted; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Explain returns, for each size of f, the choice NCCL's model makes and
// why: the TUNING line and the predicted time of every candidate, e.g.
//
//	AllReduce: 1048576 Bytes -> Algo Tree proto LL128 channel{Lo..Hi}={0..15}
//	  Tree/LL128 48.5+10.1 = 58.6 µs < Ring/LL128 78.0+11.1 = 89.1 < ...
func (c *Comm) Explain(f Func, sizes []int64) string {
	var b strings.Builder
	for _, n := range sizes {
		call := Call{Func: f, Bytes: n}
		ch, err := c.Plan(call)
		if err != nil {
			fmt.Fprintf(&b, "%s: %d Bytes -> %v\n", f, n, err)
			continue
		}
		b.WriteString(TuningLine(call, ch) + "\n")
		if f == SendRecv || f == AllToAll || c.NRanks == 1 {
			continue
		}
		b.WriteString("  ")
		for i, cd := range c.Tuning.Candidates(f, n) {
			if i > 0 {
				b.WriteString(" < ")
			}
			lat := c.Tuning.Lat[f][cd.Algo][cd.Proto]
			if cd.Algo == Ring && cd.Proto == Simple && c.NNodes() > 1 && f == AllReduce && n/int64(c.Tuning.NChannels*c.NRanks) >= 64 {
				if c.Tuning.minCC < 80 {
					lat *= 1.9
				} else {
					lat *= 1.4
				}
			}
			fmt.Fprintf(&b, "%s/%s %.1f+%.1f = %.1f µs", cd.Algo, cd.Proto, lat, cd.Predicted-lat, cd.Predicted)
			if i == 3 {
				if rest := len(c.Tuning.Candidates(f, n)) - 4; rest > 0 {
					fmt.Fprintf(&b, " (and %d slower)", rest)
				}
				break
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
