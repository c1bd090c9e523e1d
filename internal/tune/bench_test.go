package tune

import (
	"fmt"
	"testing"

	"rocelab/internal/twin"
)

// BenchmarkSearch runs the headroom-short space (4 candidates) with 1 and 2
// workers: the speed-up across cores. Compare ns/op between the two.
func BenchmarkSearch(b *testing.B) {
	base, sp := setup(b, spaceFile(b))
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Search(base, sp, Options{Config: twin.Config{Workers: w}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(4*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
