package ingest

import (
	"cmp"
	"strings"
)

// KindIPLink is iproute2's `ip -s link` (and `ip -s addr`): the kernel's
// statistics of each network device.
const KindIPLink Kind = "ip-link"

// IPLink holds the device statistics `ip -s link`, `ip -s -s link` and
// `ip -j -s link` print (struct rtnl_link_stats64, as the netlink reply
// carries it): under each interface's line, a row of column names and a
// row of values for RX and TX, and with -s -s a row each for their
// errors. iproute2 has printed two layouts:
//
//	RX: bytes  packets  errors  dropped overrun mcast           (before 5.10)
//	RX errors: length   crc     frame   fifo    missed
//	RX:  bytes packets errors dropped  missed   mcast           (5.10 on)
//	RX errors:  length    crc   frame    fifo overrun
//
// so a value is read by its column's name, and named as the kernel names
// the field (ip's "crc" is rx_crc_errors, "missed" rx_missed_errors,
// "transns" carrier_changes): the counters table reads rx_errors,
// rx_crc_errors, rx_missed_errors and rx_dropped as the concepts the
// rules judge, so an `ip -s link` dump is judged as a driver's ethtool -S
// is. `ip -h` prints large values with a unit (6.04T): those are not
// counts and are left out. The JSON form names the same fields
// ("stats64": {"rx": {"crc_errors": 0, ...}}).
//
// Loopback devices are left out; a device with a peer (a pod's
// eth0@if102, a veth, a VLAN) is read under its own name (eth0), as
// ethtool names it.
type IPLink struct {
	Scoped
	artifactHead
	// Samples holds one entry per interface (kind KindIPLink): a single
	// dump, or a before/after pair when the input prints it twice.
	Samples []CounterSample
	// Omitted counts counters and dumps dropped by the memory caps.
	Omitted int
	// Garbled are the rows of values that do not go on as their row of
	// names says, and the JSON arrays that do not parse or are cut.
	Garbled []Garble
}

// Kind returns KindIPLink.
func (p *IPLink) Kind() Kind { return KindIPLink }

// ipLinkNames maps the columns of each row `ip -s link` prints to the
// kernel's names of the fields they show (iproute2 ip/ipaddress.c,
// print_stats64).
var ipLinkNames = map[string]map[string]string{
	"RX:": {"bytes": "rx_bytes", "packets": "rx_packets", "errors": "rx_errors", "dropped": "rx_dropped",
		"missed": "rx_missed_errors", "overrun": "rx_over_errors", "mcast": "multicast", "compressed": "rx_compressed",
		"nohandler": "rx_nohandler", "otherhost": "rx_otherhost_dropped"},
	"RX errors:": {"length": "rx_length_errors", "crc": "rx_crc_errors", "frame": "rx_frame_errors", "fifo": "rx_fifo_errors",
		"missed": "rx_missed_errors", "overrun": "rx_over_errors", "nohandler": "rx_nohandler", "otherhost": "rx_otherhost_dropped"},
	"TX:": {"bytes": "tx_bytes", "packets": "tx_packets", "errors": "tx_errors", "dropped": "tx_dropped",
		"carrier": "tx_carrier_errors", "collsns": "collisions", "compressed": "tx_compressed"},
	"TX errors:": {"aborted": "tx_aborted_errors", "fifo": "tx_fifo_errors", "window": "tx_window_errors",
		"heartbeat": "tx_heartbeat_errors", "heartbt": "tx_heartbeat_errors", "transns": "carrier_changes", "carrier": "tx_carrier_errors"},
}

// ipLinkState is what one host's lines (the input's own, or a pdsh
// prefix's) have opened: the interface and the row of names waiting for
// its values.
type ipLinkState struct {
	dev  string // the interface being read; "" outside one or for a left-out one
	host string
	cur  *CounterSet
	row  string   // the row whose names wait for their values ("RX:"), "" for none
	cols []string // its column names
	// ifconfig is set while ifconfig's blocks are read; netstat holds
	// the columns of `netstat -i`'s header while its rows are read.
	ifconfig bool
	netstat  []string
}

type ipLinkParser struct {
	out    IPLink
	states originStates[ipLinkState]
	json   ipLinkJSON
}

// NewIPLinkParser returns a parser for `ip -s link` output in the input
// src.
func NewIPLinkParser(src string) Parser {
	return &ipLinkParser{out: IPLink{artifactHead: artifactHead{src: src}}, states: newOriginStates(func() *ipLinkState { return &ipLinkState{} })}
}

// Feed implements Parser.
func (p *ipLinkParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if p.jsonLine(l, t) {
		return
	}
	st := p.states.get(l.Origin)
	if st == nil {
		return
	}
	if p.netTools(l, st, t) {
		return
	}
	if dev, kept, ok := ipLinkInterface(t, l.Rank() >= 0); ok {
		p.flush(st)
		st.row, st.cols, st.ifconfig = "", nil, false
		if kept {
			st.dev, st.host = strings.Clone(dev), strings.Clone(cmp.Or(l.Origin, l.Host))
			st.cur = &CounterSet{Stamp: l.Stamp}
		}
		return
	}
	if st.dev == "" {
		return
	}
	if strings.HasPrefix(t, "link/") {
		if strings.HasPrefix(t, "link/loopback") {
			st.dev, st.cur = "", nil
		}
		return
	}
	if row, cols, ok := ipLinkRow(t); ok {
		st.row, st.cols = row, cols
		p.out.lines.add(l)
		return
	}
	if st.row == "" || t == "" {
		return
	}
	p.values(l, st)
	st.row, st.cols = "", nil
}

// values reads the row of values under st's row of names.
func (p *ipLinkParser) values(l Line, st *ipLinkState) {
	fields, starts := fieldsAt(l.Text)
	if len(fields) != len(st.cols) {
		at := len(l.Text) - len(strings.TrimLeft(l.Text, " \t"))
		p.garble(garbleAt(l, at, itoa(len(st.cols))+" values under "+strconvQuote(st.row+" "+strings.Join(st.cols, " "))+", one per column"))
		return
	}
	names := ipLinkNames[st.row]
	for i, f := range fields {
		v, ok := parseCounterValue(f)
		if !ok {
			if ipHumanValue(f) {
				continue // `ip -h`: 6.04T is no count
			}
			p.garble(garbleAt(l, starts[i], "a count under "+strconvQuote(st.cols[i])))
			return
		}
		name := names[st.cols[i]]
		if name == "" || st.cur.has(name) {
			continue
		}
		if !st.cur.add(Counter{Name: name, Value: v, Evidence: At(p.out.src, l)}) {
			p.out.Omitted++
		}
	}
	p.out.lines.add(l)
}

// garble records a row that does not read, up to a bound.
func (p *ipLinkParser) garble(g Garble) {
	if len(p.out.Garbled) < maxEthtoolGarbled {
		p.out.Garbled = append(p.out.Garbled, g)
	}
}

// flush ends st's interface.
func (p *ipLinkParser) flush(st *ipLinkState) {
	if st.cur != nil && st.cur.Len() > 0 {
		p.keep(CounterSample{Kind: KindIPLink, Host: st.host, Device: st.dev, After: st.cur})
	}
	st.dev, st.cur = "", nil
}

// keep joins s to the samples.
func (p *ipLinkParser) keep(s CounterSample) {
	var ok bool
	if p.out.Samples, ok = mergeInto(p.out.Samples, s, nil); !ok {
		p.out.Omitted++
	}
}

// flushAll ends every host's interface, in the order of the hosts'
// names.
func (p *ipLinkParser) flushAll() {
	for _, st := range p.states.sorted() {
		p.flush(st)
	}
}

// Result implements Parser.
func (p *ipLinkParser) Result() Artifact {
	p.endJSON()
	p.flushAll()
	if p.out.lines.n == 0 || len(p.out.Samples) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}

// ipLinkInterface reads an interface's first line, "2: eth0:
// <BROADCAST,...> mtu 1500 ...": its name without its peer's (eth0@if102
// is eth0), and whether it is one to read (not lo). The line cleaner
// takes the index for a launcher's rank tag (srun's "2: "): tagged says
// it did.
func ipLinkInterface(t string, tagged bool) (dev string, kept, ok bool) {
	rest := t
	if idx, after, found := strings.Cut(t, ": "); found && isDigits(idx) {
		rest = after
	} else if !tagged {
		return "", false, false
	}
	name, rest, found := strings.Cut(rest, ": ")
	if !found || !strings.HasPrefix(rest, "<") || name == "" {
		return "", false, false
	}
	name, _, _ = strings.Cut(name, "@")
	if name == "lo" || !isIdentName(name) {
		return name, false, true
	}
	return name, true, true
}

// ipLinkRow reads a row of column names: "RX: bytes packets errors ...",
// "TX errors: aborted fifo ...".
func ipLinkRow(t string) (string, []string, bool) {
	for _, row := range []string{"RX errors:", "TX errors:", "RX:", "TX:"} {
		rest, ok := strings.CutPrefix(t, row)
		if !ok {
			continue
		}
		cols := strings.Fields(rest)
		if len(cols) == 0 {
			return "", nil, false
		}
		for _, c := range cols {
			if _, known := ipLinkNames[row][c]; !known {
				return "", nil, false
			}
		}
		return row, cols, true
	}
	return "", nil, false
}

// ipHumanValue reports whether f is a value `ip -h` printed with a unit:
// digits, a point and a letter, 6.04T or 67.7M.
func ipHumanValue(f string) bool {
	if len(f) < 2 || !strings.ContainsRune("KMGTP", rune(f[len(f)-1])) {
		return false
	}
	num := f[:len(f)-1]
	whole, frac, _ := strings.Cut(num, ".")
	return isDigits(whole) && (frac == "" || isDigits(frac))
}

// fieldsAt splits s at spaces and tabs, with the byte offset each field
// starts at.
func fieldsAt(s string) ([]string, []int) {
	var fields []string
	var starts []int
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if j > i {
			fields = append(fields, s[i:j])
			starts = append(starts, i)
		}
		i = j
	}
	return fields, starts
}
