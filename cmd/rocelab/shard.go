package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rocelab/internal/twin"
)

// addShardFlags adds --shard-index and --shard-count; what names the jobs
// that split.
func addShardFlags(f *pflag.FlagSet, index, count *int, what string) {
	f.IntVar(index, "shard-index", -1, "run shard I of the "+what+"; -1: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX when set")
	f.IntVar(count, "shard-count", 0, "number of shards; 0: from SLURM_ARRAY_TASK_COUNT when set; 1: do not split")
}

// resolveShard returns the shard of n jobs this process runs, and where it
// came from: --shard-index/--shard-count, else, when there is more than one
// job to split, a Slurm array task or a Kubernetes Indexed Job. A single
// job under an array (each task running its own file) is not split.
func resolveShard(c *cobra.Command, index, count, n int) (twin.Shard, string, error) {
	if c.Flags().Changed("shard-index") {
		if !c.Flags().Changed("shard-count") {
			return twin.Shard{}, "", usageError("--shard-index needs --shard-count")
		}
		s := twin.Shard{Index: index, Count: count}
		if err := s.Check(); err != nil {
			return s, "", usageError("%v", err)
		}
		return s, "--shard-index", nil
	}
	if count == 1 {
		return twin.Whole, "", nil
	}
	if n > 1 {
		s, from, ok, err := twin.ShardFromEnv(count)
		if err != nil {
			return s, "", usageError("%v", err)
		}
		if ok {
			if err := s.Check(); err != nil {
				return s, "", usageError("%s: %v", from, err)
			}
			return s, from, nil
		}
	}
	if count > 1 {
		return twin.Whole, "", usageError("--shard-count needs --shard-index (or SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX)")
	}
	return twin.Whole, "", nil
}
