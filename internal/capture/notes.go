package capture

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
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
	if a.MirrorCopies > 0 {
		ns = append(ns, fmt.Sprintf("%d tunneled requests and READ responses came a second time, same PSN, opcode and ICRC, sooner than any ACK timeout allows a retransmission (%s): a mirror session's second copy, counted once", a.MirrorCopies, minACKTimeout))
	}
	if a.TruncatedPackets > 0 {
		ns = append(ns, fmt.Sprintf("%d RoCE packets were cut short by the snaplen (%d): their sizes come from the IP and UDP headers", a.TruncatedPackets, a.Snaplen))
	}
	if a.MACControlPackets > 0 && a.LinkSpeedSource == "unknown" {
		ns = append(ns, "link speed unknown (no --link-speed, no pcapng if_speed): pause frames are counted in quanta only")
	}
	if a.DecodeErrors > 0 {
		var ex []string
		for _, e := range a.ErrorExamples {
			ex = append(ex, fmt.Sprintf("packet %d: %s", e.Packet, e.Error))
		}
		ns = append(ns, fmt.Sprintf("%d packets could not be decoded (%s)", a.DecodeErrors, strings.Join(ex, "; ")))
	}
	if a.BackwardTime > 0 {
		ns = append(ns, fmt.Sprintf("%d timestamps went backwards; they were treated as equal to the previous one", a.BackwardTime))
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
		parts = append(parts, fmt.Sprintf("%d packets of %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
