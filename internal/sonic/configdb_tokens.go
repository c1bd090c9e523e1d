package sonic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"rocelab/internal/pos"
)

// The JSON layer under the config_db parser: a token reader that knows
// where each token is, turns decoder errors into positioned messages that
// name the usual hand-editing mistakes, and skips the rest of a value
// that did not fit.

type parser struct {
	name   string
	data   []byte
	dec    *json.Decoder
	starts []int // byte offset of each line start
	// lastDelim is the opening delimiter of the value token last read
	// ('{' or '['), 0 for a scalar; lastSyntax is set when the last
	// error was a JSON syntax error.
	lastDelim  json.Delim
	lastSyntax bool
	// shift is 1 when data is a fragment wrapped in the braces it lacked:
	// offsets into data are one past those of the text as given.
	shift int
	// inDump is set while a row's sonic-db-dump "value" object is read:
	// that object is the row's fields, never another wrapper.
	inDump bool
	// unwrapped is set once a wrapped config was read (configdb_wrapped.go).
	unwrapped bool
	// A wrapped config's parser reads the wrapper's object alone: base is
	// that object's offset in the whole data, textLen the length of the
	// text as given, and wrapped stops wrappers being looked for again.
	base, textLen int
	wrapped       bool
	// gcuCase is set by wrapper when the object it passed is one test case
	// of a generic config updater test file: its config is one level down.
	gcuCase bool
	// scanned counts the bytes handed to decoders beside the token
	// reader's one pass (wrapper checks, wrapped configs), shared with
	// a wrapped config's parser.
	scanned *int
}

func (p *parser) index() {
	p.starts, p.textLen = []int{0}, len(p.data)-2*p.shift
	for i, c := range p.data[p.shift : len(p.data)-p.shift] {
		if c == '\n' {
			p.starts = append(p.starts, i+1)
		}
	}
}

// pos converts a byte offset into data into a 1-based line and column (in
// bytes) of the text as given.
func (p *parser) pos(off int) (int, int) {
	off += p.base - p.shift
	off = max(0, min(off, p.textLen))
	l := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off }) - 1
	return l + 1, off - p.starts[l] + 1
}

// next returns the offset where the next token starts.
func (p *parser) next() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (p *parser) errAt(off int, format string, args ...any) *pos.Error {
	l, c := p.pos(off)
	return &pos.Error{File: p.name, Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
}

// token reads a token, turning decoder errors into positioned ones.
func (p *parser) token() (json.Token, int, error) {
	off := p.next()
	t, err := p.dec.Token()
	p.lastDelim, p.lastSyntax = 0, err != nil
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		p.lastDelim = d
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, off, p.syntaxErr(p.syntaxAt(se))
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, off, p.errAt(len(p.data), "invalid JSON: unexpected end of input")
		}
		return nil, off, p.errAt(off, "invalid JSON: %v", err)
	}
	return t, off, nil
}

// syntaxAt returns where a syntax error the token reader met is: the
// decoder's offset is the byte's only for errors between tokens; for a
// malformed value ({"PORT": x}, a bare word) it counts from elsewhere.
// Validating the whole text gives the first bad byte's offset, plus one.
func (p *parser) syntaxAt(se *json.SyntaxError) (int, *json.SyntaxError) {
	var v any
	var whole *json.SyntaxError
	if err := json.Unmarshal(p.data, &v); errors.As(err, &whole) && whole.Offset > 0 {
		return int(whole.Offset) - 1, whole
	}
	return int(se.Offset), se
}

// syntaxErr positions a JSON syntax error at off, the offending byte, and
// names the mistakes hand-made configs show most: typographic quotes (text
// copied from a document or a chat), a missing comma, a comment, and a
// comma before a closing brace or bracket, which is placed at the comma.
func (p *parser) syntaxErr(off int, se *json.SyntaxError) *pos.Error {
	for off > 0 && off < len(p.data) && !utf8.RuneStart(p.data[off]) {
		off--
	}
	if off < 0 || off >= len(p.data) {
		return p.errAt(off, "invalid JSON: %s", se.Error())
	}
	switch r, _ := utf8.DecodeRune(p.data[off:]); r {
	case '\u201c', '\u201d', '\u2018', '\u2019', '\u00ab', '\u00bb':
		return p.errAt(off, "invalid JSON: typographic quote %c (U+%04X) where JSON needs a straight \" (copied from a document or chat?)", r, r)
	case '/':
		if off+1 < len(p.data) && (p.data[off+1] == '/' || p.data[off+1] == '*') {
			return p.errAt(off, "invalid JSON: a comment (JSON has none)")
		}
	case '"', '{', '[':
		if strings.Contains(se.Error(), "after object key:value pair") || strings.Contains(se.Error(), "after array element") {
			return p.errAt(off, "invalid JSON: a comma is missing before %c", r)
		}
	case '}', ']':
		i := off - 1
		for i >= 0 && (p.data[i] == ' ' || p.data[i] == '\t' || p.data[i] == '\r' || p.data[i] == '\n') {
			i--
		}
		if i >= 0 && p.data[i] == ',' {
			return p.errAt(i, "invalid JSON: comma before %c (JSON allows no trailing comma)", r)
		}
	}
	return p.errAt(off, "invalid JSON: %s", se.Error())
}

// open expects '{'.
func (p *parser) open(what string) (int, error) {
	t, off, err := p.token()
	if err != nil {
		return off, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return off, p.errAt(off, "%s: expected an object ({...}), got %s", what, describe(t))
	}
	return off, nil
}

// key reads an object key, or reports the object's end.
func (p *parser) key() (string, int, bool, error) {
	t, off, err := p.token()
	if err != nil {
		return "", off, false, err
	}
	if d, ok := t.(json.Delim); ok && d == '}' {
		return "", off, false, nil
	}
	k, ok := t.(string)
	if !ok {
		return "", off, false, p.errAt(off, "expected a key, got %s", describe(t))
	}
	return k, off, true, nil
}

// objectOfObjects reports whether the next value is an object whose first
// member's value is an object: a table's rows, not a row's fields.
func (p *parser) objectOfObjects() bool {
	off := p.next()
	if off >= len(p.data) || p.data[off] != '{' {
		return false
	}
	off = skipSpace(p.data, off+1)
	if off >= len(p.data) || p.data[off] != '"' {
		return false
	}
	for off++; off < len(p.data) && p.data[off] != '"'; off++ {
		if p.data[off] == '\\' {
			off++
		}
	}
	off = skipSpace(p.data, off+1)
	if off >= len(p.data) || p.data[off] != ':' {
		return false
	}
	off = skipSpace(p.data, off+1)
	return off < len(p.data) && p.data[off] == '{'
}

// skipSpace returns the offset of the first byte from off on that is no
// JSON white space.
func skipSpace(data []byte, off int) int {
	for off < len(data) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\r' || data[off] == '\n') {
		off++
	}
	return off
}

// peek returns the first byte of the next token, 0 at the end.
func (p *parser) peek() byte {
	if off := p.next(); off < len(p.data) {
		return p.data[off]
	}
	return 0
}

// skipRest recovers from a shape error in a table lint does not read: the
// token that did not fit has been read, so the rest of its value (when it
// opened an object or a list) is consumed. Syntax errors stay errors.
func (p *parser) skipRest(shapeErr error) error {
	if p.lastDelim == 0 {
		return nil
	}
	if p.lastSyntax {
		return shapeErr
	}
	depth := 1
	for depth > 0 {
		t, _, err := p.token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
	}
	return nil
}

func describe(t json.Token) string {
	switch x := t.(type) {
	case json.Delim:
		if x == '[' || x == ']' {
			return "a list"
		}
		return "an object"
	case string:
		return fmt.Sprintf("the string %q", x)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", t)
}
