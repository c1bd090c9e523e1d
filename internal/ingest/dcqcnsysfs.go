package ingest

import (
	"strconv"
	"strings"
)

// KindDCQCNSysfs is the mlx5 DCQCN settings read from or written to sysfs.
const KindDCQCNSysfs Kind = "dcqcn-sysfs"

// DCQCNSysfs is the per-interface DCQCN configuration of mlx5 NICs, from:
//
//	grep . /sys/class/net/*/ecn/roce_*/* /sys/class/net/*/ecn/roce_*/enable/*
//	/sys/class/net/eth0/ecn/roce_rp/rpg_ai_rate:5
//	/sys/class/net/eth0/ecn/roce_np/enable/3:1
//
// from the commands that set them (`echo 5 > PATH`, `echo 5 | sudo tee
// PATH`), from `cat PATH` followed by the value, and from the upstream
// kernel's debugfs (`/sys/kernel/debug/mlx5/<pci>/cc_params/rp_ai_rate`,
// whose names are mapped to the sysfs ones). Scripts that print "PATH =
// VALUE" (after a label of their own) are read too, and so is the RDMA
// device's traffic class (/sys/class/infiniband/<dev>/tc/<port>/
// traffic_class, "Global tclass=160"), which MLNX_OFED applies to every
// RoCE queue pair of the port.
type DCQCNSysfs struct {
	Scoped
	artifactHead
	// Interfaces are in the order first seen.
	Interfaces []DCQCNIface
	// TrafficClasses are the devices' forced traffic classes, in input
	// order.
	TrafficClasses []TrafficClass
}

// A TrafficClass is the traffic class (IP TOS byte: DSCP<<2 | ECN) an
// RDMA device's port marks its RoCE packets with.
type TrafficClass struct {
	Device   string
	Port     int
	TClass   int
	Evidence Evidence
}

// DSCP is the DSCP of the traffic class.
func (t TrafficClass) DSCP() int { return t.TClass >> 2 }

// maxDCQCNIfaces bounds the interfaces one artifact keeps.
const maxDCQCNIfaces = 1024

// A DCQCNIface is one netdev's (or, from debugfs, one PCI function's)
// settings.
type DCQCNIface struct {
	Name string
	// Params maps a sysfs attribute name (rpg_ai_rate, cnp_dscp, ...) to
	// its value.
	Params map[string]SysfsValue
	// RPEnable and NPEnable are the per-priority enable files; a priority
	// is absent when its file was not shown.
	RPEnable, NPEnable map[int]SysfsValue
}

// A SysfsValue is one attribute's value and the line that shows it.
type SysfsValue struct {
	Text     string
	Evidence Evidence
}

// Int returns the value as a number.
func (v SysfsValue) Int() (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 0, 64)
	return n, err == nil
}

// EnabledMask returns the priorities whose enable file is 1, as a bit mask,
// and whether any enable file was shown.
func EnabledMask(m map[int]SysfsValue) (uint8, bool) {
	var mask uint8
	for p, v := range m {
		if n, ok := v.Int(); ok && n != 0 {
			mask |= 1 << p
		}
	}
	return mask, len(m) > 0
}

// Kind implements Artifact.
func (d *DCQCNSysfs) Kind() Kind { return KindDCQCNSysfs }

type sysfsParser struct {
	out DCQCNSysfs
	// pending is a path a `cat` printed, waiting for its value line.
	pending string
}

// NewDCQCNSysfsParser returns a parser for DCQCN sysfs dumps and commands in
// the input src.
func NewDCQCNSysfsParser(src string) Parser {
	return &sysfsParser{out: DCQCNSysfs{artifactHead: artifactHead{src: src}}}
}

// debugfsNames maps the upstream debugfs cc_params names to sysfs names.
var debugfsNames = map[string]string{
	"rp_clamp_tgt_rate": "clamp_tgt_rate", "rp_clamp_tgt_rate_ati": "clamp_tgt_rate_after_time_inc",
	"rp_time_reset": "rpg_time_reset", "rp_byte_reset": "rpg_byte_reset", "rp_threshold": "rpg_threshold",
	"rp_ai_rate": "rpg_ai_rate", "rp_max_rate": "rpg_max_rate", "rp_hai_rate": "rpg_hai_rate",
	"rp_min_dec_fac": "rpg_min_dec_fac", "rp_min_rate": "rpg_min_rate", "rp_gd": "rpg_gd",
	"rp_rate_to_set_on_first_cnp": "rate_to_set_on_first_cnp", "rp_dce_tcp_g": "dce_tcp_g",
	"rp_dce_tcp_rtt": "dce_tcp_rtt", "rp_rate_reduce_monitor_period": "rate_reduce_monitor_period",
	"rp_initial_alpha_value": "initial_alpha_value", "np_min_time_between_cnps": "min_time_between_cnps",
	"np_cnp_dscp": "cnp_dscp", "np_cnp_prio_mode": "cnp_prio_mode", "np_cnp_prio": "cnp_802p_prio",
}

// sysfsPath splits a DCQCN sysfs or debugfs path into interface, point
// ("rp", "np" or "" for debugfs), attribute and priority (-1 when none).
func sysfsPath(p string) (iface, point, attr string, prio int, ok bool) {
	prio = -1
	if rest, found := strings.CutPrefix(p, "/sys/class/net/"); found {
		parts := strings.Split(rest, "/")
		if len(parts) < 4 || parts[1] != "ecn" || !isIdentName(parts[0]) {
			return "", "", "", 0, false
		}
		switch parts[2] {
		case "roce_rp":
			point = "rp"
		case "roce_np":
			point = "np"
		default:
			return "", "", "", 0, false
		}
		iface, attr = parts[0], parts[3]
		switch {
		case len(parts) == 5 && attr == "enable":
			n, err := strconv.Atoi(parts[4])
			if err != nil || n < 0 || n > 7 {
				return "", "", "", 0, false
			}
			prio = n
		case len(parts) != 4:
			return "", "", "", 0, false
		}
		return iface, point, attr, prio, attr != "" && isSysfsAttr(attr)
	}
	if rest, found := strings.CutPrefix(p, "/sys/kernel/debug/mlx5/"); found {
		parts := strings.Split(rest, "/")
		if len(parts) != 3 || parts[1] != "cc_params" || !isIdentName(parts[0]) {
			return "", "", "", 0, false
		}
		name, known := debugfsNames[parts[2]]
		return parts[0], "", name, -1, known
	}
	return "", "", "", 0, false
}

func isSysfsAttr(a string) bool {
	for i := 0; i < len(a); i++ {
		c := a[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return len(a) <= 64
}

func (p *sysfsParser) iface(name string) *DCQCNIface {
	for i := range p.out.Interfaces {
		if p.out.Interfaces[i].Name == name {
			return &p.out.Interfaces[i]
		}
	}
	if len(p.out.Interfaces) >= maxDCQCNIfaces {
		return nil
	}
	p.out.Interfaces = append(p.out.Interfaces, DCQCNIface{Name: name, Params: map[string]SysfsValue{},
		RPEnable: map[int]SysfsValue{}, NPEnable: map[int]SysfsValue{}})
	return &p.out.Interfaces[len(p.out.Interfaces)-1]
}

// trafficClassPath splits /sys/class/infiniband/<dev>/tc/<port>/
// traffic_class into device and port.
func trafficClassPath(p string) (dev string, port int, ok bool) {
	rest, found := strings.CutPrefix(p, "/sys/class/infiniband/")
	if !found {
		return "", 0, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 || parts[1] != "tc" || parts[3] != "traffic_class" || !isIdentName(parts[0]) {
		return "", 0, false
	}
	port, err := strconv.Atoi(parts[2])
	return parts[0], port, err == nil && port > 0
}

// setTrafficClass records a traffic_class value ("Global tclass=160",
// "tclass=160" or "160"); false when path or value is not one.
func (p *sysfsParser) setTrafficClass(path, value string, ev Evidence) bool {
	dev, port, ok := trafficClassPath(path)
	if !ok {
		return false
	}
	v := strings.TrimSpace(value)
	v = strings.TrimPrefix(v, "Global ")
	v = strings.TrimPrefix(v, "tclass=")
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 255 {
		return false
	}
	if len(p.out.TrafficClasses) < maxDCQCNIfaces {
		p.out.TrafficClasses = append(p.out.TrafficClasses, TrafficClass{Device: dev, Port: port, TClass: n, Evidence: ev})
	}
	return true
}

// set records value for the path; false when the path is not a DCQCN one.
func (p *sysfsParser) set(path, value string, ev Evidence) bool {
	if _, _, ok := trafficClassPath(path); ok {
		return p.setTrafficClass(path, value, ev)
	}
	name, point, attr, prio, ok := sysfsPath(path)
	value = strings.TrimSpace(value)
	if !ok || value == "" || len(value) > 64 || strings.ContainsAny(value, " \t") {
		return false
	}
	f := p.iface(name)
	if f == nil {
		return true
	}
	v := SysfsValue{Text: value, Evidence: ev}
	switch {
	case prio >= 0 && point == "rp":
		f.RPEnable[prio] = v
	case prio >= 0:
		f.NPEnable[prio] = v
	default:
		f.Params[attr] = v
	}
	return true
}

// Feed implements Parser.
func (p *sysfsParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	ev := At(p.out.src, l)
	pending := p.pending
	p.pending = ""
	if pending != "" && t != "" && !strings.Contains(t, "/") && p.set(pending, t, ev) {
		p.out.lines.add(l)
		return
	}
	if p.line(t, ev) {
		p.out.lines.add(l)
	}
}

func (p *sysfsParser) line(t string, ev Evidence) bool {
	i := strings.Index(t, "/sys/")
	if i < 0 {
		return false
	}
	head, path := t[:i], t[i:]
	// echo V > PATH, echo V | [sudo] tee [-a] PATH
	if j := strings.Index(head, "echo "); j >= 0 {
		val := strings.TrimSpace(head[j+len("echo "):])
		val = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(val, ">"), ">"))
		if k := strings.Index(val, "|"); k >= 0 {
			if !strings.Contains(val[k:], "tee") {
				return false
			}
			val = strings.TrimSpace(val[:k])
		}
		val = strings.Trim(val, `"'`)
		path = strings.TrimRight(strings.Fields(path)[0], ";")
		return p.set(path, val, ev)
	}
	// [label:] PATH = VALUE, as scripts print what they read.
	if k := strings.Index(path, " = "); k >= 0 && !strings.ContainsAny(path[:k], " \t") {
		return p.set(path[:k], path[k+3:], ev)
	}
	// cat PATH: the value is on the next line.
	if strings.HasSuffix(strings.TrimSpace(head), "cat") {
		if _, _, _, _, ok := sysfsPath(strings.Fields(path)[0]); ok {
			p.pending = strings.Fields(path)[0]
			return true
		}
		return false
	}
	// PATH:VALUE, as grep prints it for several files.
	if head != "" {
		return false
	}
	k := strings.LastIndexByte(path, ':')
	if k < 0 {
		return false
	}
	return p.set(path[:k], path[k+1:], ev)
}

// Result implements Parser.
func (p *sysfsParser) Result() Artifact {
	if p.out.lines.n == 0 || len(p.out.Interfaces) == 0 && len(p.out.TrafficClasses) == 0 {
		return nil
	}
	return &p.out
}
