package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"rocelab/internal/tune"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// maxShardSize caps a shard file read into memory.
const maxShardSize = 4 * unit.GiB

func newMergeCmd() *cobra.Command {
	var (
		asJSON, force bool
		outDir        string
		htmlFile      string
		failOn        []string
		top           int
	)
	cmd := &cobra.Command{
		Use:   "merge [-j|--json] [-o DIR] [--fail-on COND] SHARD.json...",
		Short: "Join the shards of a run or a tune search into exactly the unsharded output",
		Long: `merge joins the shard files of one split run into exactly what the unsharded
run prints and writes: the same text (or --json), the same --out directory,
the same --html page and the same --fail-on exit status, byte for byte.

A run splits when it has several jobs (the variants of a scenario, or tune's
candidates) and runs as a Slurm array task (SLURM_ARRAY_TASK_ID of
SLURM_ARRAY_TASK_COUNT), a Kubernetes Indexed Job (JOB_COMPLETION_INDEX,
with --shard-count the Job's completions), or with --shard-index and
--shard-count: shard i runs the jobs whose index is i modulo the count and
prints a shard file (JSON) instead of its result.

  #SBATCH --array=0-3
  rocelab run cluster.yaml > shard-$SLURM_ARRAY_TASK_ID.json
  # then, once:
  rocelab merge shard-*.json

merge checks that the shards come from one run (the same scenario, seed,
overrides and engine) and hold every job once. Shards of 'rocelab tune'
merge too, as 'rocelab tune merge' does.

` + exitRun,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeFiles("json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fail, err := parseFailOn(failOn)
			if err != nil {
				return err
			}
			if force && outDir == "" {
				return usageError("--force needs --out DIR")
			}
			datas := make([][]byte, len(args))
			for i, a := range args {
				if datas[i], err = readShard(a, cmd.InOrStdin()); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			if err := checkHTML(htmlFile); err != nil {
				return err
			}
			if isTuneResult(datas[0]) {
				if outDir != "" || len(failOn) > 0 || htmlFile != "" {
					return usageError("%s is a shard of 'rocelab tune': --out, --html and --fail-on apply to run shards", args[0])
				}
				return mergeTune(cmd.OutOrStdout(), args, datas, asJSON, top)
			}
			shards := make([]*twin.ShardFile, len(args))
			for i, a := range args {
				if shards[i], err = twin.ReadShard(a, bytes.NewReader(datas[i])); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			merged, err := twin.MergeShards(args, shards)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			release, err := prepareOuts(cmd, force, outDir)
			if err != nil {
				return err
			}
			defer release()
			out := &runOutput{name: merged.Name, variants: merged.Variants, results: merged.Results}
			if err := out.write(cmd, asJSON, outDir, htmlFile); err != nil {
				return err
			}
			return out.failOn(fail)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&asJSON, "json", "j", false, "write the merged result as JSON")
	f.StringVarP(&outDir, "out", "o", "", "also write the result files into this directory, as 'run --out' does")
	f.BoolVar(&force, "force", false, "with --out: replace the files an earlier run wrote into DIR (and nothing else)")
	f.StringVar(&htmlFile, "html", "", "also write the merged run as one self-contained HTML page, as 'run --html' does")
	f.StringSliceVar(&failOn, "fail-on", nil, "exit 1 when a job meets a condition: targets (a health target fails), incomplete (a flow did not complete)")
	f.IntVar(&top, "top", 10, "rows of the ranked table (tune shards)")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{failTargets, failIncomplete}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// readShard reads a shard file whole, up to maxShardSize.
func readShard(name string, stdin io.Reader) ([]byte, error) {
	in, err := openInput(name, stdin, "a shard (JSON)", func(n string) bool { return strings.HasSuffix(n, ".json") }, "")
	if err != nil {
		return nil, err
	}
	defer in.Close()
	// A shard is a JSON object: anything else (a device, a binary file)
	// is refused at its first byte rather than read up to the cap.
	br := bufio.NewReader(in.r)
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: empty: not a shard of 'rocelab run' or 'rocelab tune'", in.name)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", in.name, err)
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			continue
		}
		if b != '{' {
			return nil, fmt.Errorf("%s: not a shard of 'rocelab run' or 'rocelab tune': a shard is a JSON object", in.name)
		}
		br.UnreadByte()
		break
	}
	data, err := io.ReadAll(io.LimitReader(jsonBytes{br}, int64(maxShardSize)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", in.name, err)
	}
	if len(data) > int(maxShardSize) {
		return nil, fmt.Errorf("%s: larger than %v: not a shard file", in.name, maxShardSize)
	}
	return data, nil
}

// jsonBytes reads JSON text and fails at the first control byte, which
// JSON never holds raw, so a binary stream stops at once, not at the cap.
type jsonBytes struct{ r io.Reader }

func (j jsonBytes) Read(p []byte) (int, error) {
	n, err := j.r.Read(p)
	for i, b := range p[:n] {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
			return i, fmt.Errorf("byte %#02x: not JSON text", b)
		}
	}
	return n, err
}

// isTuneResult tells a tune result from a run shard: it names a space.
func isTuneResult(data []byte) bool {
	var head struct {
		Kind  string `json:"kind"`
		Space string `json:"space"`
	}
	return json.Unmarshal(data, &head) == nil && head.Kind == "" && head.Space != ""
}

// mergeTune merges tune shards as 'rocelab tune merge' does.
func mergeTune(w io.Writer, names []string, datas [][]byte, asJSON bool, top int) error {
	shards := make([]*tune.Result, len(names))
	for i, n := range names {
		r, err := tune.ReadResult(n, bytes.NewReader(datas[i]))
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		shards[i] = r
	}
	res, err := tune.Merge(names, shards)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	return writeTuneResult(w, res, asJSON, top)
}
