package doctor

import (
	"fmt"
	"strconv"
	"time"

	"rocelab/internal/ingest"
)

// Rules that need a time window: two dumps of one port whose times are
// known (date lines before the dumps, a collect archive, the twin's --out,
// or --interval) turn cumulative counters into rates. The pause ratio is
// the fourth of the twin's health targets: the time a port is paused on
// any priority over the window, below 0.1%.

// Pause-ratio thresholds.
const (
	pauseRatioTarget = 0.001 // the health target: paused under 0.1% of the time
	pauseRatioHeavy  = 0.10  // paused a tenth of the time: throughput visibly lost
)

func windowRules() []Rule {
	return []Rule{
		{IDs: []string{"counters.pause.ratio"}, Check: checkPauseRatio},
	}
}

// checkPauseRatio reports, per port, the priority paused longest over the
// window: rx_prioN_pause_duration (µs the port was held by pause frames it
// received) over the window's length.
func checkPauseRatio(inc *Incident) []Finding {
	roots := pauseRoots(inc)
	return perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		span, how := s.Span()
		if span <= 0 {
			return nil
		}
		best, prio := ingest.Reading{}, -1
		for p := 0; p < 8; p++ {
			if r, ok := s.PFCDuration(ingest.RX, p); ok && r.Value > best.Value {
				best, prio = r, p
			}
		}
		if prio < 0 {
			return nil
		}
		ratio := float64(time.Duration(best.Value)*time.Microsecond) / float64(span)
		sev := Info
		switch {
		case ratio >= pauseRatioHeavy:
			sev = Error
		case ratio >= pauseRatioTarget:
			sev = Warn
		}
		ev := []ingest.Reading{best}
		if r, ok := s.PFCFrames(ingest.RX, prio); ok {
			ev = append(ev, r)
		}
		// The dumps' own date lines time the window alike for every port;
		// another timing (--interval, the files' times) is said.
		over := "the window between its two dumps, timed by their date lines"
		if s.Before.Stamp.IsZero() {
			over = how
		}
		mech := fmt.Sprintf("rx_prio%d_pause_duration counts the microseconds a port was held by PFC pause frames it received on priority %d, here over %s. ", prio, prio, over) +
			fmt.Sprintf("The health target is below %s: a port paused longer is the victim of congestion further on (incast at a receiver, a slow or stuck receiver, a pause storm), and the pause spreads upstream to every flow sharing its queues.", pct(pauseRatioTarget))
		if r := roots[prio]; len(r) > 0 {
			mech += fmt.Sprintf(" The pause starts where a port sends it on priority %d without receiving any: %s, the congestion root; the ports it holds are its victims.", prio, list(r, 4))
		}
		fix := ""
		if sev > Info {
			fix = "Find the root: follow the pause downstream to the port that sends it without receiving it (tx_prioN_pause on the switch's egress toward the hot receiver); reduce incast fan-in, make ECN mark before PFC triggers (Kmin/Kmax below the XOFF threshold) so DCQCN slows the senders first, and check the receiver for a slow host (rx_out_of_buffer, PCIe) or a pause storm (tx_pause_storm_* events)."
		}
		return []Finding{perPort(Finding{
			ID: "counters.pause.ratio", Severity: sev, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: priority %d paused %s of the %s window (%s µs)", s.Name(), prio, pct(ratio), ingest.FormatDuration(span), strconv.FormatUint(best.Value, 10)),
			Evidence:  readingsEvidence(ev...),
			Mechanism: mech,
			Fix:       fix,
		}, s, "PFC pause time over the window")}
	})
}

// pauseRoots lists, per priority, the ports that sent PFC pause over a
// known window without being paused themselves: where the congestion
// starts, upstream of every port it holds.
func pauseRoots(inc *Incident) map[int][]string {
	samples, _ := ctrSamples(inc)
	out := map[int][]string{}
	for i := range samples {
		s := &samples[i]
		if span, _ := s.Span(); span <= 0 || s.Kind != ingest.KindEthtool {
			continue
		}
		for p := 0; p < 8; p++ {
			tx, ok := s.PFCFrames(ingest.TX, p)
			rx, _ := s.PFCDuration(ingest.RX, p)
			if ok && tx.Value > 0 && rx.Value == 0 {
				out[p] = append(out[p], s.Name())
			}
		}
	}
	return out
}

// pct formats a fraction as a percentage with three decimals.
func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 3, 64) + "%" }

// rate formats a count over a window as a rate per second, e.g.
// " (1.2e+03/s over the 10 s window)"; "" when the window is unknown.
func rate(v uint64, s *ingest.CounterSample) string {
	span, _ := s.Span()
	if span <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%s/s over the %s window)", strconv.FormatFloat(float64(v)/span.Seconds(), 'g', 3, 64), ingest.FormatDuration(span))
}
