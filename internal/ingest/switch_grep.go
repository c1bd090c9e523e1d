package ingest

import (
	"slices"
	"strings"
)

// A SONiC show command filtered through grep ("show queue counters | grep
// UC3") prints its rows without the header that names their columns; the
// command echoed above them names the table instead. Only commands whose
// header the rows cannot be read without are listed: `show queue counters`
// and `show queue wredcounters` print rows of the same shape.

// sonicShows are those commands after "show", each word in full, with the
// header the command prints above its rows.
var sonicShows = []struct {
	words  []string
	header string
}{
	{[]string{"queue", "counters"}, "Port TxQ Counter/pkts Counter/bytes Drop/pkts Drop/bytes"},
	{[]string{"queue", "wredcounters"}, "Port TxQ WredDrp/pkts WredDrp/bytes EcnMarked/pkts EcnMarked/bytes"},
	{[]string{"interfaces", "counters"}, "IFACE STATE RX_OK RX_BPS RX_UTIL RX_ERR RX_DRP RX_OVR TX_OK TX_BPS TX_UTIL TX_ERR TX_DRP TX_OVR"},
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
			if len(typed[j]) < 3 || !strings.HasPrefix(w, typed[j]) {
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
	k, cols := p.header(h)
	if k == swNone {
		return false
	}
	p.table, p.cols, p.spans, p.fresh, p.filtered = k, cols, nil, false, true
	p.out.lines.add(l)
	if host := promptHost(t[:strings.Index(t, "show")]); host != "" && p.out.Switch == "" {
		p.out.Switch = host
	}
	return true
}
