package training

import (
	"fmt"
	"strings"

	"rocelab/internal/collective"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Workload runs training iterations: every pipeline (one per data-parallel
// replica and tensor-parallel rank) follows the 1F1B schedule, handing
// activations forward and gradients back over NCCL SendRecv between
// neighbouring stages as soon as they are computed; when a stage has run
// its last backward in every replica, its data-parallel groups all-reduce
// their gradients; the iteration ends when every group has.
//
// Tensor-parallel AllReduces stay on NVLink and are charged inside each
// compute step at the time NCCL's tuning model gives them; a pipeline
// transfer starts when the sender has computed it (the receiver's
// matching receive is assumed posted, as Megatron's batched isend/irecv
// with the next step arranges).
type Workload struct {
	Cfg     Config
	Traffic Traffic
	// TPTime is one tensor-parallel AllReduce of ActBytes.
	TPTime unit.Time
	// Report is filled as iterations finish.
	Report Report
	// Err is the first error.
	Err error

	t      workload.Transport
	pipes  []*pipe              // [dp*TP+tp]
	dp     [][]*collective.Comm // [pp][tp]
	dpWait [][]int              // stages finished per group
	dpDone int
	links  []*link
	iter   int
	start  unit.Time
	done   bool
}

// Report is the training run's result.
type Report struct {
	Iterations int
	// Iteration is the mean iteration time.
	Iteration unit.Time
	// Compute and TP are one stage's compute and tensor-parallel
	// AllReduce time per iteration.
	Compute, TP unit.Time
	// PP is the mean time of one pipeline transfer; PPTransfers their
	// number per iteration.
	PP          unit.Time
	PPTransfers int
	// DP is the slowest data-parallel gradient AllReduce of the last
	// iteration.
	DP unit.Time
	// Idle is what is left of an iteration for the busiest stage: the
	// pipeline bubble and the time waiting for activations, gradients and
	// the data-parallel AllReduce.
	Idle unit.Time
	// Calls names the NCCL choice for the data-parallel AllReduce.
	Calls string
	ppSum unit.Time
}

// Communication returns the communication time per iteration: everything
// that is not computing for the busiest stage (TP AllReduces, waiting on
// pipeline transfers and the bubble, the exposed DP AllReduce).
func (r Report) Communication() unit.Time { return r.Iteration - r.Compute }

type pipe struct {
	w      *Workload
	dp, tp int
	stages []*stage
}

type stage struct {
	idx    int
	ops    []int32 // micro-batch index; negative is backward of -1-j
	pc     int
	busy   bool
	act    []bool // activation of micro j arrived
	grad   []bool
	fwd    *link // to the next stage
	bwd    *link // to the previous stage
	finish unit.Time
}

// link is one direction of one stage boundary in one pipeline: an NCCL
// communicator of two ranks, used one transfer at a time.
type link struct {
	w     *Workload
	comm  *collective.Comm
	from  *stage
	to    *stage
	grad  bool
	queue []int
	busy  bool
	pipe  int
}

// New builds the workload's communicators on sys with NCCL
// configuration nc. Servers are used in order: global rank
// pp·DP·TP + dp·TP + tp sits on server rank/G, GPU rank%G.
func New(c Config, nc *collective.Config, sys collective.System) (*Workload, error) {
	srv := sys.Server
	tr, err := Decompose(c, srv)
	if err != nil {
		return nil, err
	}
	need := (tr.GPUs + srv.GPUs - 1) / srv.GPUs
	if need > len(sys.Hosts) {
		return nil, fmt.Errorf("training: %d GPUs need %d servers of %d GPUs, the topology has %d", tr.GPUs, need, srv.GPUs, len(sys.Hosts))
	}
	if c.Iterations == 0 {
		c.Iterations = 1
	}
	w := &Workload{Cfg: c, Traffic: tr}
	p := c.Parallel
	if p.TP > 1 {
		tc, err := collective.NewComm(nc, sys, []int{0}, collective.AllGPUs(p.TP))
		if err != nil {
			return nil, err
		}
		ch, err := tc.Plan(collective.Call{Func: collective.AllReduce, Bytes: tr.ActBytes})
		if err != nil {
			return nil, err
		}
		w.TPTime = unit.Time(float64(ch.Predicted) * float64(unit.Microsecond))
	}
	// Data-parallel groups: stage pp, tensor rank tp, all replicas.
	w.dp = make([][]*collective.Comm, p.PP)
	w.dpWait = make([][]int, p.PP)
	for pp := 0; pp < p.PP; pp++ {
		w.dp[pp] = make([]*collective.Comm, p.TP)
		w.dpWait[pp] = make([]int, p.TP)
		if p.DP == 1 {
			continue
		}
		for tp := 0; tp < p.TP; tp++ {
			var ranks [][2]int
			for dp := 0; dp < p.DP; dp++ {
				s, g := place(p, srv.GPUs, tp, dp, pp)
				ranks = append(ranks, [2]int{s, g})
			}
			cm, err := commOver(nc, sys, ranks)
			if err != nil {
				return nil, fmt.Errorf("training: data-parallel group of stage %d, tensor rank %d: %v", pp, tp, err)
			}
			w.dp[pp][tp] = cm
		}
	}
	m := c.MicroBatches
	for dp := 0; dp < p.DP; dp++ {
		for tp := 0; tp < p.TP; tp++ {
			pi := &pipe{w: w, dp: dp, tp: tp}
			for pp := 0; pp < p.PP; pp++ {
				pi.stages = append(pi.stages, &stage{idx: pp, ops: schedule(pp, p.PP, m), act: make([]bool, m), grad: make([]bool, m)})
			}
			for pp := 0; pp+1 < p.PP; pp++ {
				s0, g0 := place(p, srv.GPUs, tp, dp, pp)
				s1, g1 := place(p, srv.GPUs, tp, dp, pp+1)
				for _, dir := range []bool{false, true} {
					cm, err := commOver(nc, sys, [][2]int{{s0, g0}, {s1, g1}})
					if err != nil {
						return nil, fmt.Errorf("training: pipeline stages %d-%d: %v", pp, pp+1, err)
					}
					l := &link{w: w, comm: cm, from: pi.stages[pp], to: pi.stages[pp+1], grad: dir, pipe: len(w.pipes)}
					if dir {
						l.from, l.to = pi.stages[pp+1], pi.stages[pp]
						pi.stages[pp+1].bwd = l
					} else {
						pi.stages[pp].fwd = l
					}
					w.links = append(w.links, l)
				}
			}
			w.pipes = append(w.pipes, pi)
		}
	}
	return w, nil
}

// Comms returns the communicators that cross servers (the data-parallel
// groups), stage by stage.
func (w *Workload) Comms() []*collective.Comm {
	var out []*collective.Comm
	for _, st := range w.dp {
		for _, c := range st {
			if c != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// commOver builds a communicator over (server, GPU) ranks in rank order;
// the servers must hold the same GPUs each, in ascending server order.
func commOver(nc *collective.Config, sys collective.System, ranks [][2]int) (*collective.Comm, error) {
	var servers []int
	gpus := map[int][]int{}
	for _, r := range ranks {
		if len(servers) == 0 || servers[len(servers)-1] != r[0] {
			servers = append(servers, r[0])
		}
		gpus[r[0]] = append(gpus[r[0]], r[1])
	}
	g0 := gpus[servers[0]]
	for _, s := range servers {
		if fmt.Sprint(gpus[s]) != fmt.Sprint(g0) {
			return nil, fmt.Errorf("ranks %v use different GPUs on different servers, which a communicator of this model cannot place", ranks)
		}
	}
	return collective.NewComm(nc, sys, servers, g0)
}

// schedule is 1F1B for stage s of p with m micro-batches: warm-up
// forwards, then one forward one backward, then the remaining backwards.
// A backward of micro-batch j is -1-j.
func schedule(s, p, m int) []int32 {
	warm := min(p-s-1, m)
	var ops []int32
	f, b := 0, 0
	for ; f < warm; f++ {
		ops = append(ops, int32(f))
	}
	for f < m {
		ops = append(ops, int32(f), int32(-1-b))
		f++
		b++
	}
	for ; b < m; b++ {
		ops = append(ops, int32(-1-b))
	}
	return ops
}

// Start implements workload.Workload.
func (w *Workload) Start(t workload.Transport) {
	w.t = t
	for _, l := range w.links {
		l.comm.Open(t, l)
	}
	for pp := range w.dp {
		for tp, cm := range w.dp[pp] {
			if cm != nil {
				cm.Open(t, &dpListener{w, pp, tp})
			}
		}
	}
	w.begin()
}

func (w *Workload) begin() {
	w.start = w.t.Now()
	w.dpDone = 0
	for pp := range w.dpWait {
		for tp := range w.dpWait[pp] {
			w.dpWait[pp][tp] = 0
		}
	}
	for _, pi := range w.pipes {
		for _, s := range pi.stages {
			s.pc, s.busy = 0, false
			clear(s.act)
			clear(s.grad)
		}
	}
	for pi := range w.pipes {
		for si := range w.pipes[pi].stages {
			w.try(pi, si)
		}
	}
}

func tagOf(pipe, stage int) uint64 { return uint64(pipe)<<20 | uint64(stage) }

// try starts stage si's next step of pipeline pi if its input is there.
func (w *Workload) try(pi, si int) {
	s := w.pipes[pi].stages[si]
	if s.busy || s.pc >= len(s.ops) || w.Err != nil {
		return
	}
	op := s.ops[s.pc]
	last := si == len(w.pipes[pi].stages)-1
	d := w.Traffic.Fwd + unit.Time(w.Traffic.TPCalls/2)*w.TPTime
	if op >= 0 {
		if si > 0 && !s.act[op] {
			return
		}
	} else {
		j := -1 - op
		if !last && !s.grad[j] {
			return
		}
		d = w.Traffic.Bwd + unit.Time(w.Traffic.TPCalls/2)*w.TPTime
	}
	s.busy = true
	w.t.After(d, w, tagOf(pi, si))
}

// Wake implements workload.Waker: a compute step ended.
func (w *Workload) Wake(now unit.Time, tg uint64) {
	pi, si := int(tg>>20), int(tg&(1<<20-1))
	s := w.pipes[pi].stages[si]
	op := s.ops[s.pc]
	s.busy = false
	s.pc++
	if op >= 0 && s.fwd != nil {
		s.fwd.send(int(op))
	}
	if op < 0 && s.bwd != nil {
		s.bwd.send(int(-1 - op))
	}
	if s.pc == len(s.ops) {
		s.finish = now
		w.stageDone(pi, si)
		return
	}
	w.try(pi, si)
}

func (l *link) send(j int) {
	l.queue = append(l.queue, j)
	l.pump()
}

func (l *link) pump() {
	if l.busy || len(l.queue) == 0 || l.w.Err != nil {
		return
	}
	l.busy = true
	if err := l.comm.Run(collective.Call{Func: collective.SendRecv, Bytes: l.w.Traffic.PPBytes, Pairs: [][2]int{l.pairs()}}, 1); err != nil {
		l.w.fail(err)
	}
}

func (l *link) pairs() [2]int {
	if l.grad {
		return [2]int{1, 0}
	}
	return [2]int{0, 1}
}

// BatchDone implements collective.Listener: a transfer arrived.
func (l *link) BatchDone(r collective.Result) {
	if r.Err != nil {
		l.w.fail(r.Err)
		return
	}
	j := l.queue[0]
	l.queue = l.queue[1:]
	l.busy = false
	l.w.Report.ppSum += r.End - r.Start
	l.w.Report.PPTransfers++
	if l.grad {
		l.to.grad[j] = true
	} else {
		l.to.act[j] = true
	}
	l.w.try(l.pipe, l.to.idx)
	l.pump()
}

func (w *Workload) stageDone(pi, si int) {
	p := w.pipes[pi]
	w.dpWait[si][p.tp]++
	if w.dpWait[si][p.tp] < w.Cfg.DP {
		return
	}
	cm := w.dp[si][p.tp]
	if cm == nil {
		w.groupDone(unit.Time(0))
		return
	}
	if err := cm.Run(collective.Call{Func: collective.AllReduce, Bytes: w.Traffic.DPBytes}, 1); err != nil {
		w.fail(err)
	}
}

type dpListener struct {
	w      *Workload
	pp, tp int
}

// BatchDone implements collective.Listener: a gradient AllReduce ended.
func (d *dpListener) BatchDone(r collective.Result) {
	if r.Err != nil {
		d.w.fail(r.Err)
		return
	}
	if d.pp == 0 && d.tp == 0 {
		d.w.Report.Calls = fmt.Sprintf("%s/%s/%d channels", r.Choice.Algo, r.Choice.Proto, r.Choice.Channels)
	}
	d.w.groupDone(r.End - r.Start)
}

func (w *Workload) groupDone(dt unit.Time) {
	w.dpDone++
	w.Report.DP = max(w.Report.DP, dt)
	if w.dpDone < w.Cfg.PP*w.Cfg.TP {
		return
	}
	now := w.t.Now()
	w.iter++
	rp := &w.Report
	rp.Iterations = w.iter
	rp.Iteration = (rp.Iteration*unit.Time(w.iter-1) + (now - w.start)) / unit.Time(w.iter)
	m := unit.Time(w.Cfg.MicroBatches)
	rp.Compute = m * (w.Traffic.Fwd + w.Traffic.Bwd + unit.Time(w.Traffic.TPCalls)*w.TPTime)
	rp.TP = m * unit.Time(w.Traffic.TPCalls) * w.TPTime
	if rp.PPTransfers > 0 {
		rp.PP = rp.ppSum / unit.Time(rp.PPTransfers)
	}
	rp.Idle = rp.Iteration - rp.Compute
	if w.iter >= w.Cfg.Iterations {
		w.done = true
		return
	}
	w.Report.DP = 0
	w.begin()
}

func (w *Workload) fail(err error) {
	if w.Err == nil {
		w.Err = err
	}
	w.done = true
}

// Done implements workload.Workload.
func (w *Workload) Done() bool { return w.done }

// Completed implements workload.Owner; the communicators own their QPs.
func (w *Workload) Completed(workload.Completion) {}

// String summarises the report.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "iteration %s over %d iteration(s): compute %s (of which TP AllReduce %s), other %s\n", r.Iteration, r.Iterations, r.Compute, r.TP, r.Idle)
	fmt.Fprintf(&b, "pipeline transfers: %d per iteration, %s each on average; DP gradient AllReduce %s (%s)\n", r.PPTransfers/max(r.Iterations, 1), r.PP, r.DP, r.Calls)
	return b.String()
}

// NetTraffic returns what the run puts on the network, per host pair,
// without running it: every pipeline transfer and every data-parallel
// AllReduce of every iteration.
func (w *Workload) NetTraffic(mtu int64) ([]collective.Transfer, error) {
	var all []collective.Transfer
	iters := w.Cfg.Iterations
	for _, l := range w.links {
		tr, err := l.comm.NetTraffic(collective.Call{Func: collective.SendRecv, Bytes: w.Traffic.PPBytes, Pairs: [][2]int{l.pairs()}}, iters*w.Cfg.MicroBatches, mtu)
		if err != nil {
			return nil, err
		}
		all = append(all, tr...)
	}
	for pp := range w.dp {
		for _, cm := range w.dp[pp] {
			if cm == nil {
				continue
			}
			tr, err := cm.NetTraffic(collective.Call{Func: collective.AllReduce, Bytes: w.Traffic.DPBytes}, iters, mtu)
			if err != nil {
				return nil, err
			}
			all = append(all, tr...)
		}
	}
	return collective.MergeTransfers(all), nil
}
