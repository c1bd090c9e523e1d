package page

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// An Axis is a plot axis: what it measures and in which unit.
type Axis struct {
	Name, Unit string
	// Log sets a logarithmic scale.
	Log bool
}

// Label is the axis label: "name (unit)".
func (a Axis) Label() string { return a.Name + " (" + a.Unit + ")" }

// A Figure is one plot and its text alternative: a title, a one-line
// summary of what it shows, its axes with units, the names of the data
// series and of the reference lines drawn, and a note on what was
// summarised.
type Figure struct {
	Title, Summary string
	X, Y           Axis
	Series, Refs   []string
	Note           string
	// Height is the plot's height in points (default 230).
	Height float64

	p         *plot.Plot
	keys      map[string]string // the CSS colour of each series and reference line
	late      []func()          // legend entries that come after the others
	drawn     int               // data points drawn
	colour    int
	nominal   bool // the x axis is categories: no values under the pointer
	hideLegnd bool
}

// The size of a plot in points; the page scales it to its width.
const (
	plotWidth     = 560
	defaultHeight = 230
	// maxPoints bounds the points of one drawn line: about two per
	// horizontal pixel of the plot.
	maxPoints = 800
)

// palette is Okabe and Ito's colour-blind-safe palette, darkest first.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x59, 0x59, 0x59, 0xff}, // grey
	{0x99, 0x80, 0x00, 0xff}, // dark yellow
}

// refColour draws reference lines (ceilings, thresholds).
var refColour = color.RGBA{0x80, 0x00, 0x00, 0xff}

// newFigure starts a figure with its title and axes.
func newFigure(title string, x, y Axis) *Figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x.Label()
	p.Y.Label.Text = y.Label()
	sans := func(st *plot.Plot) {
		st.Title.TextStyle.Font.Variant = "Sans"
		st.Title.TextStyle.Font.Size = 11
		for _, a := range []*plot.Axis{&st.X, &st.Y} {
			a.Label.TextStyle.Font.Variant = "Sans"
			a.Label.TextStyle.Font.Size = 10
			a.Tick.Label.Font.Variant = "Sans"
			a.Tick.Label.Font.Size = 9
		}
		st.Legend.TextStyle.Font.Variant = "Sans"
		st.Legend.TextStyle.Font.Size = 9
	}
	sans(p)
	p.Title.Padding = 6
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = 14
	p.X.Tick.Marker = plot.TickerFunc(shortTicks)
	p.Y.Tick.Marker = plot.TickerFunc(shortTicks)
	if x.Log {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.TickerFunc(decadeTicks)
	}
	if y.Log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.TickerFunc(decadeTicks)
	}
	return &Figure{Title: title, X: x, Y: y, p: p, keys: map[string]string{}}
}

// maxLegend is the most entries a plot's own legend holds; with more, the
// legend is the list under the plot, with colour keys.
const maxLegend = 5

// key records the colour a series or reference line is drawn in.
func (f *Figure) key(name string, c color.RGBA) {
	f.keys[name] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// next returns the next series colour.
func (f *Figure) next() color.RGBA {
	c := palette[f.colour%len(palette)]
	f.colour++
	return c
}

// line adds a data series drawn as a line (its points decimated to at
// most maxPoints, keeping each bucket's extremes).
func (f *Figure) line(name string, xs, ys []float64) color.RGBA {
	c := f.next()
	f.lineIn(name, xs, ys, c, f.colour > len(palette))
	return c
}

// lineIn adds a data series drawn in colour c, dashed or not.
func (f *Figure) lineIn(name string, xs, ys []float64, c color.RGBA, dashed bool) {
	xs, ys = decimate(xs, ys, maxPoints)
	l, err := plotter.NewLine(f.xyOf(xs, ys))
	if err != nil || l.Len() == 0 {
		return
	}
	l.LineStyle.Color = c
	l.LineStyle.Width = 1.2
	if dashed {
		l.LineStyle.Dashes = []vg.Length{4, 2}
	}
	f.p.Add(l)
	if name != "" {
		f.p.Legend.Add(name, l)
		f.Series = append(f.Series, name)
		f.key(name, c)
	}
}

// points adds a data series drawn as marks.
func (f *Figure) points(name string, xs, ys []float64, c color.RGBA, shape draw.GlyphDrawer, radius float64) {
	s, err := plotter.NewScatter(f.xyOf(xs, ys))
	if err != nil || s.Len() == 0 {
		return
	}
	s.GlyphStyle.Color = c
	s.GlyphStyle.Shape = shape
	s.GlyphStyle.Radius = vg.Length(radius)
	f.p.Add(s)
	if name != "" {
		f.p.Legend.Add(name, s)
		f.Series = append(f.Series, name)
		f.key(name, c)
	}
}

// band adds a data series drawn as a shaded band between lo and hi (at
// the same xs) and a line at mid.
func (f *Figure) band(name string, xs, lo, mid, hi []float64) {
	if len(xs) == 0 {
		return
	}
	c := palette[6]
	poly := make(plotter.XYs, 0, 2*len(xs))
	for i := range xs {
		poly = append(poly, plotter.XY{X: xs[i], Y: hi[i]})
	}
	for i := len(xs) - 1; i >= 0; i-- {
		poly = append(poly, plotter.XY{X: xs[i], Y: lo[i]})
	}
	pg, err := plotter.NewPolygon(f.xyOf(xyCols(poly)))
	if err != nil {
		return
	}
	pg.Color = color.NRGBA{0xa0, 0xa0, 0xa0, 0x70}
	pg.LineStyle.Width = 0
	f.p.Add(pg)
	l, err := plotter.NewLine(f.xyOf(xs, mid))
	if err != nil {
		return
	}
	l.LineStyle.Color = c
	l.LineStyle.Width = 1
	l.LineStyle.Dashes = []vg.Length{1, 2}
	f.p.Add(l)
	// Drawn now, under the lines added after it; named after them.
	f.late = append(f.late, func() {
		f.p.Legend.Add(name, pg, l)
		f.Series = append(f.Series, name)
		f.key(name, color.RGBA{0xb0, 0xb0, 0xb0, 0xff})
	})
}

// ref adds a horizontal reference line at y across [x0, x1].
func (f *Figure) ref(name string, x0, x1, y float64, c color.RGBA, dashes ...vg.Length) {
	l, err := plotter.NewLine(f.xyOf([]float64{x0, x1}, []float64{y, y}))
	if err != nil || l.Len() < 2 {
		return
	}
	l.LineStyle.Color = c
	l.LineStyle.Width = 1
	l.LineStyle.Dashes = dashes
	f.p.Add(l)
	f.p.Legend.Add(name, l)
	f.Refs = append(f.Refs, name)
	f.key(name, c)
}

// xyOf pairs xs and ys, leaving out points that are not finite, and
// those not positive on a log axis.
func (f *Figure) xyOf(xs, ys []float64) plotter.XYs {
	out := make(plotter.XYs, 0, len(xs))
	for i := range xs {
		x, y := xs[i], ys[i]
		if isFinite(x) && isFinite(y) && (!f.X.Log || x > 0) && (!f.Y.Log || y > 0) {
			out = append(out, plotter.XY{X: x, Y: y})
		}
	}
	f.drawn += len(out)
	return out
}

// xyCols splits points into their columns.
func xyCols(xys plotter.XYs) (xs, ys []float64) {
	for _, p := range xys {
		xs, ys = append(xs, p.X), append(ys, p.Y)
	}
	return xs, ys
}

// decadeTicks marks each power of ten, labelled, and 2 and 5 times it,
// unlabelled (labelled too when the range spans less than two decades).
func decadeTicks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	few := hi/lo < 100
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for _, m := range []float64{1, 2, 5} {
			v := m * d
			if v < lo*0.999 || v > hi*1.001 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || few {
				t.Label = short(v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// shortTicks are gonum's default ticks labelled with short.
func shortTicks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = short(ts[i].Value)
		}
	}
	return ts
}

// short formats a tick value in at most three significant digits, with
// k, M, G for thousands, millions, billions.
func short(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return fmt.Sprintf("%.3g", v/1e9) + "G"
	case a >= 1e6:
		return fmt.Sprintf("%.3g", v/1e6) + "M"
	case a >= 1e4:
		return fmt.Sprintf("%.3g", v/1e3) + "k"
	case a >= 1:
		return fmt.Sprintf("%.4g", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// sizeTicks marks powers of two on a log axis of bytes, labelled as
// nccl-tests sizes are spoken (1K, 128M, 8G), every other one when
// there are many.
func sizeTicks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log2(lo))), int(math.Ceil(math.Log2(hi)))
	step := 1
	for (e1-e0)/step > 10 {
		step *= 2
	}
	var ts []plot.Tick
	for e := e0; e <= e1; e++ {
		v := math.Ldexp(1, e)
		if v < lo*0.999 || v > hi*1.001 {
			continue
		}
		t := plot.Tick{Value: v}
		if e%step == 0 {
			t.Label = sizeName(int64(v))
		}
		ts = append(ts, t)
	}
	return ts
}

// sizeName names a byte count the way nccl-tests options do: 8, 1K,
// 128M, 8G (binary units).
func sizeName(n int64) string {
	for _, u := range []struct {
		s     string
		shift uint
	}{{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.s)
		}
	}
	return fmt.Sprint(n)
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// decimate keeps at most about max points of a line: the first and last
// point of each bucket of consecutive points and its extremes, in order,
// so that peaks survive.
func decimate(xs, ys []float64, max int) ([]float64, []float64) {
	n := len(xs)
	if n <= max || max < 8 {
		return xs, ys
	}
	buckets := max / 4
	ox, oy := make([]float64, 0, max), make([]float64, 0, max)
	for b := 0; b < buckets; b++ {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		if lo >= hi {
			continue
		}
		imin, imax := lo, lo
		for i := lo; i < hi; i++ {
			if ys[i] < ys[imin] {
				imin = i
			}
			if ys[i] > ys[imax] {
				imax = i
			}
		}
		keep := []int{lo, imin, imax, hi - 1}
		if imin > imax {
			keep[1], keep[2] = imax, imin
		}
		last := -1
		for _, i := range keep {
			if i != last {
				ox, oy = append(ox, xs[i]), append(oy, ys[i])
				last = i
			}
		}
	}
	return ox, oy
}

// svgHead matches gonum's SVG prelude: the XML declaration, its comment
// and the root element's size (compiled at its first use).
var svgHead = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)^<\?xml[^>]*>\s*(<!--.*?-->\s*)?<svg width="[^"]*" height="[^"]*"`)
})

// Figure draws f with its title, summary, series list and note. A
// figure with no data says so instead.
func (p *Page) Figure(f *Figure) {
	h := f.Height
	if h == 0 {
		h = defaultHeight
	}
	if f.drawn == 0 {
		p.Note(f.Title + ": nothing to plot. " + f.Note)
		return
	}
	for _, add := range f.late {
		add()
	}
	htmlKeys := len(f.Series)+len(f.Refs) > maxLegend
	if len(f.Series)+len(f.Refs) == 0 || f.hideLegnd || htmlKeys {
		f.p.Legend = plot.NewLegend()
	} else if f.p.Legend.Top && !f.Y.Log && !f.nominal {
		// Room above the data for the legend.
		entries := float64(len(f.Series) + len(f.Refs))
		share := math.Min(0.6, entries*12/(h-60))
		if lo, hi := f.p.Y.Min, f.p.Y.Max; hi > lo && isFinite(lo) && isFinite(hi) {
			f.p.Y.Max = lo + (hi-lo)/(1-share)
		}
	}
	widen(&f.p.X, f.X.Log)
	widen(&f.p.Y, f.Y.Log)
	svg, area, err := render(f.p, h)
	if err != nil {
		p.Note("plot " + f.Title + " could not be drawn: " + err.Error())
		return
	}
	id := p.id("fig-" + f.Title)
	attrs := fmt.Sprintf(`<svg role="img" aria-labelledby="%s-t %s-d" class="chart"`, id, id)
	if !f.nominal {
		scale := func(log bool) string {
			if log {
				return "log"
			}
			return "lin"
		}
		// Where the data are drawn (viewBox units, y downwards) and the
		// axes' ranges, for the values under the pointer.
		attrs += fmt.Sprintf(` data-area="%.2f %.2f %.2f %.2f" data-xr="%s %.6g %.6g" data-yr="%s %.6g %.6g" data-xu="%s" data-yu="%s"`,
			area.Min.X.Points(), h-area.Max.Y.Points(), area.Max.X.Points(), h-area.Min.Y.Points(),
			scale(f.X.Log), f.p.X.Min, f.p.X.Max, scale(f.Y.Log), f.p.Y.Min, f.p.Y.Max, esc(f.X.Unit), esc(f.Y.Unit))
	}
	body := svgHead().ReplaceAllString(svg, attrs)
	// The text alternative goes first inside the SVG.
	if i := strings.Index(body, ">"); i >= 0 {
		body = body[:i+1] + fmt.Sprintf("\n<title id=\"%s-t\">%s</title>\n<desc id=\"%s-d\">%s</desc>", id, esc(f.Title), id, esc(f.Summary)) + body[i+1:]
	}
	b := &p.body
	fmt.Fprintf(b, "<figure class=\"plot\" id=\"%s\" data-x-label=\"%s\" data-y-label=\"%s\">\n", id, esc(f.X.Label()), esc(f.Y.Label()))
	b.WriteString(body)
	fmt.Fprintf(b, "<figcaption><strong class=\"fig-title\">%s</strong> <span class=\"fig-summary\">%s</span>", esc(f.Title), esc(f.Summary))
	keys := f.keys
	if !htmlKeys {
		keys = nil
	}
	writeNames(b, "series", "Series", f.Series, keys)
	writeNames(b, "refs", "Reference lines", f.Refs, keys)
	if f.Note != "" {
		fmt.Fprintf(b, "<span class=\"note\">%s</span>", esc(f.Note))
	}
	b.WriteString("<output class=\"readout\"></output></figcaption>\n</figure>\n")
}

// widen opens an axis whose range is a single value (one point, or a
// flat line) around it, so that it has ticks to read.
func widen(a *plot.Axis, log bool) {
	lo, hi := a.Min, a.Max
	if !isFinite(lo) || !isFinite(hi) {
		return
	}
	switch {
	case log && lo > 0 && hi/lo < 1.5:
		a.Min, a.Max = lo/1.5, hi*1.5
	case !log && hi == lo && lo == 0:
		a.Max = 1
	case !log && hi == lo:
		a.Min, a.Max = math.Min(0, lo), math.Max(0, hi)*1.2
	}
}

// render draws a plot as SVG h points high, and returns where its data
// are drawn. gonum/plot panics on some degenerate ranges: that is an
// error here.
func render(pl *plot.Plot, h float64) (svg string, area draw.Canvas, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	c := vgsvg.NewWith(vgsvg.UseWH(plotWidth, vg.Length(h)))
	dc := draw.New(c)
	pl.Draw(dc)
	area = pl.DataCanvas(dc)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", area, err
	}
	return clean(b.String()), area, nil
}

// writeNames lists the names of series or reference lines, each after a
// key in its colour when keys gives them (the plot has no legend of its
// own).
func writeNames(b *strings.Builder, class, what string, names []string, keys map[string]string) {
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(b, "<span class=\"list-head\">%s:</span><ul class=\"%s\">", what, class)
	for _, n := range names {
		key := ""
		if c, ok := keys[n]; ok {
			key = fmt.Sprintf("<span class=\"key\" style=\"background:%s\" aria-hidden=\"true\"></span>", c)
		}
		fmt.Fprintf(b, "<li>%s%s</li>", key, esc(n))
	}
	b.WriteString("</ul>")
}
