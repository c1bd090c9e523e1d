package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// halvesGapFraction is how far below the other half one half's busbw runs
// on every plateau row for nccltests.busbw.halves: under 10% is noise.
const halvesGapFraction = 0.90

// checkBusBWHalves reports a run whose out-of-place and in-place busbw
// part at the plateau: one half below halvesGapFraction of the other on
// every plateau row (nccltests.busbw.halves). nccl-tests runs both halves
// of a size on the same communicator over the same links, so a gap that
// holds at every large size is work one half does that the other does
// not, not the network; a gap at one size is nccltests.busbw.dip's.
func checkBusBWHalves(inc *Incident) []Finding {
	return perTestRun(inc, "out-of-place and in-place apart", busbwHalves)
}

func busbwHalves(r *ingest.TestRun) (Finding, bool) {
	p, ok := r.Plateau()
	if !ok || len(p.Rows) < 2 {
		return Finding{}, false
	}
	var outs, ins []float64
	outSlow, inSlow := true, true
	for _, row := range p.Rows {
		if row.Out.Time <= 0 || row.In.Time <= 0 || row.Out.BusBW <= 0 || row.In.BusBW <= 0 {
			return Finding{}, false
		}
		outs, ins = append(outs, row.Out.BusBW), append(ins, row.In.BusBW)
		outSlow = outSlow && row.Out.BusBW < halvesGapFraction*row.In.BusBW
		inSlow = inSlow && row.In.BusBW < halvesGapFraction*row.Out.BusBW
	}
	if !outSlow && !inSlow {
		return Finding{}, false
	}
	slow, fast, slowName, fastName := median(outs), median(ins), "out-of-place", "in-place"
	if inSlow {
		slow, fast, slowName, fastName = fast, slow, fastName, slowName
	}
	var ev evidence
	for _, row := range p.Rows {
		if len(ev.list) < 3 {
			ev.add(row.Evidence)
		}
	}
	return Finding{
		ID: "nccltests.busbw.halves", Severity: Info, Layer: LayerNCCL,
		Title: fmt.Sprintf("%s %s busbw runs %d%% below %s on every plateau row (%s against %s GB/s, %d rows from %s): the plateau is judged on the faster half",
			testName(r), slowName, int(100*(1-slow/fast)+0.5), fastName, fmtGB(slow), fmtGB(fast), len(p.Rows), unit.Bytes(p.MinSize).Human()),
		Evidence:  ev.sorted(),
		Mechanism: "nccl-tests times the out-of-place and the in-place half of each size on the same communicator, over the same links, one after the other, so the network cannot tell them apart; a gap that holds at every bandwidth-bound size is work one half does and the other does not. Out-of-place AllGather and ReduceScatter copy the rank's own chunk between its send and receive buffers, which in place is already where it belongs, and on NVLink-bound runs (one node, a few GPUs) that copy costs a visible share of GPU memory bandwidth; registered buffers (-R), NVLS or CollNet can also take one half's buffers and not the other's. A one-off slow half is a dip (nccltests.busbw.dip), not this.",
		Fix:       "Judge the fabric on the faster half. To tell a copy from a path, rerun the sizes with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING and compare the algorithm and protocol of the two halves; on a multi-node run a gap that grows with the node count is worth a look at buffer registration (-R 0 against -R 1).",
	}, true
}
