package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// handQlenDir writes an ns-3 output directory for the hand run: its
// config.txt with QLEN_MON_START at 100 ns (the synthetic dump's first
// sample), topology.txt, fct.txt and qlen.txt; and the scenario
// from-ns3 writes, with head before it. It returns the scenario's file
// and the directory.
func handQlenDir(t *testing.T, head, qlen string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := os.ReadFile("testdata/hand/config.txt")
	if err != nil {
		t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte("QLEN_MON_START 2000000000"), []byte("QLEN_MON_START 100"), 1)
	for name, data := range map[string][]byte{"config.txt": cfg, "qlen.txt": []byte(qlen)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"topology.txt", "fct.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata/hand", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var y bytes.Buffer
	if err := fromNs3("testdata/hand/config.txt", &y); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "hand.yaml")
	if err := os.WriteFile(file, append([]byte(head), y.Bytes()...), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, dir
}

// handDump is a dump at time (ns) of the hand run's switch ports, every
// sample from 100 ns on (every 100 ns) empty.
func handDump(time int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "time: %d\n", time)
	for _, p := range [][2]int{{4, 1}, {4, 2}, {4, 3}, {4, 4}, {4, 5}, {4, 6}, {8, 1}, {8, 2}, {8, 3}, {8, 4}, {8, 5}} {
		fmt.Fprintf(&b, "%d %d %d\n", p[0], p[1], (time-100)/100+1)
	}
	return b.String()
}

// ns3conv compare reads DIR's qlen.txt with DIR's topology.txt and its
// config.txt's QLEN_MON_START; a config.txt that does not read is refused
// at its line; a scenario cut in time is compared up to the last dump at
// or before the cut, and not at all when the first dump is past it.
func TestCompareCmdQlen(t *testing.T) {
	synthetic, err := os.ReadFile("testdata/hand/qlen-synthetic.txt")
	if err != nil {
		t.Fatal(err)
	}
	file, dir := handQlenDir(t, "", string(synthetic))
	var out, warn bytes.Buffer
	if err := run([]string{"compare", "-topology", "testdata/hand/topology.txt", file, dir}, &out, &warn); err != nil {
		t.Fatal(err)
	}
	if want := "over 0.1 to 100.0 us: ns-3 1000 samples a port (every 100 ns, by QLEN_MON_START)"; !strings.Contains(out.String(), want) {
		t.Errorf("the table does not say %q:\n%s", want, out.String())
	}
	// a config.txt third.cc would not read
	cfg := filepath.Join(dir, "config.txt")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(b, "QLEN_MON_START x\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run([]string{"compare", "-topology", "testdata/hand/topology.txt", file, dir}, &out, &warn)
	if want := cfg + ":"; err == nil || !strings.HasPrefix(err.Error(), want) || !position.MatchString(strings.Replace(err.Error(), cfg, "x.txt", 1)) {
		t.Errorf("an unreadable config.txt: %v, expected an error at its line", err)
	}
	for _, c := range []struct{ name, qlen, want string }{
		{"dump before the cut", handDump(50000) + handDump(100000), "over 0.1 to 50.0 us: ns-3 500 samples a port"},
		{"dump before the cut", handDump(50000) + handDump(100000), "qlen.txt's dump at 50000 ns of ns-3's clock, the last at or before the scenario's cut at 60000 ns; those from 100000 ns on"},
		{"no dump before the cut", handDump(70000) + handDump(100000), "qlen.txt not compared: its first dump, at 70000 ns of ns-3's clock, is past the scenario's cut at 60000 ns"},
	} {
		file, dir := handQlenDir(t, "# Differs: a cut (ns3conv cut: 60000 ns).\n", c.qlen)
		out.Reset()
		if err := run([]string{"compare", "-topology", "testdata/hand/topology.txt", file, dir}, &out, &warn); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: the table does not say %q:\n%s", c.name, c.want, out.String())
		}
	}
}

// A qlen.txt dump after the scenario's end (ns3conv -qlen runs ns-3 to
// the first 100 ms dump at or after it) has rocelab run on to the dump,
// rather than read its queues as empty past the end.
func TestCompareQlenPastEnd(t *testing.T) {
	file, dir := handQlenDir(t, "", handDump(100000))
	y, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, bytes.Replace(y, []byte("\nduration: 4s\n"), []byte("\nduration: 50us\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := readFile(filepath.Join(dir, "qlen.txt"), readQlen)
	if err != nil {
		t.Fatal(err)
	}
	top, err := readFile("testdata/hand/topology.txt", readTopology)
	if err != nil {
		t.Fatal(err)
	}
	c, err := compareQueues(file, 1, filepath.Join(dir, "fct.txt"), "", top.hostIDs(), d)
	if err != nil {
		t.Fatal(err)
	}
	if c.duration != 100*unit.Microsecond || c.ranPast != 50*unit.Microsecond {
		t.Errorf("rocelab ran to %v (past %v), expected the dump's 100us past the scenario's 50us", c.duration, c.ranPast)
	}
	var out, warn bytes.Buffer
	c.print(&out, &warn)
	if want := "note: rocelab ran to 100us, the last qlen.txt dump, past the scenario's 50us"; !strings.Contains(warn.String(), want) {
		t.Errorf("the warnings do not say %q:\n%s", want, warn.String())
	}
}

// ns3conv -qlen writes a config.txt whose monitor samples the whole run;
// without it the monitor starts after the run.
func TestQlenFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "\nQLEN_MON_START 100000001\n"},
		{[]string{"-qlen"}, "\nQLEN_MON_START 0\n"},
	} {
		dir := t.TempDir()
		var out, warn bytes.Buffer
		if err := run(append(append([]string{"-dir", dir}, c.args...), "scenarios/hadoop16-dcqcn.yaml"), &out, &warn); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "config.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%v: config.txt does not say %q", c.args, c.want)
		}
	}
}

// Without -topology, compare reads qlen.txt's ports by the topology.txt
// ns3conv wrote beside it (a recorded run of a2a6-dcqcn-25g, its dump
// synthetic: every port empty over the first 10 us); without one it says
// to give -topology.
func TestCompareCmdQlenOwnTopology(t *testing.T) {
	const scenario = "scenarios/a2a6-dcqcn-25g.yaml"
	dir := t.TempDir()
	var out, warn bytes.Buffer
	if err := run([]string{"-dir", dir, "-seed", "1", scenario}, &out, &warn); err != nil {
		t.Fatal(err)
	}
	fct, err := os.ReadFile("testdata/ns3/a2a6-dcqcn-25g-seed1.txt")
	if err != nil {
		t.Fatal(err)
	}
	top, err := readFile(filepath.Join(dir, "topology.txt"), readTopology)
	if err != nil {
		t.Fatal(err)
	}
	var q strings.Builder
	q.WriteString("time: 2000010000\n")
	for _, node := range slices.Sorted(maps.Keys(top.ifaces)) {
		for i := range top.ifaces[node] {
			fmt.Fprintf(&q, "%d %d 101\n", node, i+1)
		}
	}
	for name, data := range map[string][]byte{"fct.txt": fct, "qlen.txt": []byte(q.String())} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the config ns3conv wrote starts the monitor after the run: this
	// dump is another run's, so that config.txt goes
	if err := os.Remove(filepath.Join(dir, "config.txt")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"compare", "-seed", "1", scenario, dir}, &out, &warn); err != nil {
		t.Fatal(err)
	}
	if want := "ns-3 101 samples a port (every 100 ns, third.cc's)"; !strings.Contains(out.String(), want) {
		t.Errorf("with DIR's topology.txt the table does not say %q:\n%s", want, out.String())
	}
	if err := os.Remove(filepath.Join(dir, "topology.txt")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"compare", "-seed", "1", scenario, dir}, &out, &warn); err != nil {
		t.Fatal(err)
	}
	if want := "qlen.txt not compared: give -topology"; !strings.Contains(out.String(), want) {
		t.Errorf("without a topology the table does not say %q:\n%s", want, out.String())
	}
}
