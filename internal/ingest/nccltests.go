package ingest

import (
	"math"
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
	FromResults = "results" // the "name" of rccl-tests' results file (-x FILE)
)

// NCCLTests is the output of one or more nccl-tests *_perf runs.
type NCCLTests struct {
	Scoped
	artifactHead
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
	// Notices are the lines, the first maxKept, with which nccl-tests
	// said an option of its command line had no effect.
	Notices []TestNotice
	// nextTrace is the first of Failures whose " .. host pid N: Test
	// failure" trace line has not been read.
	nextTrace int
	// traces are the "host pid N" of the trace lines read: a process's
	// later trace lines claim no abort.
	traces map[string]bool
	// crashAt is one past the index in Failures of the signal whose
	// backtrace is being read (crashFrame), 0 when none is.
	crashAt int
	// aborts are the lines read last that said why a process aborts
	// itself (noteAbort), for the signal reports that follow them.
	aborts []pendingAbort
	// Garbled are the table rows, the first maxKept, whose columns are
	// all there but hold a time, algbw, busbw that is not a number of at
	// least 0, or a #wrong that is neither a count nor N/A.
	Garbled []Garble
	// NoCodeObject is the first line with which HIP said it has no code
	// object for a device it sees; NoCodeObjectGfx the gfx targets it
	// names as not found.
	NoCodeObject    Evidence
	NoCodeObjectGfx []string

	pendingBinary string
	// pendingMin and pendingMax are the sweep that command line gives,
	// pendingDirect its DirectRanks.
	pendingMin, pendingMax int64
	pendingDirect          int
	// continued is whether the last non-blank line ended in a shell's
	// line continuation ("\"); launched whether a line since the last
	// table row named a launcher (mpirun, srun, ...). Either makes a
	// command line's binary part of a longer command.
	continued, launched bool
	// ruled is set by a rule of '=' after a run's rows (see
	// scriptRule): the next row starts a run of its own.
	ruled bool
	// pieces hold the last line's row when it was cut short, the pieces
	// it was printed in so far, each with its line, which the next line
	// may complete (see splitGluedPiece); pieceRoom is how many fields
	// the row still lacks, 0 when it was cut inside a half, and
	// pieceHalf the fields of one half. joined is set while a row of
	// pieces is read, for where its fields stand.
	pieces, joined       []pieceSeg
	pieceRoom, pieceHalf int
	sink                 *TestRun // takes what lies beyond maxRuns
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
	// VersionLine is the "# nccl-tests version" line, if read.
	VersionLine Evidence
	// Collective is "all_reduce", "all_gather", "reduce_scatter",
	// "alltoall", "alltoallv", "broadcast", "reduce", "sendrecv", "gather", "scatter",
	// "hypercube", or "" when it cannot be told; CollectiveFrom says how it
	// was found (FromBanner, FromBinary, FromColumns).
	Collective     string
	CollectiveFrom string
	// Banner is the "# Collective test starting: all_reduce_perf" line, if
	// read.
	Banner Evidence
	// Candidates lists the collectives the columns allow when they do not
	// single one out.
	Candidates []string
	// Tool is ToolMSCCLPP for MSCCL++'s mscclpp-test, ToolRCCL for AMD's
	// rccl-tests, "" for nccl-tests and its other ports (mccl-tests).
	Tool string
	// NThread and NGpus are from the "nThread 1 nGpus 1 ..." line (0 if absent).
	NThread, NGpus int
	// MinBytes and MaxBytes are the sweep's bounds from the same line (0
	// if absent).
	MinBytes, MaxBytes int64
	Params             Evidence
	// Ranks are the "#  Rank  0 Group  0 Pid ... on host device 0 [bus] GPU" lines.
	Ranks []TestRank
	// RankCount counts every rank line, kept or not.
	RankCount int
	// RankSpan is one more than the highest rank a rank line shows (0 if
	// none).
	RankSpan int
	// DirectRanks is, when a pasted command line runs the binary itself
	// with no launcher before it (no mpirun or srun: one process on one
	// host), the ranks it runs, -t × -g (each 1 unless given); 0 otherwise.
	DirectRanks int
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
	// GarbledRows counts rows with every column and a field that is not
	// what its column holds (NCCLTests.Garbled says where).
	GarbledRows int
	// AvgBusBW is the "# Avg bus bandwidth" trailer (GB/s), -1 if absent.
	AvgBusBW    float64
	AvgEvidence Evidence
	// AvgCheck is nccl-tests' own verdict on AvgBusBW, printed after it
	// when NCCL_TESTS_MIN_BW is set: AvgFailed when the average fell
	// below 90% of that threshold (the test then exits non-zero), AvgOK
	// when not, "" when unchecked.
	AvgCheck string
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
	// HeaderCut is the table's units line ("(B) (elements) (us) (GB/s)
	// ...") when it stops before its last "(GB/s)": the output was cut
	// inside the header, before any row.
	HeaderCut Evidence
	// Cut is where a document cut off ends (a job killed, or an
	// nccl-tests before 2.18.5 aborting on an error), CutWhere inside
	// which value; Cut.Line is 0 for a whole document.
	Cut      Evidence
	CutWhere string

	layout   rowLayout
	hostSeen map[string]int
	// rcclLib is set by a line of RCCL's version block ("RCCL version :",
	// "Librccl path :") before the run's table: it ran on RCCL.
	rcclLib bool
	// failuresAt is NCCLTests.FailureCount when the parameters line was
	// read.
	failuresAt int
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

// The verdicts nccl-tests prints after its average busbw when
// NCCL_TESTS_MIN_BW is set (src/util.cu, writeResultFooter).
const (
	AvgOK     = "OK"
	AvgFailed = "FAILED"
)

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

// NewNCCLTestsParser returns a parser for nccl-tests output read from src.
func NewNCCLTestsParser(src string) Parser { return &NCCLTests{artifactHead: artifactHead{src: src}} }

// Kind returns KindNCCLTests.
func (t *NCCLTests) Kind() Kind { return KindNCCLTests }

// Result finishes the runs and returns the artifact, or nil when no
// nccl-tests table or preamble was seen.
func (t *NCCLTests) Result() Artifact {
	var runs []*TestRun
	for _, r := range t.Runs {
		if len(r.Rows) > 0 || len(r.Truncated) > 0 || r.GarbledRows > 0 || r.RankCount > 0 || r.NThread > 0 || r.Header.Line > 0 || r.FooterOnly() || r.Banner.Line > 0 {
			if r.RankCount == 0 && r.RankSpan == 0 {
				r.CommRanks = t.commRanks
			}
			if r.rcclLib && r.Tool == "" {
				r.Tool = ToolRCCL
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

// ended reports whether the run's trailer ("Out of bounds values", "Avg
// bus bandwidth") was read: nccl-tests prints it after the last row.
func (r *TestRun) ended() bool {
	return r.AvgEvidence.Line > 0 || r.OutOfBoundsEvidence.Line > 0
}

// FooterOnly reports a run of which only the trailer ("Avg bus
// bandwidth", "Out of bounds values") was given: no row, header or rank
// line.
func (r *TestRun) FooterOnly() bool {
	return len(r.Rows) == 0 && len(r.Truncated) == 0 && r.GarbledRows == 0 && r.Header.Line == 0 && r.RankCount == 0 &&
		(r.AvgEvidence.Line > 0 || r.OutOfBoundsEvidence.Line > 0)
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
	return t.start()
}

// start begins a run, with the binary and sizes of the command line read
// before it.
func (t *NCCLTests) start() *TestRun {
	if len(t.Runs) >= maxRuns {
		return t.overflow()
	}
	r := &TestRun{AvgBusBW: -1, OutOfBounds: -1, hostSeen: map[string]int{}}
	if t.pendingBinary != "" {
		r.Collective, r.CollectiveFrom = t.pendingBinary, FromBinary
		r.MinBytes, r.MaxBytes = t.pendingMin, t.pendingMax
		r.DirectRanks = t.pendingDirect
		t.pendingBinary = ""
	}
	t.Runs = append(t.Runs, r)
	return r
}

// opening returns the run a command's first lines (its version line, its
// "Collective test starting" banner) belong to: the current one, or a new
// one when the current one has rows or stopped on a failure after its
// parameters line. A script that runs one test after another prints the
// next test's version line and banner right under the failure of one that
// died before its first row (xxrjun/nccl-tests-cluster's pairwise logs:
// alltoall_perf fails, then sendrecv_perf starts); they are not that
// run's.
func (t *NCCLTests) opening() *TestRun {
	r := t.cur(true)
	if t.sink == nil && r.Params.Line > 0 && r.failuresAt < t.FailureCount {
		return t.start()
	}
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
	s := unrenderTable(stripLabel(ln.Text[firstNonSpace(ln.Text):]))
	if s == "" {
		return
	}
	pieces := t.pieces
	t.pieces = nil
	inCommand := t.continued || t.launched
	t.continued = strings.HasSuffix(s, `\`)
	t.launched = t.launched || namesLauncher(s)
	t.noteAbort(ln, s)
	if t.crashFrame(ln, s) || t.failure(ln, s) || t.notice(ln, s) || t.codeObject(ln, s) {
		t.lines.add(ln)
		return
	}
	c := s[0]
	hashed := c == '#'
	switch {
	case c >= '0' && c <= '9':
		if t.joinPiece(ln, pieces, s) || t.row(ln, s) {
			t.lines.add(ln)
			t.launched = false
		}
		return
	case c == '#':
		s = strings.TrimLeft(s[1:], " \t")
		if s == "" && len(t.Runs) > 0 {
			t.lines.add(ln) // the bare "#" lines nccl-tests prints between sections
			return
		}
	case c == '=' && scriptRule(s):
		if n := len(t.Runs); n > 0 && len(t.Runs[n-1].Rows) > 0 {
			t.ruled = true
		}
		return
	case c != 'n' && c != 'r' && c != 'R' && c != 's' && c != 'U' && c != '(' && c != 'O' && c != 'A' && c != 'L' && c != 'H' && !strings.Contains(s, "_perf"):
		// Lines a paste stripped of their "#" start with one of these:
		// nThread, rccl-tests, Rank, size, Using, (B), Out of bounds, Avg;
		// and RCCL's version block: RCCL, ROCm, HIP version, Librccl path.
		return
	}
	if t.preamble(ln, s) {
		t.lines.add(ln)
	} else if !hashed && strings.Contains(s, "_perf") {
		t.binary(s, inCommand)
	}
}

// scriptRule reports whether s is a rule a wrapper script echoes
// between the runs it starts, "====== 2-node ======" or a bare run of
// '=': at least three '=' open it. nccl-tests prints no such line, so the
// rows after it belong to the next run, not to one whose sizes went back
// (hisohara/ai-scripts' MI325X sweep over 1, 2, 4 and 8 nodes, each
// node count's largest rows under its own rule).
func scriptRule(s string) bool { return strings.HasPrefix(s, "===") }

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

// A pieceSeg is one piece of a row printed in pieces: its text, as the
// row reader saw it, and its line.
type pieceSeg struct {
	ln Line
	s  string
}

// joinPiece reads s, of line ln, as the next piece of the row cut short
// before (see splitGluedPiece): one or both halves' time, algbw, busbw and
// #wrong, printed once each half ran. The row, with s after its pieces, is
// read again at the line where it started; the cut it was counted as
// comes off. A row cut inside a half (a paste that ends mid-row, a
// terminal's wrap) takes no piece, nor one that holds more than the row
// lacks. It reports whether s was such a piece.
func (t *NCCLTests) joinPiece(ln Line, pieces []pieceSeg, s string) bool {
	if len(pieces) == 0 || !rowPiece(s) {
		return false
	}
	var buf [3]string
	if f := fieldsInto(buf[:0], s, 3); len(f) == 3 && TypeSize(f[2]) > 0 {
		return false // a whole row of its own
	}
	if n := len(strings.Fields(s)); n > t.pieceRoom || n%t.pieceHalf != 0 {
		return false
	}
	at := pieces[0].ln
	r := t.cur(false)
	if n := len(r.Truncated); n > 0 && r.Truncated[n-1].Line == at.Num {
		r.Truncated = r.Truncated[:n-1]
	}
	t.joined = append(pieces, pieceSeg{ln, s})
	texts := make([]string, len(t.joined))
	for i, p := range t.joined {
		texts[i] = p.s
	}
	ok := t.row(at, strings.Join(texts, " "))
	t.joined = nil
	return ok
}

// fieldAt returns the line that field k of row s (split into f), read at
// ln, was printed on and the field's offset in that line's text: ln's
// own, or, for a row read from pieces, the line of the piece holding it.
func (t *NCCLTests) fieldAt(ln Line, s string, f []string, k int) (Line, int) {
	for _, p := range t.joined {
		pf := strings.Fields(p.s)
		if k < len(pf) {
			return p.ln, len(p.ln.Text) - len(p.s) + fieldOffset(p.s, pf, k)
		}
		k -= len(pf)
	}
	return ln, len(ln.Text) - len(s) + fieldOffset(s, f, k)
}

// unrenderTable undoes what GitHub's editor does to an nccl-tests output
// pasted as rich text rather than inside a code fence (mscclpp#736): it
// escapes a leading "#" as "\#", so that the line is not a heading, and
// turns the rows, whose columns the copy separated by tabs, into a
// Markdown table: "1024 | 512 | half | sum | -1 | 5.39 | ...", with a
// "-- | -- | ..." rule under the first. The escape comes off, and a row's
// cells are joined by spaces again (the rule, all dashes, is skipped like
// any line that starts with one). A line whose cells hold spaces is no
// table row of nccl-tests and is left as it is.
func unrenderTable(s string) string {
	if strings.HasPrefix(s, `\#`) {
		return s[1:]
	}
	if strings.Count(s, "|") < minTableCells-1 {
		return s
	}
	cells := strings.Split(strings.Trim(s, "| \t"), "|")
	for i, c := range cells {
		c = strings.TrimSpace(c)
		if c == "" || strings.ContainsAny(c, " \t") {
			return s
		}
		cells[i] = c
	}
	return strings.Join(cells, " ")
}

// minTableCells is the fewest cells a row of nccl-tests holds: size,
// count, and one half's time, algbw, busbw and #wrong (mscclpp-test's
// one-half table).
const minTableCells = 6

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
