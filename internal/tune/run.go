package tune

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/goccy/go-yaml"

	"rocelab/internal/twin"
)

// Options control a search.
type Options struct {
	// Shard is this process's share of the candidates (the zero Shard:
	// all of them).
	Shard twin.Shard
	// Config runs the candidates: workers in parallel (0: GOMAXPROCS),
	// engine, and the limits that refuse candidates estimated too large.
	Config twin.Config
	// Done, when set, is called once per finished candidate, one call at a
	// time.
	Done func(RunResult)
}

// Search runs the candidates of this shard through the twin pipeline and
// returns their results.
func Search(b *Base, sp *Space, o Options) (*Result, error) {
	if o.Shard.Count == 0 {
		o.Shard = twin.Whole
	}
	if err := o.Shard.Check(); err != nil {
		return nil, err
	}
	obj := objectives[sp.Objective]
	all := sp.Candidates()
	var mine []Candidate
	for _, c := range all {
		if o.Shard.Owns(c.Index) {
			mine = append(mine, c)
		}
	}
	res := newResult(b, sp, len(all), o.Shard)
	res.Runs = make([]RunResult, len(mine))
	done := func(r *RunResult) {
		if o.Done != nil {
			o.Done(*r)
		}
	}
	var jobs []twin.Job
	var at []int // the run of each job
	for k, c := range mine {
		r := &res.Runs[k]
		r.Index = c.Index
		for i, v := range c.Values {
			r.Params = append(r.Params, ParamValue{Path: sp.Params[i].Path, Value: v.Label})
		}
		s, _, err := b.Scenario(sp, c)
		if err != nil {
			r.Error = err.Error()
			done(r)
			continue
		}
		jobs = append(jobs, s.Job())
		at = append(at, k)
	}
	twin.RunAll(jobs, &o.Config, func(i int, ob *twin.Observation, err error) {
		r := &res.Runs[at[i]]
		if err != nil {
			r.Error = err.Error()
		} else {
			r.Health = ob.Health
			r.Met = ob.Health.Met()
			r.Score = Score{Met: r.Met, Value: round6(obj.Score(ob))}
			r.Completed = ob.Sim.Completed
			r.Events = ob.Sim.Events
			r.EndUS = twin.US(ob.Sim.End)
		}
		done(r)
	})
	res.finish(obj)
	return res, nil
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
