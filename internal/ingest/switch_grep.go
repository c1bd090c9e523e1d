package ingest

import (
	"slices"
	"strings"
)

// A SONiC show command filtered through grep ("show queue counters | grep
// UC3") prints its rows without the header that names their columns; the
// command echoed above them names the table instead. Only commands whose
// header the rows cannot be read without are listed: `show queue counters`
// and `show queue wredcounters` print rows of the same shape, and `show
// pfc counters` prints an Rx table and then a Tx table of the same shape
// (see grepPFC).

// sonicShows are those commands after "show", each word in full, with the
// header the command prints above its rows.
var sonicShows = []struct {
	words  []string
	header string
}{
	{[]string{"queue", "counters"}, "Port TxQ Counter/pkts Counter/bytes Drop/pkts Drop/bytes"},
	{[]string{"queue", "wredcounters"}, "Port TxQ WredDrp/pkts WredDrp/bytes EcnMarked/pkts EcnMarked/bytes"},
	{[]string{"interfaces", "counters"}, "IFACE STATE RX_OK RX_BPS RX_UTIL RX_ERR RX_DRP RX_OVR TX_OK TX_BPS TX_UTIL TX_ERR TX_DRP TX_OVR"},
	{[]string{"pfc", "counters"}, "Port Rx PFC0 PFC1 PFC2 PFC3 PFC4 PFC5 PFC6 PFC7"},
}

// grepPFC tells the rows of a filtered `show pfc counters` apart. SONiC
// (pfcstat) prints the Rx table of every port and then the Tx table of
// every port, so what a grep keeps of them is each port's Rx row before
// its Tx row: a port's first row is Rx, its second Tx. A third row of the
// same port belongs to no such output: it is kept in UnplacedPFC, unread. A command that
// cuts one table out first (sonic-mgmt's `show pfc counters | sed -n
// '/Port Tx/,/^$/p' | grep PORT`) names its direction instead.
type grepPFC struct {
	seen map[string]int
	// named is set when the command names the table: then no row alternates.
	named bool
}

// dir returns the direction of the next row of port, and false for a row
// the order cannot place.
func (g *grepPFC) dir(port string) (Dir, bool) {
	if g.named {
		return RX, true
	}
	if g.seen == nil {
		g.seen = map[string]int{}
	}
	n := g.seen[port]
	if n >= 2 || n == 0 && len(g.seen) >= maxSwitchRows {
		return RX, false
	}
	g.seen[port] = n + 1
	if n == 1 {
		return TX, true
	}
	return RX, true
}

// filteredShow returns the header of the SONiC show command t echoes when
// its output is piped through grep, or "". SONiC's CLI takes any prefix of
// a command word ("show queue counter", "show int counters"), so a typed
// word of three letters or more matches the words it begins.
func filteredShow(t string) string {
	cmd, pipe, ok := strings.Cut(t, "|")
	if !ok || !strings.Contains(pipe, "grep") {
		return ""
	}
	f := strings.Fields(cmd)
	for i := range f {
		f[i] = strings.Trim(f[i], "`*")
	}
	at := slices.Index(f, "show")
	if at < 0 {
		return ""
	}
	typed := f[at+1:]
	for _, s := range sonicShows {
		if len(typed) < len(s.words) {
			continue
		}
		match := true
		for j, w := range s.words {
			if !wordPrefix(typed[j], w) {
				match = false
				break
			}
		}
		if match {
			return s.header
		}
	}
	return ""
}

// startFiltered starts the table of a filtered show command echoed on line
// l; it reports whether t was one.
func (p *switchParser) startFiltered(l Line, t string) bool {
	h := filteredShow(t)
	if h == "" {
		return false
	}
	_, pipe, _ := strings.Cut(t, "|")
	named := strings.HasPrefix(h, "Port Rx") && (strings.Contains(pipe, "Port Rx") || strings.Contains(pipe, "Port Tx"))
	if named && strings.Contains(pipe, "Port Tx") {
		h = "Port Tx" + h[len("Port Rx"):]
	}
	k, cols := p.header(h)
	if k == swNone {
		return false
	}
	p.table, p.cols, p.spans, p.fresh, p.filtered = k, cols, nil, false, true
	p.grepPFC = grepPFC{named: named}
	p.titleNS = commandNamespace(t)
	p.out.lines.add(l)
	if host := promptHost(t[:showAt(t)]); host != "" && p.out.Switch == "" {
		p.out.Switch = host
	}
	return true
}

// showAt returns where the word "show" that starts the command in t
// begins, not a "show" inside the prompt's host name ("admin@showroom:~$
// show ..."), or len(t).
func showAt(t string) int {
	for i := 0; ; i++ {
		j := strings.Index(t[i:], "show")
		if j < 0 {
			return len(t)
		}
		i += j
		before := i == 0 || strings.ContainsRune(" \t`*", rune(t[i-1]))
		if after := i + len("show"); before && (after == len(t) || strings.ContainsRune(" \t`*", rune(t[after]))) {
			return i
		}
	}
}
