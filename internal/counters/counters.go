// Package counters is the one table of NIC and switch counter names that
// rocelab speaks: the names mlx5 (and bnxt_en, be2net, ionic) print in ethtool -S,
// the RDMA hw_counters and port counters under /sys/class/infiniband (of
// mlx5, mana_ib, irdma, bnxt_re and AWS's efa; ice's ethtool -S beside
// them), and the twin's switch-port counters. The twin writes its counters through
// this table, the doctor reads dumps through it, and the exporter turns
// names into metrics with it, so a name is spelled in one place.
//
// A Desc describes one counter: where it is read (Source), which driver
// prints it (Vendor), what it measures (Concept, Dir), whether it exists
// once per priority (its Name then holds %d), and its unit. Lookup parses a
// concrete name back to its Desc and priority.
package counters

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Source says where a counter is read.
type Source uint8

// Sources.
const (
	// Ethtool is `ethtool -S <netdev>` (the ETHTOOL_GSTATS ioctl).
	Ethtool Source = iota
	// HWCounters is /sys/class/infiniband/<dev>/ports/<p>/hw_counters/.
	HWCounters
	// PortCounters is /sys/class/infiniband/<dev>/ports/<p>/counters/ (the
	// IB port counters; port_*_data are in 4-byte words).
	PortCounters
	// SwitchPort is a switch port's counters as the twin reports them.
	SwitchPort
)

// String returns the source's name as engineers say it.
func (s Source) String() string {
	switch s {
	case Ethtool:
		return "ethtool"
	case HWCounters:
		return "hw_counters"
	case PortCounters:
		return "counters"
	case SwitchPort:
		return "switch"
	}
	return "source?"
}

// Vendor is the driver whose name a Desc is.
type Vendor uint8

// Vendors.
const (
	MLX5 Vendor = iota
	BNXT
	BE2NET
	// MANA is Azure's Microsoft Azure Network Adapter RDMA driver
	// (mana_ib).
	MANA
	// ICE is Intel's E810 Ethernet driver (ice); IRDMA its RDMA driver.
	ICE
	IRDMA
	// BNXTRE is Broadcom's RDMA driver (bnxt_re) beside bnxt_en.
	BNXTRE
	// EFA is AWS's Elastic Fabric Adapter RDMA driver (efa): SRD, not
	// RoCE.
	EFA
	// IONIC is AMD's Pensando Ethernet driver (ionic): the DSC cards and
	// the Pollara AI NICs.
	IONIC
	// Standard marks the IEEE 802.3 statistics every driver may report
	// through the kernel's ethtool netlink API (`ethtool -S IF --groups
	// eth-phy eth-mac`, Linux 5.13 on), whichever driver the port has.
	Standard
	// Netdev marks the kernel's own statistics of every network device
	// (struct rtnl_link_stats64), which `ip -s link` prints and many
	// drivers' ethtool -S repeat, whichever driver the port has.
	Netdev
	// Twin marks names only the twin prints (switch-side counters).
	Twin
)

// String returns the driver name.
func (v Vendor) String() string {
	switch v {
	case MLX5:
		return "mlx5"
	case BNXT:
		return "bnxt_en"
	case BE2NET:
		return "be2net"
	case MANA:
		return "mana_ib"
	case ICE:
		return "ice"
	case IRDMA:
		return "irdma"
	case BNXTRE:
		return "bnxt_re"
	case EFA:
		return "efa"
	case IONIC:
		return "ionic"
	case Standard:
		return "ethtool-std"
	case Netdev:
		return "netdev"
	case Twin:
		return "rocelab"
	}
	return "vendor?"
}

// VendorNamed returns the vendor whose driver is named name, as `ethtool
// -i` prints it ("mlx5_core" is mlx5's); false for a driver the table
// does not know.
func VendorNamed(name string) (Vendor, bool) {
	if name == "mlx5_core" {
		return MLX5, true
	}
	for v := MLX5; v < Twin; v++ {
		if name != "" && v.String() == name {
			return v, true
		}
	}
	return 0, false
}

// VendorOfDevice returns the RDMA driver that named device dev, by the
// name it registers its devices under (ib_register_device's format):
// mlx5_%d and mlx5_bond_%d (mlx5_ib), bnxt_re%d and bnxt_re_bond%d (the
// out-of-tree bnxt_re's bonded devices), irdma%d, ionic_%d (ionic_rdma), efa_%d
// and mana_%d. A device udev renamed after its netdev (rocep1s0f0) does
// not say; false for it and for drivers the table does not know.
func VendorOfDevice(dev string) (Vendor, bool) {
	for _, d := range []struct {
		prefix string
		v      Vendor
	}{{"mlx5_bond_", MLX5}, {"mlx5_", MLX5}, {"bnxt_re_bond", BNXTRE}, {"bnxt_re", BNXTRE}, {"irdma", IRDMA}, {"ionic_", IONIC}, {"efa_", EFA}, {"mana_", MANA}} {
		if rest, ok := strings.CutPrefix(dev, d.prefix); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return d.v, true
		}
	}
	return 0, false
}

// Dir is the direction a counter counts, when it has one.
type Dir uint8

// Directions.
const (
	NoDir Dir = iota
	RX
	TX
)

// String returns "rx", "tx" or "".
func (d Dir) String() string {
	switch d {
	case RX:
		return "rx"
	case TX:
		return "tx"
	}
	return ""
}

// Unit is what one count of a counter is.
type Unit uint8

// Units.
const (
	Packets Unit = iota
	Bytes
	Microseconds
	// Words4 is 4-byte words (IB port_xmit_data / port_rcv_data).
	Words4
	// Events counts occurrences (errors, transitions, CNPs handled).
	Events
)

// String returns the unit's name.
func (u Unit) String() string {
	switch u {
	case Packets:
		return "packets"
	case Bytes:
		return "bytes"
	case Microseconds:
		return "microseconds"
	case Words4:
		return "4-byte words"
	case Events:
		return "events"
	}
	return "unit?"
}

// Concept is what a counter measures, independent of the driver that names
// it. Rules and metrics key on concepts.
type Concept string

// Concepts. The comment says what one count means.
const (
	PhyPackets            Concept = "phy_packets"             // frames on the physical port
	PhyBytes              Concept = "phy_bytes"               // frame bytes on the physical port
	PhyDiscards           Concept = "phy_discards"            // frames the port dropped for want of buffer
	PrioPackets           Concept = "prio_packets"            // frames on one priority
	PrioBytes             Concept = "prio_bytes"              // frame bytes on one priority
	PrioDiscards          Concept = "prio_discards"           // frames dropped on one priority
	PrioBufDiscards       Concept = "prio_buf_discards"       // unicast frames one priority dropped for want of receive buffer
	PrioCongDiscards      Concept = "prio_cong_discards"      // frames one priority dropped by WRED (congestion)
	PrioHostECNMarked     Concept = "prio_host_ecn_marked"    // frames of one priority the NIC itself marked ECN CE, its host's receive buffer congested
	PauseFrames           Concept = "pause_frames"            // PFC frames on one priority (XON included)
	PauseDuration         Concept = "pause_duration"          // time one priority was paused
	PauseTransition       Concept = "pause_transition"        // pause episodes begun on one priority
	PFCFramesTotal        Concept = "pfc_frames_total"        // PFC frames over all priorities
	GlobalPause           Concept = "global_pause"            // IEEE 802.3x link-level pause frames
	GlobalPauseDuration   Concept = "global_pause_duration"   // time the link was held by 802.3x pause
	OutOfBufferHost       Concept = "rx_out_of_buffer"        // packets dropped because the host's receive queue was empty
	BufferPassedThreshold Concept = "buffer_passed_threshold" // port buffer crossed its congestion threshold
	PauseStormWarning     Concept = "pause_storm_warning"     // the NIC saw itself pausing for too long
	PauseStormError       Concept = "pause_storm_error"       // the NIC's own watchdog stopped its pause storm
	RDMAUnicastPackets    Concept = "rdma_unicast_packets"    // RoCE packets through the vport
	RDMAUnicastBytes      Concept = "rdma_unicast_bytes"      // RoCE bytes through the vport
	VportUnicastPackets   Concept = "vport_unicast_packets"   // unicast packets through the vport (Ethernet and RoCE)
	NetdevPackets         Concept = "netdev_packets"          // packets the netdev's rings handled (software count; RDMA bypasses it)
	GlobalPauseQoS        Concept = "global_pause_qos"        // IEEE 802.3x pause frames as mlx5's QoS group counts them (printed only with 802.3x on)

	CNPSent            Concept = "np_cnp_sent"                // CNPs sent as notification point
	ECNMarkedRoCE      Concept = "np_ecn_marked_roce_packets" // RoCE packets received with ECN CE
	CNPHandled         Concept = "rp_cnp_handled"             // CNPs received that cut a QP's rate
	CNPIgnored         Concept = "rp_cnp_ignored"             // CNPs received and ignored
	OutOfSequence      Concept = "out_of_sequence"            // responder saw a PSN gap
	PacketSeqErr       Concept = "packet_seq_err"             // requester received NAK-sequence errors
	LocalAckTimeoutErr Concept = "local_ack_timeout_err"      // requester ACK timeouts
	ImpliedNakSeqErr   Concept = "implied_nak_seq_err"        // requester inferred a NAK
	DuplicateRequest   Concept = "duplicate_request"          // responder received a retransmitted request
	RNRNakRetryErr     Concept = "rnr_nak_retry_err"          // RNR NAKs received (each a retry; mlx5 counts every one)
	RespOutOfBuffer    Concept = "out_of_buffer"              // responder had no receive WQE
	ReqCQEError        Concept = "req_cqe_error"              // requester completions with error
	ReqCQEFlushError   Concept = "req_cqe_flush_error"        // requester completions flushed
	RespCQEError       Concept = "resp_cqe_error"             // responder completions with error
	RespCQEFlushError  Concept = "resp_cqe_flush_error"       // responder completions flushed
	RxWriteRequests    Concept = "rx_write_requests"          // RDMA WRITE requests received
	RxReadRequests     Concept = "rx_read_requests"           // RDMA READ requests received
	RxAtomicRequests   Concept = "rx_atomic_requests"         // atomic requests received
	AdpRetrans         Concept = "roce_adp_retrans"           // adaptive retransmissions
	AdpRetransTimeout  Concept = "roce_adp_retrans_to"        // adaptive retransmission timeouts
	SlowRestart        Concept = "roce_slow_restart"          // slow restarts after repeated loss
	SlowRestartCNPs    Concept = "roce_slow_restart_cnps"     // CNPs during slow restart
	SlowRestartTrans   Concept = "roce_slow_restart_trans"    // transitions into slow restart
	RoCEDiscards       Concept = "roce_discards"              // RoCE packets the NIC's RoCE function discarded (bnxt_re)
	RoCEErrors         Concept = "roce_errors"                // RoCE packets the NIC's RoCE function received or sent bad (bnxt_re)

	// NAKs a responder sent, where the driver counts them apart from the
	// packets that caused them (ionic): each is a requester's
	// packet_seq_err, req_remote_invalid_request or remote operational
	// error on the other side of the QP.
	RespSeqErrNakSent      Concept = "resp_seq_err_nak_sent"       // NAK-sequence errors sent for packets out of sequence
	RespInvalidReqNakSent  Concept = "resp_invalid_req_nak_sent"   // invalid request NAKs sent
	RespRemoteOpErrNakSent Concept = "resp_remote_op_err_nak_sent" // remote operational error NAKs sent

	// AWS EFA's SRD transport (hw_counters of the efa driver): packets the
	// device received and dropped, SRD retransmissions and the events
	// that degrade or break a connection, and work requests that failed.
	EFARxDrops            Concept = "efa_rx_drops"               // packets the EFA device received and then dropped
	SRDRetransPackets     Concept = "srd_retrans_pkts"           // SRD packets retransmitted
	SRDRetransTimeouts    Concept = "srd_retrans_timeout_events" // SRD timeouts that moved a flow to another network path
	SRDUnresponsiveRemote Concept = "srd_unresponsive_remote"    // SRD remote connections that stopped answering
	SRDImpairedRemote     Concept = "srd_impaired_remote_conn"   // SRD connections rate-limited as impaired
	EFARDMAReadWRErrors   Concept = "efa_rdma_read_wr_err"       // RDMA READ work requests that failed (local or remote error)
	EFARDMAWriteWRErrors  Concept = "efa_rdma_write_wr_err"      // RDMA WRITE work requests that failed (local or remote error)

	// ReqTransportRetriesExceeded counts requester QPs that ran out of
	// retry_cnt (IBV_WC_RETRY_EXC_ERR: the connection is gone);
	// ReqRNRRetriesExceeded those that ran out of rnr_retry.
	ReqTransportRetriesExceeded Concept = "req_transport_retries_exceeded"
	ReqRNRRetriesExceeded       Concept = "req_rnr_retries_exceeded"

	PortXmitData    Concept = "port_xmit_data"    // IB port: data sent, in 4-byte words
	PortRcvData     Concept = "port_rcv_data"     // IB port: data received, in 4-byte words
	PortXmitPackets Concept = "port_xmit_packets" // IB port: packets sent
	PortRcvPackets  Concept = "port_rcv_packets"  // IB port: packets received
	PortXmitDiscard Concept = "port_xmit_discards"
	PortRcvErrors   Concept = "port_rcv_errors"

	ECNMarkedPrio Concept = "ecn_marked"         // switch: packets marked CE on one egress priority
	DropReason    Concept = "drop"               // switch: packets dropped, by reason (Name holds the reason)
	WDStorms      Concept = "pfcwd_storms"       // switch: PFC watchdog storms declared on one priority
	WDRestores    Concept = "pfcwd_restores"     // switch: PFC watchdog restorations on one priority
	Retransmitted Concept = "retransmitted_pkts" // data packets a NIC sent again (the twin's go-back-N, ionic's tx_rdma_retx_pkts)
)

// Desc describes one counter name.
type Desc struct {
	// Name is the counter's name; for a per-priority counter it holds one
	// %d for the priority, e.g. "rx_prio%d_pause".
	Name    string
	Vendor  Vendor
	Source  Source
	Concept Concept
	Dir     Dir
	PerPrio bool
	Unit    Unit
	// Origin is where the kernel or driver source spells the name:
	// "<tree> <file>:<line> <token>" and the substitutions "old=new" that
	// turn the token into Name; empty for names only the twin prints.
	Origin string
	// Renamed marks a later name of a concept the driver renamed (bnxt_en's
	// rx_total_discard_pkts is rx_total_ring_discards from Linux 6.6 on):
	// Lookup reads it, while Find and Name keep giving the earlier name,
	// the one listed first.
	Renamed bool
	// Common marks a name other drivers print too (ice's rx_dropped, the
	// VSI's drops, is also i40e's and a netdev statistic of others): it is
	// read as its concept whatever the driver, but it does not say which
	// driver printed the dump.
	Common bool
	// Sometimes marks a name only some firmware of the driver prints
	// (ionic's tx_rdma_ack_timeout is the Pollara AI NICs', not the DSC
	// cards'): a dump of that driver without it does not count the
	// concept.
	Sometimes bool
	// Optional marks one of mlx5's optional hw_counters (the cc_* ones
	// Linux 5.16 on; rdma_{rx,tx}_{packets,bytes} upstream since 2025,
	// torvalds/linux drivers/infiniband/hw/mlx5/counters.c packets_op_cnts),
	// enabled with `rdma statistic set link DEV/PORT optional-counters
	// NAMES`: the driver prints it only when asked to, beside the name it
	// always prints for the concept when it has one. Lookup reads it; Find
	// and Name never give it, so a dump without it neither counts the
	// concept nor names it.
	Optional bool
	// Also marks a second name a driver prints for a concept beside the
	// one listed first, which a dump may hold alone (bnxt_re's
	// rx_roce_good_pkts, the RoCE packets it received good, beside its
	// extended statistics' rx_roce_only_pkts, Linux 6.1 printing only
	// rx_roce_good_pkts; mlx5's rx_pcs_symbol_err_phy beside
	// rx_symbol_err_phy, what a paste grepped for FEC keeps): Lookup reads
	// it and a reader tries it after the first, which New requires the
	// table to list before it; Find and Name give the first.
	Also bool

	// byPrio holds the concrete names of priorities 0-7 of a per-priority
	// counter in a Table, spelled once when the table is built: the twin
	// names every counter of every port at each observation.
	byPrio *[8]string
}

// Of returns the concrete name for priority prio (ignored unless PerPrio).
func (d *Desc) Of(prio int) string {
	switch {
	case !d.PerPrio:
		return d.Name
	case d.byPrio != nil && prio >= 0 && prio < len(d.byPrio):
		return d.byPrio[prio]
	}
	return strings.Replace(d.Name, "%d", strconv.Itoa(prio), 1)
}

// Table is an immutable index of counter descriptions. Build one with New
// (or use Default) and share it; it is safe for concurrent reads.
type Table struct {
	descs []Desc
	// byName holds the descriptions of each concrete name, in table
	// order: more than one only where drivers of different sources spell
	// the same name (mlx5's ethtool rx_out_of_buffer, the host's receive
	// rings; bnxt_re's hw_counters rx_out_of_buffer, its RDMA responders).
	byName map[string][]entry
	byKey  map[key]int
}

type entry struct {
	desc int
	prio int
}

type key struct {
	v Vendor
	s Source
	c Concept
	d Dir
}

// New indexes descs. Two descriptions that expand to the same concrete
// name at the same source, or that share vendor, source, concept and
// direction, are an error.
func New(descs []Desc) (*Table, error) {
	total, perPrio := 0, 0 // concrete names, counted with their repeats; per-priority descriptions
	for i := range descs {
		total++
		if descs[i].PerPrio {
			total += 7
			perPrio++
		}
	}
	// The maps are sized once, a name's first entry is cut from one array
	// and a per-priority description's eight names from another: most names
	// have one description, and growing the maps and a slice per name was a
	// third of the table's construction.
	t := &Table{descs: descs, byName: make(map[string][]entry, total), byKey: make(map[key]int, len(descs))}
	firsts := make([]entry, total)
	prios := make([][8]string, perPrio)
	for i := range descs {
		d := &descs[i]
		if d.PerPrio != strings.Contains(d.Name, "%d") {
			return nil, fmt.Errorf("counters: %q: PerPrio %v does not match the name", d.Name, d.PerPrio)
		}
		n := 1
		var names *[8]string
		if d.PerPrio {
			n, names, prios = 8, &prios[0], prios[1:]
		}
		for p := 0; p < n; p++ {
			name := d.Of(p)
			if names != nil {
				names[p] = name
			}
			es := t.byName[name]
			for _, e := range es {
				if descs[e.desc].Source == d.Source {
					return nil, fmt.Errorf("counters: %q is described twice", name)
				}
			}
			if es != nil {
				t.byName[name] = append(es, entry{desc: i, prio: p})
				continue
			}
			firsts[0] = entry{desc: i, prio: p}
			t.byName[name], firsts = firsts[:1:1], firsts[1:]
		}
		if names != nil {
			d.byPrio = names
		}
		k := key{d.Vendor, d.Source, d.Concept, d.Dir}
		if _, first := t.byKey[k]; d.Also && !first {
			// Readers try a concept's names in table order (NamesIn).
			return nil, fmt.Errorf("counters: %q, a second name, is listed before its concept's first", d.Name)
		}
		if d.Concept == DropReason || d.Renamed || d.Optional || d.Also {
			continue // one concept, several names, told apart by name
		}
		if _, dup := t.byKey[k]; dup {
			return nil, fmt.Errorf("counters: %s %s %s %s is described twice", d.Vendor, d.Source, d.Concept, d.Dir)
		}
		t.byKey[k] = i
	}
	return t, nil
}

// Lookup returns the description of a concrete counter name and the
// priority it is for (-1 when the counter is not per priority). Where two
// sources print the name, it is the first the table lists; LookupIn picks
// by source.
func (t *Table) Lookup(name string) (*Desc, int, bool) {
	es := t.byName[name]
	if len(es) == 0 {
		return nil, 0, false
	}
	return t.at(es[0])
}

// LookupIn is Lookup for a name read from src: where drivers of several
// sources print the name, the description of src's (the first listed when
// none is src's); else the name's only description, whatever its source.
func (t *Table) LookupIn(src Source, name string) (*Desc, int, bool) {
	es := t.byName[name]
	if len(es) == 0 {
		return nil, 0, false
	}
	for _, e := range es {
		if t.descs[e.desc].Source == src {
			return t.at(e)
		}
	}
	return t.at(es[0])
}

// Completion returns the one name src's drivers print that starts with
// prefix, for a name a fixed-width column cut ("local_ack_timeout_er" of
// printf's "%-20.20s"); false when none or several do.
func (t *Table) Completion(src Source, prefix string) (string, bool) {
	found := ""
	for name, es := range t.byName {
		if !strings.HasPrefix(name, prefix) || !slices.ContainsFunc(es, func(e entry) bool { return t.descs[e.desc].Source == src }) {
			continue
		}
		if found != "" {
			return "", false
		}
		found = name
	}
	return found, found != ""
}

// at returns an entry's description and priority (-1 when the counter is
// not per priority).
func (t *Table) at(e entry) (*Desc, int, bool) {
	d := &t.descs[e.desc]
	if !d.PerPrio {
		return d, -1, true
	}
	return d, e.prio, true
}

// Find returns the description of a concept as vendor names it at source.
func (t *Table) Find(v Vendor, s Source, c Concept, dir Dir) (*Desc, bool) {
	i, ok := t.byKey[key{v, s, c, dir}]
	if !ok {
		return nil, false
	}
	return &t.descs[i], true
}

// Name returns the concrete name of a concept as vendor names it at
// source, for priority prio. It panics when the table has no such counter:
// a writer asking for a name it does not describe is a programming error.
func (t *Table) Name(v Vendor, s Source, c Concept, dir Dir, prio int) string {
	d, ok := t.Find(v, s, c, dir)
	if !ok {
		panic(fmt.Sprintf("counters: no %s %s name for %s %s", v, s, dir, c))
	}
	return d.Of(prio)
}

// NamesIn returns the concrete names of a concept in dir, for priority
// prio, that mean that concept when read from src (LookupIn), mlx5 first:
// what a reader of a dump from src tries in turn. A name another source's
// driver spells for another concept (bnxt_re's hw_counters
// rx_out_of_buffer is not mlx5's ethtool one) is left out.
func (t *Table) NamesIn(src Source, c Concept, dir Dir, prio int) []string {
	var out []string
	for i := range t.descs {
		if d := &t.descs[i]; d.Concept == c && d.Dir == dir {
			if n := d.Of(prio); t.means(src, n, c) {
				out = append(out, n)
			}
		}
	}
	return out
}

// AllNamesIn is NamesIn over every direction and priority of several
// concepts: concept by concept, each in table order, a per-priority
// counter's priorities in turn.
func (t *Table) AllNamesIn(src Source, cs ...Concept) []string {
	var out []string
	for _, c := range cs {
		for i := range t.descs {
			d := &t.descs[i]
			if d.Concept != c {
				continue
			}
			n := 1
			if d.PerPrio {
				n = 8
			}
			for p := 0; p < n; p++ {
				if name := d.Of(p); t.means(src, name, c) {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// means reports whether name, read from src, is a counter of concept c.
func (t *Table) means(src Source, name string, c Concept) bool {
	d, _, ok := t.LookupIn(src, name)
	return ok && d.Concept == c
}

// All returns every description, in table order.
func (t *Table) All() []Desc { return t.descs }

// Default returns the built-in table (see table.go).
func Default() *Table { return defaultTable() }

// A Sample is one counter's value under the name a tool prints it by
// (ethtool -S, hw_counters): the fabric writes it and an observation
// carries it as it is.
type Sample struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}
