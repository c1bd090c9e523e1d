package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// A half of a row at least passRatio times slower than the other, by at
// least passMinUS, stalled; passErrorRatio times and passErrorUS more make
// it an error (a timeout, not a hiccup of the host). Launch and warm-up
// effects at small sizes stay below passMinUS. A half faster than
// passFloorUS did no collective (one rank's in-place pass is a no-op).
const (
	passRatio      = 3
	passErrorRatio = 10
	passMinUS      = 1000
	passErrorUS    = 100e3
	passFloorUS    = 10
)

// checkStalledPass finds the rows of an nccl-tests table whose out-of-place
// and in-place halves differ by far more than noise: the two halves move
// the same bytes over the same rings back to back, so one much slower than
// the other stalled. The busbw judgement takes the better half and would
// miss it, and nccltests.time.stall (a size slower than a larger one)
// judges the better half too, as a one-off is not the size's behaviour; a
// one-off of seconds is still an incident.
func checkStalledPass(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		for _, r := range t.Runs {
			var ev evidence
			var worst ingest.TestRow
			ratio, rows := 0.0, 0
			first := true
			for _, row := range r.Rows {
				fast, slow := min(row.Out.Time, row.In.Time), max(row.Out.Time, row.In.Time)
				// The run's first collective, the out-of-place half of its first row that
				// moves data (a 0-byte row does none), pays what nccl-tests' warm-up
				// iterations (-w, 0 on some launchers) did not: lazy connection setup of
				// a new pattern, buffer registration, NVLS and CUDA graph setup. A slow
				// out-of-place half there is warm-up, not a stall; stalls are judged on
				// the rest.
				warmUp := first && row.Out.Time >= passFloorUS && row.Out.Time > row.In.Time
				first = first && row.Out.Time < passFloorUS
				if warmUp || fast < passFloorUS || slow < passRatio*fast || slow-fast < passMinUS {
					continue
				}
				rows++
				ev.add(row.Evidence)
				if slow/fast > ratio {
					ratio, worst = slow/fast, row
				}
			}
			if rows == 0 {
				continue
			}
			half, slow, fast := "out-of-place", worst.Out.Time, worst.In.Time
			if worst.In.Time > worst.Out.Time {
				half, slow, fast = "in-place", worst.In.Time, worst.Out.Time
			}
			sev := Warn
			if ratio >= passErrorRatio && slow-fast >= passErrorUS {
				sev = Error
			}
			stall := fmt.Sprintf("%.1f ms", (slow-fast)/1e3)
			if slow-fast >= 1e6 {
				stall = fmt.Sprintf("%.2f s", (slow-fast)/1e6)
			}
			fs = append(fs, Finding{
				ID: "nccltests.pass.stalled", Severity: sev, Layer: LayerNCCL,
				Title: fmt.Sprintf("%s stalled: at %s the %s pass took %.0f us, %.0f× the other's %.0f us (%s more per iteration on average; %s)",
					testName(r), unit.Bytes(worst.Size).Human(), half, slow, ratio, fast, stall, plural(rows, "size", "sizes")),
				Evidence: ev.sorted(),
				Mechanism: "The out-of-place and in-place halves of a row move the same bytes over the same rings and channels, one after the other, so they take about the same time; the time is the average over the test's iterations (-n). A half several times slower stalled for about the difference times the iterations, in one iteration or more, and the busbw of the other half hides it. " +
					"On RoCE a stall of seconds is the RC local ACK timer (4.096 µs × 2^NCCL_IB_TIMEOUT, about 4.3 s at the default 20) recovering a lost packet at the tail of a message: loss on a link, a PFC watchdog dropping a paused queue, a link that flapped. A stall of milliseconds is congestion or pausing that came and went: a pause storm, an incast beside the job.",
				Fix: "Find what dropped or held packets during the test: local_ack_timeout_err and packet_seq_err in the NICs' hw_counters, the switches' PFC watchdog (storms detected, drops), tx_prioN_pause_duration on the hosts, link flaps (link_down_events_phy, `dmesg | grep -i 'link down'`) and FCS errors (rx_crc_errors_phy). Rerun with -w 5 -n 20 to see whether it recurs; judge the bandwidth once the cause is gone.",
			}.per(t.Source()+" "+collName(r), "run", "nccl-tests pass stalled"))
		}
	}
	return fs
}
