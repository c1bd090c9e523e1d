package exporter

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureHost is testdata/host read as a host.
func fixtureHost(t testing.TB) Host {
	h, err := TreeHost(Dir("testdata/host"))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// scrapeText gathers a registry holding exp and returns the exposition
// text, without the lines matching drop.
func scrapeText(t testing.TB, exp *Exporter, drop *regexp.Regexp) string {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(exp)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		if drop == nil || !drop.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

func fixtureExporter(t testing.TB) *Exporter {
	h := fixtureHost(t)
	return New(func() Host { return h }, Collectors(Options{EthtoolExclude: regexp.MustCompile(DefaultEthtoolExclude)}), nil)
}

// TestGoldenMetrics compares the fixture host's /metrics with
// testdata/metrics.golden.
func TestGoldenMetrics(t *testing.T) {
	got := scrapeText(t, fixtureExporter(t), regexp.MustCompile(`^rocelab_exporter_scrape_duration_seconds\{`))
	const file = "testdata/metrics.golden"
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("metrics differ from %s (run with -update after checking):\n%s", file, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in a or only in b.
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out strings.Builder
	for _, l := range strings.Split(a, "\n") {
		if !mb[l] {
			out.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ma[l] {
			out.WriteString("+ " + l + "\n")
		}
	}
	return out.String()
}

// TestGoldenPassesPromtool: promtool check metrics finds no problem in the
// exposition (names, types, units), as node_exporter's CI checks its own.
func TestGoldenPassesPromtool(t *testing.T) {
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (apt-get install prometheus; .ci/run installs it): exposition not linted")
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = strings.NewReader(scrapeText(t, fixtureExporter(t), nil))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
