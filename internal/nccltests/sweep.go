package nccltests

import (
	"fmt"
	"io"
	"strings"

	"rocelab/internal/collective"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Sweep is an nccl-tests run as a workload: the warm-up calls, then for
// every size the timed out-of-place and in-place loops, each a batch of
// -n calls issued back to back, as nccl-tests' TimeTest does.
type Sweep struct {
	Opts Options
	Comm *collective.Comm
	// Hosts names each server for the device list ("node0", ... when
	// empty).
	Hosts []string
	// Progress, when set, hears after every batch how many of the total
	// have finished.
	Progress func(done, total int)
	// Rows are the finished sizes, Choices what NCCL picked for each, and
	// Results the raw batches.
	Rows    []Row
	Choices []collective.Choice
	Results []collective.Result
	// Err is the first error (a call NCCL refuses, a failed QP).
	Err error

	steps []step
	next  int
	done  bool
	t     workload.Transport
	start unit.Time
	end   unit.Time
}

type step struct {
	call    collective.Call
	warm    bool
	inPlace bool
	size    int64 // the table's size column
	count   int64
}

// NewSweep prepares the sweep of o on communicator c, which must have
// -g × -t GPUs per server.
func NewSweep(o Options, c *collective.Comm) (*Sweep, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.NGpus*o.NThreads != c.PPN {
		return nil, fmt.Errorf("nccl-tests -g %d -t %d is %d GPUs per process, the communicator has %d per server", o.NGpus, o.NThreads, o.NGpus*o.NThreads, c.PPN)
	}
	if (o.Func == collective.Broadcast || o.Func == collective.Reduce) && o.Root >= c.NRanks {
		return nil, fmt.Errorf("-r %d: the communicator has %d ranks", o.Root, c.NRanks)
	}
	s := &Sweep{Opts: o, Comm: c}
	// One thread of the process launches on -g GPUs in turn.
	c.ThreadGPUs = o.NGpus
	if o.Warmup > 0 {
		for b := o.MinBytes; b <= o.MaxBytes && b > 0; b *= 2 {
			st := s.stepFor(b)
			st.warm = true
			s.steps = append(s.steps, st)
		}
	}
	for _, b := range o.Sizes() {
		out := s.stepFor(b)
		in := out
		in.inPlace = true
		s.steps = append(s.steps, out, in)
	}
	return s, nil
}

// stepFor maps a requested size to the call and the table's size and
// count columns (nccl-tests setupArgs and *GetCollByteCount).
func (s *Sweep) stepFor(size int64) step {
	o := &s.Opts
	ws := typeSizes[o.DType]
	n := int64(s.Comm.NRanks)
	count := size / ws
	align := max(16/ws, 1) - 1
	var tabSize, tabCount int64
	switch o.Func {
	case collective.AllGather, collective.ReduceScatter, collective.AllToAll:
		base := (count / n) &^ align
		tabSize, tabCount = base*n*ws, base
	default:
		tabSize, tabCount = count*ws, count
	}
	call := collective.Call{Func: o.Func, Bytes: tabSize, Root: o.Root}
	return step{call: call, size: tabSize, count: tabCount}
}

// Start implements workload.Workload.
func (s *Sweep) Start(t workload.Transport) {
	s.t = t
	s.start = t.Now()
	s.Comm.Open(t, s)
	s.launch()
}

func (s *Sweep) launch() {
	if s.next >= len(s.steps) {
		s.done, s.end = true, s.t.Now()
		return
	}
	st := s.steps[s.next]
	iters := s.Opts.Iters
	if st.warm {
		iters = s.Opts.Warmup
	}
	if err := s.Comm.Run(st.call, iters); err != nil {
		s.Err, s.done, s.end = err, true, s.t.Now()
	}
}

// BatchDone implements collective.Listener.
func (s *Sweep) BatchDone(r collective.Result) {
	st := s.steps[s.next]
	s.next++
	s.Results = append(s.Results, r)
	if r.Err != nil {
		s.Err, s.done, s.end = r.Err, true, s.t.Now()
		return
	}
	if !st.warm {
		h := s.half(st, r)
		if st.inPlace {
			s.Rows[len(s.Rows)-1].In = h
		} else {
			s.Rows = append(s.Rows, Row{Size: st.size, Count: st.count, Type: s.Opts.DType, Redop: s.redop(), Root: s.root(), Out: h})
			s.Choices = append(s.Choices, r.Choice)
		}
	}
	if s.Progress != nil {
		s.Progress(s.next, len(s.steps))
	}
	s.launch()
}

func (s *Sweep) half(st step, r collective.Result) Half {
	sec := r.Time().Seconds()
	h := Half{Time: sec * 1e6}
	if sec > 0 {
		h.AlgBW = float64(st.size) / 1e9 / sec
		h.BusBW = h.AlgBW * BusFactor(s.Opts.Func, s.Comm.NRanks)
	}
	// alltoall and sendrecv leave their in-place half unchecked: nccl-tests
	// prints N/A there (nccl-tests#214's sendrecv, #314's alltoall).
	if s.Opts.Check == 0 || ((s.Opts.Func == collective.AllToAll || s.Opts.Func == collective.SendRecv) && st.inPlace) {
		h.Wrong = -1
	}
	return h
}

// BusFactor is nccl-tests' busbw/algbw ratio for a collective on n ranks
// (doc/PERFORMANCE.md, src/*.cu GetBw).
func BusFactor(f collective.Func, n int) float64 {
	nf := float64(n)
	switch f {
	case collective.AllReduce:
		return 2 * (nf - 1) / nf
	case collective.AllGather, collective.ReduceScatter, collective.AllToAll:
		return (nf - 1) / nf
	}
	return 1
}

// redop is the table's redop column: the -o operation for the
// reductions, and for sendrecv too, which runs over the -o operations and
// prints their names though it reduces nothing (src/sendrecv.cu); "none"
// for the collectives that take no operation.
func (s *Sweep) redop() string {
	switch s.Opts.Func {
	case collective.AllReduce, collective.Reduce, collective.ReduceScatter, collective.SendRecv:
		return s.Opts.Op
	}
	return "none"
}

func (s *Sweep) root() int {
	if s.Opts.Func == collective.Broadcast || s.Opts.Func == collective.Reduce {
		return s.Opts.Root
	}
	return -1
}

// Done implements workload.Workload.
func (s *Sweep) Done() bool { return s.done }

// Lead implements workload.Leader (collective.Comm.Lead).
func (s *Sweep) Lead() (unit.Time, bool) { return s.Comm.Lead() }

// RowChoice names the algorithm, protocol and channels of row i, e.g.
// "Ring/Simple/2".
func (s *Sweep) RowChoice(i int) string {
	if i >= len(s.Choices) {
		return ""
	}
	c := s.Choices[i]
	return fmt.Sprintf("%s/%s/%d", c.Algo, c.Proto, c.Channels)
}

// Explain says, for each size of the table, which algorithm, protocol
// and channels NCCL's model picked and the predicted time of every
// candidate, as NCCL_DEBUG_SUBSYS=TUNING's per-call line plus the costs
// (collective.Comm.Explain).
func (s *Sweep) Explain() string {
	sizes := make([]int64, 0, len(s.Rows))
	for _, r := range s.Rows {
		sizes = append(sizes, s.stepFor(r.Size).call.Bytes)
	}
	return s.Comm.Explain(s.Opts.Func, sizes)
}

// Calls returns every call the sweep makes, in order: the warm-up calls
// and each size's timed out-of-place and in-place loops (an NCCL log
// prints a TUNING line for each).
func (s *Sweep) Calls() []collective.Call {
	var out []collective.Call
	for _, st := range s.steps {
		n := s.Opts.Iters
		if st.warm {
			n = s.Opts.Warmup
		}
		for range n {
			out = append(out, st.call)
		}
	}
	return out
}

// Completed implements workload.Owner; the communicator owns its QPs.
func (s *Sweep) Completed(workload.Completion) {}

// Wake implements workload.Waker; the communicator sets its own timers.
func (s *Sweep) Wake(unit.Time, uint64) {}

// Elapsed returns the simulated time the sweep took.
func (s *Sweep) Elapsed() unit.Time { return s.end - s.start }

// AvgBusBW returns nccl-tests' "Avg bus bandwidth": the mean busbw of
// every timed half.
func (s *Sweep) AvgBusBW() float64 {
	var sum float64
	for _, r := range s.Rows {
		sum += r.Out.BusBW + r.In.BusBW
	}
	if len(s.Rows) == 0 {
		return 0
	}
	return sum / float64(2*len(s.Rows))
}

// gpuNames are the device names CUDA reports.
var gpuNames = map[string]string{"V100": "Tesla V100-SXM2-32GB", "A100": "NVIDIA A100-SXM4-80GB", "H100": "NVIDIA H100 80GB HBM3", "B200": "NVIDIA B200"}

// WriteTo writes the whole nccl-tests output: preamble, device list,
// table and footer.
func (s *Sweep) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	c := s.Comm
	var devs []string
	gpuName := gpuNames[c.Sys.Server.GPU.Name]
	for r := 0; r < c.NRanks; r++ {
		node, g := c.Rank(r)
		host := fmt.Sprintf("node%d", node)
		if node < len(s.Hosts) {
			host = s.Hosts[node]
		}
		devs = append(devs, deviceLine(r, collective.LogPID(r/s.Opts.NGpus), host, g, collective.BusID(g), gpuName))
	}
	v := c.Cfg.Version
	writePreamble(cw, &s.Opts, versionCode(v.Major, v.Minor, v.Patch), devs)
	for _, r := range s.Rows {
		fmt.Fprintln(cw, r.String())
	}
	if missing := s.missingSizes(); len(missing) > 0 {
		// nccl-tests stopped mid-sweep prints no trailer; say what is
		// missing in a comment its parsers skip.
		what := "the run's time limit was reached"
		if s.Err != nil {
			what = "the sweep failed: " + s.Err.Error()
		}
		fmt.Fprintf(cw, "# Cut short: %s after %d of %d sizes; not run: %s\n", what, len(s.Rows), len(s.Opts.Sizes()), sizeList(missing))
		return cw.n, cw.err
	}
	writeFooter(cw, s.Opts.Binary, s.AvgBusBW())
	return cw.n, cw.err
}

// missingSizes lists the sizes of the sweep without a finished row.
func (s *Sweep) missingSizes() []int64 {
	all := s.Opts.Sizes()
	if len(s.Rows) >= len(all) {
		return nil
	}
	return all[len(s.Rows):]
}

// sizeList names sizes, the first and last few of a long list.
func sizeList(sizes []int64) string {
	var parts []string
	for i, b := range sizes {
		if len(sizes) > 6 && i == 3 {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(sizes)-5))
		}
		if len(sizes) > 6 && i >= 3 && i < len(sizes)-2 {
			continue
		}
		parts = append(parts, fmt.Sprint(b))
	}
	return strings.Join(parts, ", ")
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

// Write implements io.Writer, counting the bytes written.
func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// NetTraffic returns what the whole sweep puts on the network, per host
// pair, without running it (for estimating a run's cost up front).
func (s *Sweep) NetTraffic(mtu int64) ([]collective.Transfer, error) {
	var all []collective.Transfer
	for _, st := range s.steps {
		iters := s.Opts.Iters
		if st.warm {
			iters = s.Opts.Warmup
		}
		tr, err := s.Comm.NetTraffic(st.call, iters, mtu)
		if err != nil {
			return nil, err
		}
		all = append(all, tr...)
	}
	return collective.MergeTransfers(all), nil
}

// Steps returns the batches finished and the batches of the whole sweep
// (warm-up, then out-of-place and in-place per size).
func (s *Sweep) Steps() (done, total int) { return s.next, len(s.steps) }
