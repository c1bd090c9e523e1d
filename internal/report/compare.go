package report

import (
	"fmt"
	"io"
	"strings"

	"rocelab/internal/metrics"
	"rocelab/internal/textout"
	"rocelab/internal/twin"
)

// Comparison is one scenario run several ways (its variants): each run's
// result, and what changed between them.
type Comparison struct {
	// Schema is the version of this JSON (twin.Schema).
	Schema   int       `json:"schema"`
	Name     string    `json:"name"`
	Variants []Variant `json:"variants"`
}

// NewComparison returns an empty comparison of scenario name's variants.
func NewComparison(name string) *Comparison { return &Comparison{Schema: twin.Schema, Name: name} }

// Variant is one variant's run.
type Variant struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Run         *Run   `json:"run"`
}

// WriteJSON writes the comparison as indented JSON.
func (c *Comparison) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, c) }

// counterChanges are the counters that explain a change in an NCCL
// workload's busbw, in the order an engineer reads them: marking, the
// notifications and reactions it causes, then pauses and loss.
var counterChanges = []string{
	"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
	"out_of_sequence", "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
}

// Twin-only rows of the counter table: reordering at the receivers.
const (
	reorderedRow = "packets reordered in the fabric"
	placedRow    = "placed out of order by the NIC"
)

// WriteText writes the variants side by side: each nccl-tests table, the
// busbw change per size, the health targets, and the counters that
// changed.
func (c *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	names := make([]string, len(c.Variants))
	for i, v := range c.Variants {
		names[i] = v.Name
	}
	fmt.Fprintf(&b, "rocelab run: %s, %d variants: %s\n", c.Name, len(c.Variants), strings.Join(names, ", "))
	if len(c.Variants) == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	first := c.Variants[0].Run
	s := first.Scenario
	fmt.Fprintf(&b, "topology %s: %s, %s", s.Topology, textout.Count(int64(s.Hosts), "host", "hosts"), textout.Count(int64(s.Switches), "switch", "switches"))
	if sv := s.Servers; sv != nil {
		fmt.Fprintf(&b, "; %d servers × %d GPUs, %d NICs each", sv.Count, sv.GPUs, sv.NICs)
	}
	b.WriteString("\n")
	same := true
	for _, v := range c.Variants {
		same = same && v.Run.Engine.Name == first.Engine.Name && v.Run.Engine.Reason == first.Engine.Reason
	}
	if same {
		writeEngine(&b, first.Engine, "")
	}
	for _, v := range c.Variants {
		r := v.Run
		fmt.Fprintf(&b, "\n== %s: %s\n", v.Name, strings.TrimSpace(v.Description))
		if !same {
			writeEngine(&b, r.Engine, "   ")
		}
		fmt.Fprintf(&b, "   NIC congestion control %s on priorities %s; simulated %.3f ms, %d events\n",
			r.Scenario.CC, textout.Ints(twin.Priorities(r.Scenario.CCPrioMask)), r.Sim.EndUS/1000, r.Sim.Events)
		if n := r.NCCL; n != nil {
			for _, l := range strings.Split(strings.TrimRight(n.Comm, "\n"), "\n") {
				b.WriteString("   " + l + "\n")
			}
			writeTuning(&b, "   ", n.Tuning)
			if n.Err != "" {
				fmt.Fprintf(&b, "   FAILED: %s\n", n.Err)
			}
			b.WriteString("\n" + n.Tests)
			if n.Training != nil {
				b.WriteString(indent(n.Training.Summary))
			}
			if n.Background != "" {
				b.WriteString("background traffic:\n" + indent(n.Background))
			}
		}
	}
	c.writeBusBW(&b)
	c.writeHealth(&b)
	c.writeCounters(&b)
	c.writeLinks(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *Comparison) writeBusBW(b *strings.Builder) {
	base := c.Variants[0].Run.NCCL
	if base == nil || len(base.Rows) == 0 {
		return
	}
	b.WriteString("\nbusbw, out-of-place (GB/s)\n")
	head := []string{"size"}
	for _, v := range c.Variants {
		head = append(head, v.Name)
	}
	last := c.Variants[len(c.Variants)-1]
	head = append(head, fmt.Sprintf("%s/%s", last.Name, c.Variants[0].Name))
	tbl := &textout.Table{Head: head}
	for i, row := range base.Rows {
		cells := []string{fmt.Sprint(row.Bytes)}
		var firstBW, lastBW float64
		for j, v := range c.Variants {
			n := v.Run.NCCL
			if n == nil || i >= len(n.Rows) {
				cells = append(cells, "-")
				continue
			}
			bw := n.Rows[i].OutBusBW
			cells = append(cells, fmt.Sprintf("%.2f (%s)", bw, n.Rows[i].Algo))
			if j == 0 {
				firstBW = bw
			}
			lastBW = bw
		}
		ratio := "-"
		if firstBW > 0 {
			ratio = fmt.Sprintf("×%.2f", lastBW/firstBW)
		}
		tbl.Add(append(cells, ratio)...)
	}
	avg := []string{"avg"}
	for _, v := range c.Variants {
		if n := v.Run.NCCL; n != nil {
			avg = append(avg, fmt.Sprintf("%.2f", n.AvgBusBW))
		}
	}
	tbl.Add(append(avg, "")...)
	tbl.Write(b)
}

func (c *Comparison) writeHealth(b *strings.Builder) {
	b.WriteString("\nHealth targets\n")
	head := []string{"target"}
	for _, v := range c.Variants {
		head = append(head, v.Name)
	}
	tbl := &textout.Table{Head: append(head, "goal")}
	// A note would stretch its column past the screen: the cell says
	// PASS or FAIL with a mark, and the notes follow the table.
	var notes []string
	mark := func(variant string, t metrics.Target) string {
		if t.Note == "" {
			return passFail(t)
		}
		notes = append(notes, fmt.Sprintf("  [%d] %s: %s", len(notes)+1, variant, t.Note))
		switch {
		case t.NA:
			return fmt.Sprintf("[%d]", len(notes))
		case t.Pass:
			return fmt.Sprintf("PASS [%d]", len(notes))
		}
		return fmt.Sprintf("FAIL [%d]", len(notes))
	}
	rows := []struct {
		name, goal string
		value      func(h *metrics.Health) string
		target     func(h *metrics.Health) metrics.Target
	}{
		{"P99 latency (RoCE)", "< 10 us", func(h *metrics.Health) string { return usValue(h.P99LatencyUS) },
			func(h *metrics.Health) metrics.Target { return h.P99LatencyUS }},
		{"bandwidth utilization", "> 90 %", func(h *metrics.Health) string { return pctValue(h.BandwidthUtilization) },
			func(h *metrics.Health) metrics.Target { return h.BandwidthUtilization }},
		{"loss of RoCE packets", "= 0", func(h *metrics.Health) string { return pct(h.LossRate.Value) },
			func(h *metrics.Health) metrics.Target { return h.LossRate }},
		{"PFC pause time (worst port)", "< 0.1 %", func(h *metrics.Health) string { return pct(h.PFCPauseRatio.Value) },
			func(h *metrics.Health) metrics.Target { return h.PFCPauseRatio }},
	}
	for _, row := range rows {
		cells := []string{row.name}
		for _, v := range c.Variants {
			h := &v.Run.Health
			cells = append(cells, row.value(h)+" "+mark(v.Name, row.target(h)))
		}
		tbl.Add(append(cells, row.goal)...)
	}
	tbl.Write(b)
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
}

// writeCounters writes the counters whose sums over the NICs differ
// between variants, and the switch-side marks and pauses.
func (c *Comparison) writeCounters(b *strings.Builder) {
	sums := make([]map[string]int64, len(c.Variants))
	for i, v := range c.Variants {
		sums[i] = map[string]int64{}
		for _, n := range v.Run.NICs {
			for k, x := range n.Counters {
				sums[i][k] += x
			}
		}
		if t := v.Run.Totals; t != nil {
			sums[i]["switch ECN-marked packets"] = t.ECNMarked
			sums[i]["PFC pause frames"] = t.PauseFrames
			sums[i]["RoCE retransmitted packets"] = t.Retransmitted.Packets
		}
		for _, n := range v.Run.NICs {
			sums[i][reorderedRow] += n.Reordered
			sums[i][placedRow] += n.PlacedOutOfOrder
		}
	}
	keys := append([]string{"switch ECN-marked packets"}, counterChanges...)
	keys = append(keys, "PFC pause frames", "RoCE retransmitted packets", reorderedRow, placedRow)
	head := []string{"counter (sum over NICs)"}
	for _, v := range c.Variants {
		head = append(head, v.Name)
	}
	tbl := &textout.Table{Head: head}
	for _, k := range keys {
		same, any := true, false
		for i := range sums {
			if sums[i][k] != sums[0][k] {
				same = false
			}
			if sums[i][k] != 0 {
				any = true
			}
		}
		if same && !any {
			continue
		}
		cells := []string{k}
		for i := range sums {
			cells = append(cells, fmt.Sprint(sums[i][k]))
		}
		tbl.Add(cells...)
	}
	if tbl.Len() == 0 {
		// A header over no rows reads as a table cut off; say why it is
		// empty.
		b.WriteString("\nCounters that explain the change: none moved in any variant (no ECN marks, CNPs, pauses or retransmissions)\n")
		return
	}
	b.WriteString("\nCounters that explain the change\n")
	tbl.Write(b)
}

// maxLinkRows bounds the link table of a comparison.
const maxLinkRows = 32

// writeLinks writes the bytes each switch-to-switch link carried, per
// variant, when the fabric has such links: where ECMP put the traffic
// (an idle uplink beside one carrying twice the mean is a hash
// collision).
func (c *Comparison) writeLinks(b *strings.Builder) {
	hosts := map[string]bool{}
	for _, n := range c.Variants[0].Run.NICs {
		hosts[n.Name] = true
	}
	node := func(port string) string { n, _, _ := strings.Cut(port, "/"); return n }
	head := []string{"switch link (tx bytes)"}
	for _, v := range c.Variants {
		head = append(head, v.Name)
	}
	tbl := &textout.Table{Head: head}
	rows, carried := 0, false
	for i, p := range c.Variants[0].Run.Ports {
		if hosts[node(p.Name)] || hosts[node(p.Peer)] || p.Peer == "" {
			continue
		}
		if rows == maxLinkRows {
			tbl.Add("...")
			break
		}
		cells := []string{p.Name + " → " + p.Peer}
		for _, v := range c.Variants {
			if i < len(v.Run.Ports) {
				n := v.Run.Ports[i].Counters["tx_bytes_phy"]
				carried = carried || n > 0
				cells = append(cells, fmt.Sprint(n))
			}
		}
		tbl.Add(cells...)
		rows++
	}
	if !carried {
		return
	}
	b.WriteString("\nSwitch-to-switch links\n")
	tbl.Write(b)
	for _, v := range c.Variants {
		for _, e := range v.Run.ECMP {
			fmt.Fprintf(b, "  %s %s: %d uplinks, %d unused, max/mean %.2f\n", v.Name, e.Tier, e.Uplinks, e.Unused, e.Imbalance)
		}
	}
}
