package fields

import (
	"slices"
	"testing"
)

func TestAt(t *testing.T) {
	f, c := At("  KMAX_MAP\t2 100000000000 400\r")
	if want := []string{"KMAX_MAP", "2", "100000000000", "400"}; !slices.Equal(f, want) {
		t.Errorf("fields %q, want %q", f, want)
	}
	if want := []int{3, 12, 14, 27}; !slices.Equal(c, want) {
		t.Errorf("columns %v, want %v", c, want)
	}
	if f, c := At(" \t\r"); f != nil || c != nil {
		t.Errorf("blank line: %q %v", f, c)
	}
}
