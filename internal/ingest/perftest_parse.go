package ingest

import (
	"strconv"
	"strings"
)

// The perftest output reader: run titles and banners, the address and
// GID lines, and the warnings perftest prints around its table.

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
	// preGPU is a GPU buffer line printed before its run's banner
	preGPU Evidence
	// js is the JSON report being read (--out_json), nil outside one
	js *ptJSON
}

// NewPerftestParser returns a parser for perftest output in the input src.
func NewPerftestParser(src string) Parser {
	return &perftestParser{out: Perftest{artifactHead: artifactHead{src: src}}, run: -1, byTool: map[string]*ptCommand{}}
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
	p.out.Runs = append(p.out.Runs, PerftestRun{GIDIndex: -1, TOS: -1, Fields: map[string]Evidence{}, Start: start, Warnings: p.preWarn, GPUBuffer: p.preGPU})
	p.preWarn, p.preGPU = nil, Evidence{}
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
	if (p.js != nil || strings.Contains(t, "test_info") || strings.Contains(t, "results")) && p.jsonLine(l, t) {
		p.out.lines.add(l)
		return
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
	if p.failure(t, ev) || p.address(t, ev) || p.header(t, ev) || p.row(l, t, ev) || p.banner(t, ev) || p.noise(t, ev) || p.cuda(t, ev) {
		p.out.lines.add(l)
		return
	}
	if r := p.cur(); r != nil && strings.HasPrefix(t, "Waiting for client rdma_cm QP to connect") {
		if r.Waiting.Line == 0 {
			r.Waiting = ev
		}
		p.out.lines.add(l)
		return
	}
	if p.cur() != nil && (strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.HasPrefix(t, "* Waiting for client")) {
		p.out.lines.add(l)
	}
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
		if perftestBannerKeys[kv[0]] {
			p.bannerField(r, kv[0], kv[1], ev)
		}
	}
	return true
}

// bannerField records banner field k with value v, printed at ev.
func (p *perftestParser) bannerField(r *PerftestRun, k, v string, ev Evidence) {
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

// perftestCUDALines begin the lines perftest prints setting up GPU
// memory (--use_cuda, --use_rocm).
var perftestCUDALines = []string{
	"initializing CUDA", "Listing all CUDA devices in system", "CUDA device ", "Picking device No.", "creating CUDA Ctx",
	"making it the current CUDA Ctx", "destroying current CUDA Ctx", "There are ", "Perftest doesn't supports CUDA tests",
	"Using ROCm Device with ID: ", "deallocating GPU buffer ",
}

// cuda recognises the lines of perftest's GPU memory setup; a GPU buffer
// line marks the run, or the next run when none has started or the
// current one has its table.
func (p *perftestParser) cuda(t string, ev Evidence) bool {
	// perftest names a host buffer (--cuda_mem_type of malloc) "GPU
	// buffer" too (cuda_memory.c): it is set up, but no GPU memory.
	// --use_rocm's buffer (rocm_memory.c) is "allocated <n> bytes of GPU
	// buffer at <addr>".
	gpuBuf := strings.HasPrefix(t, "allocated GPU buffer") && !strings.HasSuffix(t, "CUDA_MEM_MALLOC") ||
		strings.HasPrefix(t, "cuMemAlloc() of a ") || strings.HasPrefix(t, "using DMA-BUF for GPU buffer") ||
		strings.HasPrefix(t, "allocated ") && strings.Contains(t, " bytes of GPU buffer at ")
	if strings.HasPrefix(t, "allocated GPU buffer") && !gpuBuf {
		return true
	}
	if !gpuBuf {
		for _, pre := range perftestCUDALines {
			if strings.HasPrefix(t, pre) && (pre != "There are " || strings.Contains(t, "supporting CUDA")) &&
				(pre != "CUDA device " || strings.Contains(t, "PCIe address") || strings.Contains(t, "integrated")) {
				return true
			}
		}
		return strings.HasPrefix(t, "[pid = ") && strings.Contains(t, "device name = [")
	}
	switch r := p.cur(); {
	case r == nil || len(r.Rows) > 0 || len(r.Failures) > 0:
		if p.preGPU.Line == 0 {
			p.preGPU = ev
		}
	case r.GPUBuffer.Line == 0:
		r.GPUBuffer = ev
	}
	return true
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
	if p.js != nil {
		p.jsonUnclosed()
	}
	if p.out.lines.n == 0 || len(p.out.Runs) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
