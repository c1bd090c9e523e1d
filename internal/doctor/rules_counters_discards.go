package doctor

// NIC and switch-port discards: packets dropped for want of buffer (the
// receive rings, the port's buffer, RoCE's own discard counters), by
// direction and weighed against the packets received.

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/counters"
	"rocelab/internal/ingest"
)

// splitBy splits readings into those whose counter's description is
// matched and the rest.
func splitBy(rs []ingest.Reading, match func(*counters.Desc) bool) (in, out []ingest.Reading) {
	for _, r := range rs {
		if d, _, ok := counters.Default().Lookup(r.Name); ok && match(d) {
			in = append(in, r)
		} else {
			out = append(out, r)
		}
	}
	return in, out
}

// byDirection splits readings into received and sent ones by their
// counter's direction.
func byDirection(rs []ingest.Reading) (rx, tx []ingest.Reading) {
	tx, rx = splitBy(rs, func(d *counters.Desc) bool { return d.Dir == counters.TX })
	return rx, tx
}

// mtuDiscards splits the ionic (Pollara) firmware's RoCE packets
// discarded for their size against the MTU (rx_rdma_mtu_discard_pkts)
// from bnxt_re's RoCE discards, whose driver names no cause.
func mtuDiscards(rs []ingest.Reading) (mtu, other []ingest.Reading) {
	return splitBy(rs, func(d *counters.Desc) bool { return d.Vendor == counters.IONIC })
}

// roceDiscardsText tells bnxt_re's rx/tx_roce_discards by direction.
// Upstream hw_counters.c only copies the RoCE function's statistics
// context (rx/tx_discard_pkts) and documents no cause: the text names
// none.
func roceDiscardsText(rx, tx []ingest.Reading) string {
	var parts []string
	if len(rx) > 0 {
		parts = append(parts, "hw_counters "+readingNames(rx, "count")+" RoCE packets the NIC's RoCE function received and discarded: they reached the NIC and were lost there, and their requesters send them again after a NAK or an ACK timeout.")
	}
	if len(tx) > 0 {
		parts = append(parts, "hw_counters "+readingNames(tx, "count")+" RoCE packets the RoCE function discarded on transmit: packets this host's queue pairs sent that never left the NIC, not received ones; they are sent again as lost.")
	}
	return strings.Join(parts, " ") + " bnxt_re copies these counts from the RoCE function's statistics context (rx/tx_discard_pkts) and the driver documents no cause for them."
}

// checkDiscards reports packets the NIC, or a switch port whose counters
// the incident holds (the twin's --out), dropped for want of buffer.
func checkDiscards(inc *Incident) []Finding {
	peers, _ := lldpPeers(inc)
	return perSample(inc, "", func(s *ingest.CounterSample) []Finding {
		who := "NIC"
		if _, sw := switchPeer(peers, s); sw && s.Kind == ingest.KindEthtool {
			who = "switch port"
		}
		d := s.Discards()
		if !d.Any() || s.Kind == ingest.KindIPLink && driverDumpOf(inc, s) {
			// The kernel's statistics of a port whose driver's dump is
			// here count the same drops: the dump reports them.
			return nil
		}
		pfc := losslessPrios(inc, s)
		onLossless := false
		for _, p := range d.PrioOf {
			onLossless = onLossless || pfc.known && hasPrio(pfc.prios, p)
		}
		var dropped uint64
		weighed, _ := byDirection(d.Port)
		for _, r := range weighed {
			dropped += r.Value
		}
		rx, haveRx := s.PortRxPackets()
		ratio := 0.0
		if haveRx && rx.Value > 0 && dropped > 0 {
			ratio = float64(dropped) / float64(rx.Value)
		}
		sev := Warn
		if ratio >= discardErrorFraction || onLossless {
			sev = Error
		}
		if !s.IsDelta() && ratio < discardHeavyFraction {
			sev = weaken(sev, false)
		}
		all := d.All()
		title := fmt.Sprintf("%s: %s dropped packets: %s", s.Name(), who, ingest.ReadingsText(all))
		if ratio > 0 {
			of := ""
			if len(weighed) < len(all) {
				of = strings.Join(uniqueNames(weighed), " and ") + ": "
			}
			title += fmt.Sprintf(" (%s%.3g%% of %s)", of, 100*ratio, rx.Name)
		}
		title += rate(dropped, s)
		dev := nameOr(s.Device, "<if>")
		var mech []string
		if len(d.Port) > 0 || len(d.Prio) > 0 {
			mech = append(mech, readingNames(append(d.Port, d.Prio...), "count")+" packets the port dropped because its receive buffer was full: traffic arrived faster than the NIC could move it to the host, on a priority that PFC does not protect (or whose pause the sender ignored).")
		}
		switch {
		case onLossless:
			mech = append(mech, fmt.Sprintf("Drops on PFC priority %s mean the lossless class is not lossless: PFC is off on the peer, or the buffer headroom for the cable length is too small.", prioList(pfc.prios)))
		case pfc.known && len(pfc.prios) == 0 && len(d.Prio) > 0:
			mech = append(mech, "PFC is enabled on no priority of this port ("+pfc.from+"), so a full buffer drops instead of pausing the sender.")
		}
		rings, general := ringDrops(s, d.Host)
		if len(rings) > 0 {
			mech = append(mech, readingNames(rings, "count")+" packets for the kernel's receive rings that found no free descriptor (the host's CPU/NAPI fell behind); RoCE bypasses these rings, so this hurts TCP/XDP traffic, not RDMA.")
		}
		if len(general) > 0 {
			mech = append(mech, readingNames(general, "count")+" packets the kernel dropped on receive: on this driver the receive rings' drops and the network stack's too (no buffer, a full backlog, a protocol nothing listens for), which the name does not tell apart; RoCE bypasses the kernel, so this hurts TCP/XDP traffic, not RDMA.")
		}
		if len(d.RDMA) > 0 {
			mech = append(mech, "hw_counters "+readingNames(d.RDMA, "count")+" RDMA packets that found no posted receive WQE (the application did not repost receives in time).")
		}
		mtuRoCE, roce := mtuDiscards(d.RoCE)
		roceRx, roceTx := byDirection(roce)
		if len(roce) > 0 {
			mech = append(mech, roceDiscardsText(roceRx, roceTx))
		}
		if len(mtuRoCE) > 0 {
			mech = append(mech, "hw_counters "+readingNames(mtuRoCE, "count")+" RoCE packets the NIC received and discarded for their size against the MTU (the ionic firmware's name for it; AMD documents no more): not a full buffer but packets larger than this port takes, a sender whose path MTU exceeds what this port or a hop between carries; a requester sends them again as large after an ACK timeout, so a QP whose packets all exceed it ends in retry exceeded (completion status 12).")
		}
		mech = append(mech, "Counted "+window(s)+".")
		var fix string
		rdmaFix := "the receiving application must keep receives posted ahead of the incoming SENDs (a deeper receive queue or SRQ, reposted before it runs dry); its peers see these as RNR NAKs (" + s.NameOf(counters.RNRNakRetryErr, counters.NoDir) + ")."
		hostFix := fmt.Sprintf("For the kernel rings: ethtool -G %s rx up to the maximum `ethtool -g %s` shows, more channels (ethtool -L), IRQ affinity on the NIC's NUMA node.", dev, dev)
		var roceFixes []string
		if len(d.RoCE) > 0 {
			netdev := nameOr(netdevOf(inc, s.Scope, s.Device), "<netdev>")
			if len(roceRx) > 0 {
				roceFixes = append(roceFixes, fmt.Sprintf("Not the switch's drop: read ethtool -S %s beside these hw_counters. If the RoCE class's rx_discard_packets_cosN moves while tx_pfc_ena_frames_priN stays 0, the NIC drops instead of pausing its switch port: %s. If not, the driver documents no cause: compare the requesters' retransmission counters and the receivers' CPU and PCIe load, and take the counts with `ethtool -i %s` (driver and firmware versions) to the NIC's vendor.", netdev, pfcSetting(s, netdev, pfc.target(0)), netdev))
			}
			if len(mtuRoCE) > 0 {
				roceFixes = append(roceFixes, fmt.Sprintf("Not PFC or buffers: compare the MTUs along the path: the RoCE active_mtu each end's device reports (`ibv_devinfo -d %s`), `ip link show %s` on both hosts and the switch ports' MTU, which must carry the RoCE MTU and its headers (a RoCE MTU of 4096 on an Ethernet MTU of 4200 or more on every hop).", s.Device, netdev))
			}
			if len(roceTx) > 0 {
				roceFixes = append(roceFixes, fmt.Sprintf("The transmit discards are this NIC's own: read ethtool -S %s and the kernel log (bnxt_en, bnxt_re) beside them; the driver documents no cause, so take the counts with `ethtool -i %s` (driver and firmware versions) to the NIC's vendor.", netdev, netdev))
			}
		}
		roceFix := strings.Join(roceFixes, " ")
		switch {
		case len(d.Port) == 0 && len(d.Prio) == 0 && len(d.Host) == 0:
			var fixes []string
			if len(d.RDMA) > 0 {
				fixes = append(fixes, "Not the fabric: "+rdmaFix)
			}
			if len(d.RoCE) > 0 {
				fixes = append(fixes, roceFix)
			}
			return []Finding{perPort(Finding{
				ID: "counters.discards", Severity: sev, Layer: LayerFabric,
				Title: title, Evidence: readingsEvidence(all...),
				Mechanism: strings.Join(mech, " "),
				Fix:       strings.Join(fixes, " "),
			}, s, strings.ToUpper(who[:1])+who[1:]+" dropped packets")}
		case len(d.Port) == 0 && len(d.Prio) == 0:
			// The host's rings only (with RDMA's receive queues): the
			// packets reached the NIC, so PFC, ECN and the switch have
			// nothing to do with it.
			fix = "Not the fabric: the packets reached the NIC and the host had posted no buffer for them, so PFC or ECN would not help. " + hostFix
			if len(rings) == 0 {
				fix = "Not the fabric: the packets reached the host, so PFC or ECN would not help; the driver's per-queue counters in ethtool -S and the second column of /proc/net/softnet_stat (the backlog's drops) tell the rings' drops from the stack's. " + hostFix
			}
			if len(d.RDMA) > 0 {
				fix += " For " + strings.Join(uniqueNames(d.RDMA), ", ") + ", " + rdmaFix
			}
		case onLossless:
			fix = fmt.Sprintf("Check PFC end to end on priority %s: the peer and every switch port must have it enabled (mlnx_qos -i %s shows the NIC side), and the switch's headroom must suit the cable length and MTU; watch rx/tx_prio%d_pause during the test.", prioList(pfc.prios), dev, pfc.prios[0])
		default:
			top := 0
			if len(d.PrioOf) > 0 {
				top = d.PrioOf[0]
			}
			want := pfc.target(top)
			fix = "For RoCE, carry it on a PFC priority so the NIC pauses the sender instead of dropping: " + pfcSetting(s, dev, want) + ", the same priority on the switch"
			if who != "NIC" {
				fix = "For RoCE, carry it on a PFC priority so the switch pauses the sender instead of dropping: " + switchPFCSetting(dev, want) + ", the same priority on the hosts' NICs (" + pfcSetting(s, "<netdev>", want) + ")"
			}
			if top != want {
				fix += ", and " + markInto(want)
			}
			fix += "."
		}
		if len(d.Host) > 0 && (len(d.Port) > 0 || len(d.Prio) > 0) {
			fix += " " + hostFix
		}
		if len(d.RoCE) > 0 {
			fix += " For " + strings.Join(uniqueNames(d.RoCE), ", ") + ": " + roceFix
		}
		ev := all
		if haveRx {
			ev = append(ev, rx)
		}
		return []Finding{perPort(Finding{
			ID: "counters.discards", Severity: sev, Layer: LayerFabric,
			Title: title, Evidence: readingsEvidence(ev...),
			Mechanism: strings.Join(mech, " "), Fix: fix,
		}, s, strings.ToUpper(who[:1])+who[1:]+" dropped packets")}
	})
}

// ringDrops splits the host's drops into those the driver is known to count
// as its receive rings' (mlx5's rx_out_of_buffer, ice's rx_dropped, and the
// like under names of a driver's own, and the kernel's rx_missed_errors,
// which counts ring drops whatever the driver) and those under a name many
// drivers print (rx_dropped), which elsewhere counts the stack's drops too.
func ringDrops(s *ingest.CounterSample, host []ingest.Reading) (rings, general []ingest.Reading) {
	v, known := s.Vendor()
	for _, r := range host {
		if d, _, ok := counters.Default().Lookup(r.Name); ok && d.Common && d.Vendor != counters.Netdev && (!known || v != d.Vendor) {
			general = append(general, r)
			continue
		}
		rings = append(rings, r)
	}
	return rings, general
}

// readingNames joins the counters' names ("a", "a and b", "a, b and c")
// and the verb, agreeing in number ("a counts", "a and b count").
func readingNames(rs []ingest.Reading, verb string) string {
	names := uniqueNames(rs)
	if len(names) < 2 {
		return strings.Join(names, "") + " " + verb + "s"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " " + verb
}

// uniqueNames returns the readings' counter names, each once, in order.
func uniqueNames(rs []ingest.Reading) []string {
	var names []string
	for _, r := range rs {
		if !slices.Contains(names, r.Name) {
			names = append(names, r.Name)
		}
	}
	return names
}
