package ingest

import (
	"strings"
	"testing"

	"rocelab/internal/counters"
)

// synthetic: the three forms of RDMA port counters.
const (
	syntheticSysfs = `# grep -r . /sys/class/infiniband/mlx5_0/ports/1/hw_counters /sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:1333
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets:2000
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:17
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan:10
/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets:100000
/sys/class/infiniband/mlx5_1/ports/1/hw_counters/np_cnp_sent:5
`
	syntheticRdmaStat = `$ rdma statistic show
link mlx5_0/1 rx_write_requests 10 rx_read_requests 0 out_of_sequence 3 local_ack_timeout_err 0 np_cnp_sent 7
link mlx5_1/1 rx_write_requests 0 rx_read_requests 0 out_of_sequence 0
$ rdma statistic show
link mlx5_0/1 rx_write_requests 110 rx_read_requests 0 out_of_sequence 9 local_ack_timeout_err 2 np_cnp_sent 7
`
	syntheticShowCounters = `mlx5_2
Port 1 hw counters:
	duplicate_request: 4
	implied_nak_seq_err: 1
	rp_cnp_handled: 99
Port 1 counters:
	port_xmit_packets: 5000
`
	syntheticRdmaPretty = `link mlx5_3/1
    rx_write_requests 5
    packet_seq_err 2
`
)

func TestHWCountersSysfs(t *testing.T) {
	h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-sysfs", syntheticSysfs))
	if len(h.Samples) != 2 {
		t.Fatalf("%d samples", len(h.Samples))
	}
	s := &h.Samples[0]
	if s.Device != "mlx5_0" || s.Port != 1 || s.Kind != KindHWCounters {
		t.Errorf("sample %s", s.Name())
	}
	if nicValue(t, s, "np_cnp_sent") != 1333 || nicValue(t, s, "out_of_sequence") != 17 {
		t.Error("values")
	}
	if r, ok := s.RoCEPackets(RX); !ok || r.Value != 100000 || r.Name != "port_rcv_packets" {
		t.Errorf("RoCEPackets %+v", r)
	}
	if h.Samples[1].Device != "mlx5_1" || nicValue(t, &h.Samples[1], "np_cnp_sent") != 5 {
		t.Error("second device")
	}
}

func TestHWCountersRdmaStatisticDelta(t *testing.T) {
	h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-rdma", syntheticRdmaStat))
	if len(h.Samples) != 2 {
		t.Fatalf("%d samples", len(h.Samples))
	}
	s := &h.Samples[0]
	if !s.IsDelta() || s.Device != "mlx5_0" {
		t.Fatalf("mlx5_0 not a delta")
	}
	for n, want := range map[string]uint64{"rx_write_requests": 100, "out_of_sequence": 6, "local_ack_timeout_err": 2, "np_cnp_sent": 0} {
		if got := nicValue(t, s, n); got != want {
			t.Errorf("%s delta = %d, want %d", n, got, want)
		}
	}
	if h.Samples[1].IsDelta() {
		t.Error("mlx5_1 has one dump")
	}
}

func TestHWCountersShowCountersAndPretty(t *testing.T) {
	h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-show", syntheticShowCounters))
	if len(h.Samples) != 1 {
		t.Fatalf("%d samples", len(h.Samples))
	}
	s := &h.Samples[0]
	if s.Device != "mlx5_2" || s.Port != 1 || nicValue(t, s, "rp_cnp_handled") != 99 || nicValue(t, s, "port_xmit_packets") != 5000 {
		t.Errorf("show_counters sample %s", s.Name())
	}
	h = nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-pretty", syntheticRdmaPretty))
	if s := &h.Samples[0]; s.Device != "mlx5_3" || nicValue(t, s, "packet_seq_err") != 2 {
		t.Errorf("pretty sample %s", s.Name())
	}
}

func TestHWCountersLifespanIsNotACounter(t *testing.T) {
	// synthetic: lifespan goes down between dumps; the pair still joins.
	in := "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan:10\n/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:1\n" +
		"/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan:5\n/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:4\n"
	h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-lifespan", in))
	if len(h.Samples) != 1 || !h.Samples[0].IsDelta() || nicValue(t, &h.Samples[0], "out_of_sequence") != 3 {
		t.Fatal("lifespan broke the pair")
	}
}

func TestHWCountersNotInOtherCorpus(t *testing.T) {
	for _, rel := range []string{
		"ethtool/mlx5-xdp-rx-discards-phy-global-pause-lkml.txt",
		"ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt",
		"perftest/ib-read-bw-ib-hdr-table-ucx8852.txt",
	} {
		nicNoArtifact[*HWCounters](t, nicReadCorpus(t, rel))
	}
}

// `rdma statistic show` and `rdma statistic qp show` as a mail wrapped
// them (pairs split across unindented lines): every counter is read, and
// the per-QP counter object is its own sample, named, not the port's.
func TestRdmaStatisticMailWrappedQPObject(t *testing.T) {
	h := nicArtifact[*HWCounters](t, nicReadCorpus(t, "hwcounters/rdma-statistic-show-and-qp-show-mail-wrapped-counter-object-linuxrdma.txt"))
	type got struct {
		dev, obj string
		n        int
	}
	var gs []got
	for _, s := range h.Samples {
		gs = append(gs, got{s.Device, s.Object, s.After.Len()})
		if s.Before != nil || s.After.has("cntn") || s.After.has("pid") {
			t.Errorf("%s: %+v", s.Name(), s.After)
		}
	}
	want := []got{{"mlx5_2", "", 23}, {"mlx5_3", "", 23}, {"mlx5_2", "counter 4 of ib_send_bw, pid 9829, QP 258", 18}}
	if len(gs) != len(want) {
		t.Fatalf("samples %+v", gs)
	}
	for i := range want {
		if gs[i] != want[i] {
			t.Errorf("sample %d = %+v, want %+v", i, gs[i], want[i])
		}
	}
	// SYNTHETIC: two QPs' counter objects on one port whose counters happen
	// to grow from the first to the second are two objects, not a
	// before/after pair of the port.
	const two = "link mlx5_2/1 cntn 4 qp-type RC pid 30489 comm ibv_rc_pingpong LQPN 178 out_of_sequence 2 packet_seq_err 1\n" +
		"link mlx5_2/1 cntn 5 qp-type RC pid 30490 comm ib_write_bw LQPN 179 out_of_sequence 9 packet_seq_err 4\n"
	h = nicArtifact[*HWCounters](t, nicReadText(t, "two-qps", two))
	if len(h.Samples) != 2 || h.Samples[0].Before != nil || h.Samples[1].Object != "QP 179 of ib_write_bw, pid 30490" || h.Samples[0].After.Len() != 2 {
		t.Errorf("samples %+v", h.Samples)
	}
}

// A shell loop's banners name each file of the directory its prompt or
// cd names (leptonai/gpud#943's prompt; a cd, SYNTHETIC); a banner with
// no directory named before it is no counter.
func TestHWCountersLoopBanners(t *testing.T) {
	h := nicArtifact[*HWCounters](t, nicReadCorpus(t, "hwcounters/ib-port-counters-shell-loop-banners-link-downed-255-saturated-gpud943.txt"))
	if len(h.Samples) != 1 || h.Samples[0].Device != "mlx5_1" || h.Samples[0].Port != 1 {
		t.Fatalf("samples %+v", h.Samples)
	}
	for name, want := range map[string]uint64{"link_downed": 255, "port_xmit_discards": 65535, "port_xmit_wait": 4294967295, "symbol_error": 0} {
		if r, ok := h.Samples[0].Get(name); !ok || r.Value != want {
			t.Errorf("%s = %+v, want %d", name, r, want)
		}
	}
	for _, cd := range []string{"cd /sys/class/infiniband/mlx5_3/ports/1/hw_counters", "[root@gpu07 ~]# cd /sys/class/infiniband/mlx5_3/ports/1/hw_counters/",
		`cd /sys/class/infiniband/mlx5_3/ports/1/hw_counters && for f in *; do echo "=== $f ==="; cat $f; done`,
		`$ cd /sys/class/infiniband/mlx5_3/ports/1/hw_counters; for f in *; do echo "=== $f ==="; cat $f; done`} {
		res := nicReadText(t, "synthetic", cd+"\n=== out_of_sequence ===\n12\n")
		if h := nicArtifact[*HWCounters](t, res); len(h.Samples) != 1 || h.Samples[0].Device != "mlx5_3" {
			t.Errorf("%s: %+v", cd, h.Samples)
		}
	}
	if res := nicReadText(t, "synthetic", "=== out_of_sequence ===\n12\n"); len(res.Artifacts) != 0 {
		t.Errorf("no directory: %v", res.Artifacts)
	}
}

// irdma's GEN3 counters have names of several words ("Nak Sequence Error
// Implied"), which `rdma statistic` prints as they are; each is read whole,
// in a line and in pretty mode, where before only its last word was taken
// ("Error", "Implied"). Synthetic: the names are those of the GEN3
// statistics patch to irdma's verbs.c (linux-rdma, 2025), the values
// made up.
func TestHWCountersNamesOfSeveralWords(t *testing.T) {
	for _, text := range []string{
		"# synthetic\nlink irdma0/1 cnpHandled 3 RNR sent 0 RNR received 4 Nak Sequence Error 7 Nak Sequence Error Implied 1 RTO 2 Rcvd Out of order packets 9\n",
		"# synthetic\nlink irdma0/1\n    cnpHandled 3\n    RNR sent 0\n    RNR received 4\n    Nak Sequence Error 7\n    Nak Sequence Error Implied 1\n    RTO 2\n    Rcvd Out of order packets 9\n",
		// Free text after a -p block is not a counter.
		"# synthetic\nlink irdma0/1\n    cnpHandled 3\n    RNR sent 0\n    RNR received 4\n    Nak Sequence Error 7\n    Nak Sequence Error Implied 1\n    RTO 2\n    Rcvd Out of order packets 9\nthe job ran for 5\n",
		// A mail wrap inside a name.
		"# synthetic\nlink irdma0/1 cnpHandled 3 RNR sent 0 RNR received 4 Nak Sequence Error 7 Nak Sequence Error Implied 1 RTO 2 Rcvd Out of\norder packets 9\n",
		// Seven words are no name: none until the next value.
		"# synthetic\nlink irdma0/1 cnpHandled 3 RNR sent 0 a b c d e f g h 1 RNR received 4 Nak Sequence Error 7 Nak Sequence Error Implied 1 RTO 2 Rcvd Out of order packets 9\n",
	} {
		h := nicArtifact[*HWCounters](t, nicReadText(t, "irdma.txt", text))
		if len(h.Samples) != 1 {
			t.Fatalf("samples %+v", h.Samples)
		}
		got := map[string]uint64{}
		for _, c := range h.Samples[0].After.Counters {
			got[c.Name] = c.Value
		}
		want := map[string]uint64{"cnpHandled": 3, "RNR sent": 0, "RNR received": 4, "Nak Sequence Error": 7,
			"Nak Sequence Error Implied": 1, "RTO": 2, "Rcvd Out of order packets": 9}
		if len(got) != len(want) {
			t.Errorf("counters %v", got)
		}
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("%q = %d, %v; want %d", k, g, ok, v)
			}
		}
	}
}

// The same GEN3 names are sysfs files with spaces in their names, read as
// grep prints them ("path:value"), as `more` prints them (the path between
// rules, the value below) and under a shell loop's banner; before, only
// RTO, the one name of a single word, was read. A path followed by prose
// is no counter file. Synthetic values.
func TestHWCountersSysfsNamesOfSeveralWords(t *testing.T) {
	const dir = "/sys/class/infiniband/irdma0/ports/1/hw_counters/"
	for _, text := range []string{
		"# synthetic\n" + dir + "Nak Sequence Error:7\n" + dir + "Nak Sequence Error Implied:1\n" + dir + "RTO:2\n" + dir + "Rcvd Out of order packets:9\n",
		"# synthetic\n::::::::::::::\n" + dir + "Nak Sequence Error\n::::::::::::::\n7\n::::::::::::::\n" + dir + "Nak Sequence Error Implied\n::::::::::::::\n1\n" +
			"::::::::::::::\n" + dir + "RTO\n::::::::::::::\n2\n::::::::::::::\n" + dir + "Rcvd Out of order packets\n::::::::::::::\n9\n",
		"# synthetic\ncd " + dir + "\n=== ./Nak Sequence Error ===\n7\n=== ./Nak Sequence Error Implied ===\n1\n=== ./RTO ===\n2\n=== ./Rcvd Out of order packets ===\n9\n",
	} {
		h := nicArtifact[*HWCounters](t, nicReadText(t, "irdma-sysfs.txt", text))
		if len(h.Samples) != 1 {
			t.Fatalf("samples %+v", h.Samples)
		}
		s := &h.Samples[0]
		for name, want := range map[string]uint64{"Nak Sequence Error": 7, "Nak Sequence Error Implied": 1, "RTO": 2, "Rcvd Out of order packets": 9} {
			if got := nicValue(t, s, name); got != want {
				t.Errorf("%q = %d, want %d", name, got, want)
			}
		}
	}
	// Names of several words the counters table does not know ("CRC
	// errors", "Rx atomics": irdma's GEN3 prints such names) are read in
	// every form, as grep's already were: `more`'s rules and the banner
	// bound the name.
	for _, text := range []string{
		"# synthetic\n" + dir + "CRC errors:3\n" + dir + "Rx atomics:5\n",
		"# synthetic\n::::::::::::::\n" + dir + "CRC errors\n::::::::::::::\n3\n::::::::::::::\n" + dir + "Rx atomics\n::::::::::::::\n5\n",
		"# synthetic\ncd " + dir + "\n=== ./CRC errors ===\n3\n=== ./Rx atomics ===\n5\n",
		"# synthetic\n=== " + dir + "CRC errors ===\n3\n=== " + dir + "Rx atomics ===\n5\n",
	} {
		h := nicArtifact[*HWCounters](t, nicReadText(t, "irdma-sysfs-unknown.txt", text))
		if len(h.Samples) != 1 || nicValue(t, &h.Samples[0], "CRC errors") != 3 || nicValue(t, &h.Samples[0], "Rx atomics") != 5 {
			t.Errorf("%q: samples %+v", text, h.Samples)
		}
	}
	prose := "# synthetic\n" + dir + "out_of_sequence stays at\n0\n"
	if res := nicReadText(t, "prose.txt", prose); len(res.Artifacts) != 0 {
		t.Errorf("a path and prose read as counters: %+v", res.Artifacts)
	}
}

// Under `rdma -p statistic show link`, only indented lines are the link's
// counters: a note after the block with trailing spaces is no counter
// (synthetic).
func TestHWCountersPrettyTrailingSpaces(t *testing.T) {
	in := "$ rdma -p statistic show link mlx5_1/1\nlink mlx5_1/1\n    rx_write_requests 10\n    out_of_sequence 4\nafter the block a note line 5   \n"
	h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-pretty-trailing", in))
	for _, s := range h.Samples {
		for _, c := range s.After.Counters {
			if c.Name == "after the block a note line" {
				t.Errorf("a note read as a counter: %+v", c)
			}
		}
	}
	if len(h.Samples) != 1 || nicValue(t, &h.Samples[0], "out_of_sequence") != 4 {
		t.Errorf("samples %+v", h.Samples)
	}
}

// `rdma -j statistic show` prints the ports as a JSON array, on one line
// or with -p over many; each port object's numeric keys are its counters,
// and two arrays are a before/after pair. Before, the JSON was no input
// rocelab read. Synthetic values; the keys are those of the Pollara ionic
// dumps amd/node-scraper records and mlx5's.
func TestHWCountersRdmaJSON(t *testing.T) {
	one := `$ rdma -j statistic show
[{"ifname":"ionic_0","port":1,"rx_rdma_ucast_pkts":2000,"tx_rdma_ack_timeout":7,"req_rx_pkt_seq_err":3},{"ifname":"mlx5_0","port":1,"out_of_sequence":17,"local_ack_timeout_err":2}]
`
	pretty := `[ {
        "ifname": "mlx5_0",
        "port": 1,
        "out_of_sequence": 20,
        "local_ack_timeout_err": 5
    } ]
`
	h := nicArtifact[*HWCounters](t, nicReadText(t, "rdma-j.txt", one+pretty))
	if len(h.Samples) != 2 {
		t.Fatalf("samples %+v", h.Samples)
	}
	for _, s := range h.Samples {
		switch s.Device {
		case "ionic_0":
			if nicValue(t, &s, "tx_rdma_ack_timeout") != 7 || nicValue(t, &s, "rx_rdma_ucast_pkts") != 2000 || s.Before != nil {
				t.Errorf("ionic_0 %+v", s)
			}
		case "mlx5_0":
			if s.Before == nil || nicValue(t, &s, "out_of_sequence") != 3 {
				t.Errorf("mlx5_0 is no before/after pair: %+v", s)
			}
			if r, _ := s.Get("out_of_sequence"); len(r.Evidence) == 0 || r.Evidence[len(r.Evidence)-1].Line != 6 {
				t.Errorf("out_of_sequence's evidence %+v, want line 6", r.Evidence)
			}
		default:
			t.Errorf("device %q", s.Device)
		}
	}
	// `rdma -j statistic qp show` (the keys iproute2's rdma/stat.c
	// res_counter_line prints, synthetic values): each counter object on
	// a port is its own sample named by its QPs, two arrays pair it
	// before/after, and ifindex, cntn and pid are no counters.
	qp := `[{"ifindex":3,"ifname":"mlx5_0","port":1,"cntn":4,"qp-type":"RC","pid":30489,"comm":"ib_write_bw","out_of_sequence":2,"packet_seq_err":1,"lqpn":[178]},` +
		`{"ifindex":3,"ifname":"mlx5_0","port":1,"cntn":5,"qp-type":"RC","pid":30490,"comm":"ib_read_bw","out_of_sequence":0,"lqpn":[179,180]}]` + "\n"
	h = nicArtifact[*HWCounters](t, nicReadText(t, "rdma-j-qp.txt", "$ rdma -j statistic qp show\n"+qp+strings.Replace(qp, `"out_of_sequence":2`, `"out_of_sequence":9`, 1)))
	objs := map[string]uint64{}
	for _, s := range h.Samples {
		if s.Device != "mlx5_0" || s.Port != 1 || s.Before == nil || s.After.has("ifindex") || s.After.has("cntn") || s.After.has("pid") {
			t.Errorf("qp sample %q %+v", s.Object, s.After)
		}
		objs[s.Object] = nicValue(t, &s, "out_of_sequence")
	}
	if len(objs) != 2 || objs["QP 178 of ib_write_bw, pid 30489"] != 7 || objs["QP 179,180 of ib_read_bw, pid 30490"] != 0 {
		t.Errorf("qp objects %v", objs)
	}
	// A cut array is reported where it opens, not dropped.
	h = nicArtifact[*HWCounters](t, nicReadText(t, "cut.txt", "$ rdma -j statistic show\n[{\"ifname\":\"mlx5_0\",\"port\":1,\"out_of_sequence\":17,\n"))
	if len(h.Garbled) != 1 || h.Garbled[0].Line != 2 || len(h.Samples) != 0 {
		t.Errorf("cut array: %+v %+v", h.Garbled, h.Samples)
	}
	// An array with an element that is no object is reported, not dropped.
	h = nicArtifact[*HWCounters](t, nicReadText(t, "not-objects.txt", "$ rdma -j statistic show\n[{\"ifname\":\"mlx5_0\",\"port\":1,\"out_of_sequence\":3},2]\n"))
	if len(h.Garbled) != 1 || h.Garbled[0].Line != 2 || !strings.Contains(h.Garbled[0].Expected, "cannot unmarshal number") {
		t.Errorf("array of numbers: %+v", h.Garbled)
	}
	// An ethtool --json array has no port objects: no counters.
	if res := nicReadText(t, "ethtool-j.txt", "[ {\n        \"ifname\": \"eth0\",\n        \"eth-mac\": {\n            \"FramesReceivedOK\": 5\n        }\n    } ]\n"); len(res.Artifacts) > 0 {
		for _, a := range res.Artifacts {
			if _, ok := a.(*HWCounters); ok {
				t.Errorf("ethtool's JSON read as RDMA counters")
			}
		}
	}
}

// A loop in the counters directory a cd names prints each file's bare
// name and value on one line (echo, or printf's padded columns), `grep .
// *` prints "name:value", tail and head of several files print "==> name
// <==" before each, and `echo $f $(cat $f)` of full paths prints the path,
// a blank and the value. Each is one port's dump; before, none was read.
// The real one is an Omni-Path port's printf loop (netdata #9091).
func TestHWCountersListingsInCounterDir(t *testing.T) {
	h := nicArtifact[*HWCounters](t, nicReadCorpus(t, "hwcounters/hw-counters-printf-loop-in-dir-hfi1-omnipath-rcresend-pktdrop-netdata9091.txt"))
	if len(h.Samples) != 1 || h.Samples[0].Device != "hfi1_0" || h.Samples[0].Port != 1 || h.Samples[0].After.Len() != 37 {
		t.Fatalf("samples %+v", h.Samples)
	}
	for name, want := range map[string]uint64{"RcResend": 2079, "PktDrop": 134, "RcAcks": 19918731, "RcvHdrOvr23": 0} {
		if r, ok := h.Samples[0].Get(name); !ok || r.Value != want {
			t.Errorf("%s = %+v, want %d", name, r, want)
		}
	}
	// synthetic: the other listings, of one mlx5 port.
	cd := "$ cd /sys/class/infiniband/mlx5_0/ports/1/hw_counters\n"
	path := "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"
	for form, text := range map[string]string{
		"echo":    cd + "$ for f in *; do echo $f $(cat $f); done\nout_of_sequence 45\nnp_cnp_sent 7\n",
		"grep":    cd + "$ grep . *\nout_of_sequence:45\nnp_cnp_sent:7\n",
		"colon":   cd + "$ for f in *; do echo \"$f: $(cat $f)\"; done\nout_of_sequence: 45\nnp_cnp_sent: 7\n",
		"tail":    cd + "$ tail -n +1 *\n==> out_of_sequence <==\n45\n\n==> np_cnp_sent <==\n7\n",
		"head":    "$ head " + path + "*\n==> " + path + "out_of_sequence <==\n45\n\n==> " + path + "np_cnp_sent <==\n7\n",
		"pathval": "$ for f in " + path + "*; do echo $f $(cat $f); done\n" + path + "out_of_sequence 45\n" + path + "np_cnp_sent 7\n",
	} {
		h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-"+form, text))
		if len(h.Samples) != 1 || h.Samples[0].Device != "mlx5_0" || h.Samples[0].After.Len() != 2 {
			t.Errorf("%s: samples %+v", form, h.Samples)
			continue
		}
		if nicValue(t, &h.Samples[0], "out_of_sequence") != 45 || nicValue(t, &h.Samples[0], "np_cnp_sent") != 7 {
			t.Errorf("%s: values", form)
		}
	}
}

// Outside a counter directory, or past the listing, a "name value" line
// is no counter: after a cd elsewhere, after the listing's first line of
// something else, or indented (ethtool -S). Synthetic.
func TestHWCountersListingEnds(t *testing.T) {
	cd := "$ cd /sys/class/infiniband/mlx5_0/ports/1/hw_counters\n$ for f in *; do echo $f $(cat $f); done\nout_of_sequence 45\n"
	for name, text := range map[string]string{
		"cd elsewhere": cd + "$ cd /tmp\nnp_cnp_sent 7\n",
		"listing over": cd + "$ uptime\nnp_cnp_sent 7\n",
		"indented":     cd + "     np_cnp_sent: 7\n",
	} {
		h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic", text))
		if len(h.Samples) != 1 || h.Samples[0].After.Len() != 1 {
			t.Errorf("%s: samples %+v", name, h.Samples)
		}
	}
	if res := nicReadText(t, "synthetic", "$ cd /tmp\nnp_cnp_sent 7\nout_of_sequence 45\n"); len(res.Artifacts) != 0 {
		t.Errorf("no counter directory: %v", res.Artifacts)
	}
}

// printf's "%-20.20s" (the loop of netdata #9091) cuts mlx5's longer
// names: a padded name the table does not know is the one known name it
// starts, so local_ack_timeout_err and np_ecn_marked_roce_packets are
// still read. A short or ambiguous cut, or an unpadded one, stays as
// printed. Synthetic: mlx5's names under that loop, values made up.
func TestHWCountersPrintfCutNames(t *testing.T) {
	in := "cd /sys/class/infiniband/mlx5_0/ports/1/hw_counters\nfor i in *; do printf \"%-20.20s  %s\\n\" \"$i\" \"$(<$i)\"; done\n" +
		"local_ack_timeout_er  12\nnp_ecn_marked_roce_p  900\nout_of_sequence       7\nroce_slow_restart_    3\nrp_cnp_hand           4\n"
	h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-printf-cut", in))
	if len(h.Samples) != 1 {
		t.Fatalf("samples %+v", h.Samples)
	}
	s := &h.Samples[0]
	for name, want := range map[string]uint64{"local_ack_timeout_err": 12, "np_ecn_marked_roce_packets": 900, "out_of_sequence": 7, "roce_slow_restart_": 3, "rp_cnp_hand": 4} {
		if got := nicValue(t, s, name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	echo := "cd /sys/class/infiniband/mlx5_0/ports/1/hw_counters\nlocal_ack_timeout_er 12\n"
	if h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-echo", echo)); !h.Samples[0].Has("local_ack_timeout_er") {
		t.Errorf("an unpadded name was completed: %+v", h.Samples[0].After)
	}
}

// A counter directory's listing is only the output of the cd's own
// command or the loop after it, and only of its names: other commands'
// output, prose about a path, ls's total and names of several words the
// table does not know are no counters; trailing blanks, irdma GEN3 names
// and printf's cut of hw_counters and counters/ names are read. Synthetic.
func TestHWCountersListingBounds(t *testing.T) {
	cd := func(dev, dir string) string { return "$ cd /sys/class/infiniband/" + dev + "/ports/1/" + dir + "\n" }
	hw := cd("mlx5_0", "hw_counters")
	loop := "$ for f in *; do echo $f $(cat $f); done\n"
	pf := "$ for i in *; do printf \"%-20.20s  %s\\n\" \"$i\" \"$(<$i)\"; done\n"
	for _, c := range []struct {
		name, text, dev string
		want            map[string]uint64
		not             []string
	}{
		{"cat then show_counters", "$ cd /sys/class/infiniband/mlx5_0/ports/1/hw_counters; cat np_cnp_sent\n100\n$ show_counters mlx5_bond_0\nPort 1 hw counters:\nnp_cnp_sent: 100\n", "mlx5_bond_0", map[string]uint64{"np_cnp_sent": 100}, nil},
		{"ethtool awk", hw + "$ ethtool -S eth0 | awk '{print $1, $2}'\nrx_packets: 100\n" + hw + loop + "out_of_sequence 45\n", "mlx5_0", map[string]uint64{"out_of_sequence": 45}, []string{"rx_packets"}},
		{"mlnx_qos words", hw + "$ for f in *; do echo \"$f: $(cat $f)\"; done\nout_of_sequence: 45\nCable len: 7\n", "mlx5_0", map[string]uint64{"out_of_sequence": 45}, []string{"Cable len"}},
		{"ls total", hw + "$ ls -l | head -1; grep . *\ntotal 0\nout_of_sequence:45\n", "mlx5_0", map[string]uint64{"out_of_sequence": 45}, []string{"total"}},
		{"trailing blanks", hw + loop + "np_cnp_sent 100   \n", "mlx5_0", map[string]uint64{"np_cnp_sent": 100}, nil},
		{"irdma GEN3", cd("irdma0", "hw_counters") + loop + "Nak Sequence Error 7\nSome Unknown Words 3\nRTO 2\n", "irdma0", map[string]uint64{"Nak Sequence Error": 7, "RTO": 2}, []string{"Some Unknown Words"}},
		{"bare cd", hw + "$ cd\n$ for f in *; do echo $f $(cat $f); done\nout_of_sequence 45\n/sys/class/infiniband/mlx5_1/ports/1/hw_counters/np_cnp_sent:1\n", "mlx5_1", map[string]uint64{"np_cnp_sent": 1}, nil},
		{"mana shorter name", cd("mana_0", "hw_counters") + pf + "local_ack_timeout_er  12\nrequester_rnr_nak     5\n", "mana_0", map[string]uint64{"local_ack_timeout_err": 12, "requester_rnr_nak": 5}, nil},
		{"port counters cut", cd("mlx5_0", "counters") + pf + "port_rcv_remote_phys  3\nlocal_link_integrity  2\nexcessive_buffer_ove  1\n", "mlx5_0", map[string]uint64{"port_rcv_remote_physical_errors": 3, "local_link_integrity_errors": 2, "excessive_buffer_overrun_errors": 1}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-"+c.name, c.text))
			if len(h.Samples) != 1 || h.Samples[0].Device != c.dev {
				t.Fatalf("samples %+v", h.Samples)
			}
			s := &h.Samples[0]
			for name, want := range c.want {
				if r, ok := s.Get(name); !ok || r.Value != want {
					t.Errorf("%s = %+v, want %d", name, r, want)
				}
			}
			for _, name := range c.not {
				if s.Has(name) {
					t.Errorf("%q read as a counter", name)
				}
			}
		})
	}
	prose := "the file /sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence shows 1234\n"
	nicNoArtifact[*HWCounters](t, nicReadText(t, "synthetic-prose", prose))
}

// mlx5's optional hw_counters (cc_rx_ce_pkts, cc_rx_cnp_pkts of Linux
// 5.16) print after the others once `rdma statistic set ...
// optional-counters` enabled them: the cover letter's session reads as one
// mlx5 port of 30 counters, each a concept the rules read, and the `rdma
// statistic mode` lines naming them are no counters.
func TestRdmaStatisticOptionalCounters(t *testing.T) {
	h := nicArtifact[*HWCounters](t, nicReadCorpus(t, "hwcounters/rdma-statistic-show-mlx5-optional-counters-cc-rx-ce-cnp-icrc-linuxrdma.txt"))
	if len(h.Samples) != 1 || h.Samples[0].Device != "rocep8s0f0" || h.Samples[0].After.Len() != 30 {
		t.Fatalf("samples %+v", h.Samples)
	}
	s := &h.Samples[0]
	if v, ok := s.Vendor(); !ok || v != counters.MLX5 {
		t.Errorf("vendor %v %v", v, ok)
	}
	for name, want := range map[string]counters.Concept{
		"cc_rx_ce_pkts":           counters.ECNMarkedRoCE,
		"cc_rx_cnp_pkts":          counters.CNPHandled,
		"rx_icrc_encapsulated":    counters.ICRCEncapsulated,
		"roce_slow_restart_trans": counters.SlowRestartTrans,
	} {
		if got := s.ConceptOf(name); got != want {
			t.Errorf("ConceptOf(%s) = %q, want %q", name, got, want)
		}
	}
	// The name the port always prints comes first: np_ecn_marked_roce_packets
	// is the marks, cc_rx_ce_pkts their second count.
	if r, ok := s.Concept(counters.ECNMarkedRoCE, counters.RX, 0); !ok || r.Name != "np_ecn_marked_roce_packets" {
		t.Errorf("ECN marks read from %+v", r)
	}
}

// TestHWCountersElasticTaggedHostsApart: the same port of two tagged
// sources ("[gpu01]:", "[gpu02]:") is two ports, never one dump or a pair.
func TestHWCountersElasticTaggedHostsApart(t *testing.T) {
	const in = `[gpu01]:/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:17
[gpu02]:/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:900
`
	h := nicArtifact[*HWCounters](t, nicReadText(t, "synthetic-elastic-hosts", in))
	checkTaggedApart(t, h.Samples, "gpu01", "gpu02")
}
