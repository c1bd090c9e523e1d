package exporter

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
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

func fixtureExporter(t testing.TB) *Exporter {
	h := fixtureHost(t)
	return New(func() Host { return h }, Collectors(Options{EthtoolExclude: regexp.MustCompile(DefaultEthtoolExclude)}), nil)
}

// servedText is the fixture host's /metrics as the handler serves it,
// without the lines matching drop.
func servedText(t testing.TB, drop *regexp.Regexp) string {
	_, body := scrapeHandler(t, NewHandler([]*Exporter{fixtureExporter(t)}, nil, 0, nil), nil)
	var out []string
	for _, l := range strings.SplitAfter(string(body), "\n") {
		if drop == nil || !drop.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestGoldenMetrics compares the fixture host's /metrics, as served, with
// testdata/metrics.golden.
func TestGoldenMetrics(t *testing.T) {
	got := servedText(t, regexp.MustCompile(`^rocelab_exporter_scrape_duration_seconds\{`))
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
	cmd.Stdin = strings.NewReader(servedText(t, nil))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
