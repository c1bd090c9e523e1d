package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// checkBusBWDip reports a bandwidth-bound size whose out-of-place or
// in-place busbw drops below fallFraction of the same half's at both
// neighbouring sizes (nccltests.busbw.dip). nccl-tests times each size, and each half of a
// size, on its own, so a half slower than the same half of the rows on
// either side caught something passing during its iterations (each half
// is compared with its own kind only: an out-of-place half slower at
// every size is no dip); a fall that lasts to the end of the
// sweep is nccltests.busbw.falls', a slow latency-bound size
// nccltests.time.stall's, and a low size between neighbours that are
// themselves far below the smaller sizes is part of that collapse.
func checkBusBWDip(inc *Incident) []Finding {
	return perTestRun(inc, "busbw that dips at one size", busbwDip)
}

// dip is one half of one row below its neighbours.
type dip struct {
	row        ingest.TestRow
	half       string
	bw, around float64
}

func busbwDip(r *ingest.TestRun) (Finding, bool) {
	var dips []dip
	for _, rows := range r.Sweeps() {
		// Each half's best busbw at the smaller sizes, held by two
		// sizes in a row, so that one size measured high is no level
		// the later sizes fell from.
		var peakOut, peakIn float64
		for i := 1; i+1 < len(rows); i++ {
			row, prev, next := rows[i], rows[i-1], rows[i+1]
			if i >= 2 {
				peakOut = max(peakOut, min(rows[i-2].Out.BusBW, prev.Out.BusBW))
				peakIn = max(peakIn, min(rows[i-2].In.BusBW, prev.In.BusBW))
			}
			if row.Size < ingest.PlateauMinSize || prev.Size >= row.Size || next.Size <= row.Size {
				continue
			}
			for _, h := range []struct {
				name             string
				at, before, then ingest.TestHalf
				peak             float64
			}{{"out-of-place", row.Out, prev.Out, next.Out, peakOut}, {"in-place", row.In, prev.In, next.In, peakIn}} {
				around := min(h.before.BusBW, h.then.BusBW)
				// Neighbours already far below what smaller sizes
				// reached sit in a collapse (nccltests.time.stall's,
				// nccltests.busbw.falls'): a low size among them is
				// its noise, not a dip.
				trough := max(h.before.BusBW, h.then.BusBW) < fallFraction*h.peak
				if h.at.Time > 0 && h.at.BusBW < fallFraction*around && !trough {
					dips = append(dips, dip{row: row, half: h.name, bw: h.at.BusBW, around: around})
				}
			}
		}
	}
	if len(dips) == 0 {
		return Finding{}, false
	}
	worst := dips[0]
	for _, d := range dips {
		if d.bw/d.around < worst.bw/worst.around {
			worst = d
		}
	}
	// The row the title names first, then the others up to three.
	var ev evidence
	ev.add(worst.row.Evidence)
	for _, d := range dips {
		if len(ev.list) < 3 && d.row.Size != worst.row.Size {
			ev.add(d.row.Evidence)
		}
	}
	other, what := "", worst.half+" busbw"
	both := bothHalves(dips, worst.row)
	if both {
		what = "busbw"
		other = fmt.Sprintf("; in both halves (the other ran at %s)", fmtGB(otherHalf(worst)))
	} else if o := otherHalf(worst); o >= fallFraction*worst.around {
		other = fmt.Sprintf("; the other half of that row ran at %s", fmtGB(o))
	}
	more, others := "", len(dips)-1
	if both {
		others-- // the row's other half is no other dip
	}
	if others > 0 {
		more = fmt.Sprintf(" (%d dips in all)", len(dips))
	}
	mech := "Past 64 MiB a collective is bandwidth-bound: a larger message adds pipeline steps of the same chunk to the same connections, so neighbouring sizes run at nearly the same busbw. nccl-tests times each size, and the out-of-place and in-place half of each, over their own iterations; a half (out-of-place or in-place) slower than the same half of the sizes on both sides was slowed by something that passed during those iterations, not by the path's capacity: other traffic on the links (another job, a checkpoint), a burst of congestion, PFC pauses or retransmissions, a link that retrained, a GPU clock drop. With few iterations (-n) one slow iteration weighs on the whole size."
	sizes := fmt.Sprintf("-b %s -e %s", unit.Bytes(worst.row.Size/2).Human(), unit.Bytes(worst.row.Size*2).Human())
	fix := fmt.Sprintf("Rerun the sizes around it with more iterations (%s -n 50) a few times: a dip that moves or vanishes was transient, so collect the NICs' counters before and after the run (retransmissions, out-of-sequence packets, PFC pause frames, ECN marks) and `dmesg` of every host for `rocelab diagnose`; a dip that stays at the same size and half follows the size, so rerun it with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING to see the algorithm and protocol chosen there.", sizes)
	if both {
		mech = "Past 64 MiB a collective is bandwidth-bound: a larger message adds pipeline steps of the same chunk to the same connections, so neighbouring sizes run at nearly the same busbw. nccl-tests times the out-of-place and in-place half of each size over their own iterations, so a passing event (other traffic, a congestion burst, pauses, a retrained link) seldom slows both halves of one size alike: both halves low at one size and not at the sizes on either side follow the size itself, the plan NCCL makes for it: another algorithm, protocol or channel count chosen there (its tuning model, a tuner or net plugin, NCCL_ALGO/NCCL_PROTO, NVLS or CollNet/SHARP taken up or left at that size), or a buffer or registration limit that size crosses."
		fix = fmt.Sprintf("Rerun those sizes with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING (%s -n 50) and compare the algorithm, protocol and channels NCCL prints for that size with its neighbours'; pin the neighbours' choice (NCCL_ALGO, NCCL_PROTO, or a tuner plugin's table) to confirm, and report it if NCCL's own choice is the slow one. If the dip moves between reruns it was transient after all: collect the NICs' counters before and after the run for `rocelab diagnose`.", sizes)
	}
	return Finding{
		ID: "nccltests.busbw.dip", Severity: Warn, Layer: LayerNCCL,
		Title: fmt.Sprintf("%s %s dips to %s GB/s at %s, %d%% of the %s GB/s of the sizes on either side%s%s",
			testName(r), what, fmtGB(worst.bw), unit.Bytes(worst.row.Size).Human(), int(100*worst.bw/worst.around+0.5), fmtGB(worst.around), other, more),
		Evidence:  ev.sorted(),
		Mechanism: mech,
		Fix:       fix,
	}, true
}

// bothHalves says whether the out-of-place and the in-place half of row
// both dipped: two dips of one row.
func bothHalves(dips []dip, row ingest.TestRow) bool {
	n := 0
	for _, d := range dips {
		if d.row.Evidence == row.Evidence {
			n++
		}
	}
	return n == 2
}

// otherHalf is the busbw of the half of d's row that did not dip, 0 when
// that half was not measured.
func otherHalf(d dip) float64 {
	if d.half == "in-place" {
		if d.row.Out.Time > 0 {
			return d.row.Out.BusBW
		}
		return 0
	}
	if d.row.In.Time > 0 {
		return d.row.In.BusBW
	}
	return 0
}
