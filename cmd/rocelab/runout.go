package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rocelab/internal/page"
	"rocelab/internal/report"
	"rocelab/internal/twin"
	"rocelab/internal/twinfeed"
)

// runOutput is what a run prints and writes: its jobs' observations, from
// this process or merged from shards.
type runOutput struct {
	name string
	// variants says the run compares variants (else it is one job).
	variants bool
	results  []twin.JobResult
}

// runJobs runs jobs through the pipeline, spread over the cores, into
// out.results. Every job's estimate is checked before any runs, so that a
// run too large is refused up front.
func runJobs(cmd *cobra.Command, ls logSetup, out *runOutput, jobs []twin.Job, cfg *twin.Config) error {
	for i := range jobs {
		if _, err := twin.Choose(&jobs[i], cfg); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("%s: %w", jobs[i].Label(), err)}
		}
	}
	var bars *progressBars
	if ls.progress {
		bars = newProgressBars(cmd.ErrOrStderr())
		cfg.Progress = bars
	}
	out.results = make([]twin.JobResult, len(jobs))
	var errs []error
	wall := time.Now()
	twin.RunAll(jobs, cfg, func(i int, o *twin.Observation, err error) {
		if err != nil {
			var ee *exitError
			if !errors.As(err, &ee) {
				err = &exitError{code: 2, err: fmt.Errorf("%s: %w", jobs[i].Label(), err)}
			}
			errs = append(errs, err)
			return
		}
		out.results[i] = twin.JobResult{Index: i, Variant: jobs[i].Variant, Description: jobs[i].Description, Observation: *o}
		logParallel(ls, &jobs[i], o.Engine.Parallel)
	})
	if bars != nil {
		bars.wait()
	}
	if len(errs) > 0 {
		return errs[0]
	}
	var events uint64
	var end float64
	for _, r := range out.results {
		events += r.Observation.Sim.Events
		end = max(end, twin.US(r.Observation.Sim.End))
	}
	elapsed := time.Since(wall)
	ls.log.Info("done", "jobs", len(jobs), "simulated_us", end, "events", events, "wall", elapsed.Round(time.Millisecond).String(),
		"events_per_s", fmt.Sprintf("%.3g", float64(events)/elapsed.Seconds()))
	return nil
}

// logParallel logs how a packet run used its cores: the partition, how
// the domains synchronised (windows or linked rounds), the window, the
// balance of events over domains, the critical paths (the domains' alone,
// and with the workloads' events), the shares of time spent waiting (at
// barriers, and linked for another domain) and planning alone, and how
// much longer the slowest worker of a round ran than the mean; and what
// ended the windows, or stopped the domains within linked rounds.
func logParallel(ls logSetup, j *twin.Job, p *twin.Parallel) {
	if p == nil {
		return
	}
	var total, most uint64
	for _, e := range p.DomainEvents {
		total += e
		most = max(most, e)
	}
	mode := "mixed"
	switch p.Linked {
	case 0:
		mode = "windows"
	case p.Windows:
		mode = "linked"
	}
	attrs := []any{"job", j.Label(), "threads", p.Threads, "domains", p.Domains, "load", fmt.Sprint(p.Load),
		"sync", mode, "window", p.Window.String(), "rounds", p.Windows}
	if p.Auto != "" {
		attrs = append(attrs, "auto", p.Auto)
	}
	if most > 0 && p.CriticalEvents > 0 {
		attrs = append(attrs, "balance", fmt.Sprintf("%.3f", float64(total)/float64(most)/float64(len(p.DomainEvents))),
			"critical_path", fmt.Sprintf("%.3f", float64(p.CriticalEvents)/float64(total)),
			"path", fmt.Sprintf("%.3f", float64(p.PathEvents)/float64(total+p.ControlEvents)),
			"run_path", fmt.Sprintf("%.3f", float64(p.RunPathEvents)/float64(total+p.ControlEvents)),
			"workload_events", fmt.Sprintf("%.4f", float64(p.ControlEvents)/float64(total+p.ControlEvents)))
		if p.HomePathEvents > 0 {
			attrs = append(attrs, "home_path", fmt.Sprintf("%.3f", float64(p.HomePathEvents)/float64(total+p.ControlEvents)),
				"cross_host_steps", p.CrossEvents)
		}
	}
	attrs = append(attrs, "wait", fmt.Sprintf("%.1f%%", 100*p.WaitShare), "control_alone", fmt.Sprintf("%.1f%%", 100*p.ControlShare))
	if p.SlowestOverMean > 0 {
		attrs = append(attrs, "slowest_worker", fmt.Sprintf("%.3f", p.SlowestOverMean))
	}
	if p.Solo > 0 {
		attrs = append(attrs, "one_worker_rounds", p.Solo)
	}
	if w := p.Windows - p.Linked; w > 0 && p.Domains > 1 {
		attrs = append(attrs, "window_ends", fmt.Sprintf("workloads:%d reply:%d lookahead:%d", p.ByControl, p.ByReply, p.ByLookahead))
	}
	if p.Linked > 0 {
		attrs = append(attrs, "linked_stops", fmt.Sprintf("workloads:%d domain:%d workload_steps:%d", p.Held, p.Blocked, p.ControlSteps))
	}
	ls.log.Info("parallel", attrs...)
	if busyWorkers(p) {
		ls.log.Warn("the workers waited for each other most of the run", "job", j.Label(), "threads", p.Threads,
			"wait", fmt.Sprintf("%.1f%%", 100*p.WaitShare),
			"fix", "other work held the machine's cores: run with --threads 1, or leave --threads unset so that the run goes on one worker while the cores are busy")
	}
}

// busyWorkers reports whether a run's workers spent more of their time
// waiting than the rule by which a run with the default thread count
// falls back to one worker (sim.Windows.Adapt: more than 1 - 1/N), with no
// round run on one worker: a count the user gave, on a busy machine.
func busyWorkers(p *twin.Parallel) bool {
	return p.Threads > 1 && p.Solo == 0 && p.WaitShare > 1-1/float64(p.Threads)
}

// runShard runs this shard's jobs and writes them as a shard file on
// stdout, for 'rocelab merge'.
func runShard(cmd *cobra.Command, ls logSetup, out *runOutput, jobs []twin.Job, sh twin.Shard, cfg *twin.Config) error {
	var mine []twin.Job
	for i := range jobs {
		if sh.Owns(i) {
			mine = append(mine, jobs[i])
		}
	}
	if err := runJobs(cmd, ls, out, mine, cfg); err != nil {
		return err
	}
	f := &twin.ShardFile{Kind: twin.ShardKind, Schema: twin.Schema, Name: out.name, Variants: out.variants,
		Fingerprint: twin.Fingerprint(jobs, cfg.Engine), Shard: sh, Jobs: len(jobs), Results: out.results}
	for k := range f.Results {
		f.Results[k].Index = k*sh.Count + sh.Index
	}
	return writeResult(cmd.OutOrStdout(), true, shardResult{f})
}

// shardResult prints a shard file, as JSON only.
type shardResult struct{ *twin.ShardFile }

func (s shardResult) WriteText(w io.Writer) error { return s.WriteJSON(w) }

// write prints the run (text or JSON), writes its --out directory (one
// run, or each variant under DIR/<variant>/) and its --html page.
func (o *runOutput) write(cmd *cobra.Command, asJSON bool, outDir, htmlFile string) error {
	var res result
	var runs []*report.Run
	if !o.variants {
		r := report.New(&o.results[0].Observation)
		res, runs = r, []*report.Run{r}
	} else {
		cmp := report.NewComparison(o.name)
		for i := range o.results {
			v := &o.results[i]
			r := report.New(&v.Observation)
			cmp.Variants = append(cmp.Variants, report.Variant{Name: v.Variant, Description: v.Description, Run: r})
			runs = append(runs, r)
		}
		res = cmp
	}
	if err := writeResult(cmd.OutOrStdout(), asJSON, res); err != nil {
		return err
	}
	if htmlFile != "" {
		jobs := make([]page.Job, len(o.results))
		for i := range o.results {
			r := &o.results[i]
			jobs[i] = page.Job{Variant: r.Variant, Description: r.Description, Obs: &r.Observation}
		}
		if err := writeHTML(htmlFile, func(w io.Writer) error { return page.Run(w, o.name, version(), jobs) }); err != nil {
			return err
		}
	}
	if outDir == "" {
		return nil
	}
	for i, r := range runs {
		dir := outDir
		if o.variants {
			dir = filepath.Join(outDir, o.results[i].Variant)
		}
		if err := writeOut(dir, r, &o.results[i].Observation); err != nil {
			return err
		}
	}
	return writeManifest(outDir)
}

// writeOut writes one run's --out directory: the run's own files and the
// switches' (report), then the incident an engineer would gather from its
// hosts (twinfeed.Incident), all from the observation alone, with the host
// and device names of --out-sysfs.
func writeOut(dir string, r *report.Run, o *twin.Observation) error {
	if err := r.WriteDir(dir); err != nil {
		return err
	}
	header := fmt.Sprintf("# source: rocelab twin, scenario %q seed %d (simulated, not a real host)\n", o.Scenario.Name, o.Scenario.Seed)
	return twinfeed.WriteIncident(dir, twinfeed.Incident(twinfeed.Hosts(o), o.Sim.End, header))
}

// failOn applies --fail-on to every job: exit 1 when any meets a
// condition.
func (o *runOutput) failOn(on map[string]bool) error {
	var why []string
	for _, r := range o.results {
		for _, w := range failures(&r.Observation, on) {
			if o.variants {
				w = r.Variant + ": " + w
			}
			why = append(why, w)
		}
	}
	if len(why) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("--fail-on: %s", strings.Join(why, "; "))}
	}
	return nil
}

// A result is anything a command prints as text or JSON: a run, a
// comparison of variants, a calculator.
type result interface {
	WriteJSON(io.Writer) error
	WriteText(io.Writer) error
}

// writeResult writes r as JSON or text.
func writeResult(w io.Writer, asJSON bool, r result) error {
	out := bufio.NewWriter(w)
	var err error
	if asJSON {
		err = r.WriteJSON(out)
	} else {
		err = r.WriteText(out)
	}
	if err == nil {
		err = out.Flush()
	}
	return err
}

// checkHTML checks before anything runs that --html FILE can be written:
// its directory exists and FILE is not a directory.
func checkHTML(file string) error {
	if file == "" {
		return nil
	}
	if st, err := os.Stat(file); err == nil && st.IsDir() {
		return usageError("--html %s: is a directory; expected a file name such as report.html", file)
	}
	if st, err := os.Stat(filepath.Dir(file)); err != nil || !st.IsDir() {
		return usageError("--html %s: directory %s does not exist", file, filepath.Dir(file))
	}
	return nil
}

// writeHTML writes a page to file through fill, whole or not at all: into
// a temporary file renamed over file once complete.
func writeHTML(file string, fill func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--html: %w", err)}
	}
	w := bufio.NewWriter(tmp)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("--html %s: %w", file, err)
	}
	return nil
}
