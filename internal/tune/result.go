package tune

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"rocelab/internal/metrics"
	"rocelab/internal/textout"
	"rocelab/internal/twin"
)

// Result is a search's outcome, or one shard's. Everything in it is a
// function of the base scenario and the space (no wall time), so that
// merging shards reproduces the unsharded result byte for byte.
type Result struct {
	Scenario    string   `json:"scenario"`
	Space       string   `json:"space"`
	Fingerprint string   `json:"fingerprint"`
	Search      string   `json:"search"`
	Samples     int      `json:"samples,omitempty"`
	Seed        uint64   `json:"seed,omitempty"`
	Objective   string   `json:"objective"`
	Params      []string `json:"params"`
	// Candidates is the size of the whole space, base included.
	Candidates int         `json:"candidates"`
	Shard      twin.Shard  `json:"shard"`
	Runs       []RunResult `json:"runs"`
	// Best is the index of the best run, -1 when none ran.
	Best int  `json:"best"`
	Cost Cost `json:"cost"`
}

// Cost is what the search spent, in twin work.
type Cost struct {
	Runs        int     `json:"runs"`
	Events      uint64  `json:"events"`
	SimulatedUS float64 `json:"simulated_us"`
}

// A RunResult is one candidate's outcome.
type RunResult struct {
	Index     int            `json:"index"`
	Params    []ParamValue   `json:"params"`
	Health    metrics.Health `json:"health"`
	Met       int            `json:"met"`
	Score     Score          `json:"score"`
	Completed bool           `json:"completed"`
	Events    uint64         `json:"events"`
	EndUS     float64        `json:"end_us"`
	// Error says why the candidate could not run.
	Error string `json:"error,omitempty"`
}

// A ParamValue is one parameter's value in a candidate.
type ParamValue struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

func newResult(b *Base, sp *Space, n int, sh twin.Shard) *Result {
	r := &Result{Scenario: b.File, Space: sp.File, Fingerprint: fingerprint(b, sp), Search: sp.Search,
		Objective: sp.Objective, Candidates: n, Shard: sh, Best: -1}
	if sp.Search == "random" {
		r.Samples, r.Seed = sp.Samples, sp.Seed
	}
	for _, p := range sp.Params {
		r.Params = append(r.Params, p.Path)
	}
	return r
}

// finish sorts the runs by index, picks the best and sums the cost.
func (r *Result) finish(obj Objective) {
	sort.Slice(r.Runs, func(i, j int) bool { return r.Runs[i].Index < r.Runs[j].Index })
	r.Best = -1
	r.Cost = Cost{}
	var best *RunResult
	for i := range r.Runs {
		x := &r.Runs[i]
		r.Cost.Runs++
		r.Cost.Events += x.Events
		r.Cost.SimulatedUS = round6(r.Cost.SimulatedUS + x.EndUS)
		if x.Error != "" {
			continue
		}
		if best == nil || x.Score.Better(best.Score, obj.ByMet) {
			best = x
		}
	}
	if best != nil {
		r.Best = best.Index
	}
}

// Run returns the run of candidate index, or false.
func (r *Result) Run(index int) (*RunResult, bool) {
	for i := range r.Runs {
		if r.Runs[i].Index == index {
			return &r.Runs[i], true
		}
	}
	return nil, false
}

// WriteJSON writes the result as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, r) }

// ReadResult reads a result written by WriteJSON.
func ReadResult(name string, rd io.Reader) (*Result, error) {
	var r Result
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a rocelab tune result: %v", name, err)
	}
	if r.Fingerprint == "" || r.Candidates < 1 {
		return nil, fmt.Errorf("%s: not a rocelab tune result (no fingerprint or candidates)", name)
	}
	return &r, nil
}

// Merge joins shard results into the result of the whole search. The
// shards must come from one search and hold every candidate exactly once.
func Merge(names []string, shards []*Result) (*Result, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	first := shards[0]
	out := *first
	out.Runs = nil
	out.Shard = twin.Whole
	owner := map[int]string{}
	for i, s := range shards {
		if s.Fingerprint != first.Fingerprint || s.Candidates != first.Candidates || s.Objective != first.Objective {
			return nil, fmt.Errorf("%s: from another search (fingerprint %s, %d candidates) than %s (fingerprint %s, %d candidates)",
				names[i], s.Fingerprint, s.Candidates, names[0], first.Fingerprint, first.Candidates)
		}
		for _, run := range s.Runs {
			if prev, dup := owner[run.Index]; dup {
				return nil, fmt.Errorf("%s: candidate %d is also in %s", names[i], run.Index, prev)
			}
			owner[run.Index] = names[i]
			out.Runs = append(out.Runs, run)
		}
	}
	var missing []string
	for i := 0; i < first.Candidates; i++ {
		if _, ok := owner[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		if len(missing) > 10 {
			missing = append(missing[:10], "...")
		}
		return nil, fmt.Errorf("candidates missing from the shards given: %s (a shard not run or not passed?)", strings.Join(missing, ", "))
	}
	obj, ok := objectives[out.Objective]
	if !ok {
		return nil, fmt.Errorf("%s: unknown objective %q", names[0], out.Objective)
	}
	out.finish(obj)
	return &out, nil
}

// WriteText writes the ranked table: the base, then the best runs.
func (r *Result) WriteText(w io.Writer, top int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tune %s: %s search over %s, objective %s\n", r.Scenario, r.Search, strings.Join(r.Params, ", "), r.Objective)
	if r.Shard.Count > 1 {
		fmt.Fprintf(&b, "shard %d of %d: %d of %d candidates (merge the shards with rocelab tune merge)\n", r.Shard.Index, r.Shard.Count, len(r.Runs), r.Candidates)
	}
	fmt.Fprintf(&b, "cost: %d twin runs, %d events, %.1f ms simulated\n\n", r.Cost.Runs, r.Cost.Events, r.Cost.SimulatedUS/1000)
	ranked := append([]RunResult(nil), r.Runs...)
	obj := objectives[r.Objective]
	sort.SliceStable(ranked, func(i, j int) bool {
		a, c := ranked[i], ranked[j]
		if (a.Error == "") != (c.Error == "") {
			return a.Error == ""
		}
		if a.Score != c.Score {
			return a.Score.Better(c.Score, obj.ByMet)
		}
		return a.Index < c.Index
	})
	head := append([]string{"rank", "#"}, r.Params...)
	head = append(head, "p99 us", "util %", "loss %", "pause %", "met", "score")
	t := textout.Table{Head: head}
	row := func(rank string, x RunResult) {
		cells := []string{rank, fmt.Sprint(x.Index)}
		for i := range r.Params {
			v := "(base)"
			if i < len(x.Params) {
				v = x.Params[i].Value
			}
			cells = append(cells, v)
		}
		if x.Error != "" {
			cells = append(cells, "error: "+x.Error)
			t.Add(cells...)
			return
		}
		h := x.Health
		cells = append(cells, fmt.Sprintf("%.2f", h.P99LatencyUS.Value), fmt.Sprintf("%.2f", 100*h.BandwidthUtilization.Value),
			fmt.Sprintf("%.3f", 100*h.LossRate.Value), fmt.Sprintf("%.3f", 100*h.PFCPauseRatio.Value), fmt.Sprintf("%d/4", x.Met), fmt.Sprintf("%.4g", x.Score.Value))
		t.Add(cells...)
	}
	shown := 0
	for i, x := range ranked {
		if i < top || x.Index == 0 {
			row(fmt.Sprint(i+1), x)
			shown++
		}
	}
	t.More = len(ranked) - shown
	t.Write(&b)
	if base, ok := r.Run(0); ok && r.Best >= 0 {
		best, _ := r.Run(r.Best)
		fmt.Fprintf(&b, "\nbest: #%d meets %d of 4 targets (the base meets %d)", best.Index, best.Met, base.Met)
		for _, p := range best.Params {
			fmt.Fprintf(&b, "; %s = %s", p.Path, p.Value)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
