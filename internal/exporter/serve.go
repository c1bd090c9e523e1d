package exporter

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/exporter-toolkit/web"
)

// ServeConfig says where and how to serve.
type ServeConfig struct {
	// ListenAddresses are the --web.listen-address values.
	ListenAddresses []string
	// SystemdSocket serves on systemd-activated sockets instead.
	SystemdSocket bool
	// WebConfigFile is the exporter-toolkit web configuration (TLS, basic
	// auth), "" for plain HTTP.
	WebConfigFile string
	// Version is shown on the landing page.
	Version string
}

// Serve serves metrics (a Handler) at /metrics and a landing page at /,
// until ctx is done. TLS and basic auth come from the web configuration
// file, in the format every Prometheus exporter reads.
func Serve(ctx context.Context, metrics http.Handler, cfg ServeConfig, logger *slog.Logger) error {
	if cfg.WebConfigFile != "" {
		if err := web.Validate(cfg.WebConfigFile); err != nil {
			return err
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics)
	landing, err := web.NewLandingPage(web.LandingConfig{
		Name:        "rocelab exporter",
		Description: "Prometheus exporter for RoCE hosts: RDMA hw_counters and port counters, ethtool PFC and discard counters, QoS and DCQCN state",
		Version:     cfg.Version,
		Links:       []web.LandingLinks{{Address: "/metrics", Text: "Metrics"}},
	})
	if err != nil {
		return err
	}
	mux.Handle("/", landing)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		case <-done:
		}
	}()
	defer close(done)
	flags := &web.FlagConfig{WebListenAddresses: &cfg.ListenAddresses, WebSystemdSocket: &cfg.SystemdSocket, WebConfigFile: &cfg.WebConfigFile}
	err = web.ListenAndServe(srv, flags, logger)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Registry returns a registry with what every rocelab exporter exports
// beside its collectors: client_golang's Go and process collectors and
// rocelab_build_info.
func Registry(version, revision, goVersion string) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "rocelab_build_info",
		Help:        "The rocelab binary: its version, VCS revision and Go version; always 1.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": goVersion},
	}, func() float64 { return 1 }))
	return reg
}
