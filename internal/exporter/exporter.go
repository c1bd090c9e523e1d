// Package exporter is rocelab's Prometheus exporter for RoCE hosts: a set of
// isolated collectors that read the RDMA devices under
// /sys/class/infiniband, the ethtool statistics and sysfs attributes of the
// netdevs behind them, their QoS state (trust mode, PFC, DSCP map), their
// DCQCN settings, the bonds they form and the GPUDirect RDMA modules.
//
// Every collector is isolated per device and per file: a file that fails
// to read increments rocelab_exporter_collector_errors_total{collector,
// device,reason} and is skipped, and everything else is still exported.
// The exporter only reads: it never writes to sysfs and never runs a
// command.
//
// A Host says where the collectors read, so that a real host (the sysfs
// mount and the ethtool ioctl), a fixture tree, or a simulated host of the
// twin are read by the same code.
package exporter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// A Host is what the collectors read.
type Host struct {
	// Sys is the sysfs tree: what is mounted at /sys.
	Sys fs.FS
	// Ethtool gives the ethtool statistics of a netdev.
	Ethtool EthtoolSource
	// QoS gives the QoS state of a netdev.
	QoS QoSSource
	// RDMA gives a port's hw_counters in one call (netlink); nil reads
	// the files under hw_counters/.
	RDMA HWCounterSource
}

// A HWCounterSource reads all hw_counters of an RDMA port at once.
type HWCounterSource interface {
	// HWCounters calls fn with each counter of port (sysfs numbering)
	// of device. name is valid only during the call. An error wrapping
	// ErrUnsupported means this source cannot read the port; any error
	// sends the port to the sysfs files instead.
	HWCounters(device, port string, fn func(name []byte, value uint64)) error
}

// A Stat is one named statistic.
type Stat struct {
	Name  string
	Value uint64
}

// An EthtoolSource gives a netdev's ethtool statistics.
type EthtoolSource interface {
	// Stats returns the statistics of netdev. Names may repeat only if
	// the source says so with an error.
	Stats(netdev string) ([]Stat, error)
}

// A QoSSource gives a netdev's QoS state.
type QoSSource interface {
	// QoS returns the state of netdev; an error wrapping ErrUnsupported
	// means the netdev has no such state (no DCB support), not a fault.
	QoS(netdev string) (QoS, error)
}

// ErrUnsupported is wrapped by sources when a netdev does not provide the
// state asked for at all (a driver without DCB, a kernel without the mlx5
// ecn directory). Collectors export nothing for it and count no error.
var ErrUnsupported = errors.New("not supported by this netdev")

// A Collector reads one kind of state.
type Collector interface {
	// Name is the collector's flag name: --collector.<name>.
	Name() string
	// Describe sends the descriptors of every metric it may produce.
	Describe(ch chan<- *prometheus.Desc)
	// Collect reads the host and sends metrics through s.
	Collect(s *Scrape)
}

// Options tune the collectors.
type Options struct {
	// EthtoolExclude leaves out ethtool statistics whose name matches (nil:
	// keep all).
	EthtoolExclude *regexp.Regexp
	// GIDRefresh is how long a port's GID table read cleanly is reused
	// before it is read again (0: every scrape). A real table has 255
	// entries per port, more files than all the port's counters together.
	GIDRefresh time.Duration
	// DCQCNRefresh is the same for a netdev's DCQCN settings (some 35
	// files with MLNX_OFED).
	DCQCNRefresh time.Duration
}

// Collectors returns a fresh instance of every collector, in a fixed
// order.
func Collectors(o Options) []Collector {
	return []Collector{
		&rdmaCollector{gids: refresher[[]gid]{every: o.GIDRefresh}},
		NewEthtoolCollector(o.EthtoolExclude),
		&netdevCollector{},
		&qosCollector{},
		&dcqcnCollector{settings: refresher[[]dcqcnValue]{every: o.DCQCNRefresh}},
		&bondCollector{},
		&moduleCollector{},
	}
}

// Error reasons, the reason label of rocelab_exporter_collector_errors_total.
const (
	ReasonPermission = "permission" // the exporter lacks the privilege to read it
	ReasonMissing    = "missing"    // a file or directory that should exist does not
	ReasonRead       = "read"       // reading failed (I/O error, a directory where a file belongs)
	ReasonParse      = "parse"      // the content is not what the kernel writes
	ReasonDuplicate  = "duplicate"  // two statistics map to the same series
)

// reasonOf classifies a read error.
func reasonOf(err error) string {
	var ve *ValueError
	var pe *ParseError
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EPERM):
		return ReasonPermission
	case errors.Is(err, fs.ErrNotExist):
		return ReasonMissing
	case errors.As(err, &ve), errors.As(err, &pe):
		return ReasonParse
	}
	return ReasonRead
}

var (
	scrapeDuration  = selfMetric(newMetric("rocelab_exporter_scrape_duration_seconds", "Time one collector took to read the host.", prometheus.GaugeValue, "collector"))
	scrapeSuccess   = selfMetric(newMetric("rocelab_exporter_scrape_success", "1 when the collector read every device and file cleanly, 0 when anything failed (see rocelab_exporter_collector_errors_total).", prometheus.GaugeValue, "collector"))
	collectorErrors = selfMetric(newMetric("rocelab_exporter_collector_errors_total", "Devices or files a collector could not read and skipped, by reason (permission, missing, read, parse, duplicate).", prometheus.CounterValue, "collector", "device", "reason"))
)

func selfMetric(m *metric) *metric {
	m.self = true
	return m
}

// Exporter runs the enabled collectors on a host at each scrape. It is a
// prometheus.Collector (register it on a registry of your own), and
// Handler writes its exposition directly, without a registry's copies.
type Exporter struct {
	host       func() Host
	collectors []Collector
	logger     *slog.Logger
	// layout places the labels of the text exposition, constant labels
	// (the twin's host) among them; a registry adds its own instead.
	layout layout
	// stamp, when set, gives the time the host's state is of, written on
	// every sample of the host (the twin's snapshots lag the wall clock
	// when the machine is busy; stamped, rates stay exact).
	stamp func() time.Time
	ts    []byte

	mu      sync.Mutex
	errors  map[errKey]uint64
	bufs    [][]byte // one scratch buffer per reading goroutine
	dirbufs [][]byte // and one for directory entries
	// main and items are the text sinks of a scrape: items for the units
	// a collector reads in parallel, merged into main in order.
	main  textSink
	items []*textSink
}

type errKey struct{ collector, device, reason string }

// New returns an exporter running collectors on the host host returns at
// each scrape.
func New(host func() Host, collectors []Collector, logger *slog.Logger) *Exporter {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Exporter{host: host, collectors: collectors, logger: logger, layout: newLayout(), errors: map[errKey]uint64{}, bufs: make([][]byte, workers), dirbufs: make([][]byte, workers)}
}

// WithLabels gives every sample of the text exposition the constant labels
// name, value, ... (the twin's host="h0"); it returns e.
func (e *Exporter) WithLabels(pairs ...string) *Exporter {
	e.layout = newLayout(pairs...)
	return e
}

// WithTimestamp stamps the host's samples of the text exposition with the
// time stamp gives at each scrape; it returns e.
func (e *Exporter) WithTimestamp(stamp func() time.Time) *Exporter {
	e.stamp = stamp
	return e
}

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	ch <- scrapeDuration.desc()
	ch <- scrapeSuccess.desc()
	ch <- collectorErrors.desc()
	for _, c := range e.collectors {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector: it runs each collector in turn.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scrape(&Scrape{ch: ch})
}

// writeText runs a scrape and adds its samples to x.
func (e *Exporter) writeText(x *exposition) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ts = e.ts[:0]
	if e.stamp != nil {
		e.ts = strconv.AppendInt(append(e.ts, ' '), e.stamp().UnixMilli(), 10)
	}
	e.main.reset(e.layout, e.ts)
	e.scrape(&Scrape{sink: &e.main})
	x.add(&e.main)
}

// scrape runs every collector into s's sink or channel.
func (e *Exporter) scrape(s *Scrape) {
	s.Host, s.e, s.state, s.disc = e.host(), e, &scrapeState{}, &discovery{}
	for _, c := range e.collectors {
		s.state.collector = c.Name()
		s.state.failed = false
		start := time.Now()
		c.Collect(s)
		s.emit(scrapeDuration, time.Since(start).Seconds(), c.Name())
		ok := 1.0
		if s.state.failed {
			ok = 0
		}
		s.emit(scrapeSuccess, ok, c.Name())
	}
	keys := make([]errKey, 0, len(e.errors))
	for k := range e.errors {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.collector != b.collector {
			return a.collector < b.collector
		}
		if a.device != b.device {
			return a.device < b.device
		}
		return a.reason < b.reason
	})
	for _, k := range keys {
		s.emit(collectorErrors, float64(e.errors[k]), k.collector, k.device, k.reason)
	}
}

// Scrape is one collector's view of one scrape. A collector may read
// devices in parallel with Each; each goroutine then has its own Scrape.
type Scrape struct {
	// Host is what to read.
	Host Host

	ch     chan<- prometheus.Metric // the registry path
	sink   *textSink                // the text path
	e      *Exporter
	state  *scrapeState
	disc   *discovery
	worker int // index of this goroutine's scratch buffer
}

// scrapeState is shared by the goroutines of one collector's run.
type scrapeState struct {
	mu        sync.Mutex
	collector string
	failed    bool
}

// discovery is the host's RDMA ports, found once per scrape.
type discovery struct {
	done  bool
	ports []Port
	errs  []devError
}

// workers bounds the goroutines a collector reads devices with: sysfs
// reads are system calls that wait, so a few in flight hide their latency.
const workers = 4

// Each calls f(i) for i in [0, n) on up to workers goroutines, each with
// its own Scrape, and returns when all are done. The samples of each i are
// kept in the order of i, whichever goroutine read it.
func (s *Scrape) Each(n int, f func(s *Scrape, i int)) {
	if n <= 1 {
		for i := 0; i < n; i++ {
			f(s, i)
		}
		return
	}
	if s.sink != nil {
		for len(s.e.items) < n {
			s.e.items = append(s.e.items, &textSink{})
		}
		for i := 0; i < n; i++ {
			s.e.items[i].reset(s.sink.layout, s.sink.ts)
		}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers && w < n; w++ {
		ws := *s
		ws.worker = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				is := ws
				if s.sink != nil {
					is.sink = s.e.items[i]
				}
				f(&is, i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if s.sink != nil {
		for _, it := range s.e.items[:n] {
			s.sink.merge(it)
		}
	}
}

// Fail records that device (an RDMA device or netdev; "" for the host as a
// whole) could not be read, and why. The collector then skips that file
// or device and goes on.
func (s *Scrape) Fail(device string, err error) {
	reason := reasonOf(err)
	s.state.mu.Lock()
	s.state.failed = true
	k := errKey{s.state.collector, device, reason}
	s.e.errors[k]++
	first := s.e.errors[k] == 1
	s.state.mu.Unlock()
	// The first failure of a kind is a warning; its repeats at every
	// scrape are counted and logged at debug level only.
	level := slog.LevelDebug
	if first {
		level = slog.LevelWarn
	}
	s.e.logger.Log(context.Background(), level, "skipped", "collector", k.collector, "device", device, "reason", reason, "err", err)
}

// emit sends one sample of m with the given label values.
func (s *Scrape) emit(m *metric, v float64, labels ...string) {
	if s.sink != nil {
		s.sink.sample(m, v, labels)
		return
	}
	s.ch <- prometheus.MustNewConstMetric(m.desc(), m.typ, v, slices.Clone(labels)...)
}

// readFile reads a small regular file into the exporter's scratch buffer;
// the result is valid until the next call. Anything but a regular file (a
// FIFO, a device, a directory) is refused without being opened for
// reading, so that a stray FIFO cannot hang a scrape.
func (s *Scrape) readFile(name string) ([]byte, error) {
	if r, ok := s.Host.Sys.(rawDir); ok {
		b, err := r.readInto(name, s.e.bufs[s.worker])
		if err == nil {
			s.e.bufs[s.worker] = b
		}
		return b, err
	}
	f, err := openRegular(s.Host.Sys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := s.e.bufs[s.worker][:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			s.e.bufs[s.worker] = buf
			if errors.Is(err, io.EOF) {
				return buf, nil
			}
			return nil, err
		}
		if len(buf) > maxFileSize {
			return nil, fmt.Errorf("%s: %w", name, errTooLarge)
		}
	}
}

// openRegular opens name in fsys if it is a regular file, and refuses
// anything else (a FIFO would block the open) without opening it.
func openRegular(fsys fs.FS, name string) (fs.File, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	return fsys.Open(name)
}

// maxFileSize bounds what readFile accepts: sysfs attributes are at most a
// page.
const maxFileSize = 64 << 10

var (
	errTooLarge   = errors.New("larger than 64 KiB, not a sysfs attribute")
	errNotRegular = errors.New("not a regular file (a sysfs attribute is one)")
)

// MetricNames returns the name of every metric the exporter can export,
// sorted: what dashboards and rules may name.
func MetricNames() []string { return metricNames() }
