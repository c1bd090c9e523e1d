package lint

import (
	"strings"
	"testing"
)

// pfcMeant suggests a comma list only where the text's digits can be
// read one priority each: "10" (priority 10, or 1 and 0?) and "x" (no
// digit) get the general advice, not "0,1" or an empty list.
func TestPFCMeant(t *testing.T) {
	for in, want := range map[string]string{"3-4": "3,4", "3 4": "3,4", "3;4": "3,4", "4,3,": "3,4", "10": "", "34": "", "x": "", "3,8": "3"} {
		if got := pfcMeant(in); got != want {
			t.Errorf("pfcMeant(%q) = %q, want %q", in, got, want)
		}
		if fix := pfcFix(in); strings.Contains(fix, `""`) || strings.Contains(fix, "if  is") {
			t.Errorf("pfcFix(%q) = %q", in, fix)
		}
	}
}
