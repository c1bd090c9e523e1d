package scenario

import (
	"fmt"
	"log/slog"

	"rocelab/internal/collective"
	"rocelab/internal/textout"
	"rocelab/internal/topo"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// FluidEstimate is the fluid engine's expected cost of a scenario. Its
// cost follows messages, not packets: each message is two completions and
// the workload's own steps around it, each connection a path and a few
// rate changes, whatever the bytes.
type FluidEstimate struct {
	// Connections are the queue pairs the workloads open, Messages the
	// messages they post (flows, NCCL slices and clear-to-sends).
	Connections int64
	Messages    int64
	Events      int64
	Memory      unit.Bytes
}

// Cost model of the fluid engine, measured on the GPT-3 job at 128 to
// 16384 GPUs (BenchmarkFluidGrowth): 4.1 to 4.3 scheduler events per
// message (2048 GPUs: 229 M events for 55.5 M messages), about 4 KiB of
// heap per connection with its NCCL state.
const (
	fluidEventsPerMessage = 4.2
	fluidEventsPerConn    = 10
	fluidBytesPerConn     = 4 << 10
	fluidBytesPerLink     = 512
	// fluidQPsPerPair is how many queue pairs an NCCL job opens per pair
	// of hosts that exchange data: the channels' data QPs and their
	// clear-to-send QPs.
	fluidQPsPerPair = 4
)

// FluidEstimate returns the fluid engine's cost of running s.
func (s *Scenario) FluidEstimate() FluidEstimate {
	return s.fluidEstimate(s.Workload.traffic(int64(s.Host.MTU)))
}

// fluidEstimate returns the fluid engine's cost of running s with its
// job's traffic tr.
func (s *Scenario) fluidEstimate(tr []collective.Transfer) FluidEstimate {
	var e FluidEstimate
	n := s.flowCount()
	e.Connections, e.Messages = int64(n), int64(n)
	for _, x := range tr {
		e.Messages += x.Messages + x.CTS
	}
	e.Connections += fluidQPsPerPair * int64(len(tr))
	e.Events = sat(fluidEventsPerMessage*float64(e.Messages) + fluidEventsPerConn*float64(e.Connections))
	switches := 0
	for _, nd := range s.Topo.Nodes {
		if nd.Kind == topo.Switch {
			switches++
		}
	}
	mem := float64(e.Connections)*fluidBytesPerConn + float64(2*len(s.Topo.Links))*fluidBytesPerLink +
		float64(switches)*float64(len(s.Topo.Hosts))*bytesPerRouteEntry + 1<<20
	e.Memory = unit.Bytes(sat(mem))
	return e
}

// Work implements twin.Estimate: the scheduler events expected.
func (e FluidEstimate) Work() int64 { return e.Events }

// String implements twin.Estimate.
func (e FluidEstimate) String() string {
	return fmt.Sprintf("%d events, %s; %s, %s", e.Events, human(e.Memory),
		textout.Count(e.Connections, "connection", "connections"), textout.Count(e.Messages, "message", "messages"))
}

// LogAttrs implements twin.Estimate.
func (e FluidEstimate) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.Int64("est_connections", e.Connections), slog.Int64("est_messages", e.Messages),
		slog.Int64("est_events", e.Events), slog.String("est_memory", fmt.Sprint(e.Memory))}
}

// Check implements twin.Estimate: it refuses an estimate over the limits,
// saying what it would cost. The event limit stands for a wall time, the
// limit at the packet engine's 3 M events/s; a fluid event costs more as
// the job grows (see fluidEventSeconds), so the events are held to the
// limit both as a count and weighed by their cost.
func (e FluidEstimate) Check(l twin.Limits) error {
	if l.Memory > 0 && e.Memory > l.Memory {
		return fmt.Errorf("scenario too large for the fluid engine: it needs about %s of memory (%s, %s), more than the %s allowed",
			human(e.Memory), textout.Count(e.Connections, "connection", "connections"), textout.Count(e.Messages, "message", "messages"), human(l.Memory))
	}
	if l.Events > 0 && (e.Events > l.Events || e.Seconds() > float64(l.Events)/3e6) {
		return fmt.Errorf("scenario too large for the fluid engine: it needs about %d events (%s, %s) at about %.2g M events/s on a job this size, about %s of wall time, more than the %d events allowed stand for (%s at 3 M events/s); shrink it or raise --max-events",
			e.Events, textout.Count(e.Messages, "message", "messages"), textout.Count(e.Connections, "connection", "connections"),
			1/fluidEventSeconds(e.Connections)/1e6, wallTime(int64(e.Seconds())), l.Events, wallTime(l.Events/3_000_000))
	}
	return nil
}

// Seconds is the estimated CPU time of the run.
func (e FluidEstimate) Seconds() float64 {
	return float64(e.Events) * fluidEventSeconds(e.Connections)
}

// fluidEventSeconds is the CPU time of one fluid event on a job of c
// connections. A rate recomputation touches the flows a change can move
// and the links they cross, and both grow with the job: DP rings that
// cross the spines meet other rings' flows on the uplinks their hashes
// pick, and the connections' state the run touches at random outgrows
// the caches. Fitted to BenchmarkFluidGrowth on this project's 2-core
// machine (events per CPU second: 7.6 M at 960 connections, 5.4 M at
// 5.9 k, 4.0 M at 23.6 k, 0.88 M at 94 k, 0.57 M at 188 k), erring slow.
func fluidEventSeconds(c int64) float64 {
	return 0.147e-6 + 1.0e-11*float64(c)
}
