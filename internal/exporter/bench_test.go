package exporter

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"rocelab/internal/counters"
)

// benchHost writes a synthetic host of devs RDMA devices × ports ports,
// each port with 120 counters (60 hw_counters, 20 port counters, 40
// ethtool statistics), 4 GIDs in a 255-entry table, QoS and DCQCN state.
func benchFiles(devs, ports int) map[string]string {
	files := map[string]string{}
	w := func(name, content string) { files[name] = content }
	var hw, eth []string
	for _, d := range counters.Default().All() {
		switch {
		case d.Source == counters.HWCounters:
			hw = append(hw, d.Name)
		case d.Source == counters.Ethtool && d.Vendor == counters.MLX5:
			eth = append(eth, d.Of(3))
		}
	}
	for len(hw) < 60 {
		hw = append(hw, fmt.Sprintf("vendor_counter_%d", len(hw)))
	}
	for len(eth) < 40 {
		eth = append(eth, fmt.Sprintf("rx_vendor_stat_%d", len(eth)))
	}
	for d := 0; d < devs; d++ {
		for p := 1; p <= ports; p++ {
			dev, netdev := fmt.Sprintf("mlx5_%d", d), fmt.Sprintf("ens%dnp%d", d, p)
			port := fmt.Sprintf("%s/class/infiniband/%s/ports/%d/", TreeSys, dev, p)
			w(port+"state", "4: ACTIVE\n")
			w(port+"phys_state", "5: LinkUp\n")
			w(port+"rate", "400 Gb/sec (4X NDR)\n")
			w(port+"link_layer", "Ethernet\n")
			for i, n := range hw[:60] {
				w(port+"hw_counters/"+n, fmt.Sprintf("%d\n", 1000*i+d))
			}
			for i := 0; i < 20; i++ {
				w(port+fmt.Sprintf("counters/port_counter_%d", i), fmt.Sprintf("%d\n", 7*i))
			}
			for i := 0; i < 255; i++ { // a real table has 255 entries
				g := "0000:0000:0000:0000:0000:0000:0000:0000"
				if i < 4 {
					g = fmt.Sprintf("0000:0000:0000:0000:0000:ffff:0a00:%04x", d*ports+p)
					w(port+fmt.Sprintf("gid_attrs/types/%d", i), "RoCE v2\n")
					w(port+fmt.Sprintf("gid_attrs/ndevs/%d", i), netdev+"\n")
				}
				w(port+fmt.Sprintf("gids/%d", i), g+"\n")
			}
			net := TreeSys + "/class/net/" + netdev + "/"
			w(net+"operstate", "up\n")
			w(net+"carrier_changes", "2\n")
			w(net+"mtu", "9000\n")
			w(net+"speed", "400000\n")
			for _, role := range []string{"roce_np", "roce_rp"} {
				for prio := 0; prio < 8; prio++ {
					w(fmt.Sprintf("%secn/%s/enable/%d", net, role, prio), "1\n")
				}
			}
			text := "NIC statistics:\n"
			for i, n := range eth[:40] {
				text += fmt.Sprintf("     %s: %d\n", n, 100*i)
			}
			w(TreeEthtool+"/"+netdev+".txt", text)
			w(TreeQoS+"/"+netdev+".txt", "Priority trust state: dscp\nPFC configuration:\n        priority    0   1   2   3   4   5   6   7\n        enabled     0   0   0   1   0   0   0   0\n")
		}
	}
	return files
}

// diskHost writes files into a temporary directory and reads them back
// through Dir, as from a real sysfs mount.
func diskHost(b *testing.B, files map[string]string) Host {
	dir := b.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	h, err := TreeHost(Dir(dir))
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// memHost serves files from memory: the exporter's own cost, without the
// system calls.
func memHost(b *testing.B, files map[string]string) Host {
	m := fstest.MapFS{}
	for name, content := range files {
		m[name] = &fstest.MapFile{Data: []byte(content)}
	}
	// Index directories once: MapFS lists a directory by scanning every
	// file, which would dominate the measurement.
	idx := indexedFS{m, map[string][]fs.DirEntry{}}
	for name := range m {
		for d := path.Dir(name); ; d = path.Dir(d) {
			if _, ok := idx.dirs[d]; !ok {
				ents, err := fs.ReadDir(m, d)
				if err != nil {
					b.Fatal(err)
				}
				idx.dirs[d] = ents
			}
			if d == "." {
				break
			}
		}
	}
	h, err := TreeHost(idx)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

type indexedFS struct {
	fstest.MapFS
	dirs map[string][]fs.DirEntry
}

func (f indexedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if e, ok := f.dirs[name]; ok {
		return e, nil
	}
	return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
}

func (f indexedFS) Sub(dir string) (fs.FS, error) {
	sub := indexedFS{fstest.MapFS{}, map[string][]fs.DirEntry{}}
	for n, v := range f.MapFS {
		if r, ok := strings.CutPrefix(n, dir+"/"); ok {
			sub.MapFS[r] = v
		}
	}
	for n, v := range f.dirs {
		if n == dir {
			sub.dirs["."] = v
		} else if r, ok := strings.CutPrefix(n, dir+"/"); ok {
			sub.dirs[r] = v
		}
	}
	return sub, nil
}

// BenchmarkScrape measures one scrape as served (the handler's direct text
// exposition) of 8 devices × 2 ports × 120 counters, read from files on disk
// (sys/) and from ethtool and mlnx_qos text, with the hw_counters of each
// port from one netlink reply (a canned RDMA_NLDEV_CMD_STAT_GET answer,
// parsed as the kernel's would be: this kernel has no RDMA netlink, so the
// two system calls of each round trip are not in the figure). GID tables
// and DCQCN settings are reused for 30 s, as by default: the steady state.
func BenchmarkScrape(b *testing.B) {
	h := diskHost(b, benchFiles(8, 2))
	h.RDMA = cannedNetlink(benchFiles(8, 2))
	benchHandler(b, h, 30*time.Second)
}

// BenchmarkScrapeSysfs is BenchmarkScrape reading hw_counters from sysfs,
// file by file: the fallback where the kernel has no RDMA netlink.
func BenchmarkScrapeSysfs(b *testing.B) {
	benchHandler(b, diskHost(b, benchFiles(8, 2)), 30*time.Second)
}

// BenchmarkScrapeNoReuse is BenchmarkScrape reading every GID table entry
// (255 per port) and every DCQCN setting at each scrape.
func BenchmarkScrapeNoReuse(b *testing.B) {
	h := diskHost(b, benchFiles(8, 2))
	h.RDMA = cannedNetlink(benchFiles(8, 2))
	benchHandler(b, h, 0)
}

// BenchmarkScrapeInMemory is BenchmarkScrape with the files in memory: the
// exporter's own cost (parsing, mapping, exposition), without system calls.
func BenchmarkScrapeInMemory(b *testing.B) {
	h := memHost(b, benchFiles(8, 2))
	h.RDMA = cannedNetlink(benchFiles(8, 2))
	benchHandler(b, h, 30*time.Second)
}

// BenchmarkScrapeRegistry is BenchmarkScrapeSysfs gathered through a
// client_golang registry (const metrics, protobuf structures, the text
// encoder), as the exporter served before: what the direct exposition
// saves.
func BenchmarkScrapeRegistry(b *testing.B) {
	h := diskHost(b, benchFiles(8, 2))
	reg := prometheus.NewRegistry()
	reg.MustRegister(New(func() Host { return h }, Collectors(Options{EthtoolExclude: regexp.MustCompile(DefaultEthtoolExclude), GIDRefresh: 30 * time.Second, DCQCNRefresh: 30 * time.Second}), nil))
	benchLoop(b, func() int {
		mfs, err := reg.Gather()
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				b.Fatal(err)
			}
		}
		return bytes.Count(buf.Bytes(), []byte("\n"))
	})
}

// BenchmarkSysfsRead is one open, read and close of a real sysfs file: the
// floor under a scrape's cost on this machine.
func BenchmarkSysfsRead(b *testing.B) {
	h := Host{Sys: Dir("/sys")}
	s := &Scrape{Host: h, e: New(nil, nil, nil), state: &scrapeState{}, disc: &discovery{}}
	if _, err := s.readFile("class/net/lo/mtu"); err != nil {
		b.Skip("no /sys/class/net/lo/mtu here")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.readFile("class/net/lo/mtu"); err != nil {
			b.Fatal(err)
		}
	}
}

// canned is a HWCounterSource answering each port with a netlink message
// built once, parsed at every call as the kernel's answer is.
type canned map[string][]byte

func cannedNetlink(files map[string]string) canned {
	c := canned{}
	names := map[string][]string{}
	vals := map[string]map[string]uint64{}
	for name, content := range files {
		dir, file := path.Split(name)
		if !strings.HasSuffix(dir, "/hw_counters/") {
			continue
		}
		parts := strings.Split(dir, "/") // sys class infiniband DEV ports P hw_counters
		key := parts[3] + "/" + parts[5]
		v, _ := ParseValue([]byte(content))
		names[key] = append(names[key], file)
		if vals[key] == nil {
			vals[key] = map[string]uint64{}
		}
		vals[key][file] = v
	}
	for k, ns := range names {
		sort.Strings(ns)
		c[k] = statReply(1, vals[k], ns)
	}
	return c
}

func (c canned) HWCounters(device, port string, fn func(name []byte, value uint64)) error {
	msg, ok := c[device+"/"+port]
	if !ok {
		return ErrUnsupported
	}
	_, err := parseStatReply(msg, 1, fn)
	return err
}

func benchHandler(b *testing.B, h Host, reuse time.Duration) {
	e := New(func() Host { return h }, Collectors(Options{EthtoolExclude: regexp.MustCompile(DefaultEthtoolExclude), GIDRefresh: reuse, DCQCNRefresh: reuse}), nil)
	hd := NewHandler([]*Exporter{e}, nil, DefaultMaxRequests, nil)
	req := httptest.NewRequest("GET", "/metrics", nil)
	w := &discardWriter{h: http.Header{}}
	benchLoop(b, func() int {
		w.n = 0
		hd.ServeHTTP(w, req)
		return bytes.Count(hd.out.Bytes(), []byte("\n"))
	})
}

// discardWriter is a ResponseWriter that counts what it is given.
type discardWriter struct {
	h http.Header
	n int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// benchLoop runs scrape b.N times and reports, beside ns/op and the
// allocations, the CPU time per scrape (on a machine shared with other
// work, wall time includes waiting for a core), the median and 99th
// percentile of the wall time per scrape, and the exposition's lines.
func benchLoop(b *testing.B, scrape func() int) {
	lines := scrape() // warm: caches, buffers, the first GID read
	b.ReportAllocs()
	b.ResetTimer()
	var wall []time.Duration
	before := cpuTime()
	for b.Loop() {
		t0 := time.Now()
		scrape()
		wall = append(wall, time.Since(t0))
	}
	b.ReportMetric(float64(cpuTime()-before)/1e6/float64(b.N), "cpu-ms/op")
	sort.Slice(wall, func(i, j int) bool { return wall[i] < wall[j] })
	b.ReportMetric(float64(wall[len(wall)/2].Microseconds())/1e3, "p50-ms")
	b.ReportMetric(float64(wall[len(wall)*99/100].Microseconds())/1e3, "p99-ms")
	b.ReportMetric(float64(lines), "lines")
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
