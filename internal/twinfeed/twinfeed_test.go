package twinfeed

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"rocelab/internal/exporter"
	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

func load(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.LoadFile(filepath.Join("../../examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func counter(hosts []Host, host, name string) (int64, bool) {
	for _, h := range hosts {
		if h.Name != host {
			continue
		}
		for _, d := range h.Devices {
			for _, cs := range [][]Counter{d.Ethtool, d.HWCounters, d.PortCounters} {
				for _, c := range cs {
					if c.Name == name {
						return c.Value, true
					}
				}
			}
		}
	}
	return 0, false
}

// TestAdvanceMatchesRun: advancing in steps and snapshotting reaches the
// same counters as one uninterrupted run (observation does not change the
// run), once the run is over and no pause is open.
func TestAdvanceMatchesRun(t *testing.T) {
	s := load(t, "incast-pfc.yaml")
	f, err := New(s, twin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for ms := 1; ms <= 30; ms++ {
		f.Advance(unit.Time(ms) * unit.Millisecond)
	}
	stepped := f.Advance(s.Duration)
	whole := runHosts(t, s)
	for _, name := range []string{"rx_prio3_pause", "rx_prio3_pause_duration", "tx_prio3_bytes", "port_xmit_data"} {
		a, _ := counter(stepped, "h3", name)
		b, _ := counter(whole, "h3", name)
		if a != b || a == 0 {
			t.Errorf("h3 %s: stepped %d, whole run %d", name, a, b)
		}
	}
}

// TestLoopCarriesAndScales: a loop keeps counters rising across runs of
// the scenario and scales them.
func TestLoopCarriesAndScales(t *testing.T) {
	s := load(t, "incast-pfc.yaml")
	l, err := NewLoop(s, 1000, twin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(s, twin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	oneRun := f.Advance(s.Duration)
	endOfRun, _ := counter(oneRun, "h0", "rx_prio3_pause")
	var prev int64
	for _, at := range []unit.Time{5 * unit.Millisecond, 29 * unit.Millisecond, 35 * unit.Millisecond, 65 * unit.Millisecond} {
		hosts, err := l.At(at)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := counter(hosts, "h0", "rx_prio3_pause")
		if !ok || v < prev {
			t.Fatalf("at %v: rx_prio3_pause %d after %d", at, v, prev)
		}
		prev = v
	}
	if l.Loops != 2 {
		t.Errorf("loops = %d, want 2 after 65 ms of a 30 ms scenario", l.Loops)
	}
	// After two whole runs and 5 ms of a third (all h0's pauses fall in
	// the first 11 ms of a run, some before 5 ms), the count is at least
	// twice a run's, scaled by 1000.
	if prev < 2*endOfRun*1000 || prev > 3*endOfRun*1000 {
		t.Errorf("rx_prio3_pause = %d, want between 2 and 3 runs of %d × 1000", prev, endOfRun)
	}
}

// TestTreeReadsLikeAHost: the tree written for a host is read by the
// exporter's plain collectors without an error, and its pause time is the
// twin's counter in seconds.
func TestTreeReadsLikeAHost(t *testing.T) {
	s := load(t, "incast-pfc.yaml")
	hosts := runHosts(t, s)
	dir := t.TempDir()
	if err := WriteTree(dir, hosts); err != nil {
		t.Fatal(err)
	}
	us, _ := counter(hosts, "h5", "rx_prio3_pause_duration")
	for _, tree := range []struct {
		name string
		h    func() (exporter.Host, error)
	}{
		{"disk", func() (exporter.Host, error) { return exporter.TreeHost(exporter.Dir(filepath.Join(dir, "h5"))) }},
		{"memory", func() (exporter.Host, error) { return exporter.TreeHost(FS(&hosts[5])) }},
	} {
		h, err := tree.h()
		if err != nil {
			t.Fatal(err)
		}
		mfs := scrape(t, h)
		found := false
		for _, mf := range mfs {
			switch mf.GetName() {
			case "rocelab_exporter_collector_errors_total":
				t.Errorf("%s: errors reading the twin's tree: %v", tree.name, mf.GetMetric())
			case "rocelab_nic_pause_duration_seconds_total":
				for _, m := range mf.GetMetric() {
					if labels(m.GetLabel())["direction"] == "rx" {
						found = true
						if got := m.GetCounter().GetValue(); got != float64(us)/1e6 {
							t.Errorf("%s: rx pause %v s, twin says %d us", tree.name, got, us)
						}
					}
				}
			}
		}
		if !found || us == 0 {
			t.Errorf("%s: no rx pause duration (twin %d us)", tree.name, us)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "h5", "sys/class/infiniband/mlx5_0/ports/1/hw_counters")); err != nil {
		t.Errorf("hw_counters directory missing: %v", err)
	}
}

func labels[T interface {
	GetName() string
	GetValue() string
}](ls []T) map[string]string {
	m := map[string]string{}
	for _, l := range ls {
		m[l.GetName()] = l.GetValue()
	}
	return m
}

// TestNICCountersReachTheExporter: the NIC's hw_counters and DCQCN
// settings are served as a real mlx5 host's.
func TestNICCountersReachTheExporter(t *testing.T) {
	s := load(t, "incast-pfc.yaml")
	f, err := New(s, twin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hosts := f.Advance(s.Duration)
	want, ok := counter(hosts, "h17", "rx_write_requests")
	if !ok || want == 0 {
		t.Fatalf("h17 rx_write_requests = %d, %v", want, ok)
	}
	var h17 *Host
	for i := range hosts {
		if hosts[i].Name == "h17" {
			h17 = &hosts[i]
		}
	}
	h, err := exporter.TreeHost(FS(h17))
	if err != nil {
		t.Fatal(err)
	}
	got := values(t, h, "role", "priority", "parameter")
	if got["rocelab_rdma_rx_write_requests_total/"] != float64(want) {
		t.Errorf("rx_write_requests served as %v, NIC says %d", got["rocelab_rdma_rx_write_requests_total/"], want)
	}
	cfg := s.Host.NIC.DCQCN.Config
	for p := 0; p < 8; p++ {
		for _, role := range []string{"np", "rp"} {
			key := fmt.Sprintf("rocelab_dcqcn_enabled/%s%d", role, p)
			if on := got[key] == 1; cfg != nil && on != cfg.Enabled(p) {
				t.Errorf("%s = %v, config says %v", key, got[key], cfg.Enabled(p))
			}
		}
	}
	if cfg != nil {
		v, _ := cfg.Get("rpg_min_rate")
		if got["rocelab_dcqcn_parameter/rprpg_min_rate"] != float64(v) {
			t.Errorf("rpg_min_rate served as %v, config says %d", got["rocelab_dcqcn_parameter/rprpg_min_rate"], v)
		}
	}
}

// values scrapes h and returns each sample's value by its metric's name,
// "/" and the values of the labels keys, in order.
func values(t *testing.T, h exporter.Host, keys ...string) map[string]float64 {
	t.Helper()
	got := map[string]float64{}
	for _, mf := range scrape(t, h) {
		for _, m := range mf.GetMetric() {
			l := labels(m.GetLabel())
			key := mf.GetName() + "/"
			for _, k := range keys {
				key += l[k]
			}
			got[key] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return got
}

// scrape gathers every collector on h.
func scrape(t *testing.T, h exporter.Host) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(exporter.New(func() exporter.Host { return h }, exporter.Collectors(exporter.Options{}), nil))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

// runHosts runs s to its end through the pipeline and returns its hosts.
func runHosts(t *testing.T, s *scenario.Scenario) []Host {
	t.Helper()
	j := s.Job()
	o, err := twin.Run(&j, &twin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return Hosts(&o)
}

// TestTreeHasTheServersModulesAndBonds: a GPU server's tree says what its
// scenario gives the host: the GPU driver and, with peer memory, the
// nvidia_peermem module loaded, and its RoCE LAG bonds in 802.3ad with
// every port up in the active aggregator, read without an error from disk
// and from memory. The scenarios are synthetic (gdr.yaml's fabric, two
// ports per server in one bond).
func TestTreeHasTheServersModulesAndBonds(t *testing.T) {
	base, err := os.ReadFile("../../examples/gdr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, peermem := range []bool{true, false} {
		yaml := strings.Replace(string(base), "servers: {gpus: 8, nics: 1,",
			fmt.Sprintf("servers: {gpus: 8, nics: 2, nic_bond: 2, peermem: %v,", peermem), 1)
		s, err := scenario.Load("synthetic-bond.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		hosts := runHosts(t, s)
		dir := t.TempDir()
		if err := WriteTree(dir, hosts); err != nil {
			t.Fatal(err)
		}
		for _, tree := range []struct {
			name string
			h    func() (exporter.Host, error)
		}{
			{"disk", func() (exporter.Host, error) {
				return exporter.TreeHost(exporter.Dir(filepath.Join(dir, hosts[1].Name)))
			}},
			{"memory", func() (exporter.Host, error) { return exporter.TreeHost(FS(&hosts[1])) }},
		} {
			h, err := tree.h()
			if err != nil {
				t.Fatal(err)
			}
			got := values(t, h, "module", "bond", "mode", "slave")
			if _, ok := got["rocelab_exporter_collector_errors_total/"]; ok {
				t.Errorf("%s: errors reading the twin's tree", tree.name)
			}
			want := map[string]float64{
				"rocelab_host_module_loaded/nvidia":                       1,
				"rocelab_host_module_loaded/nvidia_peermem":               map[bool]float64{true: 1, false: 0}[peermem],
				"rocelab_host_module_loaded/nv_peer_mem":                  0,
				"rocelab_host_gpu_driver_open/":                           0,
				"rocelab_nic_bond_info/bond0802.3ad":                      1,
				"rocelab_nic_bond_slave_up/bond0eth0":                     1,
				"rocelab_nic_bond_slave_up/bond0eth1":                     1,
				"rocelab_nic_bond_slave_in_active_aggregator/bond0eth0":   1,
				"rocelab_nic_bond_slave_in_active_aggregator/bond0eth1":   1,
				"rocelab_nic_bond_slave_speed_bytes_per_second/bond0eth1": 400e9 / 8,
			}
			for k, v := range want {
				if g, ok := got[k]; !ok || g != v {
					t.Errorf("peermem %v, %s: %s = %v (exported %v), want %v", peermem, tree.name, k, g, ok, v)
				}
			}
		}
	}
}
