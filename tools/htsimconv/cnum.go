package main

import (
	"math"
	"strconv"
	"strings"
)

// C's number parsers, as htsim reads its arguments (atoi) and its
// matrices (stoi): what they take and what they make of it.

// cAtoi is C's atoi as glibc runs it (strtol cut to an int): leading
// white space, a sign and the digits that follow; 0 where none do, and
// strtol's bounds past its range.
func cAtoi(s string) int32 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	var v int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			break
		}
		if d := int64(c - '0'); v > (math.MaxInt64-d)/10 {
			if neg {
				return 0 // LONG_MIN's low 32 bits
			}
			return -1 // LONG_MAX's
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return int32(v)
}

// stoiReads says whether C++'s stoi reads a number from s: an optional
// sign and a digit first, within an int.
func stoiReads(s string) bool {
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 {
		return false
	}
	end := 0
	for end < len(t) && t[end] >= '0' && t[end] <= '9' {
		end++
	}
	if end == 0 {
		return false
	}
	_, err := strconv.ParseInt(s[:len(s)-len(t)+end], 10, 32)
	return err == nil
}
