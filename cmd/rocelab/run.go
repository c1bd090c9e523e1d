package main

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"rocelab/examples"
	"rocelab/internal/report"
	"rocelab/internal/scenario"
	"rocelab/internal/unit"
)

func newRunCmd() *cobra.Command {
	var (
		seed      int64
		asJSON    bool
		outDir    string
		example   string
		maxMemory string
		maxEvents int64
		pcapFile  string
		pcapAt    string
		snaplen   int
	)
	cmd := &cobra.Command{
		Use:   "run [FILE] [--seed N] [--json] [--out DIR] [--pcap FILE [--pcap-at NODE:PORT]]",
		Short: "Run the twin on a scenario (the embedded default when no FILE is given)",
		Long: `run simulates a RoCEv2 fabric packet by packet and reports the four health
targets (P99 latency, bandwidth utilization, loss on the lossless class, PFC
pause time), totals, per-flow completion, per-port mlx5 counters, queue depths
and ECMP load.

Without FILE it runs the embedded default scenario (` + examples.Default + `);
--example NAME runs another embedded example. The same scenario and seed give
byte-identical output.

--out DIR also writes result.json, summary.txt, flows.csv, queues.csv and an
ethtool -S file per port, which 'rocelab diagnose' reads like a real dump.

--pcap FILE writes the frames one port sends and receives (--pcap-at
NODE:PORT, default the first host's NIC port) as a pcapng capture of real
RoCEv2 and PFC frames with nanosecond simulated timestamps, headers kept and
payload cut at --snaplen. Wireshark opens it; 'rocelab capture FILE
--link-speed RATE' analyses it.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadScenario(args, example)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if cmd.Flags().Changed("seed") {
				if seed < 0 {
					return usageError("--seed: expected a number that is not negative, got %d", seed)
				}
				s.Seed = uint64(seed)
			}
			limits := scenario.Limits{Events: maxEvents}
			if maxMemory != "" {
				m, err := unit.ParseBytes(maxMemory)
				if err != nil {
					return usageError("--max-memory: expected a size such as 8GiB, got %q", maxMemory)
				}
				limits.Memory = m
			} else {
				limits.Memory = defaultMemoryLimit()
			}
			est := s.Estimate()
			if err := est.Check(limits); err != nil {
				return &exitError{code: 2, err: fmt.Errorf("%s: %w", s.File, err)}
			}
			tw, err := scenario.Build(s)
			if err != nil {
				return &exitError{code: 2, err: fmt.Errorf("%s: %w", s.File, err)}
			}
			if pcapAt != "" && pcapFile == "" {
				return usageError("--pcap-at needs --pcap FILE")
			}
			var tap *scenario.PcapTap
			if pcapFile != "" {
				if snaplen < 0 {
					return usageError("--snaplen: expected 0 (whole frames) or a positive length, got %d", snaplen)
				}
				if pcapAt == "" {
					pcapAt = tw.NICs[0].Name() + ":0"
				}
				pt, err := tw.Port(pcapAt)
				if err != nil {
					return usageError("--pcap-at: %v", err)
				}
				f, err := os.Create(pcapFile)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				defer f.Close()
				if tap, err = tw.AttachPcap(pt, f, snaplen); err != nil {
					return err
				}
			}
			slog.Info("running", "scenario", s.Name, "seed", s.Seed, "hosts", len(s.Topo.Hosts), "flows", len(tw.Flows),
				"est_packet_hops", est.PacketHops, "est_memory", fmt.Sprint(est.Memory))
			wall := time.Now()
			end := runWithProgress(tw, cmd.ErrOrStderr())
			elapsed := time.Since(wall)
			events := tw.Net.Sched.Executed()
			slog.Info("done", "simulated", end.String(), "events", events, "wall", elapsed.Round(time.Millisecond).String(),
				"events_per_s", fmt.Sprintf("%.3g", float64(events)/elapsed.Seconds()))
			if tap != nil {
				if err := tap.Close(); err != nil {
					return fmt.Errorf("--pcap %s: %w", pcapFile, err)
				}
				slog.Info("capture written", "file", pcapFile, "frames", tap.Frames, "analyse", "rocelab capture "+pcapFile+" --link-speed "+tap.Rate().String())
			}
			res := report.New(tw, end)
			out := bufio.NewWriter(cmd.OutOrStdout())
			if asJSON {
				err = res.WriteJSON(out)
			} else {
				err = res.WriteText(out)
			}
			if err == nil {
				err = out.Flush()
			}
			if err != nil {
				return err
			}
			if outDir != "" {
				if err := res.WriteDir(outDir, tw.Net); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Int64Var(&seed, "seed", 0, "override the scenario's seed")
	f.BoolVar(&asJSON, "json", false, "write the result as JSON")
	f.StringVar(&outDir, "out", "", "also write result files into this directory")
	f.StringVar(&example, "example", "", "run an embedded example by name (see 'rocelab examples')")
	f.StringVar(&maxMemory, "max-memory", "", "refuse scenarios estimated to need more memory (default: 80% of available memory)")
	f.Int64Var(&maxEvents, "max-events", 5_000_000_000, "refuse scenarios estimated to need more scheduler events")
	f.StringVar(&pcapFile, "pcap", "", "write the frames seen at one port to this pcapng file")
	f.StringVar(&pcapAt, "pcap-at", "", "the port to capture at, NODE:PORT (default: the first host's NIC port)")
	f.IntVar(&snaplen, "snaplen", scenario.DefaultSnaplen, "bytes kept of each captured frame (0: whole frames)")
	return cmd
}

// loadScenario reads FILE, an embedded example, or the default example.
func loadScenario(args []string, example string) (*scenario.Scenario, error) {
	if len(args) == 1 {
		if example != "" {
			return nil, fmt.Errorf("give a scenario FILE or --example, not both")
		}
		return scenario.LoadFile(args[0])
	}
	name := examples.Default
	if example != "" {
		name = strings.TrimSuffix(example, ".yaml") + ".yaml"
	}
	data, err := examples.FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("no embedded example %q (see 'rocelab examples')", strings.TrimSuffix(name, ".yaml"))
	}
	return scenario.Load(path.Join("examples", name), data)
}

// runWithProgress runs the twin in slices of simulated time so that a
// progress bar can follow it on a terminal; slicing does not change the
// order of events.
func runWithProgress(tw *scenario.Twin, stderr io.Writer) unit.Time {
	limit := tw.Scenario.Duration
	if !isTerminal(stderr) {
		return tw.Run()
	}
	p := mpb.New(mpb.WithOutput(stderr), mpb.WithWidth(40))
	const steps = 200
	bar := p.AddBar(steps,
		mpb.PrependDecorators(decor.Name("simulating "+tw.Scenario.Name)),
		mpb.AppendDecorators(decor.Percentage()))
	for i := 1; i <= steps && !tw.Done(); i++ {
		tw.RunUntil(limit * unit.Time(i) / steps)
		bar.SetCurrent(int64(i))
	}
	bar.SetCurrent(steps)
	p.Wait()
	return tw.Run()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// defaultMemoryLimit is 80% of MemAvailable, or 0 (no limit) when unknown.
func defaultMemoryLimit() unit.Bytes {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "MemAvailable: %d kB", &kb); err == nil {
			return unit.Bytes(kb * 1024 * 8 / 10)
		}
	}
	return 0
}
