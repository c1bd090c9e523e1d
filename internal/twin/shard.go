package twin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"rocelab/internal/textout"
)

// A Shard is one process's share of a sweep's jobs: those whose index
// modulo Count is Index.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Whole is the unsharded sweep.
var Whole = Shard{Index: 0, Count: 1}

// Owns reports whether job i is this shard's.
func (s Shard) Owns(i int) bool { return i%s.Count == s.Index }

// Sharded reports whether the shard is a part of the sweep.
func (s Shard) Sharded() bool { return s.Count > 1 }

// Check validates a shard.
func (s Shard) Check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d of %d: expected 0 ≤ index < count", s.Index, s.Count)
	}
	return nil
}

// ShardFromEnv returns the shard a Slurm array task or a Kubernetes
// Indexed Job runs: SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of
// SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX of count (which
// Kubernetes does not export: the Job's completions). count, when not 0,
// overrides the task count. from names the variable the index came from;
// ok is false when neither is set.
func ShardFromEnv(count int) (s Shard, from string, ok bool, err error) {
	if id := os.Getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		i, err := strconv.Atoi(id)
		if err != nil {
			return Shard{}, "", true, fmt.Errorf("SLURM_ARRAY_TASK_ID=%q: expected a number", id)
		}
		if m := os.Getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
			lo, err := strconv.Atoi(m)
			if err != nil {
				return Shard{}, "", true, fmt.Errorf("SLURM_ARRAY_TASK_MIN=%q: expected a number", m)
			}
			i -= lo
		}
		if count == 0 {
			n, err := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_COUNT"))
			if err != nil || n < 1 {
				return Shard{}, "", true, fmt.Errorf("SLURM_ARRAY_TASK_COUNT=%q: expected the number of array tasks (or give --shard-count)", os.Getenv("SLURM_ARRAY_TASK_COUNT"))
			}
			count = n
		}
		return Shard{Index: i, Count: count}, "SLURM_ARRAY_TASK_ID", true, nil
	}
	if id := os.Getenv("JOB_COMPLETION_INDEX"); id != "" {
		i, err := strconv.Atoi(id)
		if err != nil {
			return Shard{}, "", true, fmt.Errorf("JOB_COMPLETION_INDEX=%q: expected a number", id)
		}
		if count == 0 {
			return Shard{}, "", true, fmt.Errorf("JOB_COMPLETION_INDEX is set: give --shard-count, the Job's completions")
		}
		return Shard{Index: i, Count: count}, "JOB_COMPLETION_INDEX", true, nil
	}
	return Shard{}, "", false, nil
}

// maxJobs bounds the jobs and shards of a shard file read back.
const maxJobs = 1 << 20

// ShardKind marks a shard file of a run's jobs.
const ShardKind = "rocelab run shard"

// Schema is the version of the JSON the run writes (docs/run-json.md).
const Schema = 2

// A ShardFile is one shard's part of a run: the observations of the jobs
// it ran, with what identifies the sweep. Merging the shards of a sweep
// gives the observations of the unsharded run exactly.
type ShardFile struct {
	Kind   string `json:"kind"`
	Schema int    `json:"schema"`
	// Name is the scenario's name; Variants whether it is a comparison
	// of variants (else one job).
	Name     string `json:"name"`
	Variants bool   `json:"variants"`
	// Fingerprint identifies the sweep: every job's Key and the engine
	// asked for.
	Fingerprint string      `json:"fingerprint"`
	Shard       Shard       `json:"shard"`
	Jobs        int         `json:"jobs"`
	Results     []JobResult `json:"results"`
}

// A JobResult is one job's observation in a shard.
type JobResult struct {
	Index       int         `json:"index"`
	Variant     string      `json:"variant"`
	Description string      `json:"description"`
	Observation Observation `json:"observation"`
}

// Fingerprint identifies a sweep of jobs run with one engine choice.
func Fingerprint(jobs []Job, engine string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d", engine, len(jobs))
	for _, j := range jobs {
		fmt.Fprintf(h, "\x00%s", j.Key)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// WriteJSON writes the shard as indented JSON.
func (f *ShardFile) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, f) }

// ReadShard reads a shard file; name labels errors.
func ReadShard(name string, r io.Reader) (*ShardFile, error) {
	var f ShardFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not a shard of 'rocelab run': %w", name, err)
	}
	if f.Kind != ShardKind {
		return nil, fmt.Errorf("%s: not a shard of 'rocelab run' (kind %q, expected %q)", name, f.Kind, ShardKind)
	}
	if f.Schema != Schema {
		return nil, fmt.Errorf("%s: shard of schema %d; this rocelab reads schema %d", name, f.Schema, Schema)
	}
	if err := f.Shard.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case f.Jobs < 1 || f.Jobs > maxJobs || f.Shard.Count > maxJobs:
		return nil, fmt.Errorf("%s: %d jobs in %d shards: expected 1 to %d of each", name, f.Jobs, f.Shard.Count, maxJobs)
	case !f.Variants && f.Jobs != 1:
		return nil, fmt.Errorf("%s: %d jobs of a scenario without variants: expected 1", name, f.Jobs)
	}
	for i := range f.Results {
		r := &f.Results[i]
		err := r.Observation.Check()
		if err == nil && f.Variants {
			err = FileName(r.Variant)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: results[%d]: %w", name, i, err)
		}
	}
	return &f, nil
}

// MergeShards joins the shards of one sweep into the unsharded result:
// every shard of one fingerprint and count present once, every job once.
// names label errors.
func MergeShards(names []string, shards []*ShardFile) (*ShardFile, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("no shards")
	}
	first := shards[0]
	seen := map[int]string{}
	have := map[int]bool{}
	out := &ShardFile{Kind: ShardKind, Schema: Schema, Name: first.Name, Variants: first.Variants,
		Fingerprint: first.Fingerprint, Shard: Whole, Jobs: first.Jobs}
	for k, s := range shards {
		switch {
		case s.Fingerprint != first.Fingerprint || s.Jobs != first.Jobs || s.Name != first.Name || s.Variants != first.Variants:
			return nil, fmt.Errorf("%s is a shard of another run than %s (fingerprint %s, expected %s)", names[k], names[0], s.Fingerprint, first.Fingerprint)
		case s.Shard.Count != first.Shard.Count:
			return nil, fmt.Errorf("%s is shard %d of %d, %s of %d: shards of one split only", names[k], s.Shard.Index, s.Shard.Count, names[0], first.Shard.Count)
		case seen[s.Shard.Index] != "":
			return nil, fmt.Errorf("%s and %s are both shard %d", seen[s.Shard.Index], names[k], s.Shard.Index)
		}
		seen[s.Shard.Index] = names[k]
		for _, r := range s.Results {
			if r.Index < 0 || r.Index >= first.Jobs || !s.Shard.Owns(r.Index) || have[r.Index] {
				return nil, fmt.Errorf("%s: job %d does not belong to shard %d of %d", names[k], r.Index, s.Shard.Index, s.Shard.Count)
			}
			have[r.Index] = true
			out.Results = append(out.Results, r)
		}
	}
	if len(seen) < first.Shard.Count {
		var missing []string
		for i := 0; i < first.Shard.Count && len(missing) <= 10; i++ {
			if seen[i] == "" {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		if len(missing) > 10 {
			missing[10] = "…"
		}
		return nil, fmt.Errorf("shards %s of %d missing", strings.Join(missing, ", "), first.Shard.Count)
	}
	if len(out.Results) != first.Jobs {
		i := 0
		for have[i] {
			i++
		}
		return nil, fmt.Errorf("job %d is in no shard", i)
	}
	sort.Slice(out.Results, func(i, j int) bool { return out.Results[i].Index < out.Results[j].Index })
	return out, nil
}
