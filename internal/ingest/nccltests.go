package ingest

import (
	"math"
	"strconv"
	"strings"
)

// Bounds on what one nccl-tests input keeps. What lies beyond them is
// counted in NCCLTests.Omitted and reported as input.partial, never merged
// into another run.
const (
	maxRuns     = MaxTestRuns
	maxRows     = MaxTestRows
	maxRanks    = 4096
	maxRankHost = 4096
)

// MaxTestRuns and MaxTestRows bound the runs one input keeps and the rows
// of one run.
const (
	MaxTestRuns = 4096
	MaxTestRows = 1024
)

// Sources of TestRun.Collective.
const (
	FromBanner  = "banner"  // "# Collective test starting: all_reduce_perf"
	FromBinary  = "binary"  // a pasted command line naming all_reduce_perf
	FromColumns = "columns" // inferred from the table (busbw/algbw, redop, root)
)

// NCCLTests is the output of one or more nccl-tests *_perf runs.
type NCCLTests struct {
	Scoped
	src   string
	lines lineCount
	// Runs are the tables in input order; a new run starts at a version or
	// "Collective test starting" banner, an nThread line or a table header
	// that follows data rows.
	Runs []*TestRun
	// Omitted counts runs, rows and rank lines beyond the bounds.
	Omitted int
	// BackToBack holds banners ("# nThread ...") printed right after
	// another with no rank line or row between them: several processes
	// each printing their own preamble.
	BackToBack []Evidence
	// Failures are the test's abort lines ("host: Test NCCL failure
	// common.cu:1204 'unhandled cuda error / '"), the first maxKept;
	// FailureCount counts them all.
	Failures     []TestFailure
	FailureCount int

	pendingBinary string
	sink          *TestRun // takes what lies beyond maxRuns
	// commRanks is the largest communicator an NCCL "... nranks N ... -
	// Init COMPLETE" line of the same input shows.
	commRanks int
}

// TestRun is one nccl-tests table with its preamble and trailer.
type TestRun struct {
	// Version is the nccl-tests version banner's text ("2.20.0 (b4d5bee)
	// nccl-headers=23102 nccl-library=23102"), rccl-tests' ("2.17.9-develop:4a65e8d
	// rccl-headers=22707 ..." or, from its older line, "rccl-tests develop:5272cd1"),
	// or "".
	Version string
	// Collective is "all_reduce", "all_gather", "reduce_scatter",
	// "alltoall", "alltoallv", "broadcast", "reduce", "sendrecv", "gather", "scatter",
	// "hypercube", or "" when it cannot be told; CollectiveFrom says how it
	// was found (FromBanner, FromBinary, FromColumns).
	Collective     string
	CollectiveFrom string
	// Candidates lists the collectives the columns allow when they do not
	// single one out.
	Candidates []string
	// Tool is ToolMSCCLPP for MSCCL++'s mscclpp-test, "" for nccl-tests
	// and its ports (rccl-tests, mccl-tests).
	Tool string
	// NThread and NGpus are from the "nThread 1 nGpus 1 ..." line (0 if absent).
	NThread, NGpus int
	Params         Evidence
	// Ranks are the "#  Rank  0 Group  0 Pid ... on host device 0 [bus] GPU" lines.
	Ranks []TestRank
	// RankCount counts every rank line, kept or not.
	RankCount int
	// RankSpan is one more than the highest rank a rank line shows (0 if
	// none).
	RankSpan int
	// CommRanks is, for a table without rank lines, the size of the
	// communicator NCCL's "Init COMPLETE" lines in the same input show (0
	// if none).
	CommRanks int
	// RankZero holds the first "Rank 0" lines; more than one means
	// independent single-process jobs printing into one output.
	RankZero []Evidence
	// Backsteps counts rows whose size is below the row before (several
	// processes' tables interleaved); FirstBackstep is the first.
	Backsteps     int
	FirstBackstep Evidence
	// HasRedop and HasRoot say which optional columns the table has;
	// WrongColumn is "#wrong" or "error".
	HasRedop, HasRoot bool
	WrongColumn       string
	Header            Evidence
	Rows              []TestRow
	// Truncated holds rows cut short (a paste that ends mid-row).
	Truncated []Evidence
	// AvgBusBW is the "# Avg bus bandwidth" trailer (GB/s), -1 if absent.
	AvgBusBW    float64
	AvgEvidence Evidence
	// OutOfBounds is the "# Out of bounds values : N OK|FAILED" count, -1 if absent.
	OutOfBounds         int
	OutOfBoundsEvidence Evidence

	// JSON is set for a run read from nccl-tests' JSON output
	// (ReadNCCLTestsJSON); the fields below are that output's.
	JSON bool
	// JSONVersion is the document's "version" (1-3), NCCLVersion its
	// "nccl_version" (NCCL_VERSION_CODE of the library, 22803 for 2.28.3),
	// 0 when absent; Args is the command line.
	JSONVersion, NCCLVersion int
	Args                     []string
	// Errors are the non-empty strings of "errors" (ncclGetLastError).
	Errors []Evidence
	// Footer is set when the document holds the average bus bandwidth,
	// Ended when it holds "end_time": nccl-tests writes both only for a
	// run that finished.
	Footer, Ended bool
	// Cut is where a document cut off ends (a job killed, or an
	// nccl-tests before 2.18.5 aborting on an error), CutWhere inside
	// which value; Cut.Line is 0 for a whole document.
	Cut      Evidence
	CutWhere string

	layout   rowLayout
	hostSeen map[string]int
}

// TestRank is one device line of the preamble.
type TestRank struct {
	Rank, Group, PID int
	Host             string
	Device           int
	BusID            string
	GPU              string
	Evidence         Evidence
}

// TestRow is one message size of the table.
type TestRow struct {
	Size, Count int64
	Type, Redop string
	// Root is the root rank, -1 for unrooted collectives or when the table
	// has no root column.
	Root     int
	Out, In  TestHalf
	Evidence Evidence
}

// TestHalf is the out-of-place or in-place half of a row.
type TestHalf struct {
	Time  float64 // microseconds
	AlgBW float64 // GB/s
	BusBW float64 // GB/s
	// Wrong is the #wrong count, or -1 when printed as N/A or when the
	// table has a numeric "error" column instead (then in ErrorText).
	Wrong     int
	ErrorText string
}

// BestBusBW is the larger of the row's out-of-place and in-place busbw.
func (r TestRow) BestBusBW() float64 { return math.Max(r.Out.BusBW, r.In.BusBW) }

type rowLayout struct {
	known           bool
	redop, root     bool
	wrongIsErrorCol bool
	// half is how many columns the out-of-place half spans, 4 (time algbw
	// busbw #wrong) or 8 with per-iteration timing; 0 means 4.
	half int
	// oneHalf marks mscclpp-test's table: rows measure one half, the
	// out-of-place one when their time column starts at or past wrongEnd.
	oneHalf  bool
	wrongEnd int
}

// NewNCCLTestsParser returns a parser for nccl-tests output read from src.
func NewNCCLTestsParser(src string) Parser { return &NCCLTests{src: src} }

// Kind returns KindNCCLTests.
func (t *NCCLTests) Kind() Kind { return KindNCCLTests }

// Source returns the input's name.
func (t *NCCLTests) Source() string { return t.src }

// Lines returns how many lines belonged to nccl-tests output.
func (t *NCCLTests) Lines() int { return t.lines.n }

// Result finishes the runs and returns the artifact, or nil when no
// nccl-tests table or preamble was seen.
func (t *NCCLTests) Result() Artifact {
	var runs []*TestRun
	for _, r := range t.Runs {
		if len(r.Rows) > 0 || len(r.Truncated) > 0 || r.RankCount > 0 || r.NThread > 0 || r.Header.Line > 0 {
			if r.RankCount == 0 && r.RankSpan == 0 {
				r.CommRanks = t.commRanks
			}
			r.finish()
			runs = append(runs, r)
		}
	}
	t.Runs = runs
	if len(runs) == 0 && t.FailureCount == 0 || t.lines.n == 0 {
		return nil
	}
	return t
}

// cur returns the run being read, starting one if needed. fresh asks for
// a new run when the current one already has rows.
func (t *NCCLTests) cur(fresh bool) *TestRun {
	if t.sink != nil && !(fresh && len(t.sink.Rows) > 0) {
		return t.sink
	}
	n := len(t.Runs)
	if n > 0 && !(fresh && len(t.Runs[n-1].Rows) > 0) {
		return t.Runs[n-1]
	}
	if n >= maxRuns {
		return t.overflow()
	}
	r := &TestRun{AvgBusBW: -1, OutOfBounds: -1, hostSeen: map[string]int{}}
	if t.pendingBinary != "" {
		r.Collective, r.CollectiveFrom = t.pendingBinary, FromBinary
		t.pendingBinary = ""
	}
	t.Runs = append(t.Runs, r)
	return r
}

// Feed reads one line.
func (t *NCCLTests) Feed(ln Line) {
	if ln.NCCL {
		if strings.HasSuffix(strings.TrimSpace(ln.Text), "Init COMPLETE") {
			_, after, ok := strings.Cut(ln.Text, " nranks ")
			if f := strings.Fields(after); ok && len(f) > 0 {
				t.commRanks = max(t.commRanks, atoiOr(f[0], 0))
			}
		}
		return
	}
	s := stripLabel(ln.Text[firstNonSpace(ln.Text):])
	if s == "" {
		return
	}
	if t.failure(ln, s) {
		t.lines.add(ln)
		return
	}
	c := s[0]
	hashed := c == '#'
	switch {
	case c >= '0' && c <= '9':
		if t.row(ln, s) {
			t.lines.add(ln)
		}
		return
	case c == '#':
		s = strings.TrimLeft(s[1:], " \t")
		if s == "" && len(t.Runs) > 0 {
			t.lines.add(ln) // the bare "#" lines nccl-tests prints between sections
			return
		}
	case c != 'n' && c != 'r' && c != 'R' && c != 's' && c != 'U' && c != '(' && c != 'O' && c != 'A' && !strings.Contains(s, "_perf"):
		// Lines a paste stripped of their "#" start with one of these:
		// nThread, rccl-tests, Rank, size, Using, (B), Out of bounds, Avg.
		return
	}
	if t.preamble(ln, s) {
		t.lines.add(ln)
	} else if !hashed && strings.Contains(s, "_perf") {
		t.binary(s)
	}
}

// stripLabel removes the "0: " rank label that srun --label and similar
// launchers put before every line. Table rows never hold a colon, so a
// leading number followed by ": " is always a label.
func stripLabel(s string) string {
	i := 0
	for i < len(s) && i < 8 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && strings.HasPrefix(s[i:], ": ") {
		return strings.TrimLeft(s[i+2:], " \t")
	}
	return s
}

// preamble handles the "#" lines (also pasted without their "#").
func (t *NCCLTests) preamble(ln Line, s string) bool {
	ev := At(t.src, ln)
	switch {
	case strings.HasPrefix(s, "nccl-tests version ") || strings.HasPrefix(s, "rccl-tests version "):
		// rccl-tests prints its own name: "# rccl-tests version
		// 2.17.9-develop:4a65e8d rccl-headers=22707 rccl-library=22707".
		r := t.cur(true)
		r.Version = strings.Clone(strings.TrimSpace(s[len("nccl-tests version "):]))
	case strings.HasPrefix(s, "rccl-tests: Version "):
		// Older rccl-tests, without "#", after the parameters line.
		if r := t.cur(false); r.Version == "" {
			r.Version = strings.Clone("rccl-tests " + strings.TrimSpace(s[len("rccl-tests: Version "):]))
		}
	case strings.HasPrefix(s, "Collective test starting:"):
		r := t.cur(true)
		if name := collectiveName(strings.TrimSpace(s[len("Collective test starting:"):])); name != "" {
			r.Collective, r.CollectiveFrom = name, FromBanner
		}
	case strings.HasPrefix(s, "Collective test concluded:"):
		// An excerpt may keep a table's end and not its start.
		if n := len(t.Runs); n > 0 && t.Runs[n-1].CollectiveFrom != FromBanner {
			if name := collectiveName(strings.TrimSpace(s[len("Collective test concluded:"):])); name != "" {
				t.Runs[n-1].Collective, t.Runs[n-1].CollectiveFrom = name, FromBanner
			}
		}
	case strings.HasPrefix(s, "nThread ") || strings.HasPrefix(s, "nThreads: "):
		r := t.cur(true)
		if r.NThread > 0 {
			if r.RankCount == 0 && len(r.Rows) == 0 && len(t.BackToBack) < maxKept {
				t.BackToBack = append(t.BackToBack, ev)
			}
			r = t.newRun()
		}
		f := strings.Fields(s)
		for i := 0; i+1 < len(f); i++ {
			switch strings.TrimSuffix(f[i], ":") {
			case "nThread", "nThreads":
				r.NThread = atoiOr(f[i+1], 0)
			case "nGpus":
				r.NGpus = atoiOr(f[i+1], 0)
			}
		}
		r.Params = ev
	case strings.HasPrefix(s, "Using devices"):
	case strings.HasPrefix(s, "Rank "):
		return t.rank(s, ev)
	case strings.HasPrefix(s, "size ") && isHeader(s):
		t.header(s, ev)
	case strings.HasPrefix(s, "size ") && isOneHalfHeader(s):
		t.oneHalfHeader(s, len(ln.Text)-len(s), ev)
	case strings.HasPrefix(s, "(B)") || (strings.HasPrefix(s, "out-of-place") && strings.Contains(s, "in-place")):
	case strings.HasPrefix(s, "Out of bounds values"):
		r := t.cur(false)
		_, v, _ := strings.Cut(s, ":")
		f := strings.Fields(v)
		if len(f) > 0 {
			r.OutOfBounds = atoiOr(f[0], -1)
			r.OutOfBoundsEvidence = ev
		}
	case strings.HasPrefix(s, "Avg bus bandwidth"):
		r := t.cur(false)
		_, v, _ := strings.Cut(s, ":")
		// "15.0183", or "15.0183 OK" when NCCL_TESTS_MIN_BW is set.
		if f := strings.Fields(v); len(f) > 0 {
			if bw, err := strconv.ParseFloat(f[0], 64); err == nil {
				r.AvgBusBW, r.AvgEvidence = bw, ev
			}
		}
	case strings.HasPrefix(s, "Errors with asterisks"):
	default:
		return t.mscclppLine(s, ev)
	}
	return true
}

// overflow counts a run beyond maxRuns and returns a scratch run that
// takes its lines.
func (t *NCCLTests) overflow() *TestRun {
	t.Omitted++
	t.sink = &TestRun{AvgBusBW: -1, OutOfBounds: -1, hostSeen: map[string]int{}}
	return t.sink
}

func (t *NCCLTests) newRun() *TestRun {
	if len(t.Runs) >= maxRuns {
		return t.overflow()
	}
	r := &TestRun{AvgBusBW: -1, OutOfBounds: -1, hostSeen: map[string]int{}}
	t.Runs = append(t.Runs, r)
	return r
}

// binary notes a pasted command line naming a *_perf binary. It is context,
// not nccl-tests output, so it is not counted as a recognised line.
func (t *NCCLTests) binary(s string) {
	for _, w := range strings.Fields(s) {
		w = w[strings.LastIndexByte(w, '/')+1:]
		base, _, _ := strings.Cut(w, "_perf")
		if len(base) < len(w) {
			if name := collectiveName(base + "_perf"); name != "" {
				if n := len(t.Runs); n > 0 && len(t.Runs[n-1].Rows) == 0 && t.Runs[n-1].Collective == "" {
					t.Runs[n-1].Collective, t.Runs[n-1].CollectiveFrom = name, FromBinary
				} else {
					t.pendingBinary = name
				}
				return
			}
		}
	}
}

// collectiveName maps "all_reduce_perf" (or "all_reduce_perf_mpi") to
// "all_reduce"; it returns "" for anything else.
func collectiveName(bin string) string {
	base, _, ok := strings.Cut(bin, "_perf")
	if !ok {
		return ""
	}
	switch base {
	case "all_reduce", "all_gather", "reduce_scatter", "alltoall", "alltoallv", "broadcast", "reduce", "sendrecv", "gather", "scatter", "hypercube":
		return base
	}
	return mscclppCollective(bin)
}

// rank reads "Rank  0 Group  0 Pid 1666603 on spark-d708 device  0
// [000f:01:00] NVIDIA GB10" (older: no Group).
func (t *NCCLTests) rank(s string, ev Evidence) bool {
	f := strings.Fields(s)
	k := TestRank{Rank: -1, Group: -1, PID: -1, Device: -1, Evidence: ev}
	i := 0
pairs:
	for ; i+1 < len(f); i += 2 {
		switch f[i] {
		case "Rank":
			k.Rank = atoiOr(f[i+1], -1)
		case "Group":
			k.Group = atoiOr(f[i+1], -1)
		case "Pid":
			k.PID = atoiOr(f[i+1], -1)
		case "on":
			k.Host = f[i+1]
		case "device":
			k.Device = atoiOr(f[i+1], -1)
		default:
			break pairs
		}
	}
	if k.Rank < 0 || k.Host == "" {
		return false
	}
	if i < len(f) && strings.HasPrefix(f[i], "[") {
		k.BusID = strings.Clone(strings.Trim(f[i], "[]"))
		i++
	}
	if i < len(f) {
		k.GPU = strings.Clone(strings.Join(f[i:], " "))
	}
	k.Host = strings.Clone(k.Host)
	t.addRank(t.cur(true), k)
	return true
}

// addRank counts a device line's rank in run r.
func (t *NCCLTests) addRank(r *TestRun, k TestRank) {
	r.RankCount++
	r.RankSpan = max(r.RankSpan, k.Rank+1)
	if k.Rank == 0 && len(r.RankZero) < maxKept {
		r.RankZero = append(r.RankZero, k.Evidence)
	}
	if _, ok := r.hostSeen[k.Host]; ok || len(r.hostSeen) < maxRankHost {
		r.hostSeen[k.Host]++
	}
	if len(r.Ranks) < maxRanks {
		r.Ranks = append(r.Ranks, k)
	}
}

// header reads the column names: "size count type redop root time algbw
// busbw #wrong time algbw busbw #wrong" and its older variants. The time
// column is "cputime" under -C 1; per-iteration timing (-I 1, 2.19.5+)
// puts "i_min i_max i_p99 i_cv%" after each half's #wrong, so the
// in-place half starts where the second time column is.
func (t *NCCLTests) header(s string, ev Evidence) {
	r := t.cur(true)
	f := strings.Fields(s)
	r.layout = rowLayout{known: true}
	var times []int
	for i, w := range f {
		switch w {
		case "redop":
			r.layout.redop = true
		case "root":
			r.layout.root = true
		case "error":
			r.layout.wrongIsErrorCol = true
		case "time", "cputime":
			times = append(times, i)
		}
	}
	if len(times) >= 2 && times[1]-times[0] > 4 {
		r.layout.half = times[1] - times[0]
	}
	r.HasRedop, r.HasRoot = r.layout.redop, r.layout.root
	r.WrongColumn = "#wrong"
	if r.layout.wrongIsErrorCol {
		r.WrongColumn = "error"
	}
	r.Header = ev
}

// isHeader reports whether s names the columns of an nccl-tests table.
func isHeader(s string) bool {
	need := map[string]bool{"count": false, "type": false, "time": false, "algbw": false, "busbw": false}
	for _, w := range strings.Fields(s) {
		if w == "cputime" {
			w = "time"
		}
		if _, ok := need[w]; ok {
			need[w] = true
		}
	}
	for _, ok := range need {
		if !ok {
			return false
		}
	}
	return true
}

// dataTypes are the nccl-tests type names a row can carry.
var dataTypes = map[string]int{
	"int8": 1, "uint8": 1, "char": 1, "int32": 4, "uint32": 4, "int": 4, "int64": 8, "uint64": 8,
	"half": 2, "float16": 2, "float": 4, "float32": 4, "double": 8, "float64": 8, "bfloat16": 2,
	"f8e4m3": 1, "f8e5m2": 1, "fp8_e4m3": 1, "fp8_e5m2": 1,
}

// TypeSize returns the byte size of an nccl-tests data type name, 0 if unknown.
func TypeSize(name string) int { return dataTypes[name] }

// row reads one table row; it reports whether the line was one.
func (t *NCCLTests) row(ln Line, s string) bool {
	var buf [32]string
	f := fieldsInto(buf[:0], s, 3)
	if len(t.Runs) > 0 {
		if r := t.cur(false); r.layout.oneHalf {
			return t.oneHalfRow(ln, s, r)
		}
	}
	if len(f) < 3 {
		return false
	}
	if _, ok := dataTypes[f[2]]; !ok {
		return false
	}
	f = fieldsInto(buf[:0], s, len(buf))
	size, err1 := strconv.ParseInt(f[0], 10, 64)
	count, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || size < 0 || count < 0 {
		return false
	}
	r := t.cur(false)
	row := TestRow{Size: size, Count: count, Type: strings.Clone(f[2]), Root: -1, Evidence: At(t.src, ln)}
	rest := f[3:]
	lay := r.layout
	if !lay.known {
		lay = guessLayout(rest)
	}
	half := max(lay.half, 4)
	if lay.redop && len(rest) > 0 && (isWord(rest[0]) || len(rest) != half+5 || !lay.root) {
		row.Redop = strings.Clone(rest[0])
		rest = rest[1:]
	}
	// Otherwise the redop is blank: some ports (MetaX's mccl-tests) print
	// nothing there for all_gather, so the row holds the root next.
	if lay.root && len(rest) > 0 {
		row.Root = atoiOr(rest[0], -1)
		rest = rest[1:]
	}
	if len(rest) < half+4 {
		if len(r.Truncated) < maxKept {
			r.Truncated = append(r.Truncated, row.Evidence)
		}
		return true
	}
	var ok1, ok2 bool
	row.Out, ok1 = parseHalf(rest[0:4], lay.wrongIsErrorCol)
	row.In, ok2 = parseHalf(rest[half:half+4], lay.wrongIsErrorCol)
	if !ok1 || !ok2 {
		if len(r.Truncated) < maxKept {
			r.Truncated = append(r.Truncated, row.Evidence)
		}
		return true
	}
	if !r.layout.known {
		lay.known = true
		r.layout, r.HasRedop, r.HasRoot = lay, lay.redop, lay.root
	}
	t.keepRow(r, row)
	return true
}

// keepRow adds a whole row to run r.
func (t *NCCLTests) keepRow(r *TestRun, row TestRow) {
	if n := len(r.Rows); n > 0 && row.Size < r.Rows[n-1].Size {
		if r.Backsteps == 0 {
			r.FirstBackstep = row.Evidence
		}
		r.Backsteps++
	}
	if len(r.Rows) < maxRows {
		r.Rows = append(r.Rows, row)
	} else {
		t.Omitted++
	}
}

// fieldsInto splits s on spaces into dst, at most n fields, without
// allocating when dst has room.
func fieldsInto(dst []string, s string, n int) []string {
	for len(dst) < n {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return dst
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i:]
	}
	return dst
}

// guessLayout decides, for a table whose header was not seen, whether the
// fields after the type hold a redop and a root.
func guessLayout(rest []string) rowLayout {
	var l rowLayout
	if len(rest) > 0 && isWord(rest[0]) {
		l.redop = true
		rest = rest[1:]
	}
	if len(rest) == 9 || (len(rest) > 0 && len(rest) != 8 && rest[0] == "-1") {
		l.root = true
	}
	return l
}

func isWord(s string) bool {
	if s == "N/A" || s == "" {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return true
}

// parseHalf reads "time algbw busbw #wrong"; errorCol says the last
// column is the old "error" column, not a count.
func parseHalf(f []string, errorCol bool) (TestHalf, bool) {
	var h TestHalf
	var err error
	if h.Time, err = strconv.ParseFloat(f[0], 64); err != nil {
		return h, false
	}
	if h.AlgBW, err = strconv.ParseFloat(f[1], 64); err != nil {
		return h, false
	}
	if h.BusBW, err = strconv.ParseFloat(f[2], 64); err != nil {
		return h, false
	}
	for _, v := range []float64{h.Time, h.AlgBW, h.BusBW} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return h, false
		}
	}
	var ok bool
	h.Wrong, h.ErrorText, ok = wrongField(f[3], errorCol)
	return h, ok
}

// wrongField reads the #wrong column: a count, N/A (-1), or a number that
// is not a count (kept as text, -1); ok is false for anything else.
// nccl-tests prints the count with %g, so a million wrong elements and
// more read "1.04858e+06": a whole number of at least a million is a count
// (rounded to %g's six digits) unless errorCol says the column is the old
// "error" column, whose values are relative errors.
func wrongField(s string, errorCol bool) (wrong int, text string, ok bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, "", true
	}
	if s == "N/A" {
		return -1, "", true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return -1, "", false
	}
	if !errorCol && v >= 1e6 && v < math.MaxInt32 && v == math.Trunc(v) {
		return int(v), "", true
	}
	return -1, strings.Clone(s), true
}
