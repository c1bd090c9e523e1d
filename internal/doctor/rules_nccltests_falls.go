package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// fallFraction is the share of a run's peak busbw below which its largest
// sizes have fallen rather than wobbled: run-to-run noise of a healthy
// sweep is a few percent, so a quarter lost is a change of regime.
const fallFraction = 0.75

// fallPeakMinSize is the smallest size whose busbw may stand as the peak
// a run falls from. A latency-bound size only ever reads lower than the
// sizes past it, so a smaller size's higher busbw is no latency artefact:
// it is a rate the path carried (nccl#1453: 29.5 GB/s at 32 MiB, ~5 GB/s
// from 64 MiB on, which a peak held to the plateau's 64 MiB floor never
// showed). Below that floor NCCL may still run another protocol (LL128)
// that carries a third more than the largest sizes' Simple, so a peak
// there counts only when the plateau falls below midFallFraction of it.
const (
	fallPeakMinSize = 16 << 20
	midFallFraction = 0.5
)

// checkBusBWFalls reports runs whose busbw, having reached a peak at a
// bandwidth-bound size, falls at the largest sizes. A larger message only
// adds pipeline steps of the same chunk to the same connections, so
// busbw should rise and hold; what scales with the buffer or the run's
// length is the suspect, and the table alone does not name it.
func checkBusBWFalls(inc *Incident) []Finding {
	return perTestRun(inc, "busbw that falls", busbwFalls)
}

// perTestRun applies check to every nccl-tests run; each finding has its
// run as subject, grouped as the test's name followed by what.
func perTestRun(inc *Incident, what string, check func(*ingest.TestRun) (Finding, bool)) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			if f, ok := check(r); ok {
				fs = append(fs, f.per(t.Source()+" "+collName(r), "run", testName(r)+" "+what))
			}
		}
	}
	return fs
}

func busbwFalls(r *ingest.TestRun) (Finding, bool) {
	p, ok := r.Plateau()
	if !ok {
		return Finding{}, false
	}
	// Two peaks, each judged apart: a 16-64 MiB row a little above the
	// plateau floor's must not lift the threshold from the floor's peak.
	peak, frac := -1, 0.0
	for _, c := range []struct {
		lo, hi int64
		frac   float64
	}{{ingest.PlateauMinSize, p.MinSize, fallFraction}, {fallPeakMinSize, ingest.PlateauMinSize, midFallFraction}} {
		if i := maxBusBWRow(r, c.lo, c.hi); i >= 0 && p.BusBW < c.frac*r.Rows[i].BestBusBW() {
			peak, frac = i, c.frac
			break
		}
	}
	if peak < 0 {
		return Finding{}, false
	}
	top := r.Rows[peak]
	// The fall starts at the first row after the peak from which every
	// row stays below the threshold.
	from := len(r.Rows)
	for i := len(r.Rows) - 1; i > peak && r.Rows[i].BestBusBW() < frac*top.BestBusBW(); i-- {
		from = i
	}
	last := r.Rows[len(r.Rows)-1]
	ev := []Evidence{top.Evidence}
	where := ""
	if from < len(r.Rows) {
		where = fmt.Sprintf(", below %d%% of it from %s on", int(100*frac), unit.Bytes(r.Rows[from].Size).Human())
		ev = append(ev, r.Rows[from].Evidence)
	}
	if from != len(r.Rows)-1 {
		ev = append(ev, last.Evidence)
	}
	return Finding{
		ID: "nccltests.busbw.falls", Severity: Warn, Layer: LayerNCCL,
		Title: fmt.Sprintf("%s busbw falls as the message grows: %s GB/s at %s, %s GB/s (median) at %s, %d%% of its peak%s",
			testName(r), fmtGB(top.BestBusBW()), unit.Bytes(top.Size).Human(), fmtGB(p.BusBW), sizeSpan(p), int(100*p.BusBW/top.BestBusBW()+0.5), where),
		Evidence:  ev,
		Mechanism: "Past the latency-bound sizes a larger message only adds pipeline steps of the same chunk to the same connections, so busbw should rise and then hold. The run reached a bandwidth at a smaller size that it loses at the largest: the transport can carry it, and what fails is something that grows with the buffer or with the run's length. Candidates the table alone cannot tell apart: GPU memory near full (each rank holds send, receive and, with validation, expected buffers of the largest size, the receive side times the ranks for gather and all_gather), registering larger buffers (GPUDirect RDMA mappings, an IOMMU or a VM's address translation without ATS), GPU clocks throttling as the longer rows heat it, or a link that flaps or congests while the long rows run.",
		Fix:       fmt.Sprintf("Collect what tells them apart: rerun only the sizes around the fall (-b %s -e %s) and again with the order reversed or -n doubled, to see whether the fall follows the size or the time; during it, `nvidia-smi -q -d PERFORMANCE,CLOCK` (clock event reasons: thermal or power slowdown) and `nvidia-smi --query-gpu=memory.used,memory.total --format=csv`; NCCL_DEBUG=INFO for the transport of each size; the NICs' counters before and after the run and `dmesg` (link down, IOMMU faults) for `rocelab diagnose`. In a VM, run the same sizes on bare metal.", unit.Bytes(top.Size).Human(), unit.Bytes(last.Size).Human()),
	}, true
}

// maxBusBWRow is the index of the row of highest busbw among sizes in
// [lo, hi), or -1 if there is none.
func maxBusBWRow(r *ingest.TestRun, lo, hi int64) int {
	peak := -1
	for i, row := range r.Rows {
		if row.Size >= lo && row.Size < hi && (peak < 0 || row.BestBusBW() > r.Rows[peak].BestBusBW()) {
			peak = i
		}
	}
	return peak
}
