package exporter

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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

// Serve serves /metrics from reg and a landing page at /, until ctx is
// done. TLS and basic auth come from the web configuration file, in the
// format every Prometheus exporter reads.
func Serve(ctx context.Context, reg *prometheus.Registry, cfg ServeConfig, logger *slog.Logger) error {
	if cfg.WebConfigFile != "" {
		if err := web.Validate(cfg.WebConfigFile); err != nil {
			return err
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      reg,
	}))
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
