package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Text encodings. Every reader sees UTF-8 lines ending in "\n", whatever
// wrote the file:
//
//   - Windows PowerShell 5.1's `>` and Out-File write UTF-16LE with a
//     byte-order mark, `Out-File -Encoding BigEndianUnicode` UTF-16BE;
//     both are decoded, and so is UTF-16 without a mark when its first
//     bytes show it (every other byte NUL in ASCII text);
//   - a UTF-8 byte-order mark (Notepad, PowerShell 7's utf8BOM) is
//     dropped;
//   - lines that end in a lone carriage return (classic Mac OS, some
//     serial consoles) are split there when the input's head has no
//     "\n", at least two carriage returns and no escape (a terminal's
//     redraws are left to render); a "\r\n" later on stays one line end;
//   - bytes that are not UTF-8 are read as Latin-1, line by line (see
//     render).
//
// A UTF-16 input that is not (an unpaired surrogate, an odd byte at its
// end) is refused with the line and column where it stops being text:
// no reader sees half of it.

// A DecodeError says where an input stops being text in its encoding.
type DecodeError struct {
	Src       string
	Line, Col int
	Why       string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Src, e.Line, e.Col, e.Why)
}

// sniffBytes is how much of an input its encoding is judged on.
const sniffBytes = 4 << 10

// DecodeText returns a reader of br's text as UTF-8 with "\n" line ends,
// and the name of the encoding it decoded ("" when br was read as is).
func DecodeText(br *bufio.Reader) (*bufio.Reader, string) {
	head, _ := br.Peek(sniffBytes)
	var (
		r    io.Reader
		name string
	)
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		br.Discard(3)
		name = "UTF-8 with a byte-order mark"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}) && !bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}):
		br.Discard(2)
		r, name = &utf16Reader{br: br, little: true, enc: "UTF-16LE"}, "UTF-16LE"
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		br.Discard(2)
		r, name = &utf16Reader{br: br, enc: "UTF-16BE"}, "UTF-16BE"
	default:
		if little, ok := bareUTF16(head); ok {
			u := &utf16Reader{br: br, little: little, enc: "UTF-16BE (no byte-order mark)"}
			if little {
				u.enc = "UTF-16LE (no byte-order mark)"
			}
			r, name = u, u.enc
		}
	}
	if r != nil {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if head, _ = br.Peek(sniffBytes); loneCR(head) {
		br = bufio.NewReaderSize(crReader{br}, 64<<10)
	}
	return br, name
}

// loneCR reports whether the lines of an input whose first bytes are
// head end in a lone carriage return: no line feed, two carriage returns
// at least, and no escape (whose redraws a carriage return belongs to).
func loneCR(head []byte) bool {
	return bytes.IndexByte(head, '\n') < 0 && bytes.Count(head, []byte{'\r'}) >= 2 && bytes.IndexByte(head, 0x1b) < 0
}

// bareUTF16 reports whether head is UTF-16 text without a byte-order
// mark, and its byte order: ASCII text so encoded has a NUL in every
// other byte and none in the others.
func bareUTF16(head []byte) (little, ok bool) {
	n := len(head) &^ 1
	if n < 8 {
		return false, false
	}
	var zeros [2]int
	for i := 0; i < n; i++ {
		if head[i] == 0 {
			zeros[i&1]++
		}
	}
	switch half := n / 2; {
	case zeros[1] >= half*9/10 && zeros[0] == 0:
		return true, true
	case zeros[0] >= half*9/10 && zeros[1] == 0:
		return false, true
	}
	return false, false
}

// A utf16Reader decodes UTF-16 to UTF-8, counting lines and columns
// (in bytes of the decoded text, as every other column counts) to say
// where a bad code unit is.
type utf16Reader struct {
	br        *bufio.Reader
	little    bool
	enc       string
	line, col int
	out       []byte
	err       error
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 && u.err == nil {
		u.fill()
	}
	if len(u.out) == 0 {
		return 0, u.err
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// fill decodes the next run of code units into u.out, or sets u.err.
func (u *utf16Reader) fill() {
	u.out = u.out[:0]
	for len(u.out) < 32<<10 {
		c, err := u.unit()
		if err != nil {
			u.err = err
			return
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			lo, err := u.unit()
			if err == io.EOF {
				err = nil
			}
			d := utf16.DecodeRune(r, rune(lo))
			if err != nil || d == '\uFFFD' {
				u.err = u.bad(fmt.Sprintf("%s text holds an unpaired surrogate 0x%04X (a character needs a high surrogate 0xD800-0xDBFF then a low one 0xDC00-0xDFFF)", u.enc, c))
				return
			}
			r = d
		}
		u.out = append(u.out, string(r)...)
		u.col += utf8.RuneLen(r)
		if r == '\n' {
			u.line++
			u.col = 0
		}
	}
}

// unit reads one code unit.
func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	n, err := io.ReadFull(u.br, b[:])
	switch {
	case n == 1:
		return 0, u.bad(fmt.Sprintf("%s text ends in half a character (an odd number of bytes)", u.enc))
	case err != nil:
		return 0, err
	case u.little:
		return uint16(b[0]) | uint16(b[1])<<8, nil
	}
	return uint16(b[1]) | uint16(b[0])<<8, nil
}

func (u *utf16Reader) bad(why string) error {
	return &DecodeError{Line: u.line + 1, Col: u.col + 1, Why: why}
}

// A crReader turns every carriage return that no line feed follows into
// a line feed; one that ends a read looks at the next byte.
type crReader struct{ br *bufio.Reader }

func (c crReader) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	for i := range p[:n] {
		if p[i] != '\r' {
			continue
		}
		if i+1 < n {
			if p[i+1] != '\n' {
				p[i] = '\n'
			}
		} else if next, _ := c.br.Peek(1); len(next) == 0 || next[0] != '\n' {
			p[i] = '\n'
		}
	}
	return n, err
}
