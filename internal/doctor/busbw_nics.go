package doctor

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"rocelab/internal/ingest"
)

// When no log prints its "NET/IB : Using" list (a network plugin such as
// aws-ofi-nccl or gIB, or a log cut above it), the NICs a host uses can
// still be counted from NCCL's connection lines: "via NET/<net>/<i>" names
// device i of the network's list, and each rank prints its own lines. The
// count is exact only when the lines of every rank of the host are there;
// otherwise it is a lower bound (a log of rank 0 shows the one NIC rank 0
// uses), which can show a plateau low but never healthy. From NCCL 2.24
// an index may be a merged (virtual) device of several ports, so the host
// may have more NICs than indices then too.

// channelNICs is what the connection lines say about the NICs per host.
type channelNICs struct {
	nics    int    // most distinct device indices on one fully covered host
	atLeast bool   // nics is a lower bound: merged devices, or ranks' lines missing
	fewer   string // what shows only nics, when atLeast
	text    string
	ev      []Evidence
	// partial says why the count is not used, when lines exist but do not
	// cover every rank of a host.
	partial string
}

// nicsFromChannels counts the NICs per host from the NET connection lines
// of one NCCL log, given the ranks per host (0: unknown).
func nicsFromChannels(l *ingest.NCCLLog, ranks int) channelNICs {
	devs := map[string]uint64{}
	first := map[string]Evidence{}
	for _, c := range l.Channels {
		if c.Kind != "NET" || c.Devs == 0 {
			continue
		}
		devs[c.Host] |= c.Devs
		if _, ok := first[c.Host]; !ok {
			first[c.Host] = c.First
		}
	}
	if len(devs) == 0 {
		return channelNICs{}
	}
	seen := map[string]map[int]bool{}
	for _, hr := range l.ConnRanks {
		if seen[hr.Host] == nil {
			seen[hr.Host] = map[int]bool{}
		}
		seen[hr.Host][hr.Rank] = true
	}
	hosts := make([]string, 0, len(devs))
	for h := range devs {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var out channelNICs
	var short []string
	merged := false // some host's lines hold more ranks than it runs
	for _, h := range hosts {
		n := bits.OnesCount64(devs[h])
		name := h
		if name == "" {
			name = "the log's host"
		}
		if ranks > 0 && len(seen[h]) > ranks {
			// More ranks than a host runs: lines without a host name,
			// several hosts' run together.
			short = append(short, fmt.Sprintf("%s prints the connection lines of %d ranks, more than one host's %d", name, len(seen[h]), ranks))
			merged = true
			continue
		}
		if ranks == 0 || len(seen[h]) < ranks {
			of := "an unknown number"
			if ranks > 0 {
				of = fmt.Sprint(ranks)
			}
			short = append(short, fmt.Sprintf("%s prints the connection lines of %d of its %s ranks, over %s", name, len(seen[h]), of, plural(n, "NET device", "NET devices")))
		}
		if n > out.nics {
			out.nics, out.ev = n, []Evidence{first[h]}
		}
	}
	if merged {
		return channelNICs{partial: "NCCL's connection lines do not show one whole host: " + strings.Join(short, "; ") + ", so they do not count the host's NICs"}
	}
	if len(short) > 0 {
		// The ranks whose lines are missing may use other NICs, never
		// fewer: the devices seen are a lower bound, which can still show
		// a plateau low, never one healthy.
		out.atLeast, out.fewer = true, "the connection lines of the ranks present show"
		out.text = fmt.Sprintf("counted from NCCL's connection lines (\"via NET/<net>/<device>\"): at least %s in use on a host, as not every rank's lines are present (%s)", plural(out.nics, "device index", "device indices"), strings.Join(short, "; "))
		return out
	}
	at, known := l.AnyVersionAtLeast(2, 24)
	out.atLeast, out.fewer = at || !known, "NCCL's merged devices show"
	out.text = fmt.Sprintf("counted from NCCL's connection lines (\"via NET/<net>/<device>\"): %s in use on a host, every rank's lines present", plural(out.nics, "device index", "device indices"))
	if out.atLeast {
		out.text += "; from NCCL 2.24 an index may be a merged device of several ports, so the host has at least that many NICs"
	}
	return out
}

// withChannelNICs sets s's NICs per host from the first NCCL log whose
// connection lines count them, or says why none does.
func withChannelNICs(inc *Incident, s share) share {
	for _, l := range All[*ingest.NCCLLog](inc) {
		c := nicsFromChannels(l, s.ranks)
		if c.nics == 0 {
			if s.note == "" {
				s.note = c.partial
			}
			continue
		}
		s.nics, s.atLeast, s.fewer, s.ev, s.note = c.nics, c.atLeast, c.fewer, c.ev, ""
		s.text = fmt.Sprintf("%s per host share %s, %s", plural(max(s.ranks, 1), "rank", "ranks"), plural(c.nics, "NIC", "NICs"), c.text)
		return s
	}
	return s
}
