package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"rocelab/internal/metrics"
	"rocelab/internal/textout"
	"rocelab/internal/twin"
)

// WriteJSON writes the run as indented JSON.
func (r *Run) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, r) }

// maxRows caps the rows of the flow, port and queue tables in the text
// summary; JSON and --out files hold everything.
const maxRows = 20

// WriteText writes the summary an engineer reads first.
func (r *Run) WriteText(w io.Writer) error {
	var b strings.Builder
	s := r.Scenario
	// The first line says which engine ran and why (issue 15).
	writeEngine(&b, r.Engine, "")
	fmt.Fprintf(&b, "rocelab run: %s (seed %d)\n", s.Name, s.Seed)
	fmt.Fprintf(&b, "topology %s: %s, %s, %s", s.Topology, textout.Count(int64(s.Hosts), "host", "hosts"),
		textout.Count(int64(s.Switches), "switch", "switches"), textout.Count(int64(s.Links), "link", "links"))
	if s.Oversubscription > 0 {
		fmt.Fprintf(&b, ", oversubscription %g:1", s.Oversubscription)
	}
	if sv := s.Servers; sv != nil {
		rail := ""
		if sv.RailOptimized {
			rail = ", rail-optimised"
		}
		fmt.Fprintf(&b, "; %d servers × %d GPUs, %d NICs%s", sv.Count, sv.GPUs, sv.NICs, rail)
	}
	fmt.Fprintf(&b, "; path MTU %d", s.MTU)
	if s.SwitchLatencyNS > 0 {
		fmt.Fprintf(&b, "; switch latency %g ns", s.SwitchLatencyNS)
	}
	if s.ECMP == "ns3" {
		b.WriteString("; ECMP hashed as the HPCC ns-3 model's switches do")
	}
	if s.PFC {
		fmt.Fprintf(&b, "; PFC on priority %s, headroom %s\n", textout.Ints(s.LosslessPrios), bytesList(s.HeadroomBytes))
	} else {
		fmt.Fprintf(&b, "; PFC off (lossless class %s unprotected)\n", textout.Ints(s.LosslessPrios))
	}
	protected := "lossless"
	if !s.RoCELossless {
		protected = "NOT lossless"
	}
	fmt.Fprintf(&b, "RoCE on switch priority %s (%s); NIC congestion control %s on priorities %s\n", textout.Ints(s.RoCEPriorities), protected, s.CC, textout.Ints(twin.Priorities(s.CCPrioMask)))
	state := r.outcome()
	fmt.Fprintf(&b, "simulated %.3f us, %d events; %s\n", r.Sim.EndUS, r.Sim.Events, state)

	b.WriteString("\nHealth targets\n")
	h := r.Health
	tbl := &textout.Table{Head: []string{"target", "value", "goal", ""}}
	tbl.Add("P99 latency (RoCE)", usValue(h.P99LatencyUS), "< 10 us", passFail(h.P99LatencyUS))
	tbl.Add("bandwidth utilization", pctValue(h.BandwidthUtilization), "> 90 %", passFail(h.BandwidthUtilization))
	tbl.Add("loss of RoCE packets", pct(h.LossRate.Value), "= 0", passFail(h.LossRate))
	tbl.Add("PFC pause time (worst port)", pct(h.PFCPauseRatio.Value), "< 0.1 %", passFail(h.PFCPauseRatio))
	tbl.Write(&b)

	writeTotals(&b, r.Totals)
	r.writeReordering(&b)

	writeNCCL(&b, r.NCCL)
	for _, p := range r.obs.Perftest {
		fmt.Fprintf(&b, "\nperftest %s → %s: %s\n%s", p.Client, p.Server, p.Summary, p.Output)
	}

	if len(r.Flows) > 0 {
		r.writeFlows(&b)
	}

	if len(r.Latency) > 0 {
		b.WriteString("\nOne-way latency\n")
		tbl := &textout.Table{Head: []string{"prio", "packets", "p50_us", "p99_us", "p99.9_us", "max_us"}}
		for _, l := range r.Latency {
			tbl.Add(fmt.Sprint(l.Priority), fmt.Sprint(l.Packets), f2(l.P50US), f2(l.P99US), f2(l.P999US), f2(l.MaxUS))
		}
		tbl.Write(&b)
	}

	r.writeNICs(&b)
	r.writePorts(&b)

	if len(r.Queues) > 0 {
		b.WriteString("\nDeepest queues\n")
		tbl = &textout.Table{Head: []string{"port", "prio", "max_bytes"}}
		for i, q := range r.Queues {
			if i == maxRows/2 {
				break
			}
			tbl.Add(q.Port, fmt.Sprint(q.Priority), fmt.Sprint(q.MaxBytes))
		}
		tbl.Write(&b)
	}
	if len(r.Busiest) > 0 {
		b.WriteString("\nBusiest links (frame bytes sent over the run, share of line rate)\n")
		tbl = &textout.Table{Head: []string{"port", "peer", "gbps", "utilization"}}
		for _, l := range r.Busiest {
			tbl.Add(l.Port, l.Peer, fmt.Sprintf("%.3f", l.Gbps), pct(l.Utilization))
		}
		tbl.Write(&b)
	}
	if len(r.ECMP) > 0 {
		b.WriteString("\nECMP uplink load\n")
		tbl = &textout.Table{Head: []string{"tier", "uplinks", "unused", "mean_bytes", "max_bytes", "max/mean"}}
		for _, e := range r.ECMP {
			tbl.Add(e.Tier, fmt.Sprint(e.Uplinks), fmt.Sprint(e.Unused), fmt.Sprintf("%.0f", e.MeanBytes), fmt.Sprint(e.MaxBytes), fmt.Sprintf("%.3f", e.Imbalance))
		}
		tbl.Write(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFlows lists the flows: completion, goodput, status.
func (r *Run) writeFlows(b *strings.Builder) {
	fmt.Fprintf(b, "\nFlows (%d)\n", len(r.Flows))
	tbl := &textout.Table{Head: []string{"id", "name", "src", "dst", "bytes", "prio", "fct_us", "goodput_gbps", "retx_bytes", "status"}}
	for i, f := range r.Flows {
		if i == maxRows {
			tbl.More = len(r.Flows) - i
			break
		}
		fct := "-"
		if f.FCTUS != nil {
			fct = fmt.Sprintf("%.2f", *f.FCTUS)
		}
		tbl.Add(fmt.Sprint(f.ID), f.Name, f.Src, f.Dst, fmt.Sprint(f.Bytes), fmt.Sprint(f.Priority), fct, fmt.Sprintf("%.3f", f.GoodputGbps), fmt.Sprint(f.Retransmitted), f.Status)
	}
	tbl.Write(b)
}

// writeTotals writes the network-wide sums, when the engine counts them.
func writeTotals(b *strings.Builder, t *twin.Totals) {
	if t == nil {
		return
	}
	b.WriteString("\nTotals (RDMA payload)\n")
	fmt.Fprintf(b, "  sent %d B + retransmitted %d = delivered %d + dropped %d + discarded %d + in flight %d\n",
		t.Sent.Bytes, t.Retransmitted.Bytes, t.Delivered.Bytes, t.Dropped.Bytes, t.Discarded.Bytes, t.InFlight.Bytes)
	fmt.Fprintf(b, "  data packets sent %d, retransmitted %d, delivered %d, dropped %d, discarded %d\n",
		t.Sent.Packets, t.Retransmitted.Packets, t.Delivered.Packets, t.Dropped.Packets, t.Discarded.Packets)
	if n := sum(t.DropsByReason); n > 0 {
		var rs []string
		for _, k := range sortedKeys(t.DropsByReason) {
			if v := t.DropsByReason[k]; v > 0 {
				rs = append(rs, fmt.Sprintf("%s %d", k, v))
			}
		}
		fmt.Fprintf(b, "  frames dropped %d: %s\n", n, strings.Join(rs, ", "))
	}
	fmt.Fprintf(b, "  frames sent: data %d, ack/nak %d, cnp %d, pfc %d; ECN-marked packets %d\n",
		t.Frames["data"], t.Frames["ack"], t.Frames["cnp"], t.Frames["pause"], t.ECNMarked)
}

// writeReordering sums the reordering the receivers saw, when there was
// any.
func (r *Run) writeReordering(b *strings.Builder) {
	var n, worst, placed int64
	at := 0
	for _, x := range r.NICs {
		if x.Reordered > 0 {
			at++
		}
		n, placed = n+x.Reordered, placed+x.PlacedOutOfOrder
		worst = max(worst, x.ReorderMaxPSNs)
	}
	if n == 0 && placed == 0 {
		return
	}
	fmt.Fprintf(b, "  reordering: %d packets reached %d receivers after a higher PSN (up to %d PSNs late); %d placed out of order\n", n, at, worst, placed)
}

// writeNICs lists the hosts whose RDMA counters moved beyond plain
// traffic: CNPs, ECN marks, sequence errors, timeouts, failed completions.
func (r *Run) writeNICs(b *strings.Builder) {
	var rows []busyRow
	for _, n := range r.NICs {
		if row, ok := busy(n.Counters, func(k string) bool { return k != "rx_write_requests" && k != "rx_read_requests" }, n.Name); ok {
			rows = append(rows, row)
		}
	}
	writeBusy(b, rows, fmt.Sprintf("NICs with congestion or loss recovery (%d; mlx5 hw_counters names)", len(rows)), "host", "counters")
}

// writePorts lists the ports with PFC, discard or ECN activity, busiest
// first, with the mlx5 counters that tell the story.
func (r *Run) writePorts(b *strings.Builder) {
	var rows []busyRow
	for _, p := range r.Ports {
		row, ok := busy(p.Counters, func(k string) bool {
			return strings.HasSuffix(k, "_pause") || strings.HasSuffix(k, "_pause_duration") ||
				strings.Contains(k, "discards") || strings.HasPrefix(k, "drop_") || strings.HasPrefix(k, "ecn_marked") || strings.HasPrefix(k, "pfcwd_")
		}, p.Name, p.Peer)
		if ok {
			rows = append(rows, row)
		}
	}
	writeBusy(b, rows, fmt.Sprintf("Ports with PFC, discards or ECN (%d; mlx5 ethtool -S names, durations in us)", len(rows)), "port", "peer", "counters")
}

// busyRow is one row of a table of busy counters: their sum, the cells
// before them, and the counters with the choice of them.
type busyRow struct {
	score    int64
	cells    []string
	counters map[string]int64
	keep     func(name string) bool
}

// busy returns the row of the counters keep selects, scored by their
// sum, and whether there were any. Their text is written only for the
// rows a table shows (writeBusy): most rows of a large fabric are cut.
func busy(counters map[string]int64, keep func(name string) bool, cells ...string) (busyRow, bool) {
	var score int64
	found := false
	for k, v := range counters {
		if keep(k) {
			score += v
			found = true
		}
	}
	return busyRow{score: score, cells: cells, counters: counters, keep: keep}, found
}

// text returns the counters the row keeps as "name=value" text, by name.
func (rw *busyRow) text() string {
	var notes []string
	for _, k := range sortedKeys(rw.counters) {
		if rw.keep(k) {
			notes = append(notes, fmt.Sprintf("%s=%d", k, rw.counters[k]))
		}
	}
	return strings.Join(notes, " ")
}

// writeBusy writes rows busiest first under title, at most maxRows.
func writeBusy(b *strings.Builder, rows []busyRow, title string, head ...string) {
	if len(rows) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].score > rows[j].score })
	fmt.Fprintf(b, "\n%s\n", title)
	tbl := &textout.Table{Head: head}
	for i := range rows {
		if i == maxRows {
			tbl.More = len(rows) - i
			break
		}
		tbl.Add(append(rows[i].cells, rows[i].text())...)
	}
	tbl.Write(b)
}

// outcome says how the run ended: whether the time limit cut it, and how
// many flows completed, failed, were cancelled or still ran.
func (r *Run) outcome() string {
	var ok, running, cancelled, notStarted int
	failed := map[string]int{}
	var statuses []string
	for _, f := range r.Flows {
		switch f.Status {
		case "ok":
			ok++
		case "running":
			running++
		case "cancelled":
			cancelled++
		case "not started":
			notStarted++
		default:
			if failed[f.Status] == 0 {
				statuses = append(statuses, f.Status)
			}
			failed[f.Status]++
		}
	}
	limit := "every workload finished"
	if !r.Sim.Completed {
		limit = "time limit reached"
	}
	n := len(r.Flows)
	if n == 0 {
		return limit
	}
	switch {
	case ok == n && n == 1:
		return limit + "; the flow completed"
	case ok == n:
		return fmt.Sprintf("%s; all %d flows completed", limit, n)
	}
	parts := []string{fmt.Sprintf("%d of %d flows completed", ok, n)}
	for _, st := range statuses {
		parts = append(parts, fmt.Sprintf("%d failed (%s)", failed[st], st))
	}
	for _, c := range []struct {
		n    int
		what string
	}{{cancelled, "cancelled"}, {running, "still running"}, {notStarted, "not started"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return limit + "; " + strings.Join(parts, ", ")
}

// writeEngine names the engine that ran and why, and what it leaves out.
func writeEngine(b *strings.Builder, e twin.EngineInfo, indent string) {
	fmt.Fprintf(b, "%sengine %s", indent, e.Name)
	if e.Reason != "" {
		fmt.Fprintf(b, ": %s", e.Reason)
	}
	b.WriteString("\n")
	if len(e.NotModelled) > 0 {
		fmt.Fprintf(b, "%snot modelled by the %s engine: %s\n", indent, e.Name, strings.Join(e.NotModelled, "; "))
	}
}

func passFail(t metrics.Target) string {
	switch {
	case t.NA:
		return "(" + t.Note + ")"
	case t.Pass:
		return "PASS"
	case t.Note != "":
		return "FAIL: " + t.Note
	}
	return "FAIL"
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func pct(f float64) string { return fmt.Sprintf("%.3f %%", 100*f) }

// usValue and pctValue print a target's value, n/a when there was nothing
// to measure.
func usValue(t metrics.Target) string {
	if t.NA {
		return "n/a"
	}
	return fmt.Sprintf("%.2f us", t.Value)
}

func pctValue(t metrics.Target) string {
	if t.NA {
		return "n/a"
	}
	return pct(t.Value)
}
func f2(f float64) string { return fmt.Sprintf("%.2f", f) }

func bytesList(xs []int64) string {
	if len(xs) == 0 {
		return "none"
	}
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%d B", x)
	}
	return strings.Join(s, ", ")
}

func sortedKeys(m map[string]int64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
