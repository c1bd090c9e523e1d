package tune

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"

	"github.com/goccy/go-yaml"

	"rocelab/internal/report"
	"rocelab/internal/scenario"
)

// Options control a search.
type Options struct {
	// Workers run candidates in parallel; 0 means GOMAXPROCS.
	Workers int
	Shard   Shard
	// Limits refuse candidates estimated too large.
	Limits scenario.Limits
	// Done, when set, is called once per finished candidate, from one
	// goroutine.
	Done func(RunResult)
}

// A Shard is this process's share of the candidates: those whose index
// modulo Count is Index.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ShardFromEnv returns the shard a Slurm array task or a Kubernetes
// Indexed Job runs: SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of
// SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX of count (which
// Kubernetes does not export: the Job's completions). ok is false when
// neither is set.
func ShardFromEnv(count int) (Shard, bool, error) {
	if id := os.Getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		i, err := strconv.Atoi(id)
		if err != nil {
			return Shard{}, true, fmt.Errorf("SLURM_ARRAY_TASK_ID=%q: expected a number", id)
		}
		if m := os.Getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
			lo, err := strconv.Atoi(m)
			if err != nil {
				return Shard{}, true, fmt.Errorf("SLURM_ARRAY_TASK_MIN=%q: expected a number", m)
			}
			i -= lo
		}
		if count == 0 {
			n, err := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_COUNT"))
			if err != nil || n < 1 {
				return Shard{}, true, fmt.Errorf("SLURM_ARRAY_TASK_COUNT=%q: expected the number of array tasks (or give --shard-count)", os.Getenv("SLURM_ARRAY_TASK_COUNT"))
			}
			count = n
		}
		return Shard{Index: i, Count: count}, true, nil
	}
	if id := os.Getenv("JOB_COMPLETION_INDEX"); id != "" {
		i, err := strconv.Atoi(id)
		if err != nil {
			return Shard{}, true, fmt.Errorf("JOB_COMPLETION_INDEX=%q: expected a number", id)
		}
		if count == 0 {
			return Shard{}, true, fmt.Errorf("JOB_COMPLETION_INDEX is set: give --shard-count, the Job's completions")
		}
		return Shard{Index: i, Count: count}, true, nil
	}
	return Shard{}, false, nil
}

// Check validates a shard.
func (s Shard) Check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d of %d: expected 0 ≤ index < count", s.Index, s.Count)
	}
	return nil
}

// Search runs the candidates of this shard and returns their results.
func Search(b *Base, sp *Space, o Options) (*Result, error) {
	if o.Shard.Count == 0 {
		o.Shard = Shard{Index: 0, Count: 1}
	}
	if err := o.Shard.Check(); err != nil {
		return nil, err
	}
	obj := objectives[sp.Objective]
	all := sp.Candidates()
	var mine []Candidate
	for _, c := range all {
		if c.Index%o.Shard.Count == o.Shard.Index {
			mine = append(mine, c)
		}
	}
	res := newResult(b, sp, len(all), o.Shard)
	res.Runs = make([]RunResult, len(mine))
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan int)
	done := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				res.Runs[k] = runOne(b, sp, mine[k], obj, o.Limits)
				done <- k
			}
		}()
	}
	go func() {
		for k := range mine {
			jobs <- k
		}
		close(jobs)
		wg.Wait()
		close(done)
	}()
	for k := range done {
		if o.Done != nil {
			o.Done(res.Runs[k])
		}
	}
	res.finish(obj)
	return res, nil
}

// runOne builds and runs one candidate.
func runOne(b *Base, sp *Space, c Candidate, obj Objective, lim scenario.Limits) RunResult {
	r := RunResult{Index: c.Index}
	for i, v := range c.Values {
		r.Params = append(r.Params, ParamValue{Path: sp.Params[i].Path, Value: v.Label})
	}
	s, _, err := b.Scenario(sp, c)
	if err == nil {
		err = s.Estimate().Check(lim)
	}
	var tw *scenario.Twin
	if err == nil {
		tw, err = scenario.Build(s)
	}
	if err != nil {
		r.Error = err.Error()
		return r
	}
	end := tw.Run()
	run := report.New(tw, end)
	r.Health = run.Health
	r.Met = Met(run.Health)
	r.Score = Score{Met: r.Met, Value: round6(obj.Score(run))}
	r.Completed = run.Sim.Completed
	r.Events = run.Sim.Events
	r.EndUS = run.Sim.EndUS
	return r
}

// fingerprint identifies a search: the base scenario as loaded and the
// space, so that merge only joins shards of the same search.
func fingerprint(b *Base, sp *Space) string {
	h := sha256.New()
	doc, _ := yaml.Marshal(b.doc)
	h.Write(doc)
	fmt.Fprintf(h, "\x00%s\x00%d\x00%d\x00%s", sp.Search, sp.Samples, sp.Seed, sp.Objective)
	for _, p := range sp.Params {
		fmt.Fprintf(h, "\x00%s", p.Path)
		for _, v := range p.gridValues() {
			fmt.Fprintf(h, "\x01%s", v.Label)
		}
		if p.Range != nil {
			fmt.Fprintf(h, "\x02%g %g %d %v %s", p.Range.Lo, p.Range.Hi, p.Range.Steps, p.Range.Log, p.Range.Kind)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func round6(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 9, 64), 64)
	return v
}
