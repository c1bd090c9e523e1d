package capture

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"rocelab/internal/textout"
)

// notes says in sentences what a reader must know to read the numbers.
func (a *Analysis) notes() []string {
	var ns []string
	if a.LLDP != nil {
		a.LLDP.finish()
	}
	if a.Truncated != nil {
		ns = append(ns, fmt.Sprintf("truncated: %s; the %d whole packets were analysed (a capture stopped before tcpdump flushed, or a copy cut short)", a.Truncated, a.Truncated.LastPacket))
	}
	if a.Filter != "" {
		ns = append(ns, fmt.Sprintf("filtered to %s (and pause frames): %d packets left out", a.Filter, a.FilteredOut))
	}
	if a.Stopped {
		ns = append(ns, fmt.Sprintf("stopped after %d packets (-c)", a.Packets))
	}
	if a.RoCEPackets == 0 {
		n := "no RoCEv2 packets (UDP port 4791): " + a.Contents()
		if a.LLDP != nil {
			n += "; " + a.LLDP.Describe()
		}
		ns = append(ns, n)
	}
	if len(a.Tunneled) > 0 {
		ns = append(ns, fmt.Sprintf("%s decoded from inside the tunnel: the flows are the inner frames', their times those at which the copies reached the capture point; a mirror session that copies both directions, or a packet at two ports, shows it twice", tunnelCounts(a.Tunneled)))
	}
	if a.LinkHeaderAssumed > 0 {
		ns = append(ns, fmt.Sprintf("the wire lengths of %s that came without a link-layer header (a raw IP capture, or Geneve carrying bare IP) count an untagged 14-byte Ethernet header, and so do the bytes and rates summed from them (an 802.1Q tag would add 4 bytes a frame)", textout.Count(a.LinkHeaderAssumed, "packet", "packets")))
	}
	if a.MirrorCopies > 0 {
		n := fmt.Sprintf("%s came again from another tap of the mirror (another switch, session, port or direction) with the same QP, PSN, opcode and ICRC: counted once, as a packet repeated by the tap that delivered it is a retransmission", textout.Count(a.MirrorCopies, "ERSPAN packet", "ERSPAN packets"))
		if a.copyCE > 0 {
			n += fmt.Sprintf("; %s only on the copy were counted", textout.Count(a.copyCE, "CE mark", "CE marks"))
		}
		ns = append(ns, n)
	}
	if a.pastTaps > 0 {
		ns = append(ns, fmt.Sprintf("the ERSPAN packets came from more than %d taps (source, session, index and direction): further taps were not told apart, and the %s they delivered were counted as sent, mirror copies or not", maxTaps, textout.Count(a.pastTaps, "packet", "packets")))
	}
	if len(a.taps) == 1 && a.tapRepeats > 0 {
		ns = append(ns, fmt.Sprintf("every ERSPAN packet came from one tap (one source, session, index and direction), so %s it delivered again %s counted again, as retransmissions or repeated ACKs, NAKs and CNPs; but a session that copies a packet at two points (both directions, or ingress and egress) delivers it twice with nothing to tell the copy apart", textout.Count(a.tapRepeats, "packet", "packets"), plural(a.tapRepeats, "is", "are")))
	}
	if cut := a.TruncatedPackets - a.mirrorCut; cut > 0 {
		ns = append(ns, fmt.Sprintf("%s cut short by the snaplen (%d): their sizes come from the IP and UDP headers", textout.Count(cut, "RoCE packet was", "RoCE packets were"), a.Snaplen))
	}
	if a.mirrorCut > 0 {
		ns = append(ns, fmt.Sprintf("%s cut short by the mirror session (ERSPAN T bit): their sizes come from the inner IP and UDP headers", textout.Count(a.mirrorCut, "RoCE packet was", "RoCE packets were")))
	}
	if a.MACControlPackets > 0 && a.LinkSpeedSource == "unknown" {
		ns = append(ns, "link speed unknown (no --link-speed, no pcapng if_speed): pause frames are counted in quanta only")
	}
	if a.DecodeErrors > 0 {
		var ex []string
		for _, e := range a.ErrorExamples {
			ex = append(ex, fmt.Sprintf("packet %d: %s", e.Packet, e.Error))
		}
		ns = append(ns, fmt.Sprintf("%s could not be decoded (%s)", textout.Count(a.DecodeErrors, "packet", "packets"), strings.Join(ex, "; ")))
	}
	if a.BackwardTime > 0 {
		ns = append(ns, fmt.Sprintf("%s went backwards; %s treated as equal to the previous one", textout.Count(a.BackwardTime, "timestamp", "timestamps"), plural(a.BackwardTime, "it was", "they were")))
	}
	if a.RDPackets > 0 {
		ns = append(ns, fmt.Sprintf("%s Reliable Datagram opcodes (0x40-0x5f, as mlx5's DC transport sends them): counted in their flows but neither requests nor responses, their PSNs not tracked, so no gap, retransmission or NAK of theirs is reported", textout.Count(a.RDPackets, "packet has", "packets have")))
	}
	if a.UnseenFlows > 0 {
		ns = append(ns, fmt.Sprintf("%s in %s the capture missed: the receiver acknowledged past them, sent no NAK, and no PSN came again, so it received PSNs the capture never held (tcpdump or ibdump dropped packets, or the capture was sampled); those flows' gaps say nothing of loss, either way (a resend the capture also missed would not show)", textout.Count(a.UnseenGaps, "PSN gap", "PSN gaps")+fmt.Sprintf(" (%s)", textout.Count(a.UnseenPSNs, "PSN", "PSNs")), textout.Count(int64(a.UnseenFlows), "queue pair direction", "queue pair directions")))
	}
	if a.Bin != a.opts.Bin {
		ns = append(ns, fmt.Sprintf("timeline bin widened from %s to %s to keep memory bounded", a.opts.Bin, a.Bin))
	}
	return ns
}

// Contents says what the capture holds besides RoCE, most first, e.g.
// "the capture holds 31 LLDP, 20 IPv6".
func (a *Analysis) Contents() string {
	type kv struct {
		k string
		v int64
	}
	var kvs []kv
	for k, v := range a.Other {
		kvs = append(kvs, kv{k, v})
	}
	if a.MACControlPackets > 0 {
		kvs = append(kvs, kv{"MAC control (PAUSE/PFC)", a.MACControlPackets})
	}
	sort.Slice(kvs, func(i, j int) bool {
		if kvs[i].v != kvs[j].v {
			return kvs[i].v > kvs[j].v
		}
		return kvs[i].k < kvs[j].k
	})
	if len(kvs) == 0 {
		return "the capture is empty"
	}
	var parts []string
	for _, e := range kvs {
		parts = append(parts, fmt.Sprintf("%d %s", e.v, e.k))
	}
	return "the capture holds " + strings.Join(parts, ", ")
}

// tunnelCounts says how many packets each tunnel carried, e.g. "105
// packets of ERSPAN type II".
func tunnelCounts(m map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, textout.Count(m[k], "packet", "packets")+" of "+k)
	}
	return strings.Join(parts, ", ")
}

// plural picks the verb or phrase that goes with n things.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
