package scenario

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/workload"
)

// The agreement of the fluid engine with the packet engine, on the cases
// of testdata/agreement (issue 15, acceptance 2). The packet engine's
// results are kept in testdata/agreement/packet.golden, since the large
// cases take minutes at packet level; TestPacketGoldenHonest reruns the
// cheap ones (all of them with -agreement-full), -update regenerates the
// golden and the table, -update-table the table alone (after a change to
// the fluid engine).

var (
	update        = flag.Bool("update", false, "rerun the packet engine on every agreement case and rewrite testdata/agreement/packet.golden and table.txt (minutes)")
	agreementFull = flag.Bool("agreement-full", false, "check every packet result in testdata/agreement/packet.golden against a fresh packet run (minutes)")
	updateTable   = flag.Bool("update-table", false, "rewrite testdata/agreement/table.txt from packet.golden and fresh fluid runs")
)

const agreementDir = "testdata/agreement"

// outcome is what a case measures: the nccl-tests busbw of each size
// (GB/s), a training iteration (µs), or flow completion times (µs).
type outcome struct {
	metrics []metric
}

type metric struct {
	name  string
	value float64
}

func (o outcome) get(name string) (float64, bool) {
	for _, m := range o.metrics {
		if m.name == name {
			return m.value, true
		}
	}
	return 0, false
}

// String formats an outcome as golden fields: name=value, 4 significant
// decimals.
func (o outcome) String() string {
	var f []string
	for _, m := range o.metrics {
		f = append(f, m.name+"="+strconv.FormatFloat(m.value, 'f', 3, 64))
	}
	return strings.Join(f, " ")
}

// measure reads a finished run's outcome from its workloads.
func measure(traffic *workload.Flows, jobs *Jobs) outcome {
	var o outcome
	if jobs != nil && jobs.Sweep != nil {
		for _, r := range jobs.Sweep.Rows {
			o.metrics = append(o.metrics, metric{fmt.Sprintf("busbw@%dM", r.Size>>20), r.Out.BusBW})
		}
	}
	if jobs != nil && jobs.Training != nil {
		o.metrics = append(o.metrics, metric{"iteration_us", jobs.Training.Report.Iteration.Micros()})
	}
	var fct []float64
	for i := range traffic.Flows() {
		if d, ok := traffic.State(i).FCT(); ok {
			fct = append(fct, d.Micros())
		}
	}
	if len(fct) > 0 {
		slices.Sort(fct)
		o.metrics = append(o.metrics, metric{"fct_p50_us", fct[(len(fct)-1)/2]}, metric{"fct_p99_us", fct[(len(fct)-1)*99/100]},
			metric{"fct_max_us", fct[len(fct)-1]})
	}
	return o
}

// agreementCases returns the case files, by name.
func agreementCases(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(agreementDir, "*.yaml"))
	if err != nil || len(files) < 12 {
		t.Fatalf("agreement cases: %v %v", files, err)
	}
	return files
}

// runCase runs a case file on one engine.
func runCase(t *testing.T, file string, fluid bool) (string, outcome) {
	t.Helper()
	s, err := LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if fluid {
		tw, err := BuildFluid(s)
		if err != nil {
			t.Fatal(err)
		}
		tw.Engine.RunUntil(s.Duration)
		if !tw.Engine.Done() {
			t.Fatalf("%s: fluid run not done by %v", s.Name, s.Duration)
		}
		return s.Name, measure(tw.Traffic, tw.Jobs)
	}
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	tw.Run()
	if !tw.Done() {
		t.Fatalf("%s: packet run not done by %v", s.Name, s.Duration)
	}
	return s.Name, measure(tw.Traffic, tw.Jobs)
}

// readGolden reads packet.golden: one case a line, "name metric=value...".
func readGolden(t *testing.T) map[string]outcome {
	f, err := os.Open(filepath.Join(agreementDir, "packet.golden"))
	if err != nil {
		t.Fatalf("%v (regenerate with -update)", err)
	}
	defer f.Close()
	out := map[string]outcome{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		var o outcome
		for _, kv := range fields[1:] {
			k, v, ok := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil {
				t.Fatalf("packet.golden: bad field %q in %q", kv, line)
			}
			o.metrics = append(o.metrics, metric{k, x})
		}
		out[fields[0]] = o
	}
	return out
}

// bound is how far fluid may be from packet on a metric, and why a case
// may be further.
type bound struct {
	rel    float64
	reason string
}

// bounds are the issue's: busbw and iteration time within 5 %, FCT p50
// within 10 % and p99 within 20 %. The makespan of flows (fct_max) is
// printed, not bounded.
func boundOf(metric string) (float64, bool) {
	switch {
	case strings.HasPrefix(metric, "busbw"), metric == "iteration_us":
		return 0.05, true
	case metric == "fct_p50_us":
		return 0.10, true
	case metric == "fct_p99_us":
		return 0.20, true
	}
	return 0, false
}

// exceptions are the cases where the fluid model cannot hold the bound,
// with the reason (docs/fluid.md explains each) and how far it may go.
var exceptions = map[string]bound{
	"incast-fattree-k8": {0.30, "PFC shares a congested port per ingress port, not per flow: the 3 senders on the receiver's edge switch " +
		"get 1/7 of the port each and finish first, the 124 behind the aggregation links share 4/7; max-min gives every flow 1/127 (the last completion agrees)"},
	"permutation-fattree-k8-dcqcn": {0.40, "DCQCN's transient on ECMP collisions: colliding flows cut their rates below the fair share and recover " +
		"over milliseconds (rpg_time_reset 300 us), longer than a 4 MiB flow; the fluid model takes the fair share at once (with PFC only, " +
		"permutation-fattree-k8-pfc, the p99 and the last completion agree)"},
	"ecmp-2to1-leafspine-dcqcn": {0.12, "DCQCN's transient where two rings' flows collide on one uplink: the rate cuts leave the uplink " +
		"under-used; the fluid model shares it fairly at once (the PFC-only case agrees)"},
	"tree-8x8gpu-1nic-100g": {0.20, "DCQCN's transient where a tree parent's NIC takes both children at once (2:1): the rate cuts leave it " +
		"under-used, most at the smaller size; with PFC only (tree-8x8gpu-1nic-100g-pfc) the engines agree within 0.2 %"},
	"loss-allreduce-2x8gpu": {2.5, "lost tails: a message whose last packet (or its ACK) is lost with nothing after it on its queue pair " +
		"waits for the local ACK timer, 67 ms at NCCL_IB_TIMEOUT 14, and the two engines draw where such losses fall from different streams: " +
		"the packet run has 3 local ACK timeouts in the out-of-place 512 MiB call (1 in place before issue 18's proxy reaps moved the posts), " +
		"the fluid run none there; at 256 MiB, with none in either, they agree within 0.2 %"},
	"permutation-fattree-k8-pfc": {0.30, "PFC's head-of-line blocking: a port paused for one congested flow holds the other flows behind it, " +
		"so flows that max-min lets run at line rate finish later (the p99 and the last completion agree)"},
}

// row is one line of the agreement table.
type row struct {
	name, metric  string
	packet, fluid float64
	diff          float64
	ok            bool
	note          string
}

// TestFluidAgreement runs every case on the fluid engine and holds it to
// the packet engine's golden results within the bounds, or the
// case's documented exception. The table is testdata/agreement/table.txt.
func TestFluidAgreement(t *testing.T) {
	if *update {
		var b strings.Builder
		b.WriteString("# Packet engine results of the agreement cases: busbw in GB/s, times in us.\n# Regenerate: go test ./internal/scenario -run 'TestFluidAgreement' -update (minutes).\n")
		for _, f := range agreementCases(t) {
			name, o := runCase(t, f, false)
			fmt.Fprintf(&b, "%s %s\n", name, o)
		}
		if err := os.WriteFile(filepath.Join(agreementDir, "packet.golden"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden := readGolden(t)
	var rows []row
	for _, f := range agreementCases(t) {
		name, fo := runCase(t, f, true)
		po, ok := golden[name]
		if !ok {
			t.Errorf("%s: no packet result in packet.golden (run -update)", name)
			continue
		}
		ex, hasEx := exceptions[name]
		for _, m := range po.metrics {
			fv, ok := fo.get(m.name)
			if !ok {
				t.Errorf("%s: the fluid run has no %s", name, m.name)
				continue
			}
			r := row{name: name, metric: m.name, packet: m.value, fluid: fv, diff: fv/m.value - 1, ok: true}
			if lim, bounded := boundOf(m.name); bounded {
				r.ok = math.Abs(r.diff) <= lim
				if !r.ok && hasEx {
					r.note = "documented"
					if math.Abs(r.diff) > ex.rel {
						t.Errorf("%s %s: fluid %.3f, packet %.3f (%+.1f %%), beyond even its documented %.0f %%", name, m.name, fv, m.value, 100*r.diff, 100*ex.rel)
					}
				} else if !r.ok {
					t.Errorf("%s %s: fluid %.3f, packet %.3f (%+.1f %%), outside ±%.0f %%", name, m.name, fv, m.value, 100*r.diff, 100*lim)
				}
			} else {
				r.note = "not bounded"
			}
			rows = append(rows, r)
		}
	}
	table := agreementTable(rows)
	t.Log("\n" + table)
	path := filepath.Join(agreementDir, "table.txt")
	if *update || *updateTable {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if old, err := os.ReadFile(path); err != nil || string(old) != table {
		t.Errorf("%s is not the current table (run -update): %v", path, err)
	}
}

// agreementTable formats the rows and the exceptions' reasons.
func agreementTable(rows []row) string {
	var b strings.Builder
	b.WriteString("Fluid against packet on the agreement cases (busbw GB/s, times us)\n")
	fmt.Fprintf(&b, "%-32s %-13s %12s %12s %8s  %s\n", "case", "metric", "packet", "fluid", "diff", "")
	for _, r := range rows {
		mark := "ok"
		switch {
		case r.note != "":
			mark = r.note
		case !r.ok:
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "%-32s %-13s %12.3f %12.3f %+7.2f%%  %s\n", r.name, r.metric, r.packet, r.fluid, 100*r.diff, mark)
	}
	b.WriteString("\nDocumented exceptions:\n")
	names := make([]string, 0, len(exceptions))
	for n := range exceptions {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "- %s: %s.\n", n, exceptions[n].reason)
	}
	return b.String()
}

// cheapCases are the cases whose packet run takes a second or two: they
// keep packet.golden honest in every test run.
var cheapCases = []string{"loss-one-link", "incast-fattree-k8", "permutation-fattree-k8-pfc", "training-8x8gpu-tp8-pp4-dp2"}

// TestPacketGoldenHonest reruns the packet engine on the cheap cases (on
// all of them with -agreement-full) and checks packet.golden holds what it
// gives now.
func TestPacketGoldenHonest(t *testing.T) {
	golden := readGolden(t)
	for _, f := range agreementCases(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if !*agreementFull && !slices.Contains(cheapCases, name) {
			continue
		}
		got, o := runCase(t, f, false)
		if want := golden[got]; want.String() != o.String() {
			t.Errorf("%s: packet engine gives %s, packet.golden holds %s (run -update)", got, o, want)
		}
	}
}
