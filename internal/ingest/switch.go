package ingest

import (
	"strconv"
	"strings"
)

// KindSwitch is the kind of SwitchCounters.
const KindSwitch Kind = "switch-counters"

// SwitchCounters is what a switch's CLI says about PFC, its watchdog,
// queues, buffers and ECN. It reads the SONiC tables (tabulate output: a
// header, a rule of dashes, rows):
//
//	show pfc counters / pfcstat         Port Rx|Tx  PFC0 ... PFC7
//	show pfcwd stats                    QUEUE STATUS STORM DETECTED/RESTORED TX OK/DROP RX OK/DROP ...
//	show queue counters                 Port TxQ Counter/pkts Counter/bytes Drop/pkts Drop/bytes
//	show queue counters --voq           Port Voq Counter/pkts ... (a VOQ chassis; system port keys)
//	show priority-group watermark ...   Ingress shared pool occupancy per PG: | Ingress headroom per PG:
//	show priority-group drop counters   Ingress PG dropped packets:
//	show queue [persistent-]watermark   Egress shared pool occupancy per unicast queue: | ... multicast queue: | ... all queues:
//	show pfc counters --history         Port Priority  RX Pause Transitions  Total RX Pause Time US ...
//	show queue wredcounters             Port TxQ WredDrp/pkts WredDrp/bytes EcnMarked/pkts EcnMarked/bytes
//	show pfc priority                   Interface  Lossless priorities
//	show interfaces counters / portstat IFACE STATE RX_OK ... RX_DRP RX_OVR TX_OK ... TX_DRP
//	show interfaces counters errors     IFACE STATE RX_ERR RX_DRP RX_OVR TX_ERR TX_DRP TX_OVR
//	show interfaces counters rates      IFACE STATE RX_OK RX_BPS RX_PPS RX_UTIL TX_OK ...
//	show interfaces counters detailed   "WRED Total Dropped Packets..... 101" (switch_detailed.go)
//	show dropcounters counts            IFACE STATE RX_ERR RX_DROPS TX_ERR TX_DROPS [configured counters]
//	show interfaces counters fec-histogram  Symbol Errors Per Codeword / Codewords (BIN0..BIN15)
//	show queue counters --trim          Port TxQ Trim/pkts TrimSent/pkts TrimDrop/pkts
//	EOS show hardware counter drop      Total Congestion (C) Drops: N; Type Chip CounterName : Count : ...
//	show interfaces counters fec-stats  IFACE STATE FEC_CORR FEC_UNCORR FEC_SYMBOL_ERR [FEC_PRE_BER FEC_POST_BER ...]
//	ecnconfig -l / show ecn             Profile: NAME, then key value rows
//	ecnconfig -q N [on|off]             ECN status: / queue N: on|off / Enable|Disable ECN on PORTS queue N
//
// Numbers may carry thousands separators; "N/A" cells are skipped. A
// title may end in the namespace of a multi-ASIC switch ("Ingress headroom
// per PG: (Namespace asic1)"), a line "For namespace asic1:" stand
// above the table, or the echoed command name it (-n asic1); PG columns are read by their header, which
// since SONiC 202205 lists only the configured PGs ("PG0 PG3 PG4"). A
// PG watermark table pasted without its title is read by its header and
// rule, its kind (shared or headroom) left unknown; a queue watermark
// table by its header alone, even with its rule lost to a blank line.
type SwitchCounters struct {
	Scoped
	artifactHead
	// Switch is the switch's name from a shell prompt ("admin@leaf1:~$"),
	// else "".
	Switch string
	PFC    []SwitchPFC
	WD     []WatchdogQueue
	Queues []QueueCount
	PGs    []PGWatermark
	// PGDrops are the ingress drops per priority group of `show
	// priority-group drop counters` (pg-drop), and per qos-group of Cisco
	// NX-OS `show queuing interface` (switch_nxos_queuing.go).
	PGDrops []PGDrop
	// WRED are the WRED drops and ECN marks per queue of `show queue
	// wredcounters`.
	WRED []QueueWRED
	// QueueWMs are the egress queues' peak occupancy of `show queue
	// watermark` (or persistent-watermark).
	QueueWMs []QueueWatermark
	// PFCHist is `show pfc counters --history`: pause received per port
	// and priority, with its duration.
	PFCHist []PFCHistory
	Ports   []PortCount
	// Ports are also the ports of EOS and NX-OS `show interfaces` and of
	// AOS-CX `show interface`.
	// FEC are the rows of `show interfaces counters fec-stats`.
	FEC []PortFEC
	// FECBins are the bins of `show interfaces counters fec-histogram`
	// (switch_fechist.go).
	FECBins []FECBin
	// Trims are the rows of `show queue counters --trim` (switch_trim.go).
	Trims []QueueTrim
	// NotPolled are the SONiC tables of which every count is N/A
	// (switch_unjudged.go); naRows counts the rows kept of them.
	NotPolled []NotPolled
	naRows    int
	// HWDrops are Arista EOS `show hardware counter drop`'s counters and
	// totals (switch_hwdrop.go).
	HWDrops []HWDrop
	ECN     []ECNProfile
	// ECNQueues are `ecnconfig -q`'s ECN on/off per queue index, read
	// or set (switch_ecnq.go).
	ECNQueues []ECNQueue
	// Pools are the buffer pools of `show buffer information` /
	// `mmuconfig -l`, with their peak occupancy from `show buffer_pool
	// watermark` and `show headroom-pool watermark`.
	Pools []BufferPool
	// Profiles are the buffer profiles (xon, xoff, size of lossless PGs).
	Profiles []BufferProfile
	// Neighbors are the LLDP neighbours of `show lldp table`.
	Neighbors []LLDPNeighbor
	// ASICPFC are PFC frame counts of an ASIC's own counter dump (the
	// Mellanox SDK's per-port dump: "Prio 3" then "rx_pause = 1234"),
	// to hold the CLI's counters against. Port is the ASIC's port id.
	ASICPFC []SwitchPFC
	// WDConfig are the rows of `show pfcwd config`: the watchdog's action
	// and times per port.
	WDConfig []WatchdogConfig
	// BigRedSwitch are `show pfcwd config`'s "BIG_RED_SWITCH status is
	// enable[ on asic0]" lines: the watchdog's emergency mode, per
	// namespace ("" on a single-ASIC switch).
	BigRedSwitch []BigRedSwitch
	// PFCPrios are the priorities a switch says PFC is enabled on (NVIDIA
	// Onyx `show roce`: "switch-priority 3: enabled"; SONiC `show pfc
	// priority`: any port's lossless priorities), with the lines.
	PFCPrios   []int
	PFCPrioEvs []Evidence
	// NVUERoCE is what NVIDIA Cumulus Linux's `nv show qos roce` says of
	// RoCE's classes (nil when no such table was read).
	NVUERoCE *NVUERoCE
	// EOSPFC are the ports of Arista EOS `show priority-flow-control`.
	EOSPFC []EOSPFCPort
	// NXOSPFC are the ports of Cisco NX-OS `show interface
	// priority-flow-control`; their RxPPP and TxPPP are in PFC.
	NXOSPFC []NXOSPFCPort
	// Omitted counts rows beyond the cap.
	Omitted int
	// Garbled holds an `nv show qos roce` table that began as NVUE prints
	// it and did not go on as it does: read by no rule, and said so.
	Garbled []Garble
	// CutRows are rows of a SONiC counter table that end short of its
	// columns (switch_cut.go): cut or wrapped in the paste.
	CutRows []Garble
	// UnplacedPFC are rows of a filtered `show pfc counters` that its row
	// order cannot place in the Rx or the Tx table (switch_grep.go).
	UnplacedPFC []Evidence
}

// SwitchPFC is the PFC frames a port received or sent on one priority.
type SwitchPFC struct {
	Port string
	Dir  Dir
	// Prio is the priority, or AllPrios for a count over every priority.
	Prio   int
	Frames uint64
	// Link is set for the pause counter of a port's `show interface(s)`
	// block (NX-OS "Rx pause", EOS "PAUSE input"; switch_iface.go): pause
	// frames not split by priority, Prio AllPrios.
	Link bool
	// Platform is the switch OS of the output (IOS XR, Comware, Huawei
	// VRP), "" for the others.
	Platform Platform
	// Global is set with Link when the counter is 802.3x global pause
	// only: Junos counts PFC frames apart ("MAC Priority Flow Control
	// Statistics"), so its "MAC pause frames" are never PFC.
	Global   bool
	Evidence Evidence
}

// Platform names the switch OS an output came from, for the switch OSes
// whose records no other field marks, so that a finding names that OS's
// own counters and commands.
type Platform string

// The switch OSes records are marked with.
const (
	IOSXR     Platform = "IOS XR"
	Comware   Platform = "Comware"
	HuaweiVRP Platform = "Huawei VRP"
)

// WatchdogQueue is one row of `show pfcwd stats`.
type WatchdogQueue struct {
	Port                   string
	Queue                  int
	Status                 string // "stormed", "operational", "N/A"
	Detected, Restored     uint64
	TxOK, TxDrop           uint64
	RxOK, RxDrop           uint64
	TxLastDrop, RxLastDrop uint64
	// Platform is the switch OS of the output, "" for SONiC's.
	Platform Platform
	Evidence Evidence
}

// BigRedSwitch is the watchdog's emergency mode as `show pfcwd config`
// prints it: "enable" or "disable", in a namespace.
type BigRedSwitch struct {
	Status, Namespace string
	Evidence          Evidence
}

// WatchdogConfig is one row of `show pfcwd config`; times in ms, -1 when
// not a number.
type WatchdogConfig struct {
	Port                   string
	Action                 string // "drop", "forward", "alert"
	Detection, Restoration int64
	Evidence               Evidence
}

// Running reports whether the watchdog runs on a queue: `show pfcwd stats`
// prints N/A as its status where it does not (stopped, or never started
// on that port).
func (w WatchdogQueue) Running() bool { return !strings.EqualFold(w.Status, "N/A") }

// QueueCount is one queue of `show queue counters`: an egress queue, or
// with --voq a VOQ chassis' ingress queue toward a system port.
type QueueCount struct {
	Port    string
	Queue   int
	Type    string // "UC", "MC", "ALL", or "VOQ" (a chassis' ingress queue toward Port)
	Packets uint64
	// PacketsNA is set when the switch printed the packets sent N/A
	// (Packets is then 0): a queue it does not count, not one idle.
	PacketsNA bool
	Bytes     uint64
	// DropPkts and DropBytes are -1 when printed N/A.
	DropPkts, DropBytes int64
	// Namespace is the ASIC a multi-ASIC switch's "For namespace asicN:"
	// names above the table: on a VOQ linecard every ASIC has its own
	// queues toward the same system port.
	Namespace string
	// QoSGroup is set for a Nexus 9000 qos-group's egress counters
	// (switch_nxos_cloudscale.go), Queue its group; DropType is what the
	// same output's ingress pause table says of the group ("no-drop" when
	// it has a pause buffer, "drop" when not), "" when it is not shown.
	QoSGroup bool
	DropType string
	// DropsApprox is set when DropPkts was read back from a count printed
	// with a unit (NVUE's tx-uc-buffer-discards, "75.19 KB" for 76993
	// frames): exact only to the digits shown.
	DropsApprox bool
	// EOS is set for Arista EOS's `show interfaces counters queue` rows
	// (switch_buffers.go): EOS keeps no queue lossless unless PFC is
	// configured, so SONiC's default lossless queues say nothing of them;
	// the priorities the same input's `show priority-flow-control` enables
	// do.
	EOS bool
	// OS10 is set for Dell OS10's `show queuing statistics` rows
	// (switch_os10.go): OS10 keeps no queue lossless unless configured, so
	// SONiC's default lossless queues say nothing of them.
	OS10 bool
	// Platform is HuaweiVRP for Huawei CloudEngine's `display qos queue
	// statistics` rows (switch_vrp_dcb.go), "" for the others: no queue is
	// lossless there unless configured, as on OS10.
	Platform Platform
	// Host is the switch the prompt above an OS10 or EOS table names: a
	// paste may hold two switches' tables for the same port
	// (`hound-dirt#`, then `fox-dirt#`).
	Host     string
	Evidence Evidence
}

// PGWatermark is the peak occupancy of one ingress priority group.
type PGWatermark struct {
	Port string
	PG   int
	// Headroom is set for headroom watermarks, clear for shared-pool ones
	// and for a table pasted without its title (Untitled).
	Headroom, Untitled bool
	Bytes              uint64
	Evidence           Evidence
}

// PortCount is one row of `show interfaces counters` (or its errors
// subcommand); -1 for N/A or a column the table does not print.
type PortCount struct {
	Port string
	// State is the STATE column: U (up), D (down), X (disabled), "" when
	// not printed.
	State                       string
	RxOK, RxErr, RxDrop, RxOver int64
	TxOK, TxErr, TxDrop, TxOver int64
	// CRC is the frames received with a bad CRC (EOS, NX-OS), -1 when
	// not printed.
	CRC int64
	// IOS is set for a port of `show interfaces` on EOS or NX-OS
	// (switch_iface.go), whose counters are named "input errors", "input
	// discards" and so on, not SONiC's RX_ERR and RX_DRP; Cleared is its
	// "Last clearing of counters" age as printed ("never", "63w1d").
	IOS     bool
	Cleared string
	// Platform is the switch OS of the output when its flags above do not
	// say it: IOS XR (whose `show interfaces` is IOS's with "total input
	// drops"), Comware, Huawei VRP.
	Platform Platform
	// ErrTable is set for a port of NX-OS and IOS `show interface
	// counters errors` and EOS `show interfaces counters errors`
	// (switch_errtable.go): its counters are named FCS-Err (FCS),
	// Rcv-Err (Rx), InDiscards, OutDiscards. Stomped is its
	// Stomped-CRC (NX-OS: frames a cut-through switch upstream marked
	// corrupt), 0 or -1 when not printed; StompedEvidence its row.
	ErrTable        bool
	Stomped         int64
	StompedEvidence Evidence
	// RxErrCol names the errors table's column of RxErr ("Rcv-Err",
	// EOS's "Rx").
	RxErrCol string
	// Cumulus is set for a port of NVIDIA Cumulus Linux: of `ethtool -S
	// swpN` (switch_cumulus.go), its counters switchd's HwIfInErrors,
	// HwIfInDiscards, HwIfOutDiscards and HwIfInDot3FrameErrors (CRC), or
	// of `cl-netstat`, RxErrCol "RX_ERR", its columns portstat's.
	Cumulus bool
	// AOSCX is set for a port of HPE Aruba AOS-CX `show interface`
	// (switch_aoscx.go), whose counters are its Packets, Dropped, Errors
	// and CRC/FCS, RX and TX; Runts and Giants its received frames too
	// short and too long (0 or -1 when not printed), and Members a LAG's
	// Aggregated-interfaces.
	AOSCX         bool
	Runts, Giants int64
	Members       []string
	// DropCounts is set for a port of SONiC `show dropcounters counts`,
	// whose drops are RX_DROPS and TX_DROPS; Detailed for one of `show
	// interfaces counters detailed` (switch_detailed.go).
	DropCounts, Detailed bool
	// Evidence is the row, or the block's line that shows its discards;
	// ErrEvidence the line that shows its errors; TxEvidence, in a
	// `show interfaces` block, the line of its output discards (zero
	// elsewhere: the row shows both).
	Evidence, ErrEvidence, TxEvidence Evidence
}

// ECNProfile is one WRED/ECN profile of `ecnconfig -l`, thresholds in
// bytes (-1 when absent).
type ECNProfile struct {
	Name                 string
	GreenMin, GreenMax   int64
	GreenDropProbability int64
	ECN                  string
	Evidence             []Evidence
	// MinName, MaxName and ProbName are the output's own names for the
	// thresholds and the marking probability (NVUE's min-threshold,
	// max-threshold, probability), Units how it writes them; empty for
	// ecnconfig's.
	MinName, MaxName, ProbName, Units string
	// Mode is the RoCE mode of Cumulus' `nv show qos roce` the
	// thresholds belong to (lossless, lossy, lossy-multi-tc, ...); empty
	// elsewhere.
	Mode string
}

// BufferPool is one shared buffer pool; sizes in bytes, -1 when not shown.
type BufferPool struct {
	Name string
	// Namespace is the ASIC of a multi-ASIC switch the pool is on, "" on
	// a single-ASIC one.
	Namespace  string
	Type, Mode string // "ingress"/"egress", "dynamic"/"static"
	Size       int64
	// Peak is the shared-pool watermark, HeadroomPeak that of the shared
	// headroom pool (ingress lossless pools).
	Peak, HeadroomPeak int64
	// NVUE is set for a pool of Cumulus' RoCE pool status (`nv show
	// interface qos-roce-status-pool-map`), whose peak is its max-usage.
	NVUE     bool
	Evidence []Evidence
}

// BufferProfile is one buffer profile; bytes, -1 when not shown.
type BufferProfile struct {
	Name, Pool string
	// Namespace is the ASIC of a multi-ASIC switch, as BufferPool's.
	Namespace       string
	Xon, Xoff, Size int64
	DynamicTh       int64
	Evidence        []Evidence
}

// LLDPNeighbor is one row of `show lldp table`: what is on the far end of
// a switch port. A Linux host running lldpd names its port by the netdev
// ("enp5s0f0") or describes it as "Interface 8 as enp5s0f0".
type LLDPNeighbor struct {
	Port, Device, PortID, PortDescr string
	Evidence                        Evidence
}

// Kind returns KindSwitch.
func (s *SwitchCounters) Kind() Kind { return KindSwitch }

// latestSnapshots keeps one row per port and queue (or priority, PG) of
// each table: a paste that holds the same table twice (before and after,
// or the command run twice) is two snapshots of one set of counters, and
// the later one is the current state. Rows keep their first-seen order.
func (o *SwitchCounters) latestSnapshots() {
	o.PFC = lastBy(o.PFC, func(r SwitchPFC) string {
		return r.Port + "|" + strconv.Itoa(int(r.Dir)) + "|" + strconv.Itoa(r.Prio) + "|" + strconv.FormatBool(r.Link)
	})
	o.WD = lastBy(o.WD, func(r WatchdogQueue) string { return r.Port + "|" + strconv.Itoa(r.Queue) })
	o.Queues = lastBy(o.Queues, func(r QueueCount) string {
		return r.Host + "|" + r.Namespace + "|" + r.Port + "|" + r.Type + "|" + strconv.Itoa(r.Queue)
	})
	o.PGs = lastBy(o.PGs, func(r PGWatermark) string {
		return r.Port + "|" + strconv.Itoa(r.PG) + "|" + strconv.FormatBool(r.Headroom) + strconv.FormatBool(r.Untitled)
	})
	o.QueueWMs = lastBy(o.QueueWMs, func(r QueueWatermark) string { return r.Port + "|" + r.Type + "|" + strconv.Itoa(r.Queue) })
	o.PFCHist = lastBy(o.PFCHist, func(r PFCHistory) string { return r.Port + "|" + strconv.Itoa(r.Prio) })
	o.PGDrops = lastBy(o.PGDrops, func(r PGDrop) string { return r.Port + "|" + strconv.Itoa(r.PG) })
	o.WRED = lastBy(o.WRED, func(r QueueWRED) string {
		return r.Namespace + "|" + strconv.Itoa(r.Part) + "|" + r.Port + "|" + r.Type + "|" + strconv.Itoa(r.Queue)
	})
	o.Trims = lastBy(o.Trims, func(r QueueTrim) string {
		return r.Namespace + "|" + strconv.FormatBool(r.Switch) + "|" + r.Port + "|" + r.Type + "|" + strconv.Itoa(r.Queue)
	})
	o.Ports = lastBy(o.Ports, func(r PortCount) string { return r.Port })
	o.WDConfig = lastBy(o.WDConfig, func(r WatchdogConfig) string { return r.Port })
}

// lastBy keeps, for each key, the last row with that key, at the place of
// the first.
func lastBy[T any](rows []T, key func(T) string) []T {
	if len(rows) < 2 {
		return rows
	}
	at := make(map[string]int, len(rows))
	out := rows[:0]
	for _, r := range rows {
		k := key(r)
		if i, ok := at[k]; ok {
			out[i] = r
			continue
		}
		at[k] = len(out)
		out = append(out, r)
	}
	return out
}
