package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// An nccl-tests output pasted with only its trailer: "Out of bounds
// values : 0 OK" and "Avg bus bandwidth : 92.3405", often without their
// "#". The out-of-bounds count is judged by checkWrong; the average is
// judged here when it names one size, and reported otherwise.

// footerRun reports a footer-only run's average bus bandwidth. A sweep of
// one size (the parameters line's minBytes equal to its maxBytes, at
// least PlateauMinSize) has that size's busbw for average, and is judged
// as a plateau of one row; any other average mixes sizes and is reported
// at info as a lower bound of the plateau.
func footerRun(inc *Incident, r *ingest.TestRun, sp span, speed nicSpeed, speedKnown bool) (Finding, bool) {
	if r.AvgEvidence.Line == 0 {
		return Finding{}, false
	}
	if r.MinBytes == r.MaxBytes && r.MaxBytes >= ingest.PlateauMinSize {
		row := ingest.TestRow{Size: r.MaxBytes, Root: -1, Evidence: r.AvgEvidence,
			Out: ingest.TestHalf{BusBW: r.AvgBusBW, Wrong: -1}, In: ingest.TestHalf{BusBW: r.AvgBusBW, Wrong: -1}}
		p := ingest.Plateau{BusBW: r.AvgBusBW, Min: r.AvgBusBW, Max: r.AvgBusBW, MinSize: r.MaxBytes, MaxSize: r.MaxBytes, Rows: []ingest.TestRow{row}}
		f := judgePlateau(inc, r, p, sp, speed, speedKnown)
		f.Evidence = evidenceInOrder(append([]Evidence{r.Params}, f.Evidence...))
		f.Mechanism += fmt.Sprintf(" Only the table's footer was given; its run measured one size (%s), so its 'Avg bus bandwidth' is that size's busbw.", unit.Bytes(r.MaxBytes).Human())
		return f, true
	}
	sweep := "sizes the paste does not show"
	if r.MaxBytes > 0 {
		sweep = fmt.Sprintf("every size from %s to %s", unit.Bytes(r.MinBytes).Human(), unit.Bytes(r.MaxBytes).Human())
	}
	return Finding{
		ID: "nccltests.busbw.unjudged", Severity: Info, Layer: LayerNCCL,
		Title:     fmt.Sprintf("%s: only the footer was given: Avg bus bandwidth %s GB/s (%s Gb/s) averages %s, so the plateau is at least that; not judged against a NIC", testName(r), fmtGB(r.AvgBusBW), fmtGb(gbps(r.AvgBusBW)), sweep),
		Evidence:  evidenceInOrder([]Evidence{r.Params, r.AvgEvidence}),
		Mechanism: "nccl-tests' 'Avg bus bandwidth' is the mean of the busbw column over every size of the sweep, latency-bound small sizes included, so it sits below the plateau of the large sizes (a healthy 8-byte to 8 GB all_reduce on 400G NICs averages about 100 GB/s beside a plateau near 190). Only the plateau compares with the NICs' line rate, and the footer holds no row.",
		Fix:       "Give the table (the rows from 64 MB up), or rerun one large size (-b 8G -e 8G) so that the average is that size's busbw.",
	}, true
}
