package ingest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The nccl-tests table: its header, which fixes the column layout, and
// its rows (size count type [redop] [root], then the out-of-place and
// in-place halves).

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
	// outOnly is set by a header that names one half ("... time algbw
	// busbw", its #wrong or error column kept or not): a table its author
	// cut to the out-of-place measurements before posting it. It counts
	// the half's columns, 3 or 4; 0 for any other header.
	outOnly int
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
	if len(times) == 1 {
		switch tail := f[times[0]+1:]; {
		case slices.Equal(tail, []string{"algbw", "busbw"}):
			r.layout.outOnly = 3
		case slices.Equal(tail, []string{"algbw", "busbw", "#wrong"}) || slices.Equal(tail, []string{"algbw", "busbw", "error"}):
			r.layout.outOnly = 4
		}
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
	if len(r.Rows) > 0 && (r.ended() || t.ruled) {
		// A row after a table's trailer, or after a script's rule, is
		// another table's: an excerpt of a log of several runs that
		// kept their rows, not headers.
		r = t.newRun()
	}
	t.ruled = false
	row := TestRow{Size: size, Count: count, Type: strings.Clone(f[2]), Root: -1, Evidence: At(t.src, ln)}
	rest := f[3:]
	lay := r.layout
	if !lay.known {
		lay = guessLayout(rest)
	}
	half := max(lay.half, 4)
	blankLen := half + 4 // a row with a blank redop: root?, two halves
	if lay.root {
		blankLen++
	}
	blankRedop := len(rest) > 0 && !isWord(rest[0]) && len(rest) == blankLen
	if lay.redop && len(rest) > 0 && !blankRedop {
		row.Redop = strings.Clone(rest[0])
		rest = rest[1:]
	}
	// Otherwise the redop is blank, the row one column short of the
	// header and a number where the redop goes: some ports (MetaX's
	// mccl-tests) print nothing there for all_gather, so the row holds the
	// root next, and nccl-tests of the "error" column era, without a root
	// column, printed nothing there for alltoall (nccl-tests#78), so the
	// row holds the out-of-place time next.
	if lay.root && len(rest) > 0 {
		row.Root = atoiOr(rest[0], -1)
		rest = rest[1:]
	}
	if lay.outOnly > 0 && len(rest) == lay.outOnly {
		t.outOnlyRow(ln, s, f, rest, r, row, lay.wrongIsErrorCol)
		return true
	}
	if len(rest) < half+4 {
		if len(r.Truncated) < maxKept {
			r.Truncated = append(r.Truncated, row.Evidence)
		}
		t.pieces = t.joined
		if t.pieces == nil {
			t.pieces = []pieceSeg{{ln, s}}
		}
		t.pieceHalf, t.pieceRoom = half, 0
		if len(rest)%half == 0 {
			t.pieceRoom = 2*half - len(rest)
		}
		return true
	}
	if w := rest[half+3]; len(rest) == half+4 && len(w) < 3 && strings.HasPrefix("N/A", w) {
		// A paste cut inside the line's last field, the in-place N/A
		// (nccl#2169: "... 337.99    N"): the row's measurements are
		// whole and the field can only have been N/A.
		rest[half+3] = "N/A"
	}
	var ok1, ok2 bool
	row.Out, ok1 = parseHalf(rest[0:4], lay.wrongIsErrorCol)
	row.In, ok2 = parseHalf(rest[half:half+4], lay.wrongIsErrorCol)
	if !ok1 || !ok2 {
		r.GarbledRows++
		if len(t.Garbled) < maxKept {
			at, name := 0, "out-of-place"
			if ok1 {
				at, name = half, "in-place"
			}
			_, i := readHalf(rest[at:at+4], lay.wrongIsErrorCol)
			expected := "a number of at least 0"
			if i == 3 {
				expected = "a count or N/A"
			}
			gl, off := t.fieldAt(ln, s, f, len(f)-len(rest)+at+i)
			t.Garbled = append(t.Garbled, garbleAt(gl, off, fmt.Sprintf("%s (the %s %s) in an nccl-tests row", expected, name, halfColumns[i])))
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

// outOnlyRow reads the time, algbw and busbw of a row of a table whose
// header names only the out-of-place half (rowLayout.outOnly) into run r;
// f are the row's fields, rest those after its type, redop and root: the
// half's time, algbw and busbw, and its #wrong (or error) where the
// header keeps that column.
func (t *NCCLTests) outOnlyRow(ln Line, s string, f, rest []string, r *TestRun, row TestRow, errorCol bool) {
	half := append(rest[:len(rest):len(rest)], "N/A")
	h, i := readHalf(half[:4], errorCol)
	if i >= 0 {
		r.GarbledRows++
		if len(t.Garbled) < maxKept {
			expected := "a number of at least 0"
			if i == 3 {
				expected = "a count or N/A"
			}
			gl, off := t.fieldAt(ln, s, f, len(f)-len(rest)+i)
			t.Garbled = append(t.Garbled, garbleAt(gl, off, fmt.Sprintf("%s (the out-of-place %s) in an nccl-tests row", expected, halfColumns[i])))
		}
		return
	}
	row.Out, row.In = h, TestHalf{Wrong: -1}
	t.keepRow(r, row)
}

// keepRow adds a whole row to run r. A smaller size than the row before's
// is a backstep (interleaved processes) only within one sweep: nccl-tests
// run with -d all, -o all or -r -1 sweeps the sizes again for each data
// type, reduction op or root, so a row whose type, redop or root differs
// from the row before's starts a sweep of its own.
func (t *NCCLTests) keepRow(r *TestRun, row TestRow) {
	if n := len(r.Rows); n > 0 && row.Size < r.Rows[n-1].Size && sameSweep(r.Rows[n-1], row) {
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

// sameSweep reports whether rows a and b belong to one size sweep: the
// same data type, reduction op and root.
func sameSweep(a, b TestRow) bool {
	return a.Type == b.Type && a.Redop == b.Redop && a.Root == b.Root
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

// halfColumns name the four columns of a row's half.
var halfColumns = [4]string{"time", "algbw", "busbw", "#wrong"}

// parseHalf reads "time algbw busbw #wrong"; errorCol says the last
// column is the old "error" column, not a count.
func parseHalf(f []string, errorCol bool) (TestHalf, bool) {
	h, bad := readHalf(f, errorCol)
	return h, bad < 0
}

// readHalf reads a half as parseHalf does and returns the index of the
// first field it cannot read (a time, algbw or busbw that is no number of
// at least 0, a #wrong that is no count or N/A), -1 when it read them all.
func readHalf(f []string, errorCol bool) (TestHalf, int) {
	var h TestHalf
	for i, dst := range []*float64{&h.Time, &h.AlgBW, &h.BusBW} {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return h, i
		}
		*dst = v
	}
	var ok bool
	if h.Wrong, h.ErrorText, ok = wrongField(f[3], errorCol); !ok {
		return h, 3
	}
	return h, -1
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
