// Package capture reads pcap and pcapng captures of RoCEv2 traffic and says
// what they show: per-QP packets, bytes, throughput, PSN gaps,
// go-back-N retransmission episodes, NAKs, inferred ACK timeouts, ECN CE
// marks, CNPs, and PFC / PAUSE frames with the time they paused each
// priority.
//
// The simulator's counters are compared with these numbers exactly, so the
// definitions below are the contract.
//
// # Input
//
// Classic pcap (microsecond and nanosecond magic, either byte order) and
// pcapng (several interfaces, if_tsresol, if_speed) on Ethernet links, at
// any snaplen; Linux cooked (SLL, SLL2) and raw IP (LINKTYPE_RAW, _IPV4,
// _IPV6) frames are read as the Ethernet frames they stand for, with zero
// MACs the header does not keep. Packets stream through one reused buffer, so memory does not
// grow with the capture's size; it grows with the number of QP flows and
// is capped for timelines and episode lists (see MaxBins, MaxEpisodes).
//
// A frame inside a tunnel, as a switch's mirror session, an overlay or a
// cloud's packet mirroring carries it (ERSPAN types I-III, GRE bridging
// Ethernet, VXLAN on UDP 4789 or Linux's 8472, Geneve carrying Ethernet or
// a bare IP packet; one level), is analysed as the inner frame: its flows,
// lengths and ECN are the inner packet's (a bare IP packet's length counts
// the 14-byte Ethernet header it had), and Tunneled counts such packets by
// tunnel. An ERSPAN packet
// (any opcode) that repeats a recent one (QP, PSN, opcode, ICRC) is a
// mirror copy only when it comes from a tap (outer source, session, type
// II index, type III direction) that has delivered that packet fewer
// times than another tap: MirrorCopies counts it, nothing else does but a
// CE mark the counted packet lacked. A repeat from the same tap is a
// retransmission however soon it follows; GRE, VXLAN and Geneve packets
// are never copies.
//
// RoCE v1 frames (EtherType 0x8915, a GRH and BTH with no IP or UDP
// header) are counted as RoCEv1, with the first one's packet number, and
// not analysed: they are what a queue pair on a RoCE v1 GID sends.
//
// Packet numbers count from 1 as Wireshark does. Times in results are
// relative to the first packet's timestamp, as unit.Time (picoseconds; the
// capture's resolution is at best nanoseconds).
//
// # Lengths
//
// The wire length of a frame is its Ethernet header (14 bytes, 18 with an
// 802.1Q tag) plus the IP length the IP header states (IPv4 total length;
// 40 + IPv6 payload length): the frame on the wire without preamble and
// FCS, whatever the snaplen and whether or not the capture kept the FCS.
// A packet that came without a link-layer header (raw IP link types,
// Geneve carrying bare IP) counts an untagged 14-byte header, though a
// VLAN tag may have added 4 on its link: LinkHeaderAssumed counts such
// packets and a note says so. A Linux cooked frame counts 14 bytes too.
// MAC control frames count as 60 bytes. Flow byte counts are sums of wire
// lengths. The payload length of a RoCE packet is the UDP length less the
// UDP header, BTH, the opcode's extension headers, pad and ICRC.
//
// # Flows
//
// A flow is one direction of a queue pair: every RoCEv2 packet belongs to
// the flow keyed by (source IP, destination IP, BTH destination QPN). A
// requester's SEND/WRITE/READ REQUEST/atomic packets form one flow; the
// responder's ACKs, NAKs, READ RESPONSEs and atomic ACKs to it form the
// reverse flow (keyed by the requester's QPN); CNPs travel in the reverse
// flow too (the notification point addresses the reaction point's QPN).
//
// Pairing: the first time a flow R from B to A carries a response (ACK,
// NAK, atomic ACK, READ RESPONSE) or a CNP, it is paired with one flow F
// from A to B, once and for good: the A-to-B flow whose request PSN window
// [first PSN, highest PSN + 1] holds the response's PSN, the one with the
// latest packet if several do; failing that (or for a CNP) the A-to-B flow
// with the latest packet. F's peer is R and, if F had none, R's peer is F.
// A flow with no peer reports its own counts only.
//
// Per flow: Packets and Bytes (all of its packets), Requests (SEND,
// WRITE, READ REQUEST, atomics, UD SEND), Responses (ACKNOWLEDGE, ATOMIC
// ACKNOWLEDGE, READ RESPONSE), CNPs, ACKs (AETHs with an ACK syndrome,
// including those of READ RESPONSE FIRST/LAST/ONLY) and NAKs by syndrome
// (RNR NAKs under "RNR NAK"), all counting packets of this flow, i.e. sent
// by its source; CE and ECT (the IP ECN field of its packets); and
// Truncated (packets the capture cut before the end of the UDP datagram). The requester's view of
// what came back is the peer's counts: NAKsReceived and CNPsReceived.
//
// # PSN analysis
//
// Two PSN sequences are tracked per flow, the requests and the READ
// RESPONSEs, each with 24-bit serial arithmetic (PSNDiff); ACKs and CNPs
// are not tracked. For each tracked packet with PSN p, after the first,
// with H the highest PSN seen so far in that sequence and d = p − H:
//
//   - d = 1: in order; H = p.
//   - d > 1: a gap. PSNGaps counts one, PSNMissing counts d − 1 PSNs
//     (lost before the capture point, or dropped by the capture). A jump
//     right after a READ REQUEST is not a gap: the request consumes one
//     PSN per response packet. H = p.
//   - d ≤ 0: a retransmission. If no episode is open, one opens at this
//     packet. The packet counts in Retransmitted packets and bytes and in
//     the episode.
//
// An open episode ends at the first packet with d > 0 (the sender passes
// its previous highest PSN); that packet is not part of it. An episode
// still open when the capture ends is closed there (EndPacket 0, Open
// set). An episode's cost is its retransmitted wire bytes.
//
// Trigger: an episode is NAK-triggered when the peer flow sent a NAK or
// RNR NAK since the previous episode began (the earliest such NAK is
// cited); otherwise it is an inferred ACK timeout, and IdleGap is the time
// from the flow's previous tracked packet to the episode's first packet.
//
// Unseen gaps: a receiver acknowledges only what it received in order. So
// when the peer flow's highest ACKed PSN reaches the last PSN missing
// before a flow's last request gap, the peer sent no NAK and no request
// PSN came again, every gap of that flow holds PSNs the receiver got and
// the capture never held (the tool dropped packets, or sampled): no
// measure of loss either way, since a capture that misses packets may
// also miss a go-back-N resend and the NAK before it. PSNStats.Unseen is
// set, Analysis.UnseenFlows, UnseenGaps and UnseenPSNs sum them and a
// note says so.
//
// Packets with Reliable Datagram opcodes (0x40-0x5f: mlx5's DC transport
// sends them) count in their flows and in RDPackets, neither requests nor
// responses; their PSNs are not tracked, and a note says so.
//
// # PFC and PAUSE
//
// Each PFC frame from source MAC S with class-enable bit p set and quanta
// q counts for (S, p): Frames, XOFF (q > 0) or XON (q = 0), Quanta += q,
// and Requested += q·512 bit times at the link rate. 802.3x PAUSE frames
// count the same way under priority "all". Effective paused time is the
// measure of the union of intervals in which the deadline is set: a frame
// at time t sets paused-until = t + q·512/rate, replacing the previous
// deadline (a refresh extends it, q = 0 ends it at t). The last interval
// runs to its deadline even past the end of the capture. The link rate is
// Options.LinkSpeed, else the frame's pcapng interface if_speed, else
// unknown: then only frames and quanta are reported.
//
// # Timeline
//
// Each flow's wire bytes are summed in fixed bins of Options.Bin, counted
// from the first packet of the capture. Aligned with them, once a flow has
// any: its request PSN progress at the end of each bin (how far its
// highest request PSN has advanced past the first, wraps unrolled), and
// per bin the requests it retransmitted and the NAKs and CNPs it carried.
// Each pause sender counts its XOFF frames per bin the same way. When the
// bins of all flows and senders would exceed MaxBins, the width doubles
// (pairs of bins merge: counts add, the PSN progress keeps the later one)
// until they fit; Analysis.Bin reports the width used.
package capture
