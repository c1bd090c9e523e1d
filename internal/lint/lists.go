package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Small list helpers the rules share, and priority and port lists as
// findings print them.

func maskList(m uint8) []int {
	var out []int
	for p := 0; p < 8; p++ {
		if m&(1<<p) != 0 {
			out = append(out, p)
		}
	}
	return out
}

// portList names ports compactly: up to four, then a count.
func portList(ps []string) string {
	var sorted []string
	for _, p := range ps {
		if !slices.Contains(sorted, p) {
			sorted = append(sorted, p)
		}
	}
	sort.Strings(sorted)
	if len(sorted) <= 4 {
		return strings.Join(sorted, ",")
	}
	return fmt.Sprintf("%s,... (%d ports)", strings.Join(sorted[:3], ","), len(sorted))
}
