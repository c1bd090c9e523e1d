package doctor

import (
	"fmt"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// Rules over AWS EFA's hw_counters. EFA is not RoCE: its transport, SRD,
// sprays a flow's packets over many network paths, delivers out of order,
// retransmits in the Nitro card and does its own congestion control, on a
// fabric without PFC. So PFC, ECN, GID and DCQCN checks say nothing about
// it; what its counters say is whether packets were dropped at the device,
// whether SRD had to time out and change paths, and whether connections
// degraded or died.

// efaFaults are the concepts that mean a connection degraded or failed,
// the most serious first: a remote that stopped answering and work
// requests that completed with an error fail the job; an impaired
// connection, a retransmit timeout or a receive drop slow it.
var efaFaults = []struct {
	c     counters.Concept
	sev   Severity
	means string
}{
	{counters.SRDUnresponsiveRemote, Error, "a remote connection stopped answering (the peer died, rebooted, or its security group or network path stopped passing EFA traffic)"},
	{counters.EFARDMAReadWRErrors, Error, "RDMA READ work requests completed with an error, which the application sees as a failed transfer"},
	{counters.EFARDMAWriteWRErrors, Error, "RDMA WRITE work requests completed with an error, which the application sees as a failed transfer"},
	{counters.SRDImpairedRemote, Warn, "connections were declared impaired and rate-limited, so they run below line rate until they recover"},
	{counters.SRDRetransTimeouts, Warn, "SRD timed out waiting for acknowledgements and moved traffic to another network path"},
	{counters.EFARxDrops, Warn, "the device received packets and dropped them (no receive buffer posted, or an unknown destination QP)"},
}

// isEFA reports whether a hw_counters sample is of an EFA device: it
// holds a counter only the efa driver names.
func isEFA(s *ingest.CounterSample) bool {
	if s.Kind != ingest.KindHWCounters {
		return false
	}
	for _, d := range counters.Default().All() {
		if d.Vendor == counters.EFA && s.Has(d.Name) {
			return true
		}
	}
	return false
}

// checkEFA reports an EFA port's faults, or, with none, that the port was
// read and that RoCE's checks do not apply to it.
func checkEFA(inc *Incident) []Finding {
	return perSample(inc, ingest.KindHWCounters, func(s *ingest.CounterSample) []Finding {
		if !isEFA(s) {
			return nil
		}
		var rs []ingest.Reading
		sev := Info
		var means []string
		for _, f := range efaFaults {
			r, ok := s.Concept(f.c, counters.NoDir, 0)
			if !ok {
				r, ok = s.Concept(f.c, counters.RX, 0)
			}
			if !ok || r.Value == 0 {
				continue
			}
			rs = append(rs, r)
			sev = max(sev, f.sev)
			means = append(means, f.means)
		}
		retrans := retransShare(s)
		if len(rs) == 0 {
			title := fmt.Sprintf("%s: AWS EFA (SRD) port: no receive drops, SRD retransmit timeouts, impaired or unresponsive connections, or failed RDMA work requests", s.Name())
			if retrans != "" {
				title += "; " + retrans
			}
			return []Finding{perPort(Finding{
				ID: "counters.efa.ok", Severity: Info, Layer: LayerFabric,
				Title:    title,
				Evidence: efaEvidence(s),
				Mechanism: "EFA's transport, SRD, sprays each flow over many network paths, delivers out of order, retransmits in the Nitro card and runs its own congestion control on a fabric without PFC: RoCE's checks (PFC and ECN on a priority, GID index, DCQCN) do not apply to it. " +
					"Some SRD retransmission is how it recovers from loss on one path; what degrades a job is a retransmit timeout (a path change), an impaired or unresponsive connection, a drop at the device, or a failed work request, and none moved. Counted " + window(s) + ".",
			}, s, "EFA port healthy")}
		}
		title := fmt.Sprintf("%s: AWS EFA (SRD) port: %s", s.Name(), ingest.ReadingsText(rs))
		if retrans != "" {
			title += "; " + retrans
		}
		mech := "EFA's transport, SRD, retransmits lost packets itself over other paths, so loss alone shows as retrans_pkts and costs little; these counters mean more: "
		for i, m := range means {
			if i > 0 {
				mech += "; "
			}
			mech += m
		}
		return []Finding{perPort(Finding{
			ID: "counters.efa.errors", Severity: weaken(sev, s.IsDelta()), Layer: LayerFabric,
			Title:     title,
			Evidence:  readingsEvidence(rs...),
			Mechanism: mech + ". RoCE's remedies (PFC, ECN, GID index) do not apply to EFA. Counted " + window(s) + ".",
			Fix:       "Find the peer: NCCL_DEBUG=INFO with aws-ofi-nccl (and FI_LOG_LEVEL=warn) names the remote EFA address of a failed transfer. Check that every instance's security group allows all traffic to and from itself (EFA needs it), that the instances are in one placement group and Availability Zone, and that all are up (a remote that stopped answering is often a node that failed); rx_drops rising with recv work requests means the receiver posts too few buffers. Take a before/after pair around the job (`rdma -p statistic show`) to see what it did.",
		}, s, "EFA faults")}
	})
}

// retransShare says how many SRD packets a sample retransmitted, against
// the packets it sent when the dump has them.
func retransShare(s *ingest.CounterSample) string {
	r, ok := s.Concept(counters.SRDRetransPackets, counters.TX, 0)
	if !ok || r.Value == 0 {
		return ""
	}
	if tx, ok := s.Get("tx_pkts"); ok && tx.Value > 0 {
		return fmt.Sprintf("%d SRD packets retransmitted (%.3f%% of %d sent)", r.Value, percentOf(r.Value, tx.Value), tx.Value)
	}
	return fmt.Sprintf("%d SRD packets retransmitted", r.Value)
}

// efaEvidence is the lines of a healthy EFA port's fault counters.
func efaEvidence(s *ingest.CounterSample) []Evidence {
	var rs []ingest.Reading
	for _, f := range efaFaults {
		for _, d := range []counters.Dir{counters.NoDir, counters.RX} {
			if r, ok := s.Concept(f.c, d, 0); ok {
				rs = append(rs, r)
			}
		}
	}
	return readingsEvidence(rs...)
}
