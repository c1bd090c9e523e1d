package doctor

import (
	"fmt"
	"strconv"

	"rocelab/internal/ingest"
)

// checkMinBW reports runs that failed nccl-tests' own bandwidth check:
// with NCCL_TESTS_MIN_BW set, nccl-tests prints FAILED after its average
// busbw when that average is below 90% of the threshold, and exits
// non-zero (src/common.cu, writeResultFooter in src/util.cu).
func checkMinBW(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			if r.AvgCheck != ingest.AvgFailed {
				continue
			}
			var ev evidence
			ev.add(r.AvgEvidence)
			title := fmt.Sprintf("%s failed its own bandwidth check: the average busbw %s GB/s is below 90%% of NCCL_TESTS_MIN_BW", testName(r), fmtGB(r.AvgBusBW))
			// The file's setting is named only when it agrees with the
			// verdict: one from another run of the incident may not.
			if min, e, ok := minBWSet(inc); ok && r.AvgBusBW < 0.9*min {
				ev.add(e.Evidence)
				title = fmt.Sprintf("%s failed its own bandwidth check: the average busbw %s GB/s is below 90%% of NCCL_TESTS_MIN_BW=%s (%s GB/s)", testName(r), fmtGB(r.AvgBusBW), e.Value, fmtGB(0.9*min))
			}
			fs = append(fs, Finding{
				ID: "nccltests.minbw.failed", Severity: Error, Layer: LayerNCCL,
				Title:     title,
				Evidence:  ev.sorted(),
				Mechanism: "With NCCL_TESTS_MIN_BW set, nccl-tests compares its average bus bandwidth with it, prints FAILED after the average when it is below 90% of it, and exits non-zero: the acceptance check the job set has failed. The average is the mean busbw of both halves of every row, the small latency-bound sizes included, so it moves with the sweep (-b, -e, -f) as well as with the bandwidth: a threshold taken from one sweep fails a healthy run of a sweep that starts smaller.",
				Fix:       "Read the plateau finding of the same run: if its large sizes reach what the NICs or NVLink carry, the threshold was set for another sweep (rerun with the -b/-e/-f it was taken from); if not, follow that finding's fix.",
			}.per(t.Source()+" "+collName(r), "run", "nccl-tests failed its bandwidth check"))
		}
	}
	return fs
}

// minBWSet returns the NCCL_TESTS_MIN_BW the incident shows set, with its
// value in GB/s, when one number is set.
func minBWSet(inc *Incident) (float64, ingest.NCCLSetting, bool) {
	var got []ingest.NCCLSetting
	for _, e := range ncclEnv(inc, "NCCL_TESTS_MIN_BW") {
		if len(got) == 0 || got[0].Value != e.Value {
			got = append(got, e)
		}
	}
	if len(got) != 1 {
		return 0, ingest.NCCLSetting{}, false
	}
	v, err := strconv.ParseFloat(got[0].Value, 64)
	if err != nil || v <= 0 {
		return 0, ingest.NCCLSetting{}, false
	}
	return v, got[0], true
}
