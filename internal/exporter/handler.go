package exporter

import (
	"bytes"
	"compress/gzip"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// DefaultMaxRequests is how many scrapes may run at once by default, as
// node_exporter's --web.max-requests.
const DefaultMaxRequests = 40

// Handler serves /metrics: the exporters' samples written straight into
// the text exposition (no registry copies them into protobuf structures
// and back), then whatever reg gathers (the Go and process collectors,
// rocelab_build_info, the twin's clock), in the text format of Prometheus
// 0.0.4, gzipped when the client accepts it. Past maxRequests scrapes in
// flight it answers 503, as promhttp does. Scrapes run one at a time and
// reuse their buffers.
type Handler struct {
	exps   []*Exporter
	reg    prometheus.Gatherer
	sem    chan struct{}
	logger *slog.Logger

	mu  sync.Mutex
	x   exposition
	out bytes.Buffer
	gz  *gzip.Writer
}

// NewHandler returns the /metrics handler of exps and reg. maxRequests ≤ 0
// means no limit.
func NewHandler(exps []*Exporter, reg prometheus.Gatherer, maxRequests int, logger *slog.Logger) *Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{exps: exps, reg: reg, logger: logger}
	if maxRequests > 0 {
		h.sem = make(chan struct{}, maxRequests)
	}
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.sem != nil {
		select {
		case h.sem <- struct{}{}:
			defer func() { <-h.sem }()
		default:
			http.Error(w, "Limit of concurrent requests reached (--web.max-requests), try again later.", http.StatusServiceUnavailable)
			return
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Context().Err() != nil {
		return // the client gave up while an earlier scrape ran: do not read the host for nobody
	}
	h.out.Reset()
	if err := h.write(&h.out); err != nil {
		h.logger.Error("writing metrics", "err", err)
		http.Error(w, "An error has occurred while writing metrics: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	body := h.out.Bytes()
	if acceptsGzip(r) {
		w.Header().Set("Content-Encoding", "gzip")
		if h.gz == nil {
			h.gz, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		} else {
			h.gz.Reset(w)
		}
		_, err := h.gz.Write(body)
		if cerr := h.gz.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			h.logger.Debug("writing the response", "err", err)
		}
		return
	}
	_, _ = w.Write(body)
}

// write writes one scrape of every exporter and what reg gathers.
func (h *Handler) write(w *bytes.Buffer) error {
	for _, e := range h.exps {
		e.writeText(&h.x)
	}
	if err := h.x.writeTo(w); err != nil {
		return err
	}
	if h.reg == nil {
		return nil
	}
	mfs, err := h.reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if enc, _, _ := strings.Cut(strings.TrimSpace(part), ";"); enc == "gzip" {
			return true
		}
	}
	return false
}
