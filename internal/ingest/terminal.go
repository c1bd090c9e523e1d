package ingest

import (
	"strconv"
	"unicode/utf8"
)

// Terminal captures. What a terminal shows of a line is what it was
// written to show, not its bytes: colourised loggers (kubectl or docker
// logs of one, k9s) wrap text in SGR codes, tput's sgr0 adds a charset
// designation ("\x1b(B\x1b[m"), a script(1) typescript or a tmux/screen
// capture keeps the backspaces of typing and the carriage returns of
// progress bars redrawn in place ("50%\r100%"), and "\x1b[K" erases what
// a redraw leaves. render plays a line through a one-line terminal:
// control sequences are cut, a carriage return or a backspace moves the
// cursor back, and what is written there overwrites what was. Bytes that
// are not UTF-8 are read as Latin-1, one character each.

// needsRender reports whether b holds anything render changes: control
// bytes other than tab, or bytes that are not UTF-8.
func needsRender(b []byte) bool {
	high := false
	for _, c := range b {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return true
		}
		high = high || c >= 0x80
	}
	return high && !utf8.Valid(b)
}

// A termCell is one character on the terminal's line and where in the line
// as read the byte that wrote it is.
type termCell struct {
	r  rune
	at int
}

// render returns what a terminal shows of b, and cols: for every byte of
// the text, the offset in the line as read of the byte that wrote it,
// plus one more entry, the length of the line as read. at gives the
// offset of every byte of b when b is not the line as read (a record's
// field), nil when it is; end is the length of the line as read.
func render(b []byte, at []int, end int) (string, []int) {
	pos := func(i int) int {
		if at == nil {
			return i
		}
		return at[i]
	}
	if styleOnly(b) {
		return cutEscapes(b, pos, end)
	}
	cells := make([]termCell, 0, len(b))
	cur := 0
	put := func(c termCell) {
		for len(cells) < cur {
			cells = append(cells, termCell{r: ' ', at: c.at})
		}
		if cur < len(cells) {
			cells[cur] = c
		} else {
			cells = append(cells, c)
		}
		cur++
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b:
			j := ansiEnd(b, i)
			cur, cells = csiMove(b[i:min(j+1, len(b))], cur, cells)
			i = j + 1
			continue
		case c == '\r':
			cur = 0
		case c == '\b':
			cur = max(cur-1, 0)
		case c == '\t':
			put(termCell{r: '\t', at: pos(i)})
		case c < 0x20 || c == 0x7f:
		case c < 0x80:
			put(termCell{r: rune(c), at: pos(i)})
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				r = rune(c) // Latin-1
			}
			put(termCell{r: r, at: pos(i)})
			i += n
			continue
		}
		i++
	}
	text := make([]byte, 0, len(cells))
	cols := make([]int, 0, len(cells)+1)
	for _, c := range cells {
		n := len(text)
		text = utf8.AppendRune(text, c.r)
		for range len(text) - n {
			cols = append(cols, c.at)
		}
	}
	return string(text), append(cols, end)
}

// styleOnly reports whether the only controls in b are escape sequences
// that move nothing on the line (colours, charsets, titles) and b is
// UTF-8: what a terminal shows of it is its bytes with those cut.
func styleOnly(b []byte) bool {
	high := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == 0x1b:
			j := ansiEnd(b, i)
			if j < len(b) && b[i+1] == '[' && (b[j] == 'K' || b[j] == 'C' || b[j] == 'D' || b[j] == 'G') {
				return false
			}
			i = j
		case c < 0x20 && c != '\t' || c == 0x7f:
			return false
		default:
			high = high || c >= 0x80
		}
	}
	return !high || utf8.Valid(b)
}

// cutEscapes returns b without its escape sequences, and the columns
// render returns.
func cutEscapes(b []byte, pos func(int) int, end int) (string, []int) {
	text := make([]byte, 0, len(b))
	cols := make([]int, 0, len(b)+1)
	for i := 0; i < len(b); i++ {
		if b[i] == 0x1b {
			i = ansiEnd(b, i)
			continue
		}
		text = append(text, b[i])
		cols = append(cols, pos(i))
	}
	return string(text), append(cols, end)
}

// termColumns is the widest terminal a cursor move is played on.
const termColumns = 512

// csiMove applies what the control sequence seq (ESC and what follows)
// does to the cursor and the line: erase in line ("\x1b[K", "\x1b[2K")
// and cursor moves along it ("\x1b[5D", "\x1b[C", "\x1b[12G"). Every
// other sequence (colours, charsets, titles, moves off the line) changes
// nothing a reader reads.
func csiMove(seq []byte, cur int, cells []termCell) (int, []termCell) {
	if len(seq) < 3 || seq[1] != '[' {
		return cur, cells
	}
	final := seq[len(seq)-1]
	n, err := strconv.Atoi(string(seq[2 : len(seq)-1]))
	if err != nil {
		n = 0
	}
	switch final {
	case 'K':
		switch n {
		case 0:
			cells = cells[:min(cur, len(cells))]
		case 1:
			for i := 0; i <= cur && i < len(cells); i++ {
				cells[i].r = ' '
			}
		case 2:
			cells = cells[:0]
		}
	case 'C':
		cur += max(n, 1)
	case 'D':
		cur = max(cur-max(n, 1), 0)
	case 'G':
		cur = max(n, 1) - 1
	}
	// A terminal's cursor stops at its right margin: one past what was
	// written, or termColumns, whichever is further.
	return min(cur, max(len(cells), termColumns)), cells
}

// ansiEnd returns the index of the last byte of the escape sequence that
// starts at b[i]: a CSI's parameters and final byte in 0x40..0x7e; an
// OSC, DCS, SOS, PM or APC string up to BEL or ESC backslash; else the
// intermediate bytes (0x20..0x2f) after the escape and the final byte
// after them ("\x1b(B", "\x1b=", "\x1b7").
func ansiEnd(b []byte, i int) int {
	if i+1 >= len(b) {
		return len(b)
	}
	switch b[i+1] {
	case '[':
		j := i + 2
		for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
			j++
		}
		return j
	case ']', 'P', 'X', '^', '_':
		j := i + 2
		for j < len(b) && b[j] != 0x07 && !(b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\') {
			j++
		}
		if j < len(b) && b[j] == 0x1b {
			j++
		}
		return j
	}
	j := i + 1
	for j < len(b)-1 && b[j] >= 0x20 && b[j] <= 0x2f {
		j++
	}
	return j
}
