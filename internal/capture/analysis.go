package capture

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"sort"

	"github.com/gopacket/gopacket/layers"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
	"rocelab/internal/wire"
)

// KindPcap is the ingest artifact kind of an analysed capture.
const KindPcap ingest.Kind = "pcap"

// Defaults and caps.
const (
	DefaultBin = 10 * unit.Microsecond
	// MaxBins caps the timeline bins summed over all flows.
	MaxBins = 1 << 16
	// MaxEpisodes caps the episodes listed per flow; counts go on.
	MaxEpisodes = 1000
	// maxErrors caps the decode errors kept as examples.
	maxErrors = 5
)

// Options tune an analysis.
type Options struct {
	// LinkSpeed converts pause quanta to time. Zero means: learn it from
	// the pcapng if_speed option, else leave pause times unknown.
	LinkSpeed unit.BitRate
	// Bin is the timeline bin width; zero means DefaultBin.
	Bin unit.Time
	// QPs and Flows select RoCE packets: by BTH destination QP, or by the
	// hosts at either end. With either set, pause frames are kept and
	// everything else is left out (counted in FilteredOut).
	QPs   []uint32
	Flows []FlowFilter
	// Count stops the analysis after this many packets (0: all), counting
	// those the filter keeps, as tcpdump -c does.
	Count int64
}

// FlowName names flow k as the report shows it: by host names when the
// capture gives them ("h0 > h17 qp 0x000101"), else by addresses.
func (a *Analysis) FlowName(k FlowKey) string {
	src, dst := k.Src.String(), k.Dst.String()
	if n, ok := a.names[k.Src]; ok {
		src = n
	}
	if n, ok := a.names[k.Dst]; ok {
		dst = n
	}
	return fmt.Sprintf("%s > %s qp 0x%06x", src, dst, k.QPN)
}

// FlowKey identifies a flow: one direction of a QP.
type FlowKey struct {
	Src netip.Addr `json:"src"`
	Dst netip.Addr `json:"dst"`
	QPN uint32     `json:"qpn"`
}

// String formats the key as "10.0.0.1 > 10.0.0.2 qp 0x000123".
func (k FlowKey) String() string { return fmt.Sprintf("%s > %s qp 0x%06x", k.Src, k.Dst, k.QPN) }

// Episode is one go-back-N retransmission episode (see the package doc).
type Episode struct {
	StartPacket int       `json:"start_packet"`
	EndPacket   int       `json:"end_packet"` // 0 when still open at the end
	Open        bool      `json:"open,omitempty"`
	Start       unit.Time `json:"start_ps"`
	End         unit.Time `json:"end_ps"`
	FirstPSN    uint32    `json:"first_psn"`
	HighestPSN  uint32    `json:"highest_psn"` // highest PSN sent before it
	Packets     int64     `json:"packets"`
	Bytes       int64     `json:"bytes"`
	// Trigger is "nak" or "timeout".
	Trigger     string    `json:"trigger"`
	NAKPacket   int       `json:"nak_packet,omitempty"`
	NAKSyndrome string    `json:"nak_syndrome,omitempty"`
	IdleGap     unit.Time `json:"idle_gap_ps,omitempty"` // timeouts only
}

// PSNStats are the PSN analysis of one sequence (requests or READ
// RESPONSEs) of a flow.
type PSNStats struct {
	Tracked          int64     `json:"tracked"`
	FirstPSN         uint32    `json:"first_psn"`
	HighestPSN       uint32    `json:"highest_psn"`
	Gaps             int64     `json:"gaps"`
	Missing          int64     `json:"missing"`
	Unseen           bool      `json:"gaps_unseen_by_capture,omitempty"` // the receiver acknowledged past every gap: the capture missed them (see unseenGaps)
	RetransPackets   int64     `json:"retransmitted_packets"`
	RetransBytes     int64     `json:"retransmitted_bytes"`
	EpisodeCount     int64     `json:"episode_count"`
	NAKEpisodes      int64     `json:"nak_episodes"`
	TimeoutEpisodes  int64     `json:"timeout_episodes"`
	Episodes         []Episode `json:"episodes"`
	EpisodesDropped  int64     `json:"episodes_not_listed,omitempty"`
	open             *Episode
	lastTime         unit.Time
	afterReadRequest bool
	progress         int64  // PSNs the highest PSN advanced past the first
	lastGapEnd       uint32 // the PSN that closed the last gap
}

// Flow is one direction of a QP and everything seen of it.
type Flow struct {
	Key        FlowKey `json:"key"`
	SrcMAC     string  `json:"src_mac"`
	DstMAC     string  `json:"dst_mac"`
	UDPSrcPort uint16  `json:"udp_src_port"`
	DSCP       uint8   `json:"dscp"`
	// PCP is the 802.1Q priority, or -1 when untagged.
	PCP         int       `json:"pcp"`
	FirstPacket int       `json:"first_packet"`
	LastPacket  int       `json:"last_packet"`
	First       unit.Time `json:"first_ps"`
	Last        unit.Time `json:"last_ps"`

	Packets      int64 `json:"packets"`
	Bytes        int64 `json:"bytes"`
	PayloadBytes int64 `json:"payload_bytes"`
	Requests     int64 `json:"requests"`
	Responses    int64 `json:"responses"`
	ACKs         int64 `json:"acks"`
	// NAKs counts the NAKs this flow carries, by syndrome name.
	NAKs      map[string]int64 `json:"naks"`
	CNPs      int64            `json:"cnps"`
	CE        int64            `json:"ce_marked"`
	ECT       int64            `json:"ect"`
	Truncated int64            `json:"truncated"`
	// ThroughputBps is Bytes·8 over Last − First (0 with one packet).
	ThroughputBps float64 `json:"throughput_bps"`

	Requester PSNStats `json:"request_psn"`
	Responder PSNStats `json:"read_response_psn"`

	// Peer is the paired reverse flow, if any.
	Peer *FlowKey `json:"peer,omitempty"`
	// NAKsReceived and CNPsReceived are the peer's NAKs and CNPs.
	NAKsReceived map[string]int64 `json:"naks_received"`
	CNPsReceived int64            `json:"cnps_received"`

	// Timeline holds wire bytes per bin from bin TimelineStart on.
	TimelineStart int     `json:"timeline_start_bin"`
	Timeline      []int64 `json:"timeline"`
	// Aligned with Timeline, absent until the flow has any: the request
	// PSN progress at the end of each bin (how far the highest request PSN
	// has advanced past the first, 24-bit wraps unrolled), the request
	// packets retransmitted in each bin, and the NAKs (RNR NAKs included)
	// and CNPs this flow carried in each bin.
	TimelinePSN  []int64 `json:"timeline_psn_progress,omitempty"`
	TimelineRetx []int64 `json:"timeline_retransmitted,omitempty"`
	TimelineNAKs []int64 `json:"timeline_naks,omitempty"`
	TimelineCNPs []int64 `json:"timeline_cnps,omitempty"`

	peer       *Flow
	pendingNAK *pendingNAK
	cur        int // the bin of the packet being accounted, in Timeline
	// ackedPSN is the highest PSN an ACK of this flow acknowledged, once
	// acked is set.
	ackedPSN uint32
	acked    bool
}

type pendingNAK struct {
	packet   int
	syndrome uint8
}

// PauseStats are the pause frames one MAC sent for one priority.
type PauseStats struct {
	SrcMAC string `json:"src_mac"`
	// Priority is "0".."7", or "all" for 802.3x PAUSE.
	Priority    string `json:"priority"`
	Frames      int64  `json:"frames"`
	XOFF        int64  `json:"xoff"`
	XON         int64  `json:"xon"`
	Quanta      int64  `json:"quanta"`
	FirstPacket int    `json:"first_packet"`
	// Requested and Effective are nil when the link rate is unknown.
	Requested *unit.Time `json:"requested_ps"`
	Effective *unit.Time `json:"effective_ps"`
	// LinkSpeed is the rate used to convert quanta (0: unknown).
	LinkSpeed unit.BitRate `json:"link_speed_bps"`
	// TimelineXOFF counts the XOFF frames (quanta > 0) per timeline bin
	// from bin TimelineStart on.
	TimelineStart int     `json:"timeline_start_bin"`
	TimelineXOFF  []int64 `json:"timeline_xoff,omitempty"`

	start, until unit.Time
	unknown      bool
}

// DecodeFailure is a packet that could not be decoded.
type DecodeFailure struct {
	Packet int    `json:"packet"`
	Error  string `json:"error"`
}

// Analysis is what a capture shows. It is an ingest.Artifact.
type Analysis struct {
	ingest.Scoped
	File      string       `json:"file"`
	Format    string       `json:"format"`
	Snaplen   int          `json:"snaplen"`
	LinkSpeed unit.BitRate `json:"link_speed_bps"`
	// LinkSpeedSource says where LinkSpeed came from: "option", "if_speed"
	// or "unknown".
	LinkSpeedSource string    `json:"link_speed_source"`
	Packets         int64     `json:"packets"`
	Bytes           int64     `json:"bytes"`
	Duration        unit.Time `json:"duration_ps"`
	Bin             unit.Time `json:"bin_ps"`

	RoCEPackets       int64            `json:"roce_packets"`
	MACControlPackets int64            `json:"mac_control_packets"`
	Other             map[string]int64 `json:"other"`
	TruncatedPackets  int64            `json:"truncated_packets"`
	DecodeErrors      int64            `json:"decode_errors"`
	ErrorExamples     []DecodeFailure  `json:"decode_error_examples"`
	BackwardTime      int64            `json:"timestamps_backwards"`

	// Truncated says where the capture breaks off inside a record (every
	// whole packet before it is analysed); nil when it ends cleanly.
	Truncated *Truncation `json:"truncated,omitempty"`
	// HostNames are the names the capture gives addresses (a pcapng Name
	// Resolution Block, as the twin writes), by address.
	HostNames map[string]string `json:"host_names,omitempty"`
	// Filter says what -c, --qp and --flow selected; FilteredOut counts
	// the packets they left out.
	Filter      string `json:"filter,omitempty"`
	FilteredOut int64  `json:"filtered_out,omitempty"`
	// Stopped is set when the analysis stopped at Options.Count packets.
	Stopped bool `json:"stopped_at_count,omitempty"`
	// Tunneled counts the packets decoded from inside a tunnel (a
	// switch's ERSPAN mirror session, GRE, VXLAN), by tunnel.
	Tunneled map[string]int64 `json:"tunneled,omitempty"`
	// MirrorCopies counts the ERSPAN packets left out as another tap's
	// copy of one already counted (see mirrorCopy).
	MirrorCopies int64 `json:"mirror_copies,omitempty"`
	// RoCEv1 counts RoCE v1 frames (EtherType 0x8915: GRH and BTH with no
	// IP or UDP header), counted as other traffic, not decoded; RoCEv1First
	// is the first one's packet number and RoCEv1Sources the source GIDs
	// of their GRHs (IPv4-mapped ones as IPv4), the first MaxRoCEv1Sources
	// seen.
	RoCEv1        int64        `json:"roce_v1_frames,omitempty"`
	RoCEv1First   int          `json:"roce_v1_first_packet,omitempty"`
	RoCEv1Sources []netip.Addr `json:"roce_v1_sources,omitempty"`
	// LinkHeaderAssumed counts the decoded packets that came without a
	// link-layer header (raw IP link types, Geneve carrying bare IP): their
	// wire lengths, and the byte counts and rates summed from them, count
	// an untagged 14-byte Ethernet header.
	LinkHeaderAssumed int64 `json:"link_header_assumed,omitempty"`
	// RDPackets counts the packets with Reliable Datagram opcodes (0x40
	// to 0x5f), which mlx5's DC transport sends: counted in their flows,
	// neither requests nor responses, their PSNs not tracked.
	RDPackets int64 `json:"rd_packets,omitempty"`
	// UnseenFlows, UnseenGaps and UnseenPSNs sum the request PSN gaps of
	// the flows whose gaps the capture missed (PSNStats.Unseen).
	UnseenFlows int   `json:"unseen_gap_flows,omitempty"`
	UnseenGaps  int64 `json:"unseen_gaps,omitempty"`
	UnseenPSNs  int64 `json:"unseen_psns,omitempty"`

	Flows []*Flow       `json:"flows"`
	Pause []*PauseStats `json:"pause"`
	LLDP  *LLDPSummary  `json:"lldp,omitempty"`
	Notes []string      `json:"notes"`

	opts    Options
	names   map[netip.Addr]string
	t0      int64
	started bool
	last    unit.Time
	flows   map[FlowKey]*Flow
	byPair  map[[2]netip.Addr][]*Flow
	cache   *Flow
	pauses  map[pauseKey]*PauseStats
	bins    int
	frame   wire.Frame
	// taps numbers the ERSPAN taps seen; mirror holds the recent ERSPAN
	// packets and their taps; tapRepeats counts the packets counted
	// again because one tap repeated them, copyCE the CE marks counted
	// from a copy (see mirrorCopy).
	taps       map[wire.Tap]uint32
	mirror     *recent
	tapRepeats int64
	copyCE     int64
	// pastTaps counts the ERSPAN packets from taps past the first maxTaps,
	// counted without looking for copies.
	pastTaps int64
	// mirrorCut counts the truncated RoCE packets an ERSPAN header's T
	// bit says the mirror cut (the others the snaplen cut).
	mirrorCut int64
}

type pauseKey struct {
	mac  [6]byte
	prio int8 // -1 for PAUSE
}

// Kind returns KindPcap.
func (a *Analysis) Kind() ingest.Kind { return KindPcap }

// Source returns the capture's name.
func (a *Analysis) Source() string { return a.File }

// Lines returns the number of packets, the unit a capture is made of.
func (a *Analysis) Lines() int { return int(a.Packets) }

// LinkSpeeds reports the pcapng if_speed, when the capture states one.
func (a *Analysis) LinkSpeeds() []ingest.LinkSpeed {
	if a.LinkSpeedSource != "if_speed" {
		return nil
	}
	return []ingest.LinkSpeed{{Rate: a.LinkSpeed, Evidence: ingest.Evidence{File: a.File, Text: "pcapng if_speed " + a.LinkSpeed.String()}}}
}

// Analyze reads a whole capture from r and analyses it. name is the
// input's display name. A capture that cannot be read at all, or whose
// records are corrupt, returns an error naming the file and what was
// expected. A capture that breaks off inside its last record (tcpdump
// killed, a copy cut) is analysed up to its last whole packet, and
// Truncated says where it ends.
func Analyze(name string, r io.Reader, opts Options) (*Analysis, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a := NewAnalysis(name, opts)
	a.Format = rd.Format()
	var p Packet
	nNames := 0
	for opts.Count <= 0 || a.Packets < opts.Count {
		err := rd.Next(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if rd.ng != nil && rd.ng.NNames() != nNames {
			a.names, nNames = rd.Names(), rd.ng.NNames()
		}
		a.Add(&p, rd.LinkSpeed(p.Iface))
	}
	a.Stopped = opts.Count > 0 && a.Packets >= opts.Count
	if !a.Stopped {
		a.Truncated = rd.Truncated()
	}
	a.names = rd.Names()
	a.Snaplen = rd.Snaplen()
	a.Finish()
	return a, nil
}

// NewAnalysis returns an empty analysis to feed with Add; Analyze does it
// for a file.
func NewAnalysis(name string, opts Options) *Analysis {
	if opts.Bin <= 0 {
		opts.Bin = DefaultBin
	}
	return &Analysis{
		File: name, opts: opts, Bin: opts.Bin, Other: map[string]int64{},
		flows: map[FlowKey]*Flow{}, byPair: map[[2]netip.Addr][]*Flow{}, pauses: map[pauseKey]*PauseStats{},
	}
}

// Add analyses one packet; ifSpeed is its interface's if_speed (0 if
// unknown). Packets must come in capture order with LinkType set (the
// Reader sets it; frames of other link types are counted, not decoded).
//
// With a filter (Options.QPs, Options.Flows), a packet it leaves out is
// only counted in FilteredOut; Add reports whether the packet was kept.
func (a *Analysis) Add(p *Packet, ifSpeed unit.BitRate) bool {
	f := &a.frame
	ethernet := p.LinkType == layers.LinkTypeEthernet
	var decodeErr error
	if ethernet {
		decodeErr = f.Decode(p.Data)
	}
	if a.opts.filtering() && !a.keep(f, ethernet && decodeErr == nil) {
		a.FilteredOut++
		return false
	}
	if !a.started {
		a.started, a.t0 = true, p.Time
	}
	if a.LinkSpeed == 0 {
		a.LinkSpeed = ifSpeed // the first interface that states one
	}
	t := unit.Time(-1) // before the first packet: counted as backwards
	if d := p.Time - a.t0; d > int64(unit.MaxTime/unit.Nanosecond) {
		t = unit.MaxTime // more than 106 days after the first packet
	} else if d >= 0 {
		t = unit.Time(d) * unit.Nanosecond
	}
	back := t < a.last
	if back {
		a.BackwardTime++
		t = a.last
	}
	a.last = t
	a.Packets++
	if !ethernet {
		a.Bytes += int64(p.Length)
		a.Other[linkTypeName(p.LinkType)]++
		return true
	}
	if decodeErr != nil {
		a.DecodeErrors++
		if len(a.ErrorExamples) < maxErrors {
			a.ErrorExamples = append(a.ErrorExamples, DecodeFailure{Packet: p.Num, Error: decodeErr.Error()})
		}
		a.Bytes += int64(p.Length)
		return true
	}
	if p.RawIP || f.BareIP {
		a.LinkHeaderAssumed++
	}
	if f.Tunnel != wire.TunnelNone {
		if a.Tunneled == nil {
			a.Tunneled = map[string]int64{}
		}
		a.Tunneled[f.Tunnel.String()]++
	}
	switch f.Kind {
	case wire.FrameRoCE:
		a.Bytes += int64(f.WireLen())
		if isCopy, ce := a.mirrorCopy(f, back); isCopy {
			if fl := a.flows[FlowKey{Src: f.SrcIP, Dst: f.DstIP, QPN: f.BTH.DestQP}]; ce && fl != nil {
				a.copyCE++
				fl.CE++
			}
			return true
		}
		a.RoCEPackets++
		a.addRoCE(p, t, f)
	case wire.FrameMACControl:
		a.MACControlPackets++
		a.Bytes += int64(f.WireLen())
		a.addMACControl(p, t, f, ifSpeed)
	default:
		a.Bytes += int64(p.Length)
		a.addOther(p, f)
	}
	return true
}

// Finish closes open episodes and pause intervals, pairs the peers'
// counts and sorts the results. Call it once after the last Add.
func (a *Analysis) Finish() {
	a.Duration = a.last
	for _, fl := range a.flows {
		a.Flows = append(a.Flows, fl)
		for _, s := range []*PSNStats{&fl.Requester, &fl.Responder} {
			if s.open != nil {
				s.open.Open, s.open.End = true, a.last
				s.open = nil
			}
		}
		if d := fl.Last - fl.First; d > 0 {
			fl.ThroughputBps = float64(fl.Bytes) * 8 / d.Seconds()
		}
	}
	sort.Slice(a.Flows, func(i, j int) bool { return a.Flows[i].FirstPacket < a.Flows[j].FirstPacket })
	for _, fl := range a.Flows {
		if fl.peer != nil {
			k := fl.peer.Key
			fl.Peer = &k
			fl.NAKsReceived = fl.peer.NAKs
			fl.CNPsReceived = fl.peer.CNPs
		}
		if fl.NAKsReceived == nil {
			fl.NAKsReceived = map[string]int64{}
		}
		a.unseenGaps(fl)
	}
	for _, ps := range a.pauses {
		ps.close()
		a.Pause = append(a.Pause, ps)
	}
	sort.Slice(a.Pause, func(i, j int) bool {
		if a.Pause[i].SrcMAC != a.Pause[j].SrcMAC {
			return a.Pause[i].SrcMAC < a.Pause[j].SrcMAC
		}
		return a.Pause[i].Priority < a.Pause[j].Priority
	})
	a.setLinkSpeedSource()
	a.Filter = a.opts.describeFilter()
	if len(a.names) > 0 {
		a.HostNames = map[string]string{}
		for ip, n := range a.names {
			a.HostNames[ip.String()] = n
		}
	}
	a.Notes = a.notes()
	if a.Flows == nil {
		a.Flows = []*Flow{}
	}
	if a.Pause == nil {
		a.Pause = []*PauseStats{}
	}
}

func (a *Analysis) setLinkSpeedSource() {
	switch {
	case a.opts.LinkSpeed > 0:
		a.LinkSpeed, a.LinkSpeedSource = a.opts.LinkSpeed, "option"
	case a.LinkSpeed > 0:
		a.LinkSpeedSource = "if_speed"
	default:
		a.LinkSpeedSource = "unknown"
	}
}

// etherTypeRoCEv1 is the EtherType of RoCE v1 (IBTA RoCE annex A16).
const etherTypeRoCEv1 = 0x8915

// MaxRoCEv1Sources caps the source GIDs of RoCE v1 frames kept.
const MaxRoCEv1Sources = 8

// addRoCEv1 counts the RoCE v1 frame grh (its GRH onward) of packet num
// and keeps its source GID (GRH bytes 8-23).
func (a *Analysis) addRoCEv1(num int, grh []byte) {
	if a.RoCEv1++; a.RoCEv1First == 0 {
		a.RoCEv1First = num
	}
	if len(grh) < 24 || len(a.RoCEv1Sources) >= MaxRoCEv1Sources {
		return
	}
	gid := netip.AddrFrom16([16]byte(grh[8:24])).Unmap()
	if !slices.Contains(a.RoCEv1Sources, gid) {
		a.RoCEv1Sources = append(a.RoCEv1Sources, gid)
	}
}

func (a *Analysis) addOther(p *Packet, f *wire.Frame) {
	name := fmt.Sprintf("ethertype 0x%04x", f.EtherType)
	switch {
	case f.EtherType == 0x88cc:
		name = "LLDP"
		if a.LLDP == nil {
			a.LLDP = &LLDPSummary{}
		}
		a.LLDP.add(p.Num, p.Data[f.L2Len:], f.SrcMAC)
	case f.EtherType == etherTypeRoCEv1:
		name = "RoCE v1 (EtherType 0x8915)"
		a.addRoCEv1(p.Num, p.Data[f.L2Len:])
	case f.EtherType < 0x0600:
		name = "802.3 length frame (LLC)"
	case f.IPVersion != 0 && f.DstPort != 0:
		name = fmt.Sprintf("IPv%d UDP", f.IPVersion)
	case f.IPVersion != 0:
		name = fmt.Sprintf("IPv%d", f.IPVersion)
	case f.EtherType == 0x0806:
		name = "ARP"
	}
	a.Other[name]++
}

func macString(m [6]byte) string { return net.HardwareAddr(m[:]).String() }
