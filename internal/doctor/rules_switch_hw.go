package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over a switch's lower-level counters: SONiC's FEC histogram and
// packet trimming, Arista EOS's hardware drop counters.

// rsFECLimits is what the Reed-Solomon FECs of Ethernet repair per
// codeword: RS(528,514) 7 symbols, RS(544,514) 15.
const rsFECLimits = "RS(528,514), 25G-lane NRZ, repairs 7 symbol errors per codeword and RS(544,514), 50G and 100G-lane PAM4, 15"

// fecHistWarnBin is the lowest histogram bin that warns: a histogram
// does not say the port's speed, and RS(544,514) (IEEE 802.3 clauses 91
// and 119, t=15: 200/400/800G PAM4) repairs bins 8 to 12 as a matter of
// course, where RS(528,514) (clause 91, t=7: 25G-lane NRZ) could not.
const fecHistWarnBin = 13

// checkFECHistogram reports the worst bin a port's FEC histogram has
// codewords in: the margin left before FEC stops repairing.
func checkFECHistogram(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		worst := map[string]ingest.FECBin{}
		var ports []string
		var total = map[string]uint64{}
		for _, b := range s.FECBins {
			if _, ok := worst[b.Port]; !ok {
				ports = append(ports, b.Port)
				worst[b.Port] = ingest.FECBin{Bin: -1}
			}
			total[b.Port] += b.Codewords
			if b.Codewords > 0 && b.Bin > worst[b.Port].Bin {
				worst[b.Port] = b
			}
		}
		for _, port := range ports {
			w := worst[port]
			if w.Bin <= 0 {
				continue // no codeword held a symbol error
			}
			name := swName(s, port)
			if port == "" {
				name = "a port (the command naming it was not pasted)"
			}
			sev := Info
			note := ""
			switch {
			case w.Bin >= fecHistWarnBin:
				// the port's speed is not in the histogram: past 12 the
				// margin of even RS(544,514) is nearly gone
				sev = Warn
				note = " Past BIN7 a 25G-lane link's RS(528,514) loses the codeword; on a PAM4 link with RS(544,514) the margin to its 15 is " + plural(15-w.Bin, "symbol", "symbols") + "."
			case w.Bin > 7:
				note = " More than RS(528,514) repairs: on a 25G-lane (NRZ) link such codewords are lost; on a 200/400/800G (PAM4) link with RS(544,514), which repairs 15, bins 8-12 are normal."
			}
			fs = append(fs, Finding{
				ID: "switch.fec.histogram", Severity: sev, Layer: LayerFabric,
				Title:     fmt.Sprintf("%s: FEC histogram: the worst codewords held %s (BIN%d: %d of %d codewords)", name, plural(w.Bin, "symbol error", "symbol errors"), w.Bin, w.Codewords, total[port]),
				Evidence:  []Evidence{w.Evidence},
				Mechanism: "The histogram counts the codewords the port's Reed-Solomon FEC decoded by the symbol errors each held. " + rsFECLimits + "; a codeword past the limit is uncorrectable and the frames in it are lost (FEC_UNCORR in `show interfaces counters fec-stats`). Codewords in the low bins are normal on a PAM4 link; the highest bin reached is the margin the link has left." + note,
				Fix:       "Watch the high bins grow after a clear (`sonic-clear counters`); check the optic's power (`show interfaces transceiver eeprom --dom " + port + "`), clean and reseat the connectors, and compare both ends' FEC mode (the FEC column of `show interfaces status`).",
			})
		}
	}
	return fs
}

// checkQueueTrims reports queues that trimmed packets.
func checkQueueTrims(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, q := range s.Trims {
			if q.Trimmed <= 0 && q.Sent <= 0 && q.Dropped <= 0 {
				continue // Sent too: the other two may be N/A
			}
			name, where := swName(s, q.Port), sonicOnPort("show queue counters", q.Port)+" gives its traffic"
			switch {
			case q.Switch:
				name, where = swName(s, "all ports"), "`show queue counters --trim` names the ports and queues that trim (`show switch counters` sums them over the switch), `show queue counters` gives their traffic"
				if q.Namespace != "" {
					name += " (" + q.Namespace + ")"
				}
			case q.Type != "":
				name += fmt.Sprintf(" %s%d", q.Type, q.Queue)
			}
			fs = append(fs, Finding{
				ID: "switch.queue.trimmed", Severity: Warn, Layer: LayerFabric,
				Title:     name + ": " + trimCounts(q),
				Evidence:  []Evidence{q.Evidence},
				Mechanism: "Packet trimming cuts a packet that would be dropped for a full queue down to its headers and forwards those, so that a transport built for it (Ultra Ethernet's) learns of the loss at once and asks for the packet again; TrimDrop counts trimmed packets dropped after all. The payload is gone either way: for RoCEv2 a trimmed packet is a lost one (its ICRC no longer matches, and the NIC discards it), recovered by RC's go-back-N or the ACK timeout.",
				Fix:       "Keep RoCE off the queues that trim (its DSCP mapped to a lossless queue, TC_TO_QUEUE_MAP), or relieve the congestion on this queue; " + where + " and `show pfc counters` whether PFC acts there.",
			}.per(name, "queue", "Switch queues trimming packets"))
		}
	}
	return fs
}

// trimCounts says a queue's trim counts, a count the switch printed N/A
// as N/A: with one of the two N/A the trimmed total is only known to be
// at least the other ("N/A sent on, 1000 dropped"); with both unknown
// the trimmed count stands alone.
func trimCounts(q ingest.QueueTrim) string {
	n := func(v int64) string {
		if v < 0 {
			return "N/A"
		}
		return strconv.FormatInt(v, 10)
	}
	total := n(q.Trimmed)
	if q.Sent < 0 && q.Dropped < 0 {
		// queuestat -p's Trim/pkts column alone, or both printed N/A
		return total + " packets trimmed (how many were sent on and how many dropped after, not shown)"
	}
	if q.Trimmed < 0 {
		total = "at least " + strconv.FormatInt(max(q.Sent, 0)+max(q.Dropped, 0), 10)
	}
	return fmt.Sprintf("%s packets trimmed (%s sent on, %s dropped after trimming)", total, n(q.Sent), n(q.Dropped))
}

// hwDropKinds are EOS's drop types, in the order a reader cares.
var hwDropKinds = []struct {
	typ, name string
	sev       Severity
	mech      string
}{
	{"C", "congestion", Info, "Congestion (C) drops are packets a full queue (a VOQ on a Jericho or Trident) dropped: on a lossy class that is how TCP learns to slow down; only on RoCE's class, lossless, should PFC have paused the sender before. The counters do not name the class."},
	{"A", "adverse", Warn, "Adverse (A) drops are the hardware's own faults: a bad CRC on an internal or fabric link, a parity or memory error. They hit any traffic, RoCE included, and mean a chip or fabric link to look at."},
	{"P", "packet processor", Info, "Packet processor (P) drops are forwarding decisions (no route, a VLAN the port is not in, an empty multicast group, an ACL): no congestion, and RoCE's only if its own packets are what is misrouted."},
}

// checkHWDrops reports Arista EOS `show hardware counter drop` by type.
func checkHWDrops(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, k := range hwDropKinds {
			var total, rows uint64
			var ev []Evidence
			var counters []ingest.HWDrop
			for _, d := range s.HWDrops {
				if d.Type != k.typ {
					continue
				}
				if d.Chip == "" {
					total = d.Count
					ev = append([]Evidence{d.Evidence}, ev...)
					continue
				}
				rows += d.Count
				counters = append(counters, d)
			}
			total = max(total, rows)
			if total == 0 {
				continue
			}
			sort.SliceStable(counters, func(i, j int) bool { return counters[i].Count > counters[j].Count })
			var top []string
			for i, d := range counters {
				if i < 3 {
					top = append(top, fmt.Sprintf("%s %d on %s", d.Counter, d.Count, d.Chip))
				}
				if len(ev) < 8 {
					ev = append(ev, d.Evidence)
				}
			}
			title := fmt.Sprintf("%s: %d %s drops in the ASICs (EOS `show hardware counter drop`)", switchLabel(s), total, k.name)
			if len(top) > 0 {
				title += ": " + strings.Join(top, ", ")
			}
			fs = append(fs, Finding{
				ID: "switch.hw.drops", Severity: k.sev, Layer: LayerFabric,
				Title:     title,
				Evidence:  evidenceInOrder(ev),
				Mechanism: k.mech + " Counted since the counters were last cleared (First and Last Occurrence date each counter).",
				Fix:       "Find the ports behind the chips named and the queues that drop (`show interfaces counters queue drops`); for congestion drops on RoCE's class check PFC on it end to end (`show priority-flow-control counters`).",
			})
		}
	}
	return fs
}

// switchLabel names a switch for a finding about the whole switch.
func switchLabel(s *ingest.SwitchCounters) string {
	if s.Switch != "" {
		return s.Switch
	}
	return "The switch"
}
