package twin

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/metrics"
	"rocelab/internal/unit"
)

// HealthBasis is what the four health targets are graded on, in a form
// that merges exactly: a histogram, per-host windows, counts and a
// maximum.
type HealthBasis struct {
	// RoCELatency is the one-way latency of delivered RoCE data packets,
	// whatever priority they rode, in nanoseconds.
	RoCELatency metrics.Histogram `json:"roce_latency"`
	// Receivers are, by host, the RDMA payload delivered to it and the
	// window it arrived in.
	Receivers []Window `json:"receivers"`
	// RoCESent counts RoCE data packets sent (first transmissions and
	// retransmissions), RoCEDropped those dropped.
	RoCESent    int64 `json:"roce_sent"`
	RoCEDropped int64 `json:"roce_dropped"`
	// RoCEStalled counts the RoCE data packets that connections still
	// running at the end had sent and no ACK had covered for longer than
	// StallAfter (held by a paused port, or lost and waiting to be resent:
	// stalled, not in flight), and RoCEStalledAge holds their ages, in
	// nanoseconds: how long their connection had waited for an
	// acknowledgement, a lower bound on their latency. Packets sent more
	// recently are in flight and not counted.
	RoCEStalled    int64             `json:"roce_stalled"`
	RoCEStalledAge metrics.Histogram `json:"roce_stalled_age"`
	StallAfter     unit.Time         `json:"stall_after"`
	// WorstPause is the longest time any port received pause on any one
	// priority.
	WorstPause unit.Time `json:"worst_pause"`
	// RoCEPriorities are the priorities the switches queue RoCE data on
	// (bit p = priority p), and RoCELossless whether PFC protects all of
	// them.
	RoCEPriorities uint8 `json:"roce_priorities"`
	RoCELossless   bool  `json:"roce_lossless"`
}

// Window is the payload delivered to one receiving host, over its line
// rate and the time it was expected: from the first send of a connection
// to it until its last delivery, or, for a connection that did not finish
// (stalled, or failed), until the end of the run. End is 0 for a host
// nothing was sent to.
type Window struct {
	Rate  unit.BitRate `json:"rate"`
	Start unit.Time    `json:"start"`
	End   unit.Time    `json:"end"`
	Bytes int64        `json:"bytes"`
}

// Add counts a connection into the window: its first send, the time it
// ended (its last delivery, or the end of the run when it did not
// finish) and the bytes it delivered.
func (w *Window) Add(firstSend, end unit.Time, bytes int64) {
	if end <= firstSend && bytes == 0 {
		return
	}
	if w.End == 0 || firstSend < w.Start {
		w.Start = firstSend
	}
	w.End = max(w.End, end)
	w.Bytes += bytes
}

// Grade grades a run that lasted end against the four targets.
//
//   - P99 latency: one-way latency of delivered RoCE data packets and,
//     at their age, of the packets stalled at the end (unacknowledged for
//     longer than StallAfter); n/a when none was delivered or stalled.
//   - Bandwidth utilization: payload bytes delivered to each receiving host
//     over its line rate × its window (to the end of the run for a
//     connection that did not finish), summed over receivers; n/a when
//     nothing was sent.
//   - Loss: RoCE data packets dropped over RoCE data packets sent. It
//     fails, whatever the count, when RoCE rides a priority that PFC does
//     not protect.
//   - PFC pause ratio: the worst port's received pause time on any
//     priority over the run time.
func (b *HealthBasis) Grade(end unit.Time) metrics.Health {
	var got, capacity float64
	for _, w := range b.Receivers {
		if w.End > w.Start {
			got += float64(w.Bytes)
			capacity += float64(w.Rate.BytesIn(w.End - w.Start))
		}
	}
	util := 0.0
	if capacity > 0 {
		util = got / capacity
	}
	loss := 0.0
	if b.RoCESent > 0 {
		loss = float64(b.RoCEDropped) / float64(b.RoCESent)
	}
	ratio := 0.0
	if end > 0 {
		ratio = float64(b.WorstPause) / float64(end)
	}
	lat := b.RoCELatency
	if b.RoCEStalledAge.Count() > 0 && !lat.Merge(b.RoCEStalledAge) {
		lat = b.RoCEStalledAge
	}
	h := metrics.NewHealth(US(lat.Quantile(99)), util, loss, ratio)
	delivered := b.RoCELatency.Count()
	switch {
	case delivered == 0 && b.RoCEStalled == 0:
		h.P99LatencyUS = metrics.NotApplicable(metrics.TargetP99LatencyUS, "no RoCE data packet was delivered")
	case b.RoCEStalled > 0:
		all := delivered + b.RoCEStalled
		h.P99LatencyUS.Note = fmt.Sprintf("with %d of %d RoCE data packets (%.1f%%) unacknowledged for more than %s when the run ended, counted at their age (up to %s)",
			b.RoCEStalled, all, 100*float64(b.RoCEStalled)/float64(all), b.StallAfter, b.RoCEStalledAge.Max())
	}
	if capacity == 0 {
		h.BandwidthUtilization = metrics.NotApplicable(metrics.TargetUtilization, "no RDMA data was sent")
	}
	if b.RoCEPriorities != 0 && !b.RoCELossless {
		var ps []string
		for _, p := range Priorities(b.RoCEPriorities) {
			ps = append(ps, strconv.Itoa(p))
		}
		h.LossRate.Pass = false
		h.LossRate.Note = "RoCE rides priority " + strings.Join(ps, ",") + ", which PFC does not protect"
		if len(ps) > 1 {
			h.LossRate.Note = "RoCE rides priorities " + strings.Join(ps, ",") + ", not all of which PFC protects"
		}
	}
	return h
}

// Priorities lists the priorities set in a mask (bit p = priority p).
func Priorities(m uint8) []int {
	out := []int{}
	for p := 0; p < 8; p++ {
		if m&(1<<p) != 0 {
			out = append(out, p)
		}
	}
	return out
}
