package scenario

import (
	"testing"

	"rocelab/examples"
)

// BenchmarkLeafSpinePermutation runs the 128-host permutation example and
// reports packet-hops and events per second of wall time.
func BenchmarkLeafSpinePermutation(b *testing.B) {
	data, err := examples.FS.ReadFile("leafspine-permutation.yaml")
	if err != nil {
		b.Fatal(err)
	}
	s, err := Load("leafspine-permutation.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	var hops, events uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tw, err := Build(s)
		if err != nil {
			b.Fatal(err)
		}
		tw.Run()
		events += tw.Net.Sched.Executed()
		for _, pt := range tw.Net.Ports {
			hops += uint64(pt.Counters.TxPhyPackets)
		}
	}
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds(), "packet-hops/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
