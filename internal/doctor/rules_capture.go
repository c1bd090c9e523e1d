package doctor

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"rocelab/internal/capture"
	"rocelab/internal/ingest"
)

// readCapture is the binary reader for pcap and pcapng inputs.
func readCapture(src string, r io.Reader, opts Options) (ingest.Artifact, error) {
	return capture.Analyze(src, r, capture.Options{LinkSpeed: opts.NICSpeed})
}

// Thresholds of the capture rules.
const (
	// cnpStormRate is the CNP arrival rate at a reaction point (over the
	// flow's active time) above which CNPs are a storm rather than normal
	// DCQCN signalling: one CNP per 50 us per QP.
	cnpStormRate = 20_000
	// cnpStormMin is the fewest CNPs that can make a storm.
	cnpStormMin = 10
	// pauseStormFraction is the share of the capture a priority may spend
	// paused before the finding is an error.
	pauseStormFraction = 0.5
	// maxCaptureEvidence caps the evidence lines per capture finding.
	maxCaptureEvidence = 8
)

// captureGroups titles the groups of like capture findings.
var captureGroups = map[string]string{
	"capture.no_roce":        "No RoCEv2 traffic in the capture",
	"capture.roce_v1":        "RoCE v1 traffic in the capture",
	"capture.retransmission": "Go-back-N retransmission in the capture",
	"capture.cnp.storm":      "CNPs in the capture",
	"capture.pfc.pause":      "Pause frames in the capture",
	"capture.ecn.marked":     "ECN CE marks in the capture",
	"capture.truncated":      "Captures that end inside a record",
}

func captureRule() Rule {
	return Rule{
		IDs: []string{"capture.no_roce", "capture.roce_v1", "capture.retransmission", "capture.cnp.storm", "capture.pfc.pause", "capture.ecn.marked", "capture.truncated"},
		Check: func(inc *Incident) []Finding {
			var fs []Finding
			for _, a := range All[*capture.Analysis](inc) {
				for _, f := range captureFindings(a) {
					fs = append(fs, f.per(a.File, "capture", captureGroups[f.ID]))
				}
			}
			return fs
		},
	}
}

func captureFindings(a *capture.Analysis) []Finding {
	fs := truncatedFindings(a)
	if a.RoCEPackets == 0 {
		evs := []Evidence{{File: a.File, Text: a.Contents()}}
		if a.LLDP != nil {
			evs = append(evs, ev(a, a.LLDP.FirstPacket, "%s", a.LLDP.Describe()))
		}
		if a.RoCEv1 == 0 {
			fs = append(fs, noRoCEFinding(a, evs))
		}
		fs = append(fs, roceV1Finding(a, evs)...)
		return append(fs, pauseFindings(a)...)
	}
	fs = append(fs, roceV1Finding(a, nil)...)
	fs = append(fs, retransmissionFindings(a)...)
	fs = append(fs, cnpFindings(a)...)
	fs = append(fs, pauseFindings(a)...)
	fs = append(fs, ecnFindings(a)...)
	return fs
}

// noRoCEFinding says a capture holds no RoCE traffic, as tcpdump on the
// netdev sees: kernel traffic only. A capture of RoCE v1 frames is told by
// roceV1Finding instead.
func noRoCEFinding(a *capture.Analysis, evs []Evidence) Finding {
	return Finding{
		ID: "capture.no_roce", Severity: Warn, Layer: LayerRDMA,
		Title:    fmt.Sprintf("%s holds no RoCEv2 traffic (%s, none to UDP port 4791)", a.File, plural(int(a.Packets), "packet", "packets")),
		Evidence: evs,
		Mechanism: "RDMA traffic is moved by the NIC without the kernel, so tcpdump on the Ethernet netdev sees only kernel traffic " +
			"(LLDP, ARP, TCP); a capture without UDP 4791 says nothing about the RoCE data path.",
		Fix: "Capture the RDMA traffic itself: NVIDIA ibdump, or tcpdump -i mlx5_0 with an RDMA-capable libpcap, or a switch port mirror; " +
			"e.g. tcpdump -i mlx5_0 -s 100 udp port 4791 -w roce.pcap.",
	}
}

// roceV1Finding says a capture holds RoCE v1 frames: queue pairs set up on
// a RoCE v1 GID, all of them when the capture holds no RoCEv2, else those
// of the v1 frames' source GIDs. Nil when it holds none.
func roceV1Finding(a *capture.Analysis, evs []Evidence) []Finding {
	if a.RoCEv1 == 0 {
		return nil
	}
	srcs := make([]string, len(a.RoCEv1Sources))
	for i, g := range a.RoCEv1Sources {
		srcs[i] = g.String()
	}
	from := ""
	if len(srcs) > 0 {
		from = ", from source GID " + strings.Join(srcs, ", ")
	}
	title := fmt.Sprintf("%s holds RoCE v1 traffic (%s, EtherType 0x8915%s) and no RoCEv2: its queue pairs run on a RoCE v1 GID",
		a.File, plural(int(a.RoCEv1), "frame", "frames"), from)
	if a.RoCEPackets > 0 {
		title = fmt.Sprintf("%s holds RoCE v1 frames (%s, EtherType 0x8915%s) beside %s of RoCEv2: some queue pairs run on a RoCE v1 GID",
			a.File, plural(int(a.RoCEv1), "frame", "frames"), from, plural(int(a.RoCEPackets), "packet", "packets"))
	}
	return []Finding{{
		ID: "capture.roce_v1", Severity: Warn, Layer: LayerRDMA,
		Title:    title,
		Evidence: append(evs, ev(a, a.RoCEv1First, "first RoCE v1 frame (EtherType 0x8915: GRH and BTH in Ethernet, no IP or UDP header)")),
		Mechanism: "A queue pair sends RoCE v1 when the GID index it was set up with points at a RoCE v1 row of the port's GID table " +
			"(on mlx5 every address has a v1 row then a v2 row: indexes 0 and 2 are v1, 1 and 3 v2). " +
			"RoCE v1 has no IP header: it is not routed past the VLAN, carries no DSCP for switches and NICs to classify on and no ECN field, " +
			"so DCQCN cannot mark or react and PFC can only follow the VLAN PCP; in a fabric set up for RoCEv2 (DSCP trust, ECN on the lossless queue) " +
			"these frames ride the default class.",
		Fix: "Point every queue pair at the RoCEv2 GID of the routable address (`show_gids`: VER v2, usually index 3): " +
			"NCCL reads NCCL_IB_GID_INDEX=<that index>, or, with it unset in NCCL >= 2.21, picks the GID by NCCL_IB_ROCE_VERSION_NUM " +
			"(default 2: check it is not set to 1) and NCCL_IB_ADDR_FAMILY; perftest takes -x <that index>; " +
			"only applications that connect through rdma_cm (perftest -R, UCX/MPI over rdmacm) follow `cma_roce_mode -d mlx5_0 -p 1 -m 2`, " +
			"which sets rdma_cm's default RoCE version and changes nothing for NCCL. Then capture again and check for UDP 4791.",
	}}
}

// truncatedFindings reports a capture that ends inside a record: what was
// analysed is every whole packet, and the tail is missing.
func truncatedFindings(a *capture.Analysis) []Finding {
	t := a.Truncated
	if t == nil {
		return nil
	}
	return []Finding{{
		ID: "capture.truncated", Severity: Warn, Layer: LayerInput,
		Title:    fmt.Sprintf("%s is truncated: it ends inside a record at byte offset %d, after packet %d; the %s before it were analysed", a.File, t.Offset, t.LastPacket, plural(t.LastPacket, "whole packet", "whole packets")),
		Evidence: []Evidence{{File: a.File, Line: t.LastPacket, Text: t.String()}},
		Mechanism: "A capture file is written record by record through a buffer; when tcpdump is killed (SIGKILL, a timeout) before it flushes, " +
			"the disk fills, or a copy is cut short, the file ends inside a record. Everything before it is whole; what happened after it is unknown.",
		Fix: "Stop tcpdump with Ctrl-C or SIGTERM so that it flushes (or write with -U, packet-buffered), check free space, and copy the whole file; " +
			"the findings from the whole packets stand, but a drop or pause after the cut would not show.",
	}}
}

func ev(a *capture.Analysis, packet int, format string, args ...any) Evidence {
	return Evidence{File: a.File, Line: packet, Text: fmt.Sprintf(format, args...)}
}

func retransmissionFindings(a *capture.Analysis) []Finding {
	var evs []Evidence
	var pkts, bytes, naks, timeouts, total int64
	for _, f := range a.Flows {
		for _, s := range []*capture.PSNStats{&f.Requester, &f.Responder} {
			pkts += s.RetransPackets
			bytes += s.RetransBytes
			naks += s.NAKEpisodes
			timeouts += s.TimeoutEpisodes
			for _, e := range s.Episodes {
				if len(evs) < maxCaptureEvidence {
					evs = append(evs, ev(a, e.StartPacket, "%s: %s", a.FlowName(f.Key), describeEpisode(e)))
				}
			}
		}
		total += f.Bytes
	}
	if pkts == 0 {
		return nil
	}
	sev := Warn
	if timeouts > 0 {
		sev = Error
	}
	return []Finding{{
		ID: "capture.retransmission", Severity: sev, Layer: LayerFabric,
		Title: fmt.Sprintf("%s: %d go-back-N episodes (%d after a NAK, %d after an inferred ACK timeout) resent %d packets, %d bytes (%.2f%% of RoCE bytes)",
			a.File, naks+timeouts, naks, timeouts, pkts, bytes, 100*float64(bytes)/float64(max(total, 1))),
		Evidence: evs,
		Mechanism: "RC queue pairs recover loss by go-back-N: on a PSN gap the responder sends a NAK (PSN sequence error) and the requester " +
			"resends everything from that PSN; a lost tail or lost ACK waits for the local ACK timer (4.096 us·2^timeout, up to seconds). " +
			"Retransmission means packets were dropped on a class that should be lossless.",
		Fix: "Find the drop: ethtool -S for rx_discards_phy / rx_prioN_discards and the switch's drop counters; check that PFC is enabled on " +
			fmt.Sprintf("the RoCE priority end to end (%s) with headroom for the cable length. ", rocePriority(a)) +
			"For timeout episodes also review NCCL_IB_TIMEOUT and adaptive retransmission.",
	}}
}

// rocePriority says which priority the capture's RoCE data rides under the
// default DSCP-to-priority map (DSCP>>3), from its largest data flow, and
// the mlnx_qos setting that protects it.
func rocePriority(a *capture.Analysis) string {
	var top *capture.Flow
	for _, f := range a.Flows {
		if f.Requests > 0 && (top == nil || f.Bytes > top.Bytes) {
			top = f
		}
	}
	if top == nil {
		return "mlnx_qos -i <if> --pfc 0,0,0,1,0,0,0,0 for priority 3"
	}
	p := int(top.DSCP) >> 3
	return fmt.Sprintf("the RoCE data here is marked DSCP %d, priority %d under the default DSCP map: mlnx_qos -i <if> --trust dscp --pfc %s", top.DSCP, p, pfcVector([]int{p}))
}

func describeEpisode(e capture.Episode) string {
	cause := fmt.Sprintf("after %s at packet %d", e.NAKSyndrome, e.NAKPacket)
	if e.Trigger == "timeout" {
		cause = fmt.Sprintf("no NAK, inferred ACK timeout after %s idle", e.IdleGap)
	}
	return fmt.Sprintf("t=%s resent from PSN %d (highest sent %d), %d packets %d bytes, %s", e.Start, e.FirstPSN, e.HighestPSN, e.Packets, e.Bytes, cause)
}

func cnpFindings(a *capture.Analysis) []Finding {
	type rp struct {
		f    *capture.Flow
		rate float64
	}
	var rps []rp
	var total int64
	for _, f := range a.Flows {
		if f.CNPsReceived == 0 {
			continue
		}
		total += f.CNPsReceived
		rate := 0.0
		if d := (f.Last - f.First).Seconds(); d > 0 {
			rate = float64(f.CNPsReceived) / d
		}
		rps = append(rps, rp{f, rate})
	}
	if total == 0 {
		return nil
	}
	sort.SliceStable(rps, func(i, j int) bool { return rps[i].rate > rps[j].rate })
	sev := Info
	if rps[0].rate >= cnpStormRate && rps[0].f.CNPsReceived >= cnpStormMin {
		sev = Warn
	}
	var evs []Evidence
	for _, r := range rps {
		if len(evs) == maxCaptureEvidence {
			break
		}
		evs = append(evs, ev(a, r.f.FirstPacket, "%s: %d CNPs received (%.0f/s over its %s), %d of its %d packets CE-marked",
			a.FlowName(r.f.Key), r.f.CNPsReceived, r.rate, r.f.Last-r.f.First, r.f.CE, r.f.Packets))
	}
	title := fmt.Sprintf("%s: %d CNPs (DCQCN congestion notifications)", a.File, total)
	if sev == Warn {
		title = fmt.Sprintf("%s: CNP storm, up to %.0f CNPs/s at one reaction point", a.File, rps[0].rate)
	}
	return []Finding{{
		ID: "capture.cnp.storm", Severity: sev, Layer: LayerFabric, Title: title, Evidence: evs,
		Mechanism: "A receiver (notification point) answers ECN-CE marked packets with CNPs (BTH opcode 0x81); each CNP makes the sender's " +
			"DCQCN cut its rate. A steady stream of CNPs means a congested queue — incast or a slow receiver — holding the senders " +
			"well below line rate.",
		Fix: "Find the congested port (switch ECN-marked counters, np_ecn_marked_roce_packets / np_cnp_sent on receivers); reduce incast " +
			"(fewer concurrent senders per receiver, NCCL channels), and check that switch ECN thresholds (Kmin/Kmax) suit the buffer " +
			"and that rp_cnp_handled rises on senders.",
	}}
}

func pauseFindings(a *capture.Analysis) []Finding {
	var evs []Evidence
	var frames int64
	sev := Warn
	global := false
	for _, p := range a.Pause {
		if p.XOFF == 0 {
			continue
		}
		frames += p.Frames
		global = global || p.Priority == "all"
		eff := "unknown (give --nic-speed)"
		if p.Effective != nil {
			eff = p.Effective.String()
			if a.Duration > 0 && float64(*p.Effective) >= pauseStormFraction*float64(a.Duration) {
				sev = Error
			}
		}
		evs = append(evs, ev(a, p.FirstPacket, "%s priority %s: %d pause frames (%d XOFF, %d XON), %d quanta, paused %s",
			p.SrcMAC, p.Priority, p.Frames, p.XOFF, p.XON, p.Quanta, eff))
	}
	if frames == 0 {
		return nil
	}
	if len(evs) > maxCaptureEvidence {
		evs = evs[:maxCaptureEvidence]
	}
	mech := "A PFC frame (MAC control 0x8808, opcode 0x0101) stops the link peer's transmission on the enabled priorities for quanta of " +
		"512 bit times (335.5 us for 0xFFFF at 100G); it is how a lossless class avoids drops, but sustained pausing spreads " +
		"congestion upstream (head-of-line blocking, and in the worst case PFC storms and deadlock)."
	if global {
		mech += " An 802.3x PAUSE (opcode 0x0001) stops every priority at once: RoCE and everything else."
	}
	return []Finding{{
		ID: "capture.pfc.pause", Severity: sev, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: %d pause frames", a.File, frames),
		Evidence:  evs,
		Mechanism: mech,
		Fix: "Find who is paused and why: rx/tx_prioN_pause and _pause_duration on the hosts, the switch's PFC counters per port; an endless " +
			"stream from one MAC points at a stuck receiver (enable the PFC watchdog). Use PFC, not global pause: ethtool -A <if> rx off tx off, " +
			"and enable PFC only on the RoCE priority.",
	}}
}

func ecnFindings(a *capture.Analysis) []Finding {
	var ce, pkts, cnps, responses int64
	var evs []Evidence
	for _, f := range a.Flows {
		ce += f.CE
		pkts += f.Packets
		cnps += f.CNPs
		responses += f.Responses
		if f.CE > 0 && len(evs) < maxCaptureEvidence {
			evs = append(evs, ev(a, f.FirstPacket, "%s: %d of %d packets CE-marked, %d ECT", a.FlowName(f.Key), f.CE, f.Packets, f.ECT))
		}
	}
	if ce == 0 {
		return nil
	}
	f := Finding{
		ID: "capture.ecn.marked", Severity: Info, Layer: LayerFabric,
		Title:    fmt.Sprintf("%s: %d of %d RoCE packets carry ECN CE (%.2f%%)", a.File, ce, pkts, 100*float64(ce)/float64(pkts)),
		Evidence: evs,
		Mechanism: "Switches mark ECN-capable RoCE packets CE when a queue passes its ECN threshold; receivers answer with CNPs and DCQCN " +
			"slows the senders. Some marking under load is DCQCN working as designed.",
		Fix: "None needed for occasional marks; for heavy marking see the CNP and PFC findings and the switch queue depth.",
	}
	if cnps == 0 && responses > 0 {
		f.Severity = Warn
		f.Title += ", and no CNPs come back although the reverse direction is captured"
		f.Mechanism += " Here CE marks get no CNPs: the notification point is not reacting, so senders never slow down and queues fill until PFC or drops."
		f.Fix = "Enable DCQCN notification on the RoCE priority at the receivers (e.g. /sys/class/net/<if>/ecn/roce_np/enable/3 = 1, " +
			"or mlxconfig ROCE_CC settings) and check that CNPs are not filtered."
	}
	return []Finding{f}
}
