package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"

	"rocelab/internal/confgen"
	"rocelab/internal/page"
	"rocelab/internal/tune"
	"rocelab/internal/twin"
)

func newTuneCmd() *cobra.Command {
	var (
		spaceFile, outDir string
		htmlFile          string
		asJSON            bool
		workers, top      int
		shardIndex        int
		shardCount        int
		maxEvents         int64
	)
	cmd := &cobra.Command{
		Use:   "tune SCENARIO|- [--space FILE|-] [--workers N] [--shard-index I --shard-count N] [-j|--json] [--out DIR]",
		Short: "Search a parameter space on the twin against the health targets",
		Long: `tune runs the twin on every candidate of a declared parameter space and ranks
them by an objective (default: most health targets met, then total slack).
The space is the scenario's top-level tune: section or a --space file:

  search: grid            # or random (with samples: N, seed: S)
  objective: targets      # targets, utilization, p99, pause, loss
  params:
    switch.pfc.headroom: [45056, 65536, auto]
    switch.alpha: {range: [0.125, 8], steps: 7, scale: log}

Each parameter is a scenario key path; any key the scenario accepts can be
searched. Candidate 0 is the scenario unchanged. Candidates run in parallel
(--workers, default all cores) with the same results whatever the worker
count, and split into shards: --shard-index/--shard-count, or from
SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX; 'rocelab
tune merge' joins shard results into exactly the unsharded result.

--out DIR writes results.json, results.txt, best.yaml (the chosen scenario)
and config/ with 'config gen' output of every target for it. --html FILE
writes the search as one self-contained page: the objective against each
parameter, the Pareto set of the four health targets, and the best
configuration as a diff of the scenario. Details:
docs/tune.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ls, err := setupLog(c)
			if err != nil {
				return err
			}
			name, data, err := readSmall(args[0], c.InOrStdin(), "a scenario")
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			spName, spData := name, data
			if spaceFile != "" {
				if spaceFile == "-" && args[0] == "-" {
					return usageError("--space - and a scenario on stdin: only one input can be read from stdin")
				}
				if spName, spData, err = readSmall(spaceFile, c.InOrStdin(), "a tune space"); err != nil {
					return &exitError{code: 2, err: err}
				}
			} else if !tune.HasSpace(data) {
				return usageError("%s has no tune: section; give the space with --space FILE, a YAML file such as\n    params:\n      switch.ecn.kmin: [50KB, 150KB, 400KB]\n      switch.ecn.kmax: [400KB, 1600KB]\n  (every key, search and objective: 'rocelab tune --help', docs/tune.md)", name)
			}
			sp, err := tune.ParseSpace(spName, spData)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			base, err := tune.NewBase(name, data)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := base.Check(sp); err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := checkHTML(htmlFile); err != nil {
				return err
			}
			cands := sp.Candidates()
			shard, _, err := resolveShard(c, shardIndex, shardCount, len(cands))
			if err != nil {
				return err
			}
			n := 0
			for _, cand := range cands {
				if shard.Owns(cand.Index) {
					n++
				}
			}
			prog := newProgress(c.ErrOrStderr(), n)
			o := tune.Options{Shard: shard, Config: twin.Config{Workers: workers, Limits: twin.Limits{Events: maxEvents, Memory: defaultMemoryLimit()}},
				Done: func(tune.RunResult) { prog.inc() }}
			if o.Config.Workers <= 0 {
				o.Config.Workers = runtime.GOMAXPROCS(0)
			}
			wall := time.Now()
			res, err := tune.Search(base, sp, o)
			prog.wait()
			if err != nil {
				return usageError("%v", err)
			}
			el := time.Since(wall)
			ls.log.Info("tune done", "runs", res.Cost.Runs, "events", res.Cost.Events, "wall", el.Round(time.Millisecond).String(),
				"runs_per_s", fmt.Sprintf("%.3g", float64(res.Cost.Runs)/el.Seconds()), "workers", o.Config.Workers)
			if err := writeTuneResult(c.OutOrStdout(), res, asJSON, top); err != nil {
				return err
			}
			if htmlFile != "" {
				if err := writeTuneHTML(htmlFile, base, sp, cands, res); err != nil {
					return err
				}
			}
			if outDir != "" {
				return writeTuneDir(outDir, base, sp, res, top)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&spaceFile, "space", "", "parameter space file (default: the scenario's tune: section)")
	f.IntVar(&workers, "workers", 0, "candidates run in parallel (default: all cores)")
	addShardFlags(f, &shardIndex, &shardCount, "candidates")
	f.BoolVarP(&asJSON, "json", "j", false, "write the results as JSON")
	f.StringVar(&outDir, "out", "", "write results.json, results.txt, best.yaml and config/ into DIR")
	f.StringVar(&htmlFile, "html", "", "also write the search as one self-contained HTML page: objective against each parameter, the Pareto set, the best configuration as a diff")
	f.IntVar(&top, "top", 10, "rows of the ranked table")
	f.Int64Var(&maxEvents, "max-events", 5_000_000_000, "refuse candidates estimated to need more scheduler events")
	cmd.AddCommand(newTuneMergeCmd())
	return cmd
}

// writeTuneHTML writes the search's page, with the scenario as written and
// the best candidate's, for their diff.
func writeTuneHTML(file string, base *tune.Base, sp *tune.Space, cands []tune.Candidate, res *tune.Result) error {
	in := page.TuneInput{Result: res}
	if _, yml, err := base.Scenario(sp, cands[0]); err == nil {
		in.BaseYAML = yml
	}
	if res.Best >= 0 && res.Best < len(cands) {
		if _, yml, err := base.Scenario(sp, cands[res.Best]); err == nil {
			in.BestYAML = yml
		}
	}
	return writeHTML(file, func(w io.Writer) error { return page.Tune(w, in, version()) })
}

// writeTuneDir writes the results, the chosen scenario and its configs.
func writeTuneDir(dir string, base *tune.Base, sp *tune.Space, res *tune.Result, top int) error {
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return err
	}
	write := func(name string, fn func(io.Writer) error) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		err = fn(w)
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err := write("results.json", res.WriteJSON); err != nil {
		return err
	}
	if err := write("results.txt", func(w io.Writer) error { return res.WriteText(w, top) }); err != nil {
		return err
	}
	if res.Shard.Count > 1 || res.Best < 0 {
		return nil
	}
	best := sp.Candidates()[res.Best]
	s, yml, err := base.Scenario(sp, best)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "best.yaml"), yml, 0o644); err != nil {
		return err
	}
	for _, t := range confgen.Targets() {
		out, err := confgen.Generate(t[0], s, confgen.DefaultOptions())
		if err != nil {
			return err
		}
		name := filepath.Join(dir, "config", t[0])
		if err := os.WriteFile(name, out.Config, 0o644); err != nil {
			return err
		}
		if len(out.Provenance) > 0 {
			if err := os.WriteFile(name+".provenance", out.Provenance, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func newTuneMergeCmd() *cobra.Command {
	var (
		asJSON bool
		top    int
	)
	cmd := &cobra.Command{
		Use:   "merge [-j|--json] SHARD.json...",
		Short: "Join the results of tune shards into the result of the whole search",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			datas := make([][]byte, len(args))
			for i, a := range args {
				var err error
				if datas[i], err = readShard(a, c.InOrStdin()); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			return mergeTune(c.OutOrStdout(), args, datas, asJSON, top)
		},
	}
	cmd.Flags().BoolVarP(&asJSON, "json", "j", false, "write the merged results as JSON")
	cmd.Flags().IntVar(&top, "top", 10, "rows of the ranked table")
	return cmd
}

// writeTuneResult prints a result as JSON or as the ranked table.
func writeTuneResult(w io.Writer, res *tune.Result, asJSON bool, top int) error {
	out := bufio.NewWriter(w)
	var err error
	if asJSON {
		err = res.WriteJSON(out)
	} else {
		err = res.WriteText(out, top)
	}
	if err == nil {
		err = out.Flush()
	}
	return err
}

// progress counts finished candidates on a bar on a terminal, nothing
// elsewhere.
type progress struct {
	bars *progressBars
	bar  *mpb.Bar
}

func newProgress(w io.Writer, total int) *progress {
	if !isTerminal(w) || total == 0 {
		return &progress{}
	}
	b := newProgressBars(w)
	return &progress{bars: b, bar: b.counter("tuning", total)}
}

func (p *progress) inc() {
	if p.bar != nil {
		p.bar.Increment()
	}
}

func (p *progress) wait() {
	if p.bars != nil {
		p.bars.wait()
	}
}
