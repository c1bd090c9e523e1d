package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// MaxLineBytes is the longest line kept; the rest of a longer line is dropped
// and the line is marked Truncated.
const MaxLineBytes = 64 << 10

// A Line is one input line after cleaning.
type Line struct {
	// Num is the 1-based line number in the input.
	Num int
	// Text is the line without its line ending, ANSI colour codes,
	// Markdown quoting or an Open MPI output tag.
	Text string
	// Truncated is set when the line was longer than MaxLineBytes.
	Truncated bool
	// NCCL is set when NCCL printed the line ("NCCL INFO", "NCCL WARN"):
	// parsers of other formats skip such lines without looking further.
	NCCL bool
}

// A LineReader yields cleaned lines from a stream with bounded memory.
type LineReader struct {
	br      *bufio.Reader
	n       int
	scratch []byte
}

// NewLineReader returns a LineReader over r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 256<<10)}
}

// LineNum returns the number of the last line returned.
func (lr *LineReader) LineNum() int { return lr.n }

// Next returns the next line, or io.EOF after the last one.
func (lr *LineReader) Next() (Line, error) {
	lr.scratch = lr.scratch[:0]
	truncated := false
	for {
		frag, err := lr.br.ReadSlice('\n')
		if len(lr.scratch)+len(frag) <= MaxLineBytes {
			lr.scratch = append(lr.scratch, frag...)
		} else {
			if room := MaxLineBytes - len(lr.scratch); room > 0 {
				lr.scratch = append(lr.scratch, frag[:room]...)
			}
			truncated = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			if len(lr.scratch) == 0 {
				return Line{}, io.EOF
			}
			break
		}
		if err != nil {
			return Line{}, err
		}
		break
	}
	lr.n++
	text := Clean(lr.scratch)
	return Line{Num: lr.n, Text: text, Truncated: truncated, NCCL: IsNCCLLine(text)}, nil
}

// Clean removes what pasting and log collection add to a machine-printed
// line: the line ending, ANSI escape sequences, Markdown block quoting and
// code fences, and Open MPI "[1,0]<stdout>:" tags.
func Clean(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	if bytes.IndexByte(b, 0x1b) >= 0 {
		b = stripANSI(b)
	}
	s := string(b)
	// Markdown block quotes, possibly nested: "> > text".
	for {
		t := strings.TrimLeft(s, " ")
		if !strings.HasPrefix(t, ">") || len(s)-len(t) > 3 {
			break
		}
		s = strings.TrimPrefix(t[1:], " ")
	}
	if strings.HasPrefix(strings.TrimSpace(s), "```") {
		return ""
	}
	return stripMPITag(s)
}

// stripANSI removes CSI and OSC escape sequences.
func stripANSI(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != 0x1b {
			out = append(out, c)
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch b[i+1] {
		case '[': // CSI: parameters then a final byte in 0x40..0x7e
			j := i + 2
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			i = j
		case ']': // OSC: until BEL or ESC backslash
			j := i + 2
			for j < len(b) && b[j] != 0x07 && !(b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\') {
				j++
			}
			if j < len(b) && b[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// stripMPITag removes an Open MPI --tag-output prefix such as
// "[1,0]<stdout>:" or "[1,12]<stderr>: ".
func stripMPITag(s string) string {
	if len(s) < 10 || s[0] != '[' {
		return s
	}
	end := strings.Index(s, "]<std")
	if end < 2 || end > 16 {
		return s
	}
	for _, c := range s[1:end] {
		if (c < '0' || c > '9') && c != ',' {
			return s
		}
	}
	rest := s[end+1:]
	for _, tag := range []string{"<stdout>:", "<stderr>:"} {
		if strings.HasPrefix(rest, tag) {
			return strings.TrimPrefix(rest[len(tag):], " ")
		}
	}
	return s
}

// appendCapped appends x to xs unless xs already holds limit items, in
// which case it counts x in *omitted instead.
func appendCapped[T any](xs []T, x T, limit int, omitted *int) []T {
	if len(xs) >= limit {
		*omitted++
		return xs
	}
	return append(xs, x)
}

// IsNCCLLine reports whether NCCL printed the line: it holds "NCCL INFO"
// or "NCCL WARN" after the host:pid:tid [dev] prefix.
func IsNCCLLine(s string) bool {
	for {
		i := strings.Index(s, "NCCL ")
		if i < 0 {
			return false
		}
		s = s[i+5:]
		if strings.HasPrefix(s, "INFO") || strings.HasPrefix(s, "WARN") {
			return true
		}
	}
}
