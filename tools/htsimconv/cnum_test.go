package main

import "testing"

// cAtoi is glibc's atoi: leading white space, a sign, the digits that
// follow, 0 without any, and strtol's bounds cut to an int past its
// range (htsim's -strat ecmp_host_ar fraction, TestImportHostARFraction).
func TestCAtoi(t *testing.T) {
	for in, want := range map[string]int32{
		"50": 50, " +7": 7, "\t-12x": -12, "12abc": 12, "abc": 0, "": 0, "-": 0, "+0x5": 0,
		"65536": 65536, "4294967297": 1, "99999999999999999999": -1, "-99999999999999999999": 0,
	} {
		if got := cAtoi(in); got != want {
			t.Errorf("cAtoi(%q) = %d, expected %d", in, got, want)
		}
	}
}

// stoiReads is whether C++'s stoi reads a number, as htsim's matrix
// reader needs of a failure's switch_id and link_id (it aborts
// otherwise): a sign and a digit first, the value within an int.
func TestStoiReads(t *testing.T) {
	for in, want := range map[string]bool{
		"0": true, "+5abc": true, "-2": true, "2147483647": true, "-2147483648": true,
		"2147483648": false, "99999999999": false, "x": false, "": false, "+-1": false, "--1": false,
	} {
		if got := stoiReads(in); got != want {
			t.Errorf("stoiReads(%q) = %v, expected %v", in, got, want)
		}
	}
}
