package ingest

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// KindRDMAResource is iproute2's `rdma resource` (`rdma res`): the RDMA
// objects the kernel tracks, each queue pair with its state and owner.
const KindRDMAResource Kind = "rdma-resource"

// RDMAResource holds what `rdma resource` printed (iproute2's rdma/res*.c):
//
//	link mlx5_0/1 lqpn 9 pdn 4 rqpn 0 type RC state INIT rq-psn 0 sq-psn 0 path-mig-state MIGRATED pid 548 comm ibv_rc_pingpong
//	link mlx5_4/- lqpn 8 type UD state RESET sq-psn 0 pid 0 comm [ib_ipoib]
//	link mlx4_0/1 lqpn 539 qp-type RC state CONNECT ps TCP pid 30494 comm rping src-addr 172.16.99.1:7174 dst-addr 172.16.99.1:43670
//	link mlx5_0/- cm-idn 0 state LISTEN ps TCP pid 30485 comm rping src-addr 0.0.0.0:7174
//	0: ibp8s0f0: pd 3 cq 4 qp 3 cm_id 0 mr 0 ctx 0 srq 2
//
// the QPs of `res show qp` (a port "-" is one the QP is not bound to yet;
// a kernel owner's name is in brackets, and older iproute2 prints "pid 0"
// before it; `-dd` adds the driver's attributes on the line or, with -p,
// on indented lines under it), the RDMA CM ids of `res show cm_id` (since
// iproute2 5.1 "cm-idn N" first, and "lqpn" and "qp-type" only for a CM
// id with a QP), and
// the per-device counts of `rdma resource [show]`. `rdma -j res show qp`
// prints the QPs as a JSON array of objects ("ifname", "port", "lqpn",
// "type", "state", "pid", "comm"), on one line or spread over many with
// -p; `rdma -j res show cm_id` its CM ids, "cm-idn" for a listener's
// missing "lqpn".
type RDMAResource struct {
	Scoped
	artifactHead
	QPs       []RDMAQP
	CMIDs     []RDMACMID
	Summaries []RDMAResSummary
	// Garbled are QP lines whose number or state does not read.
	Garbled []Garble
	// Omitted counts objects past the bound.
	Omitted int
}

// An RDMAQP is one queue pair `rdma res show qp` lists.
type RDMAQP struct {
	Host   string // pdsh prefix or prompt, else ""
	Device string // "mlx5_0"
	Port   int    // 0 when the QP is bound to no port yet ("mlx5_4/-")
	LQPN   uint32
	// RQPN is the remote QP number of a connected QP, -1 when not printed.
	RQPN int64
	// Type is "RC", "UC", "UD", "GSI", "SMI", "XRC_INI", "XRC_TGT",
	// "RAW_PACKET", "DRIVER", ...; State "RESET", "INIT", "RTR", "RTS",
	// "SQD", "SQE", "ERR" or "UNKNOWN".
	Type, State string
	// PID is the owner's process id, 0 for the kernel or when not printed.
	PID int
	// Comm is the owner's command name without brackets; Kernel is set
	// when the kernel owns the QP (its name printed in brackets, or no
	// pid beside it in JSON).
	Comm     string
	Kernel   bool
	Stamp    Stamp
	Evidence Evidence
}

// Connected reports whether the QP's type is a connected one (RC, UC,
// XRC), whose ERR state means its connection broke.
func (q RDMAQP) Connected() bool {
	switch q.Type {
	case "RC", "UC", "XRC_INI", "XRC_TGT":
		return true
	}
	return false
}

// An RDMACMID is one RDMA CM id `rdma res show cm_id` lists.
type RDMACMID struct {
	Host, Device string
	Port         int
	LQPN         uint32 // 0 when it has no QP yet (a listener)
	// QPType is "RC", "UD", ... ("" with no QP); State the CM id's ("LISTEN", "CONNECT",
	// "ADDR_RESOLVED", "DISCONNECT", "DEVICE_REMOVAL", ...).
	QPType, State string
	PID           int
	Comm          string
	Src, Dst      string // "172.16.2.1:7174", "" when not printed
	Evidence      Evidence
}

// An RDMAResSummary is one device's line of `rdma resource`: how many QPs
// and CM ids it holds.
type RDMAResSummary struct {
	Host, Device string
	QPs, CMIDs   uint64
	Evidence     Evidence
}

// Kind returns KindRDMAResource.
func (r *RDMAResource) Kind() Kind { return KindRDMAResource }

// MaxRDMAObjects bounds the QPs (and CM ids, summaries) kept; a
// 16-GPU NCCL job holds a few thousand QPs per host.
const MaxRDMAObjects = 1 << 16

// qpStates are the states iproute2 prints (rdma/res-qp.c).
var qpStates = []string{"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN"}

type rdmaResParser struct {
	out  RDMAResource
	json rdmaResJSON
}

// NewRDMAResourceParser returns a parser for `rdma resource` output in the
// input src.
func NewRDMAResourceParser(src string) Parser {
	return &rdmaResParser{out: RDMAResource{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *rdmaResParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if p.json.feed(p, l, t) {
		return
	}
	switch {
	case p.summaryLine(l, t):
	case p.objectLine(l, t):
	default:
		return
	}
	p.out.lines.add(l)
}

// objectLine reads a QP or CM id line: "link DEV/PORT" (or a device name
// alone, as a poster shortens it) and then its "key value" pairs, lqpn
// first.
func (p *rdmaResParser) objectLine(l Line, t string) bool {
	f, starts := fieldsAt(t)
	i := 0
	if len(f) > 0 && f[0] == "link" {
		i = 1
	}
	if len(f) < i+5 || f[i+1] != "lqpn" && f[i+1] != "cm-idn" {
		return false
	}
	dev, port, ok := rdmaLink(f[i])
	if !ok {
		return false
	}
	kv := map[string]string{}
	at := map[string]int{}
	for j := i + 1; j+1 < len(f); j += 2 {
		if _, dup := kv[f[j]]; !dup {
			kv[f[j]], at[f[j]] = f[j+1], j+1
		}
	}
	// A CM id prints "qp-type" where a QP prints "type"; since iproute2
	// 5.1 its "cm-idn" comes first, and "lqpn" and "qp-type" only when
	// it has a QP (a listener has none).
	cmID := kv["type"] == ""
	_, hasQPN := kv["lqpn"]
	if kv["state"] == "" || cmID && kv["qp-type"] == "" && kv["cm-idn"] == "" || !cmID && !hasQPN {
		return false
	}
	off := len(l.Text) - len(strings.TrimLeft(l.Text, " \t"))
	var lqpn uint64
	if hasQPN {
		var err error
		if lqpn, err = strconv.ParseUint(kv["lqpn"], 10, 32); err != nil {
			p.garble(l, off+starts[at["lqpn"]], "the local QP number (lqpn), a number")
			return true
		}
	}
	host := strings.Clone(cmp.Or(l.Origin, l.Host))
	pid, _ := strconv.Atoi(kv["pid"])
	comm, kernel := rdmaComm(kv["comm"])
	if cmID {
		p.addCMID(RDMACMID{Host: host, Device: dev, Port: port, LQPN: uint32(lqpn),
			QPType: strings.Clone(kv["qp-type"]), State: strings.Clone(kv["state"]), PID: pid, Comm: comm,
			Src: strings.Clone(kv["src-addr"]), Dst: strings.Clone(kv["dst-addr"]), Evidence: At(p.out.src, l)})
		return true
	}
	q := RDMAQP{Host: host, Device: dev, Port: port, LQPN: uint32(lqpn), RQPN: -1, Type: strings.Clone(kv["type"]),
		State: strings.Clone(kv["state"]), PID: pid, Comm: comm, Kernel: kernel, Stamp: l.Stamp, Evidence: At(p.out.src, l)}
	if r, err := strconv.ParseInt(kv["rqpn"], 10, 64); err == nil {
		q.RQPN = r
	}
	if !qpState(q.State) {
		p.garble(l, off+starts[at["state"]], "a QP state (RESET, INIT, RTR, RTS, SQD, SQE, ERR or UNKNOWN)")
		return true
	}
	p.addQP(q)
	return true
}

// addQP keeps q, or counts it past the bound.
func (p *rdmaResParser) addQP(q RDMAQP) {
	if len(p.out.QPs) >= MaxRDMAObjects {
		p.out.Omitted++
		return
	}
	p.out.QPs = append(p.out.QPs, q)
}

// addCMID keeps c, or counts it past the bound.
func (p *rdmaResParser) addCMID(c RDMACMID) {
	if len(p.out.CMIDs) >= MaxRDMAObjects {
		p.out.Omitted++
		return
	}
	p.out.CMIDs = append(p.out.CMIDs, c)
}

// garble records a QP line that does not read at byte i of l.Text.
func (p *rdmaResParser) garble(l Line, i int, expected string) {
	if len(p.out.Garbled) < maxEthtoolGarbled {
		p.out.Garbled = append(p.out.Garbled, garbleAt(l, i, expected))
	}
}

// qpState reports whether s is a QP state iproute2 prints.
func qpState(s string) bool { return slices.Contains(qpStates, s) }

// rdmaLink reads "mlx5_0/1" (a port), "mlx5_4/-" (no port) or a device
// name alone.
func rdmaLink(s string) (string, int, bool) {
	name, ps, slash := strings.Cut(s, "/")
	if !isIdentName(name) {
		return "", 0, false
	}
	port := 0
	if slash && ps != "-" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 255 {
			return "", 0, false
		}
		port = n
	}
	return strings.Clone(name), port, true
}

// rdmaComm is an owner's name without the brackets that mark the kernel's.
func rdmaComm(s string) (string, bool) {
	if in, ok := strings.CutPrefix(s, "["); ok && strings.HasSuffix(in, "]") {
		return strings.Clone(strings.TrimSuffix(in, "]")), true
	}
	return strings.Clone(s), false
}

// summaryLine reads a device's line of `rdma resource`: "0: mlx5_0: pd 3
// cq 4 qp 3 cm_id 0 mr 0 ctx 0 srq 2" (older iproute2 without ctx and
// srq); the device index may have come off as a launcher's tag (srun's
// "0: ").
func (p *rdmaResParser) summaryLine(l Line, t string) bool {
	f := strings.Fields(t)
	if len(f) > 0 && strings.HasSuffix(f[0], ":") {
		if _, err := strconv.Atoi(strings.TrimSuffix(f[0], ":")); err == nil {
			f = f[1:]
		}
	}
	if len(f) < 7 || !strings.HasSuffix(f[0], ":") {
		return false
	}
	dev := strings.TrimSuffix(f[0], ":")
	if !isIdentName(dev) {
		return false
	}
	s := RDMAResSummary{Host: strings.Clone(cmp.Or(l.Origin, l.Host)), Device: strings.Clone(dev), Evidence: At(p.out.src, l)}
	seen := 0
	for j := 1; j+1 < len(f); j += 2 {
		n, err := strconv.ParseUint(f[j+1], 10, 64)
		if err != nil {
			return false
		}
		switch f[j] {
		case "qp":
			s.QPs = n
			seen++
		case "cm_id":
			s.CMIDs = n
		case "pd", "cq":
			seen++
		}
	}
	if seen < 3 {
		return false
	}
	if len(p.out.Summaries) >= MaxRDMAObjects {
		p.out.Omitted++
		return true
	}
	p.out.Summaries = append(p.out.Summaries, s)
	return true
}

// Result implements Parser.
func (p *rdmaResParser) Result() Artifact {
	p.json.end(p)
	if len(p.out.QPs) == 0 && len(p.out.CMIDs) == 0 && len(p.out.Summaries) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
