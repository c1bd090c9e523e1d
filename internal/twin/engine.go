// Package twin is the seam between the twin's engines and everything that
// reads their results.
//
// An Engine runs a scenario's workloads: it is the workload.Transport they
// post to, so NCCL collectives, training, background traffic and flows run
// unchanged on any engine, and it reports what it saw as an Observation,
// plain data that reports, the exporter's twin feed, --fail-on and tune
// read without touching the engine. The packet engine is the fabric and
// the RDMA NICs that scenario.Build assembles; other engines (a flow-level
// one, a partitioned packet one) plug in the same way.
//
// One pipeline runs every job: Choose an engine from the job's Plans by
// their estimates against the Limits (refusing up front with the estimate
// when none fits), Build it, run it with progress, Observe it. run, its
// variants, tune and the twin feed all use it, and sweeps split into
// Shards that merge back into exactly the unsharded output.
//
// An engine joins by offering a Plan for a scenario: its name, its own cost
// estimate, and how to build it. scenario.Scenario.Plans lists them, in
// order of preference; scenario assembles each engine from its core and
// the scenario's Workloads, which observe the flows and NCCL tables the
// same way for every engine. cmd/rocelab's --engine takes the names.
package twin

import (
	"fmt"
	"log/slog"

	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// An Engine runs workloads in simulated time.
type Engine interface {
	// Transport carries the workloads: the engine was built with them
	// started on it.
	workload.Transport
	// RunUntil runs until every workload is done or until limit,
	// whichever is first, and returns the simulated time reached. A run
	// split into pieces ends exactly as one run does.
	RunUntil(limit unit.Time) unit.Time
	// Done reports whether every workload has finished.
	Done() bool
	// Events counts the work done so far, in the unit of the engine's
	// estimate (scheduler events for the packet engine).
	Events() uint64
	// Observe returns what the run shows so far. It changes nothing: the
	// run may continue afterwards.
	Observe() Observation
}

// Engine names.
const (
	// Auto picks the first engine whose estimate fits the limits.
	Auto = "auto"
	// Packet is the packet-level engine: fabric and RDMA NICs.
	Packet = "packet"
	// Fluid is the flow-level engine: max-min fair rates over each
	// connection's path (internal/fluid).
	Fluid = "fluid"
)

// An Estimate is an engine's expected cost of a job, computed before
// anything is built.
type Estimate interface {
	// Work is the expected Engine.Events at the end, which progress is
	// measured against.
	Work() int64
	// Check returns an error that says what the job would cost, when that
	// exceeds the limits.
	Check(Limits) error
	// String summarises the estimate for a person ("285581 events, 12.3
	// MiB").
	String() string
	// LogAttrs are the estimate's figures for the log.
	LogAttrs() []slog.Attr
}

// Limits bound what a run may cost.
type Limits struct {
	// Memory caps the estimated memory; 0: no limit.
	Memory unit.Bytes
	// Events caps the estimated work; 0: no limit. At a few million
	// events per second it bounds the wall time.
	Events int64
}

// A Plan is one engine's way to run a job.
type Plan struct {
	Engine   string
	Estimate Estimate
	// Build assembles the engine with the job's workloads started on it.
	Build func() (Engine, error)
}

// A Job is one scenario (or one variant of it) ready to run.
type Job struct {
	// Name is the scenario's name, File where it came from, Variant the
	// variant's name ("" for a plain scenario) and Description its
	// description.
	Name, File, Variant, Description string
	Seed                             uint64
	// Duration caps the simulated time.
	Duration unit.Time
	// Key identifies everything the job's output depends on (source,
	// overrides, variant, seed), so that shards of different sweeps are
	// never merged.
	Key string
	// Plans are the engines that can run the job, in order of preference:
	// Auto takes the first whose estimate fits.
	Plans []Plan
}

// Label names the job in errors: its file, and its variant.
func (j *Job) Label() string {
	if j.Variant != "" {
		return fmt.Sprintf("%s (variant %s)", j.File, j.Variant)
	}
	return j.File
}

// title names the job on a progress bar: its variant, else its name.
func (j *Job) title() string {
	if j.Variant != "" {
		return j.Variant
	}
	return j.Name
}
