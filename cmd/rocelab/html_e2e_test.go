package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/browser"
)

// shownPage is what a page shows, read from its DOM in the browser.
type shownPage struct {
	Title   string     `json:"title"`
	Figures []shownFig `json:"figures"`
	Tables  []shownTbl `json:"tables"`
	Heads   []string   `json:"heads"`
	Width   float64    `json:"width"`
	Extern  []string   `json:"extern"`
}

type shownFig struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	XLabel   string   `json:"xLabel"`
	YLabel   string   `json:"yLabel"`
	SVGTitle string   `json:"svgTitle"`
	SVGDesc  string   `json:"svgDesc"`
	Role     string   `json:"role"`
	Labelled bool     `json:"labelled"`
	Texts    []string `json:"texts"`
	Paths    int      `json:"paths"`
	Series   []string `json:"series"`
	Refs     []string `json:"refs"`
	Width    float64  `json:"width"`
	Height   float64  `json:"height"`
	Visible  bool     `json:"visible"`
}

type shownTbl struct {
	Caption  string `json:"caption"`
	ColHeads int    `json:"colHeads"`
	RowHeads int    `json:"rowHeads"`
	Rows     int    `json:"rows"`
}

// readDOM collects, in the page, what the checks need.
const readDOM = `(() => {
  const txt = (e) => e ? e.textContent.trim() : "";
  const figs = Array.from(document.querySelectorAll("figure.plot")).map((f) => {
    const svg = f.querySelector("svg");
    const ids = svg ? (svg.getAttribute("aria-labelledby") || "").split(" ") : [];
    const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    return {
      id: f.id, title: txt(f.querySelector(".fig-title")), summary: txt(f.querySelector(".fig-summary")),
      xLabel: f.getAttribute("data-x-label") || "", yLabel: f.getAttribute("data-y-label") || "",
      svgTitle: txt(svg && svg.querySelector("title")), svgDesc: txt(svg && svg.querySelector("desc")),
      role: svg ? svg.getAttribute("role") : "",
      labelled: ids.length === 2 && ids.every((id) => document.getElementById(id) !== null),
      texts: svg ? Array.from(svg.querySelectorAll("text")).map((t) => t.textContent.trim()) : [],
      paths: svg ? svg.querySelectorAll("path").length : 0,
      series: Array.from(f.querySelectorAll("ul.series li")).map(txt),
      refs: Array.from(f.querySelectorAll("ul.refs li")).map(txt),
      width: r.width, height: r.height, visible: r.width > 100 && r.height > 50,
    };
  });
  const tables = Array.from(document.querySelectorAll("table")).map((t) => ({
    caption: txt(t.caption), colHeads: t.querySelectorAll("thead th[scope=col]").length,
    rowHeads: t.querySelectorAll("tbody th[scope=row]").length, rows: t.tBodies.length ? t.tBodies[0].rows.length : 0,
  }));
  const extern = Array.from(document.querySelectorAll("[src], link[href], [href]"))
    .map((e) => e.getAttribute("src") || e.getAttribute("href")).filter((u) => !u.startsWith("#"));
  return {
    title: document.title, figures: figs, tables: tables, extern: extern,
    heads: Array.from(document.querySelectorAll("h2")).map(txt),
    width: document.documentElement.scrollWidth,
  };
})()`

// unitLabel is an axis label with its unit: "name (unit)".
var unitLabel = regexp.MustCompile(`^\S.* \([^()]+\)$`)

// TestPagesInBrowser renders the page of the default scenario, of a
// diagnosis of the project's real corpus and of a tune search in headless
// Chromium, saves a screenshot of each (path in the log), and checks from
// the DOM and the SVG: no console error, no request but the file itself,
// every plot titled with labelled axes and units and a text alternative,
// every table a real table, and the busbw plot one series per variant.
func TestPagesInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	chromium, ok := browser.Find()
	if !ok {
		t.Skip("chromium not installed (apt-get install chromium; .ci/run installs it): pages not checked in a browser")
	}
	dir := t.TempDir()
	pages := []struct {
		name     string
		args     []string
		codes    []int
		variants []string
		heads    []string
	}{
		{"run", []string{"run"}, []int{0}, []string{"as-found", "tuned"},
			[]string{"Health targets", "NCCL workload", "Variants compared", "Fabric of variant as-found", "Fabric of variant tuned"}},
		{"diagnose", []string{"diagnose", filepath.Join("..", "..", "testdata", "corpus")}, []int{0, 1}, nil,
			[]string{"Summary", "1. Is RDMA used, and are the queue pairs up?", "2. Are PFC and ECN in effect on the RoCE priority?", "Timeline", "Hosts, devices and ports named", "Inputs"}},
		{"tune", []string{"tune", filepath.Join("..", "..", "examples", "headroom-short.yaml"), "--space", filepath.Join("..", "..", "testdata", "tune", "headroom-short-space.yaml")}, []int{0}, nil,
			[]string{"Ranked candidates", "Objective against each parameter", "Pareto set of the four health targets", "Best configuration"}},
	}
	b, err := browser.Start(chromium, t.TempDir())
	if err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	defer func() { b.Close() }()
	// open opens url, in a new Chromium if the last one has died: on this
	// VM Debian's Chromium now and then crashes while it starts (crashpad
	// reports it a tenth of a second in, before any page is asked for).
	// A page that makes it crash crashes the new one too, and fails.
	open := func(url string) (*browser.Page, error) {
		if !b.Alive() {
			t.Logf("chromium died; starting it again:\n%s", b.Stderr())
			b.Close()
			if b, err = browser.Start(chromium, t.TempDir()); err != nil {
				return nil, err
			}
		}
		return b.Open(url)
	}
	shots := t.ArtifactDir()
	for _, pg := range pages {
		t.Run(pg.name, func(t *testing.T) {
			file := filepath.Join(dir, pg.name+".html")
			code, _, stderr := runCLI(append(pg.args, "--html", file)...)
			if !slices.Contains(pg.codes, code) {
				t.Fatalf("rocelab %s: exit %d\n%s", strings.Join(pg.args, " "), code, stderr)
			}
			st, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if pg.name == "run" && st.Size() >= 2<<20 {
				t.Errorf("the default scenario's page is %d bytes, not under 2 MB", st.Size())
			}
			url := "file://" + file
			p, err := open(url)
			if err != nil {
				t.Fatalf("%v\n%s", err, b.Stderr())
			}
			defer p.Close()
			png, err := p.Screenshot(30000)
			if err != nil {
				t.Fatal(err)
			}
			shot := filepath.Join(shots, pg.name+".png")
			if err := os.WriteFile(shot, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot of the %s page (%d bytes of HTML): %s", pg.name, st.Size(), shot)
			if errs := p.Errors(); len(errs) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
			}
			if reqs := p.Requests(); len(reqs) != 1 || reqs[0] != url {
				t.Errorf("requests: %q; want only the file itself", reqs)
			}
			var dom shownPage
			if err := p.Eval(readDOM, &dom); err != nil {
				t.Fatal(err)
			}
			checkDOM(t, pg.name, &dom, pg.heads, pg.variants)
			if pg.name == "run" {
				checkReadout(t, p)
			}
		})
	}
}

// checkDOM checks what one page shows.
func checkDOM(t *testing.T, name string, dom *shownPage, heads, variants []string) {
	t.Helper()
	if len(dom.Extern) > 0 {
		t.Errorf("references outside the page: %q", dom.Extern)
	}
	for _, h := range heads {
		if !slices.Contains(dom.Heads, h) {
			t.Errorf("no section %q in %q", h, dom.Heads)
		}
	}
	if len(dom.Figures) == 0 {
		t.Fatal("no plot")
	}
	if dom.Width > 1300 {
		t.Errorf("the page is %v px wide in a 1200 px window", dom.Width)
	}
	busbw := 0
	for _, f := range dom.Figures {
		where := name + " plot " + f.ID
		if f.Title == "" || f.Title != f.SVGTitle || !slices.Contains(f.Texts, f.Title) {
			t.Errorf("%s: title %q, SVG title %q, drawn %v", where, f.Title, f.SVGTitle, slices.Contains(f.Texts, f.Title))
		}
		if f.Summary == "" || f.Summary != f.SVGDesc || f.Role != "img" || !f.Labelled {
			t.Errorf("%s: text alternative: summary %q, desc %q, role %q, labelled %v", where, f.Summary, f.SVGDesc, f.Role, f.Labelled)
		}
		for _, l := range []string{f.XLabel, f.YLabel} {
			if !unitLabel.MatchString(l) || !slices.Contains(f.Texts, l) {
				t.Errorf("%s: axis label %q: with a unit %v, drawn %v", where, l, unitLabel.MatchString(l), slices.Contains(f.Texts, l))
			}
		}
		known := append([]string{f.Title, f.XLabel, f.YLabel}, append(f.Series, f.Refs...)...)
		ticks := 0
		for _, tx := range f.Texts {
			if tx != "" && !slices.Contains(known, tx) {
				ticks++
			}
		}
		if ticks < 2 || f.Paths < 3 || !f.Visible {
			t.Errorf("%s: %d tick labels, %d paths, %vx%v px: no axes drawn", where, ticks, f.Paths, f.Width, f.Height)
		}
		if strings.HasPrefix(f.Title, "busbw") {
			busbw++
			if !slices.Equal(f.Series, variants) {
				t.Errorf("%s: series %q, want one per variant %q", where, f.Series, variants)
			}
			for _, s := range f.Series {
				if !slices.Contains(f.Texts, s) {
					t.Errorf("%s: series %q not in the legend", where, s)
				}
			}
			if len(f.Refs) == 0 || !strings.HasPrefix(f.Refs[0], "NIC-rate ceiling") {
				t.Errorf("%s: no NIC-rate ceiling drawn: %q", where, f.Refs)
			}
		}
	}
	if variants != nil && busbw != 1 {
		t.Errorf("%d busbw plots", busbw)
	}
	for i, tb := range dom.Tables {
		if tb.Caption == "" || tb.ColHeads == 0 || (tb.Rows > 0 && tb.RowHeads != tb.Rows) {
			t.Errorf("%s table %d %q: %d column heads, %d row heads for %d rows", name, i, tb.Caption, tb.ColHeads, tb.RowHeads, tb.Rows)
		}
	}
}

// pointAtMiddle moves the pointer to the middle of the busbw plot's data
// area and returns what the (optional) script shows under the plot, and
// the x axis' range.
const pointAtMiddle = `(() => {
  const f = Array.from(document.querySelectorAll("figure.plot")).find((f) => f.querySelector(".fig-title").textContent.startsWith("busbw"));
  const svg = f.querySelector("svg");
  const a = svg.getAttribute("data-area").split(" ").map(Number);
  const pt = svg.createSVGPoint();
  pt.x = (a[0] + a[2]) / 2; pt.y = (a[1] + a[3]) / 2;
  const c = pt.matrixTransform(svg.getScreenCTM());
  svg.dispatchEvent(new PointerEvent("pointermove", {clientX: c.x, clientY: c.y, bubbles: true}));
  return {readout: f.querySelector("output.readout").textContent, xr: svg.getAttribute("data-xr")};
})()`

// checkReadout checks the values shown under the pointer: in the middle
// of the log size axis, the geometric mean of its ends.
func checkReadout(t *testing.T, p *browser.Page) {
	t.Helper()
	var r struct {
		Readout string `json:"readout"`
		XR      string `json:"xr"`
	}
	if err := p.Eval(pointAtMiddle, &r); err != nil {
		t.Fatal(err)
	}
	var x, y, lo, hi float64
	var scale string
	if _, err := fmt.Sscanf(r.Readout, "x = %g bytes, y = %g GB/s", &x, &y); err != nil {
		t.Fatalf("readout %q: %v", r.Readout, err)
	}
	if _, err := fmt.Sscanf(r.XR, "%s %g %g", &scale, &lo, &hi); err != nil || scale != "log" {
		t.Fatalf("x range %q: %v", r.XR, err)
	}
	if mid := math.Sqrt(lo * hi); math.Abs(x-mid) > 0.02*mid {
		t.Errorf("the pointer in the middle reads x = %g bytes, want about %g", x, mid)
	}
}
