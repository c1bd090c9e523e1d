package report

import (
	"fmt"
	"strings"

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
