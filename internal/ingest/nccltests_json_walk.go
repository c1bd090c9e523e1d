package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"rocelab/internal/pos"
)

// The JSON walk under ReadNCCLTestsJSON: tokens read with the path to
// them ("results[3].in_place") and their line:col, so that every error
// says where and what was expected, and a cut document is told from a
// wrong one.

// skipJSON reads one value, whatever it holds; tick is called at every
// token.
func skipJSON(dec *json.Decoder, tick func()) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		tick()
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func (j *jsonRun) tick() { j.tap.pos(j.dec.InputOffset()) }

// A jsonAt is a place in the document: its offset, line and column.
type jsonAt struct {
	off       int64
	line, col int
}

// here returns the place at offset off, which must not lie before a place
// asked for earlier.
func (j *jsonRun) here(off int64) jsonAt {
	l, c := j.tap.pos(off)
	return jsonAt{off: off, line: l, col: c}
}

// at returns the evidence at a, with text on one line.
func (j *jsonRun) at(a jsonAt, text string) Evidence {
	return Evidence{File: j.src, Line: a.line, Col: a.col, Text: oneLine(text)}
}

// oneLine folds the line breaks of a re-indented document, and the
// indentation after them, into single spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func (j *jsonRun) where() string {
	if len(j.path) == 0 {
		return "the document"
	}
	return strings.TrimPrefix(strings.Join(j.path, ""), ".")
}

func (j *jsonRun) errAt(off int64, msg string) *pos.Error {
	l, c := j.tap.pos(off)
	return &pos.Error{File: j.src, Line: l, Col: c, Msg: msg}
}

// fail turns a decoder error into a *pos.Error saying what was expected,
// and passes a cut document's end through.
func (j *jsonRun) fail(err error, want string) error {
	var se *json.SyntaxError
	var de *DecodeError
	switch {
	case isCut(err), errors.As(err, &de):
		// A DecodeError says itself where the text stopped decoding.
		return err
	case errorsAs(err, &se):
		// The decoder counts a syntax error's offset from where the value
		// it was reading began; the next token starts after the last read.
		return j.errAt(max(se.Offset-1, j.dec.InputOffset()), fmt.Sprintf("in %s: %s; expected %s", j.where(), se.Error(), want))
	}
	return j.errAt(j.tap.off, err.Error())
}

func errorsAs(err error, se **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	if ok {
		*se = s
	}
	return ok
}

// token reads the next token; a cut document passes io.ErrUnexpectedEOF.
func (j *jsonRun) token(want string) (json.Token, error) {
	t, err := j.dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, j.fail(err, want)
	}
	j.tick()
	return t, nil
}

// object reads an object's members, calling member for each key; member
// must read the value.
func (j *jsonRun) object(what string, member func(key string, at jsonAt) error) error {
	t, err := j.token("'{' beginning " + what)
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return j.errAt(j.dec.InputOffset()-1, fmt.Sprintf("in %s: expected an object (%s), found %v", j.where(), what, t))
	}
	return j.members(member)
}

// open reads the '{' that begins what, marks the bytes from it on as
// evidence, and returns where it is.
func (j *jsonRun) open(what string) (jsonAt, error) {
	t, err := j.token("'{' beginning " + what)
	if err != nil {
		return jsonAt{}, err
	}
	off := j.dec.InputOffset() - 1
	if t != json.Delim('{') {
		return jsonAt{}, j.errAt(off, fmt.Sprintf("in %s: expected an object (%s), found %v", j.where(), what, t))
	}
	j.tap.mark(off)
	return j.here(off), nil
}

// members reads the members of an object whose '{' was read.
func (j *jsonRun) members(member func(key string, at jsonAt) error) error {
	for {
		t, err := j.token("a key or '}'")
		if err != nil {
			return err
		}
		if t == json.Delim('}') {
			return nil
		}
		k, ok := t.(string)
		if !ok {
			return j.errAt(j.dec.InputOffset()-1, fmt.Sprintf("in %s: expected a key or '}'", j.where()))
		}
		at := j.here(j.dec.InputOffset())
		j.path = append(j.path, "."+k)
		if err := member(k, at); err != nil {
			return err
		}
		j.path = j.path[:len(j.path)-1]
	}
}

// list reads an array, calling item for each element at index i; item
// must read the element.
func (j *jsonRun) list(what string, item func(i int) error) error {
	t, err := j.token("'[' beginning " + what)
	if err != nil {
		return err
	}
	if t == nil {
		return nil // null
	}
	if t != json.Delim('[') {
		return j.errAt(j.dec.InputOffset()-1, fmt.Sprintf("in %s: expected a list (%s)", j.where(), what))
	}
	for i := 0; ; i++ {
		if !j.dec.More() {
			if _, err := j.token("']'"); err != nil {
				return err
			}
			return nil
		}
		j.path = append(j.path, "["+strconv.Itoa(i)+"]")
		if err := item(i); err != nil {
			return err
		}
		j.path = j.path[:len(j.path)-1]
	}
}

func (j *jsonRun) skip() error {
	err := skipJSON(j.dec, j.tick)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return j.fail(err, "a JSON value")
	}
	return nil
}

// scalar reads a number, string, boolean or null; ok is false for null.
func (j *jsonRun) scalar(want string) (json.Token, bool, error) {
	t, err := j.token(want)
	if err != nil {
		return nil, false, err
	}
	if _, ok := t.(json.Delim); ok {
		return nil, false, j.errAt(j.dec.InputOffset()-1, fmt.Sprintf("in %s: expected %s, found %v", j.where(), want, t))
	}
	return t, t != nil, nil
}

func (j *jsonRun) str() (string, error) {
	t, ok, err := j.scalar("a string")
	if err != nil || !ok {
		return "", err
	}
	s, isStr := t.(string)
	if !isStr {
		return "", j.errAt(j.dec.InputOffset()-1, fmt.Sprintf("in %s: expected a string", j.where()))
	}
	return s, nil
}

// avgCheck reads the footer's "okay", nccl-tests' verdict on the average
// against NCCL_TESTS_MIN_BW: "true" or "false" (its jsonBool writes a
// string; a JSON boolean is read alike), or "unchecked" when none was set.
func (j *jsonRun) avgCheck(r *TestRun) error {
	t, _, err := j.scalar("a string or boolean")
	if err != nil {
		return err
	}
	switch t {
	case "true", true:
		r.AvgCheck = AvgOK
	case "false", false:
		r.AvgCheck = AvgFailed
	}
	return nil
}

// num reads a number; nccl-tests writes NaN as the string "nan". ok is
// false for null.
func (j *jsonRun) num() (v float64, ok bool, err error) {
	t, ok, err := j.scalar("a number")
	if err != nil || !ok {
		return 0, false, err
	}
	switch x := t.(type) {
	case json.Number:
		v, err := strconv.ParseFloat(string(x), 64)
		if err == nil {
			return v, true, nil
		}
	case string:
		if strings.EqualFold(x, "nan") || strings.EqualFold(x, "-nan") {
			return math.NaN(), true, nil
		}
	}
	return 0, false, j.errAt(j.dec.InputOffset()-1, fmt.Sprintf("in %s: expected a number", j.where()))
}

func (j *jsonRun) integer() (int64, error) {
	t, ok, err := j.scalar("an integer")
	if err != nil || !ok {
		return 0, err
	}
	if n, isNum := t.(json.Number); isNum {
		if v, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return v, nil
		}
	}
	return 0, j.errAt(j.dec.InputOffset()-1, fmt.Sprintf("in %s: expected an integer", j.where()))
}

// objectOrNull reads an object, or null (setting *null).
func (j *jsonRun) objectOrNull(null *bool, what string, member func(string, jsonAt) error) error {
	t, err := j.token("'{' beginning " + what)
	if err != nil {
		return err
	}
	if t == nil {
		*null = true
		return nil
	}
	if t != json.Delim('{') {
		return j.errAt(j.dec.InputOffset()-1, fmt.Sprintf("in %s: expected an object (%s) or null", j.where(), what))
	}
	return j.members(member)
}
