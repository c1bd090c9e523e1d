package report

import (
	"bytes"
	"fmt"
	"strings"

	"rocelab/internal/scenario"
)

// NCCL is the outcome of a scenario's NCCL workload.
type NCCL struct {
	// Comm describes the communicator: transport, NICs, GDR, channels.
	Comm string `json:"comm"`
	// Tests is the nccl-tests output, as nccl-tests prints it.
	Tests      string          `json:"nccl_tests,omitempty"`
	Rows       []TestsRow      `json:"rows,omitempty"`
	AvgBusBW   float64         `json:"avg_busbw_gbps,omitempty"`
	Training   *TrainingResult `json:"training,omitempty"`
	Err        string          `json:"error,omitempty"`
	Background string          `json:"background,omitempty"`
	Completed  bool            `json:"completed"`
}

// TestsRow is one size of the nccl-tests table.
type TestsRow struct {
	Bytes     int64   `json:"bytes"`
	Algo      string  `json:"algo"`
	OutTimeUS float64 `json:"out_time_us"`
	OutBusBW  float64 `json:"out_busbw_gbps"`
	InTimeUS  float64 `json:"in_time_us"`
	InBusBW   float64 `json:"in_busbw_gbps"`
}

// TrainingResult is a training run's per-iteration times.
type TrainingResult struct {
	Iterations    int     `json:"iterations"`
	IterationUS   float64 `json:"iteration_us"`
	ComputeUS     float64 `json:"compute_us"`
	TPUS          float64 `json:"tp_allreduce_us"`
	CommUS        float64 `json:"communication_us"`
	PPTransferUS  float64 `json:"pp_transfer_us"`
	DPAllReduceUS float64 `json:"dp_allreduce_us"`
	Summary       string  `json:"summary"`
}

func ncclResult(tw *scenario.Twin) *NCCL {
	j := tw.Jobs
	if j == nil {
		return nil
	}
	n := &NCCL{}
	if s := j.Sweep; s != nil {
		n.Comm = s.Comm.Describe()
		n.Completed = s.Done() && s.Err == nil
		var b bytes.Buffer
		if _, err := s.WriteTo(&b); err == nil {
			n.Tests = b.String()
		}
		n.AvgBusBW = s.AvgBusBW()
		for i, r := range s.Rows {
			row := TestsRow{Bytes: r.Size, OutTimeUS: r.Out.Time, OutBusBW: r.Out.BusBW, InTimeUS: r.In.Time, InBusBW: r.In.BusBW}
			if ch := s.RowChoice(i); ch != "" {
				row.Algo = ch
			}
			n.Rows = append(n.Rows, row)
		}
		if s.Err != nil {
			n.Err = s.Err.Error()
		}
	}
	if w := j.Training; w != nil {
		r := w.Report
		n.Completed = w.Done() && w.Err == nil
		n.Training = &TrainingResult{Iterations: r.Iterations, IterationUS: us(r.Iteration), ComputeUS: us(r.Compute), TPUS: us(r.TP),
			CommUS: us(r.Communication()), PPTransferUS: us(r.PP), DPAllReduceUS: us(r.DP), Summary: r.String()}
		if w.Err != nil {
			n.Err = w.Err.Error()
		}
	}
	if bg := j.Background; bg != nil {
		n.Background = bg.Summary()
	}
	return n
}

// writeNCCL writes the NCCL section of the text summary.
func writeNCCL(b *strings.Builder, n *NCCL) {
	if n == nil {
		return
	}
	b.WriteString("\nNCCL workload\n")
	for _, l := range strings.Split(strings.TrimRight(n.Comm, "\n"), "\n") {
		if l != "" {
			b.WriteString("  " + l + "\n")
		}
	}
	if n.Err != "" {
		fmt.Fprintf(b, "  FAILED: %s\n", n.Err)
	}
	if n.Tests != "" {
		b.WriteString("\n" + n.Tests)
	}
	if t := n.Training; t != nil {
		b.WriteString(indent(t.Summary))
	}
	if n.Background != "" {
		b.WriteString("background traffic:\n" + indent(n.Background))
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}
