package exporter

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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

// BenchmarkScrape measures one scrape (every collector, gathered through a
// registry) of 8 devices × 2 ports × 120 counters, read from files on disk
// (sys/) and from ethtool and mlnx_qos text.
// GID tables and DCQCN settings are reused for 30 s, as by default, so
// this is the steady state; BenchmarkScrapeNoReuse reads them at every
// scrape, as a scrape does every 30 s.
func BenchmarkScrape(b *testing.B) {
	benchScrape(b, diskHost(b, benchFiles(8, 2)), 30*time.Second)
}

// BenchmarkScrapeNoReuse is BenchmarkScrape reading every GID table entry
// (255 per port) and every DCQCN setting at each scrape.
func BenchmarkScrapeNoReuse(b *testing.B) {
	benchScrape(b, diskHost(b, benchFiles(8, 2)), 0)
}

// BenchmarkScrapeInMemory is the same scrape with the files in memory: the
// exporter's own cost (parsing, mapping, exposition), without system calls.
func BenchmarkScrapeInMemory(b *testing.B) {
	benchScrape(b, memHost(b, benchFiles(8, 2)), 30*time.Second)
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

func benchScrape(b *testing.B, h Host, reuse time.Duration) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(New(func() Host { return h }, Collectors(Options{EthtoolExclude: regexp.MustCompile(DefaultEthtoolExclude), GIDRefresh: reuse, DCQCNRefresh: reuse}), nil))
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, mf := range mfs {
		n += len(mf.Metric)
	}
	b.ReportAllocs()
	b.ResetTimer()
	before := cpuTime()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time (user + system) per scrape: on a machine shared with other
	// work, wall time per scrape (ns/op) includes waiting for a core.
	b.ReportMetric(float64(cpuTime()-before)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(n), "series")
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
