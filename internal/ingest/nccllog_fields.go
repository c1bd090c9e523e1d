package ingest

import (
	"strconv"
	"strings"
)

// origin is the "host:pid:tid [dev] file.cc:123" prefix of an NCCL line.
type origin struct {
	host     string // "" when blank or stripped; after NCCLLog.origin, the resolved host label
	name     string // the host name as printed (see nccllog_hosts.go)
	pid, tid int    // -1 when unknown
	dev      int    // the thread's CUDA device, -1 when unknown
	loc      string // source location printed before "NCCL WARN"
}

// thread identifies the printing thread for grouping a WARN with the
// return-code lines after it.
func (o origin) thread() string {
	if o.pid < 0 && o.tid < 0 {
		// A prefix without pid and tid ("node [1] NCCL INFO ..."): the
		// device tells the ranks' threads apart.
		return o.host + "::[" + strconv.Itoa(o.dev) + "]"
	}
	return o.host + ":" + strconv.Itoa(o.pid) + ":" + strconv.Itoa(o.tid)
}

// splitNCCL finds the "NCCL INFO" or "NCCL WARN" marker at or after i and
// returns the prefix before it and the message after it.
func splitNCCL(s string, i int) (pre string, warn bool, msg string, ok bool) {
	for i >= 0 && i+9 <= len(s) {
		rest := s[i+5:]
		if s[i+4] == ' ' && (strings.HasPrefix(rest, "INFO") || strings.HasPrefix(rest, "WARN")) &&
			(len(rest) == 4 || rest[4] == ' ') && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			return s[:i], rest[0] == 'W', strings.TrimLeft(rest[4:], " "), true
		}
		j := strings.Index(s[i+4:], "NCCL")
		if j < 0 {
			break
		}
		i += 4 + j
	}
	return "", false, "", false
}

// legacySplit reads the prefix of NCCL 2.0 to 2.2, which printed no
// "NCCL" before the level: "host:pid:tid [dev] INFO msg" and
// "host:pid:tid [dev] file:line WARN msg" (horovod/horovod#666, #98).
// The level counts only after that exact prefix, so that other tools'
// INFO and WARN lines are left alone.
func legacySplit(s string) (pre string, warn bool, msg string, ok bool) {
	for _, lv := range []string{" INFO ", " WARN "} {
		i := strings.Index(s, lv)
		if i < 0 {
			continue
		}
		tok, rest := lastField(s[:i])
		if lv == " WARN " {
			if !strings.ContainsRune(tok, ':') || !strings.ContainsRune(tok, '.') {
				continue
			}
			tok, rest = lastField(rest)
		}
		if host, _ := lastField(rest); !isDevToken(tok) || !hostPidTid(host) {
			continue
		}
		return s[:i+1], lv == " WARN ", strings.TrimLeft(s[i+len(lv):], " "), true
	}
	return "", false, "", false
}

// ofiLegacySplit reads the lines of aws-ofi-nccl's own logger before it
// logged through NCCL's (its 2019-2021 releases and their test programs,
// aws/aws-ofi-nccl#22, #67): "INFO: Function: ofi_init Line: 686: NET/OFI
// Selected Provider is efa" and "WARN: Function: find_ofi_provider Line:
// 543: NET/OFI Couldn't find any optimal provider", with no host, pid or
// device. loc is "function:line", as NCCL prints a plugin's location.
// Only a message with the plugin's NET/ tag counts, so that other
// programs' "INFO: Function:" lines are left alone.
func ofiLegacySplit(s string) (loc string, warn bool, msg string, ok bool) {
	t := strings.TrimLeft(s, " \t")
	switch {
	case strings.HasPrefix(t, "INFO: Function: "):
		t = t[len("INFO: Function: "):]
	case strings.HasPrefix(t, "WARN: Function: "):
		t, warn = t[len("WARN: Function: "):], true
	default:
		return "", false, "", false
	}
	fn, rest, ok1 := strings.Cut(t, " Line: ")
	line, msg, ok2 := strings.Cut(rest, ": ")
	if !ok1 || !ok2 || fn == "" || strings.ContainsRune(fn, ' ') || !isDigits(line) || !strings.HasPrefix(msg, "NET/") {
		return "", false, "", false
	}
	return fn + ":" + line, warn, msg, true
}

// hostPidTid reports whether tok is NCCL's "host:pid:tid" (the host may
// be blank).
func hostPidTid(tok string) bool {
	rest, tid, ok := cutLast(tok, ':')
	if !ok || !isDigits(tid) {
		return false
	}
	_, pid, ok := cutLast(rest, ':')
	return ok && isDigits(pid)
}

// cutLast splits s around the last sep.
func cutLast(s string, sep byte) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// lastField splits off the last space-separated field of s.
func lastField(s string) (field, rest string) {
	j := len(s)
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	i := j
	for i > 0 && s[i-1] != ' ' && s[i-1] != '\t' {
		i--
	}
	return s[i:j], s[:max(i-1, 0)]
}

// isDevToken reports whether tok is NCCL's "[3]" device field.
func isDevToken(tok string) bool {
	return len(tok) >= 3 && tok[0] == '[' && tok[len(tok)-1] == ']' && isDigits(tok[1:len(tok)-1])
}

// parseOrigin reads the prefix NCCL prints before its marker. It tolerates
// a blank host (":22901:22901 [0]"), placeholders ("<cluster_name>:924:924
// [5]"), a stripped prefix (" [0]"), and anything a launcher or logger put
// in front (timestamps, "0: " labels).
func parseOrigin(pre string) origin {
	o := origin{pid: -1, tid: -1, dev: -1}
	if c := cutFuncName(pre); c != pre {
		// NCCL 2.30.7 prints the function after the location that follows
		// the device token ("[0] init.cc:2143 (commReclaim)"); another
		// program's "foo.py:12 (main)" keeps its words.
		_, rest := lastField(c)
		if dev, _ := lastField(rest); isDevToken(dev) {
			pre = c
		}
	}
	if loc, before, ok := signatureLoc(pre); ok {
		// A C++ plugin's location is the function's signature, spaces
		// and all: parse what comes before it, then keep "name:line".
		o = parseOrigin(before + " " + loc)
		// Without a device token before it, "name:line" alone reads as
		// no location: the signature said it is one.
		o.loc = loc
		return o
	}
	tok, rest := lastField(pre)
	if tok != "" && tok[0] != '[' && strings.ContainsRune(tok, ':') {
		// A WARN's source location: "transport/net_ib.cc:2244", or a
		// plugin's "function:line" ("register_mr_buffers:465") when the
		// device token comes before it.
		if prev, _ := lastField(rest); strings.ContainsRune(tok, '.') || isDevToken(prev) {
			o.loc = tok
			tok, rest = lastField(rest)
		}
	}
	if len(tok) >= 3 && tok[0] == '[' && tok[len(tok)-1] == ']' {
		o.dev = atoiOr(tok[1:len(tok)-1], -1)
		tok, _ = lastField(rest)
	} else if o.loc == "" {
		return o
	}
	// tok is host:pid:tid; the host may itself hold a launcher label such as
	// "[default0]:".
	j := strings.LastIndexByte(tok, ':')
	if j < 0 {
		return o
	}
	// A poster may mask the pid and tid ("host:XXXXXX:XXXXXX", or both in
	// one "host:XXXXXX").
	tid, err := strconv.Atoi(tok[j+1:])
	if err != nil {
		if !masked(tok[j+1:]) {
			return o
		}
		tid = -1
	}
	k := strings.LastIndexByte(tok[:j], ':')
	pid := -1
	if k >= 0 {
		if pid, err = strconv.Atoi(tok[k+1 : j]); err != nil {
			if !masked(tok[k+1 : j]) {
				return o
			}
			pid = -1
		}
	} else if tid >= 0 {
		return o
	} else {
		k = j
	}
	o.pid, o.tid = pid, tid
	host := tok[:k]
	if m := strings.LastIndex(host, "]:"); m >= 0 {
		host = host[m+2:]
	}
	// Markdown and quoting a paste wraps the line in: "`host:1:2 [0] ...`".
	for host != "" && strings.IndexByte("`'\"*_(", host[0]) >= 0 {
		host = host[1:]
	}
	o.host = host
	return o
}

// masked reports whether s is a value a poster replaced by x's.
func masked(s string) bool {
	return s != "" && strings.Trim(s, "xX") == ""
}

// cutNetPrefix splits "NET/IB : rest" or "NET/IB: rest" into "IB", "rest".
func cutNetPrefix(msg string) (name, rest string, ok bool) {
	m, ok := strings.CutPrefix(msg, "NET/")
	if !ok {
		return "", "", false
	}
	i := strings.IndexByte(m, ':')
	if i < 0 {
		return "", "", false
	}
	return strings.TrimSpace(m[:i]), strings.TrimSpace(m[i+1:]), true
}

// parseNetDevices reads "[0]mlx5_0:1/RoCE [1]mlx5_1:1/IB [RO]; OOB ..." or
// "[0]ens3:172.31.12.210<0> [1]veth...", and the ports of merged NICs as
// NCCL 2.20 and later list them (NCCL_IB_MERGE_NICS, net_ib.cc): each
// device a group of its ports, "[0]={[0] mlx5_0:1/RoCE, [1] mlx5_1:1/RoCE}
// [1]={[2] mlx5_2:1/RoCE}", read as the ports one by one.
func parseNetDevices(s string) []NetDevice {
	s, _, _ = strings.Cut(s, ";")
	if strings.Contains(s, "={") {
		s = flattenMerged(s)
	}
	var out []NetDevice
	// top is the highest index the list shows, a device cut after its
	// index ("[1]...") too; open is whether an ellipsis follows the last
	// device named, so that at least one more was left out.
	elided, open, top := false, false, -1
	for _, f := range strings.Fields(s) {
		if strings.Trim(f, ".…[]") == "" && f != "[]" {
			elided, open = true, true // "…", "...", "[...]"
			continue
		}
		for _, e := range []string{"[...]", "[…]", "...", "…"} {
			if rest, ok := strings.CutPrefix(f, e); ok && strings.HasPrefix(rest, "[") {
				f, elided = rest, true // "...[7]mlx5_7", "[...][7]mlx5_7"
				break
			}
		}
		if len(f) < 4 || f[0] != '[' {
			continue
		}
		end := strings.IndexByte(f, ']')
		if end < 2 {
			continue
		}
		idx, err := strconv.Atoi(f[1:end])
		if err != nil {
			continue // "[RO]"
		}
		d := NetDevice{Index: idx}
		body := f[end+1:]
		top, open = max(top, idx), false
		if strings.Trim(body, ".…") == "" {
			elided = true // "[1]...": the list cut after an index
			continue
		}
		if name, ll, ok := strings.Cut(body, "/"); ok {
			// IB: name:port/LinkLayer, and the HPC-X plugin's flags after
			// it ("mlx5_1:1/IB/SHARP").
			ll, _, _ = strings.Cut(ll, "/")
			n, port, _ := strings.Cut(name, ":")
			d.Name, d.Port, d.LinkLayer = strings.Clone(n), atoiOr(port, 0), strings.Clone(ll)
		} else {
			// socket: iface:addr<0>
			n, addr, _ := strings.Cut(body, ":")
			addr, _, _ = strings.Cut(addr, "<")
			d.Name, d.Addr = strings.Clone(n), strings.Clone(addr)
		}
		if d.Name != "" {
			out = append(out, d)
		}
	}
	count := top + 1
	if open {
		count++ // "[1]mlx5_1:1/RoCE ...": at least one device after it
	}
	if elided && len(out) > 0 && count > len(out) {
		for i := range out {
			out[i].Elided = count
		}
	}
	return out
}

// flattenMerged rewrites merged devices' port lists as the flat form:
// "[0]={[0] mlx5_0:1/RoCE, [1] mlx5_1:1/RoCE}" becomes
// "[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE", the indices the ports'.
func flattenMerged(s string) string {
	var b strings.Builder
	for _, f := range strings.Fields(s) {
		if _, inner, ok := strings.Cut(f, "={"); ok {
			f = inner // the device's index goes; its ports' stay
		}
		f = strings.TrimRight(f, ",}")
		if f == "" {
			continue
		}
		b.WriteString(f)
		if !strings.HasSuffix(f, "]") || f == "[RO]" {
			b.WriteByte(' ') // "[2]" joins the name after it
		}
	}
	return b.String()
}

// parseGDR reads every era's GPUDirect RDMA decision:
//
//	NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)
//	GPU Direct RDMA Enabled for GPU 86000 / HCA 0 (distance 4 <= 4), read 0
//	NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)
//	NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
//	NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'
func parseGDR(msg string) (GDRDecision, bool) {
	d := GDRDecision{Distance: -1, Limit: -1}
	if name, _, ok := cutNetPrefix(msg); ok {
		d.Net = strings.Clone(name)
	}
	i := strings.Index(msg, "GPU Direct RDMA ")
	if i < 0 {
		return d, false
	}
	rest := msg[i+len("GPU Direct RDMA "):]
	if r, ok := strings.CutPrefix(rest, "(DMABUF) "); ok {
		d.DMABuf, rest = true, r
	}
	state, rest, _ := strings.Cut(rest, " ")
	switch strings.ToLower(state) {
	case "enabled":
		d.Enabled = true
	case "disabled":
	default:
		return d, false
	}
	rest = strings.TrimPrefix(rest, "for ")
	if r, ok := strings.CutPrefix(rest, "GPU "); ok {
		gpu, r2, _ := strings.Cut(r, " ")
		d.GPU, rest = strings.Clone(gpu), strings.TrimPrefix(strings.TrimSpace(r2), "/ ")
	}
	if r, ok := strings.CutPrefix(rest, "HCA "); ok {
		hca, r2, _ := strings.Cut(r, " ")
		d.HCA, rest = strings.Clone(hca), r2
		if q := strings.IndexByte(rest, '\''); q >= 0 {
			if e := strings.IndexByte(rest[q+1:], '\''); e >= 0 {
				d.HCADev = strings.Clone(rest[q+1 : q+1+e])
			}
		} else if !isHex(hca) {
			// NCCL 2.3 names the device itself: "HCA mlx4_0".
			d.HCADev = d.HCA
		}
	}
	switch {
	case strings.Contains(rest, "(no module)"):
		d.Reason = GDRNoModule
	case strings.Contains(rest, "(distance "):
		f := strings.Fields(rest[strings.Index(rest, "(distance ")+len("(distance "):])
		if len(f) >= 3 {
			d.Distance = atoiOr(f[0], -1)
			d.Limit = atoiOr(strings.TrimRight(f[2], "),"), -1)
		}
		if !d.Enabled {
			d.Reason = GDRDistance
		}
	default:
		if _, said, ok := strings.Cut(rest, "("); ok {
			said, _, closed := strings.Cut(said, ")")
			if said = strings.TrimSpace(said); !closed && said != "" {
				said += "…" // the line was cut or wrapped
			}
			d.Said = strings.Clone(said)
		}
	}
	return d, true
}

// parseCompletion reads every era's completion-with-error WARN:
//
//	Got completion with error 12, opcode 1, len 0, vendor err 129
//	Got completion from peer 10.1.32.3<42519> with error 5, opcode 0, len 0, vendor err 249
//	Got completion from peer 10.2.3.4<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fd00::1 remoteGidsfd00::2
//	Got completion from peer 192.168.3.5<53908> with status=12 opcode=129 len=1048576 vendor err 129 (Recv) localGid ::ffff:192.168.6.3 remoteGids::ffff:192.168.6.5 hca mlx5_10
//	Got completion from peer 10.0.0.2<1234> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV_RDMA_WITH_IMM(129) vendor_err=129  localGid ... hca mlx5_0
func parseCompletion(msg string) CompletionError {
	c := CompletionError{PID: -1, Status: -1, Opcode: -1, Len: -1, VendorErr: -1, Result: -1}
	at := strings.Index(msg, "Got completion")
	if n := strings.LastIndex(msg[:at], "NET/"); n >= 0 {
		name := strings.TrimSpace(msg[n+4 : at])
		name = strings.TrimSpace(strings.TrimSuffix(name, ":"))
		if name != "" && !strings.ContainsAny(name, " :") {
			c.Net = strings.Clone(name)
		}
	}
	rest := msg[at+len("Got completion"):]
	if r, ok := strings.CutPrefix(strings.TrimSpace(rest), "from peer "); ok {
		peer, r2, _ := strings.Cut(r, " ")
		c.Peer = strings.Clone(peer)
		ip, _, _ := strings.Cut(peer, "<")
		c.PeerIP = strings.Clone(ip)
		rest = r2
	}
	f := strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == ',' })
	next := func(i int) string {
		if i+1 < len(f) {
			return f[i+1]
		}
		return ""
	}
	for i, w := range f {
		switch {
		case w == "error" && i > 0 && f[i-1] == "with":
			c.Status = atoiOr(next(i), -1)
		case strings.HasPrefix(w, "status="):
			c.Status = wcNumber(w[len("status="):])
		case w == "opcode":
			c.Opcode = atoiOr(next(i), -1)
		case strings.HasPrefix(w, "opcode="):
			c.Opcode = wcNumber(w[len("opcode="):])
		case w == "len":
			c.Len = int64(atoiOr(next(i), -1))
		case strings.HasPrefix(w, "len="):
			c.Len = int64(atoiOr(w[len("len="):], -1))
		case w == "err" && i > 0 && f[i-1] == "vendor":
			c.VendorErr = atoiOr(next(i), -1)
		case strings.HasPrefix(w, "vendor_err="):
			c.VendorErr = atoiOr(w[len("vendor_err="):], -1)
		case w == "(Send)" || w == "(Recv)":
			c.Direction = w[1:5]
		case strings.HasPrefix(w, "localGid"):
			c.LocalGID = gidValue(w[len("localGid"):], next(i))
		case strings.HasPrefix(w, "remoteGids") || strings.HasPrefix(w, "remoteGid"):
			v := strings.TrimPrefix(strings.TrimPrefix(w, "remoteGid"), "s")
			c.RemoteGID = gidValue(v, next(i))
		case w == "hca":
			c.HCA = strings.Clone(next(i))
		}
	}
	return c
}

// gidValue returns the GID glued to its key ("remoteGidsfd00::1") or, when
// nothing is glued, the next field.
func gidValue(glued, next string) string {
	if glued != "" {
		return strings.Clone(glued)
	}
	if strings.ContainsRune(next, ':') {
		return strings.Clone(next)
	}
	return ""
}

// wcNumber reads "12" or "IBV_WC_RETRY_EXC_ERR(12)".
func wcNumber(s string) int {
	if i := strings.IndexByte(s, '('); i >= 0 {
		s = strings.TrimSuffix(s[i+1:], ")")
	}
	return atoiOr(s, -1)
}

// parseSetup reads a failed verbs call:
//
//	Call to ibv_modify_qp failed with error Connection timed out
//	Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2
//	NET/IB: read failed in ncclIbRoceGetVersionNum: Invalid argument
//
// Markdown emphasis a paste wraps the line in ("_..._") is dropped.
func parseSetup(msg string) SetupError {
	s := SetupError{Errno: -1, GIDIndex: -1, Result: -1}
	if i := strings.Index(msg, "Call to "); i >= 0 {
		r := msg[i+len("Call to "):]
		call, r, _ := strings.Cut(r, " ")
		s.Call = strings.Clone(call)
		_, r, _ = strings.Cut(r, "failed with ")
		parts := strings.Split(r, ", ")
		what := strings.TrimPrefix(parts[0], "error ")
		if n, m, ok := strings.Cut(what, " "); ok {
			if e, err := strconv.Atoi(n); err == nil {
				s.Errno, what = e, m
			}
		}
		s.Message = strings.Clone(strings.TrimRight(strings.TrimSpace(what), "_*`"))
		for _, p := range parts[1:] {
			p = strings.TrimSpace(p)
			switch {
			case strings.HasPrefix(p, "on dev "):
				s.Dev = strings.Clone(p[len("on dev "):])
			case strings.HasPrefix(p, "curr state "):
				s.FromState = strings.Clone(p[len("curr state "):])
			case strings.HasPrefix(p, "next state "):
				s.ToState = strings.Clone(p[len("next state "):])
			case strings.HasPrefix(p, "local GID index "):
				s.GIDIndex = atoiOr(p[len("local GID index "):], -1)
			case strings.HasPrefix(p, "local GID "):
				s.LocalGID = strings.Clone(strings.TrimSpace(p[len("local GID "):]))
			case strings.HasPrefix(p, "remote GID "):
				s.RemoteGID = strings.Clone(strings.TrimSpace(p[len("remote GID "):]))
			}
		}
		return s
	}
	if i := strings.Index(msg, "ncclIbRoceGetVersionNum"); i >= 0 {
		s.Call = "ncclIbRoceGetVersionNum"
		what := strings.TrimSpace(strings.TrimPrefix(msg[i+len("ncclIbRoceGetVersionNum"):], ":"))
		if j := strings.Index(msg, " failed in "); j >= 0 {
			if k := strings.LastIndexByte(msg[:j], ' '); k >= 0 {
				what = msg[k+1:j] + " failed: " + what
			}
		}
		s.Message = strings.Clone(what)
	}
	return s
}
