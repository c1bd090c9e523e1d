package ingest

import (
	"slices"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// Format variants met in public threads (testdata/corpus, each file with
// its source URL): every reader must take the variant as its own kind and
// read the values, not skip the file or claim it for another kind.

// bnx2x prints per-queue counters as "[N]: name: value" right after the
// header, be2net as "rxq0: name: value" after its port counters: both are
// ethtool -S dumps, with the port counters kept and the queue ones counted.
func TestEthtoolPerQueuePrefixes(t *testing.T) {
	if e := corpusAs[*EthtoolStats](t, "ethtool/ethtool-bnx2x-per-queue-bracket-prefix-ethq6.txt", KindEthtool); len(e.Samples) != 0 || e.Lines() != 36 {
		t.Errorf("bnx2x: %d samples, %d lines; want 0 port samples (all counters per queue) and 36 lines", len(e.Samples), e.Lines())
	}
	e := ethtoolOf(t, "ethtool/ethtool-be2net-rxq-prefix-ethq7.txt")
	if v := counter(t, e, "rx_dropped_too_short"); v != 5710 {
		t.Errorf("be2net rx_dropped_too_short = %d, want 5710", v)
	}
	if d := e.Samples[0].Driver; d != "be2net" {
		t.Errorf("be2net driver = %q", d)
	}
	// The real dump with its rxq0 lines after the port counters: one dump,
	// the queue's counters read and not kept.
	e = ethtoolOf(t, "ethtool/ethtool-be2net-rxq-drops-no-frags-netutils208.txt")
	if len(e.Samples) != 1 || e.Samples[0].After.Len() != 38 || e.Lines() != 47 {
		t.Errorf("be2net with rxq0: %d samples, %d counters, %d lines; want 1, 38, 47", len(e.Samples), e.Samples[0].After.Len(), e.Lines())
	}
	// A queue line inside a dump keeps the dump open.
	res := nicReadText(t, "x", "NIC statistics:\n     rx_crc_errors: 0\n     rxq0: rx_bytes: 176801887745990\n     rxq0: rx_drops_no_frags: 3885606854\n     tx_pauseframes: 7\n")
	x := res.Artifacts[0].(*EthtoolStats)
	if len(x.Samples) != 1 || x.Samples[0].After.Len() != 2 {
		t.Errorf("dump split by its rxq lines: %d samples", len(x.Samples))
	}
}

// A paste that lost the "NIC statistics:" header but keeps the `ethtool -i`
// block above the counters (mlx4_en, values padded with trailing spaces).
func TestEthtoolHeaderlessAfterDriverInfo(t *testing.T) {
	e := ethtoolOf(t, "ethtool/ethtool-mlx4-en-trailing-spaces-ethq21.txt")
	if v := counter(t, e, "rx_packets"); v != 555096842386 {
		t.Errorf("rx_packets = %d", v)
	}
	if v := counter(t, e, "tx_bytes"); v != 2318032604142833 {
		t.Errorf("tx_bytes = %d", v)
	}
	if d := e.Samples[0].Driver; d != "mlx4_en" {
		t.Errorf("driver = %q, want mlx4_en", d)
	}
	// ibv_devinfo's "name: number" lines after an ethtool -i block are not
	// a dump.
	res := nicReadText(t, "x", "driver: mlx5_core\nbus-info: 0000:af:00.0\n\nhca_id:\tmlx5_0\n\tphys_port_cnt:\t\t\t1\n\tmax_qp:\t\t\t\t262144\n")
	for _, a := range res.Artifacts {
		if s, ok := a.(*EthtoolStats); ok && len(s.Samples) > 0 {
			t.Errorf("ibv_devinfo lines read as an ethtool dump: %+v", s.Samples[0].After)
		}
	}
	e = ethtoolOf(t, "ethtool/ethtool-mlx5-cx4-ubuntu1804-ethq8.txt")
	if v := counter(t, e, "rx_csum_none"); v != 49455 || e.Samples[0].Driver != "mlx5_core" {
		t.Errorf("mlx5 CX-4: rx_csum_none %d driver %q", v, e.Samples[0].Driver)
	}
}

// Counters read through the resolved device path, with the kernel's
// "N/A (no PMA)" for a device that implements none (i40iw).
func TestHWCountersNoPMA(t *testing.T) {
	h := corpusAs[*HWCounters](t, "hwcounters/hwcounters-i40iw-na-no-pma-nodeexporter966.txt", KindHWCounters)
	if h.UnreadableCount != 8 || !slices.Equal(h.UnreadablePorts, []string{"i40iw0/1"}) || len(h.Samples) != 0 {
		t.Errorf("unreadable %d on %v, %d samples; want 8 on i40iw0/1 and none", h.UnreadableCount, h.UnreadablePorts, len(h.Samples))
	}
	res := nicReadText(t, "x", "/sys/devices/pci0000:00/0000:00:02.0/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:42\n")
	if len(res.Artifacts) != 1 {
		t.Fatalf("device-path hw_counters: %v", res.Artifacts)
	}
	s := res.Artifacts[0].(*HWCounters).Samples
	if c, ok := s[0].After.Get("out_of_sequence"); !ok || c.Value != 42 || s[0].Device != "mlx5_0" || s[0].Port != 1 {
		t.Errorf("device-path sample %+v", s[0])
	}
}

// mlxconfig's device block ("Device:             c2:00.0") is not a
// perftest banner.
func TestMlxconfigDeviceLineNotPerftest(t *testing.T) {
	got := readCorpus(t, "mlxconfig/mlxconfig-set-next-boot-new-confirm-cx6-maas2.txt")
	if _, ok := got[KindPerftest]; ok {
		t.Error("mlxconfig set output read as perftest")
	}
	m, ok := got[KindMlxConfig].(*MlxConfig)
	if !ok || len(m.Devices) != 1 {
		t.Fatalf("mlxconfig not read: %v", got)
	}
	if p, ok := m.Devices[0].Param("BOOT_UNDI_NETWORK_WAIT", 0); !ok || p.Value != "30" {
		t.Errorf("BOOT_UNDI_NETWORK_WAIT = %+v, want the New column's 30", p)
	}
	// A banner pasted without its title still opens a run.
	res := nicReadText(t, "x", " Number of qps   : 1\t\tTransport type : IB\n Mtu             : 4096[B]\n")
	if len(res.Artifacts) != 1 || res.Artifacts[0].Kind() != KindPerftest {
		t.Errorf("title-less banner: %v", res.Artifacts)
	}
}

// An excerpt whose rank list starts at "Rank 71" holds 72 ranks or more on
// hosts it does not show: the one host it shows is not the job's.
func TestNCCLTestsPartialRankList(t *testing.T) {
	x := ncclTests(t, "nccl-tests/nccltests-gb200-nvl72-out-of-bounds-footer-coreweave43.txt")
	r := x.Runs[0]
	if r.NRanks() != 72 || !r.RanksPartial() {
		t.Errorf("NRanks %d partial %v, want 72 and partial", r.NRanks(), r.RanksPartial())
	}
	if hs, _ := r.RanksPerHost(); hs != nil {
		t.Errorf("RanksPerHost = %v on a partial list", hs)
	}
	if r.Collective != "all_reduce" || !near(r.AvgBusBW, 745.53) || r.OutOfBounds != 0 {
		t.Errorf("collective %q avg %v oob %d", r.Collective, r.AvgBusBW, r.OutOfBounds)
	}
	if n := len(r.Rows); n != 5 || r.Rows[3].Out.Time != 10094 {
		t.Errorf("%d rows; 4G time %v, want 10094 us (printed without decimals)", n, r.Rows[3].Out.Time)
	}
	// Two "Rank 0" lines (independent jobs) are not a partial list.
	y := ncclTests(t, "nccl-tests/nccltests-old-format-duplicate-banner-10g-nccltests107.txt")
	if r := y.Runs[len(y.Runs)-1]; r.RanksPartial() {
		t.Errorf("duplicate rank 0 lines taken as a partial list")
	}
}

func ethtoolOf(t *testing.T, rel string) *EthtoolStats {
	t.Helper()
	e := corpusAs[*EthtoolStats](t, rel, KindEthtool)
	if len(e.Samples) == 0 {
		t.Fatalf("%s: no dump", rel)
	}
	return e
}

func counter(t *testing.T, e *EthtoolStats, name string) uint64 {
	t.Helper()
	c, ok := e.Samples[0].After.Get(name)
	if !ok {
		t.Fatalf("%s missing", name)
	}
	return c.Value
}

// The lines a failed test stops with, in every form nccl-tests printed
// them: with the host (2.x), without it (the first versions), before the
// table in an out-of-order paste, and rccl-tests' "nThreads:" banner.
func TestNCCLTestsFailures(t *testing.T) {
	cases := []struct {
		rel                 string
		count               int
		host, where, prefix string
	}{
		{"nccl-tests/nccltests-failure-after-rows-hostname-prefix-nccltests322.txt", 4, "HCA-128", "common.cu:1204", "unhandled cuda error (run with NCCL_DEBUG=INFO for details)"},
		{"nccl-tests/nccltests-nccl1.0-bytes-N-op-res-header-failure-nccltests5.txt", 1, "", "all_reduce.cu:95", "unhandled cuda error"},
		{"nccl-tests/nccltests-unindented-failure-before-table-4090-nccltests280.txt", 1, "c2211f46f318", "common.cu:1005", "unhandled CUDA error"},
		{"nccl-tests/rccltests-nthreads-colon-banner-internal-error-rccltests50.txt", 1, "sharbox-ultra", "common.cu:1285", "internal error - please report"},
	}
	for _, c := range cases {
		x := ncclTests(t, c.rel)
		if x.FailureCount != c.count || len(x.Failures) != c.count {
			t.Errorf("%s: %d failures (%d kept), want %d", c.rel, x.FailureCount, len(x.Failures), c.count)
			continue
		}
		f := x.Failures[0]
		if f.Host != c.host || f.Call != "NCCL" || f.Where != c.where || !strings.HasPrefix(f.Message, c.prefix) || strings.HasSuffix(f.Message, "/") {
			t.Errorf("%s: failure %+v", c.rel, f)
		}
	}
	x := ncclTests(t, "nccl-tests/rccltests-nthreads-colon-banner-internal-error-rccltests50.txt")
	if r := x.Runs[0]; r.NThread != 1 || r.NGpus != 4 || r.NRanks() != 4 {
		t.Errorf("rccl-tests banner: nThread %d nGpus %d ranks %d", r.NThread, r.NGpus, r.NRanks())
	}
	// A sentence quoting a failure is not one.
	res := nicReadText(t, "x", "the job printed \"HCA-1: Test NCCL failure common.cu:1 'x'\" twice\n")
	for _, a := range res.Artifacts {
		if a.Kind() == KindNCCLTests {
			t.Errorf("prose read as a failure: %+v", a.(*NCCLTests).Failures)
		}
	}
}

// ibv_devinfo excerpts: a port block pasted without its hca_id line, with
// a GID line bolded in Markdown, and several HCAs of different generations
// after the tail of a port block.
func TestDevinfoExcerpts(t *testing.T) {
	d := corpusAs[*Devinfo](t, "ethtool/ibv-devinfo-v-gid14-15-markdown-bold-k8srdma164.txt", KindDevinfo)
	if len(d.Devices) != 1 || len(d.Devices[0].Ports) != 1 {
		t.Fatalf("devices %+v", d.Devices)
	}
	p := d.Devices[0].Ports[0]
	if p.Port != 1 || p.LinkLayer != "Ethernet" || p.ActiveMTU != 4096 || p.Rate != 25*unit.Gbps || len(p.GIDs) != 2 || p.GIDs[0].Index != 14 || p.GIDs[0].IPv4 != "192.168.6.6" {
		t.Errorf("port %+v", p)
	}
	d = corpusAs[*Devinfo](t, "ethtool/ibv-devinfo-h100-cx7-cx5-mixed-fw-deepep38.txt", KindDevinfo)
	var fw []string
	for _, dv := range d.Devices {
		if dv.Name != "" {
			fw = append(fw, dv.Name+"="+dv.FWVer)
		}
	}
	if !slices.Equal(fw, []string{"mlx5_2=28.42.1000", "mlx5_3=16.35.4030"}) {
		t.Errorf("devices %v", fw)
	}
	// "port: 8080" in a configuration file is not a port block.
	res := nicReadText(t, "x", "server:\n  port: 8080\n  state: ready\n")
	for _, a := range res.Artifacts {
		if a.Kind() == KindDevinfo {
			t.Errorf("YAML read as ibv_devinfo")
		}
	}
}

// Verbs async events in the three forms NCCL printed them, behind a
// collector's timestamp with a zone and Markdown's autolinks.
func TestNCCLAsyncEvents(t *testing.T) {
	cases := []struct {
		rel              string
		host, dev, event string
		port, count      int
		onQP             bool
	}{
		{"nccl-log/nccl-async-port-error-old-completion-format-litllama380.txt", "...-48", "", "port error", 0, 8, false},
		{"nccl-log/nccl-markdown-autolinks-async-event-status9-vendor138-nccl1710.txt", "node201", "mlx5_0", "local access violation work queue error", 1, 3, false},
		{"nccl-log/nccl-2.21.5-double-timestamp-status4-vendor83-async-fatal-nccl1905.txt", "h100-28", "mlx5_ib0", "local access violation work queue error", 1, 1, true},
		{"nccl-log/nccl-2.25.1-async-fatal-qp-invalid-request-h100-2-nodes-alltoall-nccl1919.txt", "node-0", "mlx5_1", "invalid request local work queue error", 1, 1, true},
	}
	for _, c := range cases {
		l := ncclLog(t, c.rel)
		if len(l.AsyncEvents) != 1 {
			t.Errorf("%s: events %+v", c.rel, l.AsyncEvents)
			continue
		}
		e := l.AsyncEvents[0]
		if e.Host != c.host || e.Device != c.dev || e.Port != c.port || e.Event != c.event || e.Count != c.count || e.OnQP != c.onQP {
			t.Errorf("%s: event %+v", c.rel, e)
		}
	}
	l := ncclLog(t, "nccl-log/nccl-markdown-autolinks-async-event-status9-vendor138-nccl1710.txt")
	if len(l.Completions) != 1 || l.Completions[0].PeerIP != "10.1.3.201" || l.Completions[0].RemoteGID != "::ffff:10.206.1.11" {
		t.Errorf("completion behind autolinks: %+v", l.Completions)
	}
}

func TestStripAutolinks(t *testing.T) {
	for in, want := range map[string]string{
		"transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN":  "transport/net_ib.cc:101 NCCL WARN",
		"peer [10.1.3.201](http://10.1.3.201/)<33057>":                "peer 10.1.3.201<33057>",
		"see [the docs](https://docs.nvidia.com/x) and [a](http://a)": "see [the docs](https://docs.nvidia.com/x) and a",
		"[x](http://y/) [x](http":                                     "[x](http://y/) [x](http",
	} {
		if got := stripAutolinks(in); got != want {
			t.Errorf("stripAutolinks(%q) = %q, want %q", in, got, want)
		}
	}
	if rest, ok := cutTimestamp("2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [0] x"); !ok || !strings.HasPrefix(rest, "[2025-11-09 07:39:30] h100") {
		t.Errorf("zone after a space: %q %v", rest, ok)
	}
}

// ibstat's view of two ConnectX-6 Dx RoCE ports: the same devices
// ibv_devinfo gives, with its rate as the port's line rate and its GUIDs
// in ibv_devinfo's form.
func TestIbstat(t *testing.T) {
	d := corpusAs[*Devinfo](t, "ethtool/ibstat-cx6dx-100g-ethernet-l2fwdnv6.txt", KindDevinfo)
	if len(d.Devices) != 2 {
		t.Fatalf("devices %+v", d.Devices)
	}
	dev := d.Devices[1]
	if dev.Name != "mlx5_1" || dev.FWVer != "22.32.2004" || dev.VendorPartID != 4125 || dev.NodeGUID != "0c42:a103:001d:d12b" || dev.SysImageGUID != "0c42:a103:001d:d12a" {
		t.Errorf("device %+v", dev)
	}
	if len(dev.Ports) != 1 {
		t.Fatalf("ports %+v", dev.Ports)
	}
	p := dev.Ports[0]
	if p.Port != 1 || p.State != "PORT_ACTIVE (4)" || p.Rate != 100*unit.Gbps || p.LinkLayer != "Ethernet" || p.LID != 0 {
		t.Errorf("port %+v", p)
	}
	if s := d.LinkSpeeds(); len(s) != 2 || s[0].Evidence.Line == 0 {
		t.Errorf("link speeds %+v", s)
	}
	if d.Lines() != 34 {
		t.Errorf("%d lines read, want all 34", d.Lines())
	}
}

// The ibstatus script's block: device and port from its header, the state
// "4: ACTIVE", the rate in Gb/sec, a hex LID and the default GID as index 0.
func TestIbstatus(t *testing.T) {
	d := corpusAs[*Devinfo](t, "ethtool/ibstat-ibstatus-edr-100g-infiniband-nccl307.txt", KindDevinfo)
	if len(d.Devices) != 1 || d.Devices[0].Name != "mlx5_0" || len(d.Devices[0].Ports) != 1 {
		t.Fatalf("devices %+v", d.Devices)
	}
	p := d.Devices[0].Ports[0]
	if p.Port != 1 || p.State != "PORT_ACTIVE (4)" || p.Rate != 100*unit.Gbps || p.LinkLayer != "InfiniBand" || p.LID != 0x2ed || len(p.GIDs) != 1 || p.GIDs[0].Index != 0 {
		t.Errorf("port %+v", p)
	}
	if d.Lines() != 8 {
		t.Errorf("%d lines read, want 8", d.Lines())
	}
}

// perftest's failure lines: a completion error printed on one line with
// its status, the RTR failure pair, and a sentence that only quotes them.
func TestPerftestFailureLines(t *testing.T) {
	a := corpusAs[*Perftest](t, "perftest/perftest-completion-error-status12-syndrom-softiwarp27.txt", KindPerftest)
	r := a.Runs
	if len(r) != 1 || len(r[0].Failures) != 1 || r[0].Failures[0].Kind != FailCompletion || r[0].Failures[0].Status != 12 || r[0].Failures[0].Vendor != "0x81" {
		t.Errorf("runs %+v", r)
	}
	a = corpusAs[*Perftest](t, "perftest/perftest-modify-qp-rtr-grh-required-perftest393.txt", KindPerftest)
	var lines []int
	for _, f := range a.Runs[0].Failures {
		lines = append(lines, f.Evidence.Line)
	}
	if !slices.Equal(lines, []int{3, 4, 5, 6}) {
		t.Errorf("failure lines %v, want 3-6 (not the header quoting them)", lines)
	}
}

// An excerpt of rows without their header still says which columns the
// table has: rows with no redop and no root column are all_gather's in
// the tables of that era (broadcast prints its root).
func TestNCCLTestsColumnsFromRows(t *testing.T) {
	x := ncclTests(t, "nccl-tests/nccltests-nccl2.6-no-redop-column-0e00-error-nccl340.txt")
	r := x.Runs[0]
	if r.Header.Line != 0 || r.HasRedop || r.HasRoot || r.Collective != "all_gather" || len(r.Rows) != 12 {
		t.Errorf("header %d redop %v root %v collective %q candidates %v rows %d", r.Header.Line, r.HasRedop, r.HasRoot, r.Collective, r.Candidates, len(r.Rows))
	}
	// Rows of size 0 at the start of a table are not processes interleaved.
	y := ncclTests(t, "nccl-tests/nccltests-zero-size-rows-reduce-scatter-nccltests128.txt")
	if r := y.Runs[0]; r.Backsteps != 0 || len(r.Rows) != 7 || len(r.Truncated) != 1 {
		t.Errorf("backsteps %d rows %d truncated %d", r.Backsteps, len(r.Rows), len(r.Truncated))
	}
}

// A run with -d all sweeps the sizes again for each data type: the sizes
// going back where the type changes are not processes interleaved, while
// a size going back within one type still is.
func TestNCCLTestsDatatypeSweepsNotBacksteps(t *testing.T) {
	x := ncclTests(t, "nccl-tests/allreduce-h200-2n-16g-roce-bf3-400g-datatype-all-485GBps-good.txt")
	if r := x.Runs[0]; r.Backsteps != 0 || len(r.Rows) != 36 || r.NRanks() != 16 {
		t.Errorf("backsteps %d (first at line %d) rows %d ranks %d, want 0, 36, 16", r.Backsteps, r.FirstBackstep.Line, len(r.Rows), r.NRanks())
	}
	// Its plateau is the fastest sweep's (float, 487.34 GB/s at 20 GiB),
	// not the median of all types at once (445.53, int8 and fp8 among them).
	if p, ok := x.Runs[0].Plateau(); !ok || p.BusBW != 487.34 || len(p.Rows) != 3 || p.Rows[0].Type != "float" {
		t.Errorf("plateau %+v, want float's 487.34 GB/s over 3 rows", p)
	}
	y := ncclTests(t, "nccl-tests/allreduce-busbw-zero-duplicate-rows-one-rank-each-nccltests294.txt")
	if r := y.Runs[0]; r.Backsteps != 1 {
		t.Errorf("interleaved processes: backsteps %d, want 1", r.Backsteps)
	}
}

// Rows that returned wrong data stay out of the plateau: the LL128
// corruption of four GH200 nodes slows 2-64 MiB (64 MiB at 3.69 GB/s),
// while the clean 128 MiB row reaches 89.85 GB/s.
func TestNCCLTestsPlateauSkipsWrongRows(t *testing.T) {
	x := ncclTests(t, "nccl-tests/allreduce-gh200-4n-16g-int8-ll128-wrong-data-2-64MiB.txt")
	p, ok := x.Runs[0].Plateau()
	if !ok || p.BusBW != 89.85 || len(p.Rows) != 1 || p.Rows[0].Size != 128<<20 {
		t.Errorf("plateau %+v, want the clean 128 MiB row's 89.85 GB/s", p)
	}
}

// A queue-counter row cut inside its last number ("424,"): the cells
// before it are read, the cut one is unknown, not 424.
func TestSwitchNumberCutInsideSeparators(t *testing.T) {
	a := corpusAs[*SwitchCounters](t, "switch/sonic-queue-counters-nonzero-netns-cached-header-buildimage21007.txt", KindSwitch)
	q := a.Queues
	if len(q) != 1 || q[0].Packets != 126497 || q[0].DropPkts != 421358651 || q[0].DropBytes != -1 {
		t.Errorf("queues %+v", q)
	}
	for in, want := range map[string]int64{"1,200": 1200, "15,437": 15437, "424,": -1, "1,20": -1, ",200": -1, "1234,567": -1, "7": 7} {
		if got := numOr(in); got != want {
			t.Errorf("numOr(%q) = %d, want %d", in, got, want)
		}
	}
}

// The async event WARNs of NCCL 2.23 on, which the reader took for no
// event (2.23-2.28.3's "Got async error event", the GID table change as
// "unknown event type (18)" in 2.23-2.27 and as "GID table changed" from
// 2.28) or misnamed (the "port error(10)" of 2.28.7 on, without its
// device; 2.30's queue-pair line with its state before the event).
// Synthetic lines, each in the format of ncclIbAsyncThreadMain at the
// tag named (NVIDIA/nccl transport/net_ib.cc, from 2.29
// transport/net_ib/common.cc); no public log of these releases' events
// was found.
func TestNCCLAsyncEventForms(t *testing.T) {
	for _, c := range []struct {
		line, dev, event string
		port             int
		onQP             bool
	}{
		{"h1:1:2 [0] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_0:1 Got async error event: port error", "mlx5_0", "port error", 1, false},                                                                                                                                              // v2.23.4-1
		{"h1:1:2 [0] transport/net_ib.cc:176 NCCL WARN NET/IB : mlx5_2:1 unknown event type (18)", "mlx5_2", "GID table change", 1, false},                                                                                                                                                  // v2.23.4-1
		{"h1:1:2 [0] transport/net_ib.cc:204 NCCL WARN NET/IB : mlx5_2:1 unknown event type (25)", "mlx5_2", "unknown event type 25", 1, false},                                                                                                                                             // v2.27.7-1
		{"h1:1:2 [0] transport/net_ib.cc:198 NCCL WARN NET/IB : rocep1s0f1:1 GID table changed", "rocep1s0f1", "GID table change", 1, false},                                                                                                                                                // v2.28.3-1
		{"h1:1:2 [0] transport/net_ib.cc:253 NCCL WARN NET/IB : mlx5_3:1 Got non-fatal async event: port error(10)", "mlx5_3", "port error", 1, false},                                                                                                                                      // v2.28.9-1
		{"h1:1:2 [0] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_1:1 Got non-fatal async event: client reregistration(17)", "mlx5_1", "client reregistration", 1, false},                                                                                                         // v2.30.7-1
		{"h1:1:2 [0] transport/net_ib/common.cc:140 NCCL WARN NET/IB : mlx5_1:1 async fatal event on QP (0x7f0a) qpn=4711 handle=3 send_cq=1 recv_cq=2 state=6 sq_psn=12 rq_psn=34: local access violation work queue error", "mlx5_1", "local access violation work queue error", 1, true}, // v2.30.7-1
		{"h1:1:2 [0] transport/net_ib/common.cc:127 NCCL WARN NET/IB : mlx5_1:1 async fatal event on CQ (0x7f0b) handle=1 cqe=4096: CQ error", "mlx5_1", "CQ error", 1, false},                                                                                                              // v2.30.7-1
	} {
		l := parseLog(t, c.line+"\n")
		if len(l.AsyncEvents) != 1 || l.WarningCount != 0 || l.IBInitWarns.Count != 0 {
			t.Errorf("%s: events %+v, %d other warnings, %d init warnings", c.line, l.AsyncEvents, l.WarningCount, l.IBInitWarns.Count)
			continue
		}
		if e := l.AsyncEvents[0]; e.Device != c.dev || e.Port != c.port || e.Event != c.event || e.OnQP != c.onQP {
			t.Errorf("%s: event %+v", c.line, e)
		}
	}
}

// NCCL 2.30's port failover WARN, printed on a connection (send comm=...)
// from net_ib/p2p_resiliency.cc (NVIDIA/nccl#2157): NET/IB was up and
// connected, so it is no warning of the transport's start, after which
// the doctor told of a fall back to sockets.
func TestIBConnectionWarnIsNoInitWarn(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.30-ib-port-failover-device-0-marked-failed-recovery-yes-nccl2157.txt")
	if l.IBInitWarns.Count != 0 || l.WarningCount != 1 {
		t.Errorf("init warnings %+v, warnings %d", l.IBInitWarns, l.WarningCount)
	}
	// synthetic, in the format of v2.30.7-1's p2p_resiliency.cc:64 and
	// connect.cc:1034: files of connections, without a comm to name.
	for _, line := range []string{
		"h2:20:21 [0] transport/net_ib/p2p_resiliency.cc:64 NCCL WARN NET/IB: The error is fatal (No functional devices left). Cannot continue.",
		"h2:20:21 [0] transport/net_ib/connect.cc:1034 NCCL WARN NET/IB : Remote IB device is incompatible with the local [0]mlx5_0:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA",
	} {
		if l := parseLog(t, line+"\n"); l.IBInitWarns.Count != 0 {
			t.Errorf("%s: read as a warning of the transport's start", line)
		}
	}
	// init.cc's WARNs are the transport's start (v2.30.7-1's init.cc:392).
	if l := parseLog(t, "h2:20:21 [0] transport/net_ib/init.cc:392 NCCL WARN NET/IB: Error in mlx5dv_get_data_direct_sysfs_path with device mlx5_0\n"); l.IBInitWarns.Count != 1 {
		t.Errorf("init.cc's WARN not read as the transport's start: %+v", l.IBInitWarns)
	}
}
