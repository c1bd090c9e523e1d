package ingest

import (
	"strconv"
	"strings"

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
	src   string
	lines lineCount
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
	Transport     string
	Connection    string // RC, UC, UD, ...
	MTU           int    // bytes; the RoCE path MTU, not the Ethernet MTU
	LinkType      string
	GIDIndex      int // -1 when not printed (InfiniBand, or the default)
	TXDepth       int
	OutstandReads int
	RDMACM        bool
	TOS           int // -1 when not printed
	// DurationMode is set for -D runs, where BW peak is not measured.
	DurationMode bool
	// Local and Remote are the address lines; nil when absent.
	Local, Remote *PerftestAddress
	Rows          []PerftestRow
	Failures      []PerftestFailure
	// Warnings are noise lines perftest printed (CPU frequency, SQ size).
	Warnings []Evidence
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

// A FailureKind classifies a perftest failure line.
type FailureKind string

// Failure kinds.
const (
	// FailModifyQP is "Failed to modify QP <n> to RTR" (or RTS/INIT).
	FailModifyQP FailureKind = "modify-qp"
	// FailConnect is "Unable to Connect the HCA's through the link".
	FailConnect FailureKind = "connect"
	// FailCompletion is "Completion with error" and its "Failed status"
	// line.
	FailCompletion FailureKind = "completion"
	// FailExchange is a failed out-of-band exchange ("Couldn't read remote
	// address", "Unable to read to socket/rdma_cm", "Couldn't connect to").
	FailExchange FailureKind = "exchange"
	// FailPort is "Port number 1 state is Down".
	FailPort FailureKind = "port"
	// FailSetup is a device or resource failure before the test.
	FailSetup FailureKind = "setup"
)

// A PerftestFailure is one failure line.
type PerftestFailure struct {
	Kind FailureKind
	// Status is the work-completion status of a "Failed status" line (12 =
	// IBV_WC_RETRY_EXC_ERR), else -1.
	Status   int
	Vendor   string // the "syndrom" (vendor error) value, e.g. "0x81"
	Evidence Evidence
}

// Kind returns KindPerftest.
func (p *Perftest) Kind() Kind { return KindPerftest }

// Source returns the input's name.
func (p *Perftest) Source() string { return p.src }

// Lines returns how many lines were recognised.
func (p *Perftest) Lines() int { return p.lines.n }

// GIDUses returns the GID index of every RoCE run that printed one.
//
// A run over rdma_cm that prints index 0 is left out: rdma_cm picks the
// GID of the address it resolves, and perftest before its 2026 releases
// printed the default index 0 in the banner whatever row that was
// (perftest commit 16ecbfe); a non-zero index there was given with -x.
func (p *Perftest) GIDUses() []GIDUse {
	var out []GIDUse
	for _, r := range p.Runs {
		if r.GIDIndex >= 0 && r.LinkType != "IB" && !r.cmDefaultIndex() {
			out = append(out, GIDUse{Host: r.Host, Device: r.Device, Index: r.GIDIndex, Evidence: r.Fields["GID index"]})
		}
	}
	return out
}

// cmDefaultIndex reports a run over rdma_cm whose banner shows index 0,
// the default, which need not be the row rdma_cm used (see GIDUses).
func (r *PerftestRun) cmDefaultIndex() bool { return r.RDMACM && r.GIDIndex == 0 }

// GIDEntries returns, for each RoCE run with a GID index, the local GID it
// printed: the table row at that index.
func (p *Perftest) GIDEntries() []GIDEntry {
	var out []GIDEntry
	for _, r := range p.Runs {
		if r.GIDIndex < 0 || r.cmDefaultIndex() || r.Local == nil || r.Local.GID == "" {
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
			out = append(out, LinkSpeed{Device: r.Device, Rate: r.PeakRate, Evidence: r.PeakRateEvidence})
		}
	}
	return out
}

// perftestTools are the perftest binaries whose command lines are read.
var perftestTools = []string{
	"ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_atomic_bw",
	"ib_write_lat", "ib_read_lat", "ib_send_lat", "ib_atomic_lat",
}

// perftestBannerKeys are the banner fields perftest prints.
var perftestBannerKeys = map[string]bool{
	"Dual-port": true, "Device": true, "Number of qps": true, "Transport type": true,
	"Connection type": true, "Using SRQ": true, "PCIe relax order": true, "Lock-free": true,
	"ibv_wr* API": true, "Using DDP": true, "Using Enhanced Reorder": true, "TX depth": true,
	"RX depth": true, "CQ Moderation": true, "CQE Poll Batch": true, "Mtu": true, "Link type": true,
	"GID index": true, "Gid index": true, "GID index2": true, "Max inline data": true,
	"Outstand reads": true, "rdma_cm QPs": true, "Data ex. method": true, "TOS": true,
	"Post List": true, "Recv Post List": true, "Buffer size": true, "Use ROCm memory": true,
	"Use CUDA memory": true, "Use MUSA memory": true,
}

// perftestGenericKeys are banner keys whose words other tools print as
// "key: value" too (mlxconfig's "Device:             c2:00.0"): alone on a
// line they do not start a run.
var perftestGenericKeys = map[string]bool{"Device": true, "Mtu": true, "Link type": true, "Buffer size": true, "TOS": true}

type ptCommand struct {
	cmd shellCommand
	ev  Evidence
}

type perftestParser struct {
	out     Perftest
	run     int // index of the current run, -1 for none
	pending *ptCommand
	byTool  map[string]*ptCommand // for summary tables
	// raw result table
	cols    []ptCol
	gbits   bool
	latUnit string
	inTable bool
	// address whose GID line comes next
	addr *PerftestAddress
	// summary table
	md *mdTable
	// warnings printed before the banner of the run they belong to
	preWarn []Evidence
}

// NewPerftestParser returns a parser for perftest output in the input src.
func NewPerftestParser(src string) Parser {
	return &perftestParser{out: Perftest{src: src}, run: -1, byTool: map[string]*ptCommand{}}
}

func (p *perftestParser) cur() *PerftestRun {
	if p.run < 0 {
		return nil
	}
	return &p.out.Runs[p.run]
}

// newRun starts a run; it returns nil when the cap is reached.
func (p *perftestParser) newRun(start Evidence) *PerftestRun {
	p.inTable, p.addr, p.md = false, nil, nil
	if len(p.out.Runs) >= maxPerftestRuns {
		p.out.Omitted++
		p.run = -1
		return nil
	}
	p.out.Runs = append(p.out.Runs, PerftestRun{GIDIndex: -1, TOS: -1, Fields: map[string]Evidence{}, Start: start, Warnings: p.preWarn})
	p.preWarn = nil
	p.run = len(p.out.Runs) - 1
	return &p.out.Runs[p.run]
}

// Feed implements Parser.
func (p *perftestParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	ev := At(p.out.src, l)
	if t == "" {
		p.addr = nil
		p.md = nil
		return
	}
	if p.md != nil || strings.HasPrefix(t, "|") {
		if p.summaryLine(t, ev) {
			p.out.lines.add(l)
			return
		}
		p.md = nil
	}
	if p.command(t, ev) {
		p.out.lines.add(l)
		return
	}
	if title, ok := perftestTitle(t); ok {
		r := p.newRun(ev)
		if r != nil {
			r.Title = title
			r.Test = perftestTestName(title)
			r.Latency = strings.Contains(title, "Latency")
			r.Bidirectional = strings.Contains(title, "Bidirectional")
			p.applyCommand(r)
		}
		p.out.lines.add(l)
		return
	}
	if p.failure(t, ev) || p.address(t, ev) || p.header(t) || p.row(l, t, ev) || p.banner(t, ev) || p.noise(t, ev) {
		p.out.lines.add(l)
		return
	}
	if p.cur() != nil && (strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.HasPrefix(t, "* Waiting for client")) {
		p.out.lines.add(l)
	}
}

// command records a perftest command line; its flags apply to the next run.
func (p *perftestParser) command(t string, ev Evidence) bool {
	if !strings.Contains(t, "ib_") {
		return false
	}
	for _, tool := range perftestTools {
		c, ok := findCommand(t, tool)
		if !ok {
			continue
		}
		pc := &ptCommand{cmd: c, ev: ev}
		pc.cmd.Args = append([]string{tool}, c.Args...)
		p.pending = pc
		p.byTool[tool] = pc
		return true
	}
	return false
}

// applyCommand copies the pending command's facts into r.
func (p *perftestParser) applyCommand(r *PerftestRun) {
	pc := p.pending
	if pc == nil {
		return
	}
	if r.Test != "" && pc.cmd.Args[0] != r.Test {
		return
	}
	p.pending = nil
	delete(p.byTool, pc.cmd.Args[0])
	commandFacts(r, pc)
}

func commandFacts(r *PerftestRun, pc *ptCommand) {
	c := pc.cmd
	if r.Test == "" {
		r.Test = c.Args[0]
	}
	r.Host = c.Host
	if d, ok := c.flagValue("-d", "--ib-dev"); ok && r.Device == "" && isIdentName(d) {
		r.Device = d
	}
	if c.hasFlag("-b", "--bidirectional") {
		r.Bidirectional = true
	}
	if c.hasFlag("-D", "--duration") {
		r.DurationMode = true
	}
	if x, ok := c.flagValue("-x", "--gid-index"); ok && r.GIDIndex < 0 {
		if n, err := strconv.Atoi(x); err == nil {
			r.GIDIndex = n
			r.Fields["GID index"] = pc.ev
		}
	}
	// The peer is the first argument that is neither a flag nor a flag's value.
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && i+1 < len(c.Args) && !strings.HasPrefix(c.Args[i+1], "-") && perftestFlagTakesValue(a) {
				i++
			}
			continue
		}
		if isIdentName(a) {
			r.Peer = a
		}
		break
	}
}

// perftestFlagTakesValue reports whether a perftest flag takes an argument.
func perftestFlagTakesValue(f string) bool {
	switch f {
	case "-a", "-b", "-F", "-R", "-z", "-H", "-V", "-h", "-e", "-N", "-C", "-U", "-c", "-Q",
		"--all", "--bidirectional", "--report_gbits", "--run_infinitely", "--report-both", "--use_old_post_send":
		return false
	}
	return true
}

// perftestTitle recognises "RDMA_Write BW Test" and its variants.
func perftestTitle(t string) (string, bool) {
	if !strings.HasSuffix(t, " Test") || len(t) > 80 {
		return "", false
	}
	f := strings.Fields(t)
	switch f[0] {
	case "Send", "Send_imm", "RDMA_Write", "RDMA_Write_imm", "RDMA_Read", "Atomic":
	default:
		return "", false
	}
	if !strings.Contains(t, " BW ") && !strings.Contains(t, " Latency ") {
		return "", false
	}
	return strings.Join(f, " "), true
}

// perftestTestName maps a title to its tool, e.g. "RDMA_Read BW Test" →
// "ib_read_bw".
func perftestTestName(title string) string {
	verb := map[string]string{"Send": "send", "Send_imm": "send", "RDMA_Write": "write", "RDMA_Write_imm": "write", "RDMA_Read": "read", "Atomic": "atomic"}
	v := verb[strings.Fields(title)[0]]
	if strings.Contains(title, "Latency") {
		return "ib_" + v + "_lat"
	}
	return "ib_" + v + "_bw"
}

// banner parses "Key : value  Key : value" lines.
func (p *perftestParser) banner(t string, ev Evidence) bool {
	// A banner line starts with a known key: reject others before
	// splitting them into pairs.
	i := strings.IndexByte(t, ':')
	if i < 0 || i > 40 {
		return false
	}
	if k := strings.TrimSpace(strings.TrimLeft(t[:i], "| ")); !perftestBannerKeys[k] && !perftestBannerKeys[strings.Join(strings.Fields(k), " ")] {
		return false
	}
	pairs := bannerPairs(t)
	known, specific := 0, 0
	for _, kv := range pairs {
		if perftestBannerKeys[kv[0]] {
			known++
			if !perftestGenericKeys[kv[0]] {
				specific++
			}
		}
	}
	if known == 0 {
		return false
	}
	r := p.cur()
	if r == nil || len(r.Rows) > 0 || p.inTable {
		// A banner without its title opens a run only on a line other
		// tools do not print: "Device: c2:00.0" alone is mlxconfig's.
		if specific == 0 && known < 2 {
			return false
		}
		if r = p.newRun(ev); r == nil {
			return true
		}
		p.applyCommand(r)
	}
	for _, kv := range pairs {
		k, v := kv[0], kv[1]
		if !perftestBannerKeys[k] {
			continue
		}
		if k == "Gid index" {
			k = "GID index"
		}
		r.Fields[k] = ev
		n := atoiPrefix(v)
		switch k {
		case "Device":
			r.Device = v
		case "Number of qps":
			r.QPs = n
		case "Transport type":
			r.Transport = v
		case "Connection type":
			r.Connection = v
		case "Mtu":
			r.MTU = n
		case "Link type":
			r.LinkType = v
		case "GID index":
			if _, err := strconv.Atoi(v); err == nil {
				r.GIDIndex = n
			}
		case "TX depth":
			r.TXDepth = n
		case "Outstand reads":
			r.OutstandReads = n
		case "rdma_cm QPs":
			r.RDMACM = v == "ON"
		case "TOS":
			r.TOS = n
		}
	}
	return true
}

// bannerPairs splits "Dual-port       : OFF\t\tDevice         : mlx5_0" into
// key/value pairs; values are one word.
func bannerPairs(t string) [][2]string {
	var out [][2]string
	s := t
	for len(out) < 4 {
		i := strings.Index(s, ":")
		if i < 0 {
			break
		}
		key := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s[:i]), "|"))
		rest := strings.TrimLeft(s[i+1:], " \t")
		f := strings.Fields(rest)
		if key == "" || len(f) == 0 {
			break
		}
		out = append(out, [2]string{strings.Join(strings.Fields(key), " "), f[0]})
		s = rest[len(f[0]):]
	}
	return out
}

// address parses "local address: LID 0000 QPN 0x0108 PSN 0x63ad7d ..." and
// the "GID: 00:00:...:255:255:10:255:255:05" line under it.
func (p *perftestParser) address(t string, ev Evidence) bool {
	if strings.HasPrefix(t, "GID:") && p.addr != nil {
		gid := perftestGID(strings.TrimSpace(strings.TrimPrefix(t, "GID:")))
		if gid == "" {
			return false
		}
		p.addr.GID, p.addr.GIDEvidence = gid, ev
		if c, v4 := ClassifyGID(gid); c == GIDIPv4 {
			p.addr.IPv4 = v4
		}
		p.addr = nil
		return true
	}
	local := strings.HasPrefix(t, "local address:")
	if !local && !strings.HasPrefix(t, "remote address:") {
		return false
	}
	r := p.cur()
	if r == nil {
		if r = p.newRun(ev); r == nil {
			return true
		}
	}
	a := &PerftestAddress{Evidence: ev}
	f := strings.Fields(t)
	for i := 2; i+1 < len(f); i++ {
		switch f[i] {
		case "LID":
			a.LID = f[i+1]
		case "QPN":
			a.QPN = f[i+1]
		case "PSN":
			a.PSN = f[i+1]
		}
	}
	if local {
		if r.Local == nil {
			r.Local = a
		}
	} else if r.Remote == nil {
		r.Remote = a
	}
	p.addr = a
	return true
}

// perftestGID converts perftest's 16 colon-separated bytes (decimal, or hex
// when any byte has a hex letter) to IPv6 notation.
func perftestGID(s string) string {
	parts := strings.Split(s, ":")
	if len(parts) != 16 {
		return ""
	}
	base := 10
	for _, x := range parts {
		if strings.ContainsAny(x, "abcdefABCDEF") {
			base = 16
		}
	}
	var b [16]byte
	for i, x := range parts {
		n, err := strconv.ParseUint(x, base, 8)
		if err != nil {
			return ""
		}
		b[i] = byte(n)
	}
	a := addrFrom16(b)
	return a
}

// failure recognises perftest's failure lines.
func (p *perftestParser) failure(t string, ev Evidence) bool {
	f := PerftestFailure{Status: -1, Evidence: ev}
	switch {
	case strings.HasPrefix(t, "Failed to modify QP"):
		f.Kind = FailModifyQP
	case strings.HasPrefix(t, "Unable to Connect the HCA's through the link"):
		f.Kind = FailConnect
	case strings.HasPrefix(t, "Completion with error"):
		f.Kind = FailCompletion
		if i := strings.Index(t, "Failed status"); i >= 0 {
			// One line: "Completion with error at client Failed status 12: wr_id 0 syndrom 0x81".
			f.Status, f.Vendor = parseFailedStatus(t[i:])
		}
	case strings.HasPrefix(t, "Failed status"):
		f.Kind = FailCompletion
		f.Status, f.Vendor = parseFailedStatus(t)
	case strings.Contains(t, "Couldn't read remote address"), strings.HasPrefix(t, "Unable to read to socket/rd"),
		strings.HasPrefix(t, "Couldn't connect to "), strings.HasPrefix(t, "Unable to open file descriptor for socket connection"),
		strings.HasPrefix(t, "Couldn't send local address"):
		f.Kind = FailExchange
	case strings.HasPrefix(t, "Port number ") && strings.Contains(t, " state is "):
		f.Kind = FailPort
	case t == "No IB devices found", strings.HasPrefix(t, "Couldn't create IB resources"),
		strings.HasPrefix(t, "Failed to create QP"), strings.HasPrefix(t, "Couldn't get context for"),
		strings.HasPrefix(t, "IB device ") && strings.HasSuffix(t, "not found"):
		f.Kind = FailSetup
	default:
		return false
	}
	r := p.cur()
	if r == nil {
		if r = p.newRun(ev); r == nil {
			return true
		}
		p.applyCommand(r)
	}
	if len(r.Failures) < maxPerftestRows {
		r.Failures = append(r.Failures, f)
	}
	return true
}

// parseFailedStatus reads " Failed status 12: wr_id 0 syndrom 0x81" and
// " Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81".
func parseFailedStatus(t string) (int, string) {
	head, tail, _ := strings.Cut(t, ":")
	status := -1
	if i := strings.LastIndex(head, "("); i >= 0 {
		status = atoiPrefixOr(strings.TrimSuffix(head[i+1:], ")"), -1)
	} else {
		status = atoiPrefixOr(strings.TrimSpace(strings.TrimPrefix(head, "Failed status")), -1)
	}
	vendor := ""
	if i := strings.Index(tail, "syndrom"); i >= 0 {
		f := strings.Fields(tail[i:])
		if len(f) >= 2 {
			vendor = f[1]
		}
	}
	return status, vendor
}

func atoiPrefixOr(s string, def int) int {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return def
	}
	return atoiPrefix(s)
}

// noise recognises perftest's warnings, which can sit inside the table.
func (p *perftestParser) noise(t string, ev Evidence) bool {
	r := p.cur()
	switch {
	case strings.Contains(t, "BW peak won't be measured"):
		if r != nil {
			r.DurationMode = true
		}
	case strings.HasPrefix(t, "Conflicting CPU frequency values detected"),
		strings.HasPrefix(t, "Requested SQ size might be too big"),
		strings.HasPrefix(t, "Current TX depth is "),
		strings.HasPrefix(t, "WARNING: CPU is not PCIe relaxed ordering compliant"):
	default:
		return false
	}
	switch {
	case r == nil:
		if len(p.preWarn) < 64 {
			p.preWarn = append(p.preWarn, ev)
		}
	case len(r.Warnings) < 64:
		r.Warnings = append(r.Warnings, ev)
	}
	return true
}

// Result implements Parser.
func (p *perftestParser) Result() Artifact {
	if p.out.lines.n == 0 || len(p.out.Runs) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
