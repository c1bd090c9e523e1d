// Package ingest reads the artifacts engineers already have (NCCL_DEBUG logs,
// nccl-tests tables, ethtool -S, RDMA hw_counters, perftest, show_gids,
// ibv_devinfo, mlnx_qos, dmesg) into typed artifacts for the doctor.
//
// Every format is a line-oriented state machine (a Parser) that sees every
// cleaned line of an input once, in order. All parsers run side by side over
// one streaming pass, so a paste that mixes formats (an nccl-tests table with
// NCCL INFO lines inside it, an mlnx_qos dump followed by show_gids and dmesg)
// yields one artifact per format it contains, and memory stays bounded
// however large the input is.
package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"rocelab/internal/unit"
)

// Kind names an artifact format. The values are stable and appear in JSON.
type Kind string

// Artifact kinds.
const (
	KindNCCLLog    Kind = "nccl-log"
	KindNCCLTests  Kind = "nccl-tests"
	KindEthtool    Kind = "ethtool-stats"
	KindHWCounters Kind = "hw-counters"
	KindPerftest   Kind = "perftest"
	KindShowGIDs   Kind = "show-gids"
	KindDevinfo    Kind = "ibv-devinfo"
	KindMlnxQoS    Kind = "mlnx-qos"
	KindDmesg      Kind = "dmesg"
)

// Evidence is one input line: where it is and what it says. Parsers keep
// the lines their artifacts rest on so that findings can cite them.
type Evidence struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Col is the 1-based byte column where the evidence starts, for inputs
	// whose lines are long (a JSON document on one line) or whose text
	// follows a prefix (a collector's, a launcher's tag); 0 otherwise.
	Col  int    `json:"col,omitempty"`
	Text string `json:"text"`
}

// String formats the evidence as "file:line: text" ("file:line:col: text"
// when the column is known).
func (e Evidence) String() string {
	if e.Col > 0 && e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Text)
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Text)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Text)
}

// At returns the evidence for line l of src. When prefixes, tags or
// quoting came off the line, Col says where its text starts in the line
// as written.
func At(src string, l Line) Evidence {
	e := Evidence{File: src, Line: l.Num, Text: l.Text}
	if l.col > 0 {
		e.Col = l.Col(0)
	}
	return e
}

// A LinkSpeed is a NIC line rate an artifact states, with where it says so.
type LinkSpeed struct {
	// Host is the host the line is of when the input names it line by
	// line (a pdsh prefix, a prompt), "" otherwise: one paste of several
	// hosts states each one's eth2.
	Host     string
	Device   string // e.g. "mlx5_0" or "eth2"; may be empty
	Rate     unit.BitRate
	Evidence Evidence
	// Basis says where a rate no port line states comes from (the EFA
	// behind an instance type's NET devices); "" for a port's own line.
	Basis string
}

// A LinkSpeeder is an artifact that states NIC line rates (ibv_devinfo
// active_speed, ethtool, perftest, NCCL's virtual-device speed, dmesg).
// Bandwidth rules use it when --nic-speed is not given.
type LinkSpeeder interface {
	LinkSpeeds() []LinkSpeed
}

// A GIDUse is a GID index that an application or tool was told to use or
// reports using (NCCL_IB_GID_INDEX echoed in an NCCL log, perftest's "GID
// index" banner field).
type GIDUse struct {
	Host   string // host name when the artifact says it, else ""
	Device string // e.g. "mlx5_0", else ""
	Index  int
	// SetBy says how an NCCL setting gave the index ("" for a tool's own
	// banner or a failed call that names it).
	SetBy SetBy
	// Note says, for an index NCCL chose by default, which NCCL and why
	// ("NCCL 2.10.3 (before 2.21) uses 0").
	Note string
	// Dated is the NCCL release range an index NCCL chose by default
	// rests on when the log prints no version and the shapes of its lines
	// date it ("2.10-2.11"), else "".
	Dated    string
	Evidence Evidence
}

// A GIDUser is an artifact that states which GID indices are in use.
type GIDUser interface {
	GIDUses() []GIDUse
}

// A GIDEntry is one row of a port's GID table (show_gids, ibv_devinfo -v).
type GIDEntry struct {
	Host    string // host name when the artifact says it, else ""
	Device  string // e.g. "mlx5_0"
	Port    int
	Index   int
	GID     string // as printed, e.g. "0000:0000:0000:0000:0000:ffff:0b00:0048" or "::ffff:11.0.0.72"
	IPv4    string // the IPv4 address when the GID is IPv4-mapped, else ""
	Version string // "v1", "v2", or "" when the table does not say
	Netdev  string // e.g. "ens3np0", else ""
	// Table numbers the tables of one input (1, 2, ...) when the input
	// holds several tables of the same device, as a paste from several
	// hosts or pods does; 0 otherwise. Rows of different tables belong to
	// different hosts even when Host is "".
	Table    int
	Evidence Evidence
}

// Where names the table a row belongs to: its host, else the table's
// place in its input when there are several, e.g. "mlx5_4 (table at
// t.txt:7)".
func (e GIDEntry) Where() string {
	s := e.Device
	if s == "" {
		s = "(device not named)"
	}
	switch {
	case e.Host != "":
		return e.Host + " " + s
	case e.Table > 0:
		return s + " (table " + strconv.Itoa(e.Table) + " of " + e.Evidence.File + ")"
	}
	return s
}

// Owner is a key that tells rows of different hosts or tables apart.
func (e GIDEntry) Owner() string {
	if e.Host != "" {
		return e.Host + "\x00" + e.Device
	}
	return e.Evidence.File + "\x00" + strconv.Itoa(e.Table) + "\x00" + e.Device
}

// A GIDTabler is an artifact that lists GID table rows.
type GIDTabler interface {
	GIDEntries() []GIDEntry
}

// An Artifact is what one parser recognised in one input.
type Artifact interface {
	// Kind names the format.
	Kind() Kind
	// Source is the input's display name (a path, or "<stdin>").
	Source() string
	// Lines is how many input lines the parser recognised as its own; the
	// input's reported type is the kind with the most.
	Lines() int
	// Scope is where the artifact's facts hold: its input, and the host
	// and time the input states (see Scope).
	Scope() Scope
	// SetScope replaces it.
	SetScope(Scope)
}

// A Parser consumes the cleaned lines of one input and produces an artifact.
type Parser interface {
	// Feed offers one line. Parsers ignore lines that are not theirs.
	Feed(l Line)
	// Result returns the artifact, or nil when nothing of this format was
	// seen. It is called once, after the last Feed.
	Result() Artifact
}

// A Format describes one parser.
type Format struct {
	Kind Kind
	// New returns a fresh parser for the input named src.
	New func(src string) Parser
}

// Formats returns every text format this package parses, in a fixed order.
func Formats() []Format {
	return formats()
}

// Result is everything read from one text input.
type Result struct {
	Source    string
	Artifacts []Artifact // ordered by Lines, most first
	LineCount int
	// Encoding names the text encoding Read decoded the input from
	// (DecodeText's name; "" for UTF-8 as written).
	Encoding string
}

// Type is the input's main kind: that of the artifact with the most lines,
// or "unknown".
//
// A process's crash report with no nccl-tests output around it (only
// "Caught signal" lines or Open MPI's "Signal:" report, and their
// backtraces, NVIDIA/nccl#1996) is not named nccl-tests: the next
// artifact names the input, or, with none, crashType.
func (r *Result) Type() string {
	if len(r.Artifacts) == 0 {
		return "unknown"
	}
	for _, a := range r.Artifacts {
		if t, ok := a.(*NCCLTests); !ok || !t.CrashOnly() {
			return string(a.Kind())
		}
	}
	return crashType
}

// crashType names an input that holds only a process's crash report.
const crashType = "process-crash"

// Read reads one input, a file the doctor was given or one lint reads as
// an artifact, decoded to UTF-8 first (DecodeText): a JSON
// document nccl-tests wrote (-J), recognised by its first keys
// (IsNCCLTestsJSON), by its own reader (ReadNCCLTestsJSON); rccl-tests'
// results file (-x FILE) by ReadRCCLTestsJSON, or ReadRCCLTestsCSV when
// written as CSV (-Z csv); anything else line by
// line (readText).
func Read(src string, r io.Reader) (*Result, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, bufferFor(r, 64<<10))
	}
	br, enc := DecodeText(br)
	head, _ := br.Peek(jsonSniffBytes)
	var read func(string, io.Reader) (*Result, error)
	switch {
	case IsNCCLTestsJSON(head):
		read = ReadNCCLTestsJSON
	case IsRCCLTestsJSON(head):
		read = ReadRCCLTestsJSON
	case IsRCCLTestsCSV(head):
		read = ReadRCCLTestsCSV
	default:
		read = readText
	}
	res, err := read(src, br)
	if de, ok := decodeErrorIn(src, err); ok {
		// The decoder under the reader knows the line and column, not
		// the file.
		return nil, de
	}
	if res != nil {
		res.Encoding = enc
	}
	return res, err
}

// bufferFor is the size of a bufio.Reader over r: size, or less when r
// tells how much it holds (a strings.Reader or bytes.Reader: a paste, a
// cut of a file, a head already read) and that is less. A buffer that
// holds all of r gives every Peek of the input all there is, as size
// would. Zeroing a 64 KiB buffer for a page of text was most of the cost
// of reading it.
func bufferFor(r io.Reader, size int) int {
	if l, ok := r.(interface{ Len() int }); ok {
		return min(size, l.Len())
	}
	return size
}

// decodeErrorIn reports whether err is a DecodeError, and names src in it.
func decodeErrorIn(src string, err error) (*DecodeError, bool) {
	var de *DecodeError
	if !errors.As(err, &de) {
		return nil, false
	}
	de.Src = src
	return de, true
}

// jsonSniffBytes is how much of an input IsNCCLTestsJSON sees: enough
// for nccl-tests' first two keys however the document is indented.
const jsonSniffBytes = 8 << 10

// readText streams r once through every format's parser. One goroutine
// reads and cleans the lines while this one feeds them to the parsers, in
// order, a batch at a time: the two halves of the work overlap on two
// cores, and the batches in flight bound the memory (see lineBatches).
func readText(src string, r io.Reader) (*Result, error) {
	fs := Formats()
	ps := make([]Parser, len(fs))
	for i, f := range fs {
		ps[i] = f.New(src)
	}
	n := 0
	var ctx inputContext
	for b := range lineBatches(src, NewLineReader(r)) {
		for _, l := range b.lines {
			n = l.Num
			ctx.see(src, l)
			for _, p := range ps {
				p.Feed(l)
			}
		}
		if b.err != nil {
			return nil, b.err
		}
	}
	res := &Result{Source: src, LineCount: n}
	for _, p := range ps {
		if a := p.Result(); a != nil && a.Lines() > 0 {
			a.SetScope(ctx.scope(src, a))
			res.Artifacts = append(res.Artifacts, a)
		}
	}
	sort.SliceStable(res.Artifacts, func(i, j int) bool {
		return res.Artifacts[i].Lines() > res.Artifacts[j].Lines()
	})
	return res, nil
}

// A lineBatch is a run of lines read ahead, and the error that ended the
// input, if any, after them.
type lineBatch struct {
	lines []Line
	err   error
}

// Batches hold at most batchLines lines or batchBytes of text, and
// batchesAhead of them wait to be parsed: with lines of at most
// MaxLineBytes, the read-ahead stays under a few megabytes.
const (
	batchLines   = 512
	batchBytes   = 256 << 10
	batchesAhead = 4
)

// lineBatches reads lr to its end on a goroutine of its own and sends its
// lines in batches; the channel closes after the last batch, which
// carries the read error if one ended the input. The receiver must drain
// the channel.
func lineBatches(src string, lr *LineReader) <-chan lineBatch {
	ch := make(chan lineBatch, batchesAhead)
	go func() {
		defer close(ch)
		// The first batch is made for a page of lines, the next ones
		// for twice as many up to batchLines: a short input is most
		// inputs, and the room for 512 lines was most of its cost.
		room := prefixBlockLines
		for {
			b := lineBatch{lines: make([]Line, 0, room)}
			room = min(2*room, batchLines)
			size := 0
			for len(b.lines) < batchLines && size < batchBytes {
				l, err := lr.Next()
				if err == io.EOF {
					ch <- b
					return
				}
				if err != nil {
					b.err = readError(src, lr.LineNum()+1, err)
					ch <- b
					return
				}
				b.lines = append(b.lines, l)
				size += len(l.Text)
			}
			ch <- b
		}
	}()
	return ch
}

// readError names src in err: a DecodeError says where in src it is, any
// other error stopped the input before line n.
func readError(src string, n int, err error) error {
	if de, ok := decodeErrorIn(src, err); ok {
		return de
	}
	return fmt.Errorf("%s: line %d: %w", src, n, err)
}
