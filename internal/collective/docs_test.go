package collective

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

const docsPath = "../../docs/nccl.md"

// docTable keeps the text between begin and end in docs/nccl.md equal to
// want; -update rewrites it.
func docTable(t *testing.T, begin, end, want string) {
	t.Helper()
	data, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no markers %q ... %q", docsPath, begin, end)
	}
	if doc[i+len(begin)+1:j] == want {
		return
	}
	if !*update {
		t.Fatalf("%s: the table after %q differs from the code; run go test ./internal/collective -run TestDocs -update", docsPath, begin)
	}
	doc = doc[:i+len(begin)+1] + want + doc[j:]
	if err := os.WriteFile(docsPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDocsCalibration keeps the per-step cost table of docs/nccl.md equal
// to Calibration().
func TestDocsCalibration(t *testing.T) {
	var b strings.Builder
	b.WriteString("| cost | value | charged | source |\n|---|---|---|---|\n")
	for _, c := range Calibration() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Name, c.Value, c.Charged, c.Source)
	}
	docTable(t, "<!-- calibration: generated from collective.Calibration() by go test ./internal/collective -run TestDocs -update -->",
		"<!-- end of calibration -->", b.String())
}

// resultGroups are the sets of public all_reduce results docs/nccl.md
// counts apart, by publicRun.heldOut (3 and 10, the other collectives,
// have tables of their own), each with the heading of its totals and its
// column in the table of rows outside their band: a new group is one
// line here.
var resultGroups = []struct {
	held          int
	total, column string
}{
	{0, "Calibration set", "calibration"},
	{1, "Held out", "held out"},
	{2, "Held out, group 2 (added after the rounds above, compared before any change)", "group 2"},
	{4, "Held out, group 4 (added in session 20, compared before any change)", "group 4"},
	{5, "Held out, group 5 (added in session 21, compared before any change)", "group 5"},
	{6, "Held out, group 6 (added in session 24, compared before any change to its paths)", "group 6"},
	{7, "Held out, group 7 (added in session 26, compared before any change)", "group 7"},
	{8, "Held out, group 8 (added in session 28, compared before any change)", "group 8"},
	{9, "Held out, group 9 (added after group 8, compared before any change)", "group 9"},
	{13, "Held out, group 13 (added 2026-12-05, compared before any change)", "group 13"},
	{14, "Held out, group 14 (added 2026-12-05 after group 13, compared before any change)", "group 14"},
	{16, "Held out, group 16 (added 2026-12-06, compared before any change)", "group 16"},
	{17, "Held out, group 17 (added in session 35, compared before any change)", "group 17"},
	{18, "Held out, group 18 (added in session 37, compared before any change)", "group 18"},
	{19, "Held out, group 19 (added in session 38, compared before any change)", "group 19"},
	{22, "Held out, group 22 (added in session 45, compared before any change)", "group 22"},
}

// TestResultGroupsCoverRuns: every public all_reduce result's group is
// one that docs/nccl.md counts (resultGroups), so that none drops out of
// the totals and the table of misses unseen.
func TestResultGroupsCoverRuns(t *testing.T) {
	known := map[int]bool{}
	for _, set := range resultGroups {
		if known[set.held] {
			t.Errorf("group %d listed twice", set.held)
		}
		known[set.held] = true
	}
	for _, r := range publicRuns {
		if r.op == "" && !known[r.heldOut] {
			t.Errorf("%s: group %d is not in resultGroups", r.file, r.heldOut)
		}
	}
}

var (
	publicOnce   sync.Once
	publicChecks [][]publicCheck
	publicRan    []bool
	publicErr    error
)

// allPublic runs every public result once per test binary, each as a
// parallel subtest of the first test that asks (the results are
// independent: each has its own communicator and network).
func allPublic(t *testing.T) [][]publicCheck {
	publicOnce.Do(func() {
		publicChecks = make([][]publicCheck, len(publicRuns))
		ran := make([]bool, len(publicRuns))
		publicRan = ran
		t.Run("public", func(t *testing.T) {
			for i := range publicRuns {
				r := &publicRuns[i]
				maxSize := r.sizeLimit()
				if r.slow && !*publicAll {
					continue
				}
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					t.Parallel()
					publicChecks[i] = runPublic(t, r, maxSize)
					ran[i] = true
				})
			}
		})
		for i := range publicRuns {
			if !ran[i] && (!publicRuns[i].slow || *publicAll) {
				publicErr = fmt.Errorf("public result %d (%s) did not finish: it failed above, or a -run pattern left its public/N subtest out (the tests judge every result together)", i, publicRuns[i].file)
				break
			}
		}
	})
	if publicErr != nil {
		t.Fatal(publicErr)
	}
	return publicChecks
}

// publicOf is runPublic of publicRuns[i] up to its sizeLimit: the checks
// allPublic made of it when it has run in this test binary (the held-out
// groups' tests would repeat that simulation), else a run of its own (a
// test run alone with -run, or a result allPublic leaves out).
func publicOf(t *testing.T, i int) []publicCheck {
	t.Helper()
	if publicRan != nil && publicRan[i] {
		return publicChecks[i]
	}
	r := &publicRuns[i]
	return runPublic(t, r, r.sizeLimit())
}

// publicSizes is runPublic of publicRuns[i] on the rows of its table whose
// size keep selects (as its quoted rows, r.table set). Each row is a
// simulation of its own from a fresh engine (Comm.Open), so when allPublic
// has run the result up to a limit above those rows its checks of them
// are the same, and are taken from there instead of simulated again.
func publicSizes(t *testing.T, i int, keep func(size int64) bool) []publicCheck {
	t.Helper()
	r := publicRuns[i]
	var rows []publicRow
	var most int64
	for _, row := range readPublic(t, r.file) {
		if keep(row.size) {
			rows = append(rows, row)
			most = max(most, row.size)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if publicRan != nil && publicRan[i] && r.quoted == nil && most <= r.sizeLimit() {
		var out []publicCheck
		for _, c := range publicChecks[i] {
			if keep(c.row.size) {
				out = append(out, c)
			}
		}
		return out
	}
	r.quoted, r.table = rows, true
	return runPublic(t, &r, r.sizeLimit())
}

// sizeLimit is the largest size of r the tests run: every size under
// -public-all (but for a slow result), else r.maxSize when set, else 2 GiB.
func (r *publicRun) sizeLimit() int64 {
	switch {
	case *publicAll && !r.slow:
		return 64 << 30
	case r.maxSize > 0:
		return r.maxSize
	}
	return 2 << 30
}

// TestDocsPublicResults keeps the table of public results in docs/nccl.md
// equal to what the twin gives on them: per result and band, the rows
// within their band and the range of twin/real ratios.
func TestDocsPublicResults(t *testing.T) {
	var b strings.Builder
	b.WriteString("| result | source | NCCL | ≤ 64 KiB: time | 1-16 MiB: busbw | ≥ 256 MiB: busbw |\n|---|---|---|---|---|---|\n")
	for i, checks := range allPublic(t) {
		r := &publicRuns[i]
		if r.op != "" {
			continue
		}
		src := r.file
		if strings.HasSuffix(src, ".txt") {
			src = "`testdata/public/" + src + "`"
		}
		label := r.label + " (" + r.fabric + ")"
		switch r.heldOut {
		case 0:
		case 1:
			label += " — held out"
		default:
			label += fmt.Sprintf(" — held out, group %d", r.heldOut)
		}
		if r.excluded != "" {
			label += " — not in the acceptance set: " + r.excluded
		}
		if r.slow {
			label += " — only with `-public-all` (a thousand ranks; sizes up to 2 GiB)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |", label, src, r.version)
		for _, band := range []string{"time", "mid", "large"} {
			in, n := 0, 0
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, c := range checks {
				if c.band != band && !(c.band == "figure" && band == "large") {
					continue
				}
				n++
				if c.pass() {
					in++
				}
				lo, hi = math.Min(lo, c.ratio), math.Max(hi, c.ratio)
			}
			if n == 0 {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %d/%d in band, ×%.2f–×%.2f |", in, n, lo, hi)
		}
		b.WriteString("\n")
	}
	b.WriteString(groupTotals(allPublic(t)))
	b.WriteString(missGroups(allPublic(t)))
	b.WriteString("\nRows outside their band, and what the run shows that the twin does not model:\n\n")
	for i, checks := range allPublic(t) {
		r := &publicRuns[i]
		if r.excluded != "" || r.op != "" {
			continue
		}
		for _, c := range checks {
			if why, ok := knownMisses[missKey(r, c.row.size)]; ok && !c.pass() {
				fmt.Fprintf(&b, "- %s, %s: ×%.2f (%s/%s/%d) — %s\n", r.label, sizeName(c.row.size), c.ratio, c.choice.Algo, c.choice.Proto, c.choice.Channels, why)
			}
		}
	}
	docTable(t, "<!-- public results: generated by go test ./internal/collective -run TestDocs -update -->",
		"<!-- end of public results -->", b.String())
}

// groupTotals gives, per group of all_reduce results (resultGroups: the
// calibration set, then the held-out results), the rows within each band
// over the rows in it.
func groupTotals(checks [][]publicCheck) string {
	var b strings.Builder
	for _, set := range resultGroups {
		fmt.Fprintf(&b, "\n%s, rows within their band:", set.total)
		for _, band := range []string{"time", "mid", "large"} {
			in, n := 0, 0
			for i, cs := range checks {
				r := &publicRuns[i]
				if r.excluded != "" || r.op != "" || r.heldOut != set.held {
					continue
				}
				for _, c := range cs {
					if c.band == band || (c.band == "figure" && band == "large") {
						n++
						if c.pass() {
							in++
						}
					}
				}
			}
			fmt.Fprintf(&b, " %s %d/%d;", map[string]string{"time": "time up to 64 KiB", "mid": "busbw 1-16 MiB", "large": "busbw from 256 MiB"}[band], in, n)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// missGroups sorts the rows outside their band into groups of what they
// share (band, GPU, algorithm and protocol NCCL's model picks, servers,
// and whether the twin is faster or slower than the run), largest first,
// with the count of each set: where a general cause would bring most rows
// in, before any row's own reason is read.
func missGroups(checks [][]publicCheck) string {
	type group struct {
		key  string
		sets map[int]int // rows per publicRun.heldOut
	}
	idx := map[string]int{}
	var groups []group
	for i, cs := range checks {
		r := &publicRuns[i]
		if r.excluded != "" || r.op != "" {
			continue
		}
		for _, c := range cs {
			if c.pass() || c.band == "figure" {
				continue
			}
			// ratio is twin/real of the time (small sizes) or of busbw.
			fast := (c.band == "time") == (c.ratio < 1)
			dir := "twin slower"
			if fast {
				dir = "twin faster"
			}
			band := map[string]string{"time": "≤ 64 KiB", "mid": "1-16 MiB", "large": "≥ 256 MiB"}[c.band]
			key := fmt.Sprintf("| %s | %s | %s/%s | %d | %s |", band, r.srv.GPU.Name, c.choice.Algo, c.choice.Proto, r.servers, dir)
			g, ok := idx[key]
			if !ok {
				g = len(groups)
				idx[key] = g
				groups = append(groups, group{key: key, sets: map[int]int{}})
			}
			groups[g].sets[r.heldOut]++
		}
	}
	total := func(g group) int {
		n := 0
		for _, set := range resultGroups {
			n += g.sets[set.held]
		}
		return n
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if total(groups[i]) != total(groups[j]) {
			return total(groups[i]) > total(groups[j])
		}
		return groups[i].key < groups[j].key
	})
	var b strings.Builder
	b.WriteString("\nRows outside their band, grouped by what they share (largest group first; the GPU is the twin's model, so H200 runs count as H100):\n\n")
	b.WriteString("| band | GPU | NCCL's choice | servers | direction |")
	rule := "|---|---|---|---|---|"
	for _, set := range resultGroups {
		b.WriteString(" " + set.column + " |")
		rule += "---|"
	}
	b.WriteString("\n" + rule + "\n")
	for _, g := range groups {
		b.WriteString(g.key)
		for _, set := range resultGroups {
			fmt.Fprintf(&b, " %d |", g.sets[set.held])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestDocsSmallSizes keeps the table of docs/nccl.md that sets the public
// all_reduce results' small sizes (up to 64 KiB, the time band) against
// NCCL's own model as each result's NCCL release has it (Choice.Predicted,
// tuning.cc's latencies and bandwidths by version): per result, the run's,
// the twin's and the model's times, the run over the model, and the rows
// the model itself would have within 25% of the run.
func TestDocsSmallSizes(t *testing.T) {
	var b strings.Builder
	b.WriteString("| result | group | NCCL | host | servers × GPUs | NCCL's choice | run µs | twin µs | NCCL's model µs | run / model | model within 25% | twin within 25% |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	column := map[int]string{}
	for _, set := range resultGroups {
		column[set.held] = set.column
	}
	var modelIn, twinIn, n int
	for i := range publicRuns {
		r := publicRuns[i]
		if r.excluded != "" || r.op != "" || r.slow || r.quoted != nil {
			continue
		}
		// Only the rows up to 64 KiB (each row is a run of its own, so
		// they give what the whole result gives them).
		rows := publicSizes(t, i, func(size int64) bool { return size <= 64<<10 })
		if rows == nil {
			continue
		}
		var small []publicCheck
		for _, c := range rows {
			if c.band == "time" {
				small = append(small, c)
			}
		}
		span := func(f func(publicCheck) float64) (float64, float64) {
			a, z := math.Inf(1), math.Inf(-1)
			for _, c := range small {
				a, z = math.Min(a, f(c)), math.Max(z, f(c))
			}
			return a, z
		}
		run0, run1 := span(func(c publicCheck) float64 { return c.row.time })
		tw0, tw1 := span(func(c publicCheck) float64 { return c.twinTime })
		m0, m1 := span(func(c publicCheck) float64 { return float64(c.choice.Predicted) })
		q0, q1 := span(func(c publicCheck) float64 { return c.row.time / float64(c.choice.Predicted) })
		mi, ti := 0, 0
		for _, c := range small {
			if math.Abs(float64(c.choice.Predicted)/c.row.time-1) <= 0.25 {
				mi++
			}
			if c.pass() {
				ti++
			}
		}
		modelIn, twinIn, n = modelIn+mi, twinIn+ti, n+len(small)
		choices := map[string]bool{}
		var ch []string
		for _, c := range small {
			s := c.choice.Algo.String() + "/" + c.choice.Proto.String()
			if !choices[s] {
				choices[s] = true
				ch = append(ch, s)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d × %d | %s | %.1f-%.1f | %.1f-%.1f | %.1f-%.1f | ×%.2f-×%.2f | %d/%d | %d/%d |\n",
			r.file, column[r.heldOut], r.version, r.srv.CPU, r.servers, r.ppn, strings.Join(ch, ", "),
			run0, run1, tw0, tw1, m0, m1, q0, q1, mi, len(small), ti, len(small))
	}
	fmt.Fprintf(&b, "\nRows up to 64 KiB within 25%% of the run: NCCL's model %d/%d, the twin %d/%d.\n", modelIn, n, twinIn, n)
	docTable(t, "<!-- small sizes against NCCL's model: generated by go test ./internal/collective -run TestDocs -update -->",
		"<!-- end of small sizes against NCCL's model -->", b.String())
}

// hostKinds names publicRun.host for the table of kinds, "" as the sources
// leave it.
var hostKinds = map[string]string{"": "not stated", "VM": "VM", "bare metal": "bare metal"}

// generation is the GPU generation of a model by its compute capability.
func generation(compCap int) string {
	switch {
	case compCap >= 100:
		return "Blackwell"
	case compCap >= 90:
		return "Hopper"
	case compCap >= 80:
		return "Ampere"
	}
	return "older"
}

// ncclSeries puts an NCCL release in one of four spans of releases.
func ncclSeries(version string) string {
	v, _ := ParseVersion(version)
	switch {
	case v.AtLeast(2, 28, 0):
		return "2.28-2.31"
	case v.AtLeast(2, 24, 0):
		return "2.24-2.27"
	case v.AtLeast(2, 19, 0):
		return "2.19-2.23"
	}
	return "2.12-2.18"
}

// missKinds tabulates every held-out row in a band (all groups but the
// calibration set, every collective) by one kind of system or run at a
// time: per value and band the rows within it and, for the rows outside,
// the median and range of the twin/real ratio (of the time up to 64 KiB,
// of busbw above): which kinds of system the twin misses and by how much.
func missKinds(checks [][]publicCheck) string {
	kinds := []struct {
		name string
		of   func(r *publicRun, c publicCheck) string
	}{
		{"GPU generation", func(r *publicRun, c publicCheck) string { return generation(r.srv.GPU.CompCap) }},
		{"fabric", func(r *publicRun, c publicCheck) string { return r.fabric }},
		{"host", func(r *publicRun, c publicCheck) string { return hostKinds[r.host] }},
		{"NCCL release", func(r *publicRun, c publicCheck) string { return ncclSeries(r.version) }},
		{"servers", func(r *publicRun, c publicCheck) string {
			if r.servers == 2 {
				return "2"
			}
			return "3 or more"
		}},
		{"collective", func(r *publicRun, c publicCheck) string { return r.fn().String() }},
		{"NCCL's choice", func(r *publicRun, c publicCheck) string {
			return c.choice.Algo.String() + "/" + c.choice.Proto.String()
		}},
	}
	bands := []string{"time", "mid", "large"}
	type cell struct {
		n      int
		misses []float64
	}
	var b strings.Builder
	b.WriteString("| kind | value | ≤ 64 KiB: time | 1-16 MiB: busbw | ≥ 256 MiB: busbw |\n|---|---|---|---|---|\n")
	for _, k := range kinds {
		cells := map[string]map[string]*cell{}
		var values []string
		for i, cs := range checks {
			r := &publicRuns[i]
			if r.heldOut == 0 || r.excluded != "" {
				continue
			}
			for _, c := range cs {
				if c.band != "time" && c.band != "mid" && c.band != "large" {
					continue
				}
				v := k.of(r, c)
				if cells[v] == nil {
					cells[v] = map[string]*cell{}
					for _, band := range bands {
						cells[v][band] = &cell{}
					}
					values = append(values, v)
				}
				x := cells[v][c.band]
				x.n++
				if !c.pass() {
					x.misses = append(x.misses, c.ratio)
				}
			}
		}
		sort.Strings(values)
		for _, v := range values {
			fmt.Fprintf(&b, "| %s | %s |", k.name, v)
			for _, band := range bands {
				x := cells[v][band]
				switch {
				case x.n == 0:
					b.WriteString(" – |")
				case len(x.misses) == 0:
					fmt.Fprintf(&b, " %d/%d in band |", x.n, x.n)
				default:
					m := append([]float64(nil), x.misses...)
					sort.Float64s(m)
					med := m[len(m)/2]
					if len(m)%2 == 0 {
						med = (m[len(m)/2-1] + m[len(m)/2]) / 2
					}
					fmt.Fprintf(&b, " %d/%d in band; %d out: median ×%.2f (×%.2f–×%.2f) |", x.n-len(m), x.n, len(m), med, m[0], m[len(m)-1])
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestDocsMissKinds keeps the table of docs/nccl.md that sorts the
// held-out rows by kind of system (missKinds) equal to what the twin gives.
func TestDocsMissKinds(t *testing.T) {
	docTable(t, "<!-- held-out rows by kind: generated by go test ./internal/collective -run TestDocs -update -->",
		"<!-- end of held-out rows by kind -->", missKinds(allPublic(t)))
}
