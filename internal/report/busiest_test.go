package report

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeepBusiestIsStableSortPrefix checks that keeping the busiest links
// one at a time gives the first busiestLinks of a stable sort, busiest
// first, of every link: ties (many, from a few utilisation levels) keep
// the order the links were met in.
func TestKeepBusiestIsStableSortPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := r.IntN(40)
		all := make([]LinkLoad, n)
		var top []LinkLoad
		for i := range all {
			all[i] = LinkLoad{Port: fmt.Sprint(i), Utilization: float64(r.IntN(5)) / 4}
			top = keepBusiest(top, all[i])
		}
		slices.SortStableFunc(all, func(a, b LinkLoad) int {
			switch {
			case a.Utilization > b.Utilization:
				return -1
			case a.Utilization < b.Utilization:
				return 1
			}
			return 0
		})
		want := all[:min(n, busiestLinks)]
		if !slices.Equal(top, want) {
			t.Fatalf("trial %d: kept %v, want %v", trial, top, want)
		}
	}
}
