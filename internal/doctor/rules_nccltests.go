package doctor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// ncclTestsRules are the rules over nccl-tests tables: bandwidth against
// what the NIC allows, and data corruption.
func ncclTestsRules() []Rule {
	return []Rule{
		{IDs: []string{"nccltests.busbw.low", "nccltests.busbw.ok", "nccltests.busbw.unjudged", "nccltests.sizes.small", "nccltests.rows.none"}, Check: checkBusBW},
		{IDs: []string{"nccltests.busbw.falls"}, Check: checkBusBWFalls},
		{IDs: []string{"nccltests.busbw.dip"}, Check: checkBusBWDip},
		{IDs: []string{"nccltests.busbw.halves"}, Check: checkBusBWHalves},
		{IDs: []string{"nccltests.busbw.rerun"}, Check: checkBusBWRerun},
		{IDs: []string{"nccltests.wrong"}, Check: checkWrong},
		{IDs: []string{"nccltests.minbw.failed"}, Check: checkMinBW},
		{IDs: []string{"nccltests.pass.stalled"}, Check: checkStalledPass},
	}
}

// Bandwidth judgement thresholds. A NIC delivers 96-98% of its line rate as
// busbw: the nccl-tests maintainers quote ~12 GB/s per 100G NIC
// (github.com/NVIDIA/nccl-tests/issues/29), 24 GB/s per 200G (issues/119)
// and 48-49 GB/s per 400G ConnectX-7 (issues/267).
const (
	lowFraction     = 0.90 // below this share of line rate busbw is low
	veryLowFraction = 0.50 // below this it is an error
	ceilingLo       = 0.96
	ceilingHi       = 0.98
)

// sharePct is frac as a whole percentage, rounded down where rounding
// would reach one of the thresholds it fell short of, so that a share
// judged below a line never reads as meeting it (0.897 of the line is
// "89%", not "90%").
func sharePct(frac float64, thresholds ...float64) int {
	p := math.Round(frac * 100)
	for _, t := range thresholds {
		if frac < t && p >= t*100 {
			p = math.Floor(frac * 100)
		}
	}
	return int(p)
}

// gbps converts a busbw in GB/s (10^9 bytes/s) to Gb/s.
func gbps(gbs float64) float64 { return gbs * 8 }

func fmtGB(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func fmtGb(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// sizeSpan names a plateau's sizes: "1GiB-8GiB", or "4GiB" for one size.
func sizeSpan(p ingest.Plateau) string {
	if p.MinSize == p.MaxSize {
		return unit.Bytes(p.MinSize).Human()
	}
	return unit.Bytes(p.MinSize).Human() + "-" + unit.Bytes(p.MaxSize).Human()
}

// checkBusBW judges the busbw plateau of every nccl-tests run against the
// NIC's line rate, and names the incident's bottlenecks as likely causes.
func checkBusBW(inc *Incident) []Finding {
	var fs []Finding
	sp := jobSpan(inc)
	for _, t := range All[*ingest.NCCLTests](inc) {
		speed, speedKnown := speedOf(inc, t.Scope())
		for i, r := range t.Runs {
			if len(r.Rows) == 0 {
				// A failed call explains an empty table (nccltests.failed).
				// A split launch's preambles are reported as the split
				// (nccltests.ranks.split), not as runs cut short.
				if r.FooterOnly() {
					if f, ok := footerRun(inc, r, sp, speed, speedKnown); ok {
						fs = append(fs, f.per(t.Source()+" "+collName(r), "run", testName(r)+" bandwidth"))
					}
					continue
				}
				if len(r.Truncated) == 0 && r.GarbledRows == 0 && t.FailureCount == 0 && (r.Header.Line > 0 || !splitRun(t, r)) {
					if f, ok := noRows(r, i == len(t.Runs)-1); ok {
						fs = append(fs, f.per(t.Source()+" "+collName(r), "run", "nccl-tests tables without a size"))
					}
				}
				continue
			}
			if oneRank(inc, t, r) {
				fs = append(fs, oneRankRun(r).per(t.Source()+" "+collName(r), "run", "nccl-tests on one rank"))
				continue
			}
			p, ok := r.Plateau()
			if !ok {
				fs = append(fs, smallSizes(r).per(t.Source()+" "+collName(r), "run", "nccl-tests too small to judge"))
				continue
			}
			if splitRun(t, r) {
				fs = append(fs, splitPlateau(r, p).per(t.Source()+" "+collName(r), "run", testName(r)+" bandwidth"))
				continue
			}
			if nv, ok := mnnvl(inc, t.Scope()); ok {
				fs = append(fs, mnnvlPlateau(r, p, nv).per(t.Source()+" "+collName(r), "run", testName(r)+" bandwidth"))
				continue
			}
			fs = append(fs, judgePlateau(inc, r, p, sp, speed, speedKnown).per(t.Source()+" "+collName(r), "run", testName(r)+" bandwidth"))
		}
	}
	return fs
}

// oneRank reports whether run r ran on a single rank: one rank line, no
// split launch, and no NCCL log of its file or host showing a larger
// communicator.
func oneRank(inc *Incident, t *ingest.NCCLTests, r *ingest.TestRun) bool {
	if splitRun(t, r) {
		return false
	}
	if r.RankCount == 0 && r.RankSpan == 0 {
		// No rank lines: busbw 0 beside a real algbw on every row is a bus
		// factor of 0, (n-1)/n with n = 1.
		algbw := false
		for _, row := range r.Rows {
			if row.Out.BusBW > 0 || row.In.BusBW > 0 {
				return false
			}
			algbw = algbw || row.Measured().AlgBW >= 1
		}
		return algbw
	}
	if r.RankCount != 1 || r.RankSpan > 1 || len(r.Ranks) != 1 {
		return false
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.Comm.Ranks > 1 && reachOf(t.Scope(), l.Scope()) >= sameHost {
			return false
		}
	}
	return true
}

// oneRankRun reports a run on one rank: nothing it prints measures a
// transport.
func oneRankRun(r *ingest.TestRun) Finding {
	who := "busbw 0 beside algbw up to " + fmtGB(maxAlgBW(r)) + " GB/s: a bus factor of 0"
	var ev []Evidence
	if len(r.Ranks) == 1 {
		rk := r.Ranks[0]
		who, ev = fmt.Sprintf("%s device %d", rk.Host, rk.Device), []Evidence{rk.Evidence}
	}
	return Finding{
		ID: "nccltests.busbw.unjudged", Severity: Info, Layer: LayerNCCL,
		Title:     fmt.Sprintf("%s ran on one rank (%s): its busbw is 0 by definition and no byte crossed a NIC or a GPU link", testName(r), who),
		Evidence:  append(ev, r.Rows[len(r.Rows)-1].Evidence),
		Mechanism: "busbw is algbw times the collective's bus factor, (n-1)/n or 2(n-1)/n, which is 0 for n = 1; a collective of one rank is a copy within the GPU (nothing at all in place), so its time and algbw measure the GPU's memory, not NCCL's transport.",
		Fix:       "Run on several GPUs (-g 8, or mpirun -np N with one GPU per process) and across nodes (mpirun over two hosts) to measure the GPU links and the network.",
	}
}

// maxAlgBW is the run's largest out-of-place algbw (GB/s), or in-place
// when the table measured only that.
func maxAlgBW(r *ingest.TestRun) float64 {
	var m float64
	for _, row := range r.Rows {
		m = max(m, row.Measured().AlgBW)
	}
	return m
}

// unjudgedPlateau reports a run's plateau without judging it against a
// NIC, for the reason given after "not judged", citing the largest rows
// and the lines that give the reason.
func unjudgedPlateau(r *ingest.TestRun, p ingest.Plateau, why, mech, fix string, because ...Evidence) Finding {
	var ev evidence
	ev.add(because...)
	for _, row := range p.Rows[max(0, len(p.Rows)-3):] {
		ev.add(row.Evidence)
	}
	return Finding{
		ID: "nccltests.busbw.unjudged", Severity: Info, Layer: LayerNCCL,
		Title:     fmt.Sprintf("%s busbw plateau %s GB/s at %s not judged%s", testName(r), fmtGB(p.BusBW), sizeSpan(p), why),
		Evidence:  ev.sorted(),
		Mechanism: mech,
		Fix:       fix,
	}
}

// splitPlateau reports the plateau of a run whose processes ran as
// independent jobs without judging it: its busbw is no fabric's figure
// (one rank's busbw is 0: the bus factor (n-1)/n vanishes).
func splitPlateau(r *ingest.TestRun, p ingest.Plateau) Finding {
	return unjudgedPlateau(r, p, ": the processes ran as independent jobs (nccltests.ranks.split)",
		"Each process of a split launch is a communicator of its own GPUs: its rows measure no byte crossing the network (a 1-rank job prints busbw 0, its bus factor (n-1)/n being 0), and several processes' rows interleave in one table.",
		"Fix the launch first (nccltests.ranks.split), then judge the busbw of one multi-process run.")
}

// mnnvl returns the line of an NCCL log, of the run's host or one that
// does not say its host, that says the communicator spans a multi-node
// NVLink domain ("comm ... MNNVL 1").
func mnnvl(inc *Incident, at ingest.Scope) (Evidence, bool) {
	for _, l := range All[*ingest.NCCLLog](inc) {
		if l.Comm.MNNVL.Line > 0 && reachOf(at, l.Scope()) != otherHost {
			return l.Comm.MNNVL, true
		}
	}
	return Evidence{}, false
}

// mnnvlPlateau leaves unjudged a run whose ranks share one NVLink domain
// across nodes: no NIC carries its data.
func mnnvlPlateau(r *ingest.TestRun, p ingest.Plateau, nv Evidence) Finding {
	return unjudgedPlateau(r, p, " against a NIC: NCCL says MNNVL 1, so its nodes share one NVLink domain",
		"NCCL 2.2x prints MNNVL 1 when the communicator's GPUs sit in one multi-node NVLink domain (GB200/GB300 NVL72 trays through NVLink switches): NCCL then moves data between those nodes over NVLink (P2P and NVLS), and the RDMA NICs carry none of it, so this busbw measures the NVLink fabric.",
		"To judge the RDMA network, rerun across NVLink domains or with NCCL_MNNVL_ENABLE=0 (and NCCL_NVLS_ENABLE=0), and compare with the NICs' line rate.", nv)
}

// noRows reports a table whose header came and no size after it:
// nccl-tests prints a size's row when its iterations are done. A run
// whose output ends in its preamble (the parameters or the device list)
// and rank lines before any header is reported at info: nothing was
// measured, and nothing says whether the job ran on. So is the last run
// of an output that ends in its banner, before any rank line (last).
func noRows(r *ingest.TestRun, last bool) (Finding, bool) {
	if r.HeaderCut.Line > 0 {
		return Finding{
			ID: "nccltests.rows.none", Severity: Info, Layer: LayerInput,
			Title:     fmt.Sprintf("%s: the output ends inside the table's header, its units line cut mid-line: nothing measured, nothing judged", testName(r)),
			Evidence:  []Evidence{r.Header, r.HeaderCut},
			Mechanism: "nccl-tests prints the header's three lines at once, the units line ending in \"(GB/s)\", and a row per size after it. A units line that stops before its end was cut where the output stops (a paste, an excerpt, a log not yet flushed): it says nothing of whether the first collective finished.",
			Fix:       "Give the job's whole output, from its header to the \"Avg bus bandwidth\" line.",
		}, true
	}
	if r.Header.Line > 0 {
		return Finding{
			ID: "nccltests.rows.none", Severity: Warn, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s printed its table header and no size: the first collective never finished, or the output was cut", testName(r)),
			Evidence:  []Evidence{r.Header},
			Mechanism: "nccl-tests prints a size's row once that size's iterations are done; a header with nothing under it is a job that hung or died in its first collective (a wrong GID or route, a peer that never connected, a crash), unless the output was cut there.",
			Fix:       "Read the end of the job's output and its NCCL log (NCCL_DEBUG=INFO) for a WARN, a timeout or a crash at the first size; if the output was cut, give all of it.",
		}, true
	}
	// A banner alone is no run cut short: independent processes print
	// one each, and their rank lines and table follow the last one. The
	// output's last banner with nothing after it is.
	n := len(r.Ranks)
	if n == 0 {
		if !last || r.Params.Line == 0 && r.Banner.Line == 0 {
			return Finding{}, false
		}
		return Finding{
			ID: "nccltests.rows.none", Severity: Info, Layer: LayerInput,
			Title:     fmt.Sprintf("%s: the output ends in its banner, before any rank line or table: nothing measured, nothing judged", testName(r)),
			Evidence:  evidenceInOrder([]Evidence{r.Banner, r.Params}),
			Mechanism: "nccl-tests prints its banner, then one line per rank, then the table. This output stops before the first rank line: it was cut (a paste, a log not yet flushed), or the processes never got through their start (MPI or the launcher), which the launcher's own output would show.",
			Fix:       "Give the job's whole output, with the launcher's errors, and NCCL_DEBUG=INFO if it stopped at init.",
		}, true
	}
	lastRank := r.Ranks[n-1].Evidence
	return Finding{
		ID: "nccltests.rows.none", Severity: Info, Layer: LayerInput,
		Title:     fmt.Sprintf("%s: the output ends in its preamble (%s), before the table: nothing measured, nothing judged", testName(r), plural(r.RankCount, "rank line", "rank lines")),
		Evidence:  evidenceInOrder([]Evidence{r.Params, lastRank}),
		Mechanism: "nccl-tests prints its parameters and one line per rank, then NCCL sets the communicator up, then the table's header and a row per size. This output stops before the header: it was cut (a paste, a log not yet flushed), or the job never got through NCCL's init, which its NCCL log would show.",
		Fix:       "Give the job's whole output, with NCCL_DEBUG=INFO if it stopped at init.",
	}, true
}

func smallSizes(r *ingest.TestRun) Finding {
	last := r.Rows[len(r.Rows)-1]
	return Finding{
		ID: "nccltests.sizes.small", Severity: Info, Layer: LayerNCCL,
		Title:     fmt.Sprintf("%s stops at %s: too small to judge bandwidth", testName(r), unit.Bytes(r.LargestSize()).Human()),
		Evidence:  []Evidence{last.Evidence},
		Mechanism: fmt.Sprintf("Below about %s per message the time is dominated by latency (kernel launch, network round trips), not bandwidth, so busbw there says nothing about the NIC or fabric.", unit.Bytes(ingest.PlateauMinSize)),
		Fix:       "Run the sweep up to large sizes, e.g. `-b 8 -e 8G -f 2` (or at least to 1G), and judge the plateau of the largest sizes.",
	}
}

func collName(r *ingest.TestRun) string {
	switch {
	case r.Collective != "":
		return r.Collective
	case len(r.Candidates) > 0:
		return strings.Join(r.Candidates, "/")
	}
	return "table"
}

// testName names the benchmark and its collective: "nccl-tests all_reduce",
// "mscclpp-test all_gather".
func testName(r *ingest.TestRun) string { return toolName(r) + " " + collName(r) }

// toolName is the benchmark that printed run r.
func toolName(r *ingest.TestRun) string {
	if r.Tool == "" {
		return "nccl-tests"
	}
	return r.Tool
}

// fileTool is the benchmark that printed t: the tool its runs name, else
// nccl-tests.
func fileTool(t *ingest.NCCLTests) string {
	for _, r := range t.Runs {
		if r.Tool != "" {
			return r.Tool
		}
	}
	return toolName(&ingest.TestRun{})
}

// mayBeAllReduce reports whether the run is, or could be, all_reduce.
func mayBeAllReduce(r *ingest.TestRun) bool {
	if r.Collective != "" {
		return r.Collective == "all_reduce"
	}
	for _, c := range r.Candidates {
		if c == "all_reduce" {
			return true
		}
	}
	return false
}

// runNodes counts the hosts of the run's rank lines, else one for a run
// its command line started without a launcher, else the job's span.
func runNodes(r *ingest.TestRun, sp span) int {
	if hs, _ := r.RanksPerHost(); len(hs) > 0 {
		return len(hs)
	}
	if r.DirectRanks > 0 && r.CommRanks == 0 {
		return 1
	}
	return sp.nodes
}

func judgePlateau(inc *Incident, r *ingest.TestRun, p ingest.Plateau, sp span, speed nicSpeed, speedKnown bool) Finding {
	sh := rankShare(inc, r)
	nodes := runNodes(r, sp)
	var ev evidence
	for _, row := range p.Rows[max(0, len(p.Rows)-3):] {
		ev.add(row.Evidence)
	}
	plat := fmt.Sprintf("busbw plateau %s GB/s (%s Gb/s) at %s", fmtGB(p.BusBW), fmtGb(gbps(p.BusBW)), sizeSpan(p))
	if p.Max > 1.02*p.BusBW {
		plat = fmt.Sprintf("busbw plateau %s GB/s (%s Gb/s, up to %s) at %s", fmtGB(p.BusBW), fmtGb(gbps(p.BusBW)), fmtGB(p.Max), sizeSpan(p))
	}
	var notes []string
	if r.AvgBusBW >= 0 && r.AvgBusBW < 0.8*p.BusBW {
		notes = append(notes, fmt.Sprintf("The table's 'Avg bus bandwidth' (%s) averages every size, small ones included; the plateau is the figure to judge.", fmtGB(r.AvgBusBW)))
		ev.add(r.AvgEvidence)
	}
	if n := len(p.Rows); n >= 2 {
		if a, b := p.Rows[n-2], p.Rows[n-1]; b.BestBusBW() > 1.15*a.BestBusBW() {
			notes = append(notes, fmt.Sprintf("busbw still rises at the largest sizes (%s GB/s at %s, %s GB/s at %s): the sweep ends before it levels off, so the plateau understates what the path carries; rerun with a larger -e (maxBytes).", fmtGB(a.BestBusBW()), unit.Bytes(a.Size).Human(), fmtGB(b.BestBusBW()), unit.Bytes(b.Size).Human()))
		}
	}
	twoNodeAR := mayBeAllReduce(r) && nodes == 2 && !ringOnly(inc)
	// With the node count unknown, an all_reduce above the NICs may be a
	// 2-node run's Tree or NVLS as well as more NICs than the artifacts show;
	// on 2 or 3 ranks there is no 2-node run with a node of several GPUs.
	nodesUnknownAR := mayBeAllReduce(r) && nodes == 0 && !ringOnly(inc) && (r.NRanks() == 0 || r.NRanks() >= 4)
	mech := fmt.Sprintf("%s busbw is the bandwidth each rank moves normalised by the collective's traffic factor, so the network caps it at a multiple of one NIC's line rate L (Gb/s / 8 = GB/s) set by the collective, the NICs and GPUs per node and the rank count; a healthy NIC delivers %.0f-%.0f%% of its line rate (about 48 GB/s per 400G, 24 per 200G, 12 per 100G).", toolName(r), ceilingLo*100, ceilingHi*100)
	if sh.text != "" {
		ev.add(sh.ev...)
		mech += " Here " + sh.text + "."
	}
	if sh.note != "" {
		mech += " " + sh.note + "."
	}
	if how := inferredRanks(r); how != "" {
		mech += " The output has no rank lines: " + how + "."
	}
	var offFix string // rerun with the node's own GPU traffic back on NVLink or PCIe
	if nodes >= 2 && r.NRanks() > nodes {
		if off, fix, offEv := intraNodeOff(inc); off != "" {
			notes = append(notes, off+".")
			offFix = fix
			ev.add(offEv...)
		}
	}
	twoNodeNote := "On exactly 2 nodes the Tree and NVLS all_reduce algorithms can report busbw above the NIC rate (nccl-tests maintainers); judge the network with NCCL_ALGO=RING."
	var line unit.BitRate
	if speedKnown {
		line = speed.rate
	}
	lim := limitFor(r, nodes, sh, line)
	f := Finding{Layer: LayerNCCL}
	if lim.offNode {
		if m, ok := nvlinkJudged(r); ok {
			return judgeNVLink(inc, r, p, m, ev, plat)
		}
		f.ID, f.Severity = "nccltests.busbw.unjudged", Info
		f.Title = fmt.Sprintf("%s %s: %s, so no NIC is on its path", testName(r), plat, lim.model)
		if sp.single && sp.nodes == 1 && strings.HasPrefix(sp.how, "host ") {
			f.Title = fmt.Sprintf("%s %s: %s (%s), so no NIC is on its path", testName(r), plat, lim.model, sp.how)
			ev.add(sp.ev)
		}
		f.Mechanism = "Ranks on one node exchange data over " + gpuLinks(r) + " (P2P, shared memory), not the network: their busbw judges the GPU interconnect, not the NIC or the fabric."
		f.Fix = "Run the test across nodes (e.g. mpirun -np 16 -N 8 over two hosts) to judge the network."
		f.Evidence = ev.sorted()
		return f
	}
	if lim.unknown() {
		f.ID, f.Severity = "nccltests.busbw.unjudged", Info
		unknown := "the rank count is unknown"
		if inferredRanks(r) != "" {
			unknown = fmt.Sprintf("its %d ranks' nodes are unknown", r.NRanks())
		}
		f.Title = fmt.Sprintf("%s per-rank %s not judged: %s", testName(r), plat, unknown)
		f.Mechanism = mech + " Limit model: " + lim.model + "."
		f.Fix = "Give the whole output, with its \"#  Rank  N ... on <host>\" lines, or the job's NCCL log (NCCL_DEBUG=INFO): the ranks and ranks per node set the limit."
		f.Evidence = ev.sorted()
		return f
	}
	perNIC := lim.perNIC(gbps(p.BusBW)) // Gb/s each NIC carries at the plateau
	cs := bandwidthCauses(inc, unit.BitRate(perNIC*1e9), line)
	if !speedKnown {
		f.ID, f.Severity = "nccltests.busbw.unjudged", Info
		f.Title = fmt.Sprintf("%s per-rank %s; no NIC speed known to judge it", testName(r), plat)
		above := perNIC / lowFraction
		var judge string
		switch {
		case perNIC > 800:
			judge = fmt.Sprintf(" At the plateau each NIC would carry %s Gb/s, more than one 800G NIC carries: this figure is bounded by the GPUs' NVLink (within a node, or across the nodes of one NVLink domain such as a GB200/GB300 NVL72 rack) or more NICs than the artifacts show, not by one NIC.", fmtGb(perNIC))
			if twoNodeAR || nodesUnknownAR {
				notes = append(notes, twoNodeNote)
			}
		default:
			judge = fmt.Sprintf(" Limit model: %s. At the plateau (%s GB/s) each NIC carries %s Gb/s, below %.0f%% of line rate for any NIC above %s Gb/s%s.", lim.model, fmtGB(p.BusBW), fmtGb(perNIC), lowFraction*100, fmtGb(above), examples(above))
		}
		if n, short := fabricNote(inc, r, nodes, p); n != "" {
			notes = append(notes, n)
			f.Title += short
		}
		f.Mechanism = mech + judge
		f.Fix = "Give the NIC speed to judge it: --nic-speed (e.g. 400G), or add `ibv_devinfo -v` or `ethtool <netdev>` output to the incident."
		if t := cs.text(); t != "" {
			f.Fix = t + " " + f.Fix
			ev.add(cs.ev...)
		}
		if offFix != "" {
			f.Fix = offFix + " " + f.Fix
		}
	} else {
		line := speed.rate.Gbps() / 8 * lim.m
		ev.add(speed.ev...)
		frac := p.BusBW / line
		mech += fmt.Sprintf(" Limit used: %s. NIC speed %s (%s): the per-rank ceiling is %s GB/s at line rate, %s-%s GB/s in practice.", lim.model, speed.rate, speed.how, fmtGB(line), fmtGB(line*ceilingLo), fmtGB(line*ceilingHi))
		switch {
		case frac < lowFraction:
			f.ID, f.Severity = "nccltests.busbw.low", Warn
			if frac < veryLowFraction {
				f.Severity = Error
			}
			f.Title = fmt.Sprintf("%s %s is %d%% of what %s allows per rank (%s GB/s, %s)", testName(r), plat, sharePct(frac, lowFraction, veryLowFraction), speed.rate, fmtGB(line), limitShort(lim))
			rerun := "rerun with NCCL_ALGO=RING and more channels (NCCL_MIN_NCHANNELS)"
			if ringOnly(inc) {
				rerun = "rerun with more channels (NCCL_MIN_NCHANNELS)"
			}
			f.Fix = walkFirst(inc) + " Then check GPUDirect RDMA (`lsmod | grep nvidia_peermem`, 'GDR 1' in the log), the GPU-NIC PCIe path (`nvidia-smi topo -m`, `lspci -vv` LnkSta at full width and speed), and " + rerun + " to see whether the NIC or NCCL's pipeline is the limit."
			if t := cs.text(); t != "" {
				f.Fix = t + " " + f.Fix
				ev.add(cs.ev...)
			}
			if offFix != "" {
				f.Fix = offFix + " " + f.Fix
			}
		case lim.lowerBound:
			f.ID, f.Severity = "nccltests.busbw.unjudged", Info
			f.Title = fmt.Sprintf("%s %s is %.0f%% of what one %s NIC per node allows (%s GB/s); the host's NIC count decides the limit", testName(r), plat, frac*100, speed.rate, fmtGB(line))
			f.Fix = "Add the NCCL log (NET/IB : Using lists the host's NICs) or `ibv_devinfo` of one host: the limit is that many times this figure."
			if sh.atLeast {
				verb := "allow"
				if sh.nics == 1 {
					verb = "allows"
				}
				f.Title = fmt.Sprintf("%s %s is %.0f%% of what %s per node %s (%s GB/s), and the host may have more NICs than %s", testName(r), plat, frac*100, plural(sh.nics, speed.rate.String()+" NIC", speed.rate.String()+" NICs"), verb, fmtGB(line), sh.fewer)
			}
		case frac > 1:
			f.ID, f.Severity = "nccltests.busbw.ok", Info
			f.Title = fmt.Sprintf("%s %s exceeds what %s allows per rank (%s GB/s, %s)", testName(r), plat, speed.rate, fmtGB(line), limitShort(lim))
			if twoNodeAR {
				notes = append(notes, twoNodeNote)
			} else {
				notes = append(notes, aboveLimitNote(inc, nodes, nodesUnknownAR, twoNodeNote))
			}
		default:
			f.ID, f.Severity = "nccltests.busbw.ok", Info
			f.Title = fmt.Sprintf("%s %s is %.0f%% of what %s allows per rank (%s GB/s, %s): the network delivers its bandwidth", testName(r), plat, frac*100, speed.rate, fmtGB(line), limitShort(lim))
		}
		f.Mechanism = mech
	}
	if len(notes) > 0 {
		f.Mechanism += " " + strings.Join(notes, " ")
	}
	f.Evidence = ev.sorted()
	return f
}

// ringOnly reports whether an NCCL log says NCCL_ALGO is set to Ring only.
func ringOnly(inc *Incident) bool {
	for _, e := range ncclEnv(inc, "NCCL_ALGO") {
		if strings.EqualFold(e.Value, "ring") {
			return true
		}
	}
	return false
}

// examples names the common NIC speeds above a rate in Gb/s.
func examples(above float64) string {
	var xs []string
	for _, s := range []float64{100, 200, 400, 800} {
		if s > above {
			xs = append(xs, fmt.Sprintf("%.0fG", s))
		}
	}
	if len(xs) == 0 {
		return ""
	}
	return " (e.g. " + strings.Join(xs, ", ") + ")"
}

// causes are the incident's bottlenecks as they bear on one bandwidth
// figure: likely causes, and caps below what the run reached, which cannot
// be on its path.
type causes struct {
	likely, elsewhere []string
	ev                []Evidence
}

// text names the causes for a fix.
func (c causes) text() string {
	var parts []string
	if len(c.likely) > 0 {
		parts = append(parts, "Likely causes in this incident: "+strings.Join(c.likely, "; ")+".")
	}
	if len(c.elsewhere) > 0 {
		parts = append(parts, "Also in the incident but below what this run reached per NIC, so not on its path (another host or NIC): "+strings.Join(c.elsewhere, "; ")+".")
	}
	return strings.Join(parts, " ")
}

// incidentBottlenecks returns what the incident's artifacts show holding
// bandwidth down: every Bottlenecker, and the counter samples joined
// across inputs.
func incidentBottlenecks(inc *Incident) []ingest.Bottleneck {
	var out []ingest.Bottleneck
	for _, a := range All[ingest.Bottlenecker](inc) {
		out = append(out, a.Bottlenecks()...)
	}
	samples, _ := ctrSamples(inc)
	for i := range samples {
		out = append(out, samples[i].Bottlenecks()...)
	}
	return out
}

// bandwidthCauses sorts the incident's bottlenecks for a run that reached
// measured per NIC, on NICs of line rate (0 when unknown). A cap at or
// near line rate (or a perftest result near it) holds nothing down and is
// left out; a measured cap is judged only against a known line rate; a cap
// below what the run reached cannot be on its path.
func bandwidthCauses(inc *Incident, measured, line unit.BitRate) causes {
	var c causes
	var likely, elsewhere []string
	for _, b := range incidentBottlenecks(inc) {
		w := b.What
		if b.Cap > 0 {
			limit := lowFraction
			if b.Measured {
				limit = bwLowFraction
			}
			switch {
			case line > 0 && float64(b.Cap) >= limit*float64(line), line == 0 && b.Measured:
				continue
			case float64(b.Cap) < 0.98*float64(measured):
				elsewhere = append(elsewhere, fmt.Sprintf("%s, at most %s, below the %s reached", w, rateText(b.Cap), rateText(measured)))
				c.ev = append(c.ev, b.Evidence[:min(2, len(b.Evidence))]...)
				continue
			case !b.Measured:
				w += ", capped at " + rateText(b.Cap)
			}
		}
		likely = append(likely, w)
		c.ev = append(c.ev, b.Evidence[:min(2, len(b.Evidence))]...)
	}
	c.likely, c.elsewhere = distinct(likely), distinct(elsewhere)
	return c
}

// checkWrong reports rows with wrong elements and failed bound checks.
func checkWrong(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			var ev evidence
			wrong, rows := 0, 0
			for _, row := range r.Rows {
				n := max(row.Out.Wrong, 0) + max(row.In.Wrong, 0)
				if n > 0 {
					wrong += n
					rows++
					ev.add(row.Evidence)
				}
			}
			if r.OutOfBounds > 0 {
				ev.add(r.OutOfBoundsEvidence)
			}
			if len(ev.list) == 0 {
				continue
			}
			title := fmt.Sprintf("%s returned wrong data: %s in %s", testName(r), plural(wrong, "wrong element", "wrong elements"), plural(rows, "size", "sizes"))
			if wrong == 0 {
				title = fmt.Sprintf("%s reports %d out-of-bounds values", testName(r), r.OutOfBounds)
			}
			fs = append(fs, Finding{
				ID: "nccltests.wrong", Severity: Error, Layer: LayerNCCL,
				Title:     title,
				Evidence:  ev.sorted(),
				Mechanism: "#wrong counts result elements that differ from the expected values after the collective: data was corrupted between ranks. The transport is reliable (RC retransmits lost packets, TCP checksums), so wrong values point to a faulty GPU or its memory, a PCIe/NVLink path with errors, a NIC or GPUDirect RDMA path that delivers bad data, or a software bug.",
				Fix:       "Find the host: rerun the failing sizes on subsets of nodes and GPUs. On the suspects check `nvidia-smi -q -d ECC,ROW_REMAPPER`, `dmesg` for Xid and PCIe AER errors, and rerun with NCCL_NET_GDR_LEVEL=LOC and NCCL_P2P_DISABLE=1 to see which data path corrupts. Update GPU driver, NIC firmware and NCCL.",
			}.per(t.Source()+" "+collName(r), "run", "nccl-tests returned wrong data"))
		}
	}
	return fs
}

// aboveLimitNote says what a plateau above the limit means when the run is
// not known to be a 2-node all_reduce: more or faster NICs than the limit
// assumed, or, with the node count unknown, all ranks on one node, or
// (an all_reduce of 4 ranks or more) a 2-node Tree/NVLS run.
func aboveLimitNote(inc *Incident, nodes int, nodesUnknownAR bool, twoNodeNote string) string {
	nics := "more NICs per node than the artifacts show"
	if inc.Options.NICsPerNode > 0 {
		nics = "more NICs per node than --nics-per-node gives"
	}
	causes := nics + ", or a faster NIC than the speed given"
	if nodes == 0 {
		causes = nics + ", a faster NIC than the speed given, or all its ranks on one node (NVLink/PCIe, no NIC on the path)"
	}
	switch {
	case nodesUnknownAR:
		return "The artifacts do not say how many nodes ran it. " + twoNodeNote + " On more nodes, more bandwidth than the limit means " + causes + "."
	case nodes == 0:
		return "The artifacts do not say how many nodes ran it: more bandwidth than the limit means " + causes + "."
	}
	return "More bandwidth than the limit means " + causes + "."
}
