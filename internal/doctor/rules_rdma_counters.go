package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/counters"
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
		if r, ok := s.Concept(counters.LocalAckTimeoutErr, counters.NoDir, 0); ok && r.Value > 0 {
			sev = Error
		}
		netdev := nameOr(netdevOf(inc, s.Scope, s.Device), "<netdev>")
		want := losslessPrios(inc, s).target(3)
		return []Finding{Finding{
			ID: "counters.retransmission", Severity: weaken(sev, s.IsDelta()), Layer: LayerFabric,
			Title:    fmt.Sprintf("%s: RC retransmissions: %s%s", s.Name(), ingest.ReadingsText(rs), rate(sumOf(rs), s)),
			Evidence: readingsEvidence(rs...),
			Mechanism: fmt.Sprintf("RoCE RC does retransmit: a lost packet makes the responder count %s and NAK, and the requester (%s) resends everything from that PSN (go-back-N); a lost tail or ACK is recovered only when the ACK timer fires (%s), 4.096 µs·2^timeout per attempt, about 4.3 s at NCCL_IB_TIMEOUT=20 unless adaptive retransmission shortens it. ",
				s.NameOf(counters.OutOfSequence, counters.RX), s.NameOf(counters.PacketSeqErr, counters.RX), ackTimeoutName(s)) +
				"The QP fails with IBV_WC_RETRY_EXC_ERR (status 12) only after retry_cnt attempts; until then loss shows as lost bandwidth, not errors. Counted " + window(s) + ".",
			Fix: retransmissionFix(s, netdev, want),
		}.per(s.Name(), "port", "RC retransmissions", s.Device, "<dev>", netdev, "<netdev>")}
	})
}

// ackTimeoutName names the counter of ACK timeouts in the sample's
// driver's terms, or says that driver counts none.
func ackTimeoutName(s *ingest.CounterSample) string {
	if s.Counts(counters.LocalAckTimeoutErr, counters.NoDir) {
		return s.NameOf(counters.LocalAckTimeoutErr, counters.NoDir)
	}
	v, _ := s.Vendor()
	return fmt.Sprintf("no %s counter rocelab knows counts them", v)
}

// retransmissionFix says where to look for the drops behind RC
// retransmissions, in the terms of the sample's driver: mlx5's tools and
// counter names, or iproute2's dcb and the other driver's own counters.
func retransmissionFix(s *ingest.CounterSample, netdev string, prio int) string {
	v, known := s.Vendor()
	if known && v == counters.MANA {
		return "On an Azure VM (mana_ib) the NIC's QoS and the fabric are the platform's, not the VM's to set: take a before/after pair over the job to size the loss per port, and raise it with the provider, naming the VMs, the ports and the window."
	}
	drops, marks := "rx_discards_phy / rx_prioN_discards", "np_ecn_marked_roce_packets"
	if known && v != counters.MLX5 {
		drops, marks = "the port's drop and per-priority discard counters", fmt.Sprintf("the %s driver's ECN-marked and CNP counters", v)
	}
	return fmt.Sprintf("Find where packets drop: PFC on the RoCE priority end to end (%s and the same priority on the switch), %s in ethtool -S %s on both hosts, switch egress drops, and ECN marking (%s) starting before buffers fill.", pfcSetting(s, netdev, prio), drops, netdev, marks)
}

// checkRNR reports RNR NAKs: responders that had no receive posted when
// a SEND arrived, named with the responders' out_of_buffer in the same
// incident.
func checkRNR(inc *Incident) []Finding {
	samples, _ := ctrSamples(inc)
	return perSample(inc, "", func(s *ingest.CounterSample) []Finding {
		r, ok := s.RNRNaks()
		if !ok {
			return nil
		}
		ev := []ingest.Reading{r}
		var resp []string
		for i := range samples {
			o := &samples[i]
			if o.IsDelta() != s.IsDelta() {
				continue
			}
			if b, ok := o.Concept(counters.RespOutOfBuffer, counters.RX, 0); ok && b.Value > 0 {
				ev = append(ev, b)
				resp = append(resp, fmt.Sprintf("%s %s %d", o.Name(), b.Name, b.Value))
			}
		}
		mech := "An RNR (receiver not ready) NAK answers a SEND (or a WRITE with immediate) that found no receive work request posted at the responder; the requester waits min_rnr_timer and sends again, up to rnr_retry times (7: without limit), and fails with IBV_WC_RNR_RETRY_EXC_ERR (status 13) when they run out. Nothing was lost on the wire: the receiving application posted its receives too late or too few, and every RNR NAK stalls that queue pair for the timer."
		if len(resp) > 0 {
			mech += " The responders count the same events as out_of_buffer: " + strings.Join(resp, ", ") + "."
		}
		mech += " Counted " + window(s) + "."
		return []Finding{Finding{
			ID: "counters.rnr_nak", Severity: weaken(Warn, s.IsDelta()), Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: %d RNR NAKs received (%s): the responder had no receive posted%s", s.Name(), r.Value, r.Name, rate(r.Value, s)),
			Evidence:  readingsEvidence(ev...),
			Mechanism: mech,
			Fix:       "On the receiving side, keep receives posted ahead of the SENDs (a deeper receive queue or SRQ, reposted before the buffers run out; for perftest's ib_send_bw start the server first and raise -r/--rx-depth); set rnr_retry 7 and a small min_rnr_timer on the queue pairs. This is an application or library setting, not the fabric's.",
		}.per(s.Name(), "port", "RNR NAKs", s.Device, "<dev>")}
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
	netdev := netdevOf(inc, s.Scope, s.Device)
	var cands []ingest.Reading
	for i := range samples {
		e := &samples[i]
		if e.Kind != ingest.KindEthtool || e.IsDelta() != s.IsDelta() || reachOf(s.Scope, e.Scope) == otherHost {
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

// ecnDenominator is what marks are weighed against: RoCE packets
// received, or RDMA WRITE requests received, a lower bound of them (a
// WRITE longer than one MTU is several packets), which makes the ratio an
// upper bound.
type ecnDenominator struct {
	r          ingest.Reading
	lowerBound bool
}

// ecnBase finds the denominator for a hw_counters sample's marks.
func ecnBase(inc *Incident, s *ingest.CounterSample, samples []ingest.CounterSample) (ecnDenominator, bool) {
	if r, ok := roceRxPackets(inc, s, samples); ok {
		return ecnDenominator{r: r}, true
	}
	if r, ok := s.Concept(counters.RxWriteRequests, counters.RX, 0); ok && r.Value > 0 {
		return ecnDenominator{r: r, lowerBound: true}, true
	}
	return ecnDenominator{}, false
}

// checkECN weighs ECN marking and CNPs against RoCE traffic. Marking is
// called light only with a ratio that shows it; without a count of RoCE
// packets the finding says it cannot judge, and next to retransmissions
// it says the two together mean congestion with loss.
func checkECN(inc *Incident) []Finding {
	if cnpRatesKnown(inc) {
		return nil
	}
	samples, _ := ctrSamples(inc)
	return perSample(inc, ingest.KindHWCounters, func(s *ingest.CounterSample) []Finding {
		rs := s.NonzeroConcepts(counters.ECNMarkedRoCE, counters.CNPSent, counters.CNPHandled, counters.CNPIgnored)
		if len(rs) == 0 {
			return nil
		}
		var marked uint64
		if r, ok := s.Concept(counters.ECNMarkedRoCE, counters.RX, 0); ok {
			marked = r.Value
		}
		base, haveBase := ecnBase(inc, s, samples)
		pct := 0.0
		if haveBase {
			pct = percentOf(marked, base.r.Value)
		}
		heavy := haveBase && !base.lowerBound && marked > 0 && float64(marked) >= ecnHeavyFraction*float64(base.r.Value)
		if heavy {
			return []Finding{perPort(Finding{
				ID: "counters.ecn.heavy_marking", Severity: Warn, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: heavy ECN marking: %.2f%% of received RoCE packets carried CE (%s)", s.Name(), pct, ingest.ReadingsText(rs)),
				Evidence: readingsEvidence(append(rs, base.r)...),
				Mechanism: fmt.Sprintf("Heavy here means at least %.0f%% of received RoCE packets ECN-marked, the DCQCN paper's Pmax: averaged over the window, the switch queue toward this NIC sat at or above Kmax much of the time. ", 100*ecnHeavyFraction) +
					fmt.Sprintf("Each mark makes this NIC send CNPs (%s) and the senders cut their rate (%s on their side): the fabric", s.NameOf(counters.CNPSent, counters.TX), s.NameOf(counters.CNPHandled, counters.RX)) +
					" is persistently congested toward this port (incast, ECMP collisions, or a slow receiver), so throughput is held below line rate. Counted " + window(s) + ".",
				Fix: "Look for the hot spot: incast fan-in to this host, ECMP polarisation (RoCE entropy is only the UDP source port; raise NCCL_IB_QPS_PER_CONNECTION), or a receiver that pauses (rx_prioN_pause_duration). If the marking is early rather than the queue deep, raise the switch's ECN Kmin/Kmax toward 2–3×BDP.",
			}, s, "Heavy ECN marking")}
		}
		retrans := s.Retransmissions()
		f := Finding{ID: "counters.ecn.marking", Severity: Info, Layer: LayerFabric, Evidence: readingsEvidence(rs...)}
		switch {
		case haveBase && !base.lowerBound:
			f.Title = fmt.Sprintf("%s: light ECN marking: %.3f%% of received RoCE packets carried CE, below the %.0f%% heavy threshold (%s)", s.Name(), pct, 100*ecnHeavyFraction, ingest.ReadingsText(rs))
			f.Evidence = readingsEvidence(append(rs, base.r)...)
			f.Mechanism = fmt.Sprintf("The switch marks ECN and the NICs answer with CNPs and rate cuts; %d marked of %d RoCE packets received (%s) is congestion control at work, not a congested path. ", marked, base.r.Value, base.r.Name)
			f.Fix = "Nothing to change for the marking itself; if throughput is low, look at the layers above and at PFC pause time."
		case haveBase && pct < 100*ecnHeavyFraction:
			f.Title = fmt.Sprintf("%s: light ECN marking: at most %.3f%% of received RoCE packets carried CE (%d against %d RDMA WRITE requests, a lower bound of the packets)", s.Name(), pct, marked, base.r.Value)
			f.Evidence = readingsEvidence(append(rs, base.r)...)
			f.Mechanism = "No RoCE packet count was found, but every RDMA WRITE request received is at least one RoCE packet, so marks over rx_write_requests bound the marked share from above; that bound is below the heavy threshold. "
			f.Fix = "Nothing to change for the marking itself; for the exact share add `ethtool -S <netdev>` (rx_vport_rdma_unicast_packets) from the same moment."
		case haveBase && marked > base.r.Value:
			f.Title = fmt.Sprintf("%s: ECN marking cannot be judged: its %d marks outnumber the %d RDMA WRITE requests received, so they bound nothing", s.Name(), marked, base.r.Value)
			f.Evidence = readingsEvidence(append(rs, base.r)...)
			f.Mechanism = "rx_write_requests is the only count of RoCE traffic here, and the marks exceed it: the marked packets were also READ responses, SENDs or the later packets of long WRITEs, none of which it counts, so no share of marked packets follows from it. "
			f.Fix = "Add `ethtool -S <netdev>` (rx_vport_rdma_unicast_packets) with the hw_counters, as a before/after pair around the test, to weigh the marks against the RoCE packets received."
		case haveBase:
			f.Title = fmt.Sprintf("%s: ECN marking cannot be judged: %d marks against %d RDMA WRITE requests (%.1f%%) is only an upper bound of the marked share", s.Name(), marked, base.r.Value, pct)
			f.Evidence = readingsEvidence(append(rs, base.r)...)
			f.Mechanism = "rx_write_requests counts WRITE requests, and a WRITE longer than one MTU is several RoCE packets, so the share of marked packets is at most this and may be far lower. "
			f.Fix = "Add `ethtool -S <netdev>` (rx_vport_rdma_unicast_packets) with the hw_counters, as a before/after pair around the test, to weigh the marks against the RoCE packets received."
		default:
			f.Title = fmt.Sprintf("%s: ECN marking cannot be judged: %s with no count of RoCE packets to weigh them against", s.Name(), ingest.ReadingsText(rs))
			f.Mechanism = "Marks and CNPs alone say that congestion control acted, not how often: without the RoCE packets received (rx_vport_rdma_unicast_packets, port_rcv_packets, or at least rx_write_requests) their share cannot be known, and since-boot totals say nothing about the test. "
			f.Fix = "Take a before/after pair around the test of the hw_counters and `ethtool -S <netdev>` (rx_vport_rdma_unicast_packets), and weigh np_ecn_marked_roce_packets against the RoCE packets received."
		}
		if len(retrans) > 0 && !(haveBase && !base.lowerBound) {
			f.Severity = Warn
			f.Title += fmt.Sprintf("; beside RC retransmissions (%s)", ingest.ReadingsText(retrans))
			f.Evidence = evidenceInOrder(append(f.Evidence, readingsEvidence(retrans...)...))
			f.Mechanism += "The same counters show loss recovery (out_of_sequence, packet_seq_err, local_ack_timeout_err): marks and retransmissions together mean the path is congested and losing packets, which DCQCN alone did not prevent; this is not light marking. "
		}
		f.Mechanism += "Counted " + window(s) + "."
		return []Finding{perPort(f, s, "ECN/DCQCN active")}
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
		} else {
			for _, d := range []counters.Dir{counters.RX, counters.TX} {
				if r, ok := s.Concept(counters.VportUnicastPackets, d, 0); ok {
					ev = append(ev, r.Evidence...)
				}
			}
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
	return partialFinding(ev, "some counter dumps were not read",
		"rocelab keeps a bounded number of counter dumps per input so that memory stays bounded; the rest were skipped, and findings rest on the ones kept.",
		"Pass the before/after dumps of the ports under test rather than a long capture, or split the input.")
}

// partialFinding is the input.partial finding of the inputs ev names,
// whose objects past a reader's bound were skipped; none without ev.
func partialFinding(ev []Evidence, title, mechanism, fix string) []Finding {
	if len(ev) == 0 {
		return nil
	}
	return []Finding{{
		ID: "input.partial", Severity: Warn, Layer: LayerInput,
		Title: title, Evidence: ev, Mechanism: mechanism, Fix: fix,
	}}
}

// checkUnreadable reports RDMA ports whose sysfs counters read "N/A (no
// PMA)", so that a dump of them is not taken for a clean port.
func checkUnreadable(inc *Incident) []Finding {
	var fs []Finding
	for _, h := range All[*ingest.HWCounters](inc) {
		if len(h.Unreadable) == 0 {
			continue
		}
		fs = append(fs, Finding{
			ID: "counters.unreadable", Severity: Info, Layer: LayerRDMA,
			Title:     fmt.Sprintf("%s: %d RDMA port counters read N/A (no PMA)", list(h.UnreadablePorts, 3), h.UnreadableCount),
			Evidence:  h.Unreadable[:min(len(h.Unreadable), 3)],
			Mechanism: "The kernel prints N/A (no PMA) for a port counter when the device has no performance management agent to ask (iWARP devices such as i40iw and irdma, some RoCE drivers): the counter is not zero, it does not exist, so drops, retransmissions and congestion on this port cannot be seen here.",
			Fix:       "Read the port's health from the netdev's `ethtool -S` and the switch's counters instead.",
		})
	}
	return fs
}

// checkUnjudgedHW reports hw_counters dumps in which the counters table
// knows no name: another driver's counters (Omni-Path's hfi1 prints
// RcResend, PktDrop ...), which no rule reads, so that silence about the
// port is not taken for a clean bill.
func checkUnjudgedHW(inc *Incident) []Finding {
	return perSample(inc, ingest.KindHWCounters, func(s *ingest.CounterSample) []Finding {
		var unread []ingest.Counter
		for _, c := range s.After.Counters {
			if _, _, ok := counters.Default().Lookup(c.Name); ok {
				return nil
			}
			if !ingest.IsGauge(c.Name) {
				unread = append(unread, c)
			}
		}
		if len(unread) == 0 {
			return nil
		}
		names := make([]string, 0, 3)
		for _, c := range unread[:min(len(unread), 3)] {
			names = append(names, c.Name)
		}
		return []Finding{perPort(Finding{
			ID: "counters.unjudged", Severity: Info, Layer: LayerRDMA,
			Title:    fmt.Sprintf("%s: none of its %d hw_counters (%s ...) is a name rocelab reads; the port is not judged", s.Name(), len(unread), strings.Join(names, ", ")),
			Evidence: []Evidence{unread[0].Evidence},
			Mechanism: "rocelab judges RDMA port counters by the names the drivers it knows print (mlx5, bnxt_re, irdma, ionic, mana_ib, efa, and the InfiniBand port counters every device has). " +
				"This dump holds none of them, only another driver's counters (Omni-Path's hfi1 prints RcResend and PktDrop): its drops, retransmissions and congestion are not read, so the absence of findings about this port does not mean it is clean.",
			Fix: "Read the port's health with its driver's own tools and the switch's counters; for a RoCE path, pass the hw_counters of the RoCE device that carries the job (`rdma statistic show`).",
		}, s, "hw_counters no rule reads")}
	})
}

// checkHostECN reports ECN marks the NIC put on received packets itself
// (mlx5 rx_prioN_marked: "ecn marked by device due to per host
// congestion"): the host could not drain the NIC's receive buffer, so the
// congestion is at the receiving host, not in the fabric.
func checkHostECN(inc *Incident) []Finding {
	return perSample(inc, ingest.KindEthtool, func(s *ingest.CounterSample) []Finding {
		var rs []ingest.Reading
		var parts []string
		for p := 0; p < 8; p++ {
			r, ok := s.Concept(counters.PrioHostECNMarked, counters.RX, p)
			if !ok || r.Value == 0 {
				continue
			}
			rs = append(rs, r)
			part := fmt.Sprintf("%d on priority %d", r.Value, p)
			if pk, ok := s.PrioPackets(ingest.RX, p); ok && pk.Value > 0 {
				part += fmt.Sprintf(" (%.3f%% of its %d received packets)", percentOf(r.Value, pk.Value), pk.Value)
				rs = append(rs, pk)
			}
			parts = append(parts, part)
		}
		if len(parts) == 0 {
			return nil
		}
		netdev := nameOr(s.Device, "<netdev>")
		return []Finding{perPort(Finding{
			ID: "counters.ecn.host_marking", Severity: weaken(Warn, s.IsDelta()), Layer: LayerFabric,
			Title:    fmt.Sprintf("%s: the NIC itself ECN-marked received packets, its host too slow to drain them: %s", s.Name(), strings.Join(parts, ", ")),
			Evidence: readingsEvidence(rs...),
			Mechanism: "mlx5 counts in rx_prioN_marked the packets it marked CE itself because its receive buffer toward this host filled (per-host congestion): the host took data off the NIC more slowly than the wire brought it. " +
				"A marked RoCE packet is answered with a CNP whoever marked it, so the senders slow down for the receiving host, not for the fabric, and np_ecn_marked_roce_packets can rise with no switch queue building: raising the switch's ECN thresholds changes nothing. Counted " + window(s) + ".",
			Fix: fmt.Sprintf("Find what limits the host's intake on %s: the PCIe link (lspci -vv LnkSta against LnkCap; dmesg 'PCIe bandwidth ... limited by'), the NIC's NUMA node against the GPUs' and CPUs', the IOMMU (iommu=pt), memory bandwidth, and whether GPUDirect RDMA is used or data bounces through host memory (NCCL's /GDRDMA on NET channels).", netdev),
		}, s, "Host ECN marking")}
	})
}

// checkRdmaJSONGarbled reports `rdma -j statistic` arrays the hw_counters
// reader could not take: cut, not JSON, or with elements no port object.
func checkRdmaJSONGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "rdma -j statistic output", func(a *ingest.HWCounters) []ingest.Garble { return a.Garbled },
		"This array opens as `rdma -j statistic` prints one (after its command, or with \"ifname\" and \"port\" keys) but does not parse as JSON, holds an element that is no object, or ends before its closing ']': the paste was cut or edited, so the counters in it were judged by no rule.",
		"Paste the whole output: `rdma -j statistic show | tee rdma-stat.json`, or the text form without -j.")
}
