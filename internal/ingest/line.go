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
	// Origin is the host a pdsh or clush prefix before this line names
	// ("gpu01: "), "" when none does: the lines of several hosts may
	// interleave, so a parser that reads a block over many lines keeps
	// one per origin.
	Origin string
	// elastic is the name in torchrun's tag that owns this line
	// ("gpu01" of "[gpu01]:"), "" when none does: see hostKey.
	elastic string
	// Stamp is the time the input last stated before this line (see
	// Stamp); zero when none was.
	Stamp Stamp
	// rank is one more than the rank a launcher tag names (see Rank);
	// 0 for none, as in a Line made by hand. word is one more than the
	// rank of a rank-named logger's tag (see WordRank), group of old
	// PyTorch's "[Rank N]" (see GroupRank).
	rank, word, group int
	// col is how many bytes of the line as read come before Text: the
	// prefixes, tags and quoting taken off it.
	col int
	// at is, when a log record or terminal controls were taken out of
	// the line, the offset in the line as read of each byte of Text (and
	// of its end); nil when Text's bytes follow col as read.
	at []int
}

// Col returns the 1-based column, in the line as read, of byte i of Text.
func (l Line) Col(i int) int {
	if l.at != nil {
		return l.at[min(i, len(l.at)-1)] + 1
	}
	return l.col + i + 1
}

// artifactHead is what every artifact holds of its input: the input's
// name and the lines its parser recognised. Embedded, it gives the
// artifact its Source and Lines.
type artifactHead struct {
	src   string
	lines lineCount
}

// Source returns the input's name.
func (h *artifactHead) Source() string { return h.src }

// Lines returns how many lines were recognised.
func (h *artifactHead) Lines() int { return h.lines.n }

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

// hostKey names the source whose lines a per-host block reader (ethtool,
// hw_counters) keeps apart: the pdsh or clush origin, else the name in
// torchrun's tag ("[gpu01]:", "[default0]:"), so that the dumps of two
// tagged sources are never read as one, nor as a before and an after.
// The tag names no host (torchrun's is a role and a local rank): it goes
// to CounterSample.Tag, never Host.
func (l Line) hostKey() string {
	if l.Origin != "" {
		return l.Origin
	}
	return l.elastic
}

// sourceTag is the torchrun-form tag name of a line that no host prefix
// names, for CounterSample.Tag; "" otherwise.
func (l Line) sourceTag() string {
	if l.Origin != "" {
		return ""
	}
	return l.elastic
}

// WordRank is the rank of a rank-named logger's tag before the line
// ("[rank13]:", as PyTorch prints the job-wide rank), -1 when it has none.
func (l Line) WordRank() int { return l.word - 1 }

// GroupRank is the rank of old PyTorch's "[Rank 5] " before a watchdog
// line, the rank within the process group, -1 when the line has none.
func (l Line) GroupRank() int { return l.group - 1 }

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
	rest              []string
	restTrunc         bool
	ctx               lineContext
	rank, word, group int
	// ahead holds the block of lines read ahead to detect the collector
	// prefixes they share (see detectPrefixes); next is the next one to
	// return, and pre the prefixes found, outermost first.
	ahead []pendingLine
	next  int
	pre   []prefixKind
	texts []string // the texts of ahead, for detectPrefixes
	rec   recordState
	// end is what ended the input (io.EOF or a read error) once the
	// last block has been read.
	end error
}

// A pendingLine is one line read ahead, cleaned of its line ending, the
// log record around it, terminal controls and Markdown quoting.
type pendingLine struct {
	text string
	// cols gives, when the record or render changed the line, the offset
	// in the line as read of each byte of the text before its quoting
	// came off, and one more entry, the line's length; nil otherwise.
	cols []int
	// quoted is how many bytes of quoting came off the front of text.
	quoted    int
	truncated bool
}

// NewLineReader returns a LineReader over r. A *bufio.Reader is read as
// it is, whatever its size: readRaw joins the fragments ReadSlice gives
// at any buffer size, so the lines do not depend on it.
func NewLineReader(r io.Reader) *LineReader {
	if br, ok := r.(*bufio.Reader); ok {
		return &LineReader{br: br}
	}
	return &LineReader{br: bufio.NewReaderSize(r, bufferFor(r, 256<<10))}
}

// LineNum returns the number of the last line returned.
func (lr *LineReader) LineNum() int { return lr.n }

// Next returns the next line, or io.EOF after the last one.
func (lr *LineReader) Next() (Line, error) {
	if len(lr.rest) > 0 {
		text := lr.rest[0]
		lr.rest = lr.rest[1:]
		lr.rank, lr.word, lr.group = -1, -1, -1
		return lr.line(text, 0, lr.restTrunc), nil
	}
	if lr.next == len(lr.ahead) {
		if lr.end != nil {
			return Line{}, lr.end
		}
		lr.readBlock()
		if len(lr.ahead) == 0 {
			return Line{}, lr.end
		}
	}
	p := lr.ahead[lr.next]
	lr.ahead[lr.next] = pendingLine{}
	lr.next++
	lr.n++
	s, origin, owner, k := cutPrefixes(p.text, lr.pre)
	text, tag, kind, cut := cleanTagged(s)
	if betterTag(k, kind) {
		owner, k = tag, kind
	}
	col := p.quoted + len(p.text) - len(s) + cut
	var at []int
	if p.cols != nil {
		at = p.cols[min(col, len(p.cols)-1):]
		col = at[0]
	}
	lr.rank = tagRankNumber(owner, k)
	lr.word, lr.group = -1, -1
	switch {
	case k == tagWord && strings.Contains(owner, "Rank "):
		// Old PyTorch's watchdog lines start "[Rank 5] ": the rank
		// within the process group, not the job-wide one.
		lr.group = lr.rank
	case k == tagWord:
		lr.word = lr.rank
	case strings.Contains(s[:min(len(s), 64)], "ank"):
		lr.word = wordTagRank(s)
	}
	if k == tagMPI || k == tagRank {
		if segs := splitMidTags(text, owner, k, lr.rest[:0]); len(segs) > 0 {
			text, lr.rest, lr.restTrunc = segs[0], segs[1:], p.truncated
		}
	}
	if k == tagRay {
		if segs := splitRayTags(text, lr.rest[:0]); len(segs) > 0 {
			text, lr.rest, lr.restTrunc = segs[0], segs[1:], p.truncated
		}
	}
	if len(lr.rest) == 0 {
		if segs := splitGluedPiece(text, lr.rest[:0]); len(segs) > 0 {
			text, lr.rest, lr.restTrunc = segs[0], segs[1:], p.truncated
		}
	}
	if len(lr.rest) == 0 {
		if segs := splitJoinedNCCL(text, lr.rest[:0]); len(segs) > 0 {
			text, lr.rest, lr.restTrunc = segs[0], segs[1:], p.truncated
		}
	}
	l := lr.line(text, col, p.truncated)
	l.Origin, l.at = origin, at
	if k == tagElastic {
		l.elastic = strings.TrimSuffix(strings.TrimPrefix(owner, "["), "]:")
	}
	return l, nil
}

// readBlock reads the next block of lines ahead, up to prefixBlockLines
// or batchBytes of them, and detects the collector prefix they share. It
// sets lr.end when the input ends within the block.
func (lr *LineReader) readBlock() {
	lr.ahead, lr.next = lr.ahead[:0], 0
	size := 0
	for len(lr.ahead) < prefixBlockLines && size < batchBytes {
		b, truncated, err := lr.readRaw()
		if err != nil {
			lr.end = err
			break
		}
		lr.ahead = append(lr.ahead, cleanRaw(b, truncated, &lr.rec))
		size += len(b)
	}
	lr.texts = lr.texts[:0]
	for _, p := range lr.ahead {
		lr.texts = append(lr.texts, p.text)
	}
	lr.pre = detectPrefixes(lr.texts, lr.pre[:0])
	clear(lr.texts)
}

// readRaw reads one line, at most MaxLineBytes of it, into lr.scratch.
// It returns io.EOF only when no line is left.
func (lr *LineReader) readRaw() (b []byte, truncated bool, err error) {
	lr.scratch = lr.scratch[:0]
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
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(lr.scratch) > 0, err == nil:
			return lr.scratch, truncated, nil
		}
		return nil, false, err
	}
}

// line classifies one cleaned line and attaches the context before it,
// then updates the context from it.
func (lr *LineReader) line(text string, col int, truncated bool) Line {
	m := ncclMarker(text)
	l := Line{Num: lr.n, Text: text, Truncated: truncated, NCCL: m >= 0, marker: m + 1, rank: lr.rank + 1, word: lr.word + 1, group: lr.group + 1, col: col}
	l.Host, l.Stamp = lr.ctx.host, lr.ctx.stamp
	if !l.NCCL {
		lr.ctx.update(l)
	}
	return l
}

// Clean removes what pasting and log collection add to a machine-printed
// line: the line ending, a log record around it (see recordState),
// terminal controls (see render), Markdown block quoting and code fences,
// and the launcher tags before it (see stripLauncherTags). Collector
// prefixes (see detectPrefix) and CSV exports need the lines around a
// line and are left to a LineReader.
func Clean(b []byte) string {
	text, _, _, _ := cleanTagged(cleanRaw(b, false, &recordState{}).text)
	return text
}

// cleanRaw takes the line ending, the record around the line, terminal
// controls, Markdown block quotes and code fences off one line read.
func cleanRaw(b []byte, truncated bool, rec *recordState) pendingLine {
	b = bytes.TrimRight(b, "\r\n")
	p := pendingLine{truncated: truncated}
	var s string
	switch field, at, ok := rec.unwrap(b); {
	case ok && needsRender(field):
		s, p.cols = render(field, at, len(b))
	case ok:
		s, p.cols = string(field), append(at, len(b))
	case needsRender(b):
		s, p.cols = render(b, nil, len(b))
	default:
		s = string(b)
	}
	// Markdown block quotes, possibly nested: "> > text"; a code fence.
	if i := firstNonSpace(s); i < len(s) && (s[i] == '>' || s[i] == '`') {
		t := s
		for {
			u := strings.TrimLeft(t, " ")
			if !strings.HasPrefix(u, ">") || len(t)-len(u) > 3 {
				break
			}
			t = strings.TrimPrefix(u[1:], " ")
		}
		if strings.HasPrefix(strings.TrimSpace(t), "```") {
			t = ""
		}
		p.quoted, s = len(s)-len(t), t
	}
	p.text = s
	return p
}

// cleanTagged undoes GitHub's autolinks in s and removes the launcher tags
// before it and Ray's deduplication count after it. It returns the text, the first tag removed and its kind, and
// how many bytes came off the front of s.
func cleanTagged(s string) (text, owner string, k tagKind, cut int) {
	if strings.Contains(s, "](http") {
		s = stripAutolinks(s)
	}
	text, owner, k = stripLauncherTags(s)
	return cutRayRepeat(text), owner, k, len(s) - len(text)
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

// appendCapped appends x to xs unless xs already holds limit items, in
// which case it counts x in *omitted instead.
func appendCapped[T any](xs []T, x T, limit int, omitted *int) []T {
	if len(xs) >= limit {
		*omitted++
		return xs
	}
	return append(xs, x)
}

// appendCappedAt is appendCapped that also returns x's index in the
// result, -1 when the cap left it out.
func appendCappedAt[T any](xs []T, x T, limit int, omitted *int) ([]T, int) {
	n := len(xs)
	xs = appendCapped(xs, x, limit, omitted)
	if len(xs) == n {
		return xs, -1
	}
	return xs, n
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
