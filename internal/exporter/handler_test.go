package exporter

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// samples flattens metric families into "name{k=v,...} value" lines,
// sorted, leaving out the scrape durations (wall time).
func samples(mfs map[string]*dto.MetricFamily) []string {
	var out []string
	for name, mf := range mfs {
		if name == "rocelab_exporter_scrape_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var l []string
			for _, lp := range m.GetLabel() {
				l = append(l, lp.GetName()+"="+lp.GetValue())
			}
			sort.Strings(l)
			v := m.GetUntyped().GetValue() + m.GetCounter().GetValue() + m.GetGauge().GetValue()
			out = append(out, name+"{"+strings.Join(l, ",")+"} "+mf.GetType().String()+" "+strings.TrimSpace(string(appendFloat(nil, v))))
		}
	}
	sort.Strings(out)
	return out
}

func scrapeHandler(t testing.TB, h http.Handler, header http.Header) (*http.Response, []byte) {
	req := httptest.NewRequest("GET", "/metrics", nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// TestTextMatchesRegistry: the handler's direct exposition of the fixture
// host holds exactly the samples, types and help a registry gathers from
// the same exporter; it passes the Prometheus text parser; and the twin's
// constant host label lands on every sample.
func TestTextMatchesRegistry(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(fixtureExporter(t))
	gathered, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*dto.MetricFamily{}
	for _, mf := range gathered {
		want[mf.GetName()] = mf
	}
	res, body := scrapeHandler(t, NewHandler([]*Exporter{fixtureExporter(t)}, nil, 0, nil), nil)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	got, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("exposition does not parse: %v", err)
	}
	g, w := samples(got), samples(want)
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("text path and registry differ:\ntext:\n%s\nregistry:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	for name, mf := range want {
		if got[name].GetHelp() != mf.GetHelp() {
			t.Errorf("%s: help %q, registry %q", name, got[name].GetHelp(), mf.GetHelp())
		}
	}
	// Constant labels.
	_, body = scrapeHandler(t, NewHandler([]*Exporter{fixtureExporter(t).WithLabels("host", `h"0`)}, nil, 0, nil), nil)
	got, err = p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	for name, mf := range got {
		for _, m := range mf.GetMetric() {
			host := 0
			for _, l := range m.GetLabel() {
				if l.GetName() == "host" && l.GetValue() == `h"0` {
					host++
				}
			}
			if host != 1 {
				t.Fatalf("%s: labels %v", name, m.GetLabel())
			}
		}
	}
	// Labels are written in name order, as a registry writes them.
	if !strings.Contains(string(body), `rocelab_rdma_port_state{device="mlx5_0",host="h\"0",port="1"} 4`) {
		t.Errorf("labels not in name order:\n%s", body)
	}
}

// TestHandlerExtras: the Go and process collectors and rocelab_build_info
// are served beside the exporter's families, and gzip is honoured.
func TestHandlerExtras(t *testing.T) {
	h := NewHandler([]*Exporter{fixtureExporter(t)}, Registry("v1.2.3", "abc123", "go1.26"), DefaultMaxRequests, nil)
	res, zipped := scrapeHandler(t, h, http.Header{"Accept-Encoding": {"gzip, deflate"}})
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("not gzipped: %v", res.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Contains(unzipped, []byte("\nrocelab_rdma_out_of_sequence_total{")) {
		t.Fatalf("gzip body: %v", err)
	}
	_, body := scrapeHandler(t, h, nil)
	for _, want := range []string{"\ngo_goroutines ", "\ngo_memstats_alloc_bytes ", "\nprocess_cpu_seconds_total ", "\nprocess_resident_memory_bytes ",
		`rocelab_build_info{goversion="go1.26",revision="abc123",version="v1.2.3"} 1`, "\nrocelab_rdma_out_of_sequence_total{"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("no %q in the exposition", want)
		}
	}
}

// blocking is a collector that waits until released.
type blocking struct {
	started chan struct{}
	release chan struct{}
}

func (b *blocking) Name() string                     { return "blocking" }
func (b *blocking) Describe(chan<- *prometheus.Desc) {}
func (b *blocking) Collect(*Scrape) {
	b.started <- struct{}{}
	<-b.release
}

// TestMaxRequests: with --web.max-requests 2, two scrapes in flight make a
// third answer 503 at once; when they finish, scrapes succeed again.
func TestMaxRequests(t *testing.T) {
	b := &blocking{started: make(chan struct{}, 4), release: make(chan struct{})}
	h := NewHandler([]*Exporter{New(func() Host { return Host{} }, []Collector{b}, nil)}, nil, 2, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Get(srv.URL)
			if err == nil {
				codes <- res.StatusCode
				res.Body.Close()
			}
		}()
	}
	<-b.started // the first holds the scrape; the second waits for it
	deadline := time.Now().Add(10 * time.Second)
	for len(h.sem) < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "max-requests") {
		t.Errorf("third scrape: %d %q, want 503", res.StatusCode, body)
	}
	close(b.release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("a scrape within the limit got %d", c)
		}
	}
	if res, err := http.Get(srv.URL); err != nil || res.StatusCode != 200 {
		t.Errorf("after the others: %v %v", res, err)
	}
}

// TestFIFOSkipped: a FIFO in hw_counters/ (or in place of an attribute)
// neither hangs a scrape nor is exported; the port's other counters are.
func TestFIFOSkipped(t *testing.T) {
	dir := t.TempDir()
	port := filepath.Join(dir, "sys/class/infiniband/mlx5_0/ports/1")
	for name, content := range map[string]string{
		"state": "4: ACTIVE\n", "phys_state": "5: LinkUp\n", "rate": "100 Gb/sec (4X EDR)\n", "link_layer": "Ethernet\n",
		"hw_counters/np_cnp_sent": "7\n", "counters/port_xmit_data": "100\n",
	} {
		p := filepath.Join(port, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, fifo := range []string{"hw_counters/rp_cnp_handled", "counters/port_rcv_data", "gids/0"} {
		p := filepath.Join(port, fifo)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	for _, d := range []string{"ethtool-stats", "mlnx_qos"} {
		_ = os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	h, err := TreeHost(Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	e := New(func() Host { return h }, Collectors(Options{}), nil)
	done := make(chan []byte, 1)
	go func() {
		_, body := scrapeHandler(t, NewHandler([]*Exporter{e}, nil, 0, nil), nil)
		done <- body
	}()
	var body []byte
	select {
	case body = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the scrape hangs on a FIFO")
	}
	text := string(body)
	if !strings.Contains(text, `rocelab_rdma_cnp_sent_total{device="mlx5_0",port="1"} 7`) || !strings.Contains(text, "rocelab_rdma_port_data_bytes_total{") {
		t.Errorf("the regular counters are missing:\n%s", text)
	}
	if regexp.MustCompile(`cnp_handled|direction="rx"`).MatchString(text) {
		t.Errorf("a FIFO was exported:\n%s", text)
	}
}

// TestTimestamp: a stamped exporter (the twin's) writes the time its state
// is of on every sample of the host, and none on its own scrape metrics.
func TestTimestamp(t *testing.T) {
	at := time.UnixMilli(1700000000123)
	_, body := scrapeHandler(t, NewHandler([]*Exporter{fixtureExporter(t).WithTimestamp(func() time.Time { return at })}, nil, 0, nil), nil)
	host, self := 0, 0
	for _, l := range strings.Split(string(body), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		stamped := strings.HasSuffix(l, " 1700000000123")
		if strings.HasPrefix(l, "rocelab_exporter_") {
			self++
			if stamped {
				t.Errorf("self metric stamped: %s", l)
			}
			continue
		}
		host++
		if !stamped {
			t.Errorf("host sample without the stamp: %s", l)
		}
	}
	if host < 100 || self < 5 {
		t.Errorf("%d host samples, %d self", host, self)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	if _, err := p.TextToMetricFamilies(strings.NewReader(string(body))); err != nil {
		t.Errorf("stamped exposition does not parse: %v", err)
	}
}

// TestNoRDMAIsNotBroken: a host without /sys/class/infiniband (no RDMA
// driver loaded) exports nothing and reports no failure, so no alert
// fires on it forever.
func TestNoRDMAIsNotBroken(t *testing.T) {
	h := Host{Sys: fstestMap("class/net/lo/mtu", "65536\n")}
	_, body := scrapeHandler(t, NewHandler([]*Exporter{New(func() Host { return h }, Collectors(Options{}), nil)}, nil, 0, nil), nil)
	if strings.Contains(string(body), "scrape_success{collector=\"rdma\"} 0") || strings.Contains(string(body), "\nrocelab_exporter_collector_errors_total{") {
		t.Errorf("a host without RDMA devices reports a failure:\n%s", body)
	}
}

func fstestMap(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
	}
	return m
}
