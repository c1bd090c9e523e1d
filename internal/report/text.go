package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"rocelab/internal/textout"
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
	if s.PFC {
		fmt.Fprintf(&b, "; PFC on priority %s, headroom %s\n", ints(s.LosslessPrios), bytesList(s.HeadroomBytes))
	} else {
		fmt.Fprintf(&b, "; PFC off (lossless class %s unprotected)\n", ints(s.LosslessPrios))
	}
	state := "all flows completed"
	if !r.Sim.Completed {
		state = "time limit reached before all flows completed"
	}
	fmt.Fprintf(&b, "simulated %.3f us, %d events; %s\n", r.Sim.EndUS, r.Sim.Events, state)

	b.WriteString("\nHealth targets\n")
	h := r.Health
	tbl := &textout.Table{Head: []string{"target", "value", "goal", ""}}
	tbl.Add("P99 latency (lossless class)", fmt.Sprintf("%.2f us", h.P99LatencyUS.Value), "< 10 us", passFail(h.P99LatencyUS.Pass))
	tbl.Add("bandwidth utilization", pct(h.BandwidthUtilization.Value), "> 90 %", passFail(h.BandwidthUtilization.Pass))
	tbl.Add("loss on the lossless class", pct(h.LossRate.Value), "= 0", passFail(h.LossRate.Pass))
	tbl.Add("PFC pause time (worst port)", pct(h.PFCPauseRatio.Value), "< 0.1 %", passFail(h.PFCPauseRatio.Pass))
	tbl.Write(&b)

	t := r.Totals
	b.WriteString("\nTotals (RDMA payload)\n")
	fmt.Fprintf(&b, "  sent %d B = delivered %d + dropped %d + in flight %d\n", t.BytesSent, t.BytesDelivered, t.BytesDropped, t.BytesInFlight)
	fmt.Fprintf(&b, "  packets sent %d, delivered %d, dropped %d", t.PacketsSent, t.PacketsDelivered, t.PacketsDropped)
	if t.PacketsDropped > 0 {
		var rs []string
		for _, k := range sortedKeys(t.DropsByReason) {
			if v := t.DropsByReason[k]; v > 0 {
				rs = append(rs, fmt.Sprintf("%s %d", k, v))
			}
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(rs, ", "))
	}
	fmt.Fprintf(&b, "\n  PFC frames %d, ECN-marked packets %d\n", t.PauseFrames, t.ECNMarked)

	fmt.Fprintf(&b, "\nFlows (%d)\n", len(r.Flows))
	tbl = &textout.Table{Head: []string{"id", "name", "src", "dst", "bytes", "prio", "fct_us", "goodput_gbps", "dropped"}}
	for i, f := range r.Flows {
		if i == maxRows {
			tbl.More = len(r.Flows) - i
			break
		}
		fct := "-"
		if f.FCTUS != nil {
			fct = fmt.Sprintf("%.2f", *f.FCTUS)
		}
		tbl.Add(fmt.Sprint(f.ID), f.Name, f.Src, f.Dst, fmt.Sprint(f.Bytes), fmt.Sprint(f.Priority), fct, fmt.Sprintf("%.3f", f.GoodputGbps), fmt.Sprint(f.Dropped))
	}
	tbl.Write(&b)

	if len(r.Latency) > 0 {
		b.WriteString("\nOne-way latency\n")
		tbl = &textout.Table{Head: []string{"prio", "packets", "p50_us", "p99_us", "p99.9_us", "max_us"}}
		for _, l := range r.Latency {
			tbl.Add(fmt.Sprint(l.Priority), fmt.Sprint(l.Packets), f2(l.P50US), f2(l.P99US), f2(l.P999US), f2(l.MaxUS))
		}
		tbl.Write(&b)
	}

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

// writePorts lists the ports with PFC, discard or ECN activity, busiest
// first, with the mlx5 counters that tell the story.
func (r *Run) writePorts(b *strings.Builder) {
	type row struct {
		name  string
		score int64
		cells []string
	}
	var rows []row
	for _, p := range r.Ports {
		var notes []string
		var score int64
		for _, k := range sortedKeys(p.Counters) {
			v := p.Counters[k]
			if strings.HasSuffix(k, "_pause") || strings.HasSuffix(k, "_pause_duration") ||
				strings.Contains(k, "discards") || strings.HasPrefix(k, "drop_") || strings.HasPrefix(k, "ecn_marked") || strings.HasPrefix(k, "pfcwd_") {
				notes = append(notes, fmt.Sprintf("%s=%d", k, v))
				score += v
			}
		}
		if len(notes) > 0 {
			rows = append(rows, row{p.Name, score, []string{p.Name, p.Peer, strings.Join(notes, " ")}})
		}
	}
	if len(rows) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].score > rows[j].score })
	fmt.Fprintf(b, "\nPorts with PFC, discards or ECN (%d; mlx5 ethtool -S names, durations in us)\n", len(rows))
	tbl := &textout.Table{Head: []string{"port", "peer", "counters"}}
	for i, rw := range rows {
		if i == maxRows {
			tbl.More = len(rows) - i
			break
		}
		tbl.Add(rw.cells...)
	}
	tbl.Write(b)
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func pct(f float64) string { return fmt.Sprintf("%.3f %%", 100*f) }
func f2(f float64) string  { return fmt.Sprintf("%.2f", f) }

func ints(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

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
