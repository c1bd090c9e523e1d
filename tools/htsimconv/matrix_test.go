package main

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/scenario"
)

// Without -tm, htsim_roce and htsim_hpcc read the matrix from standard
// input (main_roce.cpp: conns->load(cin)), and so does the import: the
// same scenario as from the file, errors at stdin's line and column.
func TestImportMatrixFromStdin(t *testing.T) {
	const m = "Nodes 16\nConnections 2\n0->5 id 1 start 0 size 10000\n3->4 id 2 start 0 size 4096\n"
	file, err := importMatrix(t, m, "-nodes", "16")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"htsim_roce", "-strat", "ecmp_host", "-paths", "1", "-nodes", "16"}
	var y bytes.Buffer
	if err := fromHtsim(args, strings.NewReader(m), &y); err != nil {
		t.Fatal(err)
	}
	// The head echoes the command line and the name is the matrix's.
	flows := func(s string) string { _, f, _ := strings.Cut(s, "\ntraffic:"); return f }
	if !strings.Contains(y.String(), "name: stdin\n") || flows(y.String()) != flows(file) || flows(file) == "" {
		t.Errorf("from stdin:\n%s\nfrom the file:\n%s", y.String(), file)
	}
	if _, err := scenario.Load("stdin.yaml", y.Bytes()); err != nil {
		t.Fatal(err)
	}
	err = fromHtsim(args, strings.NewReader("Nodes 16\nConnections 1\n0->1 start 0 size\n"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "stdin:3:18: size: expected a value") {
		t.Errorf("bad matrix on stdin: %v", err)
	}
	err = fromHtsim(args, nil, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "expected -tm FILE.cm or the connection matrix on standard input") {
		t.Errorf("no -tm and no stdin: %v", err)
	}
}

// A connection from a host to itself is refused with what htsim does
// with it: htsim_roce aborted (exit 134) as the run started, a run of
// csg-htsim 841d9e7 on "0->0 id 1 start 0 size 90000" showed. It had been
// told as hosts out of range.
func TestRefusesSelfConnection(t *testing.T) {
	_, err := importMatrix(t, "Nodes 16\nConnections 2\n0->0 id 1 start 0 size 90000\n1->2 id 2 start 0 size 90000\n", "-nodes", "16")
	if want := ":3:1: \"0->0\": a connection from a host to itself, at which htsim aborts as the run starts (exit 134"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, expected %q", err, want)
	}
}

// A matrix's prio, recv_done_trigger and addon (csg-htsim's
// ConnectionMatrix reads all three, addon a flag without a value) change
// nothing in htsim_roce and htsim_hpcc, whose mains never use them (a run
// with addon on both connections of a triggered pair printed the same
// completions as without, on each program): the flows import as without
// them, and the head says so. addon had been refused.
func TestImportPriorities(t *testing.T) {
	const m = "Nodes 16\nConnections 2\nTriggers 1\n0->5 id 1 start 0 size 4096 send_done_trigger 1\n3->4 id 2 trigger 1 size 4096\ntrigger id 1 oneshot\n"
	plain, err := importMatrix(t, m, "-nodes", "16")
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range [][2]string{{"size 4096 send", "size 4096 prio 3 send"}, {"4096\ntrigger", "4096 recv_done_trigger 7\ntrigger"}, {"start 0 size", "start 0 addon size"}, {"4096\ntrigger", "4096 addon\ntrigger"}} {
		with, err := importMatrix(t, strings.Replace(m, from[0], from[1], 1), "-nodes", "16")
		if err != nil {
			t.Fatalf("%q: %v", from[1], err)
		}
		body := func(y string) string { return y[strings.Index(y, "\nname:"):] }
		if body(plain) != body(with) {
			t.Errorf("%q moved the scenario:\n%s\nagainst\n%s", from[1], body(with), body(plain))
		}
		if !strings.Contains(with, "# The matrix's prio, recv_done_trigger and addon change nothing: htsim_roce reads them") {
			t.Errorf("%q: the head does not say it is dropped:\n%s", from[1], with)
		}
	}
}

// htsim_roce and htsim_hpcc read a matrix's link failures and never apply
// them: only main_ndp.cpp and main_eqds.cpp call add_failed_link, and a
// 16-host run with an AGG and a CORE failure printed the same completions
// as without, on each program. The import reads them as htsim does
// (refusing what it exits or aborts at, TestImportRefuses), writes the
// scenario of the run without them and says so in the head; it had
// refused every matrix with a Failures line.
func TestImportFailures(t *testing.T) {
	const conns = "0->13 id 1 start 0 size 2000000\n5->13 id 2 start 0 size 2000000\n"
	plain, err := importMatrix(t, "Nodes 16\nConnections 2\n"+conns, "-nodes", "16")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ failures, head string }{
		{"Failures 2\n" + conns + "failure switch_type AGG switch_id 0 link_id 0\nfailure switch_type CORE switch_id 1 link_id 1\n", "# The matrix's 2 link failure(s) change nothing: htsim_roce reads them and never"},
		{"Failures 1\n" + conns + "failure\n", "# The matrix's 1 link failure(s)"},
		{"Failures 0\n" + conns, ""},
		{"Failures 1\n" + conns + "failure switch_id +5abc link_id -2\n", "# The matrix's 1 link failure(s)"},
	} {
		out, err := importMatrix(t, "Nodes 16\nConnections 2\n"+c.failures, "-nodes", "16")
		if err != nil {
			t.Fatalf("%q: %v", c.failures, err)
		}
		if c.head != "" && !strings.Contains(out, c.head) || c.head == "" && strings.Contains(out, "link failure") {
			t.Errorf("%q: head, expected %q:\n%s", c.failures, c.head, out)
		}
		body := func(y string) string { _, b, _ := strings.Cut(y, "\nname: "); return b }
		if body(out) != body(plain) {
			t.Errorf("%q: the scenario differs from the run without failures:\n%s\n---\n%s", c.failures, out, plain)
		}
	}
}

// A matrix without a Nodes line runs on htsim_roce with -nodes's count
// (ConnectionMatrix is made with it; a run showed), and one without
// connections needs no Connections line (htsim counts 0). The import had
// refused the first ("below Nodes -1").
func TestImportMatrixWithoutHeader(t *testing.T) {
	out, err := importMatrix(t, "Connections 1\n0->13 id 1 start 0 size 20000\n", "-nodes", "16")
	if err != nil || !strings.Contains(out, "{name: f1, src: h0, dst: h13, bytes: 27000}") {
		t.Errorf("no Nodes line: %v\n%s", err, out)
	}
	if _, err := importMatrix(t, "Nodes 16\nConnections 0\n", "-nodes", "16"); err != nil {
		t.Errorf("no connections: %v", err)
	}
}

// FuzzReadMatrix: any matrix is read or refused with an error, never a
// panic, and what is read keeps its hosts within the fat-tree.
func FuzzReadMatrix(f *testing.F) {
	f.Add("Nodes 16\nConnections 2\nTriggers 1\n0->1 id 1 start 0 size 10 send_done_trigger 1\n1->2 id 2 trigger 1 size 10\ntrigger id 1 oneshot\n")
	f.Add("Nodes 16\nConnections 1\n# comment\n3->4 id 9 start 2.5e6 size 4096 prio 2\n")
	f.Add("Nodes 16\nConnections 0\nTriggers 1\ntrigger id 3 barrier count 2\n")
	f.Add("Nodes 16\nConnections 2\n0->13 start 0 size 2000000\n13->0 start 0.000000 size 0\n")
	f.Add("Nodes 16\nConnections 2\n0->13 id 99999999999999999999 start 0 size 1e19\n13->0 start Inf size 2147483647\n")
	f.Add("# hand\r\nNodes 16\r\nConnections 2\r\n1->0 id 1 start 0 size 10 \n#x\n 2->0  id 2\tstart 0 size 10")
	f.Add("Nodes 16\nConnections 4\nTriggers 1\n0->1 id 1 start 0 size 10 send_done_trigger 1\n0->2 id 2 start 0 size 10 send_done_trigger 1\n0->3 id 3 trigger 1 size 10\n0->4 id 4 trigger 1 size 10\ntrigger id 1 multishot\n")
	f.Add("Nodes 16\nConnections 1\nFailures 3\n0->1 id 1 start 0 size 10\nfailure switch_type AGG switch_id 0 link_id 0\nfailure\nfailure link_id -+1 switch_type\n")
	f.Add("Nodes 16\nConnections 2\n0->1 id 1 start 0 addon size 10 addon\n1->0 addon\n")
	f.Add("Nodes 16\nConnections 1\nFailures 1\nfailure switch_id 2147483648\n0->1 id 1 start 0 size 10\nfailure link_id 1\n")
	f.Fuzz(func(t *testing.T, m string) {
		conns, trigs, _, err := readMatrix("f.cm", strings.NewReader(m), 16)
		if err != nil {
			return
		}
		for _, c := range conns {
			if c.src < 0 || c.src >= 16 || c.dst < 0 || c.dst >= 16 || c.size < 0 || c.size > math.MaxInt32 || c.id < 0 || c.trigger < 0 || c.trigger != 0 && c.id == 0 {
				t.Fatalf("read %+v", c)
			}
		}
		after, count, err := triggerDeps(conns, trigs, "f.cm")
		if err != nil {
			return
		}
		for i, a := range after {
			if count[i] < 0 || count[i] >= max(len(a), 1) || slices.ContainsFunc(a, func(j int) bool { return j < 0 || j >= len(conns) || j == i }) {
				t.Fatalf("connection %d: after %v, count %d", i, a, count[i])
			}
		}
	})
}

// csg-htsim's own connection matrices (testdata/matrices/SOURCE), as its
// generators write them: most name no flow id, and its examples' give no
// size (sent until -end). Each becomes a scenario of all its connections,
// an id-less one named c and its place, a sizeless one carrying what the
// link carries by -end; the one whose host count no 3-tier fat-tree has is
// refused with the 2-tier size that fits.
func TestImportHtsimMatrices(t *testing.T) {
	for _, c := range []struct {
		file    string
		args    []string
		flows   int
		want    []string // in the scenario, or the error when refused is set
		refused bool
	}{
		{"bidir.cm", []string{"-nodes", "16"}, 2, []string{"name: c1, src: h0, dst: h13, bytes: 2007000", "name: c2, src: h13, dst: h0"}, false},
		{"incast.cm", []string{"-nodes", "16"}, 15, []string{"name: c15, src: h14, dst: h15"}, false},
		{"incast_128.cm", []string{"-nodes", "128"}, 127, []string{"name: c1, src: h104, dst: h33, bytes: 2007000"}, false},
		{"one.cm", []string{"-nodes", "16"}, 1, []string{"name: c1, src: h0, dst: h13"}, false},
		{"outcast_incast.cm", []string{"-nodes", "128"}, 21, []string{"name: f1, src: h1, dst: h0"}, false},
		{"perm_16n_16c_2MB.cm", []string{"-nodes", "16"}, 16, []string{"name: f1,"}, false},
		{"perm_32n_32c_2MB.cm", []string{"-nodes", "32", "-tiers", "2"}, 32, []string{"kind: leaf-spine, leaves: 8"}, false},
		{"perm_32n_32c_2MB.cm", []string{"-nodes", "32"}, 0, []string{"-nodes 32: a 3-tier fat-tree", "with -tiers 2, a leaf-spine of 8 leaves, it has 32"}, true},
		{"permutation-permutation.cm", []string{"-nodes", "432", "-end", "200"}, 432, []string{"carry the 2500000 B", "name: c1, src: h0, dst: h406, bytes: 2500000"}, false},
		{"collateral-incast.cm", []string{"-nodes", "432"}, 64, []string{"name: c1, src: h368, dst: h0, bytes: 12500000"}, false},
		{"perm_1024n_1024c_0u_2000000b.cm", []string{"-nodes", "1024"}, 1024, []string{"kind: fat-tree, k: 16", "name: f1, src: h334, dst: h395, bytes: "}, false},
	} {
		t.Run(c.file+strings.Join(c.args, ""), func(t *testing.T) {
			var y bytes.Buffer
			err := fromHtsim(append([]string{"htsim_roce", "-tm", filepath.Join("testdata", "matrices", c.file), "-strat", "ecmp_host", "-paths", "1"}, c.args...), nil, &y)
			if c.refused {
				for _, w := range c.want {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("error %v, expected %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := scenario.Load(c.file+".yaml", y.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, y.String())
			}
			if n := len(s.Flows); n != c.flows {
				t.Errorf("%d flows, expected %d", n, c.flows)
			}
			for _, w := range c.want {
				if !strings.Contains(y.String(), w) {
					t.Errorf("scenario lacks %q", w)
				}
			}
		})
	}
}

// gen_serialn_alltoall.py's all-to-all keeps 4 connections of each host
// in flight with multishot triggers: each of a round's 4 completions
// starts one of the next round's in the matrix's order, so the k-th waits
// on k of the 4 (after_count), the 4th on all; the last round has 3 (15
// peers), and the 4th completion of the round before starts nothing.
func TestImportMultishot(t *testing.T) {
	var y bytes.Buffer
	if err := fromHtsim([]string{"htsim_roce", "-tm", "testdata/htsim/gen-sn16p4.cm", "-nodes", "16", "-strat", "ecmp_host", "-paths", "1", "-mtu", "4096"}, nil, &y); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"{name: f5, src: h2, dst: h0, bytes: 503808, after: [f1, f2, f3, f4], after_count: 1}",
		"{name: f8, src: h2, dst: h1, bytes: 503808, after: [f1, f2, f3, f4]}",
		"{name: f15, src: h2, dst: h4, bytes: 503808, after: [f9, f10, f11, f12], after_count: 3}",
	} {
		if !strings.Contains(y.String(), w) {
			t.Errorf("scenario lacks %q", w)
		}
	}
	if _, err := scenario.Load("sn.yaml", y.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// A matrix written by hand is read where htsim_roce reads it and refused
// at the line and column where it stops, as htsim_roce (841d9e7) did on
// each: it split "Nodes  16" into an empty field and aborted
// (std::invalid_argument), stopped at a leading space, a tab or a comment
// after the first connection ("Error: unknown id"), and ran CR LF line
// ends and a last line without a newline.
func TestMatrixSplitAsHtsim(t *testing.T) {
	const head, c1, c2 = "Nodes 16\nConnections 2\n", "1->0 id 1 start 0 size 100000", "2->0 id 2 start 0 size 100000"
	for _, c := range []struct{ m, want string }{
		{head + c1 + "\n" + c2, ""},
		{strings.ReplaceAll(head+c1+"\n"+c2+"\n", "\n", "\r\n"), ""},
		{"# two into host 0\n" + head + c1 + " \n" + c2 + "\n", ""},
		{head + c1 + "\n# the second\n" + c2 + "\n", "f.cm:4:1: a comment after the first connection"},
		{head + c1 + "\n " + c2 + "\n", "f.cm:4:1: an empty field"},
		{"Nodes  16\nConnections 2\n" + c1 + "\n" + c2 + "\n", "f.cm:1:7: an empty field"},
		{head + c1 + "\n2->0\tid 2 start 0 size 100000\n", "f.cm:4:5: \"\\t\": htsim splits"},
	} {
		_, _, _, err := readMatrix("f.cm", strings.NewReader(c.m), 16)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.m, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, expected %q", c.m, err, c.want)
		}
	}
}
