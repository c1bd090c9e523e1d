package twin

import (
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
	// WorstPause is the longest time any port received pause on any one
	// priority.
	WorstPause unit.Time `json:"worst_pause"`
	// RoCEPriorities are the priorities the switches queue RoCE data on
	// (bit p = priority p), and RoCELossless whether PFC protects all of
	// them.
	RoCEPriorities uint8 `json:"roce_priorities"`
	RoCELossless   bool  `json:"roce_lossless"`
}

// Window is the payload delivered to one receiving host: over its line
// rate, from the first send of a connection to it to the last delivery.
// Bytes is 0 when nothing arrived.
type Window struct {
	Rate  unit.BitRate `json:"rate"`
	Start unit.Time    `json:"start"`
	End   unit.Time    `json:"end"`
	Bytes int64        `json:"bytes"`
}

// Add counts a connection's delivery into the window.
func (w *Window) Add(firstSend, lastDelivery unit.Time, bytes int64) {
	if bytes == 0 {
		return
	}
	if w.Bytes == 0 || firstSend < w.Start {
		w.Start = firstSend
	}
	w.End = max(w.End, lastDelivery)
	w.Bytes += bytes
}

// Grade grades a run that lasted end against the four targets.
//
//   - P99 latency: one-way latency of delivered RoCE data packets.
//   - Bandwidth utilization: payload bytes delivered to each receiving host
//     over its line rate × its window, summed over receivers.
//   - Loss: RoCE data packets dropped over RoCE data packets sent. It
//     fails, whatever the count, when RoCE rides a priority that PFC does
//     not protect.
//   - PFC pause ratio: the worst port's received pause time on any
//     priority over the run time.
func (b *HealthBasis) Grade(end unit.Time) metrics.Health {
	var got, capacity float64
	for _, w := range b.Receivers {
		if w.Bytes > 0 && w.End > w.Start {
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
	h := metrics.NewHealth(US(b.RoCELatency.Quantile(99)), util, loss, ratio)
	if b.RoCEPriorities != 0 && !b.RoCELossless {
		var ps []string
		for _, p := range Priorities(b.RoCEPriorities) {
			ps = append(ps, strconv.Itoa(p))
		}
		h.LossRate.Pass = false
		h.LossRate.Note = "RoCE rides priority " + strings.Join(ps, ",") + ", which PFC does not protect"
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
