package sim

import "testing"

// FuzzScheduler runs the differential comparison of TestDifferential on
// programs decoded from fuzz bytes, with compaction after a few tombstones
// and with the default threshold.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 70, 0, 0, 0, 0, 0, 0, 0, 9, 4, 0, 0, 0, 0, 0, 0, 0, 5, 6, 6, 6})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<12 {
			data = data[:1<<12]
		}
		for _, minCompact := range []int{2, defaultMinCompact} {
			ref := &world{s: &refScheduler{}}
			got := &world{s: newTestScheduler(minCompact)}
			if err := runProgram(data, ref, got); err != nil {
				t.Fatalf("minCompact %d: %v", minCompact, err)
			}
		}
	})
}
