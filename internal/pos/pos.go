// Package pos holds the error every reader of a text input returns for a
// problem it can place (the file, the line and column from 1, and what
// was wrong there), and the placed value readers keep settings in. It is a leaf, so that readers of different formats
// (SONiC's CONFIG_DB, nccl-tests' JSON) report places alike.
package pos

import (
	"errors"
	"fmt"
)

// An Error is a problem in an input at a line and column.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

// Error returns "file:line:col: msg", the form editors jump to.
func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// Placed reports whether err is nil or an Error at a line and column of
// the input: what every reader's fuzz test holds its refusals to.
func Placed(err error) bool {
	line, col := At(err)
	return err == nil || line >= 1 && col >= 1
}

// At returns the line and column of the Error err is or wraps, 0 and 0
// when it is none.
func At(err error) (line, col int) {
	var e *Error
	if !errors.As(err, &e) {
		return 0, 0
	}
	return e.Line, e.Col
}

// A Value is a setting as an input writes it, with its line and column
// (Line 0: not written, a default). The readers of switch configurations
// (SONiC, NVUE, EOS) all keep their settings this way.
type Value struct {
	Text      string
	Line, Col int
}

// Given reports whether the input writes the value.
func (v Value) Given() bool { return v.Line > 0 }
