package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/tools/internal/agree"
)

// TestAgreesWithHtsim runs the agreement scenarios (scenarios/agree-*.yaml:
// the comparison's flows with htsim's PFC thresholds) on rocelab with the
// seeds htsim ran them with, and holds the flow completion times to
// htsim's (testdata/htsim: csg-htsim's own output, see each file's head).
// It runs each twice: as written, and as from-htsim imports the run from
// htsim's own command line (each file's head) and the connection matrix
// htsim read, with htsim's thresholds as a static threshold where the
// written scenarios approximate them by a dynamic one.
// The two pick ECMP paths with different hashes, so single flows differ;
// what is compared is each statistic averaged over the seeds. Every flow
// must complete: a port that went idle behind a PFC frame once left five
// of the permutation's flows queued for good.
func TestAgreesWithHtsim(t *testing.T) {
	for _, c := range []struct {
		workload string
		seeds    int
		// the largest relative differences allowed in the seed averages
		mean, p50, max float64
	}{
		// ECMP collisions and PFC spreading: the mean agrees closely, the
		// tails depend on which collisions each hash makes.
		{"perm128", 6, 0.05, 0.10, 0.15},
		// The same with 1 us of switch latency: each switch holds a frame
		// between routing and its egress queue. The imported median sits
		// at +8.4 %, hence 12 % (docs/engine.md).
		{"perm128-lat", 6, 0.05, 0.12, 0.15},
		// One bottleneck, the receiver's link: the last completion is the
		// line rate's, the order of the others PFC's fairness.
		{"incast127", 3, 0.03, 0.06, 0.01},
	} {
		for _, how := range []string{"written", "imported"} {
			t.Run(c.workload+"/"+how, func(t *testing.T) {
				var h, r agree.Seeds
				for seed := 1; seed <= c.seeds; seed++ {
					file := fmt.Sprintf("testdata/htsim/%s-seed%d.txt", c.workload, seed)
					h.Add(htsimFinishes(t, file))
					s := agreementScenario(t, c.workload, file, how == "imported")
					s.Seed = uint64(seed)
					o, err := agree.RunScenario(s)
					if err != nil {
						t.Fatal(err)
					}
					r.Add(agree.Finishes(o))
				}
				holdSeeds(t, fmt.Sprintf("%s %s over %d seeds", c.workload, how, c.seeds), &h, &r, c.mean, c.p50, c.max)
			})
		}
	}
}

// agreementScenario is the workload's agreement scenario as written, or,
// imported, the scenario from-htsim writes from the htsim command line in
// htsimOut's head ("# run: htsim_roce ... -tm FILE.cm ...") and the
// matrix the written scenario converts to.
func agreementScenario(t *testing.T, workload, htsimOut string, imported bool) *scenario.Scenario {
	t.Helper()
	written := "scenarios/agree-" + workload + ".yaml"
	s, err := scenario.LoadFile(written)
	if err != nil {
		t.Fatal(err)
	}
	if !imported {
		return s
	}
	cm := filepath.Join(t.TempDir(), workload+".cm")
	var m bytes.Buffer
	if _, err := convert(s, 4096, 1000, written, &m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cm, m.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return importRecorded(t, htsimOut, cm)
}

// importRecorded is the scenario from-htsim writes from the command line
// in htsimOut's head ("# run: htsim_roce ... (note)"), with FILE.cm, where
// the line names it, replaced by matrix.
func importRecorded(t *testing.T, htsimOut, matrix string) *scenario.Scenario {
	t.Helper()
	var y bytes.Buffer
	if err := fromHtsim(recordedArgs(t, htsimOut, matrix), nil, &y); err != nil {
		t.Fatalf("%s: %v", htsimOut, err)
	}
	s, err := scenario.Load(htsimOut+".yaml", y.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, y.String())
	}
	return s
}

// recordedArgs is the htsim command line in htsimOut's head ("# run:
// htsim_roce ... (note)"), with FILE.cm, where the line names it,
// replaced by matrix.
func recordedArgs(t *testing.T, htsimOut, matrix string) []string {
	t.Helper()
	head, err := os.ReadFile(htsimOut)
	if err != nil {
		t.Fatal(err)
	}
	_, cmd, ok := strings.Cut(string(head), "# run: ")
	cmd, _, _ = strings.Cut(cmd, " (")
	if !ok {
		t.Fatalf("%s: no \"# run: htsim_roce ...\" line", htsimOut)
	}
	return strings.Fields(strings.Replace(cmd, "FILE.cm", matrix, 1))
}

// holdSeeds holds the seed averages of rocelab's completion times (r) to
// htsim's (h): mean, median and last within their bounds, and any more
// metrics beside them.
func holdSeeds(t *testing.T, label string, h, r *agree.Seeds, mean, p50, last float64, more ...agree.Metric) {
	t.Helper()
	hm, rm := h.Mean(), r.Mean()
	agree.Hold(t, label, "htsim", append([]agree.Metric{
		{Name: "mean", Other: hm.Mean, Rocelab: rm.Mean, Bound: mean},
		{Name: "p50", Other: hm.P50, Rocelab: rm.P50, Bound: p50},
		{Name: "max", Other: hm.Max, Rocelab: rm.Max, Bound: last},
	}, more...))
}

// TestAgreesWithHtsimVariants imports htsim_roce runs of the permutation
// and the incast of TestAgreesWithHtsim with the flags changed one kind
// at a time, as a judge would pass them (testdata/htsim/var-*: each
// run's command line and pinned clock in its head, the matrix the
// written scenario converts to): htsim's own 9000 B packets, an
// Ethernet MTU's 1500 and 1100 and 3000 B, which RoCE's path MTUs do not
// hold alike (pathMTU), links at 400G and 25G, and half a microsecond of
// cable and of switch a hop. Each statistic is averaged over 3 seeds.
// (-q, a matrix's start times and -start_delta leave htsim's output byte
// for byte as it was: docs/engine.md.)
func TestAgreesWithHtsimVariants(t *testing.T) {
	for _, c := range []struct {
		name, workload string
		// the largest relative differences allowed
		mean, p50, max float64
	}{
		// Measured (mean, median, last): the permutation's last is the
		// flow its ECMP collisions slow most, which each hash draws its
		// own way, hence the wider bounds there.
		// htsim's default 9000 B packets, sent as 4096: -0.1, -3.2, +7.6 %;
		// +0.3, -0.6, +1.3 %.
		{"perm128-mtu9000", "perm128", 0.03, 0.05, 0.10},
		{"incast127-mtu9000", "incast127", 0.03, 0.03, 0.02},
		// 1500 B, sent as 2048 (pathMTU): +2.6, -1.0, +4.0 %; +0.1, -0.3,
		// -0.3 %. As 1024, the largest MTU it holds: +7.5, +3.5, +7.2 %;
		// +4.2, +4.4, +3.6 % (82 B of headers a 1024 B payload)
		{"perm128-mtu1500", "perm128", 0.04, 0.03, 0.06},
		{"incast127-mtu1500", "incast127", 0.02, 0.02, 0.01},
		// 3000 B as 4096: +0.1, -6.7, +9.7 %; -0.4, -1.6, -0.1 % (as 2048:
		// +2.2, -3.8, +12.4 %; +1.9, +0.5, +1.8 %)
		{"perm128-mtu3000", "perm128", 0.03, 0.08, 0.12},
		{"incast127-mtu3000", "incast127", 0.02, 0.03, 0.01},
		// 1100 B as 1024: +1.2, +10.0, -18.8 %; +1.8, +0.6, +2.0 % (as
		// 2048: -3.1, +6.1, -21.9 %; -2.1, -3.7, -1.8 %). htsim's last
		// here is 2212 us, its others' 1496-1778
		{"perm128-mtu1100", "perm128", 0.03, 0.12, 0.21},
		{"incast127-mtu1100", "incast127", 0.03, 0.02, 0.03},
		// 400G: +1.8, -1.1, +9.9 %; -0.1, -0.5, +0.3 %
		{"perm128-400g", "perm128", 0.03, 0.03, 0.12},
		{"incast127-400g", "incast127", 0.02, 0.02, 0.01},
		// 25G: +3.0, +1.6, +7.2 %; -0.5, -2.6, +0.4 %
		{"perm128-25g", "perm128", 0.04, 0.03, 0.09},
		{"incast127-25g", "incast127", 0.02, 0.04, 0.01},
		// 0.5 us of cable and 0.5 us of switch a hop: +0.9, -1.5, -8.1 %;
		// +0.6, +0.2, +0.4 %
		{"perm128-hop05", "perm128", 0.03, 0.03, 0.10},
		{"incast127-hop05", "incast127", 0.02, 0.02, 0.01},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h, r agree.Seeds
			for seed := 1; seed <= 3; seed++ {
				file := fmt.Sprintf("testdata/htsim/var-%s-seed%d.txt", c.name, seed)
				h.Add(htsimFinishes(t, file))
				o, err := agree.RunScenario(agreementScenario(t, c.workload, file, true))
				if err != nil {
					t.Fatal(err)
				}
				r.Add(agree.Finishes(o))
			}
			holdSeeds(t, c.name+" imported over 3 seeds", &h, &r, c.mean, c.p50, c.max)
			if c.workload != "incast127" {
				return
			}
			// The incast's last completion is the receiver's link draining
			// every byte: it differs by the wire per byte of payload,
			// htsim's 64 B header against rocelab's 82 B of framing.
			run, err := parseHtsimArgs(recordedArgs(t, fmt.Sprintf("testdata/htsim/var-%s-seed1.txt", c.name), "FILE.cm"))
			if err != nil {
				t.Fatal(err)
			}
			got, want := r.Mean().Max/h.Mean().Max-1, wireRatio(run.mtu, pathMTU(run.mtu))-1
			t.Logf("%s: last %+.2f %%, the wire per byte of payload %+.2f %%", c.name, 100*got, 100*want)
			if math.Abs(got-want) > 0.002 {
				t.Errorf("%s: last completion %+.2f %% from htsim's, where the framing gives %+.2f %%", c.name, 100*got, 100*want)
			}
		})
	}
}

// htsimFinishes reads htsim's recorded completion times.
func htsimFinishes(t *testing.T, file string) []float64 {
	t.Helper()
	return finishTimes(htsimFlows(t, file))
}

// TestAgreesWithHtsimHPCC holds rocelab's HPCC, imported by from-htsim
// from htsim_hpcc's own command line (each file's head) and the matrix it
// read, to htsim_hpcc's recorded runs (testdata/htsim/hpcc-*.txt, clock
// pinned to the second each started): each statistic averaged over the
// seeds, and the median over the seeds of the per-flow ratio's median
// (flows matched by source and destination, htsim's HPCC_SRC_DST). The
// imported sender is htsim's (host.hpcc.htsim, cc.HTSimHPCC: a window
// every ACK sets, INT against the first ACK's; docs/engine.md,
// "htsim_hpcc"), and the ECMP hashes differ, so the permutation's flows
// differ one by one.
func TestAgreesWithHtsimHPCC(t *testing.T) {
	for _, c := range []struct {
		workload string
		seeds    int
		// the largest relative differences allowed
		mean, p50, max, ratio float64
	}{
		// measured: mean -4.0 %, median -2.8 %, last +0.4 %, per-flow
		// ratio's median -1.8 % (single flows to x3.5 in seed 1:
		// the paths differ). htsim's windows run away here
		// (docs/engine.md), so many of its senders run at line rate under
		// PFC; with the HPCC ns-3 model's sender (host.hpcc.htsim 0) mean
		// +0.7 %, last -13.7 %, as it holds the rates htsim's lets run
		{"perm128", 8, 0.05, 0.04, 0.03, 0.03},
		// measured: mean -2.0 %, median +1.5 %, last +0.4 %, per-flow
		// ratio's median -0.2 %, no flow off by more than x1.24 in seed 1.
		// With the HPCC ns-3 model's sender -4.1 %, -1.5 %, +0.1 %, -2.3 %
		// and single flows x0.68 to x3.9: it finished the three senders
		// under the receiver's ToR with the others, where htsim's, whose
		// reference INT stays their first ACK's (a nearly empty port),
		// finishes them first
		{"incast127", 3, 0.03, 0.03, 0.005, 0.02},
	} {
		t.Run(c.workload, func(t *testing.T) {
			var h, r agree.Seeds
			var ratios []float64
			for seed := 1; seed <= c.seeds; seed++ {
				file := fmt.Sprintf("testdata/htsim/hpcc-%s-seed%d.txt", c.workload, seed)
				hf := htsimFlows(t, file)
				s := agreementScenario(t, c.workload, file, true)
				s.Seed = uint64(seed)
				o, err := agree.RunScenario(s)
				if err != nil {
					t.Fatal(err)
				}
				byPair := map[string]float64{}
				for _, f := range o.Flows {
					byPair["HPCC_"+flowPair(f)] = f.StartUS + *f.FCTUS
				}
				x := make([]float64, len(hf))
				var ratio []float64
				for i, f := range hf {
					x[i] = f.us
					v, ok := byPair[f.name]
					if !ok {
						t.Fatalf("%s: htsim's flow %s is not in the imported scenario", file, f.name)
					}
					ratio = append(ratio, v/f.us)
				}
				if len(hf) != len(o.Flows) {
					t.Fatalf("%s: htsim completed %d flows, the scenario has %d", file, len(hf), len(o.Flows))
				}
				h.Add(x)
				r.Add(agree.Finishes(o))
				ratios = append(ratios, agree.Summarise(ratio).P50)
				t.Logf("seed %d: per-flow ratio %+v", seed, agree.Summarise(ratio))
			}
			holdSeeds(t, fmt.Sprintf("%s from htsim_hpcc over %d seeds", c.workload, c.seeds), &h, &r, c.mean, c.p50, c.max,
				agree.Metric{Name: "per-flow ratio's median", Other: 1, Rocelab: agree.Summarise(ratios).P50, Bound: c.ratio})
		})
	}
}

// htsimFlows reads htsim's recorded flow lines (readFlowLines).
func htsimFlows(t *testing.T, file string) []htsimFinish {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x, err := readFlowLines(file, f)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// importedSeeds reads htsim's completion times from the records
// BASE-seed1.txt to BASE-seedN.txt and imports each record's run
// (importRecorded, with matrix) to run it on rocelab.
func importedSeeds(t *testing.T, base string, n int, matrix string) (h, r agree.Seeds) {
	t.Helper()
	for seed := 1; seed <= n; seed++ {
		file := fmt.Sprintf("%s-seed%d.txt", base, seed)
		h.Add(htsimFinishes(t, file))
		o, err := agree.RunScenario(importRecorded(t, file, matrix))
		if err != nil {
			t.Fatal(err)
		}
		r.Add(agree.Finishes(o))
	}
	return h, r
}

// importedRow is a recorded htsim run held to rocelab's import of it:
// testdata/htsim/NAME-seedS.txt for seeds 1 to seeds, the matrix htsim
// read ("" where the head names it), and the largest relative
// differences allowed of the seed averages of the completion times'
// mean, median and last.
type importedRow struct {
	name, matrix   string
	seeds          int
	mean, p50, max float64
}

// holdImportedRows holds each row, a subtest apiece.
func holdImportedRows(t *testing.T, rows []importedRow) {
	for _, c := range rows {
		t.Run(c.name, func(t *testing.T) {
			h, r := importedSeeds(t, "testdata/htsim/"+c.name, c.seeds, c.matrix)
			holdSeeds(t, fmt.Sprintf("%s imported over %d seeds", c.name, c.seeds), &h, &r, c.mean, c.p50, c.max)
		})
	}
}

// TestAgreesWithHtsimTopologies imports htsim_roce runs on csg-htsim's
// own fat-tree files (-topo), and on one synthetic file in their format,
// from each recorded run's command line and holds the completion times
// to htsim's, averaged over 24 seeds: the 4:1 oversubscribed leaf-spine
// of leaf_spine_tiny.topo under one of htsim's permutations, test.topo's
// 3 tiers of 200G hosts over bundles of 100G core links under a
// permutation across its two pods, and a 3-tier tree oversubscribed 2:1
// at its aggregation switches under a permutation across pods.
// Each seed draws other ECMP collisions in each simulator (one flow's
// completion moves by up to 2x between seeds), so only the averages are
// held; a wiring or speed the file does not say moves them all.
func TestAgreesWithHtsimTopologies(t *testing.T) {
	holdImportedRows(t, []importedRow{
		// Seed averages as recorded: mean +1.3 %, median +0.0 %, last +1.8 %.
		{"topo-leaf_spine_tiny", "", 24, 0.03, 0.04, 0.04},
		// Mean -2.5 %, median -1.1 %, last -2.5 %. htsim's own averages
		// move by 3.5 % between two recordings of the same 24 seeds (its
		// mean 265.5 then 274.8 us: htsim_roce also draws from the clock),
		// so the bounds leave room for that.
		{"topo-test", "", 24, 0.06, 0.08, 0.06},
		// Session 47: oversubscription in the aggregation tier, which
		// neither file above has: testdata/topologies/syn-aggos32.topo,
		// aggregation switches of 2 downlinks and 1 uplink under 4 pods of
		// 8 hosts, each host sending 2 MiB to the next pod (the matrix
		// head's rule). Each ToR's hash picks the aggregation switch and
		// so the one core path, and a flow's time is how many of its
		// pod's 8 share that uplink: a fluid flow-fair share of uniformly
		// hashed flows gives (1 + 7/4) x 170.4 us = 469 us for the mean,
		// htsim's 478.3, rocelab's 467.8. Measured: -2.2, -3.8, +1.8 %
		// (at 6 seeds -5.7, +6.8, +1.0 %).
		{"syn-aggos32", "testdata/htsim/syn-osperm32.cm", 24, 0.04, 0.06, 0.04},
	})
}

// TestAgreesWithHtsimOwnPermutation imports htsim_roce runs of the one
// connection matrix csg-htsim ships that no row had run,
// connection_matrices/perm_1024n_1024c_0u_2000000b.cm (1024 hosts of a
// k = 16 fat-tree, each sending 2 MB to one other, its flow ids named),
// with the generators' knobs (4096 B packets, PFC at 12/15 packets,
// pinned clocks), on the fat-tree htsim builds from -nodes and on its
// own topologies/fat_tree_1024.topo ("supposed to match the default",
// its head says; the two import alike), and holds the averages of 2
// seeds each. Measured: built, mean -0.4 %, median -0.3 %, last +6.0 %
// (seed 1: -1.1, -1.5, +5.1 %; seed 2: +0.3, +0.9, +6.9 %); from the
// file, -0.3, +0.9, -5.5 % (seed 1: +3.7, +2.5, +11.9 %; seed 2: -3.9,
// -0.7, -18.3 %). The last is the permutation's worst ECMP collision,
// which each run draws from its own clock and hash: htsim's last moves
// from 1049 to 1433 us between two seeds of the same fabric.
func TestAgreesWithHtsimOwnPermutation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs of 1024 hosts")
	}
	const m = "testdata/matrices/perm_1024n_1024c_0u_2000000b.cm"
	holdImportedRows(t, []importedRow{
		{"csg-perm1024", m, 2, 0.02, 0.02, 0.08},
		{"csg-perm1024-topo", m, 2, 0.02, 0.02, 0.08},
	})
}

// TestAgreesWithHtsimSweep holds rocelab to htsim on cases of
// TestCompareRandomCasesWithHtsim's random generator (newSweepCase), each recorded with 4,
// 6 or 12 seeds and clocks (testdata/htsim/sweep-*: the matrix, and each run's
// command line and clock in its head) and imported by from-htsim: flow
// completion times' mean, median and last, averaged over the seeds.
// They cover what the older workloads did not: leaf-spines (to 512
// hosts), 25G and 400G, 1024-9000 B packets, PFC at 5/8 packets, mixed
// sizes of 1 KB to 4 MB whose matrix start times htsim ignores,
// all-to-all of short flows, and htsim_hpcc on them. The case's name gives its shape (docs/engine.md has
// the sweep's table).
func TestAgreesWithHtsimSweep(t *testing.T) {
	for _, c := range []struct {
		name, prog string
		seeds      int
		// the largest relative differences allowed
		mean, p50, max float64
		first          int // the first seed, 1 when 0
	}{
		// measured, 6 seeds: mean +0.4 %, median +4.4 %, last +0.8 %
		{"s00", "roce", 6, 0.03, 0.07, 0.03, 0}, // incasts on a 2-tier 128, 25G, 9000 B
		// -0.4 %, +3.4 %, +6.4 % (rocelab's FIFO order of QPs: -0.6 %,
		// +6.3 %, +5.4 %); with rocelab's default PFC response
		// time (IEEE's 2 us on every XOFF and XON) +11.0 %, +10.2 %, +14.3 %
		{"s12", "roce", 6, 0.03, 0.09, 0.08, 0}, // mixed sizes, 16 hosts, 1024 B, PFC 5/8
		// -0.5 %, -3.3 %, +3.4 % with the QPs by index, as htsim's FairPullQueue
		// serves them (-0.8 %, -0.7 %, +1.6 % in rocelab's FIFO order; the
		// HPCC ns-3 model's sender: -1.1 %, -2.1 %, -0.6 %)
		{"s12", "hpcc", 6, 0.03, 0.04, 0.04, 0},
		// +2.9 %, +2.9 %, +2.9 %: rocelab's frames carry 62 B of headers
		// and 20 of preamble and gap where htsim's carry 64 in all, and its
		// ACKs are 84 B on the wire against 64
		{"s17", "roce", 6, 0.04, 0.04, 0.04, 0}, // all-to-all of 16, 128 hosts, 1024 B
		{"s19", "roce", 6, 0.04, 0.04, 0.03, 0}, // +2.3 %, +1.9 %, +1.1 %: all-to-all, 2-tier 32, 9000 B
		{"s22", "roce", 6, 0.03, 0.05, 0.02, 0}, // +1.1 %, -3.0 %, +0.4 %: incast of 15, 16 hosts
		{"s29", "hpcc", 6, 0.03, 0.03, 0.03, 0}, // +1.2 %, +1.1 %, +1.6 %: all-to-all, 128 hosts, 2048 B
		{"s30", "roce", 6, 0.03, 0.03, 0.03, 0}, // -1.2 %, +0.0 %, +1.2 %: mixed sizes, 128 hosts
		{"s42", "roce", 4, 0.03, 0.03, 0.05, 0}, // +1.0 %, +1.1 %, -3.1 %: all-to-all, 2-tier 512, 9000 B
		{"s45", "roce", 4, 0.04, 0.06, 0.03, 0}, // +2.2 %, +3.9 %, +1.3 %: incasts, 2-tier 512, 400G
		{"s63", "roce", 6, 0.03, 0.03, 0.09, 0}, // -1.4 %, -1.6 %, -7.2 %: permutation, 128 hosts, 3 tiers
		{"s64", "roce", 6, 0.03, 0.03, 0.03, 0}, // -1.0 %, +0.4 %, +1.8 %: incast over a permutation, 1024 B
		// -12.7 %, -10.4 %, -19.2 %: a permutation of 1 MB on htsim's 2-tier
		// 32 (4 uplinks a ToR). htsim's paths at -seed 1-12 and the
		// sweep's clocks load 24 ToR uplinks with 3 or more flows where
		// uniform ECMP loads 12 (TestHtsimPathsCrowdRandomCase73); a fluid max-min
		// sharing on htsim's paths gives mean FCTs 9 % over uniform ones,
		// seed by seed as htsim's means rise and fall. rocelab's own hash
		// loads 7 over its 12 seeds (docs/engine.md, "Random workloads against htsim")
		{"s73", "roce", 12, 0.16, 0.14, 0.23, 0},
		// the same case at -seed 101-112, where htsim's paths crowd 7 ToR
		// uplinks with 3 or more flows: -0.4 %, +3.3 %, -6.9 %
		{"s73", "roce", 12, 0.03, 0.06, 0.09, 101},
		// +8.9 %, +2.9 %, +8.1 %: a permutation of 144 KB on htsim's
		// 16-host fat-tree at 25G, drawn after the first 80 cases. htsim's
		// paths at -seed 1-12 and the sweep's clocks crowd less than
		// elsewhere, and its mean follows their crowding seed by seed
		// (TestHtsimPathsCrowdRandomCase102)
		{"s102", "roce", 12, 0.11, 0.05, 0.10, 0},
		// the same at -seed 101-112: +0.9 %, +0.4 %, -0.5 %
		{"s102", "roce", 12, 0.03, 0.03, 0.03, 101},
		// mixed sizes of 4 KB to 4 MB on htsim's 54-host fat-tree, from
		// htsim_hpcc: -1.3 %, -1.0 %, -0.0 %. With the HPCC ns-3 model's sender in place of
		// htsim's (host.hpcc.htsim 0) +13.3 %, -0.8 %, +22.5 %: the long
		// flows finish late where htsim's windows, set afresh by every ACK
		// against the first ACK's INT, run them at line rate
		{"s107", "hpcc", 6, 0.03, 0.03, 0.03, 0},
		// three incasts of 16-17 on the 128-host fat-tree at 400G, from
		// htsim_hpcc: -1.6 %, +0.7 %, +2.0 %; with the HPCC ns-3 model's sender +9.4 %,
		// -6.6 %, -3.0 %
		{"s109", "hpcc", 6, 0.03, 0.03, 0.04, 0},
	} {
		t.Run(fmt.Sprintf("%s/%s/from%d", c.name, c.prog, max(c.first, 1)), func(t *testing.T) {
			var h, r agree.Seeds
			first := max(c.first, 1)
			for seed := first; seed < first+c.seeds; seed++ {
				file := fmt.Sprintf("testdata/htsim/sweep-%s-%s-seed%d.txt", c.name, c.prog, seed)
				h.Add(htsimFinishes(t, file))
				o, err := agree.RunScenario(importRecorded(t, file, "testdata/htsim/sweep-"+c.name+".cm"))
				if err != nil {
					t.Fatal(err)
				}
				r.Add(agree.Finishes(o))
			}
			holdSeeds(t, fmt.Sprintf("sweep %s from htsim_%s over %d seeds", c.name, c.prog, c.seeds), &h, &r, c.mean, c.p50, c.max)
		})
	}
}

// TestAgreesWithHtsimSweepBuckets holds the recorded mixed-size case s30
// (128 flows of 4 KB to 4 MB on the 128-host fat-tree, htsim_roce, 6
// seeds) bucket by bucket, as compare prints it: each size bucket's p50,
// p95 and p99 FCT, averaged over the seeds. Single seeds move a bucket's
// tail by up to 25 % either way (each simulator's ECMP draws its own
// paths); over the 6, measured: p50 -1.9, +5.5, -2.0, -0.0 %, p95 -4.9,
// -8.2, +0.5, +1.0 %, p99 +9.4, -8.4, +0.5, +1.0 % (the two largest
// buckets' p95 and p99 are their slowest flow).
func TestAgreesWithHtsimSweepBuckets(t *testing.T) {
	const seeds = 6
	var h, r [4][3]float64
	for seed := 1; seed <= seeds; seed++ {
		file := fmt.Sprintf("testdata/htsim/sweep-s30-roce-seed%d.txt", seed)
		o, err := agree.RunScenario(importRecorded(t, file, "testdata/htsim/sweep-s30.cm"))
		if err != nil {
			t.Fatal(err)
		}
		fl, ok := byFlow(htsimFlows(t, file), o)
		if !ok {
			t.Fatalf("%s: the flows do not pair one to one", file)
		}
		bs := agree.Slowdowns(fl)
		if len(bs) != 4 {
			t.Fatalf("%d buckets", len(bs))
		}
		for i, b := range bs {
			for k := range 3 {
				h[i][k] += b.Other[k] / seeds
				r[i][k] += b.Rocelab[k] / seeds
			}
		}
	}
	var ms []agree.Metric
	for i, bound := range [4][3]float64{{0.04, 0.07, 0.12}, {0.08, 0.11, 0.11}, {0.04, 0.03, 0.03}, {0.03, 0.03, 0.03}} {
		for k, p := range []string{"p50", "p95", "p99"} {
			ms = append(ms, agree.Metric{Name: fmt.Sprintf("bucket %d %s FCT", i, p), Other: h[i][k], Rocelab: r[i][k], Bound: bound[k]})
		}
	}
	agree.Hold(t, "sweep s30 from htsim_roce over 6 seeds", "htsim", ms)
}

// TestAgreesWithHtsimGenerators imports htsim_roce (and htsim_hpcc) runs of matrices that
// csg-htsim's own generators (sim/datacenter/connection_matrices) write
// beyond its permutations and incasts, on the k = 4 fat-tree of 16
// hosts, and holds the seed averages of the completion times (6 seeds,
// pinned clocks; each file's head gives the generator's command):
// gen_outcast_incast.py's collateral damage (a 4->1 incast whose senders
// but one send to two other hosts at once, 2 MB each) and
// gen_allreduce.py's ring all-reduces in groups of 4 (112 flows of 500 KB,
// each started by its predecessor's completion, htsim's triggers).
// Measured: outcast-incast over 24 seeds mean -2.2 %, median -2.3 %, last
// -5.4 %; all-reduce over 6 mean -1.4 %, median -2.1 %, last +3.1 %.
// The outcast-incast's last completion is which of its edge's two
// uplinks the 6 flows of h2 and h3 take: htsim's run at about 960 us
// when 5 or 6 share one (7 of its 24 seeds, htsimconv paths), rocelab's
// own hash split them 5:1 in none of these 24 seeds but in 42 of seeds
// 1-300 (14 %, 19 % for a uniform hash; 18.7 % in seeds 301-1000, so
// chance), so the last leans early here;
// flow by flow averaged over the seeds, h2's and h3's flows -3.5 to
// -4.6 %, the rest +2 to +3 %.
func TestAgreesWithHtsimGenerators(t *testing.T) {
	holdImportedRows(t, []importedRow{
		{"gen-oi16", "testdata/htsim/gen-oi16.cm", 24, 0.04, 0.04, 0.07},
		{"gen-ar16", "testdata/htsim/gen-ar16.cm", 6, 0.03, 0.04, 0.05},
		// htsim_hpcc at three loads (added after the rows above):
		// gen_permutation.py's 2 MB permutations of 32, 64 and 128 of the
		// 128 hosts (k = 8).
		// Measured: mean -4.1, -0.6, -0.0 %, median -6.5, -3.5, -1.8 %,
		// last +8.7, +16.3, -4.4 %. The last completions are ECMP draws:
		// at 64, htsim's ran 557-603 us in all six seeds, its predicted
		// paths (htsimconv paths at each run's clock) putting at most 3
		// flows on a link in every one, where its own hash puts 4 on one
		// in 8 of seeds 7-40 and a uniform hash in 29 % of draws;
		// rocelab's seeds 1, 4 and 6 crowd 4 or 5 (731-809 us).
		{"gen-hp128c32", "testdata/htsim/gen-hp128c32.cm", 6, 0.06, 0.08, 0.11},
		{"gen-hp128c64", "testdata/htsim/gen-hp128c64.cm", 6, 0.03, 0.05, 0.18},
		{"gen-hp128c128", "testdata/htsim/gen-hp128c128.cm", 6, 0.02, 0.03, 0.06},
		// gen_serial_alltoall.py's all-to-all of 16 hosts, each
		// sending 500 KB to the 15 others one after another (each
		// multishot trigger fired by one flow and starting one), and
		// gen_incast.py's 8 -> 1 of 1 MB. Measured: mean +2.6, +3.5 %,
		// median +2.5, +4.2 %, last +5.3, +0.4 %.
		{"gen-sa16", "testdata/htsim/gen-sa16.cm", 6, 0.04, 0.04, 0.07},
		{"gen-inc16", "testdata/htsim/gen-inc16.cm", 6, 0.05, 0.06, 0.02},
		// gen_serialn_alltoall.py's all-to-all of 16 hosts, 500 KB to
		// each of 15 peers with 2 and 4 in flight (multishot triggers:
		// each completion starts the next, after_count), 3-tier k = 6
		// gen_incast.py's 32 -> 1 of 2 MB and gen_permutation.py's 54
		// hosts of 1 MB. Measured: mean -3.9, -2.8, -4.6,
		// -0.9 %, median -5.3, -2.4, -4.7, +0.6 %, last -2.1, +0.3,
		// +0.4, -9.7 %. The incast's last is the bottleneck's (all 64 MB
		// through one port); its mean and median are how PFC shares that
		// port among senders behind 1, 3 and 5 switches, which the two
		// divide differently (not explained). The permutation's last is
		// its ECMP collisions, which the two hash differently.
		{"gen-sn16p2", "testdata/htsim/gen-sn16p2.cm", 6, 0.06, 0.08, 0.05},
		{"gen-sn16p4", "testdata/htsim/gen-sn16p4.cm", 6, 0.05, 0.05, 0.03},
		{"gen-inc54", "testdata/htsim/gen-inc54.cm", 6, 0.07, 0.07, 0.02},
		{"gen-perm54", "testdata/htsim/gen-perm54.cm", 6, 0.03, 0.03, 0.13},
		// Session 36: gen_allreduce.py's ring all-reduces in groups of 8
		// of 64 KB chunks (16 packets), 240 flows on 16 hosts, each
		// started by its predecessor's completion: 15 steps a chain, so
		// the completions are latency (hops, the trigger, the last ACK)
		// more than bandwidth, where gen-ar16 (500 KB) is bandwidth. On
		// htsim_roce and on htsim_hpcc, whose 150 KB starting window
		// holds a whole chunk, so rocelab's HPCC and its cc none run the
		// same times. Measured: gen-ar16s mean -0.3 %, median -0.4 %,
		// last -3.8 %; gen-hpar16s mean +0.6 %, median -0.5 %, last
		// -3.4 %.
		{"gen-ar16s", "testdata/htsim/gen-ar16s.cm", 6, 0.02, 0.02, 0.05},
		{"gen-hpar16s", "testdata/htsim/gen-ar16s.cm", 6, 0.02, 0.02, 0.05},
	})
}

// TestAgreesWithHtsimOwnMatrices imports htsim_roce runs of csg-htsim's
// own connection matrices that no row had run (testdata/matrices, as
// committed in sim/datacenter/connection_matrices), with the
// generators' knobs (4096 B packets, PFC at 12/15 packets, pinned
// clocks; each run's command line and clock in its head), and holds the
// averages of 6 seeds each.
func TestAgreesWithHtsimOwnMatrices(t *testing.T) {
	holdImportedRows(t, []importedRow{
		// 127 -> 1 of 2 MB each on the k = 8 fat-tree. Measured: mean
		// +0.7 %, median +3.0 %, last +0.4 %.
		{"csg-incast128", "testdata/matrices/incast_128.cm", 6, 0.02, 0.05, 0.02},
		// Two senders of 10 flows each, and 3 flows into host 0: +0.4,
		// +0.4, +0.4 %.
		{"csg-oi128", "testdata/matrices/outcast_incast.cm", 6, 0.02, 0.02, 0.02},
		// 16 hosts of a k = 4 fat-tree, 2 MB each: +2.6, +10.5, -7.0 %;
		// the median and last are ECMP collisions, which each simulator's
		// hash draws its own way.
		{"csg-perm16", "testdata/matrices/perm_16n_16c_2MB.cm", 6, 0.04, 0.13, 0.10},
	})
}

// TestAgreesWithHtsimAdaptiveRouting imports htsim_roce and htsim_hpcc runs with
// -strat ecmp_ar, which htsim runs per flowlet (a flow moves to the
// emptier egress only after a pause of -ar_sticky_delta, 10 us by
// default), on gen_permutation.py's permutations of 54 hosts of 1 MB
// (k = 6 fat-tree; htsim_roce, and htsim_hpcc) and of 32 hosts of 2 MB
// (a leaf-spine), averaged over the seeds. Imported as per-packet adaptive routing (before
// the import took the flowlets), a flow's packets took other paths,
// arrived out of order and its go-back-N resent them for the whole
// second (seed 1: 8 KB of flow f8's 1 MB delivered). The recorded runs
// of the 128-host permutation (testdata/htsim/ar-perm128-*, ar2-*) are
// not held: rocelab's flowlets stall a flow or two of them for the
// whole run (docs/engine.md, "Adaptive routing against htsim").
func TestAgreesWithHtsimAdaptiveRouting(t *testing.T) {
	holdImportedRows(t, []importedRow{
		// Measured: mean +2.1 %, median +9.1 %, last -8.2 %.
		{"ar-perm54", "testdata/htsim/gen-perm54.cm", 6, 0.04, 0.12, 0.11},
		// gen_permutation.py's 32 hosts of 2 MB on htsim's 2-tier
		// leaf-spine (K = 8): -9.5, -12.4, -18.8 %. rocelab decides again
		// at every flowlet, on exact queue bytes; htsim on a coin toss, on
		// its quantised queue sizes, and only for a strictly emptier port
		// (which of these moves it was not measured).
		{"ar-ls32", "testdata/htsim/gen-perm32.cm", 6, 0.12, 0.15, 0.22},
		// htsim_hpcc under ecmp_ar, the 54-host permutation: -4.5, +0.6,
		// -17.7 %. Seeds 1-4: htsim_hpcc aborted at seed 5 (hpcc.cpp:177,
		// "ackno - _last_acked <= _flightsize", an ACK past its window).
		{"ar-hp54", "testdata/htsim/gen-perm54.cm", 4, 0.07, 0.04, 0.21},
	})
}

// TestAgreesWithHtsimRackIncastAndShuffle holds two workload kinds no
// other row ran, recorded on htsim_roce with pinned clocks (6 seeds each,
// synthetic matrices whose rule each record's head gives) and imported by
// from-htsim: a 2-level incast into one rack of the k = 8 fat-tree (96
// senders in the three other pods, 24 to each of the rack's 4 hosts, 512
// KiB each: PFC backs the ToR's downlinks up into its aggregation and the
// core) and a shuffle of mixed sizes across the 4:1 oversubscribed
// leaf-spine of csg-htsim's leaf_spine_tiny.topo (16 hosts to 16, 256
// flows of 16 KiB to 1 MiB through the two leaves' four uplinks). Besides
// the completion times, each flow's goodput (its bytes over its
// completion time, flows matched by source and destination) is held by
// its mean and median over the flows, averaged over the seeds. Measured:
// rack incast, completion mean +2.9 %, median +2.8 %, last -1.3 %,
// goodput mean -2.3 %, median -1.9 %; shuffle, completion -0.8, +0.2,
// -0.9 %, goodput +1.1, -0.2 %. Single seeds differ by up to 13 % (each
// simulator draws its own ECMP paths, which set which flows the
// oversubscribed uplinks and the rack's PFC hold back longest). The rack
// incast on htsim_hpcc: completion -3.8, +2.8, -5.3 %, goodput mean
// +8.2 %, median -4.2 %: rocelab's HPCC spreads the completions wider
// (seed 1: its first at 360 us, htsim_hpcc's at 591; its last later),
// nearer its own PFC-only spread, so its early finishers lift the
// goodput mean. It is HPCC's sharing, not PFC's: with PFC out of reach
// (-pfc_thresholds 900 1000) on both, seed 1's first completion is 413
// us against 623; which step of the two senders differs is not traced
// (docs/engine.md).
func TestAgreesWithHtsimRackIncastAndShuffle(t *testing.T) {
	for _, c := range []struct {
		name, matrix            string
		mean, p50, max, goodput float64
	}{
		{"syn-rackinc128", "testdata/htsim/syn-rackinc128.cm", 0.05, 0.05, 0.04, 0.04},
		{"syn-shuffle-ls32", "testdata/htsim/syn-shuffle-ls32.cm", 0.03, 0.03, 0.03, 0.03},
		// the rack incast on htsim_hpcc (rocelab's HPCC with htsim's
		// constants, as from-htsim imports it)
		{"syn-hprackinc128", "testdata/htsim/syn-rackinc128.cm", 0.05, 0.05, 0.08, 0.10},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h, r, hg, rg agree.Seeds
			for seed := 1; seed <= 6; seed++ {
				file := fmt.Sprintf("testdata/htsim/%s-seed%d.txt", c.name, seed)
				hf := htsimFlows(t, file)
				o, err := agree.RunScenario(importRecorded(t, file, c.matrix))
				if err != nil {
					t.Fatal(err)
				}
				h.Add(finishTimes(hf))
				r.Add(agree.Finishes(o))
				hx, rx := flowGoodputs(t, hf, o)
				hg.Add(hx)
				rg.Add(rx)
			}
			hs, rs := hg.Mean(), rg.Mean()
			holdSeeds(t, c.name+" imported over 6 seeds", &h, &r, c.mean, c.p50, c.max,
				agree.Metric{Name: "goodput mean (Gb/s)", Other: hs.Mean, Rocelab: rs.Mean, Bound: c.goodput},
				agree.Metric{Name: "goodput p50 (Gb/s)", Other: hs.P50, Rocelab: rs.P50, Bound: c.goodput})
		})
	}
}

// flowGoodputs is each flow's goodput on each side, in Gb/s, in htsim's
// order: its bytes (rocelab's, rounded up to whole packets as htsim's
// are) over its completion time, the flows paired by source and
// destination (sweepFCTs).
func flowGoodputs(t *testing.T, hf []htsimFinish, o twin.Observation) (h, r []float64) {
	t.Helper()
	hx, rx, err := sweepFCTs(hf, o, false)
	if err != nil {
		t.Fatal(err)
	}
	bytes := map[string]int64{}
	for _, f := range o.Flows {
		bytes[flowPair(f)] = f.Bytes
	}
	for i, f := range hf {
		bits := float64(8 * bytes[htsimPair(f.name)])
		h = append(h, bits/hx[i]/1e3)
		r = append(r, bits/rx[i]/1e3)
	}
	return h, r
}
