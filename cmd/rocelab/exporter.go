package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"regexp"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"rocelab/internal/exporter"
	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/internal/twinfeed"
	"rocelab/internal/unit"
)

func newExporterCmd() *cobra.Command {
	var (
		cfg          exporter.ServeConfig
		sysfs        string
		ethtoolDir   string
		qosDir       string
		exclude      string
		twinFile     string
		speed        float64
		tick         time.Duration
		gidRefresh   time.Duration
		dcqcnRefresh time.Duration
		logLevel     string
		maxRequests  int
		netlink      bool
	)
	enabled := map[string]*bool{}
	disabled := map[string]*bool{}
	cmd := &cobra.Command{
		Use:   "exporter [--web.listen-address ADDR] [--web.config.file FILE] [--path.sysfs DIR] [--twin SCENARIO.yaml [--speed X]]",
		Short: "Serve a RoCE host's RDMA, PFC, QoS and DCQCN state as Prometheus metrics",
		Long: `exporter is a Prometheus exporter for RoCE hosts. It reads every RDMA device
under /sys/class/infiniband (hw_counters, port counters, state, rate, GID
table), the ethtool statistics of the netdevs behind them (through the
ioctl), their QoS state (dcbnl over netlink) and DCQCN settings (mlx5
/sys/class/net/<if>/ecn), and serves them on /metrics. It only reads.

A device or file that cannot be read is skipped and counted in
rocelab_exporter_collector_errors_total{collector,device,reason}; every other
device is still exported.

--web.config.file takes the exporter-toolkit web configuration (TLS and basic
auth), the same file format every Prometheus exporter reads.

--path.ethtool-stats DIR and --path.mlnx-qos DIR read ethtool -S and
mlnx_qos -i text files (<netdev>.txt) instead of the ioctl and netlink: the
path for test fixtures and for trees written by 'rocelab run --out-sysfs'.

--twin SCENARIO.yaml serves the twin's simulated hosts instead (labels
host, device, port), advancing --speed simulated seconds per wall-clock
second and looping when the scenario ends. Counters are scaled by 1/speed,
so that rates and ratios over wall-clock time read as on real hosts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// --log-level, as every command takes it; --log.level, the
			// Prometheus exporters' spelling, is kept as a hidden alias.
			if l, _ := cmd.Flags().GetString(flagLogLevel); cmd.Flags().Changed(flagLogLevel) {
				logLevel = l
			} else if q, _ := cmd.Flags().GetBool(flagQuiet); q && !cmd.Flags().Changed("log.level") {
				logLevel = "warn" // -q: no INFO lines, as for every command
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				name := "--log-level"
				if !cmd.Flags().Changed(flagLogLevel) {
					name = "--log.level"
				}
				return usageError("%s: expected debug, info, warn or error, got %q", name, logLevel)
			}
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			re, err := regexp.Compile(exclude)
			if err != nil {
				return usageError("--collector.ethtool.exclude: %v", err)
			}
			pick := func() []exporter.Collector {
				var out []exporter.Collector
				for _, c := range exporter.Collectors(exporter.Options{EthtoolExclude: re, GIDRefresh: gidRefresh, DCQCNRefresh: dcqcnRefresh}) {
					if *enabled[c.Name()] && !*disabled[c.Name()] {
						out = append(out, c)
					}
				}
				return out
			}
			if maxRequests < 0 {
				return usageError("--web.max-requests: expected 0 (no limit) or more, got %d", maxRequests)
			}
			// The toolkit reads the web configuration whole, at start and
			// again per connection: a device or a FIFO would never end.
			if w := cfg.WebConfigFile; w != "" {
				if st, err := os.Stat(w); err == nil && !st.Mode().IsRegular() {
					return usageError("--web.config.file %s: not a regular file", w)
				} else if err == nil && st.Size() > 1<<20 {
					return usageError("--web.config.file %s: larger than 1 MiB: not a web configuration", w)
				}
			}
			bi := buildFields()
			reg := exporter.Registry(bi.version, bi.revision, bi.goVersion)
			var exps []*exporter.Exporter
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if twinFile != "" {
				if !(speed > 0) || math.IsInf(speed, 0) {
					return usageError("--speed: expected a positive ratio of simulated to wall-clock time, got %g", speed)
				}
				if tick <= 0 {
					return usageError("--twin.step: expected a positive duration such as 100ms, got %v", tick)
				}
				var err error
				if exps, err = serveTwin(ctx, reg, twinFile, speed, tick, pick, logger); err != nil {
					return err
				}
			} else {
				host, closeHost, err := realHost(sysfs, ethtoolDir, qosDir, netlink, logger)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				defer closeHost()
				exps = append(exps, exporter.New(func() exporter.Host { return host }, pick(), logger))
			}
			logger.Info("serving", "listen", cfg.ListenAddresses, "web_config", cfg.WebConfigFile, "max_requests", maxRequests)
			if err := exporter.Serve(ctx, exporter.NewHandler(exps, reg, maxRequests, logger), cfg, logger); err != nil {
				return &exitError{code: 2, err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&cfg.ListenAddresses, "web.listen-address", []string{":9879"}, "addresses to listen on (repeatable)")
	f.StringVar(&cfg.WebConfigFile, "web.config.file", "", "exporter-toolkit web configuration file (TLS, basic auth)")
	f.BoolVar(&cfg.SystemdSocket, "web.systemd-socket", false, "serve on systemd-activated sockets instead of --web.listen-address")
	f.IntVar(&maxRequests, "web.max-requests", exporter.DefaultMaxRequests, "scrapes served at once; more are answered 503 (0: no limit)")
	f.StringVar(&sysfs, "path.sysfs", "/sys", "sysfs mount point")
	f.StringVar(&ethtoolDir, "path.ethtool-stats", "", "read ethtool -S text files <netdev>.txt from this directory instead of the ioctl (test and twin path)")
	f.StringVar(&qosDir, "path.mlnx-qos", "", "read mlnx_qos -i text files <netdev>.txt from this directory instead of dcbnl netlink (test and twin path)")
	f.StringVar(&exclude, "collector.ethtool.exclude", exporter.DefaultEthtoolExclude, "leave out ethtool statistics whose name matches this regular expression (as given: the per-ring counters)")
	f.BoolVar(&netlink, "collector.rdma.netlink", true, "read hw_counters over RDMA netlink (one message per port) where the kernel has it, else from sysfs; off with --path.ethtool-stats (a fixture tree)")
	f.DurationVar(&gidRefresh, "collector.rdma.gid-refresh", 30*time.Second, "reuse a port's GID table read cleanly for this long before reading its 255 entries again (0: every scrape)")
	f.DurationVar(&dcqcnRefresh, "collector.dcqcn.refresh", 30*time.Second, "reuse a netdev's DCQCN settings read cleanly for this long before reading them again (0: every scrape)")
	f.StringVar(&twinFile, "twin", "", "serve the twin's simulated hosts of this scenario instead of the real host")
	f.Float64Var(&speed, "speed", 0.001, "with --twin: simulated seconds per wall-clock second")
	f.DurationVar(&tick, "twin.step", 100*time.Millisecond, "with --twin: wall-clock time between twin advances")
	f.StringVar(&logLevel, "log.level", "info", "alias of --log-level, as Prometheus exporters spell it")
	_ = f.MarkHidden("log.level")
	for _, c := range exporter.Collectors(exporter.Options{}) {
		n := c.Name()
		enabled[n] = f.Bool("collector."+n, true, "enable the "+n+" collector")
		disabled[n] = f.Bool("no-collector."+n, false, "disable the "+n+" collector")
	}
	return cmd
}

// realHost is the host the exporter runs on, or the fixture directories.
func realHost(sysfs, ethtoolDir, qosDir string, netlink bool, logger *slog.Logger) (exporter.Host, func(), error) {
	if st, err := os.Stat(sysfs); err != nil || !st.IsDir() {
		return exporter.Host{}, nil, fmt.Errorf("--path.sysfs %s: not a directory", sysfs)
	}
	h := exporter.Host{Sys: exporter.Dir(sysfs), QoS: exporter.DCBNetlink{}}
	var closers []func()
	closeHost := func() {
		for _, c := range closers {
			c()
		}
	}
	if netlink && ethtoolDir == "" {
		// hw_counters over netlink, one message per port, from the
		// running kernel: a host's own sysfs, not a fixture tree (which
		// comes with --path.ethtool-stats).
		if n, err := exporter.NewNetlinkRDMA(); err != nil {
			logger.Info("RDMA netlink unavailable; hw_counters are read from sysfs", "err", err)
		} else {
			h.RDMA = n
			closers = append(closers, n.Close)
		}
	}
	if ethtoolDir != "" {
		h.Ethtool = exporter.EthtoolDir{FS: exporter.Dir(ethtoolDir)}
	} else if io, err := exporter.NewEthtoolIoctl(); err != nil {
		logger.Warn("ethtool ioctl unavailable; every netdev will count an error", "err", err)
		h.Ethtool = exporter.UnavailableEthtool(err)
	} else {
		h.Ethtool = io
		closers = append(closers, io.Close)
	}
	if qosDir != "" {
		h.QoS = exporter.MlnxQoSDir{FS: exporter.Dir(qosDir)}
	}
	return h, closeHost, nil
}

// serveTwin returns one exporter per simulated host, labelled host=NAME,
// and advances the twin against the wall clock until ctx is done.
func serveTwin(ctx context.Context, reg *prometheus.Registry, file string, speed float64, tick time.Duration, pick func() []exporter.Collector, logger *slog.Logger) ([]*exporter.Exporter, error) {
	s, err := scenario.LoadFile(file)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	loop, err := twinfeed.NewLoop(s, 1/speed, twin.Config{Limits: twin.Limits{Memory: defaultMemoryLimit()}})
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	first, err := loop.At(0)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	var exps []*exporter.Exporter
	// A snapshot is the hosts at a simulated time and the wall-clock time
	// that simulated time stands for: samples are stamped with it, so
	// that rates stay exact when the twin lags the wall clock.
	type snapshot struct {
		hosts []twinfeed.Host
		at    time.Time
	}
	start := time.Now()
	var snap atomic.Pointer[snapshot]
	snap.Store(&snapshot{first, start})
	var simulated atomic.Int64
	for i := range first {
		host := func() exporter.Host {
			hs := snap.Load().hosts
			h, err := exporter.TreeHost(twinfeed.FS(&hs[i]))
			if err != nil {
				panic(err) // the tree always has the layout's directories
			}
			return h
		}
		exps = append(exps, exporter.New(host, pick(), logger).WithLabels("host", first[i].Name).WithTimestamp(func() time.Time { return snap.Load().at }))
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "rocelab_twin_simulated_seconds", Help: "Simulated time the twin has reached, across loops of the scenario.",
	}, func() float64 { return unit.Time(simulated.Load()).Seconds() }))
	logger.Info("twin", "scenario", s.Name, "hosts", len(first), "speed", speed, "loop_wall", time.Duration(float64(s.Duration.Seconds())/speed*float64(time.Second)).String())
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now := time.Now()
			target := unit.Time(now.Sub(start).Seconds() * speed * float64(unit.Second))
			hs, err := loop.At(target)
			if err != nil {
				logger.Error("twin stopped", "err", err)
				return
			}
			snap.Store(&snapshot{hs, now})
			simulated.Store(int64(target))
		}
	}()
	return exps, nil
}
