package ingest

import (
	"errors"
	"fmt"
	"io"
)

// A jsonTap sits between a JSON document and encoding/json's streaming
// decoder: it counts lines so that a byte offset becomes line:col, keeps
// the first bytes of the value being read as evidence text, and refuses a
// single value longer than maxJSONValue, so that memory stays bounded
// however large or garbled the input is.
type jsonTap struct {
	r   io.Reader
	off int64 // bytes read so far
	// nl holds the offsets of the newlines read and not yet passed by pos;
	// line is the line pos last reached and lineAt the offset it starts at.
	nl     []int64
	line   int
	lineAt int64
	// passed is the offset pos last reached; a value may not run further
	// than maxJSONValue past it.
	passed int64
	// recent holds the bytes from recentAt on, at most 2*recentKeep.
	recent   []byte
	recentAt int64
	// markBuf holds up to maxEvidenceText bytes from markAt on.
	markAt  int64
	markBuf []byte
	marking bool
}

const (
	recentKeep      = 4 << 10
	maxEvidenceText = 240
	// maxJSONValue bounds one scalar value of the document, and the bytes
	// between two of its tokens: nccl-tests writes strings of at most
	// 2047 bytes.
	maxJSONValue = 1 << 20
)

var errJSONValueTooLong = fmt.Errorf("a JSON value longer than %d KiB: not a document nccl-tests writes", maxJSONValue>>10)

func newJSONTap(r io.Reader) *jsonTap { return &jsonTap{r: r, line: 1} }

// Read implements io.Reader.
func (t *jsonTap) Read(p []byte) (int, error) {
	if t.off-t.passed > maxJSONValue {
		return 0, errJSONValueTooLong
	}
	n, err := t.r.Read(p)
	b := p[:n]
	for i, c := range b {
		if c == '\n' {
			t.nl = append(t.nl, t.off+int64(i))
		}
	}
	if t.marking && len(t.markBuf) < maxEvidenceText {
		start := max(t.markAt-t.off, 0)
		if start < int64(n) {
			t.markBuf = append(t.markBuf, b[start:min(int64(n), start+int64(maxEvidenceText-len(t.markBuf)))]...)
		}
	}
	t.recent = append(t.recent, b...)
	if len(t.recent) > 2*recentKeep {
		drop := len(t.recent) - recentKeep
		t.recent = append(t.recent[:0], t.recent[drop:]...)
		t.recentAt += int64(drop)
	}
	t.off += int64(n)
	return n, err
}

// pos returns the 1-based line and byte column of offset off. Offsets
// must not go back between calls.
func (t *jsonTap) pos(off int64) (line, col int) {
	for len(t.nl) > 0 && t.nl[0] < off {
		t.line++
		t.lineAt = t.nl[0] + 1
		t.nl = t.nl[1:]
	}
	t.passed = max(t.passed, off)
	return t.line, int(off-t.lineAt) + 1
}

// mark starts keeping the bytes from offset at on, which the decoder has
// read already or is about to; bytes already gone from recent are not
// kept (the text is then "…").
func (t *jsonTap) mark(at int64) {
	t.markAt, t.marking = at, at >= t.recentAt
	t.markBuf = t.markBuf[:0]
	if t.marking && at < t.off {
		from := at - t.recentAt
		t.markBuf = append(t.markBuf, t.recent[from:min(int64(len(t.recent)), from+maxEvidenceText)]...)
	}
}

// text returns the marked bytes up to offset end, clipped.
func (t *jsonTap) text(end int64) string {
	n := end - t.markAt
	if n <= int64(len(t.markBuf)) {
		return string(t.markBuf[:max(n, 0)])
	}
	return string(t.markBuf) + "…"
}

// tail returns the last bytes read, for evidence of where a document
// breaks off.
func (t *jsonTap) tail() string {
	b := t.recent[max(0, len(t.recent)-80):]
	return "…" + string(b)
}

// isCut reports whether err is a document ending before its values close.
func isCut(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) }
