package fluid

import (
	"math"

	"rocelab/internal/metrics"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// LinkStats is what one direction of a topology link carried: frames by
// class (bytes without preamble and gap, as ethtool counts them), frames
// lost on it, its sender's PFC pause time, the CE marks its queue made,
// and its estimated peak standing queue.
type LinkStats struct {
	// Link is the topology link, Dir 0 from its A end, 1 from its B end.
	Link, Dir      int
	Bytes, Packets [8]int64
	Lost           int64
	// Paused is how long the sender was held off, on the priorities in
	// PausePrios; PauseFrames estimates the PFC frames that took.
	Paused      unit.Time
	PausePrios  uint8
	PauseFrames int64
	Marks       [8]int64
	// PeakQueue is the deepest standing queue estimated at its sender's
	// egress, in class PeakClass.
	PeakQueue int64
	PeakClass int
	// Busy is the bits carried (resends included), for utilization.
	Busy float64
}

// Links returns every link direction's counters up to now, by directed
// link (2·topology link + direction). It moves what the connections have
// booked onto the links, and changes nothing else.
func (e *Engine) Links() []LinkStats {
	now := e.Now()
	for f := range e.flows {
		e.flushLinks(int32(f))
	}
	out := make([]LinkStats, len(e.net.links))
	for i := range e.net.links {
		lk := &e.net.links[i]
		st := lk.st
		dt := float64(now-st.since) / float64(unit.Second)
		busy, paused := st.busy+st.load*dt, st.pauseTime+st.pause*dt
		ls := LinkStats{Link: i / 2, Dir: i % 2, Lost: round(st.lost), PausePrios: pausePrios(lk),
			Paused: unit.Time(paused * float64(unit.Second)), PeakQueue: round(st.peakQueue), PeakClass: int(st.peakClass), Busy: busy}
		for c := 0; c < 8; c++ {
			ls.Bytes[c], ls.Packets[c], ls.Marks[c] = round(st.bytes[c]), round(st.packets[c]), round(st.marks[c])
		}
		if ls.Paused > 0 {
			// A paused sender is held by XOFF frames its peer refreshes
			// every half quanta.
			q := lk.rate.TxTime(unit.Bytes(e.cfg.PFCQuanta) * 64)
			if e.cfg.PFCRefresh > 0 {
				q = 2 * e.cfg.PFCRefresh
			}
			if q > 0 {
				ls.PauseFrames = int64(2*ls.Paused/q) + 1
			}
		}
		out[i] = ls
	}
	// The message each connection is sending: its frames so far on every
	// link of its path (loss aside: it is booked when the message is).
	for f := range e.flows {
		fl := &e.flows[f]
		m, sent, _ := e.inProgress(int32(f), now)
		if m == nil {
			continue
		}
		pkts := math.Floor(sent * float64(m.pkts))
		frames := round(sent*float64(m.wire) - pkts*packet.PreambleIFG)
		for h, l := range fl.path {
			out[l].Bytes[fl.cls[h]] += frames
			out[l].Packets[fl.cls[h]] += int64(pkts)
		}
	}
	return out
}

// inProgress returns the message flow f is sending at now, the share of
// it that has left the source and the share that has reached the
// responder. A message is booked whole when its last byte leaves, so
// without this a run that its duration cuts short would show nothing of a
// long message, however much of it had crossed the fabric.
func (e *Engine) inProgress(f int32, now unit.Time) (m *msg, sent, arrived float64) {
	fl := &e.flows[f]
	if !fl.active || fl.stalled || fl.send >= fl.msgs.len() {
		return nil, 0, 0
	}
	m = fl.msgs.at(fl.send)
	start, p := m.end-float64(m.wire), fl.progress(now)
	if p <= start || m.wire <= 0 {
		return nil, 0, 0
	}
	sent = min(1, (p-start)/float64(m.wire))
	if fl.resp == fl.send {
		onWire := fl.rate * fl.eff / 8 * float64(fl.baseLat) / float64(unit.Second)
		arrived = max(0, min(sent, (p-onWire-start)/float64(m.wire)))
	}
	return m, sent, arrived
}

// pausePrios returns the priorities a link's sender was ever paused on.
func pausePrios(lk *link) uint8 { return lk.everPaused }

// round rounds an expected count to the nearest whole number.
func round(f float64) int64 { return int64(math.Round(f)) }

// NICs returns every host NIC's counters up to now, by host.
func (e *Engine) NICs() []NICCounters { return append([]NICCounters(nil), e.nics...) }

// ConnStats is one connection as observed.
type ConnStats struct {
	Src, Dst  int
	Priority  uint8
	DSCP      uint8
	SrcPort   uint16
	Tag       string
	TCP       bool
	Started   bool
	FirstPost unit.Time
	// Sent and SentPkts are payload bytes and packets sent the first
	// time; RetxPkts the expected go-back-N resends.
	Sent          int64
	SentPkts      int64
	RetxPkts      int64
	RetxBytes     int64
	Delivered     int64
	DeliveredPkts int64
	LastDeliv     unit.Time
	Failed        bool
	HasCC         bool
	// Acks counts the ACK frames its responder sent.
	Acks int64
	// Marked and CNPs are the CE-marked packets it delivered and the
	// CNPs its receiver sent back, as expected values.
	Marked, CNPs int64
	// Path lists the directed links its data takes.
	Path []int32
}

// Conns returns every connection in Connect order.
func (e *Engine) Conns() []ConnStats {
	now := e.Now()
	out := make([]ConnStats, len(e.flows))
	for i := range e.flows {
		fl := &e.flows[i]
		out[i] = ConnStats{
			Src: int(fl.src), Dst: int(fl.dst), Priority: fl.prio, DSCP: fl.dscp, SrcPort: fl.sport, Tag: fl.tag, TCP: fl.tcp,
			Started: fl.posted, FirstPost: fl.firstPost, Sent: fl.sentBytes, SentPkts: fl.sentPkts,
			RetxPkts: round(fl.retxPkts), RetxBytes: round(fl.retxBytes), Delivered: fl.delivered, DeliveredPkts: fl.deliveredPkts, Acks: fl.acks, LastDeliv: fl.lastDeliv,
			Failed: fl.failed, HasCC: fl.ccOn, Marked: round(fl.marked), CNPs: round(fl.cnps), Path: fl.path,
		}
		if m, sent, arrived := e.inProgress(int32(i), now); m != nil {
			c := &out[i]
			c.Sent += int64(sent * float64(m.bytes))
			c.SentPkts += int64(sent * float64(m.pkts))
			if arrived > 0 {
				c.Delivered += int64(arrived * float64(m.bytes))
				c.DeliveredPkts += int64(arrived * float64(m.pkts))
				c.LastDeliv = now
			}
		}
	}
	return out
}

// Work is the engine's effort so far: solves and the flows they moved,
// for the cost model.
type Work struct {
	Events, Solves, FlowsSolved int64
}

// Work returns the effort so far.
func (e *Engine) Work() Work {
	return Work{Events: int64(e.sched.Executed()), Solves: e.solves, FlowsSolved: e.flowsIn}
}

// PortLink returns the directed link that port port of topology node
// node transmits on, or -1 when the port is not linked.
func (e *Engine) PortLink(node, port int) int { return int(e.net.portLink[node][port]) }

// Rate returns a directed link's rate, with its port's clock offset.
func (e *Engine) Rate(link int) unit.BitRate { return e.net.links[link].rate }

// Latency returns the delivered packets' estimated one-way latencies.
func (e *Engine) Latency() *metrics.Latency {
	for f := range e.flows {
		e.flushLatency(int32(f))
	}
	return e.lat
}

// Config returns the engine's configuration.
func (e *Engine) Config() *Config { return e.cfg }
