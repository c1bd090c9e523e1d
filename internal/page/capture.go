package page

import (
	"fmt"
	"image/color"
	"io"
	"sort"
	"strings"

	"gonum.org/v1/plot/vg/draw"

	"rocelab/internal/capture"
	"rocelab/internal/doctor"
	"rocelab/internal/unit"
)

// maxFlowRows caps the queue-pair table of a capture.
const maxFlowRows = 48

// Capture writes the page of a capture: per-QP PSN progress over time
// with the retransmissions, NAKs, CNPs and pauses marked, the queue pairs
// and pause senders, and the doctor's findings on it.
func Capture(w io.Writer, a *capture.Analysis, findings []doctor.Finding, version string) error {
	p := newPage("rocelab capture: " + a.File)
	p.Meta("capture", fmt.Sprintf("%s (%s, snaplen %d)", a.File, a.Format, a.Snaplen))
	p.Meta("packets", fmt.Sprintf("%d (%d RoCE, %d MAC control), %d bytes over %s", a.Packets, a.RoCEPackets, a.MACControlPackets, a.Bytes, fmtTime(a.Duration)))
	speed := "unknown (pause quanta not converted to time)"
	if a.LinkSpeed > 0 {
		speed = fmt.Sprintf("%s (%s)", a.LinkSpeed, a.LinkSpeedSource)
	}
	p.Meta("link speed", speed)
	if a.Filter != "" {
		p.Meta("filter", fmt.Sprintf("%s (%d packets left out)", a.Filter, a.FilteredOut))
	}
	p.Meta("version", version)
	if len(a.Notes) > 0 {
		p.Section(1, "Notes on the capture")
		p.List(a.Notes)
	}
	writePSN(p, a)
	writeFlows(p, a)
	writePauseSenders(p, a)
	p.Section(1, "Findings")
	if len(findings) == 0 {
		p.Para("The doctor has no finding on this capture.")
	}
	for _, g := range groupLike(findings) {
		writeGroup(p, g)
	}
	_, err := p.WriteTo(w)
	return err
}

// writePSN plots the request PSN progress of the busiest requesters over
// time, with their retransmissions, the NAKs and CNPs their peers sent
// back, and the pause frames anyone sent, marked.
func writePSN(p *Page, a *capture.Analysis) {
	p.Section(1, "PSN progress per queue pair")
	var req []*capture.Flow
	for _, fl := range a.Flows {
		if len(fl.TimelinePSN) > 0 {
			req = append(req, fl)
		}
	}
	if len(req) == 0 {
		p.Para("The capture holds no RoCE requests, so there is no PSN progress to draw.")
		return
	}
	scores := make([]float64, len(req))
	for i, fl := range req {
		scores[i] = float64(fl.Bytes)
	}
	top, _ := topN(scores, topSeries)
	ts := scaleFor(a.Duration)
	binEnd := func(start, i int) float64 { return ts.of(unit.Time(start+i+1) * a.Bin) }
	f := newFigure("Request PSN progress per queue pair", ts.axis(), Axis{Name: "PSNs past the first request", Unit: "packets"})
	byKey := map[capture.FlowKey]*capture.Flow{}
	for _, fl := range a.Flows {
		byKey[fl.Key] = fl
	}
	var retxX, retxY, nakX, nakY, cnpX, cnpY []float64
	var high float64
	for _, k := range top {
		fl := req[k]
		xs := make([]float64, len(fl.TimelinePSN))
		ys := make([]float64, len(fl.TimelinePSN))
		for i, v := range fl.TimelinePSN {
			xs[i], ys[i] = binEnd(fl.TimelineStart, i), float64(v)
			high = max(high, ys[i])
		}
		f.line(a.FlowName(fl.Key), xs, ys)
		for i, n := range fl.TimelineRetx {
			if n > 0 {
				retxX, retxY = append(retxX, xs[i]), append(retxY, ys[i])
			}
		}
		// The peer's NAKs and CNPs, at the requester's progress then.
		if fl.Peer == nil {
			continue
		}
		pr := byKey[*fl.Peer]
		if pr == nil {
			continue
		}
		progressAt := func(bin int) float64 {
			i := bin - fl.TimelineStart
			switch {
			case i < 0:
				return 0
			case i >= len(fl.TimelinePSN):
				return float64(fl.TimelinePSN[len(fl.TimelinePSN)-1])
			}
			return float64(fl.TimelinePSN[i])
		}
		for _, m := range []struct {
			bins   []int64
			xs, ys *[]float64
		}{{pr.TimelineNAKs, &nakX, &nakY}, {pr.TimelineCNPs, &cnpX, &cnpY}} {
			for i, n := range m.bins {
				if n > 0 {
					*m.xs = append(*m.xs, binEnd(pr.TimelineStart, i))
					*m.ys = append(*m.ys, progressAt(pr.TimelineStart+i))
				}
			}
		}
	}
	f.points("retransmissions (bin with any)", retxX, retxY, color.RGBA{0xc6, 0x28, 0x28, 0xff}, draw.CrossGlyph{}, 3.5)
	f.points("NAKs received", nakX, nakY, color.RGBA{0x00, 0x00, 0x00, 0xff}, draw.TriangleGlyph{}, 3.5)
	f.points("CNPs received", cnpX, cnpY, color.RGBA{0x1f, 0x6f, 0xb2, 0xff}, draw.PlusGlyph{}, 3)
	var pauseX, pauseY []float64
	for _, ps := range a.Pause {
		for i, n := range ps.TimelineXOFF {
			if n > 0 {
				pauseX, pauseY = append(pauseX, binEnd(ps.TimelineStart, i)), append(pauseY, 0)
			}
		}
	}
	f.points("PFC/PAUSE XOFF sent (any port)", pauseX, pauseY, color.RGBA{0x8a, 0x11, 0x11, 0xff}, draw.BoxGlyph{}, 2.5)
	f.p.Y.Min = 0
	f.p.X.Min = 0
	f.Height = 280
	f.Summary = fmt.Sprintf("How far each of the %d busiest of %d requesting queue pairs has advanced its request PSN by the end of each %s bin; marks show the bins where it retransmitted, where its peer sent NAKs or CNPs, and where any port sent pause.",
		len(top), len(req), fmtTime(a.Bin))
	f.Note = summarised(len(top), len(req), "queue pairs", "bytes")
	p.Figure(f)
}

// writeFlows writes the queue pairs, busiest first.
func writeFlows(p *Page, a *capture.Analysis) {
	p.Section(1, "Queue pairs")
	if len(a.Flows) == 0 {
		p.Para("No RoCE queue pair in the capture.")
		return
	}
	scores := make([]float64, len(a.Flows))
	for i, fl := range a.Flows {
		scores[i] = float64(fl.Bytes)
	}
	top, _ := topN(scores, maxFlowRows)
	t := &Table{Caption: "Each direction of each queue pair (mlx5 names where the NIC has a counter for it)", Sortable: true,
		Head: []string{"flow", "packets", "bytes", "throughput (Gb/s)", "PSN gaps", "retransmitted packets", "episodes (NAK / timeout)", "NAKs received", "CNPs received", "CE marked"}}
	for _, k := range top {
		fl := a.Flows[k]
		var naks []string
		for _, s := range sortedNames(fl.NAKsReceived) {
			naks = append(naks, fmt.Sprintf("%s %d", s, fl.NAKsReceived[s]))
		}
		r := &fl.Requester
		t.Add(text(a.FlowName(fl.Key)), count(fl.Packets), count(fl.Bytes), number("%.3f", fl.ThroughputBps/1e9), count(r.Gaps), count(r.RetransPackets),
			text(fmt.Sprintf("%d / %d", r.NAKEpisodes, r.TimeoutEpisodes)), text(strings.Join(naks, ", ")), count(fl.CNPsReceived), count(fl.CE))
	}
	if len(a.Flows) > len(top) {
		t.More = fmt.Sprintf("Summarised: the %d busiest of %d flows; every flow is in capture --json.", len(top), len(a.Flows))
	}
	p.Table(t)
}

func sortedNames(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// writePauseSenders writes the PFC and PAUSE frames per sender and
// priority.
func writePauseSenders(p *Page, a *capture.Analysis) {
	p.Section(1, "PFC and PAUSE frames")
	if len(a.Pause) == 0 {
		p.Para("No PFC or 802.3x PAUSE frame in the capture.")
		return
	}
	t := &Table{Caption: "Pause frames per sender and priority (quanta of 512 bit times)", Sortable: true,
		Head: []string{"sender MAC", "priority", "frames", "XOFF", "XON", "quanta", "requested", "effective"}}
	for _, ps := range a.Pause {
		req, eff := "unknown", "unknown"
		if ps.Requested != nil {
			req, eff = fmtTime(*ps.Requested), fmtTime(*ps.Effective)
		}
		t.Add(text(ps.SrcMAC), text(ps.Priority), count(ps.Frames), count(ps.XOFF), count(ps.XON), count(ps.Quanta), text(req), text(eff))
	}
	p.Table(t)
}
