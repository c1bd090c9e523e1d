package perftest

import (
	"fmt"
	"math"
	"net/netip"
	"sort"

	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// An Endpoint is one host of a test: its transport host and address.
type Endpoint struct {
	Host int
	IP   netip.Addr
}

// A Row is one message size's result: bandwidth in bytes per second
// (peak and average) and message rate, or latency percentiles.
type Row struct {
	Size, Iters int
	// PeakBps, AvgBps and MsgRate (messages per second) for BW tests.
	PeakBps, AvgBps, MsgRate float64
	// Min, Max, Typical (median), Avg, Stdev, P99 and P999 in µs for
	// latency tests.
	Min, Max, Typical, Avg, Stdev, P99, P999 float64
}

// A Test is one perftest run as a workload: the client's queue pairs
// post what perftest posts, and the rows fill as sizes finish.
type Test struct {
	Opts           Options
	Client, Server Endpoint
	// MTU is the RoCE path MTU (ibv_devinfo's active_mtu).
	MTU  int
	Rows []Row
	// Err is the completion error that stopped the test, if any.
	Err *workload.Completion

	t     workload.Transport
	qps   []workload.QP // client → server
	reply workload.QP   // server → client, latency ping-pong
	sizes []int
	cur   int
	// Per size: post and completion times by message index, and how many
	// messages each QP has posted.
	posted, completed []unit.Time
	perQP             []int
	done              bool
}

// New prepares a test between client and server.
func New(o Options, client, server Endpoint, mtu int) *Test {
	return &Test{Opts: o, Client: client, Server: server, MTU: mtu, sizes: o.Sizes()}
}

// Start implements workload.Workload.
func (t *Test) Start(tr workload.Transport) {
	t.t = tr
	opt := workload.QPOptions{Tag: t.Opts.Tool}
	for i := 0; i < t.Opts.QPs; i++ {
		t.qps = append(t.qps, tr.Connect(t.Client.Host, t.Server.Host, opt, t))
	}
	if t.Opts.Kind() == Lat && t.Opts.tool().verb != workload.Read {
		t.reply = tr.Connect(t.Server.Host, t.Client.Host, opt, t)
	}
	t.startSize()
}

// Done implements workload.Workload.
func (t *Test) Done() bool { return t.done }

// Wake implements workload.Waker; the test sets no timers.
func (t *Test) Wake(unit.Time, uint64) {}

func (t *Test) size() int { return t.sizes[t.cur] }

func (t *Test) startSize() {
	n := t.Opts.Iters * len(t.qps)
	t.posted, t.completed = make([]unit.Time, 0, n), make([]unit.Time, 0, n)
	t.perQP = make([]int, len(t.qps))
	if t.Opts.Kind() == Lat {
		t.post(0)
		return
	}
	for k := 0; k < t.Opts.TxDepth; k++ {
		for q := range t.qps {
			if t.perQP[q] < t.Opts.Iters {
				t.post(q)
			}
		}
	}
}

// post sends the next message on client QP q.
func (t *Test) post(q int) {
	id := uint64(len(t.posted))
	t.posted = append(t.posted, t.t.Now())
	t.perQP[q]++
	t.t.Post(t.qps[q], workload.Message{Op: t.Opts.tool().verb, Bytes: int64(t.size()), ID: id})
}

// Completed implements workload.Owner.
func (t *Test) Completed(c workload.Completion) {
	if t.done {
		return
	}
	if c.Status != workload.Success {
		t.Err, t.done = &c, true
		return
	}
	if t.Opts.Kind() == Lat {
		t.pingPong(c)
		return
	}
	if c.Side != workload.Requester {
		return
	}
	t.completed = append(t.completed, c.At)
	for q, qp := range t.qps {
		if qp == c.QP && t.perQP[q] < t.Opts.Iters {
			t.post(q)
		}
	}
	if len(t.completed) == t.Opts.Iters*len(t.qps) {
		t.Rows = append(t.Rows, bwRow(t.size(), t.posted, t.completed, t.Opts.CQMod))
		t.next()
	}
}

// pingPong runs a latency test: the server answers each message as it
// arrives, and the client sends the next when the answer arrives (a READ
// is its own round trip).
func (t *Test) pingPong(c workload.Completion) {
	read := t.Opts.tool().verb == workload.Read
	switch {
	case !read && c.QP == t.qps[0] && c.Side == workload.Responder:
		t.t.Post(t.reply, workload.Message{Op: t.Opts.tool().verb, Bytes: int64(t.size()), ID: c.ID})
		return
	case read && c.QP == t.qps[0] && c.Side == workload.Requester:
	case !read && c.QP == t.reply && c.Side == workload.Responder:
	default:
		return
	}
	if len(t.posted) < t.Opts.Iters {
		t.post(0)
		return
	}
	t.Rows = append(t.Rows, latRow(t.size(), t.posted, read))
	t.next()
}

func (t *Test) next() {
	if t.cur++; t.cur < len(t.sizes) {
		t.startSize()
		return
	}
	t.done = true
}

// bwRow is perftest's print_report_bw: the average over the first post to
// the last completion, and the peak over the best run of consecutive
// messages, completions read every cqMod.
func bwRow(size int, posted, completed []unit.Time, cqMod int) Row {
	n := len(completed)
	r := Row{Size: size, Iters: n}
	total := (completed[n-1] - posted[0]).Seconds()
	if total <= 0 {
		return r
	}
	r.AvgBps = float64(size) * float64(n) / total
	r.MsgRate = float64(n) / total
	best := completed[0] - posted[0]
	// perftest tries every start i; the stride keeps a long run's cost
	// near five million steps (the peak changes little: it is a minimum
	// over many similar windows).
	stride := max(1, n*(n/cqMod+1)/5_000_000)
	for i := 0; i < n; i += stride {
		for j := (i+1+cqMod-1)/cqMod*cqMod - 1; j < n; j += cqMod {
			best = min(best, (completed[j]-posted[i])/unit.Time(j-i+1))
		}
		if n%cqMod != 0 {
			best = min(best, (completed[n-1]-posted[i])/unit.Time(n-i))
		}
	}
	if best > 0 {
		r.PeakBps = float64(size) / best.Seconds()
	}
	return r
}

// latTail is perftest's LAT_MEASURE_TAIL: the largest samples dropped.
const latTail = 2

// latRow is perftest's print_report_lat: the deltas between successive
// posts, halved for a round trip (not for READ), sorted, the two largest
// dropped; its integer truncation in the deviation kept.
func latRow(size int, posted []unit.Time, read bool) Row {
	rtt := 2.0
	if read {
		rtt = 1
	}
	d := make([]float64, 0, len(posted)-1)
	for i := 0; i+1 < len(posted); i++ {
		d = append(d, (posted[i+1]-posted[i]).Seconds()*1e6/rtt)
	}
	sort.Float64s(d)
	m := len(d) - latTail
	r := Row{Size: size, Iters: len(posted)}
	if m < 1 {
		return r
	}
	median := d[m/2]
	if (m-1)%2 != 0 {
		median = (d[m/2] + d[m/2-1]) / 2
	}
	var sum float64
	for _, v := range d[:m] {
		sum += v
	}
	avg := sum / float64(m)
	var dev float64
	for _, v := range d[:m] {
		tv := int(avg - v)
		dev += float64(tv * tv)
	}
	at := func(q float64) float64 { return d[min(len(d)-1, int(math.Ceil(float64(m)*q)))] }
	r.Min, r.Max, r.Typical, r.Avg, r.Stdev = d[0], d[m], median, avg, math.Sqrt(dev/float64(m))
	r.P99, r.P999 = at(0.99), at(0.999)
	return r
}

// Summary is one line on the result, for the run's report.
func (t *Test) Summary() string {
	if t.Err != nil {
		return fmt.Sprintf("%s: failed, status %d (%s)", t.Opts.Command, t.Err.Status, t.Err.Status)
	}
	if len(t.Rows) == 0 {
		return t.Opts.Command + ": did not finish"
	}
	r := t.Rows[len(t.Rows)-1]
	if t.Opts.Kind() == BW {
		return fmt.Sprintf("%s: %d B × %d, BW average %.2f Gb/s (peak %.2f)", t.Opts.Command, r.Size, r.Iters, r.AvgBps*8/1e9, r.PeakBps*8/1e9)
	}
	return fmt.Sprintf("%s: %d B × %d, t_typical %.2f us, 99.9%% %.2f us", t.Opts.Command, r.Size, r.Iters, r.Typical, r.P999)
}
