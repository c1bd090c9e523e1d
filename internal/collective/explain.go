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
// INFO NCCL_TUNING prints them on rank 0 (without the log prefix), in the
// layout of the communicator's release: from 2.18 three algorithms a
// block (2.18-2.22 have six algorithms, 2.23 on seven with PAT); before,
// one "Latency/AlgBw" header over every algorithm (five in 2.17, four in
// 2.14-2.16, three before: Tree, Ring, CollNet).
func (t *Tuning) TuningTable() []string {
	algos := 7
	switch v := t.version; {
	case !v.AtLeast(2, 14, 0):
		algos = 3
	case !v.AtLeast(2, 17, 0):
		algos = 4
	case !v.AtLeast(2, 18, 0):
		algos = 5
	case !v.AtLeast(2, 23, 0):
		algos = 6
	}
	if algos <= 5 {
		return t.flatTable(algos)
	}
	var out []string
	for block := 0; block < (algos+2)/3; block++ {
		var b strings.Builder
		b.WriteString("  Algorithm   |")
		for ba := 0; ba < 3; ba++ {
			a := block*3 + ba
			if a >= algos {
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
			if a >= algos {
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
				if a >= algos {
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

// flatTable is the table of releases before 2.18: one header line of
// every algorithm and protocol, the threads, then a line per function.
func (t *Tuning) flatTable(algos int) []string {
	name := func(a int) string {
		if algos == 3 && a == int(CollNetDirect) {
			return "CollNet"
		}
		return Algo(a).String()
	}
	var out []string
	var b strings.Builder
	b.WriteString("Latency/AlgBw |")
	for a := 0; a < algos; a++ {
		for p := LL; p < nProtos; p++ {
			fmt.Fprintf(&b, " %7s/%6s |", name(a), p)
		}
	}
	out = append(out, b.String())
	b.Reset()
	b.WriteString(" Max NThreads |")
	for a := 0; a < algos; a++ {
		for p := LL; p < nProtos; p++ {
			fmt.Fprintf(&b, " %14d |", t.maxThreads[a][p])
		}
	}
	out = append(out, b.String())
	for f := Func(0); f < nTunedFuncs; f++ {
		b.Reset()
		fmt.Fprintf(&b, "%13s |", f)
		for a := 0; a < algos; a++ {
			for p := LL; p < nProtos; p++ {
				fmt.Fprintf(&b, "%8.1f/%6.1f |", t.Lat[f][a][p], t.BW[f][a][p])
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TuningLine returns the line NCCL's rank 0 prints for a call under
// NCCL_DEBUG_SUBSYS=TUNING (enqueue.cc): "AllReduce: 1048576 Bytes -> Algo
// Tree proto LL128 channel{Lo..Hi}={0..15}".
func TuningLine(call Call, ch Choice) string {
	return fmt.Sprintf("%s: %d Bytes -> Algo %s proto %s channel{Lo..Hi}={0..%d}", call.Func, call.Bytes, ch.Algo, ch.Proto, max(ch.Channels, 1)-1)
}

// CallTuningLine returns the line rank 0 prints for call under
// NCCL_DEBUG_SUBSYS=TUNING in the communicator's release, or "" where it
// prints none (before 2.23). From 2.24 it is TuningLine with the bytes of
// the call's count (one rank's piece for AllGather and ReduceScatter) and
// the channels NCCL's planner gave it; 2.23 printed the model's indices
// and predicted time instead ("AllReduce: 1048576 Bytes -> Algo 0 proto
// 1 time 58.633999").
func (c *Comm) CallTuningLine(call Call) string {
	v := c.Cfg.Version
	if !v.AtLeast(2, 23, 0) || c.NRanks < 2 {
		return ""
	}
	ch, err := c.Plan(call)
	if err != nil {
		return ""
	}
	if !v.AtLeast(2, 24, 0) {
		return fmt.Sprintf("%s: %d Bytes -> Algo %d proto %d time %f", call.Func, call.Bytes, int(ch.Algo), int(ch.Proto), ch.Predicted)
	}
	return c.plannedLine(call, ch)
}

// plannedLine is TuningLine as the planner prints it: the bytes of the
// call's count and the channels it runs on.
func (c *Comm) plannedLine(call Call, ch Choice) string {
	if call.Func == AllGather || call.Func == ReduceScatter {
		call.Bytes /= int64(c.NRanks)
	}
	ch.Channels = c.plannedChannels(call, ch)
	return TuningLine(call, ch)
}

// plannedChannels returns the channels NCCL's planner runs a collective
// on (plan.go); count is the call's count in bytes.
func (c *Comm) plannedChannels(call Call, ch Choice) int {
	if call.Func.p2p() {
		return ch.Channels
	}
	maxCh := c.Tuning.NChannels
	if ch.Algo == NVLS || ch.Algo == NVLSTree {
		maxCh = c.Tuning.NVLSChannels()
	}
	return len(channelShares(c.Cfg.Version, call.Func, ch.Proto, call.Bytes, c.NRanks, ch.Channels, ch.Threads, max(maxCh, ch.Channels)))
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
		b.WriteString(c.plannedLine(call, ch) + "\n")
		if f.p2p() || c.NRanks == 1 {
			continue
		}
		b.WriteString("  ")
		for i, cd := range c.Tuning.Candidates(f, n) {
			if i > 0 {
				b.WriteString(" < ")
			}
			lat := c.Tuning.Lat[f][cd.Algo][cd.Proto]
			if cd.Algo == Ring && cd.Proto == Simple && c.NNodes() > 1 && f == AllReduce {
				lat *= c.Tuning.model.plateauFactor(c.Tuning.minCC, n, c.Tuning.NChannels, c.NRanks)
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
