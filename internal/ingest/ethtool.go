package ingest

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"rocelab/internal/unit"
)

// EthtoolStats is what `ethtool -S <if>` dumps (mlx5, bnxt_en, be2net or any
// driver printing "name: value"), together with the `ethtool -i` driver,
// `ethtool <if>` speed and `ethtool -a` pause settings shown in the same
// input.
//
// A dump is a "NIC statistics:" block, or the "name: value" lines after an
// `ethtool -S` command line, or (for pastes filtered with grep) a run of
// lines whose names only ethtool prints (rx_prio3_bytes, rx_discards_phy,
// ...), or, when the paste lost the header, a run of "name: value" lines
// starting with an rx_/tx_ total that follows an `ethtool -i` block (driver,
// bus-info). A name repeating inside a run starts a new dump.
// Per-ring and per-queue counters (rx0_*, tx12_*, ch3_*, bnx2x's
// "[3]: rx_bytes", be2net's "rxq0: rx_pkts") are read but not kept: RoCE
// bypasses the rings.
type EthtoolStats struct {
	Scoped
	artifactHead
	// Samples holds one entry per port: a single dump, or a before/after
	// pair when the input has several dumps of the same interface.
	Samples []CounterSample
	// Speeds are the "Speed:" lines of `ethtool <if>`.
	Speeds []LinkSpeed
	// Pause holds the `ethtool -a <if>` settings.
	Pause []PauseSetting
	// FEC holds the `ethtool --show-fec <if>` settings and counts.
	FEC []FECSetting
	// Omitted counts counters and dumps dropped by the memory caps.
	Omitted int
	// Garbled are the `ethtool --json` arrays that were cut before their
	// brackets closed or do not parse, each at its first line's "[".
	Garbled []Garble
}

// A PauseSetting is one interface's 802.3x pause configuration from
// `ethtool -a`.
type PauseSetting struct {
	Device   string
	RX, TX   bool
	Evidence []Evidence
}

// Kind returns KindEthtool.
func (e *EthtoolStats) Kind() Kind { return KindEthtool }

// LinkSpeeds returns the speeds `ethtool <if>` printed.
func (e *EthtoolStats) LinkSpeeds() []LinkSpeed { return e.Speeds }

type ethtoolMode int

const (
	ethNone ethtoolMode = iota
	ethStats
	ethInfo
	ethSettings
	ethPause
	ethFEC
)

type ethtoolParser struct {
	out     EthtoolStats
	mode    ethtoolMode
	dev     string // interface of the current section
	host    string
	statDev string // interface of the last stats command, for bare dumps
	drivers map[string]string
	cur     *CounterSet
	pending bool // an ethtool -S command or header awaits its first counter
	pause   *PauseSetting
	fec     *FECSetting
	// fecLane is set after an uncorrectable_blocks line: the Lane lines
	// that follow are its per-lane counts.
	fecLane bool
	// info is set by an `ethtool -i` block's bus-info line after its driver
	// line: a run of rx_/tx_ counters that follows is a dump whose header
	// was lost.
	info      bool
	gotDriver bool
	rings     int // per-ring and per-queue counter lines read
	// openRank is the launcher rank of the line that opened the current
	// dump (its header or command), -1 for an untagged one.
	openRank int
	// origin is the host a pdsh or clush prefix names for every line
	// this parser reads, "" for the input's own; origins reads each
	// such host's lines apart (they may interleave), as if alone, and
	// so each torchrun-form tag's (Line.hostKey), which is no host: tag.
	origin  string
	tag     string
	origins map[string]*ethtoolParser
	// json gathers the lines of an `ethtool --json` array until its
	// brackets close; jsonNext is set after an ethtool --json command,
	// whose output may open with a bare "["; jsonCmd is set when the
	// array being gathered opened after one.
	json     jsonArray
	jsonNext bool
	jsonCmd  bool
	// headed is set when the dump being read opened with "NIC
	// statistics:" or an `ethtool -S` command: only then is a "# note"
	// after a value a person's (statLine).
	headed bool
}

// maxEthtoolOrigins bounds the hosts whose lines are read apart; lines of
// more hosts are read with the input's own.
const maxEthtoolOrigins = 1024

// NewEthtoolParser returns a parser for ethtool output in the input src.
func NewEthtoolParser(src string) Parser {
	return &ethtoolParser{out: EthtoolStats{artifactHead: artifactHead{src: src}}, drivers: map[string]string{}, openRank: -1}
}

// Feed implements Parser.
func (p *ethtoolParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	if l.hostKey() != "" && p.origin == "" && p.tag == "" {
		if o := p.ofOrigin(l); o != nil {
			o.Feed(l)
			return
		}
	}
	t := strings.TrimSpace(l.Text)
	if p.jsonLine(l, t) {
		return
	}
	if c, ok := findCommand(t, "ethtool"); ok && len(c.Args) > 0 {
		p.command(c)
		p.openRank = l.Rank()
		p.out.lines.add(l)
		return
	}
	if dev, ok := p.openStats(t); ok || strings.TrimSpace(withoutAnnotation(t)) == "NIC statistics:" {
		p.flush()
		if ok {
			p.statDev = dev
		}
		p.pending, p.openRank, p.headed = true, l.Rank(), true
		p.mode = ethStats
		p.out.lines.add(l)
		return
	}
	if mode, dev, ok := ethtoolSection(t); ok {
		p.flush()
		p.mode, p.dev = mode, dev
		p.pause, p.fec, p.fecLane = nil, nil, false
		p.out.lines.add(l)
		return
	}
	if p.mode == ethFEC && p.fecLine(l, t) {
		p.out.lines.add(l)
		return
	}
	if p.taggedQueue(l, t) || p.queueCounter(l, t) {
		p.out.lines.add(l)
		return
	}
	if name, v, ok := p.statLine(t); ok && p.counter(l, name, v) {
		p.out.lines.add(l)
		return
	}
	if t == "" {
		if p.cur != nil && p.cur.Len() > 0 {
			p.flush()
		}
		return
	}
	if p.cur != nil || p.pending {
		p.flush()
		p.pending = false
	}
	p.other(l, t)
}

// openStats reports whether t opens a dump of counters other than a
// driver's "NIC statistics:": the IEEE 802.3 statistics `ethtool -S IF
// --groups eth-phy eth-mac` or --all-groups prints under "Standard stats
// for IF:", or the pause frame counts `ethtool --include-statistics -a`
// prints under "Statistics:" (tx_pause_frames, rx_pause_frames). Either
// names its interface, which openStats returns.
func (p *ethtoolParser) openStats(t string) (string, bool) {
	if dev, ok := strings.CutPrefix(t, "Standard stats for "); ok && strings.HasSuffix(dev, ":") && isIdentName(strings.TrimSuffix(dev, ":")) {
		return strings.TrimSuffix(dev, ":"), true
	}
	if t == "Statistics:" && p.mode == ethPause {
		return p.dev, true
	}
	return "", false
}

// ethtoolSection returns the section a header line opens ("Settings for
// eth2:", "Pause parameters for eth2:", "FEC parameters for eth2:") and
// its interface.
func ethtoolSection(t string) (ethtoolMode, string, bool) {
	for _, s := range []struct {
		prefix string
		mode   ethtoolMode
	}{{"Settings for ", ethSettings}, {"Pause parameters for ", ethPause}, {"FEC parameters for ", ethFEC}} {
		if dev, ok := strings.CutPrefix(t, s.prefix); ok && strings.HasSuffix(dev, ":") {
			return s.mode, strings.TrimSuffix(dev, ":"), true
		}
	}
	return ethNone, "", false
}

// ofOrigin returns the parser of the lines a pdsh or clush prefix, or
// torchrun's tag, gives to l's source (Line.hostKey), nil beyond the cap. It starts from the input's own last
// `ethtool -S` command: the one pdsh ran on every host.
func (p *ethtoolParser) ofOrigin(l Line) *ethtoolParser {
	key := l.hostKey()
	if o := p.origins[key]; o != nil {
		return o
	}
	if len(p.origins) >= maxEthtoolOrigins {
		return nil
	}
	if p.origins == nil {
		p.origins = map[string]*ethtoolParser{}
	}
	o := NewEthtoolParser(p.out.src).(*ethtoolParser)
	o.origin, o.tag = strings.Clone(l.Origin), strings.Clone(l.sourceTag())
	o.statDev, o.pending, o.mode = p.statDev, p.pending, p.mode
	p.origins[strings.Clone(key)] = o
	return o
}

// command starts the section an ethtool command line announces.
func (p *ethtoolParser) command(c shellCommand) {
	p.flush()
	p.host = c.Host
	mode, dev := ethSettings, ""
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		m := ethNone
		switch a {
		case "-S", "--statistics":
			m = ethStats
		case "-i", "--driver":
			m = ethInfo
		case "-a", "--show-pause":
			m = ethPause
		case "--show-fec":
			m = ethFEC
		}
		if m != ethNone {
			mode = m
			if i+1 < len(c.Args) && isIdentName(c.Args[i+1]) {
				dev = c.Args[i+1]
			}
			break
		}
		if i == 0 && !strings.HasPrefix(a, "-") && isIdentName(a) {
			dev = a
		}
	}
	p.mode, p.dev = mode, dev
	p.jsonNext = slices.Contains(c.Args, "--json") || slices.Contains(c.Args, "-j")
	if mode == ethStats {
		p.pending, p.headed = true, true
		p.statDev = dev
	}
	if mode == ethPause {
		p.pause = nil
	}
	if mode == ethFEC {
		p.fec, p.fecLane = nil, false
	}
}

// counter handles one "name: value" line; it reports whether the line was
// taken as an ethtool counter.
func (p *ethtoolParser) counter(l Line, name string, v uint64) bool {
	if cumulusName(name) {
		// A Cumulus switch port's counters: the switch reader's.
		return false
	}
	if p.cur == nil {
		if !p.pending && !ethtoolOnlyName(name) && !(p.info && ethtoolFirst(name)) {
			return false
		}
		if !p.pending {
			p.openRank = l.Rank() // a header-less dump opens here
			p.headed = false
		}
		p.pending = false
		p.cur = &CounterSet{Stamp: l.Stamp}
		p.mode = ethStats
	} else if p.cur.has(name) {
		p.flush()
		p.cur = &CounterSet{Stamp: l.Stamp}
	}
	if p.host == "" && l.Host != "" {
		p.host = l.Host
	}
	if perRing(name) {
		p.rings++
		return true
	}
	if !p.cur.add(Counter{Name: name, Value: v, Evidence: At(p.out.src, l)}) {
		p.out.Omitted++
	}
	return true
}

// other handles settings, driver and pause lines.
func (p *ethtoolParser) other(l Line, t string) {
	key, val, ok := strings.Cut(t, ":")
	if !ok {
		return
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	switch {
	case key == "driver" && val != "" && !strings.ContainsAny(val, " \t"):
		p.drivers[p.dev] = val
		p.gotDriver = true
		p.out.lines.add(l)
	case key == "bus-info" && p.gotDriver:
		p.info = true
		p.out.lines.add(l)
	case key == "Speed" && p.mode == ethSettings:
		if r, err := unit.ParseRate(val); err == nil && r > 0 {
			host := p.origin
			if host == "" {
				host = cmp.Or(p.host, l.Host)
			}
			p.out.Speeds = append(p.out.Speeds, LinkSpeed{Host: strings.Clone(host), Device: p.dev, Rate: r, Evidence: At(p.out.src, l)})
			p.out.lines.add(l)
		}
	case (key == "RX" || key == "TX") && p.mode == ethPause && (val == "on" || val == "off"):
		if p.pause == nil {
			p.out.Pause = append(p.out.Pause, PauseSetting{Device: p.dev})
			p.pause = &p.out.Pause[len(p.out.Pause)-1]
		}
		if key == "RX" {
			p.pause.RX = val == "on"
		} else {
			p.pause.TX = val == "on"
		}
		p.pause.Evidence = append(p.pause.Evidence, At(p.out.src, l))
		p.out.lines.add(l)
	}
}

// flush ends the current dump.
func (p *ethtoolParser) flush() {
	if p.cur == nil {
		return
	}
	if p.cur.Len() > 0 {
		host := p.host
		if p.origin != "" {
			host = p.origin
		}
		s := CounterSample{Kind: KindEthtool, Host: host, Device: p.statDev, Tag: p.tag, After: p.cur}
		var ok bool
		if p.out.Samples, ok = mergeInto(p.out.Samples, s, nil); !ok {
			p.out.Omitted++
		}
	}
	p.cur = nil
}

// Result implements Parser.
func (p *ethtoolParser) Result() Artifact {
	p.endJSON()
	p.flush()
	for _, origin := range slices.Sorted(maps.Keys(p.origins)) {
		o := p.origins[origin]
		o.endJSON()
		o.flush()
		p.out.lines.n += o.out.lines.n
		p.out.Omitted += o.out.Omitted
		p.rings += o.rings
		for _, s := range o.out.Samples {
			if s.Driver == "" {
				s.Driver = o.drivers[s.Device]
			}
			var ok bool
			if p.out.Samples, ok = mergeInto(p.out.Samples, s, nil); !ok {
				p.out.Omitted++
			}
		}
		p.out.Speeds = append(p.out.Speeds, o.out.Speeds...)
		p.out.Pause = append(p.out.Pause, o.out.Pause...)
		p.out.FEC = append(p.out.FEC, o.out.FEC...)
		p.out.Garbled = append(p.out.Garbled, o.out.Garbled...)
	}
	if p.out.lines.n == 0 || len(p.out.Samples) == 0 && len(p.out.Speeds) == 0 && len(p.out.Pause) == 0 && len(p.out.FEC) == 0 && len(p.out.Garbled) == 0 && p.rings == 0 {
		return nil
	}
	for i := range p.out.Samples {
		s := &p.out.Samples[i]
		if s.Driver == "" {
			s.Driver = p.drivers[s.Device]
		}
	}
	return &p.out
}

// ethtoolOnlyName reports whether name is one only ethtool -S prints, so a
// run of "name: value" lines starting with it is an ethtool dump even
// without a header (e.g. `ethtool -S eth0 | grep prio` or `| grep pause`
// pasted alone): a name the counters table knows from some driver
// (rx_pause_frames, tx_pause_ctrl_phy, rx_out_of_buffer), or one of the
// shapes of mlx5's and bnxt's names.
func ethtoolOnlyName(n string) bool {
	return isEthtoolName(n) || strings.HasSuffix(n, "_phy") || strings.HasPrefix(n, "rx_prio") || strings.HasPrefix(n, "tx_prio") ||
		strings.Contains(n, "_vport_") || strings.HasPrefix(n, "pfc_pri") || strings.Contains(n, "_pfc_") ||
		strings.Contains(n, "_bytes_pri") || strings.Contains(n, "_packets_pri") || strings.Contains(n, "_cos")
}

// statLine splits a counter line of a dump. Inside a dump opened by "NIC
// statistics:" or an `ethtool -S` command, a note a person wrote after the
// value, "386  # symbol errors: 386" (a blog's or runbook's annotated
// dump), is cut: the program prints no "#" after a value. Elsewhere a
// commented "name: value" line is no counter.
func (p *ethtoolParser) statLine(t string) (string, uint64, bool) {
	name, v, ok := splitNameValue(t)
	if !ok && p.headed && p.mode == ethStats && (p.pending || p.cur != nil) {
		return splitNameValue(withoutAnnotation(t))
	}
	return name, v, ok
}

// withoutAnnotation cuts a note a person wrote after a line's text, at a
// "#" after a space or tab.
func withoutAnnotation(t string) string {
	if i := strings.Index(t, "#"); i > 0 && (t[i-1] == ' ' || t[i-1] == '\t') {
		return t[:i]
	}
	return t
}

// queueCounter takes a per-queue line inside a dump: bnx2x's
// "[3]: rx_bytes: 209487403324" or be2net's "rxq0: rx_bytes: 176801887745990".
// Like per-ring counters they are counted but not kept.
func (p *ethtoolParser) queueCounter(l Line, t string) bool {
	q, rest, ok := strings.Cut(t, ": ")
	if !ok || !ethtoolQueue(q) {
		return false
	}
	if _, _, ok := splitNameValue(rest); !ok {
		return false
	}
	return p.takeQueue(l)
}

// taggedQueue takes bnx2x's "[3]: rx_bytes: N" lines whose queue prefix the
// line cleaner took for a launcher's rank tag (the paste lost the
// indentation): inside a dump whose header carried no tag, a tagged
// counter line is a queue's, not another rank's.
func (p *ethtoolParser) taggedQueue(l Line, t string) bool {
	if l.Rank() < 0 || p.openRank >= 0 {
		return false
	}
	if _, _, ok := splitNameValue(t); !ok {
		return false
	}
	return p.takeQueue(l)
}

// takeQueue counts a per-queue line; the first one right after the header
// or command opens the dump.
func (p *ethtoolParser) takeQueue(l Line) bool {
	if p.cur == nil {
		if !p.pending {
			return false
		}
		p.pending = false
		p.cur = &CounterSet{Stamp: l.Stamp}
		p.mode = ethStats
	}
	p.rings++
	return true
}

// ethtoolQueue reports whether q names a queue the way drivers prefix
// per-queue counters: "[3]", "rxq0", "txq12".
func ethtoolQueue(q string) bool {
	if len(q) > 2 && q[0] == '[' && q[len(q)-1] == ']' {
		return isDigits(q[1 : len(q)-1])
	}
	for _, pre := range []string{"rxq", "txq"} {
		if len(q) > len(pre) && strings.HasPrefix(q, pre) {
			return isDigits(q[len(pre):])
		}
	}
	return false
}

// ethtoolFirst reports whether name can open a header-less dump after an
// `ethtool -i` block: drivers print their rx_/tx_ totals first (rx_packets,
// tx_bytes), while ibv_devinfo's "phys_port_cnt: 1" and the like cannot.
func ethtoolFirst(name string) bool {
	return strings.HasPrefix(name, "rx") || strings.HasPrefix(name, "tx")
}

// perRing reports whether name is a per-ring or per-channel counter such as
// rx0_packets, tx12_bytes or ch3_events.
func perRing(n string) bool {
	i := 0
	for i < len(n) && (n[i] >= 'a' && n[i] <= 'z' || n[i] == '_') {
		i++
	}
	prefix := n[:i]
	j := i
	for j < len(n) && n[j] >= '0' && n[j] <= '9' {
		j++
	}
	if j == i || j >= len(n) || n[j] != '_' {
		return false
	}
	switch prefix {
	case "rx", "tx", "ch", "ptp", "xsk", "rx_xsk", "tx_xsk", "qos_tx", "rxq", "txq", "queue_":
		return true
	}
	return false
}
