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
	// marker is one more than where "NCCL INFO" or "NCCL WARN" starts in
	// Text, 0 when not known (a Line made by hand).
	marker int
	// Host is the host the input last named before this line: a shell
	// prompt ("[root@gpu01 ~]#", "user@gpu01:~$") or the output of a
	// `hostname` command; "" when none was named.
	Host string
	// Stamp is the time the input last stated before this line (see
	// Stamp); zero when none was.
	Stamp Stamp
	// rank is one more than the rank a launcher tag names (see Rank);
	// 0 for none, as in a Line made by hand.
	rank int
}

// A lineCount counts the input lines a parser recognised, once per line
// however many pieces launcher tags cut it into (two ranks' output run
// together on one line reaches the parsers as two Lines of one number).
type lineCount struct {
	n, last int
}

// add counts l unless a piece of its line was counted already.
func (c *lineCount) add(l Line) {
	if l.Num != c.last || c.n == 0 {
		c.n++
		c.last = l.Num
	}
}

// Rank is the rank a launcher tag names ("[1,3]<stdout>:", "[3]",
// "rank3:", srun's "3: "), -1 when the line has none.
func (l Line) Rank() int { return l.rank - 1 }

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
	rank      int
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
		lr.rank = -1
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
	text, owner, k := clean(lr.scratch)
	lr.rank = tagRankNumber(owner, k)
	if k == tagMPI || k == tagRank {
		if segs := splitMidTags(text, owner, k, lr.rest[:0]); len(segs) > 0 {
			text, lr.rest, lr.restTrunc = segs[0], segs[1:], truncated
		}
	}
	if len(lr.rest) == 0 {
		if segs := splitJoinedNCCL(text, lr.rest[:0]); len(segs) > 0 {
			text, lr.rest, lr.restTrunc = segs[0], segs[1:], truncated
		}
	}
	return lr.line(text, truncated), nil
}

// line classifies one cleaned line and attaches the context before it,
// then updates the context from it.
func (lr *LineReader) line(text string, truncated bool) Line {
	m := ncclMarker(text)
	l := Line{Num: lr.n, Text: text, Truncated: truncated, NCCL: m >= 0, marker: m + 1, rank: lr.rank + 1}
	l.Host, l.Stamp = lr.ctx.host, lr.ctx.stamp
	if !l.NCCL {
		lr.ctx.update(l)
	}
	return l
}

// Clean removes what pasting and log collection add to a machine-printed
// line: the line ending, ANSI escape sequences, Markdown block quoting and
// code fences, and the launcher tags before it (see stripLauncherTags).
func Clean(b []byte) string {
	s, _, _ := clean(b)
	return s
}

// clean is Clean that also returns the first launcher tag it removed and
// its kind.
func clean(b []byte) (text, owner string, k tagKind) {
	b = bytes.TrimRight(b, "\r\n")
	if bytes.IndexByte(b, 0x1b) >= 0 {
		b = stripANSI(b)
	}
	s := string(b)
	// Markdown block quotes, possibly nested: "> > text"; a code fence.
	if i := firstNonSpace(s); i < len(s) && (s[i] == '>' || s[i] == '`') {
		for {
			t := strings.TrimLeft(s, " ")
			if !strings.HasPrefix(t, ">") || len(s)-len(t) > 3 {
				break
			}
			s = strings.TrimPrefix(t[1:], " ")
		}
		if strings.HasPrefix(strings.TrimSpace(s), "```") {
			return "", "", tagNone
		}
	}
	if strings.Contains(s, "](http") {
		s = stripAutolinks(s)
	}
	return stripLauncherTags(s)
}

// stripAutolinks undoes what GitHub's Markdown does to a pasted log: it
// turns text that looks like a domain or address into a link to itself,
// "[net_ib.cc:101](http://net_ib.cc:101/)", "[10.1.3.201](http://10.1.3.201/)".
// Only links whose target is their own text are undone; other links stay.
func stripAutolinks(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "](http")
		if i < 0 {
			break
		}
		open := strings.LastIndexByte(s[:i], '[')
		end := strings.IndexByte(s[i:], ')')
		if open < 0 || end < 0 {
			break
		}
		text, target := s[open+1:i], s[i+2:i+end]
		_, url, _ := strings.Cut(target, "://")
		if text == "" || strings.TrimSuffix(url, "/") != text {
			b.WriteString(s[:i+end+1])
			s = s[i+end+1:]
			continue
		}
		b.WriteString(s[:open])
		b.WriteString(text)
		s = s[i+end+1:]
	}
	b.WriteString(s)
	return b.String()
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
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
func IsNCCLLine(s string) bool { return ncclMarker(s) >= 0 }

// firstNonSpace returns the index of the first byte of s that is not a
// space or tab, len(s) when there is none.
func firstNonSpace(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}
