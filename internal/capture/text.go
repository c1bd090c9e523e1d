package capture

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"rocelab/internal/textout"
	"rocelab/internal/unit"
)

// WriteJSON writes the whole analysis as indented JSON.
func (a *Analysis) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, a) }

// maxEpisodesShown caps the episodes printed per flow in text.
const maxEpisodesShown = 5

// WriteText writes a readable report: a summary line, the per-QP table,
// retransmission episodes, the pause table, and notes.
func (a *Analysis) WriteText(w io.Writer) error {
	var b strings.Builder
	speed := "unknown"
	if a.LinkSpeed > 0 {
		speed = a.LinkSpeed.String() + " (" + a.LinkSpeedSource + ")"
	}
	fmt.Fprintf(&b, "%s: %s, %d %s, %s, snaplen %d, link speed %s\n", a.File, a.Format, a.Packets, plural(a.Packets, "packet", "packets"), a.Duration, a.Snaplen, speed)
	fmt.Fprintf(&b, "RoCEv2 %d, MAC control %d, other %d, undecodable %d\n", a.RoCEPackets, a.MACControlPackets, a.otherCount(), a.DecodeErrors)
	if len(a.Flows) > 0 {
		b.WriteString("\nQueue pairs (one row per direction)\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "flow\tpkts\tbytes\tGbps\treq\tresp\tPSN gaps\tmissing\tretx pkts\tretx bytes\tepisodes nak/timeout\tNAKs rcvd\tCE\tCNPs sent\tCNPs rcvd\t")
		for _, f := range a.Flows {
			s := f.Requester
			s.add(&f.Responder)
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%d/%d\t%d\t%d\t%d\t%d\t\n",
				a.FlowName(f.Key), f.Packets, f.Bytes, f.ThroughputBps/1e9, f.Requests, f.Responses, s.Gaps, s.Missing,
				s.RetransPackets, s.RetransBytes, s.NAKEpisodes, s.TimeoutEpisodes, sum(f.NAKsReceived), f.CE, f.CNPs, f.CNPsReceived)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		a.writeEpisodes(&b)
		a.writeNAKs(&b)
	}
	if len(a.Pause) > 0 {
		b.WriteString("\nPause frames (by sender; the sender's link peer is paused)\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "src MAC\tprio\tframes\tXOFF\tXON\tquanta\trequested\teffective\t")
		for _, p := range a.Pause {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t\n", p.SrcMAC, p.Priority, p.Frames, p.XOFF, p.XON, p.Quanta, optTime(p.Requested), optTime(p.Effective))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(a.Notes) > 0 {
		b.WriteString("\nNotes\n")
		for _, n := range a.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (a *Analysis) writeEpisodes(b *strings.Builder) {
	first := true
	for _, f := range a.Flows {
		for _, s := range []*PSNStats{&f.Requester, &f.Responder} {
			for i, e := range s.Episodes {
				if first {
					b.WriteString("\nRetransmission episodes (go-back-N)\n")
					first = false
				}
				if i == maxEpisodesShown {
					fmt.Fprintf(b, "  %s: ... %d more (see --json)\n", a.FlowName(f.Key), s.EpisodeCount-int64(i))
					break
				}
				fmt.Fprintf(b, "  %s: %s\n", a.FlowName(f.Key), e.describe())
			}
		}
	}
}

// describe formats an episode on one line.
func (e *Episode) describe() string {
	end := fmt.Sprintf("ended at packet %d (%s)", e.EndPacket, e.End)
	if e.Open {
		end = "still open at the end of the capture"
	}
	cause := fmt.Sprintf("after %s (packet %d)", e.NAKSyndrome, e.NAKPacket)
	if e.Trigger == "timeout" {
		cause = fmt.Sprintf("no NAK: inferred ACK timeout after %s idle", e.IdleGap)
	}
	return fmt.Sprintf("packet %d (%s) resent from PSN %d (highest sent %d), %d %s %d bytes, %s; %s",
		e.StartPacket, e.Start, e.FirstPSN, e.HighestPSN, e.Packets, plural(int64(e.Packets), "packet", "packets"), e.Bytes, cause, end)
}

func (a *Analysis) writeNAKs(b *strings.Builder) {
	first := true
	for _, f := range a.Flows {
		if len(f.NAKs) == 0 {
			continue
		}
		if first {
			b.WriteString("\nNAKs sent, by syndrome\n")
			first = false
		}
		fmt.Fprintf(b, "  %s: %s\n", a.FlowName(f.Key), counts(f.NAKs))
	}
}

func (s *PSNStats) add(o *PSNStats) {
	s.Gaps += o.Gaps
	s.Missing += o.Missing
	s.RetransPackets += o.RetransPackets
	s.RetransBytes += o.RetransBytes
	s.NAKEpisodes += o.NAKEpisodes
	s.TimeoutEpisodes += o.TimeoutEpisodes
	s.EpisodeCount += o.EpisodeCount
}

func (a *Analysis) otherCount() int64 {
	var n int64
	for _, v := range a.Other {
		n += v
	}
	return n
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// counts formats a map as "name n, name n" in name order.
func counts(m map[string]int64) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func optTime(t *unit.Time) string {
	if t == nil {
		return "unknown"
	}
	return t.String()
}
