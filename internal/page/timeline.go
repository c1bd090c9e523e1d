package page

import (
	"fmt"
	"image/color"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/plot/vg/draw"

	"rocelab/internal/doctor"
)

// A clock is one time base evidence lines can carry: the kernel's time
// since boot (dmesg), or the wall clock.
type clock struct{ name string }

var (
	uptimeClock = clock{name: "kernel time since boot (dmesg)"}
	wallClock   = clock{name: "wall clock"}
)

// Time stamps evidence lines carry, at their start (compiled at their
// first use: most commands draw no timeline).
var (
	dmesgStamp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[\s*(\d{1,10}\.\d{1,9})\]`) })
	isoStamp   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)(Z|[+-]\d{2}:?\d{2})?`)
	})
	epochStamp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{10})\.(\d{1,9})$`) })
)

// stamp reads the time an evidence line carries: seconds on its clock.
func stamp(line string) (clock, float64, bool) {
	line = strings.TrimSpace(line)
	if m := dmesgStamp().FindStringSubmatch(line); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		return uptimeClock, v, err == nil
	}
	if m := isoStamp().FindStringSubmatch(line); m != nil {
		zone := m[3]
		if zone == "" {
			zone = "Z"
		} else if zone != "Z" && !strings.Contains(zone, ":") {
			zone = zone[:3] + ":" + zone[3:]
		}
		t, err := time.Parse(time.RFC3339Nano, m[1]+"T"+m[2]+zone)
		if err != nil {
			return clock{}, 0, false
		}
		return wallClock, float64(t.UnixNano()) / 1e9, true
	}
	if m := epochStamp().FindStringSubmatch(line); m != nil {
		s, err1 := strconv.ParseInt(m[1], 10, 64)
		frac, err2 := strconv.ParseFloat("0."+m[2], 64)
		return wallClock, float64(s) + frac, err1 == nil && err2 == nil
	}
	return clock{}, 0, false
}

// A mark is one timed evidence line of a finding.
type mark struct {
	row int
	at  float64
	sev doctor.Severity
}

// maxTimelineRows caps the findings a timeline shows.
const maxTimelineRows = 24

// writeTimeline plots, per clock, when the timed evidence lines of each
// finding happened.
func writeTimeline(p *Page, rep *doctor.Report) {
	p.Section(1, "Timeline")
	type row struct {
		name string
		sev  doctor.Severity
	}
	byClock := map[clock][]mark{}
	rows := map[clock][]row{}
	var clocks []clock
	for _, f := range rep.Findings {
		for _, e := range f.Evidence {
			c, at, ok := stamp(e.Text)
			if !ok {
				continue
			}
			if _, seen := byClock[c]; !seen {
				clocks = append(clocks, c)
				byClock[c] = nil
			}
			name := f.ID
			if f.Subject != "" {
				name += " " + f.Subject
			}
			rs := rows[c]
			k := len(rs)
			for i, r := range rs {
				if r.name == name {
					k = i
				}
			}
			if k == len(rs) {
				rows[c] = append(rs, row{name, f.Severity})
			}
			byClock[c] = append(byClock[c], mark{row: k, at: at, sev: f.Severity})
		}
	}
	if len(clocks) == 0 {
		p.Para("No evidence line carries a time (a dmesg stamp, an ISO 8601 time, a date +%s.%N line), so there is no timeline.")
		return
	}
	sort.SliceStable(clocks, func(i, j int) bool { return clocks[i].name < clocks[j].name })
	for _, c := range clocks {
		marks, rs := byClock[c], rows[c]
		t0 := marks[0].at
		for _, m := range marks {
			t0 = min(t0, m.at)
		}
		shown := min(len(rs), maxTimelineRows)
		x := Axis{Name: "time since the first stamped line", Unit: "s"}
		f := newFigure("Timeline of the evidence, "+c.name, x, Axis{Name: "finding", Unit: "rule, subject"})
		names := make([]string, shown)
		for i := 0; i < shown; i++ {
			names[i] = rs[i].name
		}
		for _, sev := range []doctor.Severity{doctor.Error, doctor.Warn, doctor.Info} {
			var xs, ys []float64
			for _, m := range marks {
				if m.sev == sev && m.row < shown {
					xs, ys = append(xs, m.at-t0), append(ys, float64(shown-1-m.row))
				}
			}
			if len(xs) > 0 {
				f.points(sev.String(), xs, ys, sevColour[sev], draw.CircleGlyph{}, 3.5)
			}
		}
		rev := make([]string, shown)
		for i, n := range names {
			rev[shown-1-i] = n
		}
		f.p.NominalY(rev...)
		f.p.Y.Min, f.p.Y.Max = -0.5, float64(shown)-0.5
		f.nominal = true
		f.Height = max(150, 50+16*float64(shown))
		origin := fmt.Sprintf("%.6f s since boot", t0)
		if c == wallClock {
			origin = time.Unix(0, int64(t0*1e9)).UTC().Format("2006-01-02 15:04:05.000 UTC")
		}
		f.Summary = fmt.Sprintf("When each finding's stamped evidence lines happened on the %s, from %s: %d lines of %d findings, coloured by severity.", c.name, origin, len(marks), len(rs))
		if len(rs) > shown {
			f.Note = fmt.Sprintf("Summarised: the first %d of %d findings with stamped lines are drawn.", shown, len(rs))
		}
		p.Figure(f)
	}
}

// sevColour colours findings by severity.
var sevColour = map[doctor.Severity]color.RGBA{
	doctor.Error: {0xc6, 0x28, 0x28, 0xff},
	doctor.Warn:  {0xc9, 0x8a, 0x00, 0xff},
	doctor.Info:  {0x1f, 0x6f, 0xb2, 0xff},
}
