package exporter

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"rocelab/internal/counters"
)

// gather returns the value of every sample of family name, keyed by its
// labels printed as k=v pairs in name order.
func gather(t *testing.T, e *Exporter, name string) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var l []string
			for _, lp := range m.GetLabel() {
				l = append(l, lp.GetName()+"="+lp.GetValue())
			}
			v := m.GetUntyped().GetValue() + m.GetCounter().GetValue() + m.GetGauge().GetValue()
			out[strings.Join(l, ",")] = v
		}
	}
	return out
}

func TestBrokenDeviceIsolated(t *testing.T) {
	e := fixtureExporter(t)
	errs := gather(t, e, "rocelab_exporter_collector_errors_total")
	want := map[string]float64{"collector=rdma,device=i40iw0,reason=missing": 1}
	if len(errs) != len(want) || errs["collector=rdma,device=i40iw0,reason=missing"] != 1 {
		t.Errorf("errors = %v, want %v (counters/port_xmit_wait unreadable; no hw_counters/ is not an error)", errs, want)
	}
	// The good devices are complete: every hw_counters file of mlx5_0,
	// the 4-byte words as bytes, the OmniPath names kept generically.
	e = fixtureExporter(t)
	if got := gather(t, e, "rocelab_rdma_out_of_sequence_total")["device=mlx5_0,port=1"]; got != 5010 {
		t.Errorf("mlx5_0 out_of_sequence = %v, want 5010", got)
	}
	e = fixtureExporter(t)
	if got := gather(t, e, "rocelab_rdma_port_data_bytes_total")["device=mlx5_0,direction=rx,port=1"]; got != 4*3072000000 {
		t.Errorf("mlx5_0 port_rcv_data = %v bytes, want 4 × 3072000000", got)
	}
	e = fixtureExporter(t)
	if got := gather(t, e, "rocelab_rdma_hw_stat"); len(got) != 14 { // 13 hfi1 + mlx5_0 lifespan
		t.Errorf("generic hw counters = %d, want 14: %v", len(got), got)
	}
	// N/A (no PMA) is skipped, not an error and not a zero.
	e = fixtureExporter(t)
	for k := range gather(t, e, "rocelab_rdma_link_downed_total") {
		if strings.Contains(k, "i40iw0") {
			t.Errorf("N/A counter exported: %s", k)
		}
	}
	e = fixtureExporter(t)
	if got := gather(t, e, "rocelab_exporter_scrape_success"); got["collector=rdma"] != 0 || got["collector=ethtool"] != 1 {
		t.Errorf("scrape_success = %v", got)
	}
}

// deniedFS refuses one file, as sysfs does for root-only attributes.
type deniedFS struct {
	fs.FS
	name string
}

func (d deniedFS) Open(name string) (fs.File, error) {
	if name == d.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.FS.Open(name)
}

func TestPermissionErrorIsCountedAndIsolated(t *testing.T) {
	h := fixtureHost(t)
	h.Sys = deniedFS{h.Sys, "class/net/mce0/ecn/roce_np/cnp_dscp"}
	e := New(func() Host { return h }, Collectors(Options{}), nil)
	if got := gather(t, e, "rocelab_exporter_collector_errors_total")["collector=dcqcn,device=mce0,reason=permission"]; got != 1 {
		t.Errorf("permission error count = %v, want 1", got)
	}
	e = New(func() Host { return h }, Collectors(Options{}), nil)
	params := gather(t, e, "rocelab_dcqcn_parameter")
	if len(params) != 5 {
		t.Errorf("dcqcn parameters = %d, want the 5 readable ones: %v", len(params), params)
	}
}

func TestMapName(t *testing.T) {
	cases := []struct {
		src        counters.Source
		name       string
		family     string
		dir, prio  string
		scaleOf100 float64
	}{
		{counters.Ethtool, "rx_prio3_pause", "rocelab_nic_pause_frames_total", "rx", "3", 100},
		{counters.Ethtool, "tx_prio5_pause_duration", "rocelab_nic_pause_duration_seconds_total", "tx", "5", 0.0001},
		{counters.Ethtool, "rx_pfc_ena_frames_pri3", "rocelab_nic_pause_frames_total", "rx", "3", 100},
		{counters.Ethtool, "pfc_pri2_tx_duration_us", "rocelab_nic_pause_duration_seconds_total", "tx", "2", 0.0001},
		{counters.Ethtool, "rx_discards_phy", "rocelab_nic_phy_discards_total", "rx", "", 100},
		{counters.Ethtool, "rx_prio0_discards", "rocelab_nic_priority_discards_total", "rx", "0", 100},
		{counters.Ethtool, "tx_prio7_bytes", "rocelab_nic_priority_bytes_total", "tx", "7", 100},
		{counters.Ethtool, "rx_xdp_drop", "rocelab_nic_ethtool_stat", "", "", 100},
		{counters.Ethtool, "np_cnp_sent", "rocelab_nic_ethtool_stat", "", "", 100},
		{counters.HWCounters, "np_cnp_sent", "rocelab_rdma_cnp_sent_total", "", "", 100},
		{counters.HWCounters, "lifespan", "rocelab_rdma_hw_stat", "", "", 100},
		// bnxt_re prints rx_roce_good_pkts beside rx_roce_only_pkts, whose
		// series it would repeat.
		{counters.HWCounters, "rx_roce_only_pkts", "rocelab_rdma_roce_packets_total", "rx", "", 100},
		{counters.HWCounters, "rx_roce_good_pkts", "rocelab_rdma_hw_stat", "", "", 100},
		// mlx5's optional cc_rx_ce_pkts, once enabled, beside the
		// np_ecn_marked_roce_packets it always prints; its optional
		// rdma_rx_packets has no other name.
		{counters.HWCounters, "cc_rx_ce_pkts", "rocelab_rdma_hw_stat", "", "", 100},
		{counters.HWCounters, "rdma_rx_packets", "rocelab_rdma_roce_packets_total", "rx", "", 100},
		{counters.Ethtool, "rx_pcs_symbol_err", "rocelab_nic_phy_symbol_errors_total", "rx", "", 100},
		{counters.PortCounters, "port_xmit_data", "rocelab_rdma_port_data_bytes_total", "tx", "", 400},
		{counters.PortCounters, "port_rcv_data", "rocelab_rdma_port_data_bytes_total", "rx", "", 400},
		{counters.PortCounters, "port_xmit_constraint_errors", "rocelab_rdma_port_stat", "", "", 100},
	}
	for _, c := range cases {
		m := MapName(c.src, c.name)
		if m.Family.Name != c.family || m.Dir != c.dir || m.Prio != c.prio || m.Value(100) != c.scaleOf100 {
			t.Errorf("MapName(%v, %q) = %s dir %q prio %q 100→%g; want %s %q %q %g", c.src, c.name, m.Family.Name, m.Dir, m.Prio, m.Value(100), c.family, c.dir, c.prio, c.scaleOf100)
		}
	}
}

// TestMappingCoversCountersTable: every name the counters table knows for
// an exporter source lands in a named family, so a concept added to the
// table without a row in mapping.go is caught here.
func TestMappingCoversCountersTable(t *testing.T) {
	for _, d := range counters.Default().All() {
		if d.Source != counters.Ethtool && d.Source != counters.HWCounters && d.Source != counters.PortCounters || repeats(&d) {
			continue // a second name of a concept stays generic (MapName)
		}
		m := MapName(d.Source, d.Of(3))
		if m.Family.Generic {
			t.Errorf("%s %s (%s) has no family: add a row for concept %q to mappingTable in mapping.go", d.Vendor, d.Name, d.Source, d.Concept)
		}
		if m.Family.Dir && m.Dir == "" {
			t.Errorf("%s: family %s has a direction label, the name none", d.Name, m.Family.Name)
		}
	}
}

func TestMetricNamesLint(t *testing.T) {
	names := MetricNames()
	if len(names) < 60 {
		t.Fatalf("only %d metric names", len(names))
	}
	h := fixtureHost(t)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(func() Host { return h }, Collectors(Options{EthtoolExclude: regexp.MustCompile(DefaultEthtoolExclude)}), nil))
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// TestDocsListEveryMetric: docs/exporter.md names every metric the
// exporter can export.
func TestDocsListEveryMetric(t *testing.T) {
	doc, err := os.ReadFile("../../docs/exporter.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range MetricNames() {
		if !strings.Contains(string(doc), "`"+n+"`") {
			t.Errorf("docs/exporter.md does not list %s", n)
		}
	}
}

// treeHost is a host of the files in tree, with the ethtool and mlnx_qos
// directories a host has made empty.
func treeHost(t *testing.T, tree fstest.MapFS) Host {
	t.Helper()
	tree["ethtool-stats/.keep"] = &fstest.MapFile{}
	tree["mlnx_qos/.keep"] = &fstest.MapFile{}
	h, err := TreeHost(tree)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestGIDTableChange: a changed GID entry changes the table hash at once
// when the table is read at every scrape, and only after the refresh
// interval when it is reused.
func TestGIDTableChange(t *testing.T) {
	port := "sys/class/infiniband/mlx5_0/ports/1/"
	tree := fstest.MapFS{
		port + "state":             {Data: []byte("4: ACTIVE\n")},
		port + "phys_state":        {Data: []byte("5: LinkUp\n")},
		port + "rate":              {Data: []byte("100 Gb/sec (4X EDR)\n")},
		port + "link_layer":        {Data: []byte("Ethernet\n")},
		port + "hw_counters/x":     {Data: []byte("1\n")},
		port + "counters/y":        {Data: []byte("1\n")},
		port + "gids/3":            {Data: []byte("0000:0000:0000:0000:0000:ffff:0a00:0001\n")},
		port + "gid_attrs/types/3": {Data: []byte("RoCE v2\n")},
	}
	h := treeHost(t, tree)
	hash := func(e *Exporter) float64 { return gather(t, e, "rocelab_rdma_gid_table_hash")["device=mlx5_0,port=1"] }
	every := New(func() Host { return h }, Collectors(Options{}), nil)
	reused := New(func() Host { return h }, Collectors(Options{GIDRefresh: time.Hour}), nil)
	before, beforeReused := hash(every), hash(reused)
	if before == 0 || before != beforeReused {
		t.Fatalf("hashes %v and %v", before, beforeReused)
	}
	tree[port+"gids/3"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:ffff:0a00:0002\n")}
	if hash(every) == before {
		t.Error("read at every scrape: the hash did not change with the table")
	}
	if hash(reused) != before {
		t.Error("reused for an hour: the table was read again")
	}
}

// TestHWCountersBothDirections: a concept a driver's hw_counters count
// both ways (bnxt_re rx/tx_roce_only_pkts, irdma RxUDP/TxUDP, bnxt_re
// rx/tx_roce_discards) gets a direction label, so the two names are two
// series. Before, the family had no direction label for hw_counters: the
// two samples were one series twice and the registry refused the scrape.
// rx_roce_good_pkts, bnxt_re's second count of received RoCE packets,
// stays under its raw name.
func TestHWCountersBothDirections(t *testing.T) {
	port := "sys/class/infiniband/bnxt_re0/ports/1/"
	tree := fstest.MapFS{
		port + "state":                         {Data: []byte("4: ACTIVE\n")},
		port + "link_layer":                    {Data: []byte("Ethernet\n")},
		port + "hw_counters/rx_roce_only_pkts": {Data: []byte("41877012\n")},
		port + "hw_counters/tx_roce_only_pkts": {Data: []byte("40112345\n")},
		port + "hw_counters/rx_roce_good_pkts": {Data: []byte("41877000\n")},
		port + "hw_counters/rx_roce_discards":  {Data: []byte("12\n")},
		port + "hw_counters/tx_roce_discards":  {Data: []byte("3\n")},
	}
	h := treeHost(t, tree)
	e := New(func() Host { return h }, Collectors(Options{}), nil)
	pk := gather(t, e, "rocelab_rdma_roce_packets_total")
	if pk["device=bnxt_re0,direction=rx,port=1"] != 41877012 || pk["device=bnxt_re0,direction=tx,port=1"] != 40112345 || len(pk) != 2 {
		t.Errorf("rocelab_rdma_roce_packets_total = %v", pk)
	}
	if d := gather(t, e, "rocelab_rdma_roce_discards_total"); d["device=bnxt_re0,direction=rx,port=1"] != 12 || d["device=bnxt_re0,direction=tx,port=1"] != 3 {
		t.Errorf("rocelab_rdma_roce_discards_total = %v", d)
	}
	if g := gather(t, e, "rocelab_rdma_hw_stat"); g["counter=rx_roce_good_pkts,device=bnxt_re0,port=1"] != 41877000 {
		t.Errorf("rocelab_rdma_hw_stat = %v", g)
	}
}

// TestOptionalBesideAlwaysPrinted: an mlx5 port with its optional
// congestion counters enabled prints cc_rx_ce_pkts beside the
// np_ecn_marked_roce_packets it always prints, the same marks. Before,
// both went to rocelab_rdma_ecn_marked_packets_total, one series twice,
// and the registry refused the scrape; the optional one stays generic.
func TestOptionalBesideAlwaysPrinted(t *testing.T) {
	port := "sys/class/infiniband/mlx5_0/ports/1/"
	tree := fstest.MapFS{
		port + "state": {Data: []byte("4: ACTIVE\n")},
		port + "hw_counters/np_ecn_marked_roce_packets": {Data: []byte("1240077\n")},
		port + "hw_counters/cc_rx_ce_pkts":              {Data: []byte("1240077\n")},
		port + "hw_counters/rdma_rx_packets":            {Data: []byte("41877012\n")},
	}
	h := treeHost(t, tree)
	e := New(func() Host { return h }, Collectors(Options{}), nil)
	if m := gather(t, e, "rocelab_rdma_ecn_marked_packets_total"); len(m) != 1 || m["device=mlx5_0,port=1"] != 1240077 {
		t.Errorf("rocelab_rdma_ecn_marked_packets_total = %v", m)
	}
	if g := gather(t, e, "rocelab_rdma_hw_stat"); g["counter=cc_rx_ce_pkts,device=mlx5_0,port=1"] != 1240077 {
		t.Errorf("rocelab_rdma_hw_stat = %v", g)
	}
	if p := gather(t, e, "rocelab_rdma_roce_packets_total"); p["device=mlx5_0,direction=rx,port=1"] != 41877012 {
		t.Errorf("rocelab_rdma_roce_packets_total = %v", p)
	}
}
