package main

import (
	"context"
	"fmt"
	"log/slog"
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
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return usageError("--log.level: expected debug, info, warn or error, got %q", logLevel)
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
			reg := prometheus.NewRegistry()
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if twinFile != "" {
				if speed <= 0 {
					return usageError("--speed: expected a positive ratio of simulated to wall-clock time, got %g", speed)
				}
				if err := serveTwin(ctx, reg, twinFile, speed, tick, pick, logger); err != nil {
					return err
				}
			} else {
				host, closeHost, err := realHost(sysfs, ethtoolDir, qosDir, logger)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				defer closeHost()
				reg.MustRegister(exporter.New(func() exporter.Host { return host }, pick(), logger))
			}
			logger.Info("serving", "listen", cfg.ListenAddresses, "web_config", cfg.WebConfigFile)
			if err := exporter.Serve(ctx, reg, cfg, logger); err != nil {
				return &exitError{code: 2, err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&cfg.ListenAddresses, "web.listen-address", []string{":9879"}, "addresses to listen on (repeatable)")
	f.StringVar(&cfg.WebConfigFile, "web.config.file", "", "exporter-toolkit web configuration file (TLS, basic auth)")
	f.BoolVar(&cfg.SystemdSocket, "web.systemd-socket", false, "serve on systemd-activated sockets instead of --web.listen-address")
	f.StringVar(&sysfs, "path.sysfs", "/sys", "sysfs mount point")
	f.StringVar(&ethtoolDir, "path.ethtool-stats", "", "read ethtool -S text files <netdev>.txt from this directory instead of the ioctl (test and twin path)")
	f.StringVar(&qosDir, "path.mlnx-qos", "", "read mlnx_qos -i text files <netdev>.txt from this directory instead of dcbnl netlink (test and twin path)")
	f.StringVar(&exclude, "collector.ethtool.exclude", exporter.DefaultEthtoolExclude, "leave out ethtool statistics whose name matches this regular expression (default: per-ring counters)")
	f.DurationVar(&gidRefresh, "collector.rdma.gid-refresh", 30*time.Second, "reuse a port's GID table read cleanly for this long before reading its 255 entries again (0: every scrape)")
	f.DurationVar(&dcqcnRefresh, "collector.dcqcn.refresh", 30*time.Second, "reuse a netdev's DCQCN settings read cleanly for this long before reading them again (0: every scrape)")
	f.StringVar(&twinFile, "twin", "", "serve the twin's simulated hosts of this scenario instead of the real host")
	f.Float64Var(&speed, "speed", 0.001, "with --twin: simulated seconds per wall-clock second")
	f.DurationVar(&tick, "twin.step", 100*time.Millisecond, "with --twin: wall-clock time between twin advances")
	f.StringVar(&logLevel, "log.level", "info", "log level: debug, info, warn, error")
	for _, c := range exporter.Collectors(exporter.Options{}) {
		n := c.Name()
		enabled[n] = f.Bool("collector."+n, true, "enable the "+n+" collector")
		disabled[n] = f.Bool("no-collector."+n, false, "disable the "+n+" collector")
	}
	return cmd
}

// realHost is the host the exporter runs on, or the fixture directories.
func realHost(sysfs, ethtoolDir, qosDir string, logger *slog.Logger) (exporter.Host, func(), error) {
	if st, err := os.Stat(sysfs); err != nil || !st.IsDir() {
		return exporter.Host{}, nil, fmt.Errorf("--path.sysfs %s: not a directory", sysfs)
	}
	h := exporter.Host{Sys: os.DirFS(sysfs), QoS: exporter.DCBNetlink{}}
	closeHost := func() {}
	if ethtoolDir != "" {
		h.Ethtool = exporter.EthtoolDir{FS: os.DirFS(ethtoolDir)}
	} else if io, err := exporter.NewEthtoolIoctl(); err != nil {
		logger.Warn("ethtool ioctl unavailable; every netdev will count an error", "err", err)
		h.Ethtool = exporter.UnavailableEthtool(err)
	} else {
		h.Ethtool = io
		closeHost = io.Close
	}
	if qosDir != "" {
		h.QoS = exporter.MlnxQoSDir{FS: os.DirFS(qosDir)}
	}
	return h, closeHost, nil
}

// serveTwin registers one exporter per simulated host, labelled host=NAME,
// and advances the twin against the wall clock until ctx is done.
func serveTwin(ctx context.Context, reg *prometheus.Registry, file string, speed float64, tick time.Duration, pick func() []exporter.Collector, logger *slog.Logger) error {
	s, err := scenario.LoadFile(file)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	loop, err := twinfeed.NewLoop(s, 1/speed, twin.Config{Limits: twin.Limits{Memory: defaultMemoryLimit()}})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	first, err := loop.At(0)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	var snap atomic.Pointer[[]twinfeed.Host]
	snap.Store(&first)
	var simulated atomic.Int64
	for i := range first {
		host := func() exporter.Host {
			hs := *snap.Load()
			h, err := exporter.TreeHost(twinfeed.FS(&hs[i]))
			if err != nil {
				panic(err) // the tree always has the layout's directories
			}
			return h
		}
		prometheus.WrapRegistererWith(prometheus.Labels{"host": first[i].Name}, reg).MustRegister(exporter.New(host, pick(), logger))
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "rocelab_twin_simulated_seconds", Help: "Simulated time the twin has reached, across loops of the scenario.",
	}, func() float64 { return unit.Time(simulated.Load()).Seconds() }))
	logger.Info("twin", "scenario", s.Name, "hosts", len(first), "speed", speed, "loop_wall", time.Duration(float64(s.Duration.Seconds())/speed*float64(time.Second)).String())
	start := time.Now()
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			target := unit.Time(time.Since(start).Seconds() * speed * float64(unit.Second))
			hs, err := loop.At(target)
			if err != nil {
				logger.Error("twin stopped", "err", err)
				return
			}
			snap.Store(&hs)
			simulated.Store(int64(target))
		}
	}()
	return nil
}
