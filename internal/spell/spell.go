// Package spell finds the name a misspelt one was most likely meant to
// be, so that an error listing what is expected can also say which.
package spell

import "strings"

// Closest returns the one name of names that got was most likely meant to
// be: the same name in another case or its singular, the target of an alias (a word other
// tools use for it, such as WRED's max_th for kmax), or the nearest by
// edit distance when it is near enough to be a slip (a letter or two, by
// the name's length) and nearer than any other name. It reports false when
// no name stands out.
func Closest(got string, names []string, aliases map[string]string) (string, bool) {
	for _, n := range names {
		if strings.EqualFold(n, got) || strings.EqualFold(singular(n), got) {
			return n, true
		}
	}
	if to, ok := aliases[strings.ToLower(got)]; ok {
		for _, n := range names {
			if n == to {
				return n, true
			}
		}
	}
	limit := min(3, max(1, len(got)/4))
	best, bestD, ties := "", limit+1, 0
	for _, n := range names {
		d := distance(strings.ToLower(got), strings.ToLower(n))
		switch {
		case d < bestD:
			best, bestD, ties = n, d, 0
		case d == bestD:
			ties++
		}
	}
	if best == "" || ties > 0 {
		return "", false
	}
	return best, true
}

// Hint is Closest as the end of an error message: `; did you mean "x"?`,
// or nothing.
func Hint(got string, names []string, aliases map[string]string) string {
	if n, ok := Closest(got, names, aliases); ok && n != got {
		return `; did you mean "` + n + `"?`
	}
	return ""
}

// singular returns a plural key name's singular (priorities: priority,
// flows: flow), else the name.
func singular(n string) string {
	if s, ok := strings.CutSuffix(n, "ies"); ok {
		return s + "y"
	}
	return strings.TrimSuffix(n, "s")
}

// distance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and transpositions of adjacent
// bytes that turn one into the other.
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
