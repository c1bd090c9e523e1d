// Package background is traffic that shares the fabric with collectives
// on other priorities: storage reads and writes over RDMA, bulk TCP. Each
// flow keeps a fixed number of messages outstanding on one connection
// (a storage client's queue depth, a TCP stream's window of writes) and
// reports goodput and message completion times.
package background

import (
	"fmt"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// Flow is one background stream.
type Flow struct {
	Name     string
	Src, Dst int
	// Class is RoCE (an RC queue pair) or TCP (lossy, kernel stack).
	Class workload.Class
	// TC is the IP traffic-class byte (DSCP = TC>>2); -1 is the host's
	// default.
	TC int
	// Op is the verb for RoCE flows (Write, Send or Read); TCP flows send.
	Op workload.Op
	// Message is the size of one message; Depth how many are outstanding.
	Message int64
	Depth   int
	// Rate caps the flow; zero is none.
	Rate unit.BitRate
	// Start delays the flow; Bytes ends it after that much (0: runs until
	// the run ends).
	Start unit.Time
	Bytes int64
}

// Storage returns an NVMe-oF-like RDMA READ stream: 128 KiB reads, 16
// outstanding, on traffic class tc.
func Storage(name string, src, dst, tc int) Flow {
	return Flow{Name: name, Src: src, Dst: dst, Class: workload.RoCE, TC: tc, Op: workload.Read, Message: 128 << 10, Depth: 16}
}

// TCP returns a bulk TCP stream of 64 KiB writes, 8 in flight, on the
// host's default class.
func TCP(name string, src, dst int) Flow {
	return Flow{Name: name, Src: src, Dst: dst, Class: workload.TCP, TC: -1, Op: workload.Send, Message: 64 << 10, Depth: 8}
}

// Stats is one flow's result.
type Stats struct {
	Flow      Flow
	Messages  int64
	Bytes     int64
	First     unit.Time
	Last      unit.Time
	Completed *hdrhistogram.Histogram // message completion time, ns
	Failed    bool
}

// Goodput returns the flow's completed bytes over its active time.
func (s *Stats) Goodput() unit.BitRate {
	d := s.Last - s.First
	if d <= 0 {
		return 0
	}
	return unit.BitRate(float64(s.Bytes) * 8 / d.Seconds())
}

// Workload runs flows. With Hold false it never keeps the run alive: the
// flows go on until the other workloads are done.
type Workload struct {
	Flows []Flow
	Hold  bool
	Stats []*Stats

	t      workload.Transport
	qps    []workload.QP
	posted []int64
	// heads holds each flow's outstanding messages' post times, oldest
	// first (messages on one QP complete in order).
	heads [][]unit.Time
	done  int
}

// New checks the flows and returns the workload.
func New(hold bool, flows ...Flow) (*Workload, error) {
	for i, f := range flows {
		switch {
		case f.Src == f.Dst:
			return nil, fmt.Errorf("background flow %d (%s): source and destination are both host %d", i, f.Name, f.Src)
		case f.Message <= 0 || f.Depth <= 0:
			return nil, fmt.Errorf("background flow %d (%s): message size and depth must be positive", i, f.Name)
		case f.Class == workload.TCP && f.Op == workload.Read:
			return nil, fmt.Errorf("background flow %d (%s): a TCP flow cannot READ", i, f.Name)
		case hold && f.Bytes <= 0:
			return nil, fmt.Errorf("background flow %d (%s): a flow that holds the run needs a byte count", i, f.Name)
		}
	}
	return &Workload{Flows: flows, Hold: hold}, nil
}

// Start implements workload.Workload.
func (w *Workload) Start(t workload.Transport) {
	w.t = t
	w.heads = make([][]unit.Time, len(w.Flows))
	w.posted = make([]int64, len(w.Flows))
	for i, f := range w.Flows {
		if f.Src >= t.Hosts() || f.Dst >= t.Hosts() || f.Src < 0 || f.Dst < 0 {
			w.Stats = append(w.Stats, &Stats{Flow: f, Failed: true})
			w.qps = append(w.qps, -1)
			w.done++
			continue
		}
		w.Stats = append(w.Stats, &Stats{Flow: f, Completed: hdrhistogram.New(1, int64(10*unit.Second/unit.Nanosecond), 3)})
		w.qps = append(w.qps, t.Connect(f.Src, f.Dst, workload.QPOptions{Class: f.Class, SetTC: f.TC >= 0, TC: uint8(max(f.TC, 0)), RateCap: f.Rate, Tag: "bg/" + f.Name}, w))
		t.After(f.Start, w, uint64(i))
	}
}

// Wake implements workload.Waker: a flow starts.
func (w *Workload) Wake(_ unit.Time, tag uint64) {
	i := int(tag)
	for k := 0; k < w.Flows[i].Depth; k++ {
		w.post(i)
	}
}

func (w *Workload) post(i int) {
	f := w.Flows[i]
	if f.Bytes > 0 && w.posted[i] >= f.Bytes {
		return
	}
	b := f.Message
	if f.Bytes > 0 {
		b = min(b, f.Bytes-w.posted[i])
	}
	w.posted[i] += b
	w.heads[i] = append(w.heads[i], w.t.Now())
	w.t.Post(w.qps[i], workload.Message{Op: f.Op, Bytes: b, ID: uint64(i)})
}

// Completed implements workload.Owner.
func (w *Workload) Completed(c workload.Completion) {
	if c.Side != workload.Requester {
		return
	}
	i := int(c.ID)
	s := w.Stats[i]
	if c.Status != workload.Success {
		if !s.Failed {
			s.Failed = true
			w.done++
		}
		return
	}
	t0 := w.heads[i][0]
	w.heads[i] = w.heads[i][1:]
	if s.Messages == 0 {
		s.First = t0
	}
	s.Messages++
	s.Bytes += c.Bytes
	s.Last = c.At
	_ = s.Completed.RecordValue(int64((c.At - t0) / unit.Nanosecond))
	f := w.Flows[i]
	if f.Bytes > 0 && s.Bytes >= f.Bytes {
		w.done++
		return
	}
	w.post(i)
}

// Done implements workload.Workload.
func (w *Workload) Done() bool { return !w.Hold || w.done == len(w.Flows) }

// Summary returns one line per flow.
func (w *Workload) Summary() string {
	var b strings.Builder
	for _, s := range w.Stats {
		if s.Completed == nil {
			fmt.Fprintf(&b, "%-12s host %d -> %d: not started (no such host)\n", s.Flow.Name, s.Flow.Src, s.Flow.Dst)
			continue
		}
		fmt.Fprintf(&b, "%-12s host %d -> %d: %d messages, %s, goodput %s, completion p50 %s p99 %s\n",
			s.Flow.Name, s.Flow.Src, s.Flow.Dst, s.Messages, unit.Bytes(s.Bytes), s.Goodput(),
			unit.Time(s.Completed.ValueAtQuantile(50))*unit.Nanosecond, unit.Time(s.Completed.ValueAtQuantile(99))*unit.Nanosecond)
	}
	return b.String()
}
