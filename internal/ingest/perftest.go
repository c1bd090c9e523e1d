package ingest

import (
	"slices"

	"rocelab/internal/unit"
)

// Perftest is the output of perftest's ib_write_bw, ib_read_bw, ib_send_bw,
// ib_atomic_bw and ib_*_lat: per run the test, the banner (device, QPs,
// connection, MTU, link type, GID index, TX depth, ...), the local and
// remote address lines with their GIDs, the result table, and failures.
//
// It also reads the Markdown summary tables engineers make from perftest
// sweeps ("| Data Size (B) | ib_write_bw (MB/s) | ... | Peak (Gbps) |"); their
// runs are marked Summary.
//
// perftest prints MB/sec in units of 2^20 bytes per second (newer versions
// say MiB/sec) and Gb/sec (--report_gbits) in 10^9 bits per second; both are
// stored as unit.BitRate.
type Perftest struct {
	Scoped
	artifactHead
	// Runs are the test runs in input order.
	Runs []PerftestRun
	// Omitted counts runs or rows dropped by the memory caps.
	Omitted int
	// Garbled are result rows that begin as perftest prints them (bytes,
	// iterations, as many cells as the header names) with a cell that is
	// not a non-negative number: edited in transit, or a figure perftest
	// itself printed wrong (a negative BW average).
	Garbled []Garble
}

// Caps for Perftest.
const (
	maxPerftestRuns = 1024
	maxPerftestRows = 4096
)

// A PerftestRun is one test: a banner, its addresses, results and failures.
type PerftestRun struct {
	Test          string // canonical tool name, e.g. "ib_write_bw"
	Title         string // e.g. "RDMA_Write Bidirectional BW Test"
	Latency       bool
	Bidirectional bool
	// Summary marks a run read from an author-made summary table rather
	// than raw perftest output.
	Summary bool
	Host    string // from the shell prompt, when shown
	Peer    string // the server the client ran against, when the command shows it
	Device  string
	QPs     int
	// Transport is "IB" for both InfiniBand and RoCE; LinkType tells them
	// apart ("Ethernet" is RoCE).
	Transport  string
	Connection string // RC, UC, UD, ...
	MTU        int    // bytes; the RoCE path MTU, not the Ethernet MTU
	LinkType   string
	// ForcedLink is the link layer --force-link named on the command line
	// ("IB", "Ethernet"), "" when the command is not shown or has none:
	// perftest then prints that as Link type, whatever the port is. The
	// command's line is Fields["--force-link"].
	ForcedLink    string
	GIDIndex      int // -1 when not printed (InfiniBand, or the default)
	TXDepth       int
	OutstandReads int
	RDMACM        bool
	TOS           int // -1 when not printed
	// DurationMode is set for -D runs, where BW peak is not measured.
	DurationMode bool
	// Local and Remote are the address lines; nil when absent.
	Local, Remote *PerftestAddress
	// Table is the result table's header line, zero when none was printed.
	Table Evidence
	// Waiting is an rdma_cm server's "Waiting for client rdma_cm QP to
	// connect" banner line, zero when none was printed. perftest prints it
	// after rdma_cm has connected the client, despite its words.
	Waiting  Evidence
	Rows     []PerftestRow
	Failures []PerftestFailure
	// Warnings are noise lines perftest printed (CPU frequency, SQ size).
	Warnings []Evidence
	// GPUBuffer is the first line saying perftest put its buffers in GPU
	// memory (--use_cuda: "cuMemAlloc() of a ... bytes GPU buffer",
	// "allocated GPU buffer ..."), zero when none did.
	GPUBuffer Evidence
	// Fields holds the banner lines by field name ("Device", "Mtu",
	// "Link type", "GID index", "Number of qps", ...).
	Fields map[string]Evidence
	// PeakRate is the port rate a summary table states ("Peak (Gbps)").
	PeakRate         unit.BitRate
	PeakRateEvidence Evidence
	// Start is the line the run starts at (title, banner or table).
	Start Evidence
}

// A PerftestAddress is a "local address:" or "remote address:" line with
// the GID line under it.
type PerftestAddress struct {
	LID, QPN, PSN string
	// GID is the address in IPv6 notation, converted from perftest's
	// decimal-byte form; IPv4 is set for IPv4-mapped GIDs.
	GID         string
	IPv4        string
	Evidence    Evidence
	GIDEvidence Evidence
}

// A PerftestRow is one result line.
type PerftestRow struct {
	Bytes      int64 // 0 when a summary table gives no size
	Iterations int64
	// BW tests.
	BWPeak, BWAvg unit.BitRate
	MsgRateMpps   float64
	// Latency tests, in LatUnit ("usec" or "cycles").
	TMin, TMax, TTypical, TAvg, TStdev, P99, P999 float64
	LatUnit                                       string
	Evidence                                      Evidence
}

// Kind returns KindPerftest.
func (p *Perftest) Kind() Kind { return KindPerftest }

// RoCE reports whether the run went over RoCE: perftest printed Link type
// Ethernet, or the device carries rdma-core's name for a RoCE device
// ("rocep1s0f0", "roceP2p1s0f0"; InfiniBand ports are "ibp...", iWARP
// "iwp...") whatever link type --force-link made perftest print. An iWARP
// run (Transport type IW: Chelsio cxgb4, Intel irdma in iWARP mode) is
// no RoCE, though perftest prints its link type Ethernet: it runs over
// TCP, whose segments the netdev MTU sizes, not the Mtu perftest prints.
func (r *PerftestRun) RoCE() bool {
	if r.Transport == "IW" {
		return false
	}
	return r.LinkType == "Ethernet" || r.LinkType != "" && RDMANameLinkLayer(r.Device) == "RoCE"
}

// GIDUses returns the GID index of every RoCE run that printed one.
//
// A run over rdma_cm that prints index 0 is left out: rdma_cm picks the
// GID of the address it resolves, and perftest before its 2026 releases
// printed the default index 0 in the banner whatever row that was
// (perftest commit 16ecbfe); a non-zero index there was given with -x.
func (p *Perftest) GIDUses() []GIDUse {
	var out []GIDUse
	for _, r := range p.Runs {
		if r.GIDIndex >= 0 && r.roceOrUnknown() && !r.cmDefaultIndex() {
			out = append(out, GIDUse{Host: r.Host, Device: r.Device, Index: r.GIDIndex, Evidence: r.Fields["GID index"]})
		}
	}
	return out
}

// roceOrUnknown reports whether a run may be RoCE, whose GID index names a
// row of the GID table: not InfiniBand, not iWARP (Transport type IW,
// whose GIDs are its MAC address), and, for a run without a banner (only
// its command's -x), not one that failed before connecting.
func (r *PerftestRun) roceOrUnknown() bool {
	switch {
	case r.LinkType == "IB", r.Transport == "IW":
		return false
	case r.LinkType == "" && r.Transport == "" && RDMANameLinkLayer(r.Device) != "RoCE":
		// A run that failed setting up, before any banner, never used
		// its -x.
		return !slices.ContainsFunc(r.Failures, func(f PerftestFailure) bool { return f.Kind == FailSetup || f.Kind == FailMR })
	}
	return true
}

// cmDefaultIndex reports a run over rdma_cm whose banner shows index 0,
// the default, which need not be the row rdma_cm used (see GIDUses).
func (r *PerftestRun) cmDefaultIndex() bool { return r.RDMACM && r.GIDIndex == 0 }

// GIDEntries returns, for each RoCE run with a GID index, the local GID it
// printed: the table row at that index.
func (p *Perftest) GIDEntries() []GIDEntry {
	var out []GIDEntry
	for _, r := range p.Runs {
		if r.GIDIndex < 0 || !r.roceOrUnknown() || r.cmDefaultIndex() || r.Local == nil || r.Local.GID == "" {
			continue
		}
		if c, _ := ClassifyGID(r.Local.GID); c == GIDZero {
			// Not a row of the table: the all-zero GID says the index holds
			// none (the GID rules report it with the run).
			continue
		}
		out = append(out, GIDEntry{Host: r.Host, Device: r.Device, Index: r.GIDIndex, GID: r.Local.GID, IPv4: r.Local.IPv4, Evidence: r.Local.GIDEvidence})
	}
	return out
}

// LinkSpeeds returns the port rates summary tables state.
func (p *Perftest) LinkSpeeds() []LinkSpeed {
	var out []LinkSpeed
	for _, r := range p.Runs {
		if r.PeakRate > 0 {
			out = append(out, LinkSpeed{Host: r.Host, Device: r.Device, Rate: r.PeakRate, Evidence: r.PeakRateEvidence})
		}
	}
	return out
}
