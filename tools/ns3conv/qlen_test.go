package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/metrics"
	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// Forks' committed qlen.txt files (testdata/public/*/SOURCE), each one
// dump of one sample per port at QLEN_MON_START, read against the
// topology.txt of their run: every switch interface the topology gives
// is listed once, at the dump of the monitor's first sample.
func TestReadQlenPublic(t *testing.T) {
	for _, c := range []struct {
		dir, topology string
		time          int64
		ports         int
	}{
		{"hpcc-tianfengfrank", "topology.txt", 2000000000, 6},
		{"int-based-cc", "topology.txt", 1000000000, 6},
		{"e2", "topology_avg.txt", 2000000000, 103},
	} {
		mix := filepath.Join("testdata/public", c.dir, "mix")
		d, err := readFile(filepath.Join(mix, "qlen.txt"), readQlen)
		if err != nil {
			t.Fatal(err)
		}
		if d.time != c.time || d.samples != 1 || d.start() != c.time || len(d.ports) != c.ports {
			t.Errorf("%s: dump at %d of %d samples from %d, %d ports; expected %d, 1 sample, %d ports", c.dir, d.time, d.samples, d.start(), len(d.ports), c.time, c.ports)
		}
		top, err := readFile(filepath.Join(mix, c.topology), readTopology)
		if err != nil {
			t.Fatal(err)
		}
		ifaces := 0
		for _, p := range top.ifaces {
			ifaces += len(p)
		}
		for _, p := range d.ports {
			if _, _, err := top.qlenPeer("qlen.txt", p); err != nil {
				t.Errorf("%s: %v", c.dir, err)
			}
			if s := statsOf(p.counts); s.busy != 0 || s.maxKB != 0 {
				t.Errorf("%s: node %d if %d: %+v, expected an empty queue at the first sample", c.dir, p.node, p.iface, s)
			}
		}
		if ifaces != len(d.ports) {
			t.Errorf("%s: %d ports in qlen.txt, the topology's switches have %d", c.dir, len(d.ports), ifaces)
		}
	}
}

// What is not one run's qlen.txt is refused where it stands; a file the
// monitor never dumped to is no dump, not an error.
func TestReadQlenRefuses(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", ""},
		{"4 1 1\n", "q.txt:1:1: \"4\": expected \"time: T\" first"},
		{"time: x\n4 1 1\n", "q.txt:1:7: time \"x\": expected ns-3's time in whole nanoseconds"},
		{"time: 5 6\n", "q.txt:1:9: expected \"time: T\""},
		{"time: 100\n4 0 1\n", "q.txt:2:3: \"0\": expected a port's interface index, from 1"},
		{"time: 100\n4 1\n", "q.txt:2:3: expected \"NODE IFINDEX COUNT...\""},
		{"time: 100\n4 1 1 -2\n", "q.txt:2:7: count \"-2\": expected a whole number"},
		{"time: 100\n4 1 0 0\n", "q.txt:2:5: no samples"},
		{"time: 100\n4 1 3\n4 2 2 0\n", "q.txt:3:5: 2 samples, node 4 interface 1 (line 2) 3"},
		{"time: 100\n4 1 3\n4 1 3\n", "q.txt:3:1: node 4 interface 1 again in this dump (first at line 2)"},
		{"time: 100\n4 1 3\ntime: 100\n", "q.txt:3:7: time 100: not after the previous dump's 100"},
		{"time: 100\n4 1 3\ntime: 200\n4 1 2\n", "q.txt:4:1: 2 samples a port, fewer than the previous dump's 3"},
		{"time: 100\ntime: 200\n4 1 2\n", "q.txt:1:1: the dump of time 100 has no ports before line 2"},
		{"time: 100\n4 1 1\ntime: 200\n", "q.txt:3:1: the dump of time 200 has no ports before the end of the file"},
	} {
		d, err := readQlen("q.txt", strings.NewReader(c.text))
		if c.want == "" {
			if err != nil || d != nil {
				t.Errorf("%q: %v, %v; expected no dump", c.text, d, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, expected %q", c.text, err, c.want)
		}
	}
	long := "time: 1\n4 1" + strings.Repeat(" 0", maxQlenLine/2) + "\n"
	if _, err := readQlen("q.txt", strings.NewReader(long)); err == nil || !strings.Contains(err.Error(), "q.txt:2:1: bufio.Scanner: token too long") {
		t.Errorf("a line past %d bytes: %v", maxQlenLine, err)
	}
	d, err := readQlen("q.txt", strings.NewReader("time: 100000000\n4 1 3 1\ntime: 200000000\n4 1 5 2 0 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.time != 200000000 || d.samples != 8 || d.start() != 200000000-700 {
		t.Errorf("last dump %+v, expected time 200000000, 8 samples", d)
	}
	if s := statsOf(d.ports[0].counts); s.p50 != 0 || s.p99 != 3 || s.maxKB != 3 || s.busy != 3.0/8 || s.mean != 5.0/8 {
		t.Errorf("stats %+v", s)
	}
}

// compare reads qlen.txt beside fct.txt (testdata/hand/qlen-synthetic.txt,
// written by hand in third.cc's format over the hand run's first 100 us):
// its ports are told by the topology's interfaces (node 4's fifth, to
// node 8, is the link ns-3 does not use; its sixth is the scenario's
// s0/p4) and rocelab's queues are sampled over the same window.
func TestCompareQlen(t *testing.T) {
	var y bytes.Buffer
	if err := fromNs3("testdata/hand/config.txt", &y); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "hand.yaml")
	if err := os.WriteFile(file, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	top, err := readFile("testdata/hand/topology.txt", readTopology)
	if err != nil {
		t.Fatal(err)
	}
	const synthetic = "testdata/hand/qlen-synthetic.txt"
	d, err := readFile(synthetic, readQlen)
	if err != nil {
		t.Fatal(err)
	}
	c, err := compareQueues(file, 1, "testdata/hand/fct.txt", "", top.hostIDs(), d)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.withQlen(synthetic, d, 0, top); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c.print(&out, &out)
	for _, want := range []string{
		"queue length at switch ports (KB, qlen.txt's 1 KB buckets) over 0.1 to 100.0 us: ns-3 1000 samples a port (every 100 ns, third.cc's), rocelab 250 (every 400ns)",
		"s0/p4 (node 4 if 6)",
		"s1/p3 (node 8 if 5)",
		"s0/p0 (node 4 if 1)",
		"(2 ns-3 ports left out",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table does not say %q:\n%s", want, out.String())
		}
	}
	if c.qlen.rocelabSamples == 0 || c.qlen.all[1].busy == 0 {
		t.Errorf("rocelab's side: %d samples, %+v: expected its queues sampled over the window", c.qlen.rocelabSamples, c.qlen.all[1])
	}
	if c.qlen.all[0].maxKB != 119 {
		t.Errorf("ns-3's largest %d KB, expected 119", c.qlen.all[0].maxKB)
	}
	// a priority-0 queue (ns-3's queue 0, which its MMU never counts) is
	// left out of rocelab's side
	want := c.qlen.all[1]
	full := metrics.Points{Every: unit.Microsecond, Values: slices.Repeat([]float64{50000}, 200)}
	c.o.Queues = append(c.o.Queues, twin.Queue{Port: "s0/p4", Priority: 0, Depth: full})
	if err := c.withQlen(synthetic, d, 0, top); err != nil {
		t.Fatal(err)
	}
	if c.qlen.all[1] != want {
		t.Errorf("with a full priority-0 queue rocelab's side is %+v, expected %+v", c.qlen.all[1], want)
	}
	c.o.Queues = c.o.Queues[:len(c.o.Queues)-1]
	// a dump of another topology's ports
	for _, bad := range []struct{ text, want string }{
		{"time: 100000\n3 1 1000\n", "q.txt:2:1: node 3: not a switch of the topology (its switches: 4 8)"},
		{"time: 100000\n8 6 1000\n", "q.txt:2:3: node 8 interface 6: the topology gives it 5 links"},
	} {
		bd, err := readQlen("q.txt", strings.NewReader(bad.text))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.withQlen("q.txt", bd, 0, top); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad.want, "q.txt")) {
			t.Errorf("%q: %v, expected %q", bad.text, err, bad.want)
		}
	}
	// no dump; no topology
	c.qlen = nil
	if err := c.withQlen("qlen.txt", nil, 0, top); err != nil || !strings.Contains(c.qlenNote, "holds no dump") {
		t.Errorf("empty qlen.txt: %v, note %q", err, c.qlenNote)
	}
	if err := c.withQlen(synthetic, d, 0, nil); err != nil || !strings.Contains(c.qlenNote, "give -topology") {
		t.Errorf("without a topology: %v, note %q", err, c.qlenNote)
	}
}

// Floodgate's third.cc (NASA-NJU/Floodgate-NS3 6e40f55, monitor_buffer)
// writes each count after its bucket ("0th: 5"), each switch's total
// ("N-total ...") and the largest queues ("maxPortLength ..."), sampling
// every 100 ns and dumping every 1 ms. testdata/qlen/floodgate-synthetic.txt
// is written by hand in that format.
func TestReadQlenFloodgate(t *testing.T) {
	d, err := readFile("testdata/qlen/floodgate-synthetic.txt", readQlen)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.ports) != 3 || d.samples != 10001 || d.time != 2001000000 {
		t.Fatalf("%d ports, %d samples at %d: expected 3, 10001 at 2001000000", len(d.ports), d.samples, d.time)
	}
	if s := statsOf(d.ports[1].counts); s.maxKB != 2 || s.busy != 5000.0/10001 {
		t.Errorf("node 4 if 2: %+v", s)
	}
	// every 100 ns from 2.0 s; a start off that grid is refused
	if err := d.sampledFrom(2000000000, "config.txt:57:16: QLEN_MON_START"); err != nil || d.every != 100 || d.start() != 2000000000 {
		t.Errorf("from 2 s: %v, every %d", err, d.every)
	}
	for _, c := range []struct {
		start int64
		want  string
	}{
		{2001000001, "QLEN_MON_START 2001000001: after the dump's time 2001000000"},
		{2000000001, "10001 samples to the dump at 2001000000 do not fall at one interval"},
	} {
		if err := d.sampledFrom(c.start, "QLEN_MON_START"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("from %d: %v, expected %q", c.start, err, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"time: 100\n4 1 0th: 3 2th: 1\n", "q.txt:2:12: \"2th:\": expected \"1th:\", the next bucket"},
		{"time: 100\n4 1 0th: 3 1th:\n", "q.txt:2:12: expected \"NODE IFINDEX 0th: COUNT 1th: COUNT ...\""},
	} {
		if _, err := readQlen("q.txt", strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, expected %q", c.text, err, c.want)
		}
	}
}

// ns3conv -qlen has ns-3's monitor sample the whole run: from 0 to the
// first 100 ms dump at or after the scenario's end, the run stopping a
// sample later; without it the monitor starts after the run.
func TestMonitorQueues(t *testing.T) {
	s, err := scenario.LoadFile("scenarios/hadoop16-dcqcn.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := convert(s, "hadoop16-dcqcn.yaml")
	if err != nil {
		t.Fatal(err)
	}
	before := f.config
	for _, want := range []string{"\nQLEN_MON_START 100000001\n", "\nSIMULATOR_STOP_TIME 0.100000000\n"} {
		if !strings.Contains(before, want) {
			t.Fatalf("without -qlen the config does not say %q", want)
		}
	}
	f.monitorQueues(s.Duration)
	for _, want := range []string{"\nQLEN_MON_START 0\n", "\nQLEN_MON_END 100000000\n", "\nSIMULATOR_STOP_TIME 0.100000100\n"} {
		if !strings.Contains(f.config, want) {
			t.Errorf("with -qlen the config does not say %q:\n%s", want, f.config)
		}
	}
	if strings.Count(f.config, "\n") != strings.Count(before, "\n") {
		t.Errorf("the config's lines changed in number")
	}
	// a scenario of 230 ms: the monitor's last dump at 300 ms
	f.config = before
	f.monitorQueues(230 * unit.Millisecond)
	for _, want := range []string{"\nQLEN_MON_START 0\n", "\nQLEN_MON_END 300000000\n", "\nSIMULATOR_STOP_TIME 0.300000100\n"} {
		if !strings.Contains(f.config, want) {
			t.Errorf("230 ms with -qlen: the config does not say %q", want)
		}
	}
}

func FuzzReadQlen(f *testing.F) {
	f.Add("time: 2000000000\n0 1 1\n0 2 1\n")
	f.Add("time: 100000000\n4 1 3 1\ntime: 200000000\n4 1 5 2 0 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		d, err := readQlen("x.txt", strings.NewReader(in))
		if err != nil {
			if !position.MatchString(err.Error()) {
				t.Errorf("error without a position: %v", err)
			}
			return
		}
		if d != nil && (len(d.ports) == 0 || d.samples == 0) {
			t.Errorf("a dump without ports or samples: %+v", d)
		}
	})
}
