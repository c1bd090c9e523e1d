package pos

import (
	"errors"
	"fmt"
	"testing"
)

// TestPlaced: nil and an Error at a place pass, wrapped or not; an error
// without a place, or at line or column 0, does not.
func TestPlaced(t *testing.T) {
	at := &Error{File: "f", Line: 2, Col: 3, Msg: "m"}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, true},
		{at, true},
		{fmt.Errorf("wrapped: %w", at), true},
		{errors.New("no place"), false},
		{&Error{File: "f", Line: 0, Col: 1}, false},
		{&Error{File: "f", Line: 1, Col: 0}, false},
	} {
		if got := Placed(c.err); got != c.want {
			t.Errorf("Placed(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestAt: the place of an Error, wrapped or not; 0, 0 for any other error.
func TestAt(t *testing.T) {
	at := &Error{File: "f", Line: 2, Col: 3, Msg: "m"}
	for _, err := range []error{at, fmt.Errorf("wrapped: %w", at)} {
		if l, c := At(err); l != 2 || c != 3 {
			t.Errorf("At(%v) = %d, %d, want 2, 3", err, l, c)
		}
	}
	if l, c := At(errors.New("no place")); l != 0 || c != 0 {
		t.Errorf("At(no place) = %d, %d", l, c)
	}
}
