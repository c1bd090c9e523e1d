package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// Feed reads one line.
func (l *NCCLLog) Feed(ln Line) {
	s := ln.Text
	if l.pending != nil && !ln.NCCL && l.backendLine(ln, s) {
		return
	}
	if !ln.NCCL && ln.marker > 0 {
		// The line reader found no NCCL marker: only the unprefixed forms
		// (fragments, the bare version line, the algorithm matrix) remain.
		if strings.Contains(s, "NCCL") {
			if !l.feedFragment(ln, s) && !l.feedBare(ln, s) {
				l.feedUnprefixed(ln, s)
			}
			return
		}
		l.matrix = false
		if !l.feedFragment(ln, s) {
			l.feedBare(ln, s)
		}
		return
	}
	i := ln.marker - 1
	if i < 0 {
		if pre, warn, msg, ok := legacySplit(s); ok {
			l.feedPrefixed(ln, pre, warn, msg)
			return
		}
		if loc, warn, msg, ok := ofiLegacySplit(s); ok {
			l.feedPrefixedAt(ln, "", loc, warn, msg)
			return
		}
		if i = strings.Index(s, "NCCL"); i < 0 {
			l.matrix = false
			if !l.feedFragment(ln, s) {
				l.feedBare(ln, s)
			}
			return
		}
	}
	if j := firstNonSpace(s); j < len(s) && s[j] == '#' {
		// NCCL never starts a line with "#": this is a comment, an
		// nccl-tests line or a file header that quotes NCCL.
		return
	}
	pre, warn, msg, ok := splitNCCL(s, i)
	if !ok {
		if !l.feedFragment(ln, s) && !l.feedBare(ln, s) {
			l.feedUnprefixed(ln, s)
		}
		return
	}
	l.feedPrefixed(ln, pre, warn, msg)
}

// feedPrefixed reads a line NCCL printed with its prefix, split into the
// prefix, whether it is a WARN, and the message.
func (l *NCCLLog) feedPrefixed(ln Line, pre string, warn bool, msg string) {
	l.feedPrefixedAt(ln, pre, "", warn, msg)
}

// feedPrefixedAt is feedPrefixed for a line whose source location loc was
// printed apart from its prefix ("" when the prefix holds it).
func (l *NCCLLog) feedPrefixedAt(ln Line, pre, loc string, warn bool, msg string) {
	if strings.HasPrefix(strings.TrimLeft(pre, " "), "**") {
		// A line a poster set in Markdown bold: "**host:1:2 [0] ... WARN
		// msg**".
		msg = strings.TrimSuffix(msg, "**")
	}
	l.matrix = false
	l.lines.add(ln)
	ev := At(l.src, ln)
	o, host := l.origin(pre, ev)
	if loc != "" {
		o.loc = loc
	}
	if r := ln.Rank(); o.pid < 0 && r >= 0 {
		// A prefix without a pid: the launcher's rank tag tells the
		// processes apart.
		o.pid = -2 - r
		host = l.intern(l.resolveHost(o.name, o.pid), ev)
	}
	if warn {
		l.feedWarn(o, host, msg, ev)
		return
	}
	l.feedInfo(o, host, msg, ev)
}

// feedFragment reads an RDMA error NCCL printed that reached the input
// without NCCL's "host:pid:tid [dev] NCCL WARN" prefix: quoted inline in
// prose, cut out of a larger log line, or printed by a net plugin under
// its own name ("NET/IBP:Got completion ...", "'transport/net_ib.cu:781
// WARN NET/IB : Got completion with error 12, ...'"). The error is known
// by its own text; a source location before "WARN" is kept. It reports
// whether the line was one.
func (l *NCCLLog) feedFragment(ln Line, s string) bool {
	var msg string
	if strings.Contains(s, "NCCL error in:") {
		l.closeBackend()
		if l.backendError(ln, s) {
			return true
		}
	}
	if l.pending == nil && l.describedError(ln, s) {
		return true
	}
	switch {
	case strings.Contains(s, "Watchdog caught collective operation timeout"):
		t, ok := parseWatchdogTimeout(s)
		if ok {
			l.TimeoutCount++
		}
		t.Global, t.Evidence = ln.WordRank(), At(l.src, ln)
		if t.Rank < 0 {
			t.Rank = ln.GroupRank()
		}
		return keepOnce(l, ln, &l.Timeouts, t, ok, seenKey{kind: 't', a: strconv.Itoa(t.Rank), b: strconv.FormatInt(t.SeqNum, 10), c: t.OpType, d: strconv.Itoa(t.Global)})
	case strings.Contains(s, "watchdog got stuck for "):
		st, ok := parseWatchdogStuck(s)
		st.Evidence = At(l.src, ln)
		return keepOnce(l, ln, &l.Stuck, st, ok, seenKey{kind: 'k', a: strconv.Itoa(st.Rank), b: strconv.Itoa(st.Seconds)})
	case strings.Contains(s, "detected by watchdog at work"):
		p, ok := parseWatchdogProgress(s)
		p.Global, p.Evidence = ln.WordRank(), At(l.src, ln)
		if p.Rank < 0 {
			p.Rank = ln.GroupRank()
		}
		return keepOnce(l, ln, &l.Progress, p, ok, seenKey{kind: 'w', a: strconv.Itoa(p.Rank) + "/" + strconv.Itoa(p.Global), b: p.PG + "/" + p.GUID, c: strconv.FormatInt(p.Completed, 10)})
	case glogCheck(s):
		// A net plugin's glog CHECK ("F0825 ... Check failed:
		// ncclIbRoceGetVersionNum(deviceName, ...)", uccl-project/uccl#301)
		// is its abort after the failure, which its W or E line before
		// told: the expression is code, whatever call it names.
		return false
	case strings.Contains(s, "Got completion") && (strings.Contains(s, "with error") || strings.Contains(s, "status=")):
		msg = s[strings.Index(s, "Got completion"):]
	case strings.Contains(s, "Call to ibv_") && strings.Contains(s, " failed"):
		msg = s[strings.Index(s, "Call to ibv_"):]
	case strings.Contains(s, "ncclIbRoceGetVersionNum"):
		msg = s
	case strings.Contains(s, "NET/OFI Unexpected number of remote rails") || strings.Contains(s, "NET/OFI Numer of forced rails"):
		// aws-ofi-nccl's rail errors (NCCL_OFI_WARN), pasted without
		// NCCL's prefix (NVIDIA/nccl#1913).
		msg = s[strings.Index(s, "NET/OFI"):]
	case strings.Contains(s, "NVLink SHARP (NVLS)") && strings.Contains(s, "CUDA error"):
		// NVLS's failure as NCCL's last error, which PyTorch prints
		// under its DistBackendError without NCCL's prefix: "Failed to
		// bind NVLink SHARP (NVLS) Multicast memory of size 2097152 :
		// CUDA error 2 'out of memory'." (NCCL 2.2x transport/nvls.cc).
		msg = s[max(strings.Index(s, "Failed "), 0):]
	default:
		return false
	}
	o := origin{pid: -1, tid: -1, dev: -1}
	pre := s[:len(s)-len(msg)]
	if j := strings.LastIndex(pre, "NET/"); j >= 0 {
		msg = s[j:] // keep the transport name: "NET/IBP:Got completion"
		pre = pre[:j]
	}
	if w := strings.LastIndex(pre, "WARN"); w >= 0 {
		loc, _ := lastField(strings.TrimLeft(pre[:w], "'\"`* "))
		if strings.ContainsRune(loc, ':') && strings.ContainsRune(loc, '.') {
			o.loc = strings.TrimLeft(loc, "'\"`*")
		}
	}
	msg = strings.TrimRight(msg, "'\"`_* .")
	l.lines.add(ln)
	ev := At(l.src, ln)
	l.feedWarn(o, l.intern("", ev), msg, ev)
	return true
}

// feedUnprefixed handles lines that mention NCCL without an INFO/WARN
// marker: the bare version line and rows of the algorithm matrix.
func (l *NCCLLog) feedUnprefixed(ln Line, s string) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "NCCL version ") {
		l.lines.add(ln)
		l.addVersion("", t[len("NCCL version "):], At(l.src, ln))
		return
	}
	if l.matrix && strings.Contains(s, "|") {
		l.lines.add(ln)
		return
	}
	l.matrix = false
}

func (l *NCCLLog) feedInfo(o origin, host, msg string, ev Evidence) {
	if len(l.lastWarn) > 0 && !strings.Contains(msg, " -> ") && !unwindLine(msg) {
		// The thread moved on: return codes it prints later come from a
		// failure of its own, not from its last WARN.
		delete(l.lastWarn, o.thread())
	}
	if l.matrix = strings.HasPrefix(msg, "Enabled NCCL Func/Proto/Algo Matrix"); l.matrix {
		return
	}
	if r, ok := strings.CutPrefix(msg, "[Rank "); ok {
		// NCCL 2.29 tags its init lines with the rank: "[Rank 0]
		// ncclCommInitRank comm 0x... rank 0 nranks 2 ...".
		if _, after, ok := strings.Cut(r, "] "); ok {
			msg = after
		}
	}
	l.pluginMiss(host, msg, ev)
	l.tunerChoice(o.thread(), host, msg, ev)
	l.profilerUnused(o.thread(), host, msg, ev)
	switch {
	case strings.HasPrefix(msg, "Channel ") || strings.HasPrefix(msg, "Ring ") || strings.HasPrefix(msg, "CollNet "):
		l.channel(host, msg, ev)
	case strings.HasPrefix(msg, "NCCL_"):
		l.envEcho(host, msg, ev)
	case strings.HasPrefix(msg, "NCCL version "):
		l.addVersion(host, msg[len("NCCL version "):], ev)
	case strings.HasPrefix(msg, "Using network "):
		l.addNetwork(host, msg[len("Using network "):], ev)
	case strings.HasPrefix(msg, "Assigned NET plugin ") && strings.HasSuffix(strings.TrimSpace(msg), " to comm"):
		// NCCL 2.27 and later: the net plugin a communicator uses, printed
		// under NCCL_DEBUG_SUBSYS=NET too, where "Using network" (INIT) is not.
		l.addNetwork(host, strings.TrimSuffix(strings.TrimSpace(msg[len("Assigned NET plugin "):]), " to comm"), ev)
	case strings.HasPrefix(msg, "NET/"):
		if _, rest, ok := pluginNet(msg); ok {
			l.PluginNetLines.add(host, ev)
			if pluginGDROff(rest) {
				l.PluginGDROff.add(host, ev)
			}
		}
		if pluginInitFailed(msg) {
			l.PluginInitFailures.add(host, ev)
		}
		l.platformLine(host, msg, ev)
		l.netLine(o, host, msg, ev)
	case strings.HasPrefix(msg, "Init timings") || strings.HasPrefix(msg, "Bootstrap timings "):
		l.initTiming(host, msg, ev)
	case strings.HasPrefix(msg, "Bootstrap"):
		if _, rest, ok := strings.Cut(msg, "Using "); ok {
			l.learnBoot(o, bootAddr(rest))
			l.addBootIface(host, rest, ev)
			l.IfaceFound.add(host, ev)
		}
	case strings.HasPrefix(msg, "NET : Using interface "):
		// NCCL 2.3: the interface of the bootstrap network.
		l.learnBoot(o, bootAddr(msg[len("NET : Using interface "):]))
		l.IfaceFound.add(host, ev)
	case strings.HasPrefix(msg, "Using internal Network ") || strings.HasPrefix(msg, "Using external Network "):
		// NCCL 2.3 names its network so.
		l.addNetwork(host, msg[len("Using internal Network "):], ev)
	case strings.HasPrefix(msg, "Plugin Path") || strings.HasPrefix(msg, "P2P plugin"):
		l.Plugins.add(host, ev)
		if strings.HasPrefix(msg, "P2P plugin IB") {
			l.IBextHosts.add(host, ev)
		}
	case strings.HasPrefix(msg, "GPU Direct RDMA "):
		l.gdr(host, msg, ev)
	case strings.HasPrefix(msg, "Failed to open libibverbs"):
		// NCCL 2.18 and later say it at INFO (misc/ibvsymbols.cc), older
		// ones at WARN: no verbs library, so no IB transport.
		l.VerbsMissing.add(host, ev)
	case strings.HasPrefix(msg, "Connected all rings"):
		l.ringSummary(host, l.threadNodes[o.thread()], msg, ev)
	case strings.HasPrefix(msg, "ncclMaxSharedMem ") && strings.Contains(msg, " exceeds "):
		l.SharedMemOver.add(host, ev)
	case strings.HasPrefix(msg, "Symmetric memory is not supported."):
		l.SymmetricOff.add(host, ev)
	case strings.HasPrefix(msg, "MNNVL busId "):
		l.addFabric(host, msg, ev)
	case strings.HasPrefix(msg, "P2P is disabled between connected GPUs "):
		l.addP2POff(host, msg, ev)
	case connectRetry(msg):
		l.ConnectRetries.add(host, ev)
	case strings.HasPrefix(msg, "comm ") || strings.HasPrefix(msg, "ncclComm") && strings.Contains(msg, " comm ") || strings.HasPrefix(msg, "rank ") && strings.Contains(msg, " nranks "):
		// "comm 0x.. rank 0 nRanks 8 nNodes 2 ...", and the init lines of
		// ncclCommInitRank, ncclCommInitRankConfig, ncclCommInitAll,
		// ncclCommSplit and RCCL's ncclCommInitRank_impl.
		if n := wordAfter(msg, " nNodes "); n != "" {
			if _, held := l.threadNodes[o.thread()]; held || len(l.threadNodes) < maxOrigins {
				l.threadNodes[o.thread()] = atoiOr(n, 0)
			}
		}
		l.comm(host, msg, ev)
		l.rankGPU(host, msg, ev)
	case strings.Contains(msg, "Call to ibv_") && strings.Contains(msg, "failed"):
		// NCCL 2.2x logs ibv_modify_qp retries at INFO; only the final
		// failure is a WARN, so retries are recognised but not kept.
	case strings.Contains(msg, " -> "):
		l.propagation(o, host, msg, ev)
	}
}

func (l *NCCLLog) feedWarn(o origin, host, msg string, ev Evidence) {
	key := o.thread()
	switch {
	case strings.Contains(msg, "Got completion"):
		c := parseCompletion(msg)
		c.Host, c.PID, c.Where, c.Evidence = host, o.pid, strings.Clone(o.loc), ev
		l.CompletionCount++
		l.shapeCompletion(o.loc, msg, ev)
		if len(l.Completions) < maxDistinct {
			l.Completions = append(l.Completions, c)
			l.setLastWarn(key, warnRef{'c', len(l.Completions) - 1, ev.Line})
		}
	case strings.Contains(msg, "Call to ibv_get_async_event"):
		l.AsyncLost.add(host, ev)
	case (strings.Contains(msg, "Call to ibv_") || strings.Contains(msg, "ncclIbRoceGetVersionNum")) && !deviceOpenFailed(msg):
		s := parseSetup(msg)
		s.Host, s.Evidence = host, ev
		l.SetupCount++
		if len(l.Setup) < maxKept {
			l.Setup = append(l.Setup, s)
			l.setLastWarn(key, warnRef{'s', len(l.Setup) - 1, ev.Line})
		}
	case l.asyncEvent(host, msg, ev):
	case strings.Contains(msg, "Failed to open libibverbs"):
		l.VerbsMissing.add(host, ev)
	case strings.HasPrefix(msg, "NET/Plugin"):
		l.Plugins.add(host, ev)
		l.PluginFailures.add(host, ev)
	case pluginInitFailed(msg):
		l.PluginInitFailures.add(host, ev)
	case strings.HasPrefix(msg, "Failed to initialize any NET plugin"):
		l.NoNetwork.add(host, ev)
	default:
		if strings.HasPrefix(msg, "NET/IB") && len(l.IBDevices) == 0 && len(l.IBPorts) == 0 && !dataPathWarn(o.loc, msg) && !WrappedWarn(msg) && !IBDeviceSkipped(msg) {
			// Before NET/IB lists its devices: it is starting (unless
			// the excerpt begins past the device list, at a WARN about
			// a connection or data to or from a peer, at one whose
			// words went on to the next line, or at one device it
			// leaves out and goes on without).
			l.IBInitWarns.add(host, ev)
		}
		if IBDeviceSkipped(msg) {
			l.IBSkipped.add(host, ev)
		}
		l.WarningCount++
		if len(l.Warnings) < maxKept {
			l.Warnings = append(l.Warnings, Warning{Host: host, PID: o.pid, TID: o.tid, Where: strings.Clone(o.loc), Message: strings.Clone(msg), Result: proxyResult(msg), Evidence: ev})
			l.setLastWarn(key, warnRef{'w', len(l.Warnings) - 1, ev.Line})
		}
	}
}

// proxyResult is the ncclResult_t a WARN of NCCL's proxy service thread
// states in its text (proxy.cc, 2.12 on: "[Service thread] Error
// encountered progressing operation=Connect, res=3, closing connection",
// "[Proxy Service 0] Failed to execute operation Connect from rank 0,
// retcode 3"), -1 for any other WARN; the return codes after it are
// still read into the WARN's Result while this one is -1.
func proxyResult(msg string) int {
	if !strings.HasPrefix(msg, "[Service thread] ") && !strings.HasPrefix(msg, "[Proxy Service ") {
		return -1
	}
	for _, key := range []string{", res=", ", retcode "} {
		if _, after, ok := strings.Cut(msg, key); ok {
			end := 0
			for end < len(after) && end < 4 && after[end] >= '0' && after[end] <= '9' {
				end++
			}
			if n, err := strconv.Atoi(after[:end]); err == nil && n > 0 {
				return n
			}
		}
	}
	return -1
}

// dataPathWarn reports whether an IB transport WARN is about a
// connection or data moving to or from a peer, which no warning of the
// transport's start is: it names the peer's socket address or a request
// ("NET/IB : req 0/1 tag 0 peer 10.10.23.6<58683> collective mismatch
// error"), or a communicator ("Device 0 marked as failed. Initiating
// recovery? Yes (send comm=0x7f03e8086000, ...)"), or NCCL printed it from
// a file of NET/IB's connections and transfers (2.29 on, when net_ib.cc
// became a directory: connect.cc, p2p.cc, the port failover's
// p2p_resiliency.cc and p2p_resiliency_recovery.cc), never run before
// the devices are listed.
func dataPathWarn(loc, msg string) bool {
	if strings.Contains(msg, " peer ") || strings.Contains(msg, " req ") || strings.Contains(msg, "comm=") {
		return true
	}
	file, _, _ := strings.Cut(loc, ":")
	dir, base, _ := strings.Cut(file, "net_ib/")
	return base != "" && !strings.Contains(dir, " ") && (base == "connect.cc" || base == "p2p.cc" || strings.HasPrefix(base, "p2p_resiliency"))
}

// IBDeviceSkipped reports whether a WARN is NET/IB leaving one device or
// port out of its list while it opens them (net_ib.cc: "Unable to open
// device mlx5_1", "Unable to query device", "Unable to query port_num
// 2"): it goes on with the others, so the transport still starts.
func IBDeviceSkipped(msg string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(msg), "NET/IB")
	rest = strings.TrimLeft(rest, " :")
	return ok && (strings.HasPrefix(rest, "Unable to open device ") || strings.HasPrefix(rest, "Unable to query device ") || strings.HasPrefix(rest, "Unable to query port"))
}

// deviceOpenFailed reports NCCL's verbs wrapper failing to open a device
// ("Call to ibv_open_device failed", misc/ibvwrap.cc): NET/IB does that
// only while it lists the devices at init, and names the device in the
// "Unable to open device" WARN that follows; no queue pair is involved.
func deviceOpenFailed(msg string) bool {
	return strings.Contains(msg, "Call to ibv_open_device failed")
}

// WrappedWarn reports whether a WARN's message is only its subsystem's
// tag, "NET/IB:", its words on the lines after it: a paste wrapped there
// (NVIDIA DGX Spark notes: "NCCL WARN NET/IB:" above "Got completion
// from peer ... status=12"). Such a line says nothing of its own.
func WrappedWarn(msg string) bool {
	tag, rest, ok := strings.Cut(strings.TrimSpace(msg), ":")
	return ok && rest == "" && !strings.Contains(tag, " ")
}

func (l *NCCLLog) setLastWarn(key string, r warnRef) {
	if len(l.lastWarn) >= maxDistinct {
		clear(l.lastWarn)
	}
	l.lastWarn[strings.Clone(key)] = r
}

// propagation attaches a return-code line ("transport/net.cc:1302 -> 6")
// to the WARN its thread printed last.
// unwindLine reports whether an INFO message is one NCCL prints while
// unwinding a failure before its return codes: freeing what the failing
// call had allocated (NCCL_DEBUG_SUBSYS=ALLOC, "ncclCudaFree: Memory used
// = ..." after RCCL's failed hipIpcGetMemHandle).
func unwindLine(msg string) bool {
	return strings.HasPrefix(msg, "ncclCudaFree") || strings.HasPrefix(msg, "Cuda Free ")
}

func (l *NCCLLog) propagation(o origin, host, msg string, ev Evidence) {
	line := ev.Line
	where, code, ok := strings.Cut(msg, " -> ")
	where = cutFuncName(where)
	if !ok || strings.ContainsRune(where, ' ') || !strings.ContainsRune(where, ':') {
		return
	}
	tail := code
	code, errno, _ := strings.Cut(code, " ")
	n, err := strconv.Atoi(code)
	if err != nil {
		return
	}
	key := o.thread()
	r, ok := l.lastWarn[key]
	if !ok {
		if l.unwarnedGIDChain(key, host, where, n, ev) {
			return
		}
		if sysErrorOrigin(errno) {
			// The message as older releases print it: 2.30.7's
			// "(func)" after the location left out.
			l.sysErrorOrigin(o, host, where+" -> "+tail, where, n, ev)
		}
		return
	}
	if line-r.line > maxPropagationGap {
		delete(l.lastWarn, key)
		return
	}
	r.line = line
	l.lastWarn[key] = r
	switch r.kind {
	case 'c':
		if l.Completions[r.idx].Result < 0 {
			l.Completions[r.idx].Result = n
		}
	case 's':
		if l.Setup[r.idx].Result < 0 {
			l.Setup[r.idx].Result = n
		}
	case 'w':
		w := &l.Warnings[r.idx]
		if w.Result < 0 {
			w.Result = n
		}
		if len(w.Chain) < maxChain && !chainHasFile(w.Chain, where) {
			w.Chain = append(w.Chain, strings.Clone(where))
		}
	}
}

// chainHasFile reports whether chain already holds a location in the
// source file of where ("misc/socket.cc:474" and "misc/socket.cc:80" are
// one file): a chain keeps each file's first location, so the files an
// error passed through after several lines of one (socket.cc's helpers,
// then bootstrap.cc and init.cc) are not cut off.
func chainHasFile(chain []string, where string) bool {
	file, _, _ := strings.Cut(where, ":")
	for _, c := range chain {
		if f, _, _ := strings.Cut(c, ":"); f == file {
			return true
		}
	}
	return false
}

// sysErrorOrigin reports whether the text after a return code is the
// errno NCCL's SYSCHECK, EQCHECK and NEQCHECK macros print where a
// system call fails ("misc/socket.cc:505 -> 2 (Operation now in
// progress)"): that line is the failure's origin, at INFO, with no WARN
// before it.
func sysErrorOrigin(after string) bool {
	after = strings.TrimSpace(after)
	return len(after) > 2 && after[0] == '(' && after[len(after)-1] == ')' && !strings.ContainsAny(after[1:len(after)-1], "()[]")
}

// sysErrorOrigin records a failed system call that NCCL reported only by
// its return code as the thread's failure, as a WARN would be: the
// return codes after it are its chain.
func (l *NCCLLog) sysErrorOrigin(o origin, host, msg, where string, result int, ev Evidence) {
	l.WarningCount++
	if len(l.Warnings) >= maxKept {
		return
	}
	l.Warnings = append(l.Warnings, Warning{Host: host, PID: o.pid, TID: o.tid, Where: strings.Clone(where), Message: strings.Clone(msg), Result: result, Evidence: ev})
	l.setLastWarn(o.thread(), warnRef{'w', len(l.Warnings) - 1, ev.Line})
}

// seenKey identifies a fact already recorded: its kind and up to four
// fields. Looking one up does not allocate.
type seenKey struct {
	kind       byte
	a, b, c, d string
}

// once reports whether k is new, remembering it while there is room.
func (l *NCCLLog) once(k seenKey) bool {
	if _, ok := l.seen[k]; ok {
		return false
	}
	if len(l.seen) >= 4*maxDistinct {
		return false
	}
	k.a, k.b, k.c, k.d = strings.Clone(k.a), strings.Clone(k.b), strings.Clone(k.c), strings.Clone(k.d)
	l.seen[k] = struct{}{}
	return true
}

// cachedOrigin is a parsed prefix and its interned host.
type cachedOrigin struct {
	o    origin
	host string
}

// maxCachedOrigins bounds the prefix cache; it is emptied when full.
const maxCachedOrigins = 8192

// origin parses a line's prefix through the cache.
func (l *NCCLLog) origin(pre string, ev Evidence) (origin, string) {
	if c, ok := l.origins[pre]; ok {
		return c.o, c.host
	}
	o := parseOrigin(pre)
	o.name = strings.Clone(o.host)
	host := l.intern(l.resolveHost(o.name, o.pid), ev)
	o.host = host
	o.loc = strings.Clone(o.loc)
	if len(l.origins) >= maxCachedOrigins {
		clear(l.origins)
	}
	l.origins[strings.Clone(pre)] = cachedOrigin{o, host}
	return o, host
}

// intern returns a copy of host that does not pin the line it came from,
// and records it in the host list.
func (l *NCCLLog) intern(h string, ev Evidence) string {
	if v, ok := l.hosts[h]; ok {
		return v
	}
	v := strings.Clone(h)
	if len(l.hosts) < maxDistinct {
		l.hosts[v] = v
		l.hostList = append(l.hostList, v)
		l.hostFirst = append(l.hostFirst, ev)
	}
	return v
}

// addNetwork records the network a host's communicator uses, once per
// host and name.
func (l *NCCLLog) addNetwork(host, name string, ev Evidence) {
	name = strings.TrimSpace(name)
	if name != "" && len(l.Networks) < maxDistinct && l.once(seenKey{kind: 'n', a: host, b: name}) {
		l.Networks = append(l.Networks, NetChoice{Host: host, Name: strings.Clone(name), Evidence: ev})
	}
}

func (l *NCCLLog) addVersion(host, v string, ev Evidence) {
	v = strings.TrimSuffix(strings.TrimSpace(v), ".")
	if f := strings.Fields(v); len(f) > 0 {
		v = f[0]
	}
	for i, x := range l.Versions {
		if x.Version == v {
			if !RealHost(x.Host) && RealHost(host) {
				l.Versions[i].Host, l.Versions[i].Evidence = host, ev
			}
			return
		}
	}
	if len(l.Versions) < maxKept {
		l.Versions = append(l.Versions, Versioned{Host: host, Version: strings.Clone(v), Evidence: ev})
	}
}

func (l *NCCLLog) envEcho(host, msg string, ev Evidence) {
	name, rest, ok := strings.Cut(msg, " ")
	if !ok {
		return
	}
	var v string
	switch {
	case strings.HasPrefix(rest, "set by environment to "):
		v = rest[len("set by environment to "):]
	case strings.HasPrefix(rest, "set to "):
		v = rest[len("set to "):]
	default:
		return
	}
	l.addEnv(host, name, envValue(v), ev)
}

// envValue trims the full stop NCCL prints after numeric values.
func envValue(v string) string {
	v = strings.TrimSpace(v)
	if t := strings.TrimSuffix(v, "."); t != v {
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			return t
		}
	}
	return v
}

func (l *NCCLLog) addEnv(host, name, value string, ev Evidence) {
	if !l.once(seenKey{kind: 'e', a: host, b: name, c: value}) {
		return
	}
	if len(l.Env) < maxDistinct {
		l.Env = append(l.Env, NCCLSetting{Host: host, Name: strings.Clone(name), Value: strings.Clone(value), How: SetByEcho, Evidence: ev})
	}
}

func validEnvName(n string) bool {
	for _, c := range n {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

func (l *NCCLLog) gdr(host, msg string, ev Evidence) {
	d, ok := parseGDR(msg)
	if !ok || SocketNet(d.Net) {
		// NCCL prints a decision for every device of the socket
		// transport too ("NET/Socket : GPU Direct RDMA Disabled for HCA 1
		// 'virbr0'", ray-project/ray#40850) and of TCP plugins ("NET/FastSocket
		// : ...", NVIDIA/nccl#1519), which never read GPU memory.
		return
	}
	d.Host, d.Evidence = host, ev
	key := seenKey{kind: 'g', a: host, b: d.GPU, c: d.HCA, d: strconv.FormatBool(d.Enabled) + d.Reason}
	if l.once(key) && len(l.GDR) < maxDistinct {
		l.GDR = append(l.GDR, d)
	}
}

func (l *NCCLLog) ringSummary(host string, nodes int, msg string, ev Evidence) {
	pxn, gdr := wordAfter(msg, " PXN "), wordAfter(msg, " GDR ")
	if gdr == "" {
		return
	}
	if l.once(seenKey{kind: 'r', a: host, b: pxn, c: gdr, d: strconv.Itoa(min(nodes, 2))}) && len(l.Rings) < maxDistinct {
		l.Rings = append(l.Rings, RingSummary{Host: host, PXN: atoiOr(pxn, -1), GDR: atoiOr(gdr, -1), Nodes: nodes, Evidence: ev})
	}
}

func (l *NCCLLog) comm(host, msg string, ev Evidence) {
	f := strings.Fields(msg)
	rank, nranks := -1, -1
	defer func() { l.noteRank(host, rank, nranks, ev) }()
	for i := 0; i+1 < len(f); i++ {
		n := atoiOr(f[i+1], -1)
		if n < 0 {
			continue
		}
		switch f[i] {
		case "rank":
			rank = n
		case "nRanks", "nranks":
			nranks = n
			if n > l.Comm.Ranks {
				l.Comm.Ranks = n
				if l.Comm.Nodes == 0 {
					l.Comm.Evidence = ev
				}
			}
		case "nNodes":
			if n > l.Comm.Nodes {
				l.Comm.Nodes = n
				l.Comm.Evidence = ev
			}
		case "localRanks":
			l.Comm.LocalRanks = max(l.Comm.LocalRanks, n)
		case "MNNVL":
			if n == 1 && l.Comm.MNNVL.Line == 0 {
				l.Comm.MNNVL = ev
			}
		}
	}
}

// rankGPU keeps the GPU a communicator's init line names by busId.
func (l *NCCLLog) rankGPU(host, msg string, ev Evidence) {
	g := RankGPU{Host: host, Rank: -1, CudaDev: -1}
	f := strings.Fields(msg)
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "rank":
			g.Rank = atoiOr(f[i+1], -1)
		case "cudaDev":
			g.CudaDev = atoiOr(f[i+1], -1)
		case "busId":
			if isHex(f[i+1]) && len(f[i+1]) <= 12 {
				g.BusID = strings.ToLower(f[i+1])
			}
		case "commId":
			id := strings.ToLower(f[i+1])
			if h, ok := strings.CutPrefix(id, "0x"); ok && isHex(h) && len(h) <= 16 && len(l.CommIDs) < maxDistinct && !slices.Contains(l.CommIDs, id) {
				l.CommIDs = append(l.CommIDs, strings.Clone(id))
			}
		}
	}
	if g.BusID == "" || len(l.RankGPUs) >= maxDistinct || !l.once(seenKey{kind: 'b', a: host, b: g.BusID}) {
		return
	}
	g.BusID, g.Evidence = strings.Clone(g.BusID), ev
	l.RankGPUs = append(l.RankGPUs, g)
}

// wordAfter returns the word after the first occurrence of key in s.
func wordAfter(s, key string) string {
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	w, _, _ := strings.Cut(s[i+len(key):], " ")
	return w
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// glogCheck reports whether s is glog's fatal line of a failed CHECK.
func glogCheck(s string) bool {
	msg, _, ok := glogFatal(s)
	return ok && strings.HasPrefix(msg, "Check failed: ")
}

// connectRetry reports NCCL's INFO line for a TCP connect it retries:
// 2.5 to 2.23's "Call to connect returned Connection refused, retrying",
// and 2.24 on, which print every attempt numbered against
// NCCL_SOCKET_RETRY_CNT: "socketPollConnect: connect returned Connection
// refused, retrying (1/34) after sleep for 100 msec" (2.24), with the
// address from 2.28 ("connect to 10.0.0.2<40000> returned ...").
func connectRetry(msg string) bool {
	if strings.HasPrefix(msg, "Call to connect returned ") {
		return strings.HasSuffix(msg, ", retrying")
	}
	i := strings.Index(msg, ": connect ")
	return i > 0 && !strings.Contains(msg[:i], " ") && strings.Contains(msg[i:], " returned ") &&
		strings.Contains(msg[i:], ", retrying (") && strings.Contains(msg[i:], " after sleep for ")
}
