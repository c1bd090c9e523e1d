package doctor

import (
	"fmt"
	"strconv"
	"time"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// Rules for faults the counters show directly: a queue pair that ran out
// of retries, a host that keeps pausing its switch port, and a PFC
// watchdog that declared a storm (the twin's switch-port dumps carry the
// watchdog's counters; a real switch's `show pfcwd stats` is read by
// rules_switch.go under the same id).

// faultRules lists the rules of this file.
func faultRules() []Rule {
	return []Rule{
		{IDs: []string{"counters.retry_exceeded"}, Check: checkRetryExceeded},
		{IDs: []string{"counters.responder_errors"}, Check: checkResponderErrors},
		{IDs: []string{"counters.pause.from_host"}, Check: checkHostPause},
		{IDs: []string{"switch.pfcwd.storm"}, Check: checkWatchdogCounters},
	}
}

// checkRetryExceeded reports req_cqe_error: completions with error at the
// requester, which with local ACK timeouts means retry_cnt ran out.
func checkRetryExceeded(inc *Incident) []Finding {
	return perSample(inc, ingest.KindHWCounters, func(s *ingest.CounterSample) []Finding {
		if f, ok := retriesExceeded(s); ok {
			return []Finding{f}
		}
		errs, ok := s.Get("req_cqe_error")
		if !ok || errs.Value == 0 {
			return nil
		}
		ev := []ingest.Reading{errs}
		timeouts := "no local ACK timeouts are counted, so the error may be another (protection, remote access)"
		// Without ACK timeouts nothing says retries ran out: errors that
		// grew in a window are a warning, a count since driver load
		// (a process killed with requests in flight leaves some) is
		// information.
		sev := weaken(Warn, s.IsDelta())
		fix := "These counters show no ACK timeouts, so the errors are not retries running out: find the status the application saw (NCCL's 'Got completion ... status=' line, perftest's 'Completion with error'), and take a before/after pair of the counters around the job to see whether they grow while it runs."
		if r, ok := s.Get("local_ack_timeout_err"); ok && r.Value > 0 {
			ev = append(ev, r)
			timeouts = fmt.Sprintf("local_ack_timeout_err %d says the requester waited out its ACK timer again and again", r.Value)
			sev = Error
			fix = "Find the dead path between this host and its peer: a link or optic down (ethtool <if>, switch port state), a route withdrawn after a failure, a GID that is not routable (NCCL_IB_GID_INDEX pointing at a link-local GID), a firewall or MTU mismatch on the RoCE netdev. " +
				"PFC or ECN cannot cause this alone; a deadlocked or stormed lossless class can (check rx_prioN_pause_duration and the switches' PFC watchdog)."
		}
		if r, ok := s.Get("req_cqe_flush_error"); ok && r.Value > 0 {
			ev = append(ev, r)
		}
		return []Finding{perPort(Finding{
			ID: "counters.retry_exceeded", Severity: sev, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: %d work requests failed with an error completion (req_cqe_error)", s.Name(), errs.Value),
			Evidence: readingsEvidence(ev...),
			Mechanism: "req_cqe_error counts requester completions with an error status; " + timeouts + ". " +
				"A QP that gets no ACK retries retry_cnt times, one ACK timeout (4.096 µs·2^timeout, about 4.3 s at NCCL_IB_TIMEOUT=20) each, then completes the request with IBV_WC_RETRY_EXC_ERR (status 12, vendor err 0x81) and enters the error state: " +
				"every request behind it is flushed (status 5, req_cqe_flush_error). NCCL reports it as \"Got completion from peer … with status=12\" and the job aborts, about 34 s after the path died. Counted " + window(s) + ".",
			Fix: fix,
		}, s, "retry exceeded")}
	})
}

// checkResponderErrors reports resp_cqe_error: receive work requests this
// host, as the responder, completed with an error, most often flushed when
// the queue pair went to the error state.
func checkResponderErrors(inc *Incident) []Finding {
	return perSample(inc, ingest.KindHWCounters, func(s *ingest.CounterSample) []Finding {
		errs, ok := s.Concept(counters.RespCQEError, counters.NoDir, 0)
		if !ok || errs.Value == 0 {
			return nil
		}
		ev := []ingest.Reading{errs}
		flushed := ""
		if r, ok := s.Concept(counters.RespCQEFlushError, counters.NoDir, 0); ok && r.Value > 0 {
			ev = append(ev, r)
			flushed = fmt.Sprintf(" (resp_cqe_flush_error %d: flushed)", r.Value)
		}
		return []Finding{perPort(Finding{
			ID: "counters.responder_errors", Severity: weaken(Warn, s.IsDelta()), Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: %d receive work requests completed with an error at this host as responder (resp_cqe_error)%s", s.Name(), errs.Value, flushed),
			Evidence:  readingsEvidence(ev...),
			Mechanism: "resp_cqe_error counts completions with an error on the responder side, the receive work requests a queue pair had posted; resp_cqe_flush_error those flushed because the queue pair went to the error state. A connection whose peer failed (its retries ran out, it was killed) or that was torn down with receives still posted flushes every one of them, so a job ending badly leaves thousands; errors that grow while a job runs mean its connections keep breaking. Counted " + window(s) + ".",
			Fix:       "Take a before/after pair of the counters around the job: if resp_cqe_error grows while it runs, find the peers whose queue pairs fail (their req_cqe_error and local_ack_timeout_err, NCCL's 'Got completion ... status=' lines) and the path between them; a count since driver load alone can be old jobs' teardown.",
		}, s, "responder completion errors")}
	})
}

// retriesExceeded reports a counter of queue pairs whose transport
// retries ran out (mlx5's req_transport_retries_exceeded, mana_ib's
// requester_retries_exceeded): the failure itself, counted.
func retriesExceeded(s *ingest.CounterSample) (Finding, bool) {
	r, ok := s.Concept(counters.ReqTransportRetriesExceeded, counters.NoDir, 0)
	if !ok || r.Value == 0 {
		return Finding{}, false
	}
	ev := []ingest.Reading{r}
	if t, ok := s.Concept(counters.LocalAckTimeoutErr, counters.NoDir, 0); ok && t.Value > 0 {
		ev = append(ev, t)
	}
	return perPort(Finding{
		ID: "counters.retry_exceeded", Severity: weaken(Error, s.IsDelta()), Layer: LayerRDMA,
		Title:    fmt.Sprintf("%s: %d queue pairs ran out of transport retries (%s)", s.Name(), r.Value, r.Name),
		Evidence: readingsEvidence(ev...),
		Mechanism: "The NIC counts each requester queue pair that retransmitted retry_cnt times without an ACK, one ACK timeout each, and then completed its request with IBV_WC_RETRY_EXC_ERR (status 12) and entered the error state: the connection is gone and the application sees the error (NCCL: \"Got completion ... status=12\"). " +
			"Every retry waited out an ACK timeout, so the path dropped packets, or stopped delivering them, for several ACK timeouts in a row. Counted " + window(s) + ".",
		Fix: "Find the dead or lossy path between this host and its peers: a link or optic down or flapping (ethtool <if>, the switch port), a route withdrawn, a GID that is not routable, packet loss on the RoCE priority (PFC not in effect end to end, switch drops); compare the counters before and after a test to see whether they grow.",
	}, s, "retry exceeded"), true
}

// hostPauseRatio returns the fraction of the window a port held priority
// prio off at its peer, and the reading.
func hostPauseRatio(s *ingest.CounterSample, prio int) (float64, ingest.Reading, bool) {
	span, _ := s.Span()
	r, ok := s.PFCDuration(ingest.TX, prio)
	if !ok || span <= 0 || r.Value == 0 {
		return 0, r, false
	}
	return float64(time.Duration(r.Value)*time.Microsecond) / float64(span), r, true
}

// checkHostPause reports a host NIC that paused its switch port for a
// large part of the window: tx_prioN_pause_duration on an ethtool dump of
// a NIC (the twin's switch ports, which carry watchdog counters, are not
// hosts).
func checkHostPause(inc *Incident) []Finding {
	return perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		if s.Has("pfcwd_prio0_storms") {
			return nil
		}
		best, prio, ratio := ingest.Reading{}, -1, 0.0
		for p := 0; p < 8; p++ {
			if x, r, ok := hostPauseRatio(s, p); ok && x > ratio {
				best, prio, ratio = r, p, x
			}
		}
		if prio < 0 || ratio < pauseRatioTarget {
			return nil
		}
		sev := Warn
		if ratio >= pauseRatioHeavy {
			sev = Error
		}
		ev := []ingest.Reading{best}
		if r, ok := s.PFCFrames(ingest.TX, prio); ok {
			ev = append(ev, r)
		}
		for _, n := range []string{"rx_out_of_buffer", "rx_discards_phy", "tx_pause_storm_warning_events", "tx_pause_storm_error_events"} {
			if r, ok := s.Get(n); ok && r.Value > 0 {
				ev = append(ev, r)
			}
		}
		span, _ := s.Span()
		return []Finding{perPort(Finding{
			ID: "counters.pause.from_host", Severity: sev, Layer: LayerFabric,
			Title:    fmt.Sprintf("%s: the host paused its switch port on priority %d for %s of the %s window (%s µs)", s.Name(), prio, pct(ratio), ingest.FormatDuration(span), strconv.FormatUint(best.Value, 10)),
			Evidence: readingsEvidence(ev...),
			Mechanism: fmt.Sprintf("tx_prio%d_pause_duration counts the time this NIC held priority %d off at the switch. A NIC pauses only when its own receive buffer fills: the host takes packets slower than the link brings them (PCIe, memory or CPU bound, a receive queue out of descriptors: rx_out_of_buffer), or the NIC is stuck and pauses without draining — a pause storm. ", prio, prio) +
				"Either way the pause spreads: the switch queue toward this host fills, its ingress priority groups pause their upstream ports, and flows that never touch this host stall behind it.",
			Fix: "Check the receiver: PCIe link width and speed (lspci -vv: LnkSta against LnkCap), NUMA placement, rx_out_of_buffer, and the NIC's own storm counters (tx_pause_storm_*). Enable the switch's PFC watchdog so one stuck NIC cannot freeze the lossless class, and the NIC's own pause-storm prevention (mlnx_qos / devlink).",
		}, s, "host pausing its switch")}
	})
}

// checkWatchdogCounters reports PFC watchdog storms in the twin's
// switch-port dumps (pfcwd_prioN_storms, drop_pfc_watchdog).
func checkWatchdogCounters(inc *Incident) []Finding {
	return perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		var out []Finding
		for p := 0; p < 8; p++ {
			storms, ok := s.Get("pfcwd_prio" + strconv.Itoa(p) + "_storms")
			if !ok || storms.Value == 0 {
				continue
			}
			ev := []ingest.Reading{storms}
			restored := uint64(0)
			if r, ok := s.Get("pfcwd_prio" + strconv.Itoa(p) + "_restores"); ok {
				ev = append(ev, r)
				restored = r.Value
			}
			if r, ok := s.Get("drop_pfc_watchdog"); ok && r.Value > 0 {
				ev = append(ev, r)
			}
			sev := Warn
			if storms.Value > restored {
				sev = Error
			}
			out = append(out, perPort(Finding{
				ID: "switch.pfcwd.storm", Severity: sev, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: the PFC watchdog declared %d storm(s) on priority %d, %d restored", s.Name(), storms.Value, p, restored),
				Evidence: readingsEvidence(ev...),
				Mechanism: "The watchdog declares a storm when a queue stays paused without a break for its detection time: a receiver stuck sending pause, or a PFC deadlock (a cycle of lossless buffers each waiting on the next, as a routing loop or a valley route after a link failure creates). " +
					"It then drops the queue's packets and ignores pauses until they stop for the restoration time: the lossless class loses packets, which RC recovers by NAK or timeout.",
				Fix: "Find why the queue was paused so long: a host sending pause without end (tx_prioN_pause_duration on the NIC facing this port), or a loop in the lossless class (routes that go down and up again between tiers after a failure; prevent with up-down routing, or by isolating lossless traffic from rerouting). Keep the watchdog on: it is what turned a frozen fabric into a few drops.",
			}, s, "PFC watchdog storms"))
		}
		return out
	})
}
