package twin

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"

	"rocelab/internal/unit"
)

// Config is how the pipeline runs jobs.
type Config struct {
	// Engine is the engine to use: Auto ("" too) or an engine's name.
	Engine string
	Limits Limits
	// Workers run jobs in parallel in RunAll; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, follows each job's work.
	Progress Progress
	// Log, when set, gets a line per job started.
	Log *slog.Logger
	// Attach, when set, is called with each engine after it is built and
	// before it runs (to tap a port, say); an error stops the job.
	Attach func(Engine) error
}

// A Progress follows running jobs.
type Progress interface {
	// Start is called when a job starts running, with its title and its
	// estimated work; the meter it returns follows that job.
	Start(title string, work int64) Meter
}

// A Meter is told one job's work done so far against its estimate.
type Meter interface {
	Update(done, total int64)
	Finish(done int64)
}

// A Choice is the engine the pipeline picked for a job, and why (the
// reason names what the engine would cost, and why engines preferred to it
// were not taken).
type Choice struct {
	Plan   Plan
	Reason string
}

// Choose picks the engine for j and checks its estimate against the
// limits. Auto takes the first plan whose estimate fits; an error says
// what each engine would cost.
func Choose(j *Job, c *Config) (Choice, error) {
	if len(j.Plans) == 0 {
		return Choice{}, errors.New("no engine can run this scenario")
	}
	if c.Engine != "" && c.Engine != Auto {
		for _, p := range j.Plans {
			if p.Engine == c.Engine {
				if err := p.Estimate.Check(c.Limits); err != nil {
					return Choice{}, err
				}
				return Choice{p, fmt.Sprintf("asked for by name; its estimate: %s", p.Estimate)}, nil
			}
		}
		return Choice{}, fmt.Errorf("no engine %q for this scenario: expected %s", c.Engine, strings.Join(engineNames(j.Plans), " or "))
	}
	var refused []string
	var first error
	for _, p := range j.Plans {
		err := p.Estimate.Check(c.Limits)
		if err == nil {
			reason := "its estimate fits the limits: " + p.Estimate.String()
			if len(refused) > 0 {
				reason += "; not " + strings.Join(refused, "; not ")
			}
			return Choice{p, reason}, nil
		}
		if first == nil {
			first = err
		}
		refused = append(refused, p.Engine+": "+err.Error())
	}
	if len(j.Plans) == 1 {
		return Choice{}, first
	}
	return Choice{}, fmt.Errorf("no engine fits the limits: %s", strings.Join(refused, "; "))
}

func engineNames(ps []Plan) []string {
	names := []string{Auto}
	for _, p := range ps {
		names = append(names, p.Engine)
	}
	return names
}

// Start chooses j's engine and builds it.
func Start(j *Job, c *Config) (Engine, Choice, error) {
	ch, err := Choose(j, c)
	if err != nil {
		return nil, ch, err
	}
	e, err := ch.Plan.Build()
	if err != nil {
		return nil, ch, err
	}
	if c.Log != nil {
		attrs := []any{"scenario", j.Name}
		if j.Variant != "" {
			attrs = append(attrs, "variant", j.Variant)
		}
		attrs = append(attrs, "seed", j.Seed, "engine", ch.Plan.Engine)
		for _, a := range ch.Plan.Estimate.LogAttrs() {
			attrs = append(attrs, a)
		}
		c.Log.Info("running", attrs...)
	}
	if c.Attach != nil {
		if err := c.Attach(e); err != nil {
			return nil, ch, err
		}
	}
	return e, ch, nil
}

// Run runs one job: choose, build, run with progress, observe. Errors
// are the job's (refused, or not buildable), without its label.
func Run(j *Job, c *Config) (Observation, error) {
	e, ch, err := Start(j, c)
	if err != nil {
		return Observation{}, err
	}
	var m Meter
	if c.Progress != nil {
		m = c.Progress.Start(j.title(), ch.Plan.Estimate.Work())
	}
	RunSliced(e, j.Duration, ch.Plan.Estimate.Work(), m)
	o := e.Observe()
	o.Engine.Reason = ch.Reason
	return o, nil
}

// RunAll runs jobs in parallel over c.Workers and calls done, one call at a
// time, as each finishes, with its index in jobs. The observations are
// the same whatever the number of workers.
func RunAll(jobs []Job, c *Config, done func(i int, o *Observation, err error)) {
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				o, err := Run(&jobs[i], c)
				mu.Lock()
				done(i, &o, err)
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		work <- i
	}
	close(work)
	wg.Wait()
}

// progressUpdates is roughly how many times a run reports its progress.
const progressUpdates = 400

// RunSliced runs e to its end (every workload done, or until), telling m
// (nil: nobody) the events done against the estimated work. It runs in
// slices of simulated time sized so that each executes about
// work/progressUpdates events; slicing does not change the run.
func RunSliced(e Engine, until unit.Time, work int64, m Meter) unit.Time {
	if m == nil {
		return e.RunUntil(until)
	}
	total := max(work, 1)
	target := max(total/progressUpdates, 1000)
	step := max(until/progressUpdates/16, unit.Nanosecond)
	for now := e.Now(); now < until && !e.Done(); now = e.Now() {
		before := int64(e.Events())
		e.RunUntil(min(until, now+step))
		n := int64(e.Events()) - before
		switch {
		case n < target/2 && step < until/4:
			step *= 2
		case n > 2*target && step > unit.Nanosecond:
			step /= 2
		}
		m.Update(int64(e.Events()), total)
	}
	end := e.RunUntil(until)
	m.Finish(int64(e.Events()))
	return end
}
