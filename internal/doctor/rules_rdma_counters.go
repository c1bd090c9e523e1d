package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// Rules over RDMA hw_counters (retransmission, ECN/CNP) and over what the
// counter dumps say about RoCE traffic as a whole. The weighing of
// cumulative counters against deltas is described in rules_counters.go.

// ecnHeavyFraction is the share of received RoCE packets carrying ECN CE
// above which marking is "heavy": the DCQCN paper's Pmax (1%), the marking
// probability at Kmax. Averaged over the window, more than that means the
// egress queue sat at or above Kmax much of the time.
const ecnHeavyFraction = 0.01

// checkRetransmission reports RC loss recovery in hw_counters.
func checkRetransmission(inc *Incident) []Finding {
	return perSample(inc, "", func(s *ingest.CounterSample) []Finding {
		rs := s.Retransmissions()
		if len(rs) == 0 {
			return nil
		}
		sev := Warn
		if r, ok := s.Get("local_ack_timeout_err"); ok && r.Value > 0 {
			sev = Error
		}
		netdev := nameOr(netdevOf(inc, s.Device), "<netdev>")
		want := losslessPrios(inc, s).target(3)
		return []Finding{Finding{
			ID: "counters.retransmission", Severity: weaken(sev, s.IsDelta()), Layer: LayerFabric,
			Title:    fmt.Sprintf("%s: RC retransmissions: %s%s", s.Name(), ingest.ReadingsText(rs), rate(sumOf(rs), s)),
			Evidence: readingsEvidence(rs...),
			Mechanism: "RoCE RC does retransmit: a lost packet makes the responder count out_of_sequence and NAK, and the requester (packet_seq_err) resends everything from that PSN (go-back-N); a lost tail or ACK is recovered only when the ACK timer fires (local_ack_timeout_err), 4.096 µs·2^timeout per attempt, about 4.3 s at NCCL_IB_TIMEOUT=20 unless adaptive retransmission shortens it. " +
				"The QP fails with IBV_WC_RETRY_EXC_ERR (status 12) only after retry_cnt attempts; until then loss shows as lost bandwidth, not errors. Counted " + window(s) + ".",
			Fix: fmt.Sprintf("Find where packets drop: PFC on the RoCE priority end to end (mlnx_qos -i %s --trust dscp --pfc %s and the same priority on the switch), rx_discards_phy / rx_prioN_discards in ethtool -S %s on both hosts, switch egress drops, and ECN marking (np_ecn_marked_roce_packets) starting before buffers fill.", netdev, pfcVector([]int{want}), netdev),
		}.per(s.Name(), "port", "RC retransmissions", s.Device, "<dev>", netdev, "<netdev>")}
	})
}

// sumOf adds the readings' values.
func sumOf(rs []ingest.Reading) uint64 {
	var n uint64
	for _, r := range rs {
		n += r.Value
	}
	return n
}

// roceRxPackets finds the received RoCE packet count for an hw_counters
// sample: its own port counters, else the only ethtool sample with RDMA
// vport counters, else the ethtool sample of the netdev show_gids maps the
// device to.
func roceRxPackets(inc *Incident, s *ingest.CounterSample, samples []ingest.CounterSample) (ingest.Reading, bool) {
	if r, ok := s.RoCEPackets(ingest.RX); ok && r.Value > 0 {
		return r, true
	}
	netdev := ""
	for _, g := range All[*ingest.ShowGIDs](inc) {
		for _, e := range g.Entries {
			if e.Device == s.Device && e.Netdev != "" {
				netdev = e.Netdev
			}
		}
	}
	var cands []ingest.Reading
	for i := range samples {
		e := &samples[i]
		if e.Kind != ingest.KindEthtool || e.IsDelta() != s.IsDelta() {
			continue
		}
		r, ok := e.RoCEPackets(ingest.RX)
		if !ok || r.Value == 0 {
			continue
		}
		if netdev != "" && e.Device == netdev {
			return r, true
		}
		cands = append(cands, r)
	}
	if len(cands) == 1 {
		return cands[0], true
	}
	return ingest.Reading{}, false
}

// checkECN weighs ECN marking and CNPs against RoCE traffic.
func checkECN(inc *Incident) []Finding {
	samples, _ := ctrSamples(inc)
	return perSample(inc, ingest.KindHWCounters, func(s *ingest.CounterSample) []Finding {
		rs := s.Nonzero(ingest.NPECNMarked, ingest.NPCNPSent, ingest.RPCNPHandled, ingest.RPCNPIgnored)
		if len(rs) == 0 {
			return nil
		}
		var marked uint64
		if rs[0].Name == ingest.NPECNMarked {
			marked = rs[0].Value
		}
		rx, haveRx := roceRxPackets(inc, s, samples)
		if haveRx && marked > 0 && float64(marked) >= ecnHeavyFraction*float64(rx.Value) {
			return []Finding{perPort(Finding{
				ID: "counters.ecn.heavy_marking", Severity: Warn, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: heavy ECN marking: %.2f%% of received RoCE packets carried CE (%s)", s.Name(), percentOf(marked, rx.Value), ingest.ReadingsText(rs)),
				Evidence: readingsEvidence(append(rs, rx)...),
				Mechanism: fmt.Sprintf("Heavy here means at least %.0f%% of received RoCE packets ECN-marked, the DCQCN paper's Pmax: averaged over the window, the switch queue toward this NIC sat at or above Kmax much of the time. ", 100*ecnHeavyFraction) +
					"Each mark makes this NIC send CNPs (np_cnp_sent) and the senders cut their rate (rp_cnp_handled on their side): the fabric is persistently congested toward this port (incast, ECMP collisions, or a slow receiver), so throughput is held below line rate. Counted " + window(s) + ".",
				Fix: "Look for the hot spot: incast fan-in to this host, ECMP polarisation (RoCE entropy is only the UDP source port; raise NCCL_IB_QPS_PER_CONNECTION), or a receiver that pauses (rx_prioN_pause_duration). If the marking is early rather than the queue deep, raise the switch's ECN Kmin/Kmax toward 2–3×BDP.",
			}, s, "Heavy ECN marking")}
		}
		title := fmt.Sprintf("%s: ECN/DCQCN active: %s", s.Name(), ingest.ReadingsText(rs))
		mech := "The switch marks ECN and the NICs answer with CNPs and rate cuts: congestion control is working. "
		if haveRx {
			title += fmt.Sprintf(" (%.3f%% of received RoCE packets marked, below the %.0f%% heavy threshold)", percentOf(marked, rx.Value), 100*ecnHeavyFraction)
			rs = append(rs, rx)
		} else {
			mech += "No RoCE packet count was found to weigh the marks against; add `ethtool -S <netdev>` (rx_vport_rdma_unicast_packets) from the same moment. "
		}
		return []Finding{perPort(Finding{
			ID: "counters.ecn.marking", Severity: Info, Layer: LayerFabric,
			Title: title, Evidence: readingsEvidence(rs...),
			Mechanism: mech + "Counted " + window(s) + ".",
			Fix:       "Nothing to change while marking stays light; compare np_ecn_marked_roce_packets with the RoCE packets received over a before/after pair if throughput is low.",
		}, s, "ECN/DCQCN active")}
	})
}

// checkNoRoCE says when a full mlx5 ethtool dump shows no RDMA traffic at
// all: whatever was slow, it was not RoCE on this port.
func checkNoRoCE(inc *Incident) []Finding {
	return perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		if roce, _ := s.CarriesRoCE(); roce || !s.HasVportCounters() {
			return nil
		}
		var rs []ingest.Reading
		for _, d := range []ingest.Dir{ingest.RX, ingest.TX} {
			if r, ok := s.RoCEPackets(d); ok {
				rs = append(rs, r)
			}
		}
		var ev []Evidence
		if len(rs) > 0 {
			ev = readingsEvidence(rs...)
		} else if r, ok := s.Get("rx_vport_unicast_packets"); ok {
			ev = r.Evidence
		}
		return []Finding{perPort(Finding{
			ID: "counters.roce.absent", Severity: Info, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: no RoCE traffic counted (rx/tx_vport_rdma_unicast_packets zero or absent from a full dump)", s.Name()),
			Evidence: ev,
			Mechanism: "mlx5 counts RDMA traffic separately in the rx/tx_vport_rdma_* counters; with those at zero everything this port moved was Ethernet (kernel or XDP), so RDMA findings do not apply to it. " +
				"If the job was meant to use RoCE here, it fell back to TCP or used another port. Counted " + window(s) + ".",
			Fix: "If RoCE was expected on this port: check NCCL's transport (NCCL_DEBUG=INFO shows 'Using network IB' and NET/IB channels), that NCCL_IB_HCA names this port's RDMA device, and `rdma link` / show_gids for the device-to-netdev mapping.",
		}, s, "No RoCE traffic counted")}
	})
}

// checkCounterCaps reports dumps or counters dropped by the memory caps.
func checkCounterCaps(inc *Incident) []Finding {
	_, omitted := ctrSamples(inc)
	if omitted == 0 {
		return nil
	}
	limits := fmt.Sprintf("beyond the limits of %d dumps per input and %d counters per dump", ingest.MaxSamples, ingest.MaxCountersPerDump)
	var ev []Evidence
	for _, e := range All[*ingest.EthtoolStats](inc) {
		if e.Omitted > 0 {
			ev = append(ev, Evidence{File: e.Source(), Text: fmt.Sprintf("%d ethtool dumps or counters %s", e.Omitted, limits)})
		}
	}
	for _, h := range All[*ingest.HWCounters](inc) {
		if h.Omitted > 0 {
			ev = append(ev, Evidence{File: h.Source(), Text: fmt.Sprintf("%d hw_counters dumps or counters %s", h.Omitted, limits)})
		}
	}
	if len(ev) == 0 {
		ev = append(ev, Evidence{File: "(joined inputs)", Text: fmt.Sprintf("%d port samples %s", omitted, limits)})
	}
	return []Finding{{
		ID: "input.partial", Severity: Warn, Layer: LayerInput,
		Title:     "some counter dumps were not read",
		Evidence:  ev,
		Mechanism: "rocelab keeps a bounded number of counter dumps per input so that memory stays bounded; the rest were skipped, and findings rest on the ones kept.",
		Fix:       "Pass the before/after dumps of the ports under test rather than a long capture, or split the input.",
	}}
}
