package report

import (
	"fmt"
	"strings"

	"rocelab/internal/textout"
	"rocelab/internal/twin"
)

// writeNCCL writes the NCCL section of the text summary.
func writeNCCL(b *strings.Builder, n *twin.NCCL) {
	if n == nil {
		return
	}
	b.WriteString("\nNCCL workload\n")
	for _, l := range strings.Split(strings.TrimRight(n.Comm, "\n"), "\n") {
		if l != "" {
			b.WriteString("  " + l + "\n")
		}
	}
	writeTuning(b, "  ", n.Tuning)
	if n.Err != "" {
		fmt.Fprintf(b, "  FAILED: %s\n", n.Err)
	}
	if n.Tests != "" {
		b.WriteString("\n" + n.Tests)
	}
	if t := n.Training; t != nil {
		b.WriteString(indent(t.Summary))
		writeSplit(b, t)
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

// writeSplit writes where one training iteration's time goes, by
// collective: compute with the tensor-parallel AllReduces inside the
// server, the pipeline's send/recv, the data-parallel AllReduce.
func writeSplit(b *strings.Builder, t *twin.TrainingResult) {
	ms := func(us float64) string { return fmt.Sprintf("%.3f ms", us/1e3) }
	tbl := &textout.Table{Head: []string{"iteration split (busiest stage)", "time"}}
	tbl.Add("iteration", ms(t.IterationUS))
	tbl.Add("  compute, with TP AllReduce", ms(t.ComputeUS))
	tbl.Add("    TP AllReduce (inside the node)", ms(t.TPUS))
	tbl.Add("  communication and pipeline bubble", ms(t.CommUS))
	tbl.Add("    PP send/recv (one transfer)", ms(t.PPTransferUS))
	tbl.Add("    DP gradient AllReduce", ms(t.DPAllReduceUS))
	var sb strings.Builder
	tbl.Write(&sb)
	b.WriteString(indent(sb.String()))
}

// writeTuning writes NCCL's choice per size and its candidates' costs.
func writeTuning(b *strings.Builder, pre, tuning string) {
	if tuning == "" {
		return
	}
	b.WriteString(pre + "NCCL's choice per size (NCCL_DEBUG_SUBSYS=TUNING; predicted latency + bytes/bandwidth):\n")
	for _, l := range strings.Split(strings.TrimRight(tuning, "\n"), "\n") {
		b.WriteString(pre + "  " + l + "\n")
	}
}
