package ingest

// GDRReport is what a log shows about GPUDirect RDMA, by kind of evidence.
type GDRReport struct {
	// Disabled and Enabled are the decision lines by outcome.
	Disabled, Enabled []GDRDecision
	// RingsOff and RingsOn are the "Connected all rings ... GDR 0/1" lines.
	RingsOff, RingsOn []RingSummary
	// ChannelsOff are the NET transports whose received data lands without
	// /GDRDMA; ChannelsOn those with it. Sends are ignored when GDR is off
	// for reads only, which older GPUs do by design.
	ChannelsOff, ChannelsOn []ChannelStat
}

// GDRReport summarises the GPUDirect RDMA evidence of the log. Socket transports
// are left out: GPUDirect RDMA does not apply to them.
func (l *NCCLLog) GDRReport() GDRReport {
	var r GDRReport
	for _, d := range l.GDR {
		if d.Enabled {
			r.Enabled = append(r.Enabled, d)
		} else {
			r.Disabled = append(r.Disabled, d)
		}
	}
	for _, s := range l.Rings {
		if s.Nodes == 1 && s.GDR == 1 {
			// No network in a one-node communicator, whose useGdr starts
			// true and only the net transport clears: its summary says
			// GDR 1. From NCCL 2.22 rings connect at first use, so a
			// multi-node communicator's summary may follow the one-node
			// "comm" line of another split off before it ran: GDR 0 is
			// always a multi-node one's.
			continue
		}
		if s.GDR == 0 {
			r.RingsOff = append(r.RingsOff, s)
		} else {
			r.RingsOn = append(r.RingsOn, s)
		}
	}
	for _, c := range l.Channels {
		if c.Kind != "NET" || SocketNet(c.Net) {
			continue
		}
		switch {
		case c.Recv > c.RecvGDR:
			r.ChannelsOff = append(r.ChannelsOff, c)
		case c.Recv == 0 && c.Send == 0 && c.GDR < c.Count:
			r.ChannelsOff = append(r.ChannelsOff, c)
		}
		if c.GDR > 0 {
			r.ChannelsOn = append(r.ChannelsOn, c)
		}
	}
	return r
}

// Merge adds o's evidence to r, to judge several logs together.
func (r *GDRReport) Merge(o GDRReport) {
	r.Enabled = append(r.Enabled, o.Enabled...)
	r.Disabled = append(r.Disabled, o.Disabled...)
	r.RingsOn = append(r.RingsOn, o.RingsOn...)
	r.RingsOff = append(r.RingsOff, o.RingsOff...)
	r.ChannelsOn = append(r.ChannelsOn, o.ChannelsOn...)
	r.ChannelsOff = append(r.ChannelsOff, o.ChannelsOff...)
}

// Off reports whether the log shows GPUDirect RDMA off anywhere.
func (r GDRReport) Off() bool {
	return len(r.Disabled) > 0 || len(r.RingsOff) > 0 || len(r.ChannelsOff) > 0
}

// On reports whether the log shows GPUDirect RDMA on anywhere.
func (r GDRReport) On() bool {
	return len(r.Enabled) > 0 || len(r.RingsOn) > 0 || len(r.ChannelsOn) > 0
}

// OffEvidence returns up to n lines that show GPUDirect RDMA off, the
// decision lines first, in input order within each kind.
func (r GDRReport) OffEvidence(n int) []Evidence {
	var out []Evidence
	add := func(e Evidence) {
		if len(out) < n {
			out = append(out, e)
		}
	}
	for _, d := range r.Disabled {
		add(d.Evidence)
	}
	for _, s := range r.RingsOff {
		add(s.Evidence)
	}
	for _, c := range r.ChannelsOff {
		add(c.FirstNoGDR)
	}
	return out
}

// Bottlenecks reports GPUDirect RDMA off and the socket transport, which
// both hold NCCL's inter-node bandwidth well below the NIC's line rate.
func (l *NCCLLog) Bottlenecks() []Bottleneck {
	var out []Bottleneck
	if ev := l.SocketEvidence(3); len(ev) > 0 {
		out = append(out, Bottleneck{What: "NCCL moves data over TCP sockets (NET/Socket), not RDMA", Evidence: ev})
	}
	if g := l.GDRReport(); g.Off() {
		what := "GPUDirect RDMA off"
		switch {
		case len(g.RingsOff) > 0:
			what += " (GDR 0)"
		case len(g.Disabled) > 0 && g.Disabled[0].Reason != "":
			what += " (" + g.Disabled[0].Reason + ")"
		case len(g.ChannelsOff) > 0:
			what += " (NET channels without /GDRDMA)"
		}
		if g.On() {
			what = "GPUDirect RDMA partly off"
		}
		out = append(out, Bottleneck{What: what, Evidence: g.OffEvidence(3)})
	}
	return out
}
