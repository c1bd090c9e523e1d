package page_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/examples"
	"rocelab/internal/capture"
	"rocelab/internal/doctor"
	"rocelab/internal/ingest"
	"rocelab/internal/metrics"
	"rocelab/internal/page"
	"rocelab/internal/scenario"
	"rocelab/internal/tune"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// version stands for the binary's version on test pages.
const version = "test"

// load loads an embedded example.
func load(t testing.TB, name string) *scenario.Scenario {
	t.Helper()
	data, err := examples.FS.ReadFile(name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load("examples/"+name+".yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runJobs runs every job of an example (its variants, or itself) in
// parallel, as rocelab run does.
func runJobs(t testing.TB, name string) []page.Job {
	t.Helper()
	js := load(t, name).Jobs()
	jobs := make([]page.Job, len(js))
	var failed error
	twin.RunAll(js, &twin.Config{}, func(i int, o *twin.Observation, err error) {
		if err != nil {
			failed = err
			return
		}
		obs := *o
		jobs[i] = page.Job{Variant: js[i].Variant, Description: js[i].Description, Obs: &obs}
	})
	if failed != nil {
		t.Fatal(failed)
	}
	return jobs
}

// runPage writes an example's run page.
func runPage(t testing.TB, name string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := page.Run(&b, name, version, runJobs(t, name)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// diagnosisPage writes the page of a diagnosis of the real corpus.
func diagnosisPage(t testing.TB) []byte {
	t.Helper()
	rep := doctor.Diagnose([]string{filepath.Join("..", "..", "testdata", "corpus")}, strings.NewReader(""), doctor.Options{})
	var b bytes.Buffer
	if err := page.Diagnosis(&b, rep, version); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tunePage writes the page of the headroom search of headroom-short.
func tunePage(t testing.TB) []byte {
	t.Helper()
	file := filepath.Join("..", "..", "examples", "headroom-short.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	spData, err := os.ReadFile(filepath.Join("..", "..", "testdata", "tune", "headroom-short-space.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := tune.ParseSpace("headroom-short-space.yaml", spData)
	if err != nil {
		t.Fatal(err)
	}
	base, err := tune.NewBase("examples/headroom-short.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tune.Search(base, sp, tune.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cands := sp.Candidates()
	in := page.TuneInput{Result: res}
	_, in.BaseYAML, _ = base.Scenario(sp, cands[0])
	_, in.BestYAML, _ = base.Scenario(sp, cands[res.Best])
	var b bytes.Buffer
	if err := page.Tune(&b, in, version); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// capturePage writes the page of a capture the twin took at h0's port of
// the lossy-link example (go-back-N after losses).
func capturePage(t testing.TB) []byte {
	t.Helper()
	s := load(t, "lossy-link")
	tw, err := scenario.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := tw.Port("h0/p0")
	if err != nil {
		t.Fatal(err)
	}
	var pcap bytes.Buffer
	tap, err := tw.AttachPcap(pt, &pcap, 128)
	if err != nil {
		t.Fatal(err)
	}
	tw.Run()
	if err := tap.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := capture.Analyze("lossy-link-h0.pcapng", &pcap, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	findings := doctor.Check(&doctor.Incident{Artifacts: []ingest.Artifact{a}})
	var b bytes.Buffer
	if err := page.Capture(&b, a, findings, version); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestStructureGoldens compares the structure of pages (sections, tables,
// plots with their axes, series and reference lines, and the notes on
// what was summarised or is not modelled) with testdata/golden/*.txt,
// read from the page as XML: the page is well-formed, and a change in
// what it shows is a diff to read. Run with -update to rewrite them.
func TestStructureGoldens(t *testing.T) {
	cases := []struct {
		name string
		page func(t testing.TB) []byte
	}{
		{"run-cc-compare", func(t testing.TB) []byte { return runPage(t, "cc-compare") }},
		{"run-gdr", func(t testing.TB) []byte { return runPage(t, "gdr") }},
		{"run-incast-pfc", func(t testing.TB) []byte { return runPage(t, "incast-pfc") }},
		{"run-absent", func(t testing.TB) []byte { return absentPage(t) }},
		{"diagnose-corpus", diagnosisPage},
		{"tune-headroom-short", tunePage},
		{"capture-lossy-link", capturePage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			html := c.page(t)
			got, err := outline(bytes.NewReader(html))
			if err != nil {
				t.Fatalf("the page is not well-formed: %v", err)
			}
			path := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(want) != got {
				t.Errorf("%s changed; read the diff and run with -update if it is right:\n%s", path, got)
			}
		})
	}
}

// outline reads a page's structure: its title and header fields; its
// sections; each table's caption, columns and row count; each plot's
// title, axes, series and reference lines; each finding's heading; and
// every note.
func outline(r io.Reader) (string, error) {
	d := xml.NewDecoder(r)
	d.Strict = true
	var b strings.Builder
	type open struct {
		e    xml.StartElement
		text strings.Builder
	}
	var stack []*open
	attr := func(e xml.StartElement, name string) string {
		for _, a := range e.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	inside := func(local, class string) bool {
		for _, o := range stack {
			if o.e.Name.Local == local && (class == "" || strings.Contains(" "+attr(o.e, "class")+" ", " "+class+" ")) {
				return true
			}
		}
		return false
	}
	var heads []string
	var rows int
	var listHead string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			stack = append(stack, &open{e: e.Copy()})
			switch e.Name.Local {
			case "figure":
				fmt.Fprintf(&b, "    figure x %q y %q\n", attr(e, "data-x-label"), attr(e, "data-y-label"))
			case "table":
				heads, rows = nil, 0
			}
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(e)
			}
		case xml.EndElement:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			raw := top.text.String()
			if len(stack) > 0 {
				stack[len(stack)-1].text.WriteString(raw)
			}
			s := strings.Join(strings.Fields(raw), " ")
			class := attr(top.e, "class")
			inFigure := inside("figure", "")
			switch name := e.Name.Local; {
			case name == "title" && !inFigure && !inside("svg", ""):
				fmt.Fprintf(&b, "title: %s\n", s)
			case name == "dt":
				fmt.Fprintf(&b, "  meta %s\n", s)
			case name == "h2":
				fmt.Fprintf(&b, "== %s\n", s)
			case name == "h3" && inside("article", ""):
				fmt.Fprintf(&b, "    finding %s\n", s)
			case name == "h3":
				fmt.Fprintf(&b, "-- %s\n", s)
			case name == "caption":
				fmt.Fprintf(&b, "    table %q", s)
			case name == "th" && inside("thead", ""):
				heads = append(heads, s)
			case name == "tr" && inside("tbody", ""):
				rows++
			case name == "table":
				fmt.Fprintf(&b, " [%s] %d rows\n", strings.Join(heads, " | "), rows)
			case name == "strong" && class == "fig-title":
				fmt.Fprintf(&b, "      title %s\n", s)
			case name == "span" && class == "list-head":
				listHead = strings.ToLower(strings.TrimSuffix(s, ":"))
			case name == "li" && (inside("ul", "series") || inside("ul", "refs")):
				fmt.Fprintf(&b, "      %s: %s\n", listHead, s)
			case inside("footer", ""):
			case name == "p" && class == "" && !inFigure && !inside("article", ""):
				fmt.Fprintf(&b, "    text: %s\n", s)
			case name == "li" && !inFigure && !inside("article", "") && !inside("nav", ""):
				fmt.Fprintf(&b, "    item: %s\n", s)
			case class == "note" || class == "more":
				indent := "    "
				if inFigure {
					indent = "      "
				}
				fmt.Fprintf(&b, "%s%s: %s\n", indent, class, s)
			}
		}
	}
	return b.String(), nil
}

// absentPage is the page of a run by an engine that models less (a
// flow-level one): what it leaves out is labelled where it would be
// drawn, never drawn as zero.
func absentPage(t testing.TB) []byte {
	t.Helper()
	fct := 12.5
	o := &twin.Observation{
		Engine:   twin.EngineInfo{Name: "sketch", Reason: "asked for by name", NotModelled: []string{"per-packet latency", "queue depths, pause and DCQCN rates over time", "port counters"}},
		Scenario: twin.Setup{Name: "sparse", File: "sparse.yaml", Topology: "single-switch", Hosts: 2, Switches: 1, Links: 2, MTU: 4096},
		Sim:      twin.Sim{End: 20 * unit.Microsecond, Completed: true, Events: 3},
		Health:   metrics.NewHealth(0, 0.95, 0, 0),
		Flows:    []twin.Flow{{ID: 0, Name: "f", Src: "h0", Dst: "h1", Bytes: 1 << 20, FCTUS: &fct, GoodputGbps: 671, Delivered: 1 << 20, Status: "ok"}},
		Ports:    []twin.Port{{Name: "sw0/p0", Peer: "h0/p0", Switch: true}, {Name: "h0/p0", Peer: "sw0/p0"}},
		NICs:     []twin.NIC{{Name: "h0", Port: 1, Rate: 100 * unit.Gbps}},
		Queues:   []twin.Queue{{Port: "sw0/p1", Priority: 3, MaxBytes: 80000}},
	}
	var b bytes.Buffer
	if err := page.Run(&b, "sparse", version, []page.Job{{Obs: o}}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
