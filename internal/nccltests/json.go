package nccltests

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"rocelab/internal/collective"
	"rocelab/internal/unit"
)

// The JSON nccl-tests 2.19.6 writes with -J FILE.json (src/util.cu,
// JSON_FILE_VERSION 3): the keys, their order and nesting, doubles as
// "%lf", booleans as the strings "true"/"false", strings escaped as its
// sanitizeJson escapes them, all on one line without a newline.

// jsonVersion is the format's JSON_FILE_VERSION.
const jsonVersion = 3

// JSONName is the file name the twin gives the sweep's JSON output.
func (s *Sweep) JSONName() string { return s.Opts.Binary + ".json" }

// flushBlock is the stdio buffer of a file: a process killed mid-run
// leaves whole blocks of what it wrote, and nothing of the rest.
const flushBlock = 4096

// WriteJSON writes the sweep's JSON output. A sweep that failed ends as
// nccl-tests 2.18.5 and later end a run that returns on an error: the
// open containers closed, no footer, no end_time. A sweep the run's time
// limit stopped is a job killed mid-run: the document is cut at the last
// whole stdio block, and nothing is written when none filled.
func (s *Sweep) WriteJSON(w io.Writer) error {
	var b jsonOut
	o := &s.Opts
	c := s.Comm
	b.raw("{")
	b.key("version")
	b.raw(fmt.Sprint(jsonVersion))
	b.key("start_time")
	b.str(clock(s.start))
	b.key("args")
	b.list(strings.Fields(o.Command()))
	b.key("env")
	var env []string
	for k, v := range c.Cfg.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	b.list(env)
	v := c.Cfg.Version
	b.key("nccl_version")
	b.raw(fmt.Sprint(versionCode(v.Major, v.Minor, v.Patch)))
	s.jsonConfig(&b)
	b.key("results")
	b.raw("[")
	rows, open, openOut := s.jsonRows()
	for i, r := range rows {
		if i > 0 {
			b.raw(",")
		}
		b.row(r, o.Iters)
	}
	switch {
	case s.Err == nil && len(s.missingSizes()) > 0:
		doc := b.String()
		_, err := io.WriteString(w, doc[:len(doc)-len(doc)%flushBlock])
		return err
	case s.Err != nil:
		if open != nil {
			if len(rows) > 0 {
				b.raw(",")
			}
			b.preamble(*open)
			if openOut {
				b.half("out_of_place", open.Out)
			}
			b.raw("}")
		}
		b.raw("]}")
	default:
		b.raw("]")
		b.key("out_of_bounds")
		b.raw(`{"count":0,"okay":"true"}`)
		b.key("average_bus_bandwidth")
		b.raw(`{"bandwidth":` + lf(s.AvgBusBW()) + `,"okay":"unchecked"}`)
		b.key("errors")
		b.list([]string{""})
		b.key("end_time")
		b.str(clock(s.end))
		b.raw("}")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonRows splits the rows of a failed sweep into those nccl-tests
// finished and the one it had begun (open, with its out-of-place half
// when openOut) when the failing call came.
func (s *Sweep) jsonRows() (rows []Row, open *Row, openOut bool) {
	rows = s.Rows
	if s.Err == nil || s.next == 0 {
		return rows, nil, false
	}
	st := s.steps[s.next-1]
	switch {
	case st.warm:
		return rows, nil, false
	case st.inPlace && len(rows) > 0:
		last := rows[len(rows)-1]
		return rows[:len(rows)-1], &last, true
	}
	return rows, &Row{Size: st.size, Count: st.count, Type: s.Opts.DType, Redop: s.redop(), Root: s.root()}, false
}

// jsonConfig writes the parameters and the first device of every process.
func (s *Sweep) jsonConfig(b *jsonOut) {
	o := &s.Opts
	c := s.Comm
	b.key("config")
	b.raw(fmt.Sprintf(`{"nthreads":%d,"ngpus":%d,"minimum_bytes":%d,"maximum_bytes":%d`, o.NThreads, o.NGpus, o.MinBytes, o.MaxBytes))
	if o.StepFactor > 1 {
		b.raw(fmt.Sprintf(`,"step_factor":%d`, o.StepFactor))
	} else {
		b.raw(fmt.Sprintf(`,"step_bytes":%d`, o.StepBytes))
	}
	b.raw(fmt.Sprintf(`,"warmup_iters":%d,"iterations":%d,"aggregated_iterations":%d,"validation":%d,"graph":0`, o.Warmup, o.Iters, o.AggIters, o.Check))
	b.raw(`,"blocking_collectives":"false","per_iter_timing":"false","per_iter_skip":0,"parallel_init":"false"`)
	b.key("devices")
	b.raw("[")
	gpuName := gpuNames[c.Sys.Server.GPU.Name]
	per := o.NGpus * o.NThreads
	for r := 0; r < c.NRanks; r += per {
		if r > 0 {
			b.raw(",")
		}
		node, g := c.Rank(r)
		host := fmt.Sprintf("node%d", node)
		if node < len(s.Hosts) {
			host = s.Hosts[node]
		}
		b.raw(fmt.Sprintf(`{"rank":%d,"group":0,"pid":%d`, r, collective.LogPID(r/o.NGpus)))
		b.key("hostname")
		b.str(host)
		b.raw(fmt.Sprintf(`,"device":%d`, g))
		b.key("device_hex")
		b.str(fmt.Sprintf("%04x:%02x:%02x", 0, collective.BusID(g), 0))
		b.key("device_info")
		b.str(gpuName)
		b.raw("}")
	}
	b.raw("]}")
}

// clock is a simulated time as nccl-tests prints the wall clock
// ("%Y-%m-%d %H:%M:%S"), the run starting at the Unix epoch.
func clock(t unit.Time) string {
	return time.Unix(0, int64(t/unit.Nanosecond)).UTC().Format(time.DateTime)
}

// lf formats a double as jsonDouble does: "%lf", NaN as the string "nan".
func lf(v float64) string {
	if math.IsNaN(v) {
		return `"nan"`
	}
	return fmt.Sprintf("%f", v)
}

// jsonOut builds one document.
type jsonOut struct {
	strings.Builder
	fresh bool // the next key is the first of its object
}

func (b *jsonOut) raw(s string) {
	b.WriteString(s)
	b.fresh = strings.HasSuffix(s, "{")
}

func (b *jsonOut) key(k string) {
	if !b.fresh {
		b.WriteByte(',')
	}
	b.WriteString(`"` + k + `":`)
	b.fresh = false
}

// str writes a string as sanitizeJson does: '"', '\\', '/', tab and
// newline escaped; the string ends at the first other control or
// non-ASCII byte.
func (b *jsonOut) str(s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '/':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c >= 0x7f || c <= 0x1f:
			i = len(s)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	b.fresh = false
}

func (b *jsonOut) list(items []string) {
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.str(s)
	}
	b.WriteByte(']')
	b.fresh = false
}

// preamble opens a row object with its size, count, type, redop and root.
func (b *jsonOut) preamble(r Row) {
	b.raw(fmt.Sprintf(`{"size":%d,"count":%d`, r.Size, r.Count))
	b.fresh = false
	b.key("type")
	b.str(r.Type)
	b.key("redop")
	b.str(r.Redop)
	b.key("root")
	b.str(fmt.Sprintf("%6d", r.Root))
}

func (b *jsonOut) row(r Row, iters int) {
	b.preamble(r)
	b.half("out_of_place", r.Out)
	b.half("in_place", r.In)
	b.raw(fmt.Sprintf(`,"actual_iterations":%d,"experiment_name":""}`, iters))
}

func (b *jsonOut) half(name string, h Half) {
	b.key(name)
	wrong := "null"
	if h.Wrong >= 0 {
		wrong = lf(float64(h.Wrong))
	}
	b.raw(fmt.Sprintf(`{"time":%s,"alg_bw":%s,"bus_bw":%s,"nwrong":%s}`, lf(h.Time), lf(h.AlgBW), lf(h.BusBW), wrong))
	b.fresh = false
}
