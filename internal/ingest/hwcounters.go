package ingest

import (
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/counters"
)

// HWCounters holds RDMA port counters (np_cnp_sent, out_of_sequence,
// local_ack_timeout_err, ...) in any of the three forms engineers paste:
//
//	/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:1333   (grep -r . <dir>)
//	link mlx5_0/1 rx_write_requests 0 rx_read_requests 0 ...           (rdma statistic show)
//	Port 1 hw counters:                                                 (show_counters)
//	    np_cnp_sent: 1333
//	/sys/class/infiniband/rdmap0s31/ports/1/hw_counters/rx_drops        (more <dir>/* | cat: the
//	::::::::::::::                                                      path between lines of
//	0                                                                   colons, then the value)
//	=== ./link_downed ===                                               (a shell loop that echoes
//	255                                                                 each file's name, then cats
//	                                                                    it, in the directory its
//	                                                                    prompt or cd names)
//	==> np_cnp_sent <==                                                 (tail -n +1 or head of
//	1333                                                                several files, by name or path)
//	np_cnp_sent 1333                                                    (in a counter directory: a
//	np_cnp_sent:1333                                                    loop's echo or printf, grep . *)
//	/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent 1333   (echo $f $(cat $f) of paths)
//
// Port counters from .../ports/<p>/counters/ (port_rcv_packets, ...) are
// kept with the hw_counters of the same port. A name repeating for the same
// device and port starts a new dump, so before/after pastes become deltas.
type HWCounters struct {
	Scoped
	artifactHead
	// Samples holds one entry per device and port.
	Samples []CounterSample
	// Omitted counts counters and dumps dropped by the memory caps.
	Omitted int
	// Unreadable holds the first sysfs lines whose value is "N/A (no
	// PMA)": counters the device does not implement; UnreadableCount
	// counts them all and UnreadablePorts names their ports ("i40iw0/1").
	Unreadable      []Evidence
	UnreadableCount int
	UnreadablePorts []string
	// Garbled are the `rdma -j statistic` arrays that were cut before
	// their closing ']' or do not parse as JSON.
	Garbled []Garble
}

// Kind returns KindHWCounters.
func (h *HWCounters) Kind() Kind { return KindHWCounters }

type hwKey struct {
	dev  string
	port int
	// obj names the counter object of a per-QP line (qpObject); "" for the
	// port's own counters.
	obj string
	// origin is the host a pdsh or clush prefix names (Line.Origin): the
	// same port of two hosts is two ports, never one dump or a pair.
	origin string
	// tag is the torchrun-form tag of the lines when no prefix names
	// their host (Line.sourceTag): two tags are two sources.
	tag string
}

// of returns k as a port of the host line l's pdsh or clush prefix names.
func (k hwKey) of(l Line) hwKey {
	k.origin, k.tag = l.Origin, l.sourceTag()
	return k
}

// maxOpenPorts bounds the ports whose dumps are open at once.
const maxOpenPorts = 256

type hwParser struct {
	out   HWCounters
	open  map[hwKey]*CounterSet
	hosts map[hwKey]string // the host the input named before a port's dump
	order []hwKey
	// show_counters state
	section  bool
	secKey   hwKey
	lastDev  string // a device name seen on its own line or in a command
	linkOpen bool   // an `rdma -p statistic` "link dev/port" line awaits its counters
	// wrapOpen is set after an `rdma statistic` line of counters: the
	// tool wraps a port's long line, and its continuation lines (indented,
	// name value pairs only) belong to secKey. A mail or terminal that
	// wrapped it instead leaves the lines unindented and may split a
	// pair: pending is a counter name a line ended with, its value first
	// on the next.
	wrapOpen bool
	pending  string
	// qpns are the QP numbers `rdma statistic qp show` lists after a
	// counter object's counters ("LQPN: <258>"), by object.
	qpns     map[hwKey]string
	moreFile *moreFile
	// afterRule is set after a line of colons: a path alone on the next
	// is the name of the file `more` prints.
	afterRule bool
	// cwd is the counter directory a prompt or cd last named
	// ("/sys/class/infiniband/mlx5_1/ports/1/counters$ "), for a loop
	// that prints each file's bare name; cwdRead is set once a line of
	// it gave a value (cwdLine), so that the first line that is not one
	// ends the directory's listing.
	cwd     *hwKey
	cwdRead bool
	// cwdMax is the longest name the open listing printed, and cwdCut
	// its padded names the counters table does not know, completed when
	// the listing ends: only a name as long as the longest is one a
	// printf precision may have cut.
	cwdMax int
	cwdCut []cutName
	// cwdOpened is set on the line that opened the listing.
	cwdOpened bool
	// json gathers an `rdma -j statistic` array (hwcounters_json.go);
	// jsonNext is set after a command that prints one.
	json     jsonArray
	jsonNext bool
	jsonCmd  bool // the open array follows such a command
	// bare holds the "[" and "{" lines that may open a reformatted array.
	bare []Line
}

// NewHWCountersParser returns a parser for RDMA hw_counters in the input
// src.
func NewHWCountersParser(src string) Parser {
	return &hwParser{out: HWCounters{artifactHead: artifactHead{src: src}}, open: map[hwKey]*CounterSet{}, hosts: map[hwKey]string{}}
}

// Feed implements Parser.
func (p *hwParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	afterRule := p.afterRule
	p.afterRule = isMoreRule(t)
	if p.jsonLine(l, t) {
		return
	}
	if rest, ok := sysfsIBPath(t); ok && p.sysfsLine(l, rest, afterRule, strings.HasPrefix(t, "/sys/")) {
		p.out.lines.add(l)
		return
	}
	if p.bannerLine(l, t) {
		p.out.lines.add(l)
		return
	}
	if p.moreFile != nil {
		// `more FILES | cat` prints each file's path between two lines of
		// colons, then its content.
		if isMoreRule(t) {
			p.out.lines.add(l)
			return
		}
		f := *p.moreFile
		p.moreFile = nil
		if p.sysfsValue(f.path, f.key, f.name, t) {
			p.out.lines.add(l)
			return
		}
	}
	if p.cwd != nil && !p.section && p.cwdOpened {
		p.cwdOpened = false // the cd or prompt's own line
	} else if p.cwd != nil && !p.section {
		read, pair := p.cwdLine(l, t)
		if read {
			p.out.lines.add(l)
			return
		}
		// The listing is the output of the cd's (or prompt's) own
		// command or of the loop that follows it; any other line but a
		// name and its value ends it.
		if t != "" && !pair && (p.cwdRead || !isListingCommand(t)) {
			p.closeCwd()
		}
	}
	if strings.HasPrefix(t, "link ") {
		if p.rdmaLine(l, t) {
			p.out.lines.add(l)
			return
		}
	}
	if p.wrapOpen {
		if p.wrapped(l, t) {
			p.out.lines.add(l)
			return
		}
		p.wrapOpen, p.pending = false, ""
	}
	if c, ok := findCommand(t, "show_counters"); ok {
		p.closeCwd()
		if len(c.Args) > 0 && !strings.HasPrefix(c.Args[0], "-") {
			p.lastDev = c.Args[0]
		}
		p.out.lines.add(l)
		return
	}
	if port, ok := showCountersHeader(t); ok {
		p.closeCwd()
		p.section, p.linkOpen, p.wrapOpen = true, false, false
		p.secKey = hwKey{dev: p.lastDev, port: port}
		p.out.lines.add(l)
		return
	}
	if p.section {
		if name, v, ok := splitNameValue(t); ok {
			p.add(p.secKey, name, v, l)
			p.out.lines.add(l)
			return
		}
		if t == "" {
			return
		}
		p.section = false
	}
	if p.linkOpen {
		if name, v, ok := nameThenValue(strings.Fields(t), strings.HasPrefix(l.Text, " ") || strings.HasPrefix(l.Text, "\t")); ok {
			p.add(p.secKey, name, v, l)
			p.out.lines.add(l)
			return
		}
		p.linkOpen = false
	}
	if d := deviceLine(t); d != "" {
		p.lastDev = d
	}
}

// sysfsLine parses "<dev>/ports/<p>/hw_counters/<name>:<value>" (the part
// after .../infiniband/), or notes the path alone, as `more` prints it
// before the file's content. A name of several words the counters table
// does not know is read after a value or between `more`'s rules (inMore),
// where the path is the line's only content. A value after blanks is
// read only where the path starts the line (atStart), and then with a
// name of one word or one the table knows: "the file .../out_of_sequence
// shows 1234" is prose.
func (p *hwParser) sysfsLine(l Line, rest string, inMore, atStart bool) bool {
	path, val, ok := strings.Cut(rest, ":")
	valued := ok || inMore
	if !ok && atStart {
		if pth, v, cut := cutTrailingValue(rest); cut {
			path, val, ok = pth, v, true
		}
	}
	k, name, isCounter := sysfsCounterFile(path, valued)
	if !isCounter {
		return false
	}
	if !ok {
		p.moreFile = &moreFile{key: k, name: name, path: l}
		return true
	}
	return p.sysfsValue(l, k, name, val)
}

// bannerLine reads a prompt or cd that names a counter directory, and a
// shell loop's "=== ./<name> ===" banner of a counter file in it (or of
// a full sysfs path), whose value the next line holds. The banner bounds
// the name, so one of several words is read whether or not the counters
// table knows it.
func (p *hwParser) bannerLine(l Line, t string) bool {
	rest, inIB := sysfsIBPath(t)
	if inIB && !strings.HasPrefix(t, "==") {
		if dir, ok := cdInto(t); ok {
			if k, ok := sysfsCounterDir(dir); ok {
				p.openCwd(k)
			}
			return false
		}
		dir, cmd, prompt := strings.Cut(rest, "$")
		if !prompt {
			dir, cmd, prompt = strings.Cut(rest, "#")
		}
		dir = strings.TrimRight(strings.TrimSpace(dir), "/")
		if k, ok := sysfsCounterDir(dir); ok && prompt && (strings.TrimSpace(cmd) == "" || isListingCommand(cmd)) {
			p.openCwd(k)
		}
		return false
	}
	name, ok := fileBanner(t)
	if !ok {
		return false
	}
	if rest, ok := sysfsIBPath(name); ok {
		k, n, ok := sysfsCounterFile(rest, true)
		if !ok {
			return false
		}
		p.moreFile = &moreFile{key: k, name: n, path: l}
		return true
	}
	if p.cwd == nil || !isCounterFileName(name, true) {
		return false
	}
	p.moreFile = &moreFile{key: *p.cwd, name: strings.Clone(name), path: l}
	return true
}

// fileBanner returns the file a banner line names: a shell loop's
// "=== ./name ===" or the "==> name <==" tail and head print before each
// of several files; the name without its "./".
func fileBanner(t string) (string, bool) {
	for _, b := range [...][2]string{{"===", "==="}, {"==>", "<=="}} {
		inner, ok := strings.CutPrefix(t, b[0])
		if !ok || !strings.HasSuffix(inner, b[1]) || len(inner) < len(b[1])+1 {
			continue
		}
		return strings.TrimPrefix(strings.TrimSpace(strings.TrimSuffix(inner, b[1])), "./"), true
	}
	return "", false
}

// cwdLine reads a line of a listing of the counter directory p.cwd: a
// file's bare name and its value, as a loop in the directory prints them
// (`for f in *; do echo $f $(cat $f); done`, or printf's padded
// columns), or "name:value" as `grep . *` does. The line is not indented:
// the tools print the name first, where ethtool -S indents its counters.
// A name of several words is read when the counters table knows it
// (irdma's "Nak Sequence Error"; mlnx_qos's "Cable len: 7" is no
// counter). pair reports a name and a value that were not read (ls -l's
// "total 0", a driver's name of several words the table does not know),
// which does not end the listing.
func (p *hwParser) cwdLine(l Line, t string) (read, pair bool) {
	if t == "" || strings.HasPrefix(l.Text, " ") || strings.HasPrefix(l.Text, "\t") {
		return false, false
	}
	name, val, ok := strings.Cut(t, ":")
	padded := false
	if !ok {
		if name, val, ok = cutTrailingValue(t); !ok {
			return false, false
		}
		padded = strings.HasPrefix(t[len(name):], "  ")
	}
	name = strings.TrimSpace(name)
	if _, valueOK := parseCounterValue(strings.TrimSpace(val)); !valueOK && !strings.HasPrefix(strings.TrimSpace(val), "N/A") {
		return false, false
	}
	if name == "total" || !isCounterFileName(name, false) {
		return false, true
	}
	p.cwdMax = max(p.cwdMax, len(name))
	if _, _, known := counterTable().Lookup(name); padded && !known && len(name) >= minCutName {
		if v, ok := parseCounterValue(val); ok {
			p.cwdCut = append(p.cwdCut, cutName{key: *p.cwd, name: strings.Clone(name), v: v, l: l})
			p.cwdRead = true
			return true, true
		}
	}
	if !p.sysfsValue(l, *p.cwd, strings.Clone(name), val) {
		return false, true
	}
	p.cwdRead = true
	return true, true
}

// cutName is a padded name of a listing that a printf precision may have
// cut, with its value and line.
type cutName struct {
	key  hwKey
	name string
	v    uint64
	l    Line
}

// openCwd starts a listing of counter directory k.
func (p *hwParser) openCwd(k hwKey) {
	p.closeCwd()
	p.cwd, p.cwdOpened = &k, true
}

// closeCwd ends the open listing: its padded names as long as its longest
// are read as the names they were cut from (uncut), the others as printed.
func (p *hwParser) closeCwd() {
	for _, c := range p.cwdCut {
		name := c.name
		if len(name) == p.cwdMax {
			name = uncut(name)
		}
		p.add(c.key, name, c.v, c.l)
	}
	p.cwd, p.cwdRead, p.cwdMax, p.cwdCut, p.cwdOpened = nil, false, 0, nil, false
}

// isListingCommand reports a command that lists a counter directory's
// files with their values: a shell loop (its body's lines: echo, cat,
// done), grep, tail or head of several files, printf.
func isListingCommand(t string) bool {
	for _, tool := range [...]string{"for", "while", "do", "done", "grep", "tail", "head", "printf", "echo", "cat", "paste"} {
		if _, ok := findCommand(t, tool); ok {
			return true
		}
	}
	return false
}

// minCutName is the shortest name taken for one a fixed-width column cut:
// printf's "%-20.20s" cuts mlx5's longer names (np_ecn_marked_roce_packets
// to np_ecn_marked_roce_p), shorter widths would leave names too short to
// tell apart.
const minCutName = 16

// uncut returns the hw_counters name a padded column cut name from: the one
// name the counters table knows that starts with it, when it knows none
// name that is name itself, among hw_counters' names or else among
// counters/' (port_rcv_remote_phys); name otherwise.
func uncut(name string) string {
	if _, _, known := counterTable().Lookup(name); known || len(name) < minCutName {
		return name
	}
	for _, src := range [...]counters.Source{counters.HWCounters, counters.PortCounters} {
		if full, ok := counterTable().Completion(src, name); ok {
			return full
		}
	}
	return name
}

// cutTrailingValue splits "name value" at the last run of blanks when
// what follows it is a counter value or "N/A" (a counter the device does
// not implement, "N/A (no PMA)").
func cutTrailingValue(s string) (string, string, bool) {
	s = strings.TrimRight(s, " \t")
	if i := strings.Index(s, " N/A"); i > 0 {
		return strings.TrimSpace(s[:i]), s[i+1:], true
	}
	i := strings.LastIndexAny(s, " \t")
	if i <= 0 {
		return "", "", false
	}
	if _, ok := parseCounterValue(s[i+1:]); !ok {
		return "", "", false
	}
	return strings.TrimSpace(s[:i]), s[i+1:], true
}

// cdInto returns the directory under /sys/.../infiniband/ a cd enters,
// bare or after a shell prompt ("[root@h ~]# cd /sys/class/infiniband/...")
// and before the commands that follow it on its line ("&& for f in *; do
// ...", "; for ...", "|| exit").
func cdInto(t string) (string, bool) {
	c, ok := findCommand(t, "cd")
	if !ok || len(c.Args) == 0 {
		return "", false
	}
	arg, _, _ := strings.Cut(c.Args[0], "&&")
	arg, _, _ = strings.Cut(arg, "||")
	if len(c.Args) > 1 && c.Args[1] != "&&" && c.Args[1] != "||" {
		return "", false
	}
	rest, ok := sysfsIBPath(arg)
	return strings.TrimRight(rest, "/"), ok
}

// sysfsCounterDir parses "<dev>/ports/<p>/hw_counters" (or counters).
func sysfsCounterDir(dir string) (hwKey, bool) {
	k, _, ok := sysfsCounterFile(dir+"/x", true)
	return k, ok
}

// moreFile is a counter file whose path `more` printed, its value to come;
// the path's line, which names the counter, is the value's evidence.
type moreFile struct {
	key  hwKey
	name string
	path Line
}

// isMoreRule reports a line of colons, what `more` prints around a file's
// name when given several files.
func isMoreRule(t string) bool {
	return len(t) >= 3 && strings.Trim(t, ":") == ""
}

// sysfsCounterFile parses "<dev>/ports/<p>/hw_counters/<name>"; valued
// says a value follows the path on its line (see isCounterFileName).
func sysfsCounterFile(path string, valued bool) (hwKey, string, bool) {
	parts := strings.Split(path, "/")
	if len(parts) != 5 || parts[1] != "ports" || parts[3] != "hw_counters" && parts[3] != "counters" {
		return hwKey{}, "", false
	}
	port, err := strconv.Atoi(parts[2])
	if err != nil || !isCounterFileName(parts[4], valued) {
		return hwKey{}, "", false
	}
	return hwKey{dev: parts[0], port: port}, parts[4], true
}

// isCounterFileName reports a counter file's name: one counter-name word,
// or up to maxNameWords of them joined by single spaces, as irdma's GEN3
// counters are ("Nak Sequence Error", "RTO" beside them). A name of
// several words is read where a value follows it on the line (grep's
// "path:value"), or where a driver prints it (the counters table): a
// path followed by prose is no counter file.
func isCounterFileName(s string, valued bool) bool {
	if isCounterName(s) {
		return true
	}
	f := strings.Fields(s)
	if len(f) < 2 || len(f) > maxNameWords || strings.Join(f, " ") != s {
		return false
	}
	for _, w := range f {
		if !isCounterName(w) {
			return false
		}
	}
	if valued {
		return true
	}
	_, _, known := counterTable().Lookup(s)
	return known
}

// sysfsValue records the value val read from counter file name of port k,
// at line l.
func (p *hwParser) sysfsValue(l Line, k hwKey, name, val string) bool {
	v, ok := parseCounterValue(val)
	if !ok {
		if !strings.HasPrefix(strings.TrimSpace(val), "N/A") {
			return false
		}
		// The driver has no counter to give ("N/A (no PMA)": iWARP and
		// some RoCE devices implement no performance management agent).
		p.out.UnreadableCount++
		if len(p.out.Unreadable) < maxKept {
			p.out.Unreadable = append(p.out.Unreadable, At(p.out.src, l))
		}
		if port := k.dev + "/" + strconv.Itoa(k.port); !slices.Contains(p.out.UnreadablePorts, port) && len(p.out.UnreadablePorts) < maxKept {
			p.out.UnreadablePorts = append(p.out.UnreadablePorts, port)
		}
		return true
	}
	p.add(k, name, v, l)
	return true
}

// rdmaLine parses `rdma statistic show` output: "link mlx5_0/1 name value
// name value ...". A line with the link alone (pretty mode) opens a block of
// "name value" lines.
func (p *hwParser) rdmaLine(l Line, t string) bool {
	f := strings.Fields(t)
	if len(f) < 2 {
		return false
	}
	dev, ps, ok := strings.Cut(f[1], "/")
	port, err := strconv.Atoi(ps)
	if !ok || err != nil || dev == "" {
		return false
	}
	if slices.Contains(f, "state") || slices.Contains(f, "physical_state") {
		return false // `rdma link`: the port's state, no statistics
	}
	obj, rest := qpObject(f[2:])
	k := hwKey{dev: dev, port: port, obj: obj}
	if len(rest) == 0 {
		p.secKey, p.linkOpen = k, true
		return true
	}
	p.pending = ""
	n := p.rdmaPairs(k, l, rest)
	if n > 0 {
		p.secKey, p.wrapOpen = k, true
	}
	return n > 0
}

// wrapped reads line l (t trimmed) as the continuation of the open
// `rdma statistic` line when it is one: indented name/value pairs as the
// tool wraps them, or, unindented, nothing but pairs and the value of the
// name the line before ended with. "LQPN: <258>" after a counter object's
// counters names the QPs it counts.
func (p *hwParser) wrapped(l Line, t string) bool {
	f := strings.Fields(t)
	if p.secKey.obj != "" && len(f) == 2 && f[0] == "LQPN:" {
		if p.qpns == nil {
			p.qpns = map[hwKey]string{}
		}
		p.qpns[p.secKey.of(l)] = strings.Trim(f[1], "<>")
		p.wrapOpen, p.pending = false, ""
		return true
	}
	if p.pending != "" && len(f) > 0 {
		if _, ok := parseCounterValue(f[0]); !ok {
			// A wrap inside a name: "... Rcvd Out of" then "order packets 9".
			f = append(strings.Fields(p.pending), f...)
			p.pending = ""
		}
	}
	if t == l.Text && !pairsOnly(f, p.pending != "") {
		return false
	}
	n := 0
	if p.pending != "" && len(f) > 0 {
		if v, ok := parseCounterValue(f[0]); ok {
			p.add(p.secKey, p.pending, v, l)
			f, n = f[1:], 1
		}
	}
	p.pending = ""
	return p.rdmaPairs(p.secKey, l, f)+n > 0
}

// pairsOnly reports whether f is nothing but counter name/value pairs
// (a name of up to maxNameWords words), led by a lone value when value is
// set; a name may end it.
func pairsOnly(f []string, value bool) bool {
	if len(f) == 0 {
		return false
	}
	i := 0
	if value {
		if _, ok := parseCounterValue(f[0]); !ok {
			return false
		}
		i = 1
	}
	words := 0
	for ; i < len(f); i++ {
		if _, ok := parseCounterValue(f[i]); ok && words > 0 {
			words = 0
			continue
		}
		if !isCounterName(f[i]) || words == maxNameWords {
			return false
		}
		words++
	}
	return true
}

// qpAttrs are the attributes `rdma statistic qp show` prints after the
// link to say which counter object (bound to which QP of which process)
// the counters belong to; they are not counters.
var qpAttrs = []string{"cntn", "qp-type", "pid", "comm", "LQPN", "lqpn"}

// qpObject reads the counter object's attributes at the start of f ("cntn
// 4 qp-type RC pid 30489 comm ibv_rc_pingpong LQPN 178") into a name
// ("QP 178 of ibv_rc_pingpong, pid 30489", "counter 4" without a QP) and
// returns it with the fields after them; "" and f when there are none.
func qpObject(f []string) (string, []string) {
	attrs := map[string]string{}
	i := 0
	for i+1 < len(f) && slices.Contains(qpAttrs, f[i]) {
		attrs[strings.ToLower(f[i])] = f[i+1]
		i += 2
	}
	if i == 0 {
		return "", f
	}
	return qpName(attrs), f[i:]
}

// qpName names a counter object by its attributes (lower-case keys:
// cntn, lqpn, comm, pid): "QP 178 of ibv_rc_pingpong, pid 30489", or
// "counter 4" without a QP.
func qpName(attrs map[string]string) string {
	name := strings.TrimSpace("counter " + attrs["cntn"])
	if q := attrs["lqpn"]; q != "" {
		name = "QP " + q
	}
	if c := attrs["comm"]; c != "" {
		name += " of " + c
	}
	if pid := attrs["pid"]; pid != "" {
		name += ", pid " + pid
	}
	return name
}

// maxNameWords bounds a counter name of several words: irdma's GEN3
// counters ("Nak Sequence Error Implied", "Rcvd Out of order packets")
// are the only ones with spaces, and `rdma statistic` prints them as they
// are, so a name is every word since the last value.
const maxNameWords = 6

// rdmaPairs adds the "name value" pairs of f to port k and returns how
// many it read; a name of several words is joined with single spaces.
func (p *hwParser) rdmaPairs(k hwKey, l Line, f []string) int {
	n := 0
	var words []string
	skip := false // past maxNameWords: no name until the next value
	for _, w := range f {
		v, isValue := parseCounterValue(w)
		switch {
		case skip:
			skip = !isValue
		case isValue && len(words) > 0:
			p.add(k, strings.Join(words, " "), v, l)
			n++
			words = words[:0]
		case len(words) == maxNameWords:
			words, skip = words[:0], true
		case !isCounterName(w):
			words = words[:0]
		default:
			words = append(words, w)
		}
	}
	if len(words) > 0 && (n > 0 || len(words) == len(f)) {
		p.pending = strings.Join(words, " ") // its value is on the next line
	}
	return n
}

// nameThenValue reads a pretty-mode line "name value", the name of one or
// more words; several only on an indented line, as `rdma -p` prints its
// counters, so that free text after the block is not read as one.
func nameThenValue(f []string, indented bool) (string, uint64, bool) {
	if len(f) < 2 || len(f)-1 > maxNameWords || len(f) > 2 && !indented {
		return "", 0, false
	}
	v, ok := parseCounterValue(f[len(f)-1])
	if !ok {
		return "", 0, false
	}
	for _, w := range f[:len(f)-1] {
		if !isCounterName(w) {
			return "", 0, false
		}
	}
	return strings.Join(f[:len(f)-1], " "), v, true
}

// add records one counter of port k, starting a new dump when the name is
// already in the open one.
func (p *hwParser) add(k hwKey, name string, v uint64, l Line) {
	k = k.of(l)
	s := p.open[k]
	if s != nil && s.has(name) {
		p.flushKey(k)
		s = nil
	}
	if s == nil {
		if len(p.open) >= maxOpenPorts {
			p.out.Omitted++
			return
		}
		s = &CounterSet{Stamp: l.Stamp}
		p.open[k] = s
		if l.Host != "" {
			p.hosts[k] = l.Host
		}
		if l.Origin != "" {
			p.hosts[k] = l.Origin
		}
		p.order = append(p.order, k)
	}
	if !s.add(Counter{Name: name, Value: v, Evidence: At(p.out.src, l)}) {
		p.out.Omitted++
	}
}

// flushKey ends the open dump of port k.
func (p *hwParser) flushKey(k hwKey) {
	s := p.open[k]
	if s == nil {
		return
	}
	delete(p.open, k)
	for i, o := range p.order {
		if o == k {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	var ok bool
	obj := k.obj
	if q := p.qpns[k]; q != "" && !strings.HasPrefix(obj, "QP ") {
		obj += ", QP " + q
	}
	p.out.Samples, ok = mergeInto(p.out.Samples, CounterSample{Kind: KindHWCounters, Host: p.hosts[k], Device: k.dev, Port: k.port, Object: obj, Tag: k.tag, After: s}, nil)
	if !ok {
		p.out.Omitted++
	}
}

// Result implements Parser.
func (p *hwParser) Result() Artifact {
	if p.json.open() {
		p.garbleJSON(p.json.take(), "the array's closing ']' before the input ends (the rdma -j output is cut)")
	}
	p.closeCwd()
	for len(p.order) > 0 {
		p.flushKey(p.order[0])
	}
	if p.out.lines.n == 0 || len(p.out.Samples) == 0 && len(p.out.Unreadable) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}

// sysfsIBPath returns the part of a sysfs counter path after its
// "infiniband/" directory: /sys/class/infiniband/mlx5_0/ports/1/... or the
// device path the class link resolves to
// (/sys/devices/pci0000:05/.../infiniband/i40iw0/ports/1/...).
func sysfsIBPath(t string) (string, bool) {
	i := strings.Index(t, "/sys/")
	if i < 0 {
		return "", false
	}
	j := strings.Index(t[i:], "/infiniband/")
	if j < 0 {
		return "", false
	}
	return t[i+j+len("/infiniband/"):], true
}

// showCountersHeader parses "Port 1 hw counters:" or "Port 1 counters:".
func showCountersHeader(t string) (int, bool) {
	if !strings.HasPrefix(t, "Port ") || !strings.HasSuffix(t, "counters:") {
		return 0, false
	}
	f := strings.Fields(t)
	if len(f) < 3 || len(f) > 4 {
		return 0, false
	}
	port, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, false
	}
	return port, true
}

// deviceLine returns the RDMA device named alone on a line ("mlx5_0",
// "mlx5_0:", "Device: mlx5_0"), or "".
func deviceLine(t string) string {
	t = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(t, "Device:"), "device:"), ":")
	t = strings.TrimSpace(t)
	if strings.ContainsAny(t, " \t") || !isCounterName(t) {
		return ""
	}
	i := strings.LastIndexByte(t, '_')
	if i <= 0 || i == len(t)-1 {
		return ""
	}
	if _, err := strconv.Atoi(t[i+1:]); err != nil {
		return ""
	}
	return t
}
