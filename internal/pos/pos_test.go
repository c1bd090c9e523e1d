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
