package main

import (
	"fmt"
	"path"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rocelab/examples"
	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/internal/twinfeed"
	"rocelab/internal/unit"
)

func newRunCmd() *cobra.Command {
	var (
		seed      int64
		asJSON    bool
		outDir    string
		force     bool
		outSysfs  string
		example   string
		maxMemory string
		maxEvents int64
		pcapFile  string
		pcapAt    string
		snaplen   int
		failOn    []string
		ncclTests string
		engine    string
		shardIdx  int
		shardCnt  int
		threads   int
		htmlFile  string
	)
	cmd := &cobra.Command{
		Use:   "run [FILE|-] [--seed N] [-j|--json] [-o|--out DIR] [--pcap FILE [--pcap-at NODE/pN]]",
		Short: "Run the twin on a scenario (the embedded default when no FILE is given)",
		Long: `run simulates a RoCEv2 fabric packet by packet and reports the four health
targets (P99 latency, bandwidth utilization, loss on the lossless class, PFC
pause time), totals, per-flow completion, per-port mlx5 counters, queue depths
and ECMP load.

FILE is a scenario (YAML, plain or gzip), or - to read it from stdin.
Without FILE it runs the embedded default scenario (` + examples.Default + `);
--example NAME runs another embedded example. The same scenario and seed give
byte-identical output.

--out DIR also writes result.json, summary.txt, flows.csv, queues.csv and an
ethtool -S file per port, which 'rocelab diagnose' reads like a real dump.
DIR must be new or empty; --force replaces the output of an earlier run there
(only the files that run wrote).

Ports are named NODE/pN everywhere (left/p17: port 17 of switch left; h0/p0:
host h0's NIC). A file cannot hold a /, so the per-port files are NODE-pN
(left-p17.txt); --pcap-at takes either spelling.

--html FILE also writes the run as one self-contained HTML page: the health
table, the nccl-tests table and busbw against size (every variant overlaid),
what changed between variants, queue depths, PFC pauses, DCQCN rates, ECMP
load, completion times and counters as plots and tables; no request leaves
the file.

--out-sysfs DIR writes each host as the tree 'rocelab exporter' reads from a
real host: DIR/<host>/sys (--path.sysfs), DIR/<host>/ethtool-stats
(--path.ethtool-stats) and DIR/<host>/mlnx_qos (--path.mlnx-qos).

--threads N runs the packet engine on N cores (default: the cores Go
may use, GOMAXPROCS): the fabric is split into N domains of switches and
their hosts, which run side by side in windows no wider than the shortest
link between domains (the log's "parallel" line says how the run was
split, the window, and how long the workers waited at barriers). The
results are the same, byte for byte, whatever N; variants that run at
once share the cores.

--engine picks the engine: packet (the fabric and RDMA NICs, packet by
packet), fluid (each connection's data as a fluid at max-min fair rates, for
jobs too large for packets; docs/fluid.md), or auto (the default): the first
engine whose estimated cost fits --max-memory and --max-events. The report's
"engine" line names the engine and why.

A scenario with variants splits into shards: under a Slurm array
(SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT), a Kubernetes Indexed Job
(JOB_COMPLETION_INDEX, with --shard-count the Job's completions), or with
--shard-index and --shard-count, shard i runs the variants whose index is i
modulo the count and prints a shard file instead of its result; 'rocelab
merge' joins the shards into exactly the unsharded output. A plain scenario
splits only with --shard-index; --shard-count 1 turns splitting off.

--pcap FILE writes the frames one port sends and receives (--pcap-at
NODE/pN, default the first host's NIC port) as a pcapng capture of real
RoCEv2 and PFC frames with nanosecond simulated timestamps, whole frames
unless --snaplen cuts them, the link speed (if_speed) and the host names.
Wireshark opens it; 'rocelab capture FILE' analyses it. (Wireshark's
InfiniBand dissector labels every RoCE frame whose payload is cut "Invalid
Packet Length from LRH! [Malformed Packet]", although its headers are whole.)

` + exitRun,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeFiles("yaml", "yml", "gz"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ls, err := setupLog(cmd)
			if err != nil {
				return err
			}
			if maxEvents <= 0 {
				return usageError("--max-events: expected a positive number of scheduler events (default %d), got %d", defaultMaxEvents, maxEvents)
			}
			if snaplen < 0 {
				return usageError("--snaplen: expected 0 (whole frames) or a length of at least %d bytes, got %d", scenario.MinSnaplen(true), snaplen)
			}
			if pcapAt != "" && pcapFile == "" {
				return usageError("--pcap-at needs --pcap FILE")
			}
			fail, err := parseFailOn(failOn)
			if err != nil {
				return err
			}
			if force && outDir == "" && outSysfs == "" {
				return usageError("--force needs --out DIR or --out-sysfs DIR")
			}
			if err := checkEngine(engine); err != nil {
				return err
			}
			if err := checkHTML(htmlFile); err != nil {
				return err
			}
			release, err := prepareOuts(cmd, force, outDir, outSysfs)
			if err != nil {
				return err
			}
			defer release()
			if cmd.Flags().Changed("example") && strings.TrimSpace(example) == "" {
				return usageError("--example: expected an example's name (see 'rocelab examples'), got an empty one")
			}
			limits, err := runLimits(maxMemory, maxEvents)
			if err != nil {
				return err
			}
			// The pace before the load: a file of explicit flows makes a
			// parse tree of tens of MB, which the default pace collected
			// five times. The memory limit after it: a --max-memory under
			// what loading takes would have the collector run all the way
			// through the load of a scenario the estimate then refuses.
			collectRarely(0)
			s, err := loadScenario(cmd, args, example)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			collectRarely(limits.Memory)
			for _, w := range s.Warnings {
				warnf(cmd.ErrOrStderr(), "%v", w)
			}
			if cmd.Flags().Changed("seed") {
				if seed < 0 {
					return usageError("--seed: expected a number that is not negative, got %d", seed)
				}
				s.Seed = uint64(seed)
				for _, v := range s.Variants {
					v.Seed = uint64(seed)
				}
			}
			if ncclTests != "" {
				if err := s.OverrideNCCLTests(ncclTests); err != nil {
					return usageError("--nccl-tests: %v", err)
				}
			}
			if threads < 0 {
				return usageError("--threads: expected a number of cores, 1 or more (0: all that Go may use), got %d", threads)
			}
			setThreads(s, threads)
			jobs := s.Jobs()
			shard, from, err := resolveShard(cmd, shardIdx, shardCnt, len(jobs))
			if err != nil {
				return err
			}
			cfg := &twin.Config{Engine: engine, Limits: limits, Log: ls.log}
			out := &runOutput{name: s.Name, variants: len(s.Variants) > 0}
			switch {
			case shard.Sharded():
				for flag, set := range map[string]bool{"--out": outDir != "", "--out-sysfs": outSysfs != "", "--pcap": pcapFile != "", "--fail-on": len(failOn) > 0, "--html": htmlFile != ""} {
					if set {
						return usageError("%s: this run is shard %d of %d, whose output is for 'rocelab merge': give %s to merge", flag, shard.Index, shard.Count, flag)
					}
				}
				ls.log.Info("shard", "index", shard.Index, "count", shard.Count, "from", from, "merge", "rocelab merge SHARD.json...")
				return runShard(cmd, ls, out, jobs, shard, cfg)
			case out.variants && (pcapFile != "" || outSysfs != ""):
				return usageError("--pcap and --out-sysfs take one scenario at a time; this one has variants (run one with its own file)")
			}
			var tap *pcapOut
			if pcapFile != "" {
				cfg.Attach = func(e twin.Engine) (err error) {
					tap, err = attachPcap(e, pcapFile, pcapAt, snaplen)
					return err
				}
				defer func() {
					if tap != nil {
						tap.file.Close()
					}
				}()
			}
			if err := runJobs(cmd, ls, out, jobs, cfg); err != nil {
				return err
			}
			if tap != nil {
				if err := tap.Close(); err != nil {
					return fmt.Errorf("--pcap %s: %w", pcapFile, err)
				}
				ls.log.Info("capture written", "file", pcapFile, "frames", tap.Frames, "analyse", "rocelab capture "+pcapFile)
			}
			if err := out.write(cmd, asJSON, outDir, htmlFile); err != nil {
				return err
			}
			if outSysfs != "" {
				if err := twinfeed.WriteTree(outSysfs, twinfeed.Hosts(&out.results[0].Observation)); err != nil {
					return err
				}
				if err := writeManifest(outSysfs); err != nil {
					return err
				}
			}
			return out.failOn(fail)
		},
	}
	f := cmd.Flags()
	f.Int64Var(&seed, "seed", 0, "override the scenario's seed")
	f.BoolVarP(&asJSON, "json", "j", false, "write the result as JSON")
	f.StringVarP(&outDir, "out", "o", "", "also write result files into this directory (new or empty; see --force)")
	f.BoolVar(&force, "force", false, "with --out or --out-sysfs: replace the files an earlier run wrote into DIR (and nothing else)")
	f.StringVar(&outSysfs, "out-sysfs", "", "also write each host's counters as a sysfs-shaped tree DIR/<host>/ that 'rocelab exporter --path.sysfs DIR/<host>/sys' reads (new or empty; see --force)")
	f.StringVar(&example, "example", "", "run an embedded example by name (see 'rocelab examples')")
	f.StringVar(&htmlFile, "html", "", "also write the report as one self-contained HTML page with plots")
	f.StringVar(&maxMemory, "max-memory", "", "refuse scenarios estimated to need more memory (default: 80% of available memory)")
	f.Int64Var(&maxEvents, "max-events", defaultMaxEvents, "refuse scenarios estimated to need more scheduler events (positive)")
	f.StringVar(&pcapFile, "pcap", "", "write the frames seen at one port to this pcapng file")
	f.StringVar(&pcapAt, "pcap-at", "", "the port to capture at, NODE/pN or NODE-pN (default: the first host's NIC port, h0/p0)")
	f.IntVar(&snaplen, "snaplen", scenario.DefaultSnaplen, fmt.Sprintf("bytes kept of each captured frame: 0 keeps whole frames, else at least the RoCE headers (%d bytes, %d with VLAN)", scenario.MinSnaplen(false), scenario.MinSnaplen(true)))
	f.StringSliceVar(&failOn, "fail-on", nil, "exit 1 when the run meets a condition: targets (a health target fails), incomplete (a flow did not complete)")
	f.StringVar(&ncclTests, "nccl-tests", "", "replace the workload's nccl-tests command line, e.g. 'all_reduce_perf -b 128M -e 8G -f 2 -g 8'")
	f.StringVar(&engine, "engine", twin.Auto, "the engine that runs the scenario: "+strings.Join(engines, ", ")+" (auto: the first whose estimate fits the limits)")
	f.IntVar(&threads, "threads", 0, "cores the packet engine runs on (0: GOMAXPROCS, or one for a run too small or too uneven to gain from more); the results do not depend on it")
	addShardFlags(f, &shardIdx, &shardCnt, "variants")
	_ = cmd.RegisterFlagCompletionFunc("example", completeExamples)
	_ = cmd.RegisterFlagCompletionFunc("pcap-at", completePorts)
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{failTargets, failIncomplete}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("pcap", completeFiles("pcapng"))
	_ = cmd.RegisterFlagCompletionFunc("engine", cobra.FixedCompletions(engines, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// engines are the values --engine takes.
var engines = []string{twin.Auto, twin.Packet, twin.Fluid}

// checkEngine checks --engine.
func checkEngine(e string) error {
	if !slices.Contains(engines, e) {
		return usageError("--engine: expected %s, got %q", strings.Join(engines, " or "), e)
	}
	return nil
}

// collectRarely has the garbage collector run when the heap has grown
// fivefold, or nears the memory limit: a twin's heap is its fabric, alive
// until the end, and collecting it at Go's default pace cost a tenth of a
// short run's time.
func collectRarely(limit unit.Bytes) {
	debug.SetGCPercent(400)
	if limit > 0 {
		debug.SetMemoryLimit(int64(limit))
	}
}

// setThreads shares threads cores (0: GOMAXPROCS, which a run too small
// or too uneven to gain from them lowers: scenario.Options.Auto) among
// the jobs of s that run at once, each variant with its part, and gives a
// packet engine on several a wall clock for its barrier statistics and,
// with the default count, to fall back to one worker while the others
// wait too long.
func setThreads(s *scenario.Scenario, threads int) {
	auto := threads == 0
	if auto {
		threads = runtime.GOMAXPROCS(0)
	}
	jobs := max(1, len(s.Variants))
	per := max(1, threads/min(jobs, threads))
	s.Run = scenario.Options{Threads: per, Auto: auto}
	if per > 1 {
		// The monotonic clock alone: one read of the system's clock, where
		// the wall time would take two, several times a round.
		t0 := time.Now()
		s.Run.Clock = func() int64 { return int64(time.Since(t0)) }
	}
	for _, v := range s.Variants {
		v.Run = s.Run
	}
}

// runLimits are the limits --max-memory and --max-events set.
func runLimits(maxMemory string, maxEvents int64) (twin.Limits, error) {
	limits := twin.Limits{Events: maxEvents, Memory: defaultMemoryLimit()}
	if maxMemory != "" {
		m, err := unit.ParseBytes(maxMemory)
		if err != nil || m == 0 {
			return limits, usageError("--max-memory: expected a positive size such as 8GiB, got %q", maxMemory)
		}
		limits.Memory = m
	}
	return limits, nil
}

// prepareOuts locks and checks --out and --out-sysfs before anything
// runs; release drops the locks when the command is done.
func prepareOuts(cmd *cobra.Command, force bool, dirs ...string) (release func(), err error) {
	var unlocks []func()
	release = func() {
		for _, u := range unlocks {
			u()
		}
	}
	for i, dir := range dirs {
		if dir == "" {
			continue
		}
		flag := []string{"--out", "--out-sysfs"}[i]
		unlock, err := lockOut(dir)
		if err != nil {
			release()
			return func() {}, usageError("%s: %v", flag, err)
		}
		unlocks = append(unlocks, unlock)
		warning, err := prepareOut(dir, force)
		if err != nil {
			release()
			return func() {}, usageError("%s: %v", flag, err)
		}
		if warning != "" {
			warnf(cmd.ErrOrStderr(), "%s", warning)
		}
	}
	return release, nil
}

// defaultMaxEvents is --max-events' default: about half an hour of wall
// time at 3 M events/s.
const defaultMaxEvents = 5_000_000_000

// loadScenario reads FILE ("-": stdin), an embedded example, or the default
// example.
func loadScenario(cmd *cobra.Command, args []string, example string) (*scenario.Scenario, error) {
	if len(args) == 1 {
		if example != "" {
			return nil, fmt.Errorf("give a scenario FILE or --example, not both")
		}
		in, err := openInput(args[0], cmd.InOrStdin(), "a scenario", scenarioName, "")
		if err != nil {
			return nil, err
		}
		defer in.Close()
		return scenario.LoadReader(in.name, in.r)
	}
	return loadExample(example)
}

// loadExample loads an embedded example by name, or the default one.
func loadExample(example string) (*scenario.Scenario, error) {
	name := examples.Default
	if example != "" {
		name = strings.TrimSuffix(example, ".yaml") + ".yaml"
	}
	data, err := examples.FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("no embedded example %q: expected one of %s (see 'rocelab examples')", strings.TrimSuffix(name, ".yaml"), strings.Join(exampleNames(), ", "))
	}
	return scenario.Load(path.Join("examples", name), data)
}
