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
	// Host is the host the input last named before this line: a shell
	// prompt ("[root@gpu01 ~]#", "user@gpu01:~$") or the output of a
	// `hostname` command; "" when none was named.
	Host string
	// Stamp is the time the input last stated before this line (see
	// Stamp); zero when none was.
	Stamp Stamp
}

// A LineReader yields cleaned lines from a stream with bounded memory. It
// also follows the context a paste states between its dumps: the host
// (shell prompts, `hostname` output) and the time (`date` output), which
// it attaches to every later line.
type LineReader struct {
	br      *bufio.Reader
	n       int
	scratch []byte
	// rest holds the further segments of a line that launcher tags split
	// (two ranks' output run together on one line).
	rest      []string
	restTrunc bool
	ctx       lineContext
}

// NewLineReader returns a LineReader over r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 256<<10)}
}

// LineNum returns the number of the last line returned.
func (lr *LineReader) LineNum() int { return lr.n }

// Next returns the next line, or io.EOF after the last one.
func (lr *LineReader) Next() (Line, error) {
	if len(lr.rest) > 0 {
		text := lr.rest[0]
		lr.rest = lr.rest[1:]
		return lr.line(text, lr.restTrunc), nil
	}
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
	if i := midTag(text); i > 0 {
		lr.rest = splitTags(text[i:], lr.rest[:0])
		lr.restTrunc = truncated
		text = text[:i]
	}
	return lr.line(text, truncated), nil
}

// line classifies one cleaned line and attaches the context before it,
// then updates the context from it.
func (lr *LineReader) line(text string, truncated bool) Line {
	l := Line{Num: lr.n, Text: text, Truncated: truncated, NCCL: IsNCCLLine(text)}
	l.Host, l.Stamp = lr.ctx.host, lr.ctx.stamp
	if !l.NCCL {
		lr.ctx.update(l)
	}
	return l
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
	return stripLauncherTags(s)
}

// stripLauncherTags removes what launchers and loggers put before every
// line of a rank's output, repeatedly (two ranks' tags can run together
// when their output interleaves): Open MPI "[1,0]<stdout>:" tags, short
// rank tags "[0]", "[3]:", "rank0:", "[rank0]:", srun --label "0: ", and
// ISO timestamps ("2024-05-01T12:00:00.123Z ", "[2024-05-01 12:00:00] ").
// NCCL's own "host:pid:tid [dev]" prefix is not a launcher tag and stays;
// so does a line that would be empty without its tag.
func stripLauncherTags(s string) string {
	for k := 0; k < 4; k++ {
		t := stripMPITag(s)
		if t == s {
			t = stripShortTag(s)
		}
		if t == s {
			t = stripTimestamp(s)
		}
		if t == s || strings.TrimSpace(t) == "" {
			return s
		}
		s = t
	}
	return s
}

// stripShortTag removes "[0] ", "[12]:", "rank3: ", "[rank3]: ", "[Rank 3] "
// or an srun label "0: " at the start of s.
func stripShortTag(s string) string {
	t := s
	bracket := strings.HasPrefix(t, "[")
	if bracket {
		t = t[1:]
	}
	word := false
	for _, w := range []string{"rank", "Rank", "RANK"} {
		if r, ok := strings.CutPrefix(t, w); ok {
			t, word = strings.TrimPrefix(r, " "), true
			break
		}
	}
	i := 0
	for i < len(t) && i < 6 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return s
	}
	t = t[i:]
	if bracket {
		if !strings.HasPrefix(t, "]") {
			return s
		}
		t = strings.TrimPrefix(t[1:], ":")
		if t != "" && t[0] != ' ' && t[0] != '\t' && !word {
			return s // "[0]mlx5_0": an index, not a tag
		}
		return strings.TrimLeft(t, " \t")
	}
	// Unbracketed: "rank3:" or the srun label "3: ".
	if !strings.HasPrefix(t, ":") || !word && !strings.HasPrefix(t, ": ") {
		return s
	}
	return strings.TrimLeft(t[1:], " \t")
}

// stripTimestamp removes an ISO-8601 date and time (optionally bracketed)
// and the separator after it from the start of s.
func stripTimestamp(s string) string {
	t := strings.TrimPrefix(s, "[")
	if len(t) < 19 || !isDigits(t[0:4]) || t[4] != '-' || !isDigits(t[5:7]) || t[7] != '-' || !isDigits(t[8:10]) ||
		(t[10] != 'T' && t[10] != ' ') || !isDigits(t[11:13]) || t[13] != ':' || !isDigits(t[14:16]) || t[16] != ':' || !isDigits(t[17:19]) {
		return s
	}
	i := 19
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || strings.IndexByte(".,:+-Z", t[i]) >= 0) {
		i++
	}
	rest := strings.TrimPrefix(t[i:], "]")
	rest = strings.TrimLeft(rest, " \t|-")
	if rest == "" || len(rest) == len(t[i:]) && i < len(t) {
		return s
	}
	return rest
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// midTag returns where an Open MPI output tag starts inside s (another
// rank's output run into this line), or 0.
func midTag(s string) int {
	for off := 1; off < len(s); {
		j := strings.Index(s[off:], "]<std")
		if j < 0 {
			return 0
		}
		end := off + j
		k := strings.LastIndexByte(s[:end], '[')
		if k >= 1 && stripMPITag(s[k:]) != s[k:] {
			return k
		}
		off = end + 5
	}
	return 0
}

// splitTags cuts s, which starts with a launcher tag, at every further
// tag, and returns the cleaned segments appended to dst.
func splitTags(s string, dst []string) []string {
	for len(dst) < 64 {
		i := midTag(s)
		if i <= 0 {
			break
		}
		dst = append(dst, stripLauncherTags(s[:i]))
		s = s[i:]
	}
	return append(dst, stripLauncherTags(s))
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
